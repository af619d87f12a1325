"""The client: `congopay.Congopay(api_key=…, base_url=…)` and every resource of the API as its
attributes (resources.py, generated from the service's OpenAPI document)."""

from __future__ import annotations

import os

from .resources import Resources
from .transport import Transport
from .webhooks import Webhooks


class Congopay(Resources):
    """`api_key`: a secret key, `sk_test_…` or `sk_live_…` (default: the CONGOPAY_API_KEY
    environment variable). `base_url`: where the API answers, without /v1 (default:
    CONGOPAY_BASE_URL). `max_retries`: how many times a request is retried (connection errors,
    timeouts, 409 in use, 429, 5xx). `timeout`: seconds to wait for each answer."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 30,
    ) -> None:
        api_key = api_key or os.environ.get("CONGOPAY_API_KEY")
        base_url = base_url or os.environ.get("CONGOPAY_BASE_URL")
        if not api_key:
            raise ValueError("an API key is needed: api_key=… or CONGOPAY_API_KEY")
        if not base_url:
            raise ValueError(
                "the service's address is needed: base_url=… or CONGOPAY_BASE_URL "
                "(https://pay.example.cd, or http://127.0.0.1:8000 for `make run`)"
            )
        if max_retries < 0:
            raise ValueError("max_retries cannot be negative")
        self.transport = Transport(
            api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )
        super().__init__(self.transport)
        self.webhooks = Webhooks()

    def __repr__(self) -> str:
        return f"<Congopay {self.transport.base_url} {self.transport.api_key[:8]}…>"
