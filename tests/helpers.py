"""Helpers shared by the test modules (builders live in tests/factories.py)."""

from django.contrib.admin.utils import quote
from django.urls import reverse


def admin_url(obj, action: str = "change") -> str:
    """The admin page of `obj` as the admin itself links to it: ids are quoted (`_` → `_5F`),
    so an id whose random part starts like a quoted character is never read back wrongly."""
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{action}", args=[quote(obj.pk)])


def set_webhook_url(merchant, url: str, *, livemode: bool = False):
    """The merchant's default webhook URL of one mode, set as the API sets it."""
    from webhooks.services import endpoint_set_url

    return endpoint_set_url(merchant=merchant, livemode=livemode, url=url)


def webhook_secret(merchant, *, livemode: bool = False) -> str:
    """The secret that signs the mode's deliveries now."""
    from webhooks.services import endpoint_get

    return endpoint_get(merchant=merchant, livemode=livemode).secret


def assert_error(response, status, type_, code):
    """The response is the contract's error envelope with this status, type and code."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["type"] == type_
    assert error["code"] == code
    assert error["message"]
    assert error["request_id"] == response["Request-Id"]
    assert error["request_id"].startswith("req_")
    assert response["Content-Type"] == "application/json; charset=utf-8"
