"""Staff set a merchant's own rates (the admin's price plan page, payments/admin/pricing.py):
one change of a plan at a time, refused when the plan changed since the staff member read it,
and announced (core.events.pricing_updated) so that the merchant's audit log says what changed."""

import hashlib
import json

from django.db import transaction
from django.utils import timezone

from core import events
from payments.models import Merchant, PriceRate
from payments.pricing import Rate, own_rate_changes, own_rates


class PlanChangedMeanwhile(Exception):
    """Someone changed the plan after the staff member read it: saving theirs would undo that
    change unseen."""


def plan_version(rates: list[Rate]) -> str:
    """A short digest of a merchant's own rates: the page keeps the one it showed, and the
    change is refused when the rates are no longer those."""
    rows = sorted((rate.key, rate.rate_bp, rate.fixed, rate.available_after_days) for rate in rates)
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


@transaction.atomic
def price_plan_set(
    *, merchant: Merchant, rates: list[Rate], seen: str, user=None, request=None
) -> list[dict]:
    """Make `rates` the merchant's own rates (each key once): the others are deleted, the
    changed ones updated, the new ones added. `seen` is the plan_version the staff member
    changed. Returns the changes (payments.pricing.own_rate_changes), each announced with
    `instance` (the merchant), `changes`, `user` and `request`; none when nothing changed."""
    keys = [rate.key for rate in rates]
    if len(set(keys)) != len(keys):
        raise ValueError("a rate key is given twice")
    # One change of a merchant's plan at a time: the second waits, then finds the plan changed.
    Merchant.objects.select_for_update().only("pk").get(pk=merchant.pk)
    before = own_rates(merchant)
    if plan_version(before) != seen:
        raise PlanChangedMeanwhile
    changes = own_rate_changes(before, rates)
    if not changes:
        return []
    wanted = {rate.key: rate for rate in rates}
    current = {rate.key: rate for rate in before}
    by = user.get_username() if user is not None else ""
    now = timezone.now()
    rows = {
        (row.kind, row.payment_method, row.network, row.currency): row
        for row in PriceRate.objects.filter(merchant=merchant)
    }
    for key, row in rows.items():
        if key not in wanted:
            row.delete()
    for key, rate in wanted.items():
        if current.get(key) == rate:
            continue
        row = rows.get(key) or PriceRate(
            merchant=merchant,
            kind=rate.kind,
            payment_method=rate.payment_method,
            network=rate.network,
            currency=rate.currency,
        )
        row.rate_bp = rate.rate_bp
        row.fixed = rate.fixed
        row.available_after_days = rate.available_after_days
        row.updated_at = now
        row.updated_by = by
        row.save()
    events.pricing_updated.send(
        sender=Merchant, instance=merchant, changes=changes, user=user, request=request
    )
    return changes
