"""POST/GET /v1/payment_links and POST /v1/payment_links/{id} (docs/guides/payment-links.md)."""

from datetime import UTC, datetime, timedelta

import pytest

from links.models import PaymentLink
from tests.factories import merchant_with_keys
from tests.helpers import api_client, assert_error

pytestmark = pytest.mark.django_db

BASE = {"amount": 250000, "currency": "CDF", "description": "Sac de riz 25 kg"}


def create(api, **fields):
    body = {**BASE, **fields}
    return api.post(
        "/v1/payment_links", {k: v for k, v in body.items() if v is not None}, format="json"
    )


def future(**delta) -> str:
    return (
        (datetime.now(UTC) + timedelta(**(delta or {"days": 7}))).isoformat().replace("+00:00", "Z")
    )


def test_created_link_has_the_contract_shape(api, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"
    expires_at = future()
    response = create(
        api,
        max_payments=3,
        expires_at=expires_at,
        success_url="https://shop.example.cd/merci",
        metadata={"stock": "riz"},
    )
    assert response.status_code == 201, response.content
    body = response.json()
    link = PaymentLink.objects.get(pk=body["id"])
    assert set(body) == {
        "id", "object", "livemode", "url", "qr_code_url", "active", "amount", "custom_amount",
        "currency", "description", "max_payments", "payments_count", "expires_at",
        "success_url", "metadata", "created_at",
    }  # fmt: skip
    assert body["id"].startswith("plink_") and len(body["id"]) == len("plink_") + 24
    assert body["object"] == "payment_link" and body["livemode"] is False
    assert body["url"] == f"https://pay.example.cd/pay/{link.slug}"
    assert body["qr_code_url"] == f"https://pay.example.cd/pay/{link.slug}/qr.svg"
    assert len(link.slug) >= 16 and link.slug not in body["id"]
    assert body["active"] is True and body["custom_amount"] is False
    assert (body["amount"], body["currency"]) == (250000, "CDF")
    assert (body["max_payments"], body["payments_count"]) == (3, 0)
    assert (
        body["expires_at"].endswith("Z") and body["success_url"] == "https://shop.example.cd/merci"
    )
    assert body["metadata"] == {"stock": "riz"}
    assert api.get(f"/v1/payment_links/{body['id']}").json() == body


def test_custom_amount_link_has_no_amount(api):
    body = create(api, amount=None, custom_amount=True, currency="USD").json()
    assert (body["amount"], body["custom_amount"], body["currency"]) == (None, True, "USD")
    assert body["max_payments"] is None and body["expires_at"] is None
    assert body["success_url"] is None


@pytest.mark.parametrize(
    ("fields", "code", "param"),
    [
        ({"amount": None}, "parameter_missing", "amount"),
        ({"custom_amount": True}, "parameter_invalid", "amount"),  # both
        ({"amount": "2500"}, "amount_invalid", "amount"),
        ({"amount": 2500.0}, "amount_invalid", "amount"),
        ({"amount": True}, "amount_invalid", "amount"),
        ({"amount": 0}, "amount_invalid", "amount"),
        ({"amount": 1_000_000_000_000}, "amount_invalid", "amount"),
        ({"amount": 250050}, "amount_invalid", "amount"),  # CDF: whole francs only
        ({"currency": "EUR"}, "currency_not_supported", "currency"),
        ({"currency": None}, "parameter_missing", "currency"),
        ({"description": None}, "parameter_missing", "description"),
        ({"description": ""}, "parameter_invalid", "description"),
        ({"description": " \u00a0\t"}, "parameter_invalid", "description"),
        ({"description": "x" * 201}, "parameter_invalid", "description"),
        ({"description": 42}, "parameter_invalid", "description"),
        ({"description": "carte 4242 4242 4242 4242"}, "card_data_forbidden", "description"),
        ({"custom_amount": "true", "amount": None}, "parameter_invalid", "custom_amount"),
        ({"max_payments": 0}, "parameter_invalid", "max_payments"),
        ({"max_payments": "3"}, "parameter_invalid", "max_payments"),
        ({"max_payments": 2.0}, "parameter_invalid", "max_payments"),
        ({"max_payments": 2**40}, "parameter_invalid", "max_payments"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, "parameter_invalid", "expires_at"),
        ({"expires_at": "2030-01-01T00:00:00"}, "parameter_invalid", "expires_at"),  # no offset
        ({"expires_at": "2030-02-30T00:00:00Z"}, "parameter_invalid", "expires_at"),
        ({"expires_at": "9999-12-31T23:59:59-14:00"}, "parameter_invalid", "expires_at"),
        ({"expires_at": 1893456000}, "parameter_invalid", "expires_at"),
        ({"success_url": "ftp://shop.example.cd"}, "url_invalid", "success_url"),
        ({"success_url": "/merci"}, "url_invalid", "success_url"),
        ({"metadata": {"k": 1}}, "parameter_invalid", "metadata"),
        ({"metadata": {f"k{i}": "v" for i in range(51)}}, "parameter_invalid", "metadata"),
        ({"metadata": ["a"]}, "parameter_invalid", "metadata"),
        ({"active": False}, "parameter_unknown", "active"),
        ({"slug": "mine"}, "parameter_unknown", "slug"),
    ],
)
def test_bad_input_is_refused_in_the_contract_shape(api, fields, code, param):
    response = create(api, **fields)
    assert_error(response, 400, "invalid_request_error", code)
    assert response.json()["error"]["param"] == param
    assert not PaymentLink.objects.exists()


def test_usd_cents_need_card(api, merchant):
    assert create(api, amount=1999, currency="USD").status_code == 201  # card takes cents
    merchant.card_rail_enabled = False
    merchant.save(update_fields=["card_rail_enabled"])
    assert_error(
        create(api, amount=1999, currency="USD"), 400, "invalid_request_error", "amount_invalid"
    )


def test_fixed_amount_outside_every_networks_limits_is_refused(api, settings):
    settings.NETWORK_LIMITS = {
        network: {"CDF": (10000, 500000), "USD": (100, 100000)}
        for network in settings.MOBILE_MONEY_NETWORKS
    }
    response = create(api, amount=600000)
    assert_error(response, 400, "invalid_request_error", "amount_invalid")
    assert (
        "5 000,00 CDF" in response.json()["error"]["message"]
        or "5,000.00 CDF" in (response.json()["error"]["message"])
    )
    assert create(api, amount=500000).status_code == 201


def test_live_link_needs_live_approval(live_api, merchant):
    assert_error(create(live_api), 403, "permission_error", "live_mode_not_approved")
    merchant.live_approved = True
    merchant.save(update_fields=["live_approved"])
    body = create(live_api, success_url="https://shop.example.cd/ok").json()
    assert body["livemode"] is True
    assert_error(
        create(live_api, success_url="http://shop.example.cd/ok"),
        400,
        "invalid_request_error",
        "url_invalid",
    )


def test_creation_is_idempotent(api):
    headers = {"HTTP_IDEMPOTENCY_KEY": "link-42"}
    first = api.post("/v1/payment_links", BASE, format="json", **headers)
    again = api.post("/v1/payment_links", BASE, format="json", **headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert PaymentLink.objects.count() == 1
    other = api.post("/v1/payment_links", {**BASE, "amount": 500000}, format="json", **headers)
    assert_error(other, 400, "idempotency_error", "idempotency_key_reused")


def test_deactivate_and_reactivate_only(api):
    link = create(api).json()
    response = api.post(f"/v1/payment_links/{link['id']}", {"active": False}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {**link, "active": False}
    assert (
        api.post(f"/v1/payment_links/{link['id']}", {"active": True}, format="json").json()[
            "active"
        ]
        is True
    )
    for body, code in (
        ({"amount": 500000}, "parameter_unknown"),
        ({"active": "false"}, "parameter_invalid"),
        ({"active": None}, "parameter_invalid"),
        ({}, "parameter_missing"),
    ):
        response = api.post(f"/v1/payment_links/{link['id']}", body, format="json")
        assert_error(response, 400, "invalid_request_error", code)
    assert api.get(f"/v1/payment_links/{link['id']}").json() == link


def test_another_merchants_or_modes_link_is_missing(api, live_api, merchant):
    link = create(api).json()
    other = api_client(merchant_with_keys().test_key.plaintext)
    merchant.live_approved = True
    merchant.save(update_fields=["live_approved"])
    for client in (other, live_api):
        assert_error(
            client.get(f"/v1/payment_links/{link['id']}"),
            404,
            "invalid_request_error",
            "resource_missing",
        )
        for body in ({"active": False}, {"amount": 1}):
            response = client.post(f"/v1/payment_links/{link['id']}", body, format="json")
            assert_error(response, 404, "invalid_request_error", "resource_missing")
        assert client.get("/v1/payment_links").json()["data"] == []
    assert PaymentLink.objects.get(pk=link["id"]).active is True


def test_list_is_newest_first_paged_and_filtered_by_active(api):
    ids = [create(api, description=f"Article {i}").json()["id"] for i in range(3)]
    api.post(f"/v1/payment_links/{ids[0]}", {"active": False}, format="json")
    body = api.get("/v1/payment_links?limit=2").json()
    assert body["object"] == "list" and body["url"] == "/v1/payment_links"
    assert [link["id"] for link in body["data"]] == ids[::-1][:2]
    assert body["has_more"] is True and (body["limit"], body["offset"]) == (2, 0)
    after = api.get(f"/v1/payment_links?starting_after={ids[1]}").json()
    assert [link["id"] for link in after["data"]] == [ids[0]]
    assert [link["id"] for link in api.get("/v1/payment_links?active=false").json()["data"]] == [
        ids[0]
    ]
    assert [link["id"] for link in api.get("/v1/payment_links?active=true").json()["data"]] == ids[
        :0:-1
    ]
    for query in ("active=yes", "active=1", "limit=0", "offset=-1", "status=open"):
        response = api.get(f"/v1/payment_links?{query}")
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] in ("parameter_invalid", "parameter_unknown")


def test_starting_after_keeps_working_when_the_cursor_link_was_deactivated(api, live_api):
    ids = [create(api, description=f"Article {i}").json()["id"] for i in range(3)]
    page = api.get("/v1/payment_links?active=true&limit=1").json()["data"]
    assert [link["id"] for link in page] == [ids[2]]
    api.post(f"/v1/payment_links/{ids[2]}", {"active": False}, format="json")
    after = api.get(f"/v1/payment_links?active=true&starting_after={ids[2]}")
    assert after.status_code == 200, after.content
    assert [link["id"] for link in after.json()["data"]] == [ids[1], ids[0]]
    # still only the caller's links of this mode
    response = live_api.get(f"/v1/payment_links?starting_after={ids[1]}")
    assert_error(response, 400, "invalid_request_error", "parameter_invalid")
