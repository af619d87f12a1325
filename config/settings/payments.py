"""Money's clocks: how long a prompt or a card payment may wait, late payments' reconciliation,
the ledger's checkpoints, webhooks' and receipts' retries, and the sandbox (test mode's providers,
the sandbox card rail and its secret)."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import DEBUG, env

SANDBOX_MOBILE_MONEY_DELAY = env.float("SANDBOX_MOBILE_MONEY_DELAY", default=3)
MOBILE_MONEY_PROMPT_TIMEOUT = env.int("MOBILE_MONEY_PROMPT_TIMEOUT", default=300)
# A balance that adds up this many ledger rows one by one asks a worker for a checkpoint of them
# (services.ledger): a balance then costs the same at ten million rows as at ten thousand.
LEDGER_CHECKPOINT_ROWS = env.int("LEDGER_CHECKPOINT_ROWS", default=10_000)
CARD_PAYMENT_TIMEOUT = env.int("CARD_PAYMENT_TIMEOUT", default=3600)
# Seconds a mobile money charge failed by our clock is still asked about (late payments),
# and the growing waits between those checks (the last one repeats until the window ends).
RECONCILIATION_WINDOW = env.int("RECONCILIATION_WINDOW", default=172800)
RECONCILIATION_BACKOFF = [
    int(s)
    for s in env.list("RECONCILIATION_BACKOFF", default=["60", "300", "900", "3600", "10800"])
]
WEBHOOK_RETRY_SCHEDULE = [
    int(s)
    for s in env.list(
        "WEBHOOK_RETRY_SCHEDULE", default=["5", "300", "1800", "7200", "18000", "36000", "36000"]
    )
]
WEBHOOK_TIMEOUT = env.float("WEBHOOK_TIMEOUT", default=10)
# Seconds between the attempts to mail a customer's receipt when the mail server refuses it or
# cannot be reached (then it is given up and stays unsent, with its error, in the admin).
RECEIPT_RETRY_SCHEDULE = [
    int(s) for s in env.list("RECEIPT_RETRY_SCHEDULE", default=["30", "120", "600", "1800", "7200"])
]
# Attempts of one merchant's deliveries in one mode made at once, across every webhooks worker: a
# receiver that answers slowly holds no more threads than this, whatever its backlog.
WEBHOOK_ATTEMPTS_AT_ONCE = env.int("WEBHOOK_ATTEMPTS_AT_ONCE", default=4)
# Loopback and private webhook destinations (local development only); metadata, link-local,
# multicast and reserved addresses are refused whatever this says.
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=DEBUG)

SANDBOX_CARD_ACCESS_KEY = env.str(
    "SANDBOX_CARD_ACCESS_KEY", default="sandbox0access0key0000000000000001"
)
SANDBOX_CARD_PROFILE_ID = env.str("SANDBOX_CARD_PROFILE_ID", default="SANDBOX-PROFILE-1")
_SANDBOX_CARD_DEFAULT_SECRET = "sandbox-card-secret-key-for-local-development-only"
SANDBOX_CARD_SECRET_KEY = env.str("SANDBOX_CARD_SECRET_KEY", default=_SANDBOX_CARD_DEFAULT_SECRET)
# Whether test mode offers card payments at all (the sandbox card rail).
SANDBOX_CARD_ENABLED = env.bool("SANDBOX_CARD_ENABLED", default=True)
if not DEBUG and SANDBOX_CARD_ENABLED and SANDBOX_CARD_SECRET_KEY == _SANDBOX_CARD_DEFAULT_SECRET:
    # The default is public: with it anyone could sign test card replies on a real deployment.
    raise ImproperlyConfigured(
        "SANDBOX_CARD_SECRET_KEY is the public development default. With DEBUG off, set "
        "SANDBOX_CARD_SECRET_KEY to a secret of your own (or SANDBOX_CARD_ENABLED=false)."
    )


def _rate(kind, method, network, currency, rate_bp, fixed=0, days=0) -> dict:
    return {
        "kind": kind,
        "payment_method": method,
        "network": network,
        "currency": currency,
        "rate_bp": rate_bp,
        "fixed": fixed,
        "available_after_days": days,
    }


# The price plan of every merchant whose staff-set rates do not replace it (payments.pricing),
# in the shape of GET /v1/pricing; where each figure comes from is in
# docs/guides/fees-and-balance.md. Checked at start-up (payments' system checks).
PRICING_DEFAULT_PLAN = [
    # Collections: about what the operators keep on a merchant payment plus our share, as
    # aggregators of Congolese mobile money publish it; cards as international acquirers price
    # them, with a fixed part in dollars.
    _rate("charge", "mobile_money", None, "CDF", 300),
    _rate("charge", "mobile_money", None, "USD", 300),
    _rate("charge", "card", None, "USD", 390, 30),
    _rate("charge", "card", None, "CDF", 390),
    # Payouts to a wallet: the operators' disbursement tariffs.
    _rate("payout", "mobile_money", None, "CDF", 150),
    _rate("payout", "mobile_money", None, "USD", 150),
    # Settlements to the merchant's own wallet, and to a bank account: a bank transfer's flat
    # fee (about 10 dollars, and its franc equivalent).
    _rate("settlement", "mobile_money", None, "CDF", 100),
    _rate("settlement", "mobile_money", None, "USD", 100),
    _rate("settlement", None, None, "CDF", 0, 2_500_000),
    _rate("settlement", None, None, "USD", 0, 1_000),
]
# Seconds a new live settlement account is held before settlements may go to it (every owner
# and admin is told at once), and how long the sandbox's rail takes to pay a test settlement.
SETTLEMENT_ACCOUNT_HOLD = env.int("SETTLEMENT_ACCOUNT_HOLD", default=172800)
SANDBOX_SETTLEMENT_DELAY = env.float("SANDBOX_SETTLEMENT_DELAY", default=5)
PRICING_DEFAULT = env.json("PRICING_DEFAULT", default=PRICING_DEFAULT_PLAN)
# Seconds after its creation before one of our objects that no operator statement line names
# is reported `missing` by reconciliation (contract §21).
RECONCILE_GRACE = env.int("RECONCILE_GRACE", default=86400)
# A folder the periodic job reads operator statements from (files named
# NETWORK-live-….csv / NETWORK-test-….csv), each file once; empty: no periodic reconciliation.
RECONCILE_FOLDER = env.str("RECONCILE_FOLDER", default="")
