"""A merchant's price plan in the admin: the plan in force shown in words with whence each rate
comes, the merchant's own rates changed only with payments.change_pricing (403 and nothing
changed without it), refused in words when they are no rate, and each change written to the
merchant's audit log in words."""

import csv
import io
import re
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import translation

from dashboard.models import AuditEntry
from payments.models import PriceRate
from tests.dashboard.conftest import make_member, signed_in
from tests.factories import with_totp

pytestmark = pytest.mark.django_db

DEFAULT = [
    {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 300},
    {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 150},
]
FIELDS = ("kind", "payment_method", "network", "currency", "rate_bp", "fixed")


@pytest.fixture(autouse=True)
def default_plan(settings):
    settings.PRICING_DEFAULT = DEFAULT


def plan_url(merchant) -> str:
    return f"/admin/payments/merchant/{merchant.pk}/pricing/"


def staff_with(*codenames: str) -> Client:
    """A staff member (two factors set up) holding only the given permissions."""
    user = with_totp(
        get_user_model().objects.create_user(
            f"staff-{len(codenames)}-{'-'.join(codenames)}"[:150],
            password="pw-123-long",
            is_staff=True,
        )
    )
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def plan_table(html: str) -> list[list[str]]:
    """The plan in force: one [applies to, fee, from] per rate."""
    body = re.search(r"<table data-plan>.*?<tbody>(.*?)</tbody>", html, re.S)[1]
    return [
        [unescape(re.sub(r"<[^>]+>", "", cell)).replace("\xa0", " ").strip()
         for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]  # fmt: skip


def posted(page_html: str, rows: list[dict], deleted: tuple[int, ...] = ()) -> dict:
    """The form of the page as a staff member sends it: `rows` in the order of the page's
    forms (the merchant's own rates first), the forms numbered in `deleted` ticked "Delete"."""
    seen = re.search(r'name="seen" value="([^"]*)"', page_html)[1]
    initial = int(re.search(r'name="rates-INITIAL_FORMS" value="(\d+)"', page_html)[1])
    data = {
        "seen": seen,
        "rates-TOTAL_FORMS": str(len(rows)),
        "rates-INITIAL_FORMS": str(initial),
        "rates-MIN_NUM_FORMS": "0",
        "rates-MAX_NUM_FORMS": "1000",
    }
    for number, row in enumerate(rows):
        values = {"payment_method": "", "network": "", "fixed": 0, "available_after_days": 0}
        for name, value in {**values, **row}.items():
            data[f"rates-{number}-{name}"] = str(value)
        if number in deleted:
            data[f"rates-{number}-DELETE"] = "on"
    return data


def own_rates(merchant) -> list[tuple]:
    return list(
        PriceRate.objects.filter(merchant=merchant).values_list(
            *FIELDS, "available_after_days", "updated_by"
        )
    )


def audit_rows(merchant) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(merchant=merchant).order_by("id"))


