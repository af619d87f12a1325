"""A network staff closed takes no new charge or payout in that mode (503 api_error /
network_unavailable) until they reopen it; what was already sent goes on. Staff close and
reopen networks in the admin."""

import pytest

from payments.models import Charge, NetworkState, Payout
from payments.services import charges
from payments.services.networks import network_set_closed
from tests.factories import close_network, make_charge, succeeded_mobile_money_charge
from tests.helpers import admin_url, assert_error

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
LIST = "/admin/payments/networkstate/"


def unavailable(response):
    assert_error(response, 503, "api_error", "network_unavailable")
    error = response.json()["error"]
    assert error["param"] == "network"
    return error


def test_a_charge_on_a_closed_network_is_refused_until_it_reopens(api):
    close_network("VODACOM_MPESA")
    error = unavailable(api.post("/v1/charges", MM, format="json"))
    assert error["message"] == (
        "Vodacom M-Pesa is unavailable at the moment: nothing new is sent to it. Please retry "
        "later or use another network."
    )
    assert not Charge.objects.exists()
    airtel = {**MM, "phone": "+243971234567", "network": "AIRTEL_MONEY"}
    assert api.post("/v1/charges", airtel, format="json").status_code == 201
    network_set_closed(network="VODACOM_MPESA", livemode=False, closed=False, by="staff")
    assert api.post("/v1/charges", MM, format="json").status_code == 201


def test_an_idempotent_retry_after_the_reopening_is_made(api):
    """A 503 is not kept as the key's answer: the same request succeeds once the network is
    open again."""
    close_network("VODACOM_MPESA")
    headers = {"HTTP_IDEMPOTENCY_KEY": "order-42"}
    unavailable(api.post("/v1/charges", MM, format="json", **headers))
    network_set_closed(network="VODACOM_MPESA", livemode=False, closed=False)
    assert api.post("/v1/charges", MM, format="json", **headers).status_code == 201


def test_closing_is_per_mode(api, live_api, merchant):
    merchant.live_approved = True
    merchant.save()
    close_network("VODACOM_MPESA", livemode=True)
    assert api.post("/v1/charges", MM, format="json").status_code == 201
    # Live: closed answers before the missing provider would.
    unavailable(live_api.post("/v1/charges", MM, format="json"))
    network_set_closed(network="VODACOM_MPESA", livemode=True, closed=False)
    assert_error(
        live_api.post("/v1/charges", MM, format="json"), 503, "api_error", "provider_unavailable"
    )


def test_the_checks_before_closing_still_come_first(api, live_api):
    close_network("VODACOM_MPESA")
    close_network("VODACOM_MPESA", livemode=True)
    assert_error(
        api.post("/v1/charges", {**MM, "phone": "+2438"}, format="json"),
        400,
        "invalid_request_error",
        "phone_invalid",
    )
    assert_error(
        live_api.post("/v1/charges", MM, format="json"),
        403,
        "permission_error",
        "live_mode_not_approved",
    )


def test_a_charge_sent_before_the_closing_goes_on(merchant):
    charge = make_charge(merchant)
    close_network("VODACOM_MPESA")
    charges.charge_request_payment(charge_id=charge.id)
    assert Charge.objects.get(pk=charge.id).provider_requested_at is not None


def test_a_payout_on_a_closed_network_is_refused_and_reserves_nothing(api, merchant):
    succeeded_mobile_money_charge(merchant, amount=50_000)
    close_network("VODACOM_MPESA")
    body = {**MM, "amount": 10_000}
    unavailable(api.post("/v1/payouts", body, format="json"))
    assert not Payout.objects.exists()
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 50_000
    airtel = {**body, "phone": "+243971234567", "network": "AIRTEL_MONEY"}
    assert api.post("/v1/payouts", airtel, format="json").status_code == 201


def test_the_french_message(api):
    close_network("ORANGE_MONEY")
    orange = {**MM, "phone": "+243851234567", "network": "ORANGE_MONEY"}
    response = api.post("/v1/charges", orange, format="json", HTTP_ACCEPT_LANGUAGE="fr")
    assert unavailable(response)["message"].startswith(
        "Orange Money est indisponible pour le moment"
    )


# --- Admin ------------------------------------------------------------------------------------


def test_staff_see_every_network_of_both_modes_with_its_status(staff):
    close_network("AIRTEL_MONEY", reason="Airtel maintenance until 14:00")
    page = staff.get(LIST).content.decode()
    assert NetworkState.objects.count() == 6
    assert "Airtel maintenance until 14:00" in page
    assert page.count("opérationnel — dernières 15 min : 0 encaissements réglés sur 0") == 5
    assert page.count("fermé — dernières 15 min") == 1
    english = staff.get(LIST, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert english.count("operational — last 15 min: 0 of 0 settled charges failed") == 5
    assert 'href="/admin/payments/networkstate/add/"' not in page


def test_staff_close_a_network_with_a_reason_then_reopen_it(staff, api):
    staff.get(LIST)  # every network listed
    state = NetworkState.objects.get(network="ORANGE_MONEY", livemode=False)
    refused = staff.post(admin_url(state), {"closed": "on", "reason": " "})
    assert refused.status_code == 200 and "Dites pourquoi le réseau est fermé" in refused.text
    assert not NetworkState.objects.get(pk=state.pk).closed

    done = staff.post(admin_url(state), {"closed": "on", "reason": "Orange API down"}, follow=True)
    assert done.status_code == 200
    assert "les nouveaux encaissements et versements sur ce réseau répondent 503" in done.text
    closed = NetworkState.objects.get(pk=state.pk)
    assert (closed.closed, closed.reason, closed.updated_by) == (True, "Orange API down", "staff")
    orange = {**MM, "phone": "+243851234567", "network": "ORANGE_MONEY"}
    unavailable(api.post("/v1/charges", orange, format="json"))

    again = staff.post(
        LIST, {"action": "reopen", "_selected_action": [state.pk], "index": 0}, follow=True
    )
    assert "Orange Money (test) est de nouveau ouvert." in again.text
    reopened = NetworkState.objects.get(pk=state.pk)
    assert (reopened.closed, reopened.reason) == (False, "")
    assert api.post("/v1/charges", orange, format="json").status_code == 201


def test_the_network_and_mode_of_a_state_cannot_be_changed_or_deleted(staff):
    staff.get(LIST)
    state = NetworkState.objects.get(network="VODACOM_MPESA", livemode=True)
    staff.post(admin_url(state), {"network": "AIRTEL_MONEY", "livemode": "", "reason": ""})
    kept = NetworkState.objects.get(pk=state.pk)
    assert (kept.network, kept.livemode) == ("VODACOM_MPESA", True)
    assert staff.get(admin_url(state, "delete")).status_code == 403
