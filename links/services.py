"""Payment links: creation, activation, the sessions a link opens, the count of its payments
(never past max_payments), and the receipts of completed sessions."""

import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from checkout import services as checkout
from checkout.models import CheckoutSession, SessionStatus
from core.errors import ApiError, InvalidRequest, LiveModeNotApproved
from core.links import public_url
from core.money import format_customer_amount
from links import queues
from links.models import PaymentLink, Receipt
from payments.models import Merchant

logger = logging.getLogger("links")

SESSION_COMPLETED = "checkout.session.completed"
# A session of a link that expires sooner than a session's usual lifetime still gives the
# customer this long to pay (seconds).
LINK_SESSION_GRACE = 30 * 60


class LinkClosed(ApiError):
    """The link is inactive, expired or used up: it opens no session (its page answers 410)."""

    status = 410
    code = "payment_link_closed"


# --- Creation and activation -------------------------------------------------------------------


@transaction.atomic
def link_create(
    *,
    merchant: Merchant,
    livemode: bool,
    currency: str,
    description: str,
    amount: int | None = None,
    custom_amount: bool = False,
    max_payments: int | None = None,
    expires_at=None,
    success_url: str = "",
    metadata: dict | None = None,
) -> PaymentLink:
    """A fixed amount must be one a checkout session of the currency takes (the same rules, the same
    function: docs/guides/charges.md, docs/guides/checkout.md); a custom amount is checked when the
    customer types it."""
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    if custom_amount and amount is not None:
        raise InvalidRequest(
            _("Give either amount or custom_amount: true, not both."), param="amount"
        )
    if not custom_amount and amount is None:
        raise InvalidRequest(
            _("Missing required param: amount (or custom_amount: true)."),
            code="parameter_missing",
            param="amount",
        )
    if amount is not None:
        checkout.session_payment_methods(
            merchant=merchant, livemode=livemode, amount=amount, currency=currency
        )
    return PaymentLink.objects.create(
        merchant=merchant,
        livemode=livemode,
        amount=amount,
        custom_amount=custom_amount,
        currency=currency,
        description=description,
        max_payments=max_payments,
        expires_at=expires_at,
        success_url=success_url,
        metadata=metadata or {},
    )


@transaction.atomic
def link_set_active(*, link: PaymentLink, active: bool) -> bool:
    """Deactivate or activate `link` (the instance is brought up to date either way). True if
    this call changed it, decided under the row's lock: of two calls at once only one does, and
    whoever records the change in the caller's transaction (the dashboard's log) records it
    once. A deactivated link's open sessions expire with it (link_sessions_cut_short), once the
    deactivation commits."""
    locked = PaymentLink.objects.select_for_update().get(pk=link.pk)
    changed = locked.active != active
    if changed:
        locked.active = active
        locked.updated_at = timezone.now()
        locked.save(update_fields=["active", "updated_at"])
    if changed and not active:
        # After the commit, with the link's row free: a completing session holds its own row,
        # then waits for the link's (the count of its payments); taking the sessions' rows
        # under the link's would deadlock with it. A process lost in between leaves them to
        # checkout's sweep.
        transaction.on_commit(lambda: link_sessions_cut_short(link_id=locked.pk), robust=True)
    link.active, link.updated_at = locked.active, locked.updated_at
    return changed


def link_sessions_cut_short(*, link_id: str) -> int:
    """The open sessions of a deactivated link expire now, each under its own row lock, with
    its checkout.session.expired event; one whose customer is paying expires once that attempt
    settles (docs/guides/payment-links.md). How many expired now."""
    opened = CheckoutSession.objects.filter(payment_link_id=link_id, status=SessionStatus.OPEN)
    opened = list(opened.values_list("id", flat=True))
    return sum(checkout.session_cut_short(session_id=session_id) for session_id in opened)


# --- The sessions a link opens ------------------------------------------------------------------


@transaction.atomic
def link_open_session(
    *,
    link: PaymentLink,
    amount: int | None = None,
    customer_email: str = "",
    language: str = "",
) -> CheckoutSession:
    """A new checkout session of the link, for one customer. A closed link opens none
    (LinkClosed); the amount — the link's, or the one the customer typed — is checked by
    checkout.services.session_create as every session's is (amount_invalid, in words). The
    link's row is locked meanwhile: a deactivation at the same moment either comes first (no
    session) or waits for this one to commit, then sees it and expires it."""
    link = (
        PaymentLink.objects.select_for_update(no_key=True, of=("self",))
        .select_related("merchant")
        .get(pk=link.pk)
    )
    if link.closed():
        raise LinkClosed(_("This payment link is no longer available."))
    if not link.custom_amount:
        amount = link.amount
    return checkout.session_create(
        expires_in=link_session_lifetime(link),
        merchant=link.merchant,
        livemode=link.livemode,
        amount=amount,
        currency=link.currency,
        success_url=link.success_url or public_url("links-done", link.slug),
        cancel_url=public_url("links-page", link.slug),
        metadata=dict(link.metadata),
        customer_email=customer_email,
        customer_language=language,
        payment_link=link,
    )


