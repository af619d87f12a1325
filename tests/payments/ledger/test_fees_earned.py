"""What the service earned, in the admin: the ledger's fees per currency, per merchant and per UTC
day and merchant, net of the fees given back on failures, of one mode (live unless asked), added
up by the database, and the same as CSV."""

import csv
import io
import re
from datetime import UTC, datetime
from html import unescape

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from payments.providers.base import ProviderOutcome
from payments.services import payouts as payout_services
from tests.factories import (
    make_charge,
    merchant_with_keys,
    sent_payout,
    staff_client,
    succeeded_card_charge,
    succeeded_live_charge,
    with_totp,
)

pytestmark = pytest.mark.django_db

DAY_1 = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
DAY_2 = datetime(2026, 11, 24, 23, 30, tzinfo=UTC)  # late in the UTC day
PERIOD = {"date_from": "2026-11-23", "date_to": "2026-11-24"}
PLAN = [
    {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 300},
    {"kind": "charge", "payment_method": "card", "currency": "USD", "rate_bp": 390, "fixed": 30},
    {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 150},
]
URL = "/admin/payments/ledgerentry/fees-earned/"


@pytest.fixture
def two_days_of_fees(merchant, settings):
    """Two merchants, two currencies, two days: charges with their fees, and a payout whose
    failure gives its fee back (a live charge besides, in the other mode)."""
    settings.PRICING_DEFAULT = PLAN
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    other = merchant_with_keys(name="Pharmacie Limete").merchant
    with time_machine.travel(DAY_1, tick=False):
        make_charge(merchant, amount=100000, status="succeeded")  # fee 3 000
        succeeded_card_charge(merchant, amount=1999)  # fee round(77.961) + 30 = 108
        make_charge(other, amount=50000, status="succeeded")  # fee 1 500
    with time_machine.travel(DAY_2, tick=False):
        make_charge(merchant, amount=200000, status="succeeded")  # fee 6 000
        payout = sent_payout(other, amount=40000)  # fee 600
        payout_services.payout_apply_outcome(
            payout_id=payout.id, outcome=ProviderOutcome(status="failed")
        )  # the 600 given back
        succeeded_live_charge(merchant, amount=10000)  # live: fee 300
    return merchant, other


