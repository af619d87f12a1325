"""The hosted checkout pages (/pay/{id}): thin views that read the session, call one service and
render. Every page carries a strict Content-Security-Policy, X-Frame-Options DENY and no-store."""

from functools import wraps
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from checkout import selectors, services
from checkout.forms import MobileMoneyForm
from checkout.models import CheckoutSession, SessionStatus
from checkout.pages import hosted_page, language_links, too_many_message
from core import throttles
from core.errors import ApiError, CheckoutSessionNotOpen
from core.headers import content_security_policy
from core.money import format_customer_amount
from payments.models import Charge, ChargeStatus, PaymentMethod
from payments.services import charges

POLL_SECONDS = 3
FAILED = (ChargeStatus.FAILED, ChargeStatus.DECLINED)
FAILURE_TEXTS = {
    "insufficient_funds": _("Your mobile money balance is too low for this payment."),
    "customer_rejected": _("The payment was refused on the phone."),
    "timeout": _("The payment prompt was not approved in time."),
}
FAILURE_DEFAULT = _("The operator could not complete the payment.")


# --- Where each state leads ---------------------------------------------------------------------


def _page_url(session: CheckoutSession, **query) -> str:
    url = reverse("checkout-pay", args=[session.id])
    return f"{url}?{urlencode(query)}" if query else url


def _refresh_url(session: CheckoutSession, charge: Charge) -> str:
    """Where the waiting page of an attempt reloads to (no-JS) and the status endpoint points."""
    if charge.payment_method == PaymentMethod.CARD:
        url = reverse("checkout-card-return", args=[session.id])
        return f"{url}?{urlencode({'transaction_id': charge.id})}"
    return _page_url(session, attempt=charge.id)


def _next_url(session: CheckoutSession, charge: Charge) -> str | None:
    """Once an attempt is final: success → the merchant's success_url; a card failure → its
    cancel_url; a mobile money failure → back to our page, which shows it and lets them retry.
    A payment that could not be accepted (late, or on a closed session: refunded) → our page,
    which says the money will be returned — never the merchant's success_url."""
    if charge.late_payment_at is not None:
        return _page_url(session, attempt=charge.id)
    if charge.status == ChargeStatus.SUCCEEDED:
        return services.success_redirect_url(session, charge)
    if charge.status in FAILED:
        if charge.payment_method == PaymentMethod.CARD:
            return services.cancel_redirect_url(session, charge)
        return _page_url(session, attempt=charge.id)
    return None


# --- Rendering ----------------------------------------------------------------------------------


def _context(request, session: CheckoutSession, **extra) -> dict:
    language = translation.get_language()[:2]
    return {
        "session": session,
        "merchant": session.merchant,
        "merchant_name": session.merchant.name,
        "amount_display": format_customer_amount(session.amount, session.currency, language),
        "description": services.session_description(session),
        "language": language,
        "language_links": language_links(request),
        "cancel_url": services.cancel_redirect_url(session),
        **extra,
    }


def _offers_card(session: CheckoutSession) -> bool:
    return PaymentMethod.CARD in session.payment_methods and services.card_offered(
        merchant=session.merchant, livemode=session.livemode, currency=session.currency
    )


def _mobile_money_form(
    session: CheckoutSession, data=None, *, failed: Charge | None = None
) -> MobileMoneyForm:
    """The phone form, offering only the networks that can take the payment now. After a failed
    attempt it keeps that attempt's number (the page invites the customer to try again with it);
    otherwise it offers the number the merchant gave, if any."""
    return MobileMoneyForm(
        data,
        initial={"phone": failed.phone if failed and failed.phone else session.customer_phone},
        amount=session.amount,
        currency=session.currency,
        unavailable=services.session_networks(session),
    )


def _pay_page(
    request, session, *, form=None, failed=None, error=None, status=200, late_payment=False
):
    form = form or _mobile_money_form(session, failed=failed)
    mobile_money = PaymentMethod.MOBILE_MONEY in session.payment_methods
    return render(
        request,
        "checkout/pay.html",
        _context(
            request,
            session,
            form=form,
            offers_mobile_money=mobile_money and bool(form.offered),
            mobile_money_unavailable=mobile_money and not form.offered,
            offers_card=_offers_card(session),
            failed=failed,
            failed_return_url=services.cancel_redirect_url(session, failed) if failed else "",
            failure_text=FAILURE_TEXTS.get(failed.failure_code, FAILURE_DEFAULT) if failed else "",
            error=error,
            late_payment=late_payment,
        ),
        status=status,
    )


