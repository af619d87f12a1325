"""The payment link's public page (/pay/{slug}) and its QR codes: thin views that read the link,
call one service and render. The page is a hosted page like checkout's (language, security
headers); an inactive, expired or used-up link answers 410."""

import hashlib
import io

import segno
from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseNotModified, HttpResponseRedirect
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from checkout.pages import hosted_page, language_links, too_many_message
from checkout.services import card_offered
from core import throttles
from core.errors import ApiError
from core.links import public_url
from core.money import format_customer_amount
from links import selectors, services
from links.forms import LinkPayForm, amount_refused
from links.models import PaymentLink

QR_MAX_AGE = 24 * 3600  # a link's URL never changes: its QR code may be kept a day
QR_SVG_SCALE = 8
QR_PNG_SCALE = 10


def _context(request, link: PaymentLink, **extra) -> dict:
    language = translation.get_language()[:2]
    return {
        "link": link,
        "merchant": link.merchant,
        "merchant_name": link.merchant.name,
        "amount_display": (
            format_customer_amount(link.amount, link.currency, language)
            if link.amount is not None
            else ""
        ),
        "language": language,
        "language_links": language_links(request),
        # What the next page offers: a CDF link's page never promises a card.
        "card": card_offered(
            merchant=link.merchant, livemode=link.livemode, currency=link.currency
        ),
        **extra,
    }


def _page(request, link: PaymentLink, *, form=None, error="", status=200):
    form = form or LinkPayForm(custom_amount=link.custom_amount)
    return render(
        request,
        "links/page.html",
        _context(request, link, form=form, error=error),
        status=status,
    )


def _gone(request, link: PaymentLink):
    if not link.active:
        reason = _("The merchant has deactivated it.")
    elif link.exhausted:
        reason = _("It has already received all the payments it was made for.")
    else:
        reason = _("Its time to pay is over.")
    return render(request, "links/gone.html", _context(request, link, reason=reason), status=410)


def _not_found(request):
    return render(request, "checkout/not_found.html", {}, status=404)


def _too_many(request, link: PaymentLink, wait: int):
    response = _page(request, link, error=too_many_message(wait), status=429)
    response["Retry-After"] = str(wait)
    return response


def _refusal(exc: ApiError, link: PaymentLink, form: LinkPayForm) -> str:
    """What the page says of checkout's refusal: its amount_invalid speaks to integrators
    (`amount`, minor units), so the customer reads the form's own words instead."""
    if exc.code != "amount_invalid":
        return exc.message
    return amount_refused(
        currency=link.currency,
        amount=form.cleaned_data["amount"] if link.custom_amount else link.amount,
        custom_amount=link.custom_amount,
        merchant_name=link.merchant.name,
        card=card_offered(merchant=link.merchant, livemode=link.livemode, currency=link.currency),
    )


@require_http_methods(["GET", "HEAD", "POST"])
@hosted_page
def page(request, slug: str):
    """GET: the link's page. POST (the pay button): a new checkout session of the link, then its
    hosted page — unless the link closed meanwhile (410), the form is wrong (400, in words), or
    this address opened too many sessions lately (429, THROTTLE_PAYMENT_LINK_SESSIONS)."""
    link = selectors.link_for_page(slug=slug)
    if link is None:
        return _not_found(request)
    if link.closed():
        return _gone(request, link)
    if request.method != "POST":
        return _page(request, link)
    form = LinkPayForm(request.POST, custom_amount=link.custom_amount)
    if not form.is_valid():
        return _page(request, link, form=form, status=400)
    wait = throttles.hit(
        "payment_link_sessions",
        throttles.client_address(request),
        settings.THROTTLE_PAYMENT_LINK_SESSIONS,
    )
    if wait is not None:
        return _too_many(request, link, wait)
    try:
        session = services.link_open_session(
            link=link,
            amount=form.cleaned_data.get("amount"),
            customer_email=form.cleaned_data.get("email", ""),
            language=translation.get_language()[:2],
        )
    except services.LinkClosed:
        return _gone(request, link)
    except ApiError as exc:
        form.add_error("amount" if link.custom_amount else None, _refusal(exc, link, form))
        return _page(request, link, form=form, status=400)
    return HttpResponseRedirect(public_url("checkout-pay", session.id), status=303)


@require_safe
@hosted_page
def done(request, slug: str):
    """Where a customer lands after paying when the link has no success_url: what they paid
    for, and, for the session the address names, the amount and the references they can show
    the merchant (the receipt's)."""
    link = selectors.link_for_page(slug=slug)
    if link is None:
        return _not_found(request)
    session = selectors.paid_session_of(link=link, session_id=request.GET.get("session_id", ""))
    charge = session.succeeded_charge if session is not None else None
    paid = {}
    if charge is not None:
        paid = {
            "charge": charge,
            "paid_amount": format_customer_amount(
                charge.amount, charge.currency, translation.get_language()[:2]
            ),
            "paid_at": charge.finalized_at or session.completed_at,
        }
    return render(request, "links/done.html", _context(request, link, **paid))


def _qr(request, slug: str, *, kind: str, content_type: str, scale: int):
    """The QR code of the link's `url`, cacheable: its ETag is the URL's digest (the URL never
    changes), and a client that has it gets 304."""
    link = selectors.link_for_page(slug=slug)
    if link is None:
        raise Http404
    url = public_url("links-page", link.slug)
    etag = '"' + hashlib.sha256(f"{kind}:{scale}:{url}".encode()).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={QR_MAX_AGE}"}
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        buffer = io.BytesIO()
        segno.make(url, error="m").save(buffer, kind=kind, scale=scale, border=4)
        response = HttpResponse(buffer.getvalue(), content_type=content_type)
    for name, value in headers.items():
        response[name] = value
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_safe
def qr_svg(request, slug: str):
    return _qr(request, slug, kind="svg", content_type="image/svg+xml", scale=QR_SVG_SCALE)


@require_safe
def qr_png(request, slug: str):
    return _qr(request, slug, kind="png", content_type="image/png", scale=QR_PNG_SCALE)
