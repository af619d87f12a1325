"""/v1/openapi.json describes every request and answer of /v1 as it is: named, typed schemas, the
errors each operation can answer, the Bearer scheme, readable operation ids, and examples that
are true. The bodies the API really sends are checked against it, strictly (no field left out)."""

import re
import uuid
from datetime import datetime

import pytest
from django.test import Client
from jsonschema import Draft7Validator, FormatChecker

from tests.factories import one_of_everything

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def document() -> dict:
    response = Client().get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def operations(document: dict):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def strict(node, *, open_objects: bool = False):
    """An OpenAPI 3.0 schema as JSON Schema: `nullable` as a null alternative and, unless
    `open_objects`, objects closed to fields they do not name."""
    if isinstance(node, list):
        return [strict(item, open_objects=open_objects) for item in node]
    if not isinstance(node, dict):
        return node
    node = {
        key: strict(value, open_objects=open_objects)
        for key, value in node.items()
        if key not in ("discriminator", "example")
    }
    if "properties" in node and "additionalProperties" not in node and not open_objects:
        node["additionalProperties"] = False
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


FORMATS = FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value) -> bool:
    """RFC 3339 with its offset, as the API writes it (2026-11-21T09:30:12.482913Z)."""
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
        raise ValueError(value)
    datetime.fromisoformat(value)
    return True


def validator(document: dict, schema: dict, *, open_objects: bool = False) -> Draft7Validator:
    root = {
        **strict(schema, open_objects=open_objects),
        "components": strict(document["components"], open_objects=open_objects),
    }
    return Draft7Validator(root, format_checker=FORMATS)


def response_schema(document: dict, path: str, method: str, status: int) -> dict:
    response = document["paths"][path][method]["responses"][str(status)]
    return response["content"]["application/json"]["schema"]


def assert_conforms(document: dict, path: str, method: str, response) -> None:
    """The body matches its schema, closed (no field left undescribed) and as published (open:
    a body must then still match exactly one schema of a oneOf)."""
    schema = response_schema(document, path, method, response.status_code)
    errors = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for open_objects in (False, True)
        for error in validator(document, schema, open_objects=open_objects).iter_errors(
            response.json()
        )
    ]
    assert errors == [], (method, path, response.status_code)


# --- The document ---------------------------------------------------------------------------


def test_every_operation_has_a_readable_id_a_tag_a_summary_and_the_bearer_scheme(document):
    assert document["components"]["securitySchemes"] == {
        "bearerAuth": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "sk_test_… or sk_live_…",
            "description": document["components"]["securitySchemes"]["bearerAuth"]["description"],
        }
    }
    ids = {}
    for path, method, operation in operations(document):
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", operation["operationId"]), operation["operationId"]
        assert not re.search(r"_\d+$", operation["operationId"])
        ids[(method.upper(), path)] = operation["operationId"]
        assert operation["security"] == [{"bearerAuth": []}], path
        assert operation["tags"] and operation["summary"] and operation["description"], path
    assert len(set(ids.values())) == len(ids)
    assert ids[("POST", "/v1/charges")] == "charges_create"
    assert ids[("GET", "/v1/charges")] == "charges_list"
    assert ids[("GET", "/v1/charges/{charge_id}")] == "charges_retrieve"
    assert ids[("POST", "/v1/charges/{charge_id}/refunds")] == "refunds_create"
    assert ids[("GET", "/v1/refunds")] == "refunds_list"
    assert ids[("GET", "/v1/checkout/sessions/{session_id}")] == "checkout_sessions_retrieve"


