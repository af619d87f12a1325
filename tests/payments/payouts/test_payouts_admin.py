"""Staff pages of payouts: read-only list and detail, filters, search, "check status now", and
recording what the operator confirmed for a payout its status checks could not settle."""

import re

import pytest
from django.contrib.auth.models import Permission

from payments.models import LedgerEntry, Payout
from tests.factories import (
    MerchantFactory,
    payout_waiting_for_staff,
    sent_payout,
    succeeded_card_charge,
    succeeded_mobile_money_charge,
    with_totp,
)
from tests.helpers import admin_url
from webhooks.models import Event

pytestmark = pytest.mark.django_db

LIST = "/admin/payments/payout/"


@pytest.fixture
def funded(merchant):
    succeeded_mobile_money_charge(merchant, amount=100000)
    succeeded_card_charge(merchant, amount=5000)  # 50.00 USD
    return merchant


@pytest.fixture
def payouts(funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3600  # the sandbox operator answers pending for now
    return {
        "pending": sent_payout(funded, amount=5000),
        "waiting": payout_waiting_for_staff(funded, amount=7000, phone="+243812345700"),
        "airtel": sent_payout(funded, amount=3000, phone="+243971234567", network="AIRTEL_MONEY"),
        "usd": sent_payout(funded, amount=2000, currency="USD", phone="+243812345222"),
    }


def page_of(client, **params) -> str:
    response = client.get(LIST, params)
    assert response.status_code == 200
    return response.content.decode()


def row_of(page: str, payout) -> str:
    """The list's row of this payout."""
    rows = [row for row in re.findall(r"<tr.*?</tr>", page, re.S) if payout.id in row]
    assert len(rows) == 1
    return rows[0]


def only(page: str, payouts: dict, *names: str) -> bool:
    """The page lists exactly these of the payouts."""
    return {name for name, payout in payouts.items() if payout.id in page} == set(names)


def test_list_filters_and_search(staff, payouts, funded):
    everything = page_of(staff)
    assert only(everything, payouts, *payouts)
    assert "70,00 CDF" in everything and "20,00 USD" in everything
    assert "en attente de l’équipe" in row_of(everything, payouts["waiting"])
    assert "en attente de l’équipe" not in row_of(everything, payouts["pending"])  # still checked

    assert only(page_of(staff, currency__exact="USD"), payouts, "usd")
    assert only(page_of(staff, network__exact="AIRTEL_MONEY"), payouts, "airtel")
    assert only(page_of(staff, waiting_for_staff="yes"), payouts, "waiting")
    assert only(page_of(staff, livemode__exact="1"), payouts)
    assert only(page_of(staff, livemode__exact="0", status__exact="pending"), payouts, *payouts)
    assert only(page_of(staff, status__exact="succeeded"), payouts)
    assert only(page_of(staff, merchant=funded.id), payouts, *payouts)
    assert only(page_of(staff, merchant=MerchantFactory().id), payouts)

    assert only(page_of(staff, q=payouts["usd"].id), payouts, "usd")
    reference = payouts["airtel"].provider_reference
    assert reference and only(page_of(staff, q=reference), payouts, "airtel")
    assert only(page_of(staff, q="+243812345700"), payouts, "waiting")
    assert only(page_of(staff, q="0812 345 700"), payouts, "waiting")  # as people write it
    assert only(page_of(staff, q=funded.id), payouts, *payouts)
    assert only(page_of(staff, q=MerchantFactory().id), payouts)


def test_detail_is_read_only(staff, payouts):
    payout = payouts["waiting"]
    response = staff.get(admin_url(payout))
    assert response.status_code == 200
    page = response.content.decode()
    assert "70,00 CDF" in page and "+243812345700" in page and "HTTP 503" in page
    assert "terminées : l’opérateur n’a pas pu le confirmer" in page  # French by default
    row = LedgerEntry.objects.get(payout=payout)
    assert admin_url(row) in page and "-70,00 CDF" in page
    assert 'name="amount"' not in page and 'name="_save"' not in page
    assert staff.get(f"{LIST}add/").status_code == 403
    assert staff.get(admin_url(payout, "delete")).status_code == 403
    assert staff.post(admin_url(payout), {"status": "succeeded"}).status_code == 403
    assert Payout.objects.get(pk=payout.id).status == "pending"


def act(client, action: str, payout_ids: list[str], language: str = "fr", **extra):
    """The page after running `action` on the payouts, in the staff's `language`."""
    data = {"action": action, "index": 0, "_selected_action": payout_ids, **extra}
    return client.post(LIST, data, follow=True, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def test_check_status_now_asks_the_operator_about_pending_payouts(staff, payouts, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0  # the sandbox operator has the answer now
    pending, failing = payouts["pending"], payouts["airtel"]
    page = act(staff, "check_with_operator", [pending.id, payouts["waiting"].id])
    assert f"Versement {pending.id} : réussi." in page
    assert f"Versement {payouts['waiting'].id} : réussi." in page  # its operator answers at last
    assert Payout.objects.get(pk=pending.id).status == "succeeded"
    assert Payout.objects.get(pk=failing.id).status == "pending"  # not selected: not asked

    again = act(staff, "check_with_operator", [pending.id])
    assert "Aucun des versements sélectionnés n’est en attente chez son opérateur." in again


def ledger_of(payout) -> list[tuple[str, int]]:
    rows = LedgerEntry.objects.filter(source=payout.id).order_by("created_at", "id")
    return list(rows.values_list("type", "amount"))


def events_of(payout) -> list[str]:
    return list(Event.objects.filter(data__object__id=payout.id).values_list("type", flat=True))


def test_staff_record_that_the_operator_did_not_pay_after_a_confirmation_page(staff, payouts):
    waiting, pending = payouts["waiting"], payouts["pending"]
    page = act(staff, "mark_failed", [waiting.id, pending.id], language="en")
    assert "Confirm what the operator told you" in page
    assert "did <strong>not</strong>" in page and waiting.id in page and "70.00 CDF" in page
    assert pending.id not in page  # still checked automatically: not for staff yet
    assert Payout.objects.get(pk=waiting.id).status == "pending"  # nothing happens before "yes"
    assert ledger_of(waiting) == [("payout", -7000)] and events_of(waiting) == []

    done = act(staff, "mark_failed", [waiting.id], language="en", confirm="yes")
    assert f"Payout {waiting.id}: failed." in done
    payout = Payout.objects.get(pk=waiting.id)
    assert (payout.status, payout.failure_code) == ("failed", "provider_error")
    assert payout.provider_raw[-1]["resolved_by"] == "staff"
    assert ledger_of(waiting) == [("payout", -7000), ("payout_failure", 7000)]
    assert events_of(waiting) == ["payout.failed"]

    for action in ("mark_failed", "mark_succeeded"):  # a second decision changes nothing
        again = act(staff, action, [waiting.id], language="en", confirm="yes")
        assert "None of the selected payouts is waiting for staff" in again
    assert Payout.objects.get(pk=waiting.id).status == "failed"
    assert ledger_of(waiting) == [("payout", -7000), ("payout_failure", 7000)]
    assert events_of(waiting) == ["payout.failed"]
    assert Payout.objects.get(pk=pending.id).status == "pending"


def test_only_staff_allowed_to_change_payouts_record_a_payment(payouts, client, django_user_model):
    waiting = payouts["waiting"]
    viewer = with_totp(
        django_user_model.objects.create_user("viewer", password="pw-123-long", is_staff=True)
    )
    viewer.user_permissions.add(Permission.objects.get(codename="view_payout"))
    client.force_login(viewer)
    listing = page_of(client)
    assert waiting.id in listing and "check_with_operator" not in listing
    assert "mark_succeeded" not in listing and "mark_failed" not in listing
    act(client, "mark_succeeded", [waiting.id], confirm="yes")
    assert Payout.objects.get(pk=waiting.id).status == "pending"
    assert events_of(waiting) == []

    clerk = with_totp(
        django_user_model.objects.create_user("clerk", password="pw-123-long", is_staff=True)
    )
    clerk.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_payout", "change_payout"])
    )
    client.force_login(clerk)
    assert "mark_succeeded" in page_of(client) and "check_with_operator" in page_of(client)
    confirm = act(client, "mark_succeeded", [waiting.id])
    assert "Confirmez ce que l’opérateur vous a dit" in confirm
    assert "Oui, l’opérateur les a payés" in confirm and "irréversible" in confirm
    assert "<strong>payé</strong> ces versements" in confirm
    done = act(client, "mark_succeeded", [waiting.id], confirm="yes")
    assert f"Versement {waiting.id} : réussi." in done
    assert Payout.objects.get(pk=waiting.id).status == "succeeded"
    assert ledger_of(waiting) == [("payout", -7000)]  # the amount stays paid out
    assert events_of(waiting) == ["payout.succeeded"]
    assert Payout.objects.get(pk=waiting.id).provider_raw[-1]["resolved_by"] == "clerk"
    detail = client.get(admin_url(waiting)).content.decode()
    assert re.search(r"Réglé par l’équipe.*?clerk", detail, re.S)  # French admin
    english = client.get(admin_url(waiting), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r"Settled by staff.*?clerk", english, re.S)
    # The detail page stays read-only for them too.
    assert client.post(admin_url(waiting), {"status": "failed"}).status_code == 403
