"""The staff pages through Django's test client: read-only records offer no Save button, the
charge page names each amount once, an object's address carries its id as it is, and the
overview counts today's and this week's charges and finds what is late."""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from payments.models import ApiKey, Refund
from payments.services import charges, refunds
from tests.factories import (
    event_with_id,
    make_charge,
    make_session,
    record_event,
    sent_charge,
    sent_payout,
    timed_out_charge,
    with_totp,
)
from tests.helpers import admin_url

pytestmark = pytest.mark.django_db


def labels(html: str) -> list[str]:
    """The field labels of an admin page, without their suffix."""
    return [re.sub(r"\s*:$", "", label.replace("\xa0", " ")) for label in re.findall(
        r"<label[^>]*>([^<]*)</label>", html)]  # fmt: skip


def test_read_only_records_offer_no_save_button(staff, merchant):
    charge = make_charge(merchant)
    session = make_session(merchant)
    event = record_event(merchant)
    for obj in (charge, session, event, ApiKey.objects.filter(merchant=merchant).first()):
        page = staff.get(admin_url(obj))
        assert page.status_code == 200, obj
        assert 'name="_save"' not in page.text and 'name="_continue"' not in page.text, obj
    # Merchants are edited there: their page keeps its Save button.
    assert 'name="_save"' in staff.get(admin_url(merchant)).text


def test_the_merchant_page_says_what_draws_on_the_balance(staff, merchant):
    """Staff reading a merchant's balance learn that payouts and the merchant's refunds draw on
    it and are refused beyond it, and that a late payment's automatic refund never is."""
    page = staff.get(admin_url(merchant), HTTP_ACCEPT_LANGUAGE="en").text
    assert "refunds draw on the balance of their mode and currency" in page
    assert "balance_insufficient" in page and "never refused" in page
    page = staff.get(admin_url(merchant), HTTP_ACCEPT_LANGUAGE="fr").text
    assert "les remboursements du marchand puisent dans le solde" in page


def test_revoking_a_key_needs_the_permission_to_change_keys(staff, merchant):
    viewer = with_totp(
        get_user_model().objects.create_user("viewer", password="pw-123-long", is_staff=True)
    )
    viewer.user_permissions.add(Permission.objects.get(codename="view_apikey"))
    client = Client()
    client.force_login(viewer)
    assert 'value="revoke"' not in client.get("/admin/payments/apikey/").text
    assert 'value="revoke"' in staff.get("/admin/payments/apikey/").text
    key = ApiKey.objects.filter(merchant=merchant).first()
    client.post("/admin/payments/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    key.refresh_from_db()
    assert key.revoked_at is None
    done = staff.post(
        "/admin/payments/apikey/", {"action": "revoke", "_selected_action": [key.pk]}, follow=True
    )
    assert "1 clé révoquée." in done.text  # the staff's language, French by default
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_the_charge_page_names_each_amount_once(staff, merchant):
    charge = make_charge(merchant, amount=250000)
    french = labels(staff.get(admin_url(charge)).text)
    assert french.count("Montant") == 1 and french.count("Montant (unités mineures)") == 1
    english = labels(staff.get(admin_url(charge), HTTP_ACCEPT_LANGUAGE="en").text)
    assert english.count("Amount") == 1 and english.count("Amount (minor units)") == 1


@pytest.mark.parametrize(
    "event_id",
    [
        "evt_5F0U6" + "a" * 19,  # reads like a quoted "_" followed by 0U6…
        "evt_2Fab" + "c" * 20,  # reads like a quoted "/"
        "evt_plainAbc" + "d" * 15,
    ],
)
def test_an_events_address_carries_its_id_as_it_is(staff, merchant, event_id):
    event = event_with_id(merchant, event_id)
    url = admin_url(event)
    assert url == f"/admin/webhooks/event/{event_id}/change/"
    page = staff.get(url)
    assert page.status_code == 200 and event_id in page.text
    listing = staff.get("/admin/webhooks/event/").text
    assert f'href="/admin/webhooks/event/{event_id}/change/' in listing
    assert "_5F" not in listing.replace(event_id, "")
    # The older address without /change/ still leads there.
    assert staff.get(f"/admin/webhooks/event/{event_id}/")["Location"] == url
    assert staff.get(f"/admin/webhooks/event/{event_id}/history/").status_code == 200


def test_every_objects_address_carries_its_id(staff, merchant):
    charge = make_charge(merchant, status="succeeded")
    refund = refunds.refund_create(charge=charge, amount=1000)
    session = make_session(merchant)
    for obj, path in [
        (merchant, "payments/merchant"),
        (charge, "payments/charge"),
        (refund, "payments/refund"),
        (session, "checkout/checkoutsession"),
    ]:
        meta = obj._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[quote(obj.pk)])
        assert url == f"/admin/{path}/{obj.pk}/change/"
        assert staff.get(url).status_code == 200
    # The refund's page links to its charge by the charge's own id.
    assert f'href="/admin/payments/charge/{charge.id}/change/"' in staff.get(admin_url(refund)).text


