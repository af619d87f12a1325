"""GET /v1/networks (each network's status, limits per currency and payouts, in the key's mode)
and GET /v1/networks/predict (the operator of a number as a customer types it)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import close_network, settled_charges
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db

NETWORKS = ["AIRTEL_MONEY", "VODACOM_MPESA", "ORANGE_MONEY"]


def networks(client) -> dict[str, dict]:
    response = client.get("/v1/networks")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"object", "url", "data", "has_more", "limit", "offset"}
    assert (body["object"], body["url"], body["has_more"]) == ("list", "/v1/networks", False)
    assert (body["limit"], body["offset"]) == (10, 0)  # every network fits in the default page
    assert [item["network"] for item in body["data"]] == NETWORKS
    return {item["network"]: item for item in body["data"]}


# --- The list ---------------------------------------------------------------------------------


def test_every_network_with_its_limits_per_currency_in_the_keys_mode(api, default_limits):
    found = networks(api)
    assert found["VODACOM_MPESA"] == {
        "object": "network",
        "livemode": False,
        "network": "VODACOM_MPESA",
        "status": "operational",
        "currencies": [
            {"currency": "CDF", "min_amount": 10_000, "max_amount": 500_000_000},
            {"currency": "USD", "min_amount": 100, "max_amount": 250_000},
        ],
        "payouts": True,
    }
    assert {item["status"] for item in found.values()} == {"operational"}


def test_limits_follow_the_configuration_per_network(api, settings, default_limits):
    settings.NETWORK_LIMITS = {
        **default_limits,
        "AIRTEL_MONEY": {**default_limits["AIRTEL_MONEY"], "USD": (500, 150_000)},
    }
    found = networks(api)
    assert found["AIRTEL_MONEY"]["currencies"][1] == {
        "currency": "USD",
        "min_amount": 500,
        "max_amount": 150_000,
    }
    assert found["ORANGE_MONEY"]["currencies"][1]["max_amount"] == 250_000


def test_payouts_say_whether_the_mode_can_pay_out_on_the_network(api, live_api):
    """Test mode pays out everywhere (the sandbox); live only where payout credentials are set,
    and none are in the suite."""
    assert {item["payouts"] for item in networks(api).values()} == {True}
    live = networks(live_api)
    assert {item["payouts"] for item in live.values()} == {False}
    assert {item["livemode"] for item in live.values()} == {True}


def test_a_closed_network_is_closed_in_its_mode_only(api, live_api):
    close_network("ORANGE_MONEY", livemode=True)
    assert networks(live_api)["ORANGE_MONEY"]["status"] == "closed"
    assert networks(live_api)["AIRTEL_MONEY"]["status"] == "operational"
    assert networks(api)["ORANGE_MONEY"]["status"] == "operational"


def test_degraded_when_the_recent_share_of_operator_errors_and_timeouts_reaches_the_threshold(
    api, merchant, settings
):
    settings.NETWORK_DEGRADED_THRESHOLD = 0.5
    settings.NETWORK_DEGRADED_MIN_ATTEMPTS = 10
    # 4 operator errors + 1 timeout of 11: below half. Declines are the operator working.
    settled_charges(
        merchant,
        "AIRTEL_MONEY",
        {"succeeded": 3, "declined": 3, "provider_error": 4, "timeout": 1},
    )
    assert networks(api)["AIRTEL_MONEY"]["status"] == "operational"
    settled_charges(merchant, "AIRTEL_MONEY", {"timeout": 1})  # 6 of 12
    found = networks(api)
    assert found["AIRTEL_MONEY"]["status"] == "degraded"
    assert found["VODACOM_MPESA"]["status"] == "operational"


def test_degraded_needs_enough_recent_charges(api, merchant, settings):
    settings.NETWORK_DEGRADED_MIN_ATTEMPTS = 10
    settled_charges(merchant, "ORANGE_MONEY", {"provider_error": 9})
    assert networks(api)["ORANGE_MONEY"]["status"] == "operational"
    settled_charges(merchant, "ORANGE_MONEY", {"provider_error": 1})
    assert networks(api)["ORANGE_MONEY"]["status"] == "degraded"


def test_only_charges_settled_within_the_window_count(api, live_api, merchant, settings):
    settings.NETWORK_DEGRADED_WINDOW = 900
    settings.NETWORK_DEGRADED_MIN_ATTEMPTS = 4
    long_ago = timezone.now() - timedelta(seconds=901)
    settled_charges(merchant, "VODACOM_MPESA", {"provider_error": 10}, at=long_ago)
    settled_charges(merchant, "VODACOM_MPESA", {"succeeded": 2, "timeout": 1})
    assert networks(api)["VODACOM_MPESA"]["status"] == "operational"
    settled_charges(merchant, "VODACOM_MPESA", {"timeout": 1})  # 2 of 4 within the window
    assert networks(api)["VODACOM_MPESA"]["status"] == "degraded"
    # The test mode's outcomes say nothing of the live operators.
    assert networks(live_api)["VODACOM_MPESA"]["status"] == "operational"


def test_closed_wins_over_degraded(api, merchant, settings):
    settings.NETWORK_DEGRADED_MIN_ATTEMPTS = 1
    settled_charges(merchant, "VODACOM_MPESA", {"provider_error": 2})
    assert networks(api)["VODACOM_MPESA"]["status"] == "degraded"
    close_network("VODACOM_MPESA")
    assert networks(api)["VODACOM_MPESA"]["status"] == "closed"


def test_the_list_is_paged_by_limit_and_offset_like_every_list(api):
    first = api.get("/v1/networks", {"limit": 2}).json()
    assert [item["network"] for item in first["data"]] == NETWORKS[:2]
    assert (first["has_more"], first["limit"], first["offset"]) == (True, 2, 0)
    rest = api.get("/v1/networks", {"limit": 2, "offset": 2}).json()
    assert [item["network"] for item in rest["data"]] == NETWORKS[2:]
    assert (rest["has_more"], rest["limit"], rest["offset"]) == (False, 2, 2)
    assert api.get("/v1/networks", {"offset": 3}).json()["data"] == []
    for params in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"limit": "ten"}):
        response = api.get("/v1/networks", params)
        assert_error(response, 400, "invalid_request_error", "parameter_invalid")
        assert response.json()["error"]["param"] == next(iter(params))


def test_the_list_takes_no_other_parameter_and_needs_a_key(api, anon):
    # a network has no id to start a page after
    for params in ({"starting_after": "AIRTEL_MONEY"}, {"network": "AIRTEL_MONEY"}):
        response = api.get("/v1/networks", params)
        assert_error(response, 400, "invalid_request_error", "parameter_unknown")
    assert_error(anon.get("/v1/networks"), 401, "authentication_error", "missing_api_key")
    assert_error(api.post("/v1/networks", {}), 405, "invalid_request_error", "method_not_allowed")


def test_the_list_costs_the_same_few_queries_whatever_the_traffic(
    api, merchant, django_assert_max_num_queries
):
    settled_charges(merchant, "AIRTEL_MONEY", {"succeeded": 5, "timeout": 5})
    close_network("ORANGE_MONEY")
    # Authentication (key, merchant, last use) + the closed networks + the recent outcomes.
    with django_assert_max_num_queries(6):
        networks(api)


# --- Prediction -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed, phone, network",
    [
        ("0812 345 678", "+243812345678", "VODACOM_MPESA"),
        ("+243 81 234 5678", "+243812345678", "VODACOM_MPESA"),
        ("243812345678", "+243812345678", "VODACOM_MPESA"),
        ("0812-345-678", "+243812345678", "VODACOM_MPESA"),
        ("+243812345678", "+243812345678", "VODACOM_MPESA"),
        ("00243 812 345 678", "+243812345678", "VODACOM_MPESA"),
        ("+243 0812 345 678", "+243812345678", "VODACOM_MPESA"),
        ("(081) 234.56.78", "+243812345678", "VODACOM_MPESA"),
        ("0971234567", "+243971234567", "AIRTEL_MONEY"),
        ("099 123 4567", "+243991234567", "AIRTEL_MONEY"),
        ("0851234567", "+243851234567", "ORANGE_MONEY"),
        ("+243 89 123 4567", "+243891234567", "ORANGE_MONEY"),
        # A DRC mobile number whose prefix the table does not know: no guess.
        ("0912345678", "+243912345678", None),
    ],
)
def test_predict_reads_what_a_customer_types(api, typed, phone, network):
    response = api.get("/v1/networks/predict", {"phone": typed})
    assert response.status_code == 200, response.content
    assert response.json() == {"object": "network_prediction", "phone": phone, "network": network}


def test_predict_reads_an_unescaped_plus_as_what_it_became(api):
    """`?phone=+243…` left unescaped arrives as a space: still the same number."""
    response = api.get("/v1/networks/predict?phone=+243812345678")
    assert response.json()["phone"] == "+243812345678"


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "12345",
        "0712345678",  # no DRC mobile prefix
        "081234567",  # a digit short
        "08123456789",
        "+2438123456789",
        "+33612345678",
        "0812345678x",
        "0812 345 678 ext 2",
        "+243+812345678",
        "٠٨١٢٣٤٥٦٧٨",  # Arabic-Indic digits
        "0" * 500,
    ],
)
def test_predict_refuses_what_is_no_drc_mobile_number(api, typed):
    response = api.get("/v1/networks/predict", {"phone": typed})
    assert_error(response, 400, "invalid_request_error", "phone_invalid")
    error = response.json()["error"]
    assert error["param"] == "phone"
    assert "0812 345 678" in error["message"] and "+243" in error["message"]


def test_predict_needs_the_phone_and_nothing_else(api):
    missing = api.get("/v1/networks/predict")
    assert_error(missing, 400, "invalid_request_error", "parameter_missing")
    assert missing.json()["error"]["param"] == "phone"
    extra = api.get("/v1/networks/predict", {"phone": "0812345678", "network": "AIRTEL_MONEY"})
    assert_error(extra, 400, "invalid_request_error", "parameter_unknown")


def test_predict_speaks_french_when_asked(api):
    response = api.get(
        "/v1/networks/predict", {"phone": "123"}, HTTP_ACCEPT_LANGUAGE="fr-CD,fr;q=0.9"
    )
    assert response.json()["error"]["message"].startswith(
        "phone n'est pas un numéro mobile de RD Congo"
    )


def test_both_endpoints_are_described_in_openapi(anon):
    paths = anon.get("/v1/openapi.json").json()["paths"]
    assert "get" in paths["/v1/networks"]
    predict = paths["/v1/networks/predict"]["get"]
    assert [(p["name"], p["in"], p["required"]) for p in predict["parameters"]] == [
        ("phone", "query", True)
    ]
