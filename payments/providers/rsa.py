"""RSA encryption with an operator's public key, as M-Pesa's session bearer and Airtel's
disbursement PIN need it: base64(RSA PKCS#1 v1.5(public key, value)). The key is given as base64
DER (as the operators' portals show it) or PEM."""

import base64
from functools import cache

from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.serialization import load_der_public_key, load_pem_public_key


@cache
def _public_key(text: str):
    text = text.strip()
    if text.startswith("-----BEGIN"):
        return load_pem_public_key(text.encode())
    return load_der_public_key(base64.b64decode(text))


def encrypt(value: str, public_key: str) -> str:
    """base64(RSA PKCS#1 v1.5(public key, value)). ValueError when the key is unreadable."""
    key = _public_key(public_key)
    return base64.b64encode(key.encrypt(value.encode(), padding.PKCS1v15())).decode()