def test_the_page_shows_the_plan_in_force_and_whence_each_rate_comes(staff, merchant):
    PriceRate.objects.create(
        merchant=merchant, kind="charge", payment_method="mobile_money", network="AIRTEL_MONEY",
        currency="CDF", rate_bp=250, fixed=10000, available_after_days=2, updated_by="finance",
    )  # fmt: skip
    PriceRate.objects.create(
        merchant=merchant, kind="payout", payment_method="mobile_money", currency="CDF",
        rate_bp=100,
    )  # fmt: skip
    page = staff.get(plan_url(merchant), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    rows = plan_table(page.text)
    assert [row[:2] for row in rows] == [
        ["Collection, Mobile money, every network, CDF", "3.00 %"],
        [
            "Collection, Mobile money, Airtel Money, CDF",
            "2.50 % + 100.00 CDF, available after 2 days",
        ],
        ["Payout, Mobile money, every network, CDF", "1.00 %"],
    ]
    assert rows[0][2] == "default plan"
    assert rows[1][2].startswith("this merchant's, since ") and " by finance" in rows[1][2]
    assert rows[2][2].endswith("(the default plan: 1.50 %)")
    french = plan_table(staff.get(plan_url(merchant)).text)
    assert french[1][:2] == [
        "Encaissement, Mobile money, Airtel Money, CDF",
        "2,50 % + 100,00 CDF, disponible après 2 jours",
    ]
    assert french[0][2] == "grille par défaut"
    # The merchant's page says how many rates of its own the plan has and leads there.
    merchant_page = staff.get(f"/admin/payments/merchant/{merchant.pk}/change/").text
    assert "La grille par défaut avec 2 tarifs propres." in merchant_page
    assert f'href="{plan_url(merchant)}"' in merchant_page


def test_without_change_pricing_staff_see_the_plan_and_cannot_change_it(staff, merchant):
    """Changing merchants is not changing their prices: a staff member who may change merchants
    but not prices sees the plan, no form, and a change posted anyway answers 403 and changes
    nothing (no rate, no audit row)."""
    form_page = staff.get(plan_url(merchant)).text
    change = posted(form_page, [{"kind": "charge", "currency": "CDF", "rate_bp": 100}])
    viewer = staff_with("view_merchant", "change_merchant")
    page = viewer.get(plan_url(merchant), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert len(plan_table(page.text)) == 2 and 'name="seen"' not in page.text
    assert "needs the permission" in page.text
    assert viewer.post(plan_url(merchant), change).status_code == 403
    assert own_rates(merchant) == [] and audit_rows(merchant) == []
    # Without even the right to see merchants: not the page either.
    assert staff_with().get(plan_url(merchant)).status_code == 403
    # With the permission (and nothing else), the change is made.
    pricer = staff_with("change_pricing")
    assert pricer.post(plan_url(merchant), change).status_code == 302
    assert [row[:6] for row in own_rates(merchant)] == [("charge", "", "", "CDF", 100, 0)]


def test_each_change_is_written_to_the_merchants_audit_log_in_words(staff, merchant):
    owner = make_member(merchant, "owner")
    page = staff.get(plan_url(merchant)).text
    added = posted(
        page,
        [
            {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF",
             "rate_bp": 250, "fixed": 10000, "available_after_days": 2},
            {"kind": "settlement", "currency": "USD", "rate_bp": 0, "fixed": 1000},
        ],
    )  # fmt: skip
    done = staff.post(plan_url(merchant), added, REMOTE_ADDR="10.0.0.9", follow=True)
    assert "2 tarifs de la grille ont changé." in done.text
    assert [row[:7] for row in own_rates(merchant)] == [
        ("charge", "mobile_money", "", "CDF", 250, 10000, 2),
        ("settlement", "", "", "USD", 0, 1000, 0),
    ]
    assert {row[7] for row in own_rates(merchant)} == {"staff"}
    first, second = audit_rows(merchant)
    assert (first.action, first.email, first.mode, first.ip) == (
        "pricing.updated",
        "staff@example.cd",
        "",
        "10.0.0.9",
    )
    assert (first.object_id, second.object_id) == ("charge mobile_money CDF", "settlement USD")
    with translation.override("en"):
        assert first.details_text() == (
            "Collection, Mobile money, every network, CDF: 3.00\xa0% (default plan) → "
            "2.50\xa0% + 100.00 CDF, available after 2 days"
        )
        assert second.details_text() == "Settlement, every method, USD: none → 10.00 USD"
    with translation.override("fr"):
        assert first.details_text() == (
            "Encaissement, Mobile money, tout réseau, CDF : 3,00\xa0% (grille par défaut) → "
            "2,50\xa0% + 100,00 CDF, disponible après 2 jours"
        )
    # The owner reads them in the dashboard's audit log, and in its export.
    member = signed_in(owner.user)
    log = member.get("/dashboard/audit/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Settlement, every method, USD: none → 10.00 USD" in log.content.decode()
    export = member.get("/dashboard/audit/", {"format": "csv"}, HTTP_ACCEPT_LANGUAGE="en")
    lines = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert lines[0][-1] == "details"
    assert ["settlement USD", "Settlement, every method, USD: none → 10.00 USD"] in [
        [line[4], line[-1]] for line in lines[1:]
    ]

    # Changing one rate and deleting the other: one row each; the deleted rate's key goes back
    # to the default plan's rate, or to none.
    page = staff.get(plan_url(merchant)).text
    changed = posted(
        page,
        [
            {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF",
             "rate_bp": 200, "fixed": 10000, "available_after_days": 2},
            {"kind": "settlement", "currency": "USD", "rate_bp": 0, "fixed": 1000},
        ],
        deleted=(1,),
    )  # fmt: skip
    staff.post(plan_url(merchant), changed)
    assert [row[:7] for row in own_rates(merchant)] == [
        ("charge", "mobile_money", "", "CDF", 200, 10000, 2)
    ]
    third, fourth = audit_rows(merchant)[2:]
    with translation.override("en"):
        assert third.details_text() == (
            "Collection, Mobile money, every network, CDF: 2.50\xa0% + 100.00 CDF, available "
            "after 2 days → 2.00\xa0% + 100.00 CDF, available after 2 days"
        )
        assert fourth.details_text() == "Settlement, every method, USD: 10.00 USD → none"
    # Saving the plan as it is writes nothing.
    unchanged = staff.post(plan_url(merchant), posted(staff.get(plan_url(merchant)).text, [
        {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF",
         "rate_bp": 200, "fixed": 10000, "available_after_days": 2},
    ]), follow=True)  # fmt: skip
    assert "Rien n’a changé." in unchanged.text or "Rien n'a changé." in unchanged.text
    assert len(audit_rows(merchant)) == 4


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({"kind": "charge", "payment_method": "card", "network": "AIRTEL_MONEY",
          "currency": "CDF", "rate_bp": 100},
         "network", "A network's rate is a mobile money rate"),
        ({"kind": "charge", "network": "AIRTEL_MONEY", "currency": "CDF", "rate_bp": 100},
         "network", "A network's rate is a mobile money rate"),
        ({"kind": "charge", "currency": "CDF", "rate_bp": 10001},
         "rate_bp", "A rate is at most 10000 basis points (100 %)."),
        ({"kind": "charge", "currency": "CDF", "rate_bp": -1},
         "rate_bp", "Enter a whole number, 0 or more."),
        ({"kind": "charge", "currency": "CDF", "rate_bp": 100, "fixed": -5},
         "fixed", "Enter a whole number, 0 or more."),
        ({"kind": "payout", "currency": "CDF", "rate_bp": 100, "available_after_days": 3},
         "available_after_days", "Only collections wait before their net is available"),
        ({"kind": "charge", "currency": "CDF", "rate_bp": "2.5"},
         "rate_bp", "Enter a whole number."),
    ],
)  # fmt: skip
def test_a_rate_that_is_none_is_refused_in_words(staff, merchant, row, field, message):
    page = staff.get(plan_url(merchant)).text
    refused = staff.post(plan_url(merchant), posted(page, [row]), HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 200
    assert 'role="alert"' in refused.text and message in refused.text.replace("&#x27;", "'")
    assert own_rates(merchant) == [] and audit_rows(merchant) == []


def test_the_same_rate_twice_or_a_plan_changed_meanwhile_is_refused(staff, merchant):
    page = staff.get(plan_url(merchant)).text
    twice = [{"kind": "charge", "currency": "CDF", "rate_bp": 100}] * 2
    refused = staff.post(plan_url(merchant), posted(page, twice), HTTP_ACCEPT_LANGUAGE="en")
    assert "Another rate names the same kind, payment method, network and currency" in (
        refused.text
    )
    assert own_rates(merchant) == []
    # Another staff member changes the plan after this one read it: this one's change, made on
    # what they read, is refused rather than undoing the other's unseen.
    other = staff_with("view_merchant", "change_pricing")
    other.post(
        plan_url(merchant), posted(page, [{"kind": "payout", "currency": "CDF", "rate_bp": 90}])
    )
    late = staff.post(
        plan_url(merchant),
        posted(page, [{"kind": "charge", "currency": "CDF", "rate_bp": 100}]),
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert "Someone changed this plan while you were reading it" in late.text
    assert [row[:5] for row in own_rates(merchant)] == [("payout", "", "", "CDF", 90)]
    assert len(audit_rows(merchant)) == 1
