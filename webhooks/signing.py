"""Standard Webhooks signatures (https://www.standardwebhooks.com): what every delivery carries.

The merchant's secret is `whsec_` + base64 of random bytes; the HMAC key is those bytes. The public
`standardwebhooks` libraries verify these headers as they are.
"""

import base64
import hashlib
import hmac
import time

SECRET_PREFIX = "whsec_"


def secret_key(secret: str) -> bytes:
    """The HMAC key inside a `whsec_…` secret."""
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    return base64.b64decode(encoded)


def sign(*, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(
    *, secrets: list[str], msg_id: str, body: bytes, timestamp: int | None = None
) -> dict[str, str]:
    """The three headers of one delivery attempt (a fresh timestamp on each attempt). With
    several secrets (during a rotation) the signature header holds one signature per secret,
    space-separated, the current secret's first: receivers verify with either."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    signatures = [
        sign(secret=secret, msg_id=msg_id, timestamp=timestamp, body=body) for secret in secrets
    ]
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signatures),
    }
