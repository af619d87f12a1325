"""GET /v1/events and GET /v1/events/{id}."""

import pytest

from tests.factories import record_event, settled_charge

pytestmark = pytest.mark.django_db


def test_list_and_filter_by_type(api, merchant):
    succeeded = settled_charge(merchant)
    settled_charge(merchant, status="failed")
    body = api.get("/v1/events").json()
    assert (body["object"], body["url"], body["limit"], body["has_more"]) == (
        "list", "/v1/events", 10, False,
    )  # fmt: skip
    assert [e["type"] for e in body["data"]] == ["charge.failed", "charge.succeeded"]
    only = api.get("/v1/events", {"type": "charge.succeeded"}).json()["data"]
    assert [e["data"]["object"]["id"] for e in only] == [succeeded.id]
    assert list(only[0]) == ["id", "object", "type", "livemode", "created_at", "data"]
    paged = api.get("/v1/events", {"limit": 1}).json()
    assert paged["has_more"] is True and len(paged["data"]) == 1


def test_starting_after_may_be_an_event_of_another_type(api, live_api, merchant):
    succeeded = record_event(merchant, type="charge.succeeded")
    failed = record_event(merchant, type="charge.failed")
    after = api.get("/v1/events", {"type": "charge.succeeded", "starting_after": failed.id})
    assert after.status_code == 200, after.content
    assert [e["id"] for e in after.json()["data"]] == [succeeded.id]
    # still only the caller's events of this mode
    response = live_api.get("/v1/events", {"starting_after": failed.id})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "starting_after"


@pytest.mark.parametrize("params", [{"type": "charge.exploded"}, {"limit": "0"}, {"sort": "asc"}])
def test_bad_query_is_refused(api, params):
    response = api.get("/v1/events", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["code"] in ("parameter_invalid", "parameter_unknown")
    assert error["param"] == next(iter(params))


def test_retrieve(api, merchant):
    event = record_event(merchant)
    body = api.get(f"/v1/events/{event.id}").json()
    assert body == {
        "id": event.id,
        "object": "event",
        "type": "charge.succeeded",
        "livemode": False,
        "created_at": body["created_at"],
        "data": {"object": {"id": "ch_test", "object": "charge", "livemode": False}},
    }


def test_other_mode_and_other_merchant_are_missing(api, live_api, merchant):
    from tests.factories import merchant_with_keys

    live_event = record_event(merchant, livemode=True)
    stranger = record_event(merchant_with_keys(name="Autre").merchant)
    for event_id in (live_event.id, stranger.id, "evt_nope"):
        response = api.get(f"/v1/events/{event_id}")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "resource_missing"
    assert live_api.get(f"/v1/events/{live_event.id}").status_code == 200
    assert [e["id"] for e in api.get("/v1/events").json()["data"]] == []
