"""Idempotency-Key on every POST under /v1, through the HTTP API."""

import json
from datetime import timedelta

import pytest
import time_machine
from django.test import override_settings
from django.urls import include, path
from django.utils import timezone
from rest_framework.response import Response

from core.api import idempotency
from core.api.base import ApiView
from core.errors import ProviderUnavailable
from payments import tasks
from payments.models import Charge, IdempotencyRecord
from payments.services import charges
from sandbox.models import SandboxTransaction
from tests.factories import merchant_with_keys
from tests.helpers import api_client, assert_error
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


class ChargeThenFail(ApiView):
    """Writes a charge, then fails: by raising, or by answering an error without raising."""

    def post(self, request):
        charges.charge_create(merchant=self.merchant, livemode=self.livemode, **MM)
        if request.data.get("raise"):
            raise ProviderUnavailable()
        return Response({"error": "refused"}, status=422)


urlpatterns = [
    path("v1/charge-then-fail", ChargeThenFail.as_view()),
    path("", include("config.urls")),
]


def post(client, path, body, key=None, **extra):
    if key is not None:
        extra["HTTP_IDEMPOTENCY_KEY"] = key
    raw = body if isinstance(body, str) else json.dumps(body)
    return client.post(path, raw, content_type="application/json", **extra)


def test_replay_is_the_first_response_byte_for_byte(api):
    first = post(api, "/v1/charges", {**MM, "metadata": {"order": "42", "ligne": "é"}}, "k-1")
    assert first.status_code == 201, first.content
    assert not first.has_header("Idempotent-Replayed")

    # Same body after parsing: other key order, other spacing.
    raw = '{ "metadata": {"ligne": "\\u00e9", "order": "42"},  "network": "VODACOM_MPESA", "phone": "+243812345678", "currency": "CDF", "amount": 250000 }'
    replay = post(api, "/v1/charges", raw, "k-1")
    assert replay.status_code == 201
    assert replay.content == first.content
    assert replay["Content-Type"] == first["Content-Type"] == "application/json; charset=utf-8"
    assert replay["Idempotent-Replayed"] == "true"
    assert replay["Request-Id"].startswith("req_")
    assert replay["Request-Id"] != first["Request-Id"]
    assert Charge.objects.count() == 1

    again = post(api, "/v1/charges", MM | {"metadata": {"order": "42", "ligne": "é"}}, "k-1")
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert Charge.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


def test_requests_without_the_header_are_not_deduplicated(api):
    assert post(api, "/v1/charges", MM).status_code == 201
    second = post(api, "/v1/charges", MM)
    assert second.status_code == 201 and not second.has_header("Idempotent-Replayed")
    assert Charge.objects.count() == 2
    assert IdempotencyRecord.objects.count() == 0