def test_every_answer_is_a_named_schema_and_every_error_status_is_documented(document):
    forbidden = {
        "403": {
            "POST /v1/charges",
            "POST /v1/payouts",
            "POST /v1/checkout/sessions",
            "POST /v1/payment_links",
            "POST /v1/payout_batches",
            "POST /v1/settlements",
        }
    }
    # A live key asks for test mode's inbox: 404 resource_missing (§23), no id in the path.
    not_found = {"GET /v1/test_helpers/messages"}
    for path, method, operation in operations(document):
        name = f"{method.upper()} {path}"
        statuses = set(operation["responses"])
        # 503 service_unavailable on any of them; 413, 414, 431, 502, 504 from the proxy
        expected = {"400", "401", "413", "414", "429", "431", "502", "503", "504"}
        expected |= {"404"} if "{" in path or name in not_found else set()
        expected |= {"409"} if method == "post" else set()
        expected |= {"403"} if name in forbidden["403"] else set()
        success = {s for s in statuses if s.startswith("2")}
        assert len(success) == 1 and statuses - success == expected, name
        for status, response in operation["responses"].items():
            assert response["description"] or status.startswith("2"), (name, status)
            ((media_type, content),) = response["content"].items()
            if status.startswith("2") and path.endswith("/export"):
                assert (media_type, content["schema"]) == ("text/csv", {"type": "string"})
                continue
            assert media_type == "application/json", name
            assert set(content["schema"]) == {"$ref"}, (name, status)
            if not status.startswith("2"):
                assert content["schema"]["$ref"] == "#/components/schemas/Error"
    schemas = document["components"]["schemas"]
    for expected in (
        "Charge",
        "ChargeCreated",
        "CardChargeCreated",
        "MobileMoneyChargeCreated",
        "Refund",
        "CheckoutSession",
        "Event",
        "Delivery",
        "Payout",
        "Balance",
        "BalanceTransaction",
        "ChargeList",
        "RefundList",
        "PayoutList",
        "BalanceTransactionList",
        "CheckoutSessionList",
        "EventList",
        "DeliveryList",
        "Error",
        "WebhookEndpoint",
        "Network",
        "NetworkList",
        "NetworkPrediction",
    ):
        assert expected in schemas, expected


def test_no_schema_is_left_untyped(document):
    """Every value has a type (or names a schema): no `{}`, no free-form object."""

    def check(schema, where):
        if "$ref" in schema:
            return
        for combinator in ("allOf", "oneOf", "anyOf"):
            if combinator in schema:
                for item in schema[combinator]:
                    check(item, where)
                return
        assert "type" in schema, (where, schema)
        if schema["type"] == "object":
            assert schema.get("properties") or isinstance(
                schema.get("additionalProperties"), dict
            ), where
            for name, prop in schema.get("properties", {}).items():
                check(prop, f"{where}.{name}")
            if isinstance(schema.get("additionalProperties"), dict):
                check(schema["additionalProperties"], f"{where}[*]")
        if schema["type"] == "array":
            check(schema["items"], f"{where}[]")

    for name, schema in document["components"]["schemas"].items():
        check(schema, name)
    for path, method, operation in operations(document):
        for parameter in operation.get("parameters", []):
            check(parameter["schema"], f"{method} {path} {parameter['name']}")


def test_requests_say_integer_object_and_enum_where_the_api_takes_them(document):
    schemas = document["components"]["schemas"]
    charge = schemas["ChargeCreateRequest"]["properties"]
    assert charge["amount"]["type"] == "integer" and charge["amount"]["minimum"] == 1
    assert charge["metadata"] == {"$ref": "#/components/schemas/Metadata"}
    assert schemas["Metadata"]["type"] == "object"
    assert schemas["Metadata"]["additionalProperties"]["type"] == "string"
    assert resolve(document, charge["currency"])["enum"] == ["CDF", "USD"]
    assert schemas["ChargeCreateRequest"]["required"] == ["amount", "currency"]
    session = schemas["CheckoutSessionCreateRequest"]["properties"]
    assert session["expires_in"]["type"] == "integer"
    assert (session["expires_in"]["minimum"], session["expires_in"]["maximum"]) == (1800, 86400)
    assert schemas["RefundCreateRequest"]["properties"]["amount"]["type"] == "integer"
    assert resolve(document, schemas["RefundCreateRequest"]["properties"]["reason"])["enum"] == [
        "duplicate",
        "fraudulent",
        "requested_by_customer",
    ]
    assert schemas["WebhookEndpointUpdateRequest"]["properties"]["url"]["nullable"] is True
    charges_list = {p["name"]: p for p in document["paths"]["/v1/charges"]["get"]["parameters"]}
    assert charges_list["limit"]["schema"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 10,
    }
    assert charges_list["offset"]["schema"]["type"] == "integer"
    assert charges_list["status"]["schema"]["enum"] == [
        "pending",
        "succeeded",
        "failed",
        "declined",
    ]
    post = document["paths"]["/v1/charges"]["post"]
    assert [p["name"] for p in post["parameters"]] == ["Idempotency-Key"]