def _waiting_page(request, session: CheckoutSession, charge: Charge):
    refresh = _refresh_url(session, charge)
    status_url = reverse("checkout-status", args=[session.id])
    return render(
        request,
        "checkout/waiting.html",
        _context(
            request,
            session,
            charge=charge,
            refresh_url=refresh,
            poll_url=f"{status_url}?{urlencode({'attempt': charge.id})}",
            poll_seconds=POLL_SECONDS,
        ),
    )


def _closed_page(request, session: CheckoutSession, *, late_payment: bool = False):
    """A complete or expired session: a clear page, no forms."""
    if session.status == SessionStatus.COMPLETE:
        charge = session.succeeded_charge
        return render(
            request,
            "checkout/complete.html",
            _context(
                request,
                session,
                return_url=services.success_redirect_url(session, charge),
                late_payment=late_payment,
            ),
        )
    return render(
        request,
        "checkout/expired.html",
        _context(request, session, late_payment=late_payment),
        status=410,
    )


def _late_payment_page(request, session: CheckoutSession, charge: Charge):
    """The attempt's payment was made but not accepted: it is being refunded.
    An open session still lets the customer pay again."""
    if session.status == SessionStatus.OPEN and session.expires_at > timezone.now():
        failed = charge if charge.status in FAILED else None
        return _pay_page(request, session, failed=failed, late_payment=True)
    return _closed_page(request, session, late_payment=True)


def _not_found(request):
    context = {"language": translation.get_language()[:2]}  # the page's lang, as its words
    return render(request, "checkout/not_found.html", context, status=404)


def _load(session_id: str) -> CheckoutSession | None:
    session = selectors.session_for_page(session_id=session_id)
    if session is not None and session.status == SessionStatus.OPEN:
        if session.expires_at <= timezone.now() and services.session_expire_if_due(
            session_id=session.id
        ):
            session.refresh_from_db()
    return session


# --- Views --------------------------------------------------------------------------------------


@require_GET
@hosted_page
def pay(request, session_id: str):
    session = _load(session_id)
    if session is None:
        return _not_found(request)
    attempt = selectors.session_charge(session=session, charge_id=request.GET.get("attempt", ""))
    if attempt is not None and attempt.late_payment_at is not None:
        return _late_payment_page(request, session, attempt)
    if attempt is not None and attempt.status == ChargeStatus.SUCCEEDED:
        return HttpResponseRedirect(services.success_redirect_url(session, attempt))
    pending = selectors.session_pending_charge(session=session)
    if pending is not None:
        return _waiting_page(request, session, pending)
    if session.status != SessionStatus.OPEN or session.expires_at <= timezone.now():
        return _closed_page(request, session)
    failed = attempt if attempt is not None and attempt.status in FAILED else None
    return _pay_page(request, session, failed=failed)