# --- The overview -------------------------------------------------------------------------------

NOW = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)  # a Wednesday
MONDAY = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
LAST_WEEK = datetime(2026, 11, 22, 23, 0, tzinfo=UTC)


def table(html: str, marker: str, index: int = 0) -> list[list[str]]:
    """The body rows of the `index`-th table carrying `marker`, as lists of cell texts."""
    found = re.findall(rf"<table {marker}>.*?<tbody>(.*?)</tbody>", html, re.S)[index]
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", found, re.S)
    ]  # fmt: skip


@pytest.fixture
def week_of_charges(merchant, settings, eager_tasks, django_capture_on_commit_callbacks):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    settings.MOBILE_MONEY_PROMPT_TIMEOUT = 300
    settings.RECONCILIATION_WINDOW = 2 * 24 * 3600
    today = NOW - timedelta(hours=1)
    make_charge(merchant, amount=250000, status="succeeded", at=today)
    make_charge(merchant, amount=100000, status="succeeded", at=MONDAY)
    make_charge(merchant, amount=500000, status="succeeded", at=LAST_WEEK)  # not this week
    make_charge(
        merchant,
        phone="+243971234001",
        network="AIRTEL_MONEY",
        status="declined",
        failure_code="insufficient_funds",
        at=today,
    )
    make_charge(merchant, payment_method="card", status="succeeded", at=today)
    fresh = sent_charge(merchant, phone="+243851234567", network="ORANGE_MONEY", at=NOW)
    stuck = sent_charge(merchant, phone="+243821234567", at=NOW - timedelta(minutes=10))
    late = timed_out_charge(merchant, phone="+243812345005", at=MONDAY)
    with (
        time_machine.travel(late.reconcile_next_at, tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        charges.charge_reconcile(charge_id=late.id)
    with time_machine.travel(NOW - timedelta(days=3), tick=False):
        paid = make_charge(merchant, amount=300000, status="succeeded")
        waiting = refunds.refund_create(
            charge=paid, amount=100000, metadata={"sandbox_refund": "pending"}
        )
        payout = sent_payout(merchant, amount=50000)
        expired = make_session(merchant)
    with time_machine.travel(NOW - timedelta(hours=1), tick=False):
        open_ = make_session(merchant)
    return {"fresh": fresh, "stuck": stuck, "late": late, "refund": waiting, "payout": payout,
            "expired": expired, "open": open_}  # fmt: skip


def test_overview_counts_the_days_and_weeks_charges_and_finds_what_is_late(staff, week_of_charges):
    with time_machine.travel(NOW, tick=False):
        page = staff.get("/admin/overview/?mode=test").text
        live = staff.get("/admin/overview/").text
    today, week = table(page, "data-period", 0), table(page, "data-period", 1)
    # Network, currency, charges, succeeded, amount succeeded, failed or declined, pending,
    # success rate, failure rate.
    assert sorted(today) == sorted(
        [
            ["Vodacom M-Pesa", "CDF", "2", "1", "2\xa0500,00 CDF", "0", "1", "100\xa0%", "0\xa0%"],
            ["Airtel Money", "CDF", "1", "0", "0,00 CDF", "1", "0", "0\xa0%", "100\xa0%"],
            ["Orange Money", "CDF", "1", "0", "0,00 CDF", "0", "1", "—", "—"],
            ["Carte", "USD", "1", "1", "19,99 USD", "0", "0", "100\xa0%", "0\xa0%"],
        ]
    )
    vodacom_week = next(row for row in week if row[0] == "Vodacom M-Pesa")
    # Monday's 1 000 CDF, today's 2 500 CDF and the two pending; the late payment failed
    # (timeout), and last Sunday's charge is last week's.
    assert vodacom_week[1:8] == ["CDF", "4", "2", "3\xa0500,00 CDF", "1", "1", "67\xa0%"]

    overdue = [table(page, "data-overdue", i) for i in range(3)]
    stuck, fresh = week_of_charges["stuck"], week_of_charges["fresh"]
    assert [row[0] for row in overdue[0]] == [stuck.id]  # not the prompt sent just now
    assert fresh.id not in page
    assert [row[0] for row in overdue[1]] == [week_of_charges["refund"].id]
    assert [row[0] for row in overdue[2]] == [week_of_charges["payout"].id]
    assert "<h3>Sessions de paiement (1)</h3>" in page and week_of_charges["expired"].id in page
    assert week_of_charges["open"].id not in page
    assert Refund.objects.get(pk=week_of_charges["refund"].id).status == "pending"

    [late] = table(page, "data-late")
    assert late[0] == week_of_charges["late"].id
    assert late[2:4] == ["Vodacom M-Pesa", "50,00 CDF"] and late[5] == "Réussi"

    assert live.count("Aucun encaissement.") == 2  # live mode is counted apart
    assert week_of_charges["stuck"].id not in live


def test_overview_is_for_staff_who_may_see_charges(merchant):
    assert Client().get("/admin/overview/")["Location"].startswith("/admin/login/")
    clerk = with_totp(
        get_user_model().objects.create_user("clerk", password="pw-123-long", is_staff=True)
    )
    client = Client()
    client.force_login(clerk)
    assert client.get("/admin/overview/").status_code == 403
    clerk.user_permissions.add(Permission.objects.get(codename="view_charge"))
    clerk = get_user_model().objects.get(pk=clerk.pk)
    client.force_login(clerk)
    assert client.get("/admin/overview/").status_code == 200
    assert 'href="/admin/overview/"' in staff_index(client)


def staff_index(client) -> str:
    return client.get("/admin/").text


def test_staff_read_statuses_methods_and_currencies_in_their_language(staff, merchant):
    """The values of a record's choices (a status, a payment method, a currency, a ledger
    type, a session's or a delivery's status) are said in the admin's language like its
    labels; what is stored, and what the API shows, is the value itself."""
    make_charge(merchant, status="succeeded")
    make_charge(merchant, status="failed", failure_code="insufficient_funds")
    make_session(merchant)
    record_event(merchant, url="https://shop.example/hooks")

    charges_fr = staff.get("/admin/payments/charge/").text
    assert "Réussi" in charges_fr and "Échoué" in charges_fr
    charges_en = staff.get("/admin/payments/charge/", HTTP_ACCEPT_LANGUAGE="en").text
    assert "Succeeded" in charges_en and "Failed" in charges_en and "Réussi" not in charges_en

    ledger = staff.get("/admin/payments/ledgerentry/").text
    assert "Encaissement" in ledger
    assert "Ouverte" in staff.get("/admin/checkout/checkoutsession/").text
    assert "En attente" in staff.get("/admin/webhooks/delivery/").text
    charge_page = staff.get(admin_url(make_charge(merchant, status="succeeded"))).text
    assert "Franc congolais" in charge_page


def test_every_staff_page_names_the_service_in_the_staffs_language(staff):
    french = staff.get("/admin/")
    assert "Administration des paiements" in french.text and "Django" not in french.text
    english = staff.get("/admin/payments/charge/", HTTP_ACCEPT_LANGUAGE="en").text
    assert "<title>Select charge to view | Payments administration</title>" in english
