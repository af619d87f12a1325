"""The payment link object as the API shows it."""

from core.links import public_url
from links.models import PaymentLink
from payments.representations import iso


def payment_link_repr(link: PaymentLink) -> dict:
    return {
        "id": link.id,
        "object": "payment_link",
        "livemode": link.livemode,
        "url": public_url("links-page", link.slug),
        "qr_code_url": public_url("links-qr-svg", link.slug),
        "active": link.active,
        "amount": link.amount,
        "custom_amount": link.custom_amount,
        "currency": link.currency,
        "description": link.description,
        "max_payments": link.max_payments,
        "payments_count": link.payments_count,
        "expires_at": iso(link.expires_at),
        "success_url": link.success_url or None,
        "metadata": link.metadata,
        "created_at": iso(link.created_at),
    }
