"""Customers' receipts by SMS: a checkout session (a payment link's included) that completes
sends the paying phone a short receipt in the page's language, with a link to its page
(/r/{token}); unless the merchant turned them off (on by default)."""

import logging

from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from checkout.models import CheckoutSession
from core.money import format_customer_amount
from messaging import gsm, services
from messaging.models import MessageKind, SmsReceipt
from payments.models import PaymentMethod

logger = logging.getLogger("messaging")

SESSION_COMPLETED = "checkout.session.completed"
SPACES = {"\u00a0": " ", "\u202f": " "}


def receipt_url(receipt: SmsReceipt) -> str:
    return f"{settings.PUBLIC_BASE_URL}/r/{receipt.token}"


def paying_phone(session: CheckoutSession) -> str:
    """The phone that paid (mobile money), or the one the session was given (a card payment,
    only with customer_phone)."""
    charge = session.succeeded_charge
    if charge is not None and charge.payment_method == PaymentMethod.MOBILE_MONEY and charge.phone:
        return charge.phone
    return session.customer_phone


def receipt_text(
    *, merchant_name: str, amount: str, reference: str, url: str, language: str
) -> str:
    """The SMS: one message, ≤ 160 GSM-7 characters or ≤ 70 UCS-2. A text that needs Unicode and
    does not fit in 70 is written in GSM-7 (ê → e), and a merchant's name too long is cut."""
    amount = "".join(SPACES.get(c, c) for c in amount)

    def text(name: str) -> str:
        with translation.override(language):
            if reference:
                return _(
                    "Payment of %(amount)s to %(merchant)s confirmed. Ref. %(reference)s. "
                    "Receipt: %(url)s"
                ) % {"amount": amount, "merchant": name, "reference": reference, "url": url}
            return _("Payment of %(amount)s to %(merchant)s confirmed. Receipt: %(url)s") % {
                "amount": amount,
                "merchant": name,
                "url": url,
            }

    body = text(merchant_name)
    if gsm.fits_one(body):
        return body
    name = gsm.to_gsm7(merchant_name)
    body = gsm.to_gsm7(text(name))
    while not gsm.fits_one(body) and len(name) > 1:
        name = name[:-2].rstrip() + "."
        body = gsm.to_gsm7(text(name))
    return body


def receipt_on_session_changed(sender, *, instance: CheckoutSession, type: str, **kwargs) -> None:
    """messaging's receiver of core.events.session_changed, in the completion's transaction: the
    receipt and its message are written there (in a savepoint: whatever goes wrong here never
    undoes the payment), and the message leaves once it commits."""
    if type != SESSION_COMPLETED:
        return
    try:
        with transaction.atomic():
            receipt_queue(session=instance)
    except Exception:  # a receipt is never worth a payment: logged, the payment goes on
        logger.exception("SMS receipt of session %s not written", instance.id)


def receipt_queue(*, session: CheckoutSession) -> SmsReceipt | None:
    charge = session.succeeded_charge
    phone = paying_phone(session)
    if charge is None or not phone:
        return None
    if not services.messaging_settings(session.merchant).sms_receipts:
        return None
    language = session.customer_language or settings.LANGUAGE_CODE
    receipt, created = SmsReceipt.objects.get_or_create(
        session=session, defaults={"language": language}
    )
    if not created:
        return receipt
    body = receipt_text(
        merchant_name=session.merchant.name,
        amount=format_customer_amount(charge.amount, charge.currency, language),
        reference=charge.provider_reference,
        url=receipt_url(receipt),
        language=language,
    )
    receipt.message = services.sms_queue(
        merchant=session.merchant,
        livemode=session.livemode,
        to=phone,
        body=body,
        kind=MessageKind.RECEIPT,
    )
    receipt.save(update_fields=["message"])
    return receipt