def table(html: str, marker: str) -> list[list[str]]:
    body = re.search(rf"<table {marker}>.*?<tbody>(.*?)</tbody>", html, re.S)[1]
    return [
        [unescape(re.sub(r"<[^>]+>", "", cell)).strip()
         for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]  # fmt: skip


def test_the_fees_earned_per_currency_merchant_and_day(staff, two_days_of_fees):
    shop, other = two_days_of_fees
    with CaptureQueriesContext(connection) as queries:
        page = staff.get(URL, {**PERIOD, "mode": "test"}, HTTP_ACCEPT_LANGUAGE="en").text
    assert table(page, "data-totals") == [
        # currency, fees charged, given back, earned
        ["CDF", "111.00 CDF", "6.00 CDF", "105.00 CDF"],
        ["USD", "1.08 USD", "0.00 USD", "1.08 USD"],
    ]
    assert table(page, "data-merchants") == [
        [f"Boutique Gombe {shop.pk}", "CDF", "90.00 CDF", "0.00 CDF", "90.00 CDF"],
        [f"Boutique Gombe {shop.pk}", "USD", "1.08 USD", "0.00 USD", "1.08 USD"],
        [f"Pharmacie Limete {other.pk}", "CDF", "21.00 CDF", "6.00 CDF", "15.00 CDF"],
    ]
    assert table(page, "data-days") == [
        ["2026-11-23", "Boutique Gombe", "CDF", "30.00 CDF", "0.00 CDF", "30.00 CDF"],
        ["2026-11-23", "Boutique Gombe", "USD", "1.08 USD", "0.00 USD", "1.08 USD"],
        ["2026-11-23", "Pharmacie Limete", "CDF", "15.00 CDF", "0.00 CDF", "15.00 CDF"],
        ["2026-11-24", "Boutique Gombe", "CDF", "60.00 CDF", "0.00 CDF", "60.00 CDF"],
        # The payout's fee and the failure that gave it back: nothing earned.
        ["2026-11-24", "Pharmacie Limete", "CDF", "6.00 CDF", "6.00 CDF", "0.00 CDF"],
    ]
    assert "Days are UTC" in page
    # Added up by the database: a few grouped queries, however many rows the ledger holds.
    ledger = [q["sql"] for q in queries.captured_queries if "payments_ledgerentry" in q["sql"]]
    assert 0 < len(ledger) <= 4 and all("GROUP BY" in sql for sql in ledger)

    # Live mode unless asked: the live charge alone.
    live = staff.get(URL, PERIOD, HTTP_ACCEPT_LANGUAGE="en").text
    assert table(live, "data-totals") == [["CDF", "3.00 CDF", "0.00 CDF", "3.00 CDF"]]
    # One day only; in French.
    first = staff.get(URL, {"mode": "test", "date_from": "2026-11-23", "date_to": "2026-11-23"})
    assert table(first.text, "data-totals")[0] == [
        "CDF", "45,00 CDF", "0,00 CDF", "45,00 CDF"
    ]  # fmt: skip
    assert "Les jours sont en UTC" in first.text


def test_the_period_is_the_last_30_days_unless_said_and_refused_in_words(staff, two_days_of_fees):
    with time_machine.travel(datetime(2026, 12, 22, 12, 0, tzinfo=UTC), tick=False):
        # Signed in then: a session of the day the test runs would have ended by that day.
        recent = staff_client("finance").get(URL, {"mode": "test"}, HTTP_ACCEPT_LANGUAGE="en")
    assert "From 2026-11-23 to 2026-12-22" in recent.text  # 30 days, today included
    assert table(recent.text, "data-totals")[0][3] == "105.00 CDF"
    with time_machine.travel(datetime(2026, 12, 23, 12, 0, tzinfo=UTC), tick=False):
        later = staff_client("ops").get(URL, {"mode": "test"}, HTTP_ACCEPT_LANGUAGE="en")
    assert table(later.text, "data-totals")[0][3] == "60.00 CDF"  # from 24 November
    backwards = staff.get(
        URL, {"date_from": "2026-11-24", "date_to": "2026-11-23"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert backwards.status_code == 200 and "The period ends before it begins." in backwards.text
    too_long = staff.get(URL, {"date_from": "2025-01-01", "date_to": "2026-11-23"}).text
    assert "Choisissez une période de 366 jours au plus." in too_long


def test_the_csv_says_the_same(staff, two_days_of_fees):
    shop, other = two_days_of_fees
    other.name = "=SUM(A1)"  # a name a spreadsheet would run
    other.save(update_fields=["name"])
    response = staff.get(URL, {**PERIOD, "mode": "test", "format": "csv"})
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert 'filename="fees-earned-test-2026-11-23-2026-11-24.csv"' in disposition
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff") and "\r\n" in text
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows == [
        ["date", "mode", "merchant", "merchant_name", "currency", "fees_charged",
         "fees_given_back", "earned", "earned_decimal"],
        # By day, then by merchant's name ("=" before "B").
        ["2026-11-23", "test", other.pk, "'=SUM(A1)", "CDF", "1500", "0", "1500", "15.00"],
        ["2026-11-23", "test", shop.pk, "Boutique Gombe", "CDF", "3000", "0", "3000", "30.00"],
        ["2026-11-23", "test", shop.pk, "Boutique Gombe", "USD", "108", "0", "108", "1.08"],
        ["2026-11-24", "test", other.pk, "'=SUM(A1)", "CDF", "600", "600", "0", "0.00"],
        ["2026-11-24", "test", shop.pk, "Boutique Gombe", "CDF", "6000", "0", "6000", "60.00"],
    ]  # fmt: skip


def test_the_report_needs_the_right_to_see_the_ledger(staff, two_days_of_fees):
    user = with_totp(
        get_user_model().objects.create_user("support", password="pw-123-long", is_staff=True)
    )
    user.user_permissions.add(Permission.objects.get(codename="view_merchant"))
    client = Client()
    client.force_login(user)
    assert client.get(URL).status_code == 403
    assert client.get(URL, {"format": "csv"}).status_code == 403
    assert "fees-earned" not in client.get("/admin/").text
    user.user_permissions.add(Permission.objects.get(codename="view_ledgerentry"))
    assert client.get(URL).status_code == 200
    assert 'href="/admin/payments/ledgerentry/fees-earned/"' in client.get("/admin/").text
    assert 'href="/admin/payments/ledgerentry/fees-earned/"' in staff.get("/admin/").text
