"""Every dashboard page with a merchant's real data on it — long descriptions and e-mail
addresses, ids, amounts in billions of francs and millions of dollars — in headless Chromium at
360 px and 1280 px, in French and English: nothing is wider than the screen, no table cell is
cut (a cell ends inside the screen; a value too long for its cell ends in an ellipsis and gives
its whole self on hover), and no id, e-mail address or phone number wraps a few letters per
line."""

import pytest
from django.test import RequestFactory

from batches.services import batch_create_from_file
from dashboard.models import Membership
from dashboard.services import invite
from links.services import link_create
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import signed_in_page
from tests.dashboard.test_every_page import every_page
from tests.factories import make_charge, sent_payout, succeeded_mobile_money_charge
from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LONG_EMAIL = "comptabilite.boutique-gombe-kinshasa@entreprise-exemple-rdc.cd"
LONG_DESCRIPTION = (
    "Commande n° 2026-11-0042 : 3 sacs de riz 25 kg, 2 bidons d'huile de palme 20 L, "
    "livraison avenue du Commerce, Gombe"
)
BATCH = (
    "phone,amount,currency,network,reference,description\n"
    "+243812345678,98765432,CDF,VODACOM_MPESA,SAL-2026-11-0001,"
    "Salaire de novembre 2026 de la caissière principale du dépôt de Limete\n"
    "+243997654321,1250000,USD,AIRTEL_MONEY,SAL-2026-11-0002,Prime de fin d'année\n"
).encode()

# What is wrong on the page as it is: elements wider than the screen, table cells cut, long
# words (ids, addresses, numbers) broken over lines. One string per problem, naming the element.
PROBLEMS = """() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const name = (e) => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).trim().replace(/\\s+/g, ".") : "")
    + " «" + (e.innerText || "").trim().slice(0, 40) + "»";
  const hidden = (e) => {  // within a visually hidden element (clip-path: inset(50%))
    for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).clipPath === "inset(50%)") return true;
    return false;
  };
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden"
    && !e.closest(".skip") && !hidden(e);  // read aloud, not shown
  const ellipsed = (e) => getComputedStyle(e).textOverflow === "ellipsis" && !!e.closest("[title]");
  const scroller = (e) => e.closest(".nav, pre");  // the tab bar and raw data scroll on purpose
  for (const e of document.querySelectorAll("main *, footer *")) {
    if (!shown(e) || scroller(e)) continue;
    const box = e.getBoundingClientRect();
    if (box.right > width + 1 || box.left < -1) problems.push("wider than the screen: " + name(e));
  }
  for (const cell of document.querySelectorAll("td, th")) {
    if (!shown(cell)) continue;
    for (const e of [cell, ...cell.querySelectorAll("*")]) {
      if (!shown(e) || getComputedStyle(e).overflowX === "visible") continue;
      if (e.scrollWidth > e.clientWidth + 1 && !ellipsed(e)) problems.push("cut: " + name(e));
    }
  }
  // A long unbroken word (an id, an e-mail address, a phone number) keeps to one line.
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!shown(parent) || scroller(parent) || parent.closest("textarea, option, script, style")) continue;
    for (const match of node.data.matchAll(/[^\\s]{12,}/g)) {
      if (!/[_@]|^\\+?[0-9]{9,}$/.test(match[0])) continue;  // ids, addresses, numbers
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) problems.push(`"${match[0]}" over ${lines.size} lines in ` + name(parent));
    }
  }
  return [...new Set(problems)];
}"""


def realistic_pages(shop, owner) -> list[str]:
    """every_page's, with a merchant's real data besides: what makes tables wide."""
    pages = every_page(shop, owner)
    for currency, amount in (("CDF", 987654321000), ("USD", 1234567899)):
        succeeded_mobile_money_charge(
            shop,
            amount=amount,
            currency=currency,
            description=LONG_DESCRIPTION,
            phone="+243812345678",
        )
    make_charge(shop, description=LONG_DESCRIPTION, phone="+243997654321", network="AIRTEL_MONEY")
    sent_payout(shop, amount=98765432100, description=LONG_DESCRIPTION)
    link_create(
        merchant=shop,
        livemode=False,
        currency="USD",
        description=LONG_DESCRIPTION,
        amount=1234567899,
    )
    batch_create_from_file(merchant=shop, livemode=False, data=BATCH, user_id=owner.pk)
    request = RequestFactory().post("/")
    request.user = owner
    actor = Membership.objects.get(user=owner, merchant=shop)
    invite(request, actor, email="directeur.financier." + LONG_EMAIL, role="finance")
    member(shop, "admin", "administration." + LONG_EMAIL)
    return pages


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_page_reads_on_a_phone_and_a_desktop(browser, live_server, shop, language):
    owner = member(shop, "owner", LONG_EMAIL)
    pages = realistic_pages(shop, owner)
    problems = {}
    for width in (360, 1280):
        context, page = signed_in_page(
            browser, live_server.url, owner, language=language, width=width
        )
        try:
            for path in pages:
                response = page.goto(f"{live_server.url}{path}")
                assert response.status == 200, path
                found = page.evaluate(PROBLEMS)
                name = f"narrow-{language}-{width}" + path.replace("/", "-").rstrip("-")
                if found:
                    problems[f"{width} {path}"] = found
                    screenshot(page, name)
                elif width == 360 and language == "fr":
                    screenshot(page, name)
        finally:
            context.close()
    assert problems == {}, "\n".join(f"{page}: {found}" for page, found in problems.items())


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_tab_bar_shows_that_it_scrolls_and_where_one_is(browser, live_server, shop, language):
    """At 360 px the tabs do not all fit: the bar's edge that hides some has a shadow (the
    bar's backgrounds: white covers scrolling with the tabs over shadows that stay), and the
    current tab, even the last, is on the screen."""
    owner = member(shop, "owner", f"owner-tabs-{language}@example.com")
    context, page = signed_in_page(browser, live_server.url, owner, language=language)
    try:
        page.goto(f"{live_server.url}/dashboard/test/")
        bar = page.locator(".nav")
        assert bar.evaluate("e => e.scrollWidth > e.clientWidth")
        backgrounds = bar.evaluate("e => getComputedStyle(e).backgroundAttachment")
        assert backgrounds.split(", ")[:4] == ["local", "local", "scroll", "scroll"]
        screenshot(page, f"tabs-first-{language}")

        page.goto(f"{live_server.url}/dashboard/audit/")
        current = page.locator(".nav [aria-current]")
        page.wait_for_function(
            "() => document.querySelector('.nav [aria-current]').getBoundingClientRect().right"
            " <= document.querySelector('.nav').getBoundingClientRect().right"
        )
        box = current.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360
        screenshot(page, f"tabs-audit-{language}")
    finally:
        context.close()
