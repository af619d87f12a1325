"""The only code that changes merchant, key and money state, one module per object:

  accounts.py        merchants and their API keys
  charges.py         charges: creation, status checks, reconciliation, late payments, sweeps
  refunds.py         refunds: reservation, sending, status checks, staff settlement, sweep
  payouts.py         payouts: reservation against the balance, the one call, status checks
  networks.py        networks: staff closing and reopening them, their amount limits, the
                     check every new charge and payout passes
  ledger.py          the ledger rows every movement of money writes, and the check of the books
  movements.py       the one lifecycle of a charge, refund or payout (movement_apply_outcome),
                     driven by the description (Kind) each of those modules gives
  provider_calls.py  asking a provider (an answer that says nothing is `pending`) and keeping
                     its answers for staff
  queues.py          what is enqueued, on which queue, and the claim of due rows by the sweeps

Keyword-only arguments, type hints, one transaction per operation. The public functions are
also importable from this package (`services.charge_create(...)`); import them from their own
module in new code.
"""

from payments.services.accounts import (
    IssuedKey,
    NewMerchant,
    api_key_create,
    api_key_revoke,
    merchant_create,
)
from payments.services.charges import (
    charge_apply_outcome,
    charge_card_new_attempt,
    charge_card_return,
    charge_create,
    charge_fail_unsent,
    charge_late_payment,
    charge_reconcile,
    charge_refresh,
    charge_request_payment,
)
from payments.services.refunds import (
    refund_apply_outcome,
    refund_create,
    refund_refresh,
    refund_resolve,
    refund_send,
)

__all__ = [
    "IssuedKey",
    "NewMerchant",
    "api_key_create",
    "api_key_revoke",
    "charge_apply_outcome",
    "charge_card_new_attempt",
    "charge_card_return",
    "charge_create",
    "charge_fail_unsent",
    "charge_late_payment",
    "charge_reconcile",
    "charge_refresh",
    "charge_request_payment",
    "merchant_create",
    "refund_apply_outcome",
    "refund_create",
    "refund_refresh",
    "refund_resolve",
    "refund_send",
]
