"""The domain events: what the apps that care (the outbox of webhooks/, checkout/) hear of a state
change they do not own, without the owner knowing them.

Each is sent by the one writer of its object, inside the transaction of the change, with
`instance` (the object, as just saved), `type` (`charge.succeeded`, `refund.failed`,
`checkout.session.completed`, `payout_batch.completed`, …), `data` (how the API shows it) and `destination_url` (where its
webhook goes, "" for the mode's endpoint). Receivers run in that transaction and are sent with
`send`, not `send_robust`: a receiver that fails rolls the change back, so an event is written
with its change or not at all (the outbox rule). Apps subscribe in their AppConfig.ready()."""

from django.dispatch import Signal

charge_changed = Signal()
refund_changed = Signal()
payout_changed = Signal()
settlement_changed = Signal()
# A settlement account added or removed (payments.services.settlements), sent in its transaction
# with `instance`, `action` ("added" or "removed") and `by` (who did it, in words): the dashboard
# tells every owner and admin, and writes its audit row.
settlement_account_changed = Signal()
session_changed = Signal()
# Sent by checkout just before a session completes, in that transaction (the session row locked),
# with `instance` (the session) and `charge` (the succeeded charge). A receiver may refuse the
# completion by answering a reason (text): the session is then expired and the success given back
# as a late payment (docs/architecture/money.md). Payment links count their payments this way
# (links/).
session_completing = Signal()
# A payout batch (batches.services) whose rows are all settled: `payout_batch.completed`.
payout_batch_changed = Signal()
# A payout batch submitted, now awaiting a member's approval (batches.services.batch_submit),
# sent in that transaction with `instance`: the dashboard tells the members who may approve it
# (one the API approves at once in the same transaction is told of no more).
payout_batch_awaiting_approval = Signal()
# A new merchant (payments.services.accounts.merchant_create), sent in its transaction with
# `instance`, `webhook_url` (its default URL, maybe "") and `webhook_secrets` (its first signing
# secret of each mode, by livemode: shown once to whoever created it).
merchant_created = Signal()
# The embedded set-up's demo merchant is ready (payments' `demomerchant` command, each run), sent
# with `instance` and `var_dir`: a receiver returns the lines it wants printed beside the demo key
# (the dashboard: its demo owner's sign-in).
demo_merchant_ready = Signal()
# Asked by the API before a live key moves money on its own word, with `instance` (the merchant)
# and `api_key` (the key of the request). The team's rules are the dashboard's (its security
# settings, docs/guides/dashboard.md), which payments and batches do not know:
# - api_payout_creating (POST /v1/payouts): a receiver answers False to refuse it (the owner
#   turned payouts by API off);
# - api_payout_batch_creating (POST /v1/payout_batches): a receiver answers True when a member
#   with the payout right must approve the batch in the dashboard (a second approver required).
api_payout_creating = Signal()
api_payout_batch_creating = Signal()
# Staff name a new merchant's dashboard owner (payments' createmerchant command, --owner-email),
# sent in the merchant's transaction with `instance`, `email` and `password` (None: none given).
# The dashboard's receiver makes that user the owner (a new user with a confirmed address) and
# answers the owner's address; it raises ValueError, in words, for one it cannot take.
merchant_owner_named = Signal()
# Staff changed a merchant's own rates (payments.services.pricing), sent in that transaction with
# `instance` (the merchant), `changes` (payments.pricing.own_rate_changes: each rate key with the
# rate in force before and after), `user` (the staff member) and `request` (or None): the
# dashboard writes them to the merchant's audit log.
pricing_updated = Signal()
