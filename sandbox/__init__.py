"""The built-in test card provider, an outside party we host: its records, its hosted page, its
routes. The sandbox adapters (sandbox/providers.py) talk to it as to a real provider."""