def test_the_documented_idempotency_key_is_the_one_taken(document):
    """The header's schema says which keys the API takes, so a client (or a generator of
    requests) that follows it is never refused idempotency_key_invalid, and one it refuses is."""
    from core.api.idempotency import key_from_header

    schema = document["paths"]["/v1/charges"]["post"]["parameters"][0]["schema"]
    assert (schema["type"], schema["minLength"], schema["maxLength"]) == ("string", 1, 255)
    pattern = re.compile(schema["pattern"])

    def taken(key: str) -> bool:
        try:
            return key_from_header(key) == key
        except Exception:
            return False

    keys = [
        "a", "~", "order 42 / retry", str(uuid.uuid4()), "x" * 255, "!" + " " * 253 + "!",
        "", " ", " a", "a ", "x" * 256, "é", "a\tb", "a\x7fb", "a\nb", "a\x00",
    ]  # fmt: skip
    for key in keys:
        documented = bool(pattern.fullmatch(key)) and 1 <= len(key) <= 255
        # A value's leading and trailing spaces never reach the API over HTTP (they are not part
        # of a header's value), so the schema leaves them out; otherwise the two agree.
        assert documented == (taken(key) and key == key.strip(" ")), repr(key)


def test_descriptions_speak_to_merchants(document):
    def texts(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("description", "summary") and isinstance(value, str):
                    yield value
                else:
                    yield from texts(value)
        elif isinstance(node, list):
            for item in node:
                yield from texts(item)

    found = list(texts(document))
    assert len(found) > 100
    for text in found:
        assert not re.search(r"§|\bcontract\b|\bTODO\b|serializer|\bview\b", text, re.I), text


def test_every_object_carries_livemode(document):
    """Every resource carries `livemode` (docs/reference/api.md), also those only shown inside
    another answer (a batch's rows, an event's deliveries). Not a list, and not the network
    prediction, whose shape is {object, phone, network} (docs/guides/networks.md)."""
    missing, checked = [], []
    for name, schema in document["components"]["schemas"].items():
        kind = schema.get("properties", {}).get("object", {})
        kind = resolve(document, kind["allOf"][0]).get("enum") if "allOf" in kind else None
        if kind in (None, ["list"], ["network_prediction"]):
            continue
        checked.append(kind)
        if "livemode" not in schema["properties"] or "livemode" not in schema["required"]:
            missing.append(name)
    assert missing == [] and ["charge"] in checked and ["payout_batch_item"] in checked


def test_every_example_is_true_to_its_schema(document):
    checked = []
    for path, method, operation in operations(document):
        contents = [
            (status, media)
            for status, response in operation["responses"].items()
            for media in response.get("content", {}).values()
        ]
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        contents += [("request", body)] if body else []
        for status, media in contents:
            for name, example in media.get("examples", {}).items():
                validator(document, media["schema"]).validate(example["value"])
                checked.append((method, path, status, name))
    assert len(checked) > 40


# --- What the API really sends ----------------------------------------------------------------


@pytest.mark.django_db
def test_every_object_the_api_sends_is_as_described(document, api, merchant, receiver):
    made = one_of_everything(merchant, webhook_url=receiver.url("/hook"))

    def check(method: str, path: str, url: str, body=None, status: int = 200):
        response = api.get(url) if method == "get" else api.post(url, body, format="json")
        assert response.status_code == status, response.content
        assert_conforms(document, path, method, response)
        return response.json()

    charges = check("get", "/v1/charges", "/v1/charges?limit=100")["data"]
    assert {c["status"] for c in charges} == {"pending", "succeeded", "failed", "declined"}
    assert any("next_action" in c for c in charges) and any(c["checkout_session"] for c in charges)
    for charge in charges:
        check("get", "/v1/charges/{charge_id}", f"/v1/charges/{charge['id']}")
        check("get", "/v1/transactions/{charge_id}", f"/v1/transactions/{charge['id']}")
    paid = made["paid"].id
    check("get", "/v1/charges/{charge_id}/refunds", f"/v1/charges/{paid}/refunds")
    refunds = check("get", "/v1/refunds", "/v1/refunds")["data"]
    assert {r["reason"] for r in refunds} == {None, "requested_by_customer"}
    check("get", "/v1/refunds/{refund_id}", f"/v1/refunds/{made['refund'].id}")
    check("get", "/v1/payouts", "/v1/payouts")
    check("get", "/v1/payouts/{payout_id}", f"/v1/payouts/{made['payout'].id}")
    check("get", "/v1/balance", "/v1/balance")
    types = {
        t["type"]
        for t in check("get", "/v1/balance_transactions", "/v1/balance_transactions")["data"]
    }
    assert {"charge", "refund", "payout"} <= types
    sessions = check("get", "/v1/checkout/sessions", "/v1/checkout/sessions")["data"]
    assert {s["status"] for s in sessions} == {"open", "complete", "expired"}
    for session in sessions:
        check("get", "/v1/checkout/sessions/{session_id}", f"/v1/checkout/sessions/{session['id']}")
    events = check("get", "/v1/events", "/v1/events?limit=100")["data"]
    assert {e["data"]["object"]["object"] for e in events} == {
        "charge",
        "refund",
        "checkout.session",
    }
    for event in events:
        check("get", "/v1/events/{event_id}", f"/v1/events/{event['id']}")
        check("get", "/v1/events/{event_id}/deliveries", f"/v1/events/{event['id']}/deliveries")
    event = made["event"].id
    check("post", "/v1/events/{event_id}/resend", f"/v1/events/{event}/resend")
    check("get", "/v1/webhook_endpoint", "/v1/webhook_endpoint")
    networks = check("get", "/v1/networks", "/v1/networks")["data"]
    assert {n["network"] for n in networks} == {"AIRTEL_MONEY", "VODACOM_MPESA", "ORANGE_MONEY"}
    check("get", "/v1/networks/predict", "/v1/networks/predict?phone=0812345678")
    check("get", "/v1/networks/predict", "/v1/networks/predict?phone=+243870000000")
    check("get", "/v1/networks/predict", "/v1/networks/predict?phone=12", status=400)
    check("post", "/v1/webhook_endpoint", "/v1/webhook_endpoint", {"url": None})
    check("post", "/v1/webhook_endpoint/rotate_secret", "/v1/webhook_endpoint/rotate_secret")
    mobile_money = {
        "amount": 250000,
        "currency": "CDF",
        "phone": "+243812345678",
        "network": "VODACOM_MPESA",
    }
    check("post", "/v1/charges", "/v1/charges", mobile_money, 201)
    card = {"amount": 1999, "currency": "USD", "payment_method": "card"}
    check("post", "/v1/charges", "/v1/charges", card, 201)
    check("post", "/v1/charges/{charge_id}/refunds", f"/v1/charges/{paid}/refunds", {}, 201)
    payout = {**mobile_money, "amount": 1000}
    check("post", "/v1/payouts", "/v1/payouts", payout, 201)
    session = {
        "amount": 2000,
        "currency": "USD",
        "success_url": "https://shop.example.cd/ok",
        "cancel_url": "https://shop.example.cd/ko",
    }
    created = check("post", "/v1/checkout/sessions", "/v1/checkout/sessions", session, 201)
    assert created["payment_methods"] == ["mobile_money", "card"]
    check(
        "post",
        "/v1/checkout/sessions/{session_id}/expire",
        f"/v1/checkout/sessions/{created['id']}/expire",
    )
    # Errors too.
    check("get", "/v1/charges/{charge_id}", "/v1/charges/ch_nothing", status=404)
    check("post", "/v1/charges", "/v1/charges", {"amount": "10"}, 400)


def test_the_documented_phone_is_the_one_taken(document):
    """A new charge's, a new payout's and a checkout session's phone carry the pattern the API
    checks numbers with (a charge's may be blank: a card charge has none)."""
    from payments import phones

    schemas = document["components"]["schemas"]
    payout = schemas["PayoutCreateRequest"]["properties"]["phone"]
    charge = schemas["ChargeCreateRequest"]["properties"]["phone"]
    assert {"type": "string", "maxLength": 0} in charge["oneOf"]
    (documented,) = [s for s in charge["oneOf"] if "pattern" in s]
    assert documented["pattern"] == payout["pattern"]
    session = schemas["CheckoutSessionCreateRequest"]["properties"]["customer_phone"]
    assert session["pattern"] == payout["pattern"]  # not blank: omitted when unknown
    assert payout["pattern"].endswith("$")
    pattern = re.compile(payout["pattern"][:-1] + r"\Z")  # $ as JSON Schema (ECMA) reads it
    numbers = ["+243812345678", "+243971234567", "+243712345678", "0812345678", "+24381234567"]
    numbers += ["+2438123456789", "243812345678", "+243 812345678", "+243812345678\n", ""]
    for number in numbers:
        assert bool(pattern.search(number)) == phones.is_valid_drc_mobile(number), repr(number)
