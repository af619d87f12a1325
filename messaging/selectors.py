"""What messaging shows: the test inbox."""

from django.db.models import QuerySet

from messaging.models import Message
from payments.models import Merchant


def test_messages(*, merchant: Merchant) -> QuerySet:
    """The merchant's test-mode messages, newest first (what its customers would have got)."""
    return Message.objects.filter(merchant=merchant, livemode=False).order_by("-created_at", "-id")
