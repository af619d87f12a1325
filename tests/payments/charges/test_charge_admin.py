"""The staff view of charges: list, filters, search, read-only detail, the status-check action."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from payments.models import Charge
from payments.services.charges import charge_refresh
from tests.factories import make_charge, merchant_with_keys, sent_charge, settle
from tests.helpers import admin_url
from webhooks.models import Event

pytestmark = pytest.mark.django_db

URL = "/admin/payments/charge/"
T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.fixture
def charges(merchant, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    mm = {"amount": 250000, "at": T0}
    pending = sent_charge(merchant, description="Commande 42", **mm)
    declined = sent_charge(merchant, phone="+243971234001", network="AIRTEL_MONEY", **mm)
    with time_machine.travel(T0, tick=False):
        declined = charge_refresh(charge_id=declined.id)
    card = make_charge(merchant, payment_method="card", at=T0)
    other = make_charge(
        merchant_with_keys(name="Quincaillerie Kin").merchant,
        phone="+243841234567",
        network="ORANGE_MONEY",
        **mm,
    )
    return {"pending": pending, "declined": declined, "card": card, "other": other}


def test_an_id_is_searched_exactly_and_by_its_index(staff, charges, merchant):
    """A pasted id is looked up with = on the id (its primary key index answers), not with
    Django's case-insensitive match (UPPER(…), no index) ORed with the phone and description
    substring searches; ids are case-sensitive. Other terms are searched as before."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    card = charges["card"].id
    with CaptureQueriesContext(connection) as captured:
        assert listed(staff, f"?q={card}") == {card}
    searched = [q["sql"] for q in captured if "payments_charge" in q["sql"] and card in q["sql"]]
    assert searched and not any("UPPER" in sql or "LIKE" in sql for sql in searched)
    prefix, _, token = card.partition("_")
    assert listed(staff, f"?q={prefix}_{token.swapcase()}") == set()  # another id
    assert listed(staff, f"?q=%20{card}%20") == {card}
    assert listed(staff, "?q=Commande") == {charges["pending"].id}  # not an id: as before
    ledger = staff.get(f"/admin/payments/ledgerentry/?q={merchant.id}")
    assert ledger.status_code == 200


def listed(client, query="") -> set[str]:
    response = client.get(URL + query)
    assert response.status_code == 200
    return {c.id for c in response.context["cl"].result_list}


def test_list_filters_and_search(staff, charges, merchant):
    every = {c.id for c in charges.values()}
    assert listed(staff) == every
    assert listed(staff, "?status__exact=declined") == {charges["declined"].id}
    assert listed(staff, "?network__exact=ORANGE_MONEY") == {charges["other"].id}
    assert listed(staff, "?payment_method__exact=card") == {charges["card"].id}
    assert listed(staff, "?livemode__exact=0") == every
    assert listed(staff, "?livemode__exact=1") == set()
    assert listed(staff, f"?merchant__id__exact={merchant.id}") == every - {charges["other"].id}
    assert listed(staff, f"?q={charges['card'].id}") == {charges["card"].id}
    assert listed(staff, "?q=%2B243971234001") == {charges["declined"].id}
    assert listed(staff, "?q=Commande") == {charges["pending"].id}
    page = staff.get(URL).content.decode()
    assert "2\xa0500,00 CDF" in page and "19,99 USD" in page


def test_detail_is_read_only_and_shows_the_provider_answers(staff, charges):
    charge = charges["declined"]
    response = staff.get(admin_url(charge))
    assert response.status_code == 200
    page = response.content.decode()
    assert "insufficient_funds" in page and "Réponses du prestataire" in page  # French admin
    english = staff.get(admin_url(charge), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Provider answers" in english
    assert "prompt sent" in page  # the sandbox operator's raw answer, for staff
    for name in ("amount", "currency", "status", "provider_reference", "provider_raw", "phone"):
        assert f'name="{name}"' not in page
    before = Charge.objects.values().get(pk=charge.id)
    staff.post(admin_url(charge), {"status": "succeeded", "amount": "1"})
    assert Charge.objects.values().get(pk=charge.id) == before


def test_no_add_and_no_delete(staff, charges):
    charge = charges["pending"]
    assert staff.get(f"{URL}add/").status_code == 403
    assert staff.get(f"{URL}{charge.id}/delete/").status_code == 403
    assert staff.post(f"{URL}{charge.id}/delete/", {"post": "yes"}).status_code == 403
    response = staff.post(URL, {"action": "delete_selected", "_selected_action": [charge.id]})
    assert Charge.objects.filter(pk=charge.id).exists()
    assert response.status_code == 403


def test_check_status_action_settles_pending_charges_only(staff, charges):
    pending, declined = charges["pending"], charges["declined"]
    with time_machine.travel(T0 + timedelta(seconds=1), tick=False):
        response = staff.post(
            URL,
            {
                "action": "check_status_now",
                "_selected_action": [pending.id, declined.id, charges["card"].id],
            },
            follow=True,
        )
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert f"Réglés : {pending.id} → réussi" in shown  # the staff's language (French by default)
    assert f"Toujours en attente : {charges['card'].id}" in shown
    assert "1 encaissement déjà final, non vérifié." in shown
    pending.refresh_from_db()
    assert pending.status == "succeeded"
    assert Charge.objects.get(pk=declined.id).check_count == 1  # not asked again
    assert list(
        Event.objects.filter(data__object__id=pending.id).values_list("type", flat=True)
    ) == ["charge.succeeded"]


def test_check_status_action_reports_a_provider_that_cannot_be_reached(staff, charges, settings):
    charge = charges["pending"]
    settings.PAYMENT_PROVIDERS = {"test": {}, "live": {}}
    response = staff.post(
        URL,
        {"action": "check_status_now", "_selected_action": [charge.id]},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    said = f"Could not ask about {charge.id}: Vodacom M-Pesa is not available"
    assert any(m.startswith(said) for m in shown), shown
    assert Charge.objects.get(pk=charge.id).status == "pending"


def test_outcome_applied_elsewhere_is_seen_by_staff(staff, charges):
    charge = charges["card"]
    settle(charge, "declined", "card_declined")
    assert listed(staff, "?status__exact=declined") == {charges["declined"].id, charge.id}
