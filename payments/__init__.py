"""The core: merchants, API keys, charges, refunds and the /v1 API machinery."""
