"""The payment links pages: the list and a link's page for every role; a new link, deactivating
and activating one for the roles that may (owner, admin, finance, support), through the API's
serializer and service, once per form, audited; another merchant's links missing."""

import re
from urllib.parse import unquote

import pytest
from django.utils import timezone

from checkout import services as checkout
from checkout.models import CheckoutSession
from dashboard.models import AuditEntry
from links import services
from links.models import PaymentLink
from tests.dashboard.pages.conftest import ROLES, Members, client_of, member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.factories import merchant_with_keys
from tests.helpers import axe_violations, race, screenshot
from tests.links.factories import make_link, page_path, pay_session
from webhooks.models import Event

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

LIST = "/dashboard/test/payment-links/"
NEW = LIST + "new/"
MAKERS = ("owner", "admin", "finance", "support")


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    """A fast hasher: a member per role would otherwise cost seconds of key stretching each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def clients(shop) -> Members:
    return Members(shop)


@pytest.fixture
def owner(clients):
    return clients["owner"]


def new_link(client, *, lang: str = "fr", key: str | None = None, **fields):
    if key is None:
        key = client.get(LIST).context["form"]["idempotency_key"].value()
    body = {"description": "Sac de riz 25 kg", "currency": "CDF", "amount": "2 500"}
    return client.post(NEW, {**body, **fields, "idempotency_key": key}, HTTP_ACCEPT_LANGUAGE=lang)


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_links_and_only_makers_change_them(shop, clients, role):
    existing = make_link(shop)
    client = clients[role]
    listed = client.get(LIST)
    assert listed.status_code == 200
    assert [link.id for link in listed.context["page"].rows] == [existing.id]
    shown = client.get(f"{LIST}{existing.id}/")
    assert shown.status_code == 200
    may = role in MAKERS
    assert (b'data-action="payment-link"' in listed.content) is may
    assert (b'data-action="deactivate"' in shown.content) is may

    made = new_link(client, key="dash_role")
    deactivated = client.post(f"{LIST}{existing.id}/deactivate/")
    existing.refresh_from_db()
    if may:
        assert made.status_code == deactivated.status_code == 302
        assert PaymentLink.objects.count() == 2
        assert existing.active is False
        assert client.post(f"{LIST}{existing.id}/activate/").status_code == 302
        existing.refresh_from_db()
        assert existing.active is True
    else:
        assert made.status_code == deactivated.status_code == 403
        assert client.post(f"{LIST}{existing.id}/activate/").status_code == 403
        assert PaymentLink.objects.count() == 1
        assert existing.active is True
        assert not AuditEntry.objects.filter(action__startswith="payment_link.").exists()


def test_a_fixed_amount_link_in_francs(shop, owner):
    answer = new_link(
        owner, amount="2 500", max_payments="20", expires_at="2031-01-31T18:30",
        success_url="https://shop.example.cd/merci",
    )  # fmt: skip
    link = PaymentLink.objects.get()
    assert answer["Location"] == f"{LIST}{link.id}/"
    assert (link.amount, link.custom_amount, link.currency, link.livemode) == (
        250000,
        False,
        "CDF",
        False,
    )
    assert (link.max_payments, link.success_url) == (20, "https://shop.example.cd/merci")
    # Typed in the merchant's time (Kinshasa, UTC+1), kept in UTC.
    assert link.expires_at.isoformat() == "2031-01-31T17:30:00+00:00"
    assert AuditEntry.objects.get(action="payment_link.created").object_id == link.id
    shown = owner.get(answer["Location"]).content.decode()
    assert f"/pay/{link.slug}" in shown
    assert "0 / 20" in shown


def test_a_link_whose_customer_chooses_the_amount(shop, owner):
    new_link(owner, amount="", custom_amount="on", currency="USD", description="Don pour l’école")
    link = PaymentLink.objects.get()
    assert (link.amount, link.custom_amount, link.currency) == (None, True, "USD")
    listed = owner.get(LIST, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Amount chosen by the customer" in listed


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"amount": ""}, {"fr": "Indiquez le montant", "en": "Enter the amount"}),
        ({"custom_amount": "on"}, {"fr": "pas les deux", "en": "not both"}),
        (
            {"amount": "12,50"},
            {
                "fr": "Le mobile money se paie en francs entiers : 12 ou 13 CDF.",
                "en": "Mobile money is paid in whole francs: 12 or 13 CDF.",
            },
        ),
        ({"amount": "deux mille"}, {"fr": "au plus deux décimales", "en": "at most two"}),
        ({"description": ""}, {"fr": "obligatoire", "en": "required"}),
        ({"max_payments": "0"}, {"fr": "supérieure ou égale à 1", "en": "greater than or equal"}),
        ({"expires_at": "2020-01-01T10:00"}, {"fr": "dans le futur", "en": "in the future"}),
        ({"success_url": "pas une adresse"}, {"fr": "http(s)", "en": "http(s)"}),
    ],
)
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_what_the_api_refuses_is_said_in_words(shop, owner, fields, words, lang):
    answer = new_link(owner, lang=lang, **fields)
    assert answer.status_code == 400
    page = answer.content.decode().replace("\xa0", " ").replace("\u202f", " ")
    assert words[lang] in page
    said = " ".join(re.findall(r'class="[^"]*error[^"]*"[^>]*>([^<]*)<', page))
    api_names = r"(custom_amount|expires_at|success_url|max_payments|amount (must|doit)|\bsession)"
    assert said and not re.search(api_names, said)
    assert not PaymentLink.objects.exists()
    assert not AuditEntry.objects.filter(action="payment_link.created").exists()


def test_a_double_submitted_form_makes_one_link(shop, owner):
    key = owner.get(LIST).context["form"]["idempotency_key"].value()
    first = new_link(owner, key=key)
    second = new_link(owner, key=key)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert PaymentLink.objects.count() == 1
    assert AuditEntry.objects.filter(action="payment_link.created").count() == 1


def test_a_refused_form_corrected_makes_its_link(shop, owner):
    key = owner.get(LIST).context["form"]["idempotency_key"].value()
    assert new_link(owner, key=key, amount="12,50").status_code == 400
    assert new_link(owner, key=key).status_code == 302
    assert PaymentLink.objects.get().amount == 250000


def test_deactivated_the_page_answers_410_and_activated_again_200(shop, clients, client):
    link = make_link(shop)
    support = clients["support"]
    assert client.get(page_path(link)).status_code == 200
    support.post(f"{LIST}{link.id}/deactivate/")
    support.post(f"{LIST}{link.id}/deactivate/")  # a second click changes and records nothing
    assert client.get(page_path(link)).status_code == 410
    rows = AuditEntry.objects.filter(action="payment_link.deactivated")
    assert [(r.object_id, r.mode, r.merchant_id) for r in rows] == [(link.id, "test", shop.pk)]
    shown = support.get(f"{LIST}{link.id}/").content
    assert b'data-action="activate"' in shown
    support.post(f"{LIST}{link.id}/activate/")
    assert client.get(page_path(link)).status_code == 200
    assert AuditEntry.objects.get(action="payment_link.activated").object_id == link.id


def test_deactivating_in_the_dashboard_expires_the_links_open_sessions(
    shop, clients, django_capture_on_commit_callbacks
):
    """As through the API (tests/links/test_deactivation.py): a session opened from the link
    and not paid expires with it, with its event; one paying expires once the attempt settles."""
    link = make_link(shop)
    waiting = services.link_open_session(link=link)
    paying = services.link_open_session(link=link)
    checkout.session_attempt_create(
        session_id=paying.id,
        payment_method="mobile_money",
        phone="+243812345678",
        network="VODACOM_MPESA",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert clients["support"].post(f"{LIST}{link.id}/deactivate/").status_code == 302
    assert CheckoutSession.objects.get(pk=waiting.id).status == "expired"
    expired = Event.objects.filter(type="checkout.session.expired")
    assert [e.data["object"]["id"] for e in expired] == [waiting.id]
    paying.refresh_from_db()
    assert paying.status == "open" and paying.expires_at <= timezone.now()


@pytest.mark.django_db(transaction=True)
def test_a_link_deactivated_several_times_at_once_is_recorded_once(shop):
    link = make_link(shop)
    user = member(shop, "owner")
    clients = iter([client_of(user) for _ in range(3)])
    statuses = race(lambda: next(clients).post(f"{LIST}{link.id}/deactivate/").status_code, 3)
    assert statuses == [302] * 3
    link.refresh_from_db()
    assert link.active is False
    rows = AuditEntry.objects.filter(action="payment_link.deactivated")
    assert list(rows.values_list("object_id", flat=True)) == [link.id]


def test_a_get_of_an_action_changes_nothing(shop, owner):
    link = make_link(shop)
    assert owner.get(f"{LIST}{link.id}/deactivate/")["Location"] == f"{LIST}{link.id}/"
    assert owner.get(NEW)["Location"] == LIST
    link.refresh_from_db()
    assert link.active is True
    assert PaymentLink.objects.count() == 1


def test_another_merchants_link_is_missing(shop, other_shop, clients):
    theirs = make_link(other_shop)
    owner = clients["owner"]
    assert owner.get(f"{LIST}{theirs.id}/").status_code == 404
    assert owner.post(f"{LIST}{theirs.id}/deactivate/").status_code == 404
    assert owner.post(f"{LIST}{theirs.id}/activate/").status_code == 404
    assert owner.get(LIST).context["page"].rows == []
    theirs.refresh_from_db()
    assert theirs.active is True


def test_test_and_live_links_are_apart(shop, owner):
    shop.live_approved = True
    shop.save(update_fields=["live_approved"])
    live = make_link(shop, livemode=True)
    assert owner.get(f"{LIST}{live.id}/").status_code == 404
    assert owner.get(LIST).context["page"].rows == []
    live_list = owner.get("/dashboard/live/payment-links/")
    assert [link.id for link in live_list.context["page"].rows] == [live.id]
    assert owner.get(f"/dashboard/live/payment-links/{live.id}/").status_code == 200


def test_a_links_page_lists_its_payments_newest_first(shop, owner):
    link = make_link(shop)
    first = pay_session(services.link_open_session(link=link), phone="+243812345601")
    second = pay_session(services.link_open_session(link=link), phone="+243812345602")
    services.link_open_session(link=link)  # a customer who has not paid yet
    other = pay_session(services.link_open_session(link=make_link(shop)))
    shown = owner.get(f"{LIST}{link.id}/")
    assert [c.id for c in shown.context["page"].rows] == [second.id, first.id]
    assert CheckoutSession.objects.filter(payment_link=link).count() == 3
    text = shown.content.decode()
    assert f'href="/dashboard/test/payments/{second.id}/"' in text
    assert other.id not in text
    assert "2 / " not in text and "<dd>2</dd>" in text


def test_share_addresses_carry_the_link_encoded(shop, owner, settings):
    link = make_link(shop, description="Riz & huile: 25 kg?")
    shown = owner.get(f"{LIST}{link.id}/", HTTP_ACCEPT_LANGUAGE="fr")
    share = shown.context["share"]
    url = f"{settings.PUBLIC_BASE_URL.rstrip('/')}/pay/{link.slug}"
    text = f"Riz & huile: 25 kg? — payez ici : {url}"
    assert share["whatsapp"].startswith("https://wa.me/?text=")
    assert share["sms"].startswith("sms:?body=")
    for address, prefix in (
        (share["whatsapp"], "https://wa.me/?text="),
        (share["sms"], "sms:?body="),
    ):
        encoded = address.removeprefix(prefix)
        assert unquote(encoded) == text
        assert not set(encoded) & set(" &?:/#")
    page = shown.content.decode()
    assert f'value="{url}"' in page  # selectable without JavaScript
    assert f'src="/pay/{link.slug}/qr.svg"' in page
    assert f'href="/pay/{link.slug}/qr.png"' in page


def test_the_navigation_leads_to_the_links(shop, clients):
    viewer = clients["viewer"]
    home = viewer.get("/dashboard/test/").content.decode()
    assert f'href="{LIST}"' in home
    assert "<h1>Liens de paiement</h1>" in viewer.get(LIST).content.decode()


def test_an_unapproved_merchants_live_links_are_missing(db):
    merchant = merchant_with_keys(name="Quincaillerie").merchant
    client = client_of(member(merchant, "owner"))
    assert client.get(LIST).status_code == 200
    assert client.get("/dashboard/live/payment-links/").status_code == 404


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_list_and_a_links_page_at_360px_in_french(browser, live_server, shop, axe_source):
    user = member(shop, "support", "support-browser@example.com")
    link = make_link(shop, description="Sac de riz 25 kg", max_payments=20)
    pay_session(services.link_open_session(link=link))
    make_link(shop, custom_amount=True, currency="USD", description="Don pour l’école")
    context, page = signed_in_page(browser, live_server.url, user, language="fr")
    try:
        page.goto(f"{live_server.url}{LIST}")
        assert page.get_by_role("heading", level=1).inner_text() == "Liens de paiement"
        assert page.locator("tbody tr").count() == 2
        assert "Montant choisi par le client" in page.locator("tbody").inner_text()
        assert page.locator("form[data-action=payment-link]").count() == 1
        assert fits(page)
        screenshot(page, "dashboard-payment-links-fr")
        assert axe_violations(page, axe_source) == []

        page.locator(f'a[href$="/payment-links/{link.id}/"]').click()
        page.wait_for_url(f"**/payment-links/{link.id}/")
        page.wait_for_function("document.querySelector('.qr img').naturalWidth > 0")
        assert page.locator("tbody tr").count() == 1
        assert page.locator("#link-url").input_value().endswith(f"/pay/{link.slug}")
        page.get_by_role("button", name="Copier").click()
        page.wait_for_function("document.getElementById('copy-said').textContent === 'Copié.'")
        assert fits(page)
        screenshot(page, "dashboard-payment-link-fr")
        assert axe_violations(page, axe_source) == []

        page.locator("form[data-action=deactivate] button").click()
        page.locator(".messages .success").wait_for()
        assert page.locator("form[data-action=activate]").count() == 1
        assert axe_violations(page, axe_source) == []
    finally:
        context.close()
