"""Our signatures are the Standard Webhooks ones: the public package computes the same and verifies."""

import base64
import json
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from payments.models import new_webhook_secret
from webhooks import signing


def test_signature_equals_the_reference_implementation():
    secret = new_webhook_secret()
    body = json.dumps({"id": "evt_1", "type": "charge.succeeded"}).encode()
    ours = signing.sign(secret=secret, msg_id="evt_1", timestamp=1_795_000_000, body=body)
    reference = Webhook(secret).sign(
        "evt_1", datetime.fromtimestamp(1_795_000_000, tz=UTC), body.decode()
    )
    assert ours == reference
    assert ours.startswith("v1,") and len(base64.b64decode(ours[3:])) == 32


def test_verified_by_the_public_package_and_tampering_is_caught():
    secret = new_webhook_secret()
    body = b'{"id":"evt_2","amount":5000}'
    headers = signing.signed_headers(secrets=[secret], msg_id="evt_2", body=body)
    assert Webhook(secret).verify(body, headers) == {"id": "evt_2", "amount": 5000}
    with pytest.raises(WebhookVerificationError, match="No matching signature found"):
        Webhook(secret).verify(body.replace(b"5000", b"9000"), headers)
    with pytest.raises(WebhookVerificationError, match="No matching signature found"):
        Webhook(new_webhook_secret()).verify(body, headers)
