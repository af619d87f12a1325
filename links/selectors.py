"""Reads of payment links, for the API and the public page."""

from django.db.models import QuerySet

from checkout.models import CheckoutSession, SessionStatus
from core.errors import ResourceMissing
from links.models import PaymentLink


def links_of(*, merchant, livemode: bool) -> QuerySet:
    return PaymentLink.objects.filter(merchant=merchant, livemode=livemode)


def link_list(*, merchant, livemode: bool, filters: dict) -> QuerySet:
    qs = links_of(merchant=merchant, livemode=livemode)
    if "active" in filters:
        qs = qs.filter(active=filters["active"])
    return qs


def link_get(*, merchant, livemode: bool, link_id: str) -> PaymentLink:
    link = PaymentLink.objects.filter(merchant=merchant, livemode=livemode, pk=link_id).first()
    if link is None:
        raise ResourceMissing("payment link", link_id)
    return link


def link_for_page(*, slug: str) -> PaymentLink | None:
    """The link behind a /pay/{slug} address (anyone holding the address may pay it)."""
    return PaymentLink.objects.select_related("merchant").filter(slug=slug).first()


def paid_session_of(*, link: PaymentLink, session_id: str) -> CheckoutSession | None:
    """The completed session of `link` that the done page's address names (checkout adds
    ?session_id= to the success URL), with the charge that paid it; None for any other."""
    if not session_id:
        return None
    return (
        CheckoutSession.objects.select_related("succeeded_charge")
        .filter(pk=session_id, payment_link=link, status=SessionStatus.COMPLETE)
        .first()
    )
