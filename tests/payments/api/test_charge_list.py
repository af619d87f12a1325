"""GET /v1/charges/{id}, GET /v1/transactions/{id} and GET /v1/charges."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, transaction
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.api.pagination import paginate
from payments import selectors
from payments.models import Charge
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import make_charge, merchant_with_keys
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 20, 23, 30, tzinfo=UTC)


def ids(response):
    assert response.status_code == 200, response.content
    return [c["id"] for c in response.json()["data"]]


# --- retrieve ---------------------------------------------------------------------------------


@pytest.mark.parametrize("payment_method", ["mobile_money", "card"])
def test_charge_and_transaction_are_the_same_object(api, merchant, payment_method):
    charge = make_charge(merchant, payment_method=payment_method, amount=1999 * 100)
    by_charge = api.get(f"/v1/charges/{charge.id}")
    by_transaction = api.get(f"/v1/transactions/{charge.id}")
    assert by_charge.status_code == by_transaction.status_code == 200
    assert by_charge.json() == by_transaction.json()
    body = by_charge.json()
    assert body["id"] == charge.id and body["object"] == "charge" and body["livemode"] is False
    assert body["payment_method"] == payment_method
    assert {"amount_refunded", "failure_code", "failure_message", "checkout_session"} <= set(body)
    assert ("next_action" in body) == (payment_method == "card")
    assert ("phone" in body) == (payment_method == "mobile_money")


def test_final_charge_has_no_next_action_and_carries_its_failure(api, merchant):
    charge = make_charge(merchant, payment_method="card", status="failed")
    body = api.get(f"/v1/transactions/{charge.id}").json()
    assert body["status"] == "failed" and "next_action" not in body
    assert body["failure_code"] == "provider_error"


@pytest.mark.parametrize("path", ["/v1/charges/", "/v1/transactions/"])
def test_other_merchant_or_unknown_is_resource_missing(api, path):
    theirs = make_charge(merchant_with_keys(name="Autre").merchant)
    for charge_id in (theirs.id, "ch_doesnotexist000000000000", "nothing"):
        response = api.get(path + charge_id)
        assert_error(response, 404, "invalid_request_error", "resource_missing")
        assert charge_id in response.json()["error"]["message"]


def test_the_other_mode_is_resource_missing(api, live_api, merchant):
    test_charge = make_charge(merchant)
    assert_error(
        live_api.get(f"/v1/charges/{test_charge.id}"),
        404,
        "invalid_request_error",
        "resource_missing",
    )
    assert_error(
        live_api.get(f"/v1/transactions/{test_charge.id}"),
        404,
        "invalid_request_error",
        "resource_missing",
    )
    assert live_api.get("/v1/charges").json()["data"] == []
    assert ids(api.get("/v1/charges")) == [test_charge.id]


# --- envelope, limit, offset, order -----------------------------------------------------------


def test_list_envelope_is_exactly_the_contract(api, merchant):
    charges = [make_charge(merchant, at=T0 + timedelta(minutes=i)) for i in range(12)]
    body = api.get("/v1/charges").json()
    assert set(body) == {"object", "url", "data", "has_more", "limit", "offset"}
    assert body["object"] == "list" and body["url"] == "/v1/charges"
    assert body["limit"] == 10 and body["offset"] == 0 and body["has_more"] is True
    assert [c["id"] for c in body["data"]] == [c.id for c in reversed(charges)][:10]
    assert body["data"][0] == api.get(f"/v1/charges/{charges[-1].id}").json()
    last = api.get("/v1/charges?offset=10").json()
    assert [c["id"] for c in last["data"]] == [charges[1].id, charges[0].id]
    assert last["has_more"] is False and last["offset"] == 10
    exact = api.get("/v1/charges?limit=12").json()
    assert len(exact["data"]) == 12 and exact["has_more"] is False


def test_empty_list(api):
    body = api.get("/v1/charges").json()
    assert body == {
        "object": "list",
        "url": "/v1/charges",
        "data": [],
        "has_more": False,
        "limit": 10,
        "offset": 0,
    }


def test_newest_first_with_id_as_tie_breaker(api, merchant):
    same_instant = [make_charge(merchant, at=T0) for _ in range(5)]
    older = make_charge(merchant, at=T0 - timedelta(seconds=1))
    newer = make_charge(merchant, at=T0 + timedelta(microseconds=1))
    expected = [newer.id, *sorted((c.id for c in same_instant), reverse=True), older.id]
    assert ids(api.get("/v1/charges")) == expected
    paged = []
    for offset in range(0, 7, 2):
        paged += ids(api.get(f"/v1/charges?limit=2&offset={offset}"))
    assert paged == expected


@pytest.mark.parametrize("limit", ["1", "100", "010"])
def test_limit_in_range(api, merchant, limit):
    assert api.get(f"/v1/charges?limit={limit}").json()["limit"] == int(limit)


@pytest.mark.parametrize(
    "query, param",
    [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=-1", "limit"),
        ("limit=ten", "limit"),
        ("limit=1.5", "limit"),
        ("limit=1e2", "limit"),
        ("limit=%EF%BC%95", "limit"),  # a full-width digit
        ("limit=+5", "limit"),
        ("offset=-1", "offset"),
        ("offset=x", "offset"),
        ("offset=2.0", "offset"),
        ("offset=99999999999999999999999999999", "offset"),
        ("status=refunded", "status"),
        ("status=PENDING", "status"),
        ("status=", "status"),
        ("network=MPESA", "network"),
        ("network=vodacom_mpesa", "network"),
        ("payment_method=bank", "payment_method"),
        ("colour=blue", "colour"),
        ("status=failed&status=succeeded", "status"),
        ("limit=10&limit=20", "limit"),
        ("starting_after=ch_a&starting_after=ch_b", "starting_after"),
    ],
)
def test_bad_list_parameters_are_400(api, merchant, query, param):
    response = api.get(f"/v1/charges?{query}")
    code = "parameter_unknown" if param == "colour" else "parameter_invalid"
    assert_error(response, 400, "invalid_request_error", code)
    assert response.json()["error"]["param"] == param


@pytest.mark.parametrize(
    "path",
    [
        "/v1/refunds",
        "/v1/payouts",
        "/v1/balance_transactions",
        "/v1/balance_transactions/export",
        "/v1/checkout/sessions",
        "/v1/events",
        "/v1/networks",
    ],
)
def test_every_list_refuses_a_parameter_given_twice(api, path):
    response = api.get(f"{path}?limit=5&limit=6", HTTP_ACCEPT_LANGUAGE="fr")
    assert_error(response, 400, "invalid_request_error", "parameter_invalid")
    assert response.json()["error"]["param"] == "limit"
    assert "donné plus d’une fois" in response.json()["error"]["message"]


def test_filters_take_the_enumerated_values(api, merchant):
    vodacom = make_charge(merchant, status="succeeded")
    airtel = make_charge(merchant, phone="+243971234567", network="AIRTEL_MONEY", status="declined")
    orange = make_charge(merchant, phone="+243841234567", network="ORANGE_MONEY")
    card = make_charge(merchant, payment_method="card", status="failed")
    assert ids(api.get("/v1/charges?status=succeeded")) == [vodacom.id]
    assert ids(api.get("/v1/charges?status=declined")) == [airtel.id]
    assert ids(api.get("/v1/charges?status=failed")) == [card.id]
    assert ids(api.get("/v1/charges?status=pending")) == [orange.id]
    assert ids(api.get("/v1/charges?network=AIRTEL_MONEY")) == [airtel.id]
    assert ids(api.get("/v1/charges?network=ORANGE_MONEY&status=pending")) == [orange.id]
    assert ids(api.get("/v1/charges?network=ORANGE_MONEY&status=succeeded")) == []
    assert ids(api.get("/v1/charges?payment_method=card")) == [card.id]


# --- dates ------------------------------------------------------------------------------------


@pytest.fixture
def around_midnight(merchant):
    """Charges at 2026-11-20 23:59:59.999999Z, 2026-11-21 00:00Z, 12:00Z, 23:59:59.999999Z and
    2026-11-22 00:00Z."""
    day = datetime(2026, 11, 21, tzinfo=UTC)
    moments = {
        "before": day - timedelta(microseconds=1),
        "start": day,
        "noon": day + timedelta(hours=12),
        "end": day + timedelta(days=1) - timedelta(microseconds=1),
        "next": day + timedelta(days=1),
    }
    return {name: make_charge(merchant, at=moment).id for name, moment in moments.items()}


def listed(api, query, charges):
    found = set(ids(api.get(f"/v1/charges?limit=100&{query}")))
    return {name for name, charge_id in charges.items() if charge_id in found}


@pytest.mark.parametrize(
    "query, expected",
    [
        ("date_from=2026-11-21", {"start", "noon", "end", "next"}),
        ("date_to=2026-11-21", {"before", "start", "noon", "end"}),
        ("date_from=2026-11-21&date_to=2026-11-21", {"start", "noon", "end"}),
        ("date_from=2026-11-21T12:00:00Z", {"noon", "end", "next"}),
        ("date_to=2026-11-21T12:00:00Z", {"before", "start"}),
        ("date_from=2026-11-21T12:00:00Z&date_to=2026-11-22T00:00:00Z", {"noon", "end"}),
        ("date_from=2026-11-21T13:00:00%2B01:00", {"noon", "end", "next"}),
        ("date_to=2026-11-21T13:00:00%2B01:00", {"before", "start"}),
        ("date_from=2026-11-21T00:00:00.000001Z", {"noon", "end", "next"}),
        ("date_to=2026-11-22T00:00:00-00:00", {"before", "start", "noon", "end"}),
        ("date_from=2026-11-22&date_to=2026-11-21", set()),
    ],
)
def test_date_bounds(api, around_midnight, query, expected):
    assert listed(api, query, around_midnight) == expected


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-21T12:00:00",  # naive
        "2026-11-21 12:00",  # naive
        "21/11/2026",
        "2026-13-01",
        "2026-02-30",
        "2026-11-21T25:00:00Z",
        "yesterday",
        "20261121",
        "1700000000",
        "2026-11",
    ],
)
@pytest.mark.parametrize("param", ["date_from", "date_to"])
def test_bad_dates_are_400(api, param, value):
    response = api.get("/v1/charges", {param: value})
    assert_error(response, 400, "invalid_request_error", "parameter_invalid")
    error = response.json()["error"]
    assert error["param"] == param and "YYYY-MM-DD" in error["message"]


# --- keyset pagination ------------------------------------------------------------------------


def test_starting_after_walks_every_charge_once(api, merchant):
    charges = [make_charge(merchant, at=T0 + timedelta(seconds=i // 3)) for i in range(9)]
    expected = ids(api.get("/v1/charges?limit=100"))
    assert sorted(expected) == sorted(c.id for c in charges)
    walked, cursor = [], None
    while True:
        query = "limit=2" + (f"&starting_after={cursor}" if cursor else "")
        body = api.get(f"/v1/charges?{query}").json()
        walked += [c["id"] for c in body["data"]]
        if not body["has_more"]:
            break
        cursor = body["data"][-1]["id"]
    assert walked == expected


def test_starting_after_keeps_working_when_the_cursor_left_the_filter(api, merchant):
    a = make_charge(merchant, at=T0)
    b = make_charge(merchant, at=T0 + timedelta(seconds=1))
    c = make_charge(merchant, at=T0 + timedelta(seconds=2))
    assert ids(api.get("/v1/charges?status=pending&limit=1")) == [c.id]
    charges.charge_apply_outcome(charge_id=c.id, outcome=ProviderOutcome(status="succeeded"))
    assert ids(api.get(f"/v1/charges?status=pending&starting_after={c.id}")) == [b.id, a.id]


def test_starting_after_rules(api, merchant):
    mine = make_charge(merchant)
    theirs = make_charge(merchant_with_keys(name="Autre").merchant)
    for cursor in ("ch_unknown", theirs.id):
        response = api.get(f"/v1/charges?starting_after={cursor}")
        assert_error(response, 400, "invalid_request_error", "parameter_invalid")
        assert response.json()["error"]["param"] == "starting_after"
    response = api.get(f"/v1/charges?starting_after={mine.id}&offset=1")
    assert_error(response, 400, "invalid_request_error", "parameter_invalid")
    assert response.json()["error"]["param"] == "offset"
    assert ids(api.get(f"/v1/charges?starting_after={mine.id}&offset=0")) == []


# --- cost -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["", "status=pending&network=VODACOM_MPESA&date_from=2026-01-01&date_to=2027-01-01"],
)
def test_one_query_per_page_whatever_its_size(api, merchant, django_assert_num_queries, query):
    for i in range(30):
        make_charge(
            merchant,
            at=T0 + timedelta(seconds=i),
            **({"payment_method": "card"} if i % 3 == 0 else {}),
        )
    api.get("/v1/charges")  # the key's last_used_at is written once a minute, not per request
    cursor = ids(api.get("/v1/charges?limit=1"))[0]
    # The key comes from the key cache (no query once read); 1 query reads the page.
    for limit in (1, 10, 100):
        with django_assert_num_queries(1):
            response = api.get(f"/v1/charges?limit={limit}&{query}")
        assert response.status_code == 200
    # + 1 to resolve starting_after.
    for limit in (1, 100):
        with django_assert_num_queries(2):
            response = api.get(f"/v1/charges?limit={limit}&starting_after={cursor}&{query}")
        assert response.status_code == 200


@pytest.mark.postgres
@pytest.mark.parametrize(
    "filters, index",
    [
        ({}, "charge_list_idx"),
        ({"date_from": "2026-11-01", "date_to": "2026-11-21"}, "charge_list_idx"),
        ({"status": "pending"}, "charge_list_status_idx"),
        ({"status": "pending", "date_from": "2026-11-01"}, "charge_list_status_idx"),
        ({"network": "AIRTEL_MONEY"}, "charge_list_network_idx"),
    ],
)
@pytest.mark.books_unchecked  # thousands of charges written straight into the table, for the planner
def test_first_page_is_read_from_an_index_in_order(merchant, filters, index):
    """On a table shaped like production (many merchants, mostly settled charges), the planner
    reads a filtered page (the first, or one after a cursor) from the matching list index, both
    planned for the request's values and with the generic plan of the prepared statement, already
    in (created_at desc, id desc) order: no Sort node, so the cost does not grow with the table.
    Sequential and bitmap scans are priced out because a test table is still small enough to
    favour them."""
    other = merchant_with_keys(name="Autre").merchant
    networks = ["VODACOM_MPESA", "AIRTEL_MONEY", "ORANGE_MONEY"]
    Charge.objects.bulk_create(
        Charge(
            merchant=merchant if i % 4 == 0 else other,
            livemode=i % 7 == 0,
            amount=5000,
            currency="CDF",
            phone="+243812345678",
            network=networks[i % 3],
            status="pending" if i % 50 == 0 else "succeeded",
            created_at=T0 - timedelta(minutes=i),
        )
        for i in range(3000)
    )
    statements = []

    def seen(execute, sql, params, many, context):
        statements.append((sql, params))
        return execute(sql, params, many, context)

    middle = Charge.objects.filter(merchant=merchant, livemode=False).order_by("id")[40]
    with connection.execute_wrapper(seen):  # the page's own statements, as the list runs them
        for after in (None, middle.id):  # the first page, and a next one
            query = {"limit": "10", **({"starting_after": after} if after else {})}
            paginate(
                Request(APIRequestFactory().get("/v1/charges", query)),
                selectors.charge_list(merchant=merchant, livemode=False, query=filters),
                list,
                cursor_scope=selectors.charges_of(merchant=merchant, livemode=False),
            )
    statements = [(sql, params) for sql, params in statements if "LIMIT 11" in sql]
    assert len(statements) == 2  # the pages, without the cursor's own lookup
    with connection.cursor() as cursor:
        for method in ("seqscan", "bitmapscan"):
            cursor.execute(f"SET LOCAL enable_{method} = off")
        cursor.execute("ANALYZE payments_charge")
        for number, (sql, params) in enumerate(statements):
            cursor.execute(f"EXPLAIN {sql}", params)  # planned for these values
            plans = ["\n".join(row[0] for row in cursor.fetchall())]
            # and the generic plan PostgreSQL may keep for a prepared statement after 5 runs
            numbered = sql.replace("%s", "{}").format(*(f"${n + 1}" for n in range(len(params))))
            cursor.execute(f"PREPARE page_{number} AS {numbered}")
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            cursor.execute(
                f"EXPLAIN EXECUTE page_{number}({', '.join(['%s'] * len(params))})", params
            )
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
            cursor.execute(f"DEALLOCATE page_{number}")
            cursor.execute("SET LOCAL plan_cache_mode = auto")
            for plan in plans:
                assert index in plan, plan
                assert "Sort" not in plan, plan


@pytest.mark.postgres
def test_charges_keep_only_the_indexes_a_query_uses():
    """Every new charge writes each index of the table: the merchant's own index (a prefix of
    the list indexes) and the LIKE copies of the id columns are gone (migration 0013), and only
    the charges that have a checkout session are in its index (migration 0017)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'payments_charge'")
        names = {name for (name,) in cursor.fetchall()}
    assert names == {
        "payments_charge_pkey",
        "charge_list_idx",
        "charge_list_status_idx",
        "charge_list_network_idx",
        "charge_check_due_idx",
        "charge_unsent_idx",
        "charge_reconcile_due_idx",
        "charge_mm_finalized_idx",
        "charge_checkout_session_idx",  # a session's charges
        "charge_search_phone_idx",  # the dashboard's search by phone number
        "charge_search_reference_idx",  # … by operator reference
        "charge_search_description_idx",  # … by words of the description (trigrams)
    }


@pytest.mark.postgres
def test_a_sessions_charges_are_found_through_the_index_of_charges_that_have_one():
    """The index holds only charges that have a session, and answers a lookup by session."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_indexdef('charge_checkout_session_idx'::regclass)")
        assert cursor.fetchone()[0].endswith("WHERE (checkout_session_id IS NOT NULL)")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(
            "EXPLAIN SELECT id FROM payments_charge WHERE checkout_session_id = %s", ["cs_x"]
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "charge_checkout_session_idx" in plan, plan
