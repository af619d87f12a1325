"""Merchants and their API keys: creating a merchant (with its keys and webhook endpoints),
turning its live mode on, issuing and revoking keys. A key's plaintext is shown once and never
stored."""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core import events, ids
from core.api.authentication import hash_api_key
from payments.models import KEY_NAME_MAX, ApiKey, Merchant, Mode, new_webhook_secret


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    plaintext: str  # shown once, never stored


@transaction.atomic
def api_key_create(
    *, merchant: Merchant, mode: str, created_by_id: int | None = None, name: str = ""
) -> IssuedKey:
    """A new key of `mode`; `created_by_id`: the dashboard member who made it, if one did;
    `name`: what it is for, as the merchant calls it."""
    if mode not in Mode.values:
        raise ValueError(f"mode must be one of {Mode.values}")
    plaintext = f"sk_{mode}_{ids.random_token(32)}"
    key = ApiKey.objects.create(
        merchant=merchant,
        mode=mode,
        name=name.strip()[:KEY_NAME_MAX],
        prefix=f"{plaintext[:12]}…{plaintext[-4:]}",
        key_hash=hash_api_key(plaintext),
        created_by_id=created_by_id,
    )
    return IssuedKey(api_key=key, plaintext=plaintext)


@transaction.atomic
def api_key_revoke(*, api_key: ApiKey) -> bool:
    """Revoke `api_key` (the instance is brought up to date either way); its save tells every
    web process to read the keys again (payments.api.principals). True if this call revoked
    it, decided under the row's lock: of two revocations at once only one does, and the key
    keeps the moment it was first revoked."""
    locked = ApiKey.objects.select_for_update().get(pk=api_key.pk)
    revoked = locked.revoked_at is None
    if revoked:
        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at"])
    api_key.revoked_at = locked.revoked_at
    return revoked


@dataclass(frozen=True)
class NewMerchant:
    merchant: Merchant
    test_key: IssuedKey
    live_key: IssuedKey
    test_webhook_secret: str
    live_webhook_secret: str


@transaction.atomic
def merchant_create(
    *,
    name: str,
    webhook_url: str = "",
    live_approved: bool = False,
    card_rail_enabled: bool = True,
) -> NewMerchant:
    merchant = Merchant.objects.create(
        name=name, live_approved=live_approved, card_rail_enabled=card_rail_enabled
    )
    secrets = {False: new_webhook_secret(), True: new_webhook_secret()}  # by livemode
    events.merchant_created.send(
        sender=Merchant, instance=merchant, webhook_url=webhook_url, webhook_secrets=secrets
    )
    return NewMerchant(
        merchant=merchant,
        test_key=api_key_create(merchant=merchant, mode=Mode.TEST),
        live_key=api_key_create(merchant=merchant, mode=Mode.LIVE),
        test_webhook_secret=secrets[False],
        live_webhook_secret=secrets[True],
    )


@transaction.atomic
def merchant_live_approve(*, merchant: Merchant) -> bool:
    """Live mode turned on for `merchant` (staff approved its application): True if this call
    turned it on, decided under the merchant's row lock. The instance is brought up to date."""
    locked = Merchant.objects.select_for_update(no_key=True).get(pk=merchant.pk)
    turned_on = not locked.live_approved
    if turned_on:
        locked.live_approved = True
        locked.save(update_fields=["live_approved"])
    merchant.live_approved = True
    return turned_on
