"""The webhook tests take the merchant's receiver from tests/conftest.py and their data from
tests/factories.py; `record_event` and `settled_charge` are also importable from here."""

from tests.factories import record_event, settled_charge

__all__ = ["record_event", "settled_charge"]
