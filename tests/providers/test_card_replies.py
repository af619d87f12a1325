"""Card replies bounded (docs/operations/security.md): a signed reply for a pending card charge,
however often it is replayed, asks CyberSource at most once per charge in each
CARD_REPLY_CHECK_INTERVAL and is recorded once among the charge's answers; the browser is still
sent on. The receipt path is throttled per client address; the status checks' counter counts
every check made at once."""

import threading

import pytest
from django.db import connection, transaction

from payments.models import Charge
from payments.services import charges
from tests.factories import card_charge_via_api
from tests.helpers import AddressClient, backends_waiting_on_a_lock, race, wait_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def pending_reply(cybersource, live_api):
    """A card charge paid on CyberSource's page whose search does not show it yet (a review, a
    lagging search): every status check leaves it pending. (charge id, the signed reply)."""
    cybersource.search_lag = 1_000_000
    body = card_charge_via_api(live_api)
    return body["id"], cybersource.pay(body["next_action"]["params"], "accept")


def test_a_reply_replayed_a_hundred_times_asks_cybersource_once(pending_reply, cybersource, client):
    charge_id, reply = pending_reply
    for _ in range(100):
        response = client.post("/card/receipt", reply)
        assert response.status_code == 200  # still sent on (no return_url: our own page)
        assert 'data-status="pending"' in response.content.decode()
    for _ in range(20):  # the provider's copy of it too
        assert client.post("/card/notify", reply).json() == {"received": True}
    assert cybersource.searches == 1
    charge = Charge.objects.get(pk=charge_id)
    assert charge.check_count == 1 and charge.status == "pending"
    assert len(charge.provider_raw) == 1  # one line in the payment's timeline


def test_the_same_answer_asked_again_is_recorded_once(pending_reply, cybersource):
    charge_id, _reply = pending_reply
    for _ in range(3):  # the poller's checks: each asks, the answer has not moved
        charges.charge_refresh(charge_id=charge_id)
    charge = Charge.objects.get(pk=charge_id)
    assert cybersource.searches == 3 and charge.check_count == 3
    assert [list(answer) for answer in charge.provider_raw] == [["at", "search"]]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_replies_at_once_ask_cybersource_once(pending_reply, cybersource):
    charge_id, reply = pending_reply
    results = race(lambda: charges.charge_card_return(fields=reply), count=8)
    assert [result.id for result in results] == [charge_id] * 8
    assert cybersource.searches == 1
    assert Charge.objects.get(pk=charge_id).check_count == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_status_checks_at_once_are_each_counted(pending_reply, cybersource):
    """Checks started while the charge's row is locked (by a change being applied) each add one
    to the counter once it is free: none is lost."""
    charge_id, _reply = pending_reply
    locked, release = threading.Event(), threading.Event()

    def hold_the_row():
        try:
            with transaction.atomic():
                Charge.objects.select_for_update().get(pk=charge_id)
                locked.set()
                release.wait(60)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    assert locked.wait(30)
    checks = [
        threading.Thread(target=race, args=(lambda: charges.charge_refresh(charge_id=charge_id), 1))
        for _ in range(4)
    ]
    for check in checks:
        check.start()
    wait_for(lambda: backends_waiting_on_a_lock() == 4)
    release.set()
    for thread in (holder, *checks):
        thread.join(60)
    assert cybersource.searches == 4
    assert Charge.objects.get(pk=charge_id).check_count == 4


@pytest.mark.django_db(transaction=True)
def test_receipts_are_throttled_per_client_address(live_server, settings):
    settings.THROTTLE_CARD_RECEIPTS = "3/m"
    first, second = AddressClient(live_server.url), AddressClient(live_server.url)
    forged = {"req_reference_number": "ch_nothing", "decision": "ACCEPT", "signature": "x"}
    assert [first.post("/card/receipt", forged).status for _ in range(3)] == [400] * 3
    refused = first.post("/card/receipt", forged)
    assert refused.status == 429 and int(refused.headers["Retry-After"]) >= 1
    assert "Trop de réponses de paiement depuis votre connexion" in refused.text
    assert second.post("/card/receipt", forged).status == 400  # another address is served
