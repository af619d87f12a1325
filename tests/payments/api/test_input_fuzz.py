"""No input produces a 5xx: random bodies and query strings through every endpoint.

The endpoints are read from the URL resolver, so a new /v1 view or provider callback is fuzzed
without touching this file: every DRF view under /v1/ (GET and POST, with a valid test key) and
every route under /providers/ and /card/. Hypothesis is derandomized with a bounded number of
examples, so a run is deterministic and short.
"""

import json
import logging
from urllib.parse import quote, urlencode

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db

ERROR_TYPES = {
    "invalid_request_error",
    "idempotency_error",
    "authentication_error",
    "permission_error",
    "rate_limit_error",
}
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _routes(patterns, prefix: str = ""):
    """(route, callback) of every URL pattern, includes flattened."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def _api_endpoints() -> list[tuple[str, str]]:
    found = []
    for route, callback in _routes(get_resolver().url_patterns):
        view_class = getattr(callback, "view_class", None)
        if not route.startswith("v1/") or view_class is None:
            continue
        if view_class.__module__.startswith("drf_spectacular"):
            continue  # the API's own description: no input of the caller's
        found += [(method, route) for method in ("get", "post") if hasattr(view_class, method)]
    return sorted(set(found))


def _callback_endpoints() -> list[str]:
    return sorted(
        route
        for route, _ in _routes(get_resolver().url_patterns)
        if route.startswith(("providers/", "card/"))
    )


API_ENDPOINTS = _api_endpoints()
CALLBACK_ENDPOINTS = _callback_endpoints()

# --- What is sent ---------------------------------------------------------------------------

VALID = {
    "amount": 250000,
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
    "payment_method": "mobile_money",
    "success_url": "https://shop.example.cd/ok",
    "cancel_url": "https://shop.example.cd/cancel",
    "url": "https://shop.example.cd/hooks",
    "reason": "requested_by_customer",
    "expires_in": 3600,
    "metadata": {"order": "42"},
    "transaction": {"id": "ch_000000000000000000000000", "status": "TS"},
    "partnerTransactionId": "ch_000000000000000000000000",
}
FIELDS = [
    *VALID,
    "description",
    "callback_url",
    "return_url",
    "customer_phone",
    "customer_email",
    "notif_token",
    "hash",
    "status",
]
HUGE_NUMBERS = [2**31, 2**63, -(2**63) - 1, 10**30, 10**300, -(10**300), 1e308, -0.0, 1.5]
ODD_TEXT = [
    "",
    " ",
    "9999-12-31",
    "0001-01-01",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "2026-02-30",
    "99999999999999999999999999",
    "-1",
    "1e400",
    "NaN",
    "\u202eevil",
    "💸" * 40,
    "é" * 600,
    "x" * 5000,
    "+243812345678",
    "ch_000000000000000000000000",
    "https://shop.example.cd/" + "a" * 3000,
    "http://[::1/x",
    "https://[",
    "http://shop.example.cd:99999/hooks",
    "http://2852039166/",
    "http://a.b.c.123/",
]
HOSTILE_RAW = [
    "",
    "null",
    "[]",
    "{",
    '{"amount": NaN}',
    '{"amount": Infinity, "currency": "CDF"}',
    '{"amount": -Infinity}',
    '{"amount": 1e400}',
    '{"amount": ' + "9" * 5000 + "}",
    '{"metadata": {"a": "\\ud800"}}',
    '{"description": "\\u0000"}',
    '{"transaction": {"id": "\\u0000"}}',
    '{"a": 1, "a": 2}',
    '{"amount": 250000}garbage',
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(HUGE_NUMBERS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(ODD_TEXT),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=12), json_values, max_size=6)
near_valid = st.builds(
    lambda keys, overrides: {**{key: VALID[key] for key in keys}, **overrides},
    st.sets(st.sampled_from(list(VALID))),
    objects,
)
deep = st.tuples(st.integers(33, 150_000), st.sampled_from(["[]", "{}", "open"])).map(
    lambda spec: (
        "[" * spec[0] + "]" * spec[0]
        if spec[1] == "[]"
        else '{"a":' * spec[0] + "1" + "}" * spec[0]
        if spec[1] == "{}"
        else '{"transaction": ' + "[" * spec[0]
    )
)
bodies = st.one_of(
    near_valid.map(json.dumps),
    json_values.map(json.dumps),
    deep,
    st.sampled_from(HOSTILE_RAW),
).map(lambda text: text.encode("utf-8", "surrogatepass")) | st.binary(max_size=64)
content_types = st.sampled_from(
    ["application/json"] * 6
    + ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"]
)

QUERY_NAMES = [
    "limit",
    "offset",
    "starting_after",
    "status",
    "network",
    "payment_method",
    "date_from",
    "date_to",
    "type",
    "notif_token",
]
query_values = st.one_of(
    st.text(max_size=30),
    st.sampled_from(ODD_TEXT),
    st.integers().map(str),
    st.sampled_from(HUGE_NUMBERS).map(str),
)
queries = st.dictionaries(
    st.sampled_from(QUERY_NAMES) | st.text(min_size=1, max_size=8), query_values, max_size=4
).map(urlencode)


@pytest.fixture
def world(api, settings, merchant_keys):
    """Objects for the path parameters, a rate limit out of the way, callbacks configured."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api_key": "1000000/s"},
    }
    settings.ORANGE_NOTIF_TOKEN = "orange-token"
    charge = api.post(
        "/v1/charges",
        {key: VALID[key] for key in ("amount", "currency", "phone", "network")},
        format="json",
    )
    session = api.post(
        "/v1/checkout/sessions",
        {key: VALID[key] for key in ("amount", "currency", "success_url", "cancel_url")},
        format="json",
    )
    assert charge.status_code == session.status_code == 201
    return [charge.json()["id"], session.json()["id"], "re_000000000000000000000000"]