def test_a_replay_asks_the_provider_nothing_more(api, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as first_callbacks:
        first = post(api, "/v1/charges", MM, "prompt-once")
    assert first.status_code == 201
    assert len(first_callbacks) == 1  # the prompt is sent once the charge commits

    with django_capture_on_commit_callbacks() as replay_callbacks:
        for _ in range(3):
            assert post(api, "/v1/charges", MM, "prompt-once").content == first.content
    assert replay_callbacks == []

    charge_id = first.json()["id"]
    charges.charge_request_payment(charge_id=charge_id)
    assert Charge.objects.count() == 1
    assert SandboxTransaction.objects.get(reference=charge_id).request_count == 1


def test_same_key_with_another_body_is_refused(api):
    assert post(api, "/v1/charges", MM, "k-body").status_code == 201
    response = post(api, "/v1/charges", {**MM, "amount": 260000}, "k-body")
    assert_error(response, 400, "idempotency_error", "idempotency_key_reused")
    assert not response.has_header("Idempotent-Replayed")
    assert Charge.objects.count() == 1
    # The refusal stored nothing: the key still holds the first body's answer only.
    record = IdempotencyRecord.objects.get()
    assert (record.key, record.response_status) == ("k-body", 201)
    assert record.request_fingerprint == idempotency.fingerprint(MM)


def test_same_key_on_another_path_is_refused(api):
    assert post(api, "/v1/charges", MM, "k-path").status_code == 201
    response = post(api, "/v1/webhook_endpoint", {"url": "https://example.cd/hooks"}, "k-path")
    assert_error(response, 400, "idempotency_error", "idempotency_key_reused")
    assert api.get("/v1/webhook_endpoint").json()["url"] is None
    assert list(IdempotencyRecord.objects.values_list("path", flat=True)) == ["/v1/charges"]


def test_keys_are_scoped_per_merchant(api):
    first = post(api, "/v1/charges", MM, "shared-key")
    other = merchant_with_keys(name="Librairie Matonge")
    second = post(api_client(other.test_key.plaintext), "/v1/charges", MM, "shared-key")
    assert first.status_code == second.status_code == 201
    assert not second.has_header("Idempotent-Replayed")
    assert first.json()["id"] != second.json()["id"]
    assert Charge.objects.filter(merchant=other.merchant).count() == 1


def test_keys_are_scoped_per_mode(api, live_api):
    test_answer = post(api, "/v1/webhook_endpoint", {"url": "https://a.example.cd/h"}, "mode-key")
    assert test_answer.status_code == 200
    # The same key in live mode is another scope: another body is no reuse, it runs.
    live_answer = post(
        live_api, "/v1/webhook_endpoint", {"url": "https://b.example.cd/h"}, "mode-key"
    )
    assert live_answer.status_code == 200
    assert not live_answer.has_header("Idempotent-Replayed")
    assert live_answer.json()["url"] == "https://b.example.cd/h"
    # One record per mode, and nothing else written.
    records = IdempotencyRecord.objects.order_by("livemode")
    assert [(r.key, r.livemode, r.response_status) for r in records] == [
        ("mode-key", False, 200),
        ("mode-key", True, 200),
    ]
    assert Charge.objects.count() == 0


def test_webhook_endpoint_post_is_honoured_the_same_way(api):
    first = post(api, "/v1/webhook_endpoint", {"url": "https://a.example.cd/hooks"}, "wh-1")
    assert first.status_code == 200
    # The merchant changes the URL again, without a key.
    assert (
        post(api, "/v1/webhook_endpoint", {"url": "https://c.example.cd/hooks"}).status_code == 200
    )

    endpoints = WebhookEndpoint.objects.count()
    replay = post(api, "/v1/webhook_endpoint", {"url": "https://a.example.cd/hooks"}, "wh-1")
    assert replay.status_code == 200
    assert replay.content == first.content and replay["Idempotent-Replayed"] == "true"
    # The replay did not run the operation a second time, and stored nothing more.
    assert api.get("/v1/webhook_endpoint").json()["url"] == "https://c.example.cd/hooks"
    assert WebhookEndpoint.objects.count() == endpoints
    assert IdempotencyRecord.objects.count() == 1
    assert Charge.objects.count() == 0
    assert_error(
        post(api, "/v1/webhook_endpoint", {"url": "https://d.example.cd/hooks"}, "wh-1"),
        400,
        "idempotency_error",
        "idempotency_key_reused",
    )
    assert IdempotencyRecord.objects.count() == 1


def test_a_failed_first_request_leaves_nothing_and_the_corrected_retry_runs(api):
    failed = post(api, "/v1/charges", {**MM, "phone": "+24381234"}, "fix-me")
    assert_error(failed, 400, "invalid_request_error", "phone_invalid")
    assert IdempotencyRecord.objects.count() == 0

    again = post(api, "/v1/charges", {**MM, "phone": "+24381234"}, "fix-me")
    assert_error(again, 400, "invalid_request_error", "phone_invalid")
    assert not again.has_header("Idempotent-Replayed")
    assert IdempotencyRecord.objects.count() == 0

    corrected = post(api, "/v1/charges", MM, "fix-me")
    assert corrected.status_code == 201 and not corrected.has_header("Idempotent-Replayed")
    assert Charge.objects.count() == 1
    assert post(api, "/v1/charges", MM, "fix-me")["Idempotent-Replayed"] == "true"


def test_a_refused_operation_is_not_stored(merchant_keys):
    # Live mode without approval: 403 from the service; nothing is kept under the key.
    live = api_client(merchant_keys.live_key.plaintext)
    assert_error(
        post(live, "/v1/charges", MM, "live-1"), 403, "permission_error", "live_mode_not_approved"
    )
    assert IdempotencyRecord.objects.count() == 0
    assert Charge.objects.count() == 0


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.parametrize(
    "body, status", [({"raise": True}, 503), ({}, 422)], ids=["raised", "answered"]
)
def test_an_error_after_writes_rolls_the_operation_back(
    api, django_capture_on_commit_callbacks, body, status
):
    with django_capture_on_commit_callbacks() as callbacks:
        failed = post(api, "/v1/charge-then-fail", body, "atomic-1")
    assert failed.status_code == status, failed.content
    assert Charge.objects.count() == 0  # the charge written before the error is gone
    assert IdempotencyRecord.objects.count() == 0
    assert callbacks == []  # and its prompt is never sent
    # Without a key the view behaves as before: its write is not undone by us.
    assert post(api, "/v1/charge-then-fail", {}).status_code == 422
    assert Charge.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 0


@pytest.mark.parametrize(
    "key",
    ["", "x" * 256, "clé-été", "tab\there", "bell\x07", "del\x7f"],
    ids=["empty", "256-chars", "non-ascii", "tab", "control", "del"],
)
def test_invalid_keys_are_refused(api, key):
    response = post(api, "/v1/charges", MM, key)
    assert_error(response, 400, "idempotency_error", "idempotency_key_invalid")
    assert Charge.objects.count() == 0
    assert IdempotencyRecord.objects.count() == 0


def test_longest_and_odd_printable_keys_are_accepted(api):
    for key in ["k" * 255, "a", "~ !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"]:
        response = post(api, "/v1/charges", MM, key)
        assert response.status_code == 201, response.content
    assert IdempotencyRecord.objects.count() == 3


def test_authentication_comes_before_the_key(anon):
    response = post(anon, "/v1/charges", MM, "")
    assert_error(response, 401, "authentication_error", "missing_api_key")
    assert IdempotencyRecord.objects.count() == 0


def test_invalid_json_is_refused_before_the_key_is_used(api):
    response = post(api, "/v1/charges", "[1, 2]", "json-key")
    assert_error(response, 400, "invalid_request_error", "invalid_json")
    assert IdempotencyRecord.objects.count() == 0
    assert post(api, "/v1/charges", MM, "json-key").status_code == 201
    assert IdempotencyRecord.objects.get().key == "json-key"


def test_get_requests_ignore_the_header(api):
    response = api.get("/v1/charges", HTTP_IDEMPOTENCY_KEY="")
    assert response.status_code == 200
    assert response.json()["data"] == []
    keyed = api.get("/v1/charges", HTTP_IDEMPOTENCY_KEY="get-key")
    assert keyed.status_code == 200 and not keyed.has_header("Idempotent-Replayed")
    assert keyed.json()["data"] == []
    # Nothing was stored: no record under the key, no charge.
    assert IdempotencyRecord.objects.count() == 0
    assert Charge.objects.count() == 0


def test_a_key_is_kept_24_hours_from_the_first_request(api):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        first = post(api, "/v1/charges", MM, "day-key")
    record = IdempotencyRecord.objects.get(key="day-key")
    assert record.expires_at == record.created_at + timedelta(hours=24)

    with time_machine.travel(start + timedelta(hours=23, minutes=59), tick=False):
        assert post(api, "/v1/charges", MM, "day-key").content == first.content
        # A replay does not extend the lifetime.
        assert IdempotencyRecord.objects.get(key="day-key").expires_at == record.expires_at

    with time_machine.travel(start + timedelta(hours=24, seconds=1), tick=False):
        fresh = post(api, "/v1/charges", MM, "day-key")
    assert fresh.status_code == 201 and not fresh.has_header("Idempotent-Replayed")
    assert fresh.json()["id"] != first.json()["id"]
    assert Charge.objects.count() == 2


def test_the_purge_task_deletes_only_expired_records(api):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        post(api, "/v1/charges", MM, "old")
    with time_machine.travel(start + timedelta(hours=12), tick=False):
        post(api, "/v1/charges", MM, "young")
    with time_machine.travel(start + timedelta(hours=25), tick=False):
        assert tasks.idempotency_records_purge() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["young"]


def test_the_purge_runs_periodically():
    from config.celery import app

    schedule = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert "payments.tasks.idempotency_records_purge" in schedule


def test_the_openapi_description_offers_the_header_on_every_post(anon):
    paths = anon.get("/v1/openapi.json").json()["paths"]
    posts = [ops["post"] for ops in paths.values() if "post" in ops]
    assert posts
    for operation in posts:
        headers = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
        assert "Idempotency-Key" in headers
