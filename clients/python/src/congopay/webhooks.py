"""Webhook deliveries verified as the Standard Webhooks specification says
(https://www.standardwebhooks.com): the headers `webhook-id`, `webhook-timestamp` and
`webhook-signature` (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, several separated
by spaces while a rotated secret is still valid), keyed by the bytes the `whsec_…` secret
encodes, and a timestamp within five minutes of now.

Verify the raw body, as it arrived: a body parsed and serialised again (by a framework, a
middleware) is no longer the one that was signed."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any, cast

from .errors import WebhookVerificationError
from .types import Event

TOLERANCE = 5 * 60
PREFIX = "whsec_"


def secret_key(secret: str | bytes) -> bytes:
    """The HMAC key of a `whsec_…` secret (the prefix is optional, as is base64's padding)."""
    if isinstance(secret, bytes):
        secret = secret.decode()
    encoded = secret.strip().removeprefix(PREFIX)
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except binascii.Error as error:
        raise ValueError("the webhook secret is not a whsec_… secret") from error
    if not key:
        raise ValueError("the webhook secret is empty")
    return key


def raw(body: bytes | bytearray | memoryview | str) -> bytes:
    return body.encode() if isinstance(body, str) else bytes(body)


def sign(secret: str | bytes, msg_id: str, timestamp: int, body: bytes | str) -> str:
    """The `webhook-signature` of a delivery: `v1,<base64 HMAC-SHA256>`."""
    signed = f"{msg_id}.{timestamp}.".encode() + raw(body)
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secret: str | bytes, msg_id: str, body: bytes | str) -> dict[str, str]:
    """The three headers of a delivery signed now."""
    timestamp = int(time.time())
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, msg_id, timestamp, body),
    }


def verify(
    body: bytes | bytearray | memoryview | str,
    headers: Mapping[str, str] | Any,
    secret: str | bytes,
    *,
    tolerance: int = TOLERANCE,
) -> Any:
    """The JSON body of a delivery whose signature and timestamp verify; else
    `WebhookVerificationError`. `headers`: any mapping of names to values (a dict, Django's
    `request.headers`, Flask's, …), names in any case."""
    key = secret_key(secret)
    found = {str(name).lower(): str(value) for name, value in headers.items()}
    msg_id = found.get("webhook-id")
    timestamp = found.get("webhook-timestamp")
    signatures = found.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        raise WebhookVerificationError(
            "missing webhook-id, webhook-timestamp or webhook-signature header"
        )
    try:
        sent = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("the webhook-timestamp header is no timestamp") from None
    now = time.time()
    if sent < now - tolerance:
        raise WebhookVerificationError("the delivery's timestamp is too old")
    if sent > now + tolerance:
        raise WebhookVerificationError("the delivery's timestamp is too new")
    payload = raw(body)
    expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + payload, hashlib.sha256).digest()
    for candidate in signatures.split():
        version, _, encoded = candidate.partition(",")
        if version != "v1":
            continue
        try:
            given = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            continue
        if hmac.compare_digest(expected, given):
            try:
                return json.loads(payload)
            except ValueError:
                raise WebhookVerificationError("the body is not JSON") from None
    raise WebhookVerificationError("no signature matches the secret")


class Webhooks:
    """`client.webhooks`."""

    def unwrap(
        self,
        body: bytes | bytearray | memoryview | str,
        headers: Mapping[str, str] | Any,
        secret: str | bytes,
    ) -> Event:
        """The event of a delivery, once its signature (with `secret`, the endpoint's `whsec_…`)
        and its timestamp (within five minutes of now) verify from the raw body and the headers
        as received; else `congopay.WebhookVerificationError`."""
        return cast(Event, verify(body, headers, secret))

    sign = staticmethod(sign)
    signed_headers = staticmethod(signed_headers)