def path_for(route: str, data, ids: list[str]) -> str:
    """The route with each `<converter:name>` replaced by a real id or by random text."""
    parts = route.split("<")
    path = parts[0]
    for part in parts[1:]:
        _, rest = part.split(">", 1)
        value = data.draw(st.sampled_from(ids) | st.text(min_size=1, max_size=30), label="id")
        path += quote(value, safe="") + rest
    return "/" + path


def assert_envelope(response, *, callback: bool = False) -> None:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    # A callback's refusal also says `"received": false`; one refused before any view (a body
    # too large, a NUL in the URL) is the plain envelope.
    assert set(body) in ([{"error"}, {"received", "error"}] if callback else [{"error"}]), body
    assert body.get("received", False) is False
    error = body["error"]
    assert set(error) == {"type", "code", "message", "param", "request_id"}, error
    assert error["type"] in ERROR_TYPES, error
    assert error["code"] and isinstance(error["code"], str) and error["message"]
    assert error["request_id"] == response["Request-Id"]


def assert_quiet(caplog) -> None:
    """Refused input is a warning line at most: no error, no traceback."""
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not loud, [r.getMessage()[:300] for r in loud]


def send(client, method: str, path: str, data):
    query = data.draw(queries, label="query")
    url = f"{path}?{query}" if query else path
    if method == "get":
        return client.get(url)
    extra = {}
    if data.draw(st.booleans(), label="with key"):
        extra["HTTP_IDEMPOTENCY_KEY"] = (
            data.draw(st.text(max_size=20), label="key")
            .encode("utf-8", "surrogatepass")
            .decode("latin-1")
        )
    return client.post(
        url,
        data.draw(bodies, label="body"),
        content_type=data.draw(content_types, label="content type"),
        **extra,
    )


def test_every_endpoint_is_found():
    """The resolver walk finds the API and the callbacks (so the fuzzing below is not empty)."""
    assert ("post", "v1/charges") in API_ENDPOINTS
    assert ("get", "v1/charges/<str:charge_id>") in API_ENDPOINTS
    assert ("post", "v1/checkout/sessions") in API_ENDPOINTS
    assert {"providers/airtel_money/callback", "card/notify"} <= set(CALLBACK_ENDPOINTS)


@pytest.mark.parametrize("method, route", API_ENDPOINTS, ids=[f"{m} {r}" for m, r in API_ENDPOINTS])
@FUZZ
@given(data=st.data())
def test_no_input_makes_a_5xx_on_the_api(api, world, caplog, method, route, data):
    path = path_for(route, data, world)
    response = send(api, method, path, data)
    assert response.status_code < 500, response.content[:500]
    if response.status_code >= 400:
        assert_envelope(response)
    assert_quiet(caplog)


@pytest.mark.parametrize("route", CALLBACK_ENDPOINTS)
@FUZZ
@given(data=st.data())
def test_no_input_makes_a_5xx_on_a_provider_callback(client, world, caplog, route, data):
    path = path_for(route, data, world)
    if route.startswith("providers/orange") and data.draw(st.booleans(), label="token"):
        path += "?notif_token=orange-token"
        response = client.post(
            path, data.draw(bodies, label="body"), content_type="application/json"
        )
    else:
        response = send(client, "post", path, data)
    assert response.status_code < 500, response.content[:500]
    if response.status_code >= 400 and (
        route != "card/receipt" or response.status_code == 413  # else the browser's HTML page
    ):
        assert_envelope(response, callback=True)
    assert_quiet(caplog)
