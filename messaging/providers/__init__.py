"""The SMS vendors' adapters (dataclasses in, dataclasses out), one chosen by SMS_PROVIDER."""