def link_session_lifetime(link: PaymentLink) -> int:
    """Seconds a session the link opens now stays open: a session's usual lifetime, but a link
    that expires sooner takes its sessions with it, leaving a customer who opened one just
    before at least LINK_SESSION_GRACE to pay (the shortest session the API opens:
    docs/guides/checkout.md)."""
    if link.expires_at is None:
        return checkout.DEFAULT_LIFETIME
    left = int((link.expires_at - timezone.now()).total_seconds())
    return min(checkout.DEFAULT_LIFETIME, max(LINK_SESSION_GRACE, left))


def link_on_session_completing(sender, *, instance: CheckoutSession, charge=None, **kwargs):
    """links/' receiver of core.events.session_completing: a session of a link is about to
    complete. Under the link's row lock (which serialises the link's completions), count it, or
    refuse it when the link already has max_payments (the success is then given back:
    docs/architecture/money.md)."""
    if instance.payment_link_id is None:
        return None
    link = PaymentLink.objects.select_for_update().get(pk=instance.payment_link_id)
    if link.exhausted:
        logger.warning(
            "payment link %s already has %s payments: session %s refused",
            link.id,
            link.payments_count,
            instance.id,
        )
        return f"payment link {link.id} reached max_payments ({link.max_payments})"
    link.payments_count += 1
    link.updated_at = timezone.now()
    link.save(update_fields=["payments_count", "updated_at"])
    return None


# --- Receipts -----------------------------------------------------------------------------------


def receipt_on_session_changed(sender, *, instance: CheckoutSession, type: str, **kwargs) -> None:
    """links/' receiver of core.events.session_changed: a completed session whose customer gave
    an e-mail address gets a receipt, written in the completion's transaction and mailed by a
    worker once it commits (a mail server that is slow or down never holds a payment back)."""
    if type != SESSION_COMPLETED or not instance.customer_email:
        return
    receipt, created = Receipt.objects.get_or_create(
        session=instance,
        defaults={
            "email": instance.customer_email,
            "language": instance.customer_language or settings.LANGUAGE_CODE,
        },
    )
    if created:
        transaction.on_commit(lambda: queues.receipt_send_enqueue(receipt.pk), robust=True)


def receipts_enqueue_unsent(*, older_than: int = 300, limit: int = 500) -> int:
    """The periodic sweep: receipts never tried, written more than `older_than` seconds ago (the
    broker was away when their payment committed), get their task now. Sending twice is
    impossible (receipt_send), so a sweep that overlaps a late task costs nothing."""
    due = Receipt.objects.filter(
        sent_at__isnull=True,
        attempts=0,
        created_at__lte=timezone.now() - timedelta(seconds=older_than),
    ).values_list("pk", flat=True)[:limit]
    due = list(due)
    for receipt_id in due:
        queues.receipt_send_enqueue(receipt_id)
    return len(due)


def receipt_message(receipt: Receipt) -> EmailMultiAlternatives:
    """The receipt in the customer's language: text and HTML."""
    session = receipt.session
    charge = session.succeeded_charge
    merchant = session.merchant
    with translation.override(receipt.language):
        context = {
            "merchant": merchant,
            "merchant_name": merchant.name,
            "amount_display": format_customer_amount(
                charge.amount, charge.currency, receipt.language
            ),
            "paid_at": charge.finalized_at or session.completed_at,
            "charge": charge,
            "operator_reference": charge.provider_reference,
            "description": session.payment_link.description if session.payment_link else "",
            "language": receipt.language,
        }
        subject = _("Your payment to %(merchant)s") % {"merchant": merchant.name}
        text = render_to_string("links/receipt.txt", context)
        html = render_to_string("links/receipt.html", context)
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[receipt.email],
        reply_to=[merchant.support_email] if merchant.support_email else None,
    )
    message.attach_alternative(html, "text/html")
    return message


def receipt_send(*, receipt_id: int) -> bool:
    """Mail the receipt once: its row is locked while it is sent and marked sent in the same
    transaction, so a retry, or a second worker given the same task, finds it sent and sends
    nothing. A mail server's refusal is recorded and raised (the task retries later)."""
    with transaction.atomic():
        receipt = (
            Receipt.objects.select_for_update(of=("self",))
            .select_related(
                "session__merchant", "session__succeeded_charge", "session__payment_link"
            )
            .get(pk=receipt_id)
        )
        if receipt.sent_at is not None:
            return False
        receipt.attempts += 1
        try:
            receipt_message(receipt).send()
        except Exception as exc:  # the mail server's answer, whatever it is: recorded, retried
            error = exc
            receipt.last_error = f"{type(exc).__name__}: {exc}"[:500]
            receipt.save(update_fields=["attempts", "last_error"])
        else:
            receipt.sent_at = timezone.now()
            receipt.last_error = ""
            receipt.save(update_fields=["attempts", "last_error", "sent_at"])
            return True
    logger.warning("receipt %s not sent (attempt %s): %s", receipt_id, receipt.attempts, error)
    raise error
