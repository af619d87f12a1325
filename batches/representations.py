"""Payout batches and their rows as the API shows them."""

from batches.models import PayoutBatch, PayoutBatchItem
from payments.representations import iso


def payout_batch_repr(batch: PayoutBatch, *, counts: dict[str, int]) -> dict:
    return {
        "id": batch.id,
        "object": "payout_batch",
        "livemode": batch.livemode,
        "status": batch.status,
        "counts": counts,
        "totals": [
            {"currency": currency, "amount": amount}
            for currency, amount in sorted(batch.totals.items())
        ],
        "created_at": iso(batch.created_at),
        "approved_at": iso(batch.approved_at),
        "completed_at": iso(batch.completed_at),
    }


def payout_batch_item_repr(item: PayoutBatchItem) -> dict:
    return {
        "object": "payout_batch_item",
        "livemode": item.livemode,
        "row": item.row,
        "phone": item.phone,
        "amount": item.amount,
        "currency": item.currency,
        "network": item.network,
        "reference": item.reference,
        "description": item.description or None,
        "status": item.status,
        "payout": item.payout_id,
        "failure_code": item.failure_code or None,
        "failure_message": item.failure_message or None,
    }
