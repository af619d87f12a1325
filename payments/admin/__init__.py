"""Staff views, one module per object; importing the package registers them all. The staff
login (login.py) is routed in config/urls.py."""

from payments.admin import api_keys, charges, ledger, merchants, networks, payouts, refunds

__all__ = ["api_keys", "charges", "ledger", "merchants", "networks", "payouts", "refunds"]
