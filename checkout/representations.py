"""The checkout session object as the API and events show it."""

from checkout.models import CheckoutSession
from core.links import public_url
from payments.representations import iso


def checkout_session_repr(session: CheckoutSession) -> dict:
    return {
        "id": session.id,
        "object": "checkout.session",
        "livemode": session.livemode,
        "url": public_url("checkout-pay", session.id),
        "amount": session.amount,
        "currency": session.currency,
        "status": session.status,
        "success_url": session.success_url,
        "cancel_url": session.cancel_url,
        "metadata": session.metadata,
        "customer_phone": session.customer_phone or None,
        "customer_email": session.customer_email or None,
        "payment_methods": session.payment_methods,
        "charge": session.succeeded_charge_id,
        "payment_link": session.payment_link_id,
        "created_at": iso(session.created_at),
        "expires_at": iso(session.expires_at),
    }
