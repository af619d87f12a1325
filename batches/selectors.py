"""Reading payout batches: always within one merchant and mode (another's answer 404)."""

from django.db.models import QuerySet

from batches.models import PayoutBatch, PayoutBatchItem
from core.errors import ResourceMissing
from payments.models import Merchant


def batches_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return PayoutBatch.objects.filter(merchant=merchant, livemode=livemode)


def batch_get(*, merchant: Merchant, livemode: bool, batch_id: str) -> PayoutBatch:
    batch = batches_of(merchant=merchant, livemode=livemode).filter(pk=batch_id).first()
    if batch is None:
        raise ResourceMissing("payout batch", batch_id)
    return batch


def batch_items(*, batch: PayoutBatch) -> QuerySet:
    """The rows of a batch, in the order of the file (or of the API's items)."""
    return PayoutBatchItem.objects.filter(batch=batch).order_by("row")