def too_many_prompts_message(wait: int) -> str:
    """What the page says when the phone was prompted too often lately: when to try again, in
    minutes, or in hours when it is longer than that."""
    minutes = max(1, -(-wait // 60))
    if minutes <= 90:
        return translation.ngettext(
            "Too many payment requests to this number. Please try again in %(count)s minute.",
            "Too many payment requests to this number. Please try again in %(count)s minutes.",
            minutes,
        ) % {"count": minutes}
    hours = -(-wait // 3600)
    return translation.ngettext(
        "Too many payment requests to this number. Please try again in %(count)s hour.",
        "Too many payment requests to this number. Please try again in %(count)s hours.",
        hours,
    ) % {"count": hours}


def _too_many_attempts(request, session: CheckoutSession):
    """Payment attempts are throttled per session and per client address, so a page cannot be
    used to send prompt after prompt to someone's phone: past the limit, the page says when to
    try again (429 with Retry-After)."""
    address = throttles.client_address(request)
    for scope, ident, rate in (
        ("checkout_session", session.id, settings.THROTTLE_CHECKOUT_ATTEMPTS_SESSION),
        ("checkout_address", address, settings.THROTTLE_CHECKOUT_ATTEMPTS_ADDRESS),
    ):
        wait = throttles.hit(scope, ident, rate)
        if wait is not None:
            response = _pay_page(request, session, error=too_many_message(wait), status=429)
            response["Retry-After"] = str(wait)
            return response
    return None


def _attempt(request, session: CheckoutSession, *, form=None, **kwargs):
    """Start an attempt; returns (charge, response). The response is set when the page must show
    something else instead (another attempt in progress, a closed session, an error, a phone
    prompted too often: the page again, with the number typed, 429)."""
    too_many = _too_many_attempts(request, session)
    if too_many is not None:
        return None, too_many
    try:
        charge = services.session_attempt_create(
            session_id=session.id, locale=translation.get_language()[:2], **kwargs
        )
    except services.AttemptInProgress as exc:
        if exc.charge.payment_method == PaymentMethod.CARD and kwargs.get("payment_method") == (
            PaymentMethod.CARD
        ):
            # Back to the card payment page: a freshly signed attempt, never the old form.
            return charges.charge_card_new_attempt(
                charge_id=exc.charge.id, locale=translation.get_language()[:2]
            ), None
        return exc.charge, None
    except services.PhonePromptsExceeded as exc:
        response = _pay_page(
            request, session, form=form, error=too_many_prompts_message(exc.wait), status=429
        )
        response["Retry-After"] = str(exc.wait)
        return None, response
    except CheckoutSessionNotOpen:
        return None, HttpResponseRedirect(_page_url(session))
    except ApiError as exc:
        return None, _pay_page(request, session, error=exc.message, status=400)
    return charge, None


def open_session(view):
    """A payment posted to a session: an unknown session is not found, and one no longer open
    sends the customer back to its page; else the view gets the open session."""

    @wraps(view)
    def wrapper(request, session_id: str):
        session = _load(session_id)
        if session is None:
            return _not_found(request)
        if session.status != SessionStatus.OPEN:
            return HttpResponseRedirect(_page_url(session))
        return view(request, session)

    return wrapper


@require_POST
@hosted_page
@open_session
def pay_mobile_money(request, session: CheckoutSession):
    form = _mobile_money_form(session, request.POST)
    if not form.is_valid():
        return _pay_page(request, session, form=form, status=400)
    charge, response = _attempt(
        request,
        session,
        form=form,
        payment_method=PaymentMethod.MOBILE_MONEY,
        phone=form.cleaned_data["phone"],
        network=form.cleaned_data["network"],
    )
    if response is not None:
        return response
    return HttpResponseRedirect(_refresh_url(session, charge), status=303)


@require_POST
@hosted_page
@open_session
def pay_card(request, session: CheckoutSession):
    charge, response = _attempt(request, session, payment_method=PaymentMethod.CARD)
    if response is not None:
        return response
    if charge.payment_method != PaymentMethod.CARD or not charge.next_action:
        return HttpResponseRedirect(_refresh_url(session, charge), status=303)
    payment_url = charge.next_action["payment_url"]
    target = urlsplit(payment_url)
    response = render(
        request,
        "checkout/card_redirect.html",
        _context(
            request,
            session,
            payment_url=payment_url,
            params=sorted(charge.next_action["params"].items()),
        ),
    )
    response["Content-Security-Policy"] = content_security_policy(
        f"{target.scheme}://{target.netloc}"
    )
    return response


@require_GET
@hosted_page
def card_return(request, session_id: str):
    """Where the card receipt handler sends the browser once the provider's reply is checked."""
    session = selectors.session_for_page(session_id=session_id)
    if session is None:
        return _not_found(request)
    charge = selectors.session_charge(
        session=session, charge_id=request.GET.get("transaction_id", "")
    )
    if charge is None:
        return _not_found(request)
    next_url = _next_url(session, charge)
    if next_url is not None:
        return HttpResponseRedirect(next_url)
    return _waiting_page(request, session, charge)


@require_GET
def attempt_status(request, session_id: str):
    """The waiting page's poll: {"status": "pending"|…, "next": url or null}."""
    session = selectors.session_for_page(session_id=session_id)
    charge = (
        selectors.session_charge(session=session, charge_id=request.GET.get("attempt", ""))
        if session is not None
        else None
    )
    if charge is None:
        response = JsonResponse({"error": "not_found"}, status=404)
    else:
        response = JsonResponse({"status": charge.status, "next": _next_url(session, charge)})
    response["Cache-Control"] = "no-store"
    return response
