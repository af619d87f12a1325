"""/dashboard/{mode}/payment-links/: the merchant's payment links in keyset pages with a form
for a new one (through the API's serializer and service, link_create, once per form), and a
link's page: its address to copy and share, its QR code, its payments, and deactivating or
activating it (link_set_active)."""

from urllib.parse import quote

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from core.errors import ApiError
from core.links import public_url
from dashboard import audit
from dashboard.pages.common import livemode, of_merchant, page_of, query_without_cursor
from dashboard.pages.forms import PaymentLinkForm
from dashboard.pages.once import FIELD, once, tell
from dashboard.permissions import can, merchant_view
from links import selectors as links
from links.services import link_create, link_set_active
from payments import selectors as payments


def state_of(link, now=None) -> tuple[str, str]:
    """The link's state as its badge shows it: its class and its name."""
    now = now or timezone.now()
    if not link.active:
        return "inactive", pgettext("payment link", "Inactive")
    if link.expires_at is not None and link.expires_at <= now:
        return "expired", pgettext("payment link", "Expired")
    if link.exhausted:
        return "exhausted", pgettext("payment link", "Used up")
    return "active", pgettext("payment link", "Active")


def with_state(rows: list) -> list:
    now = timezone.now()
    for link in rows:
        link.state, link.state_label = state_of(link, now)
    return rows


def _list(request, *, form=None, status: int = 200):
    scope = links.link_list(merchant=request.merchant, livemode=livemode(request), filters={})
    page = page_of(request, scope, scope=scope)
    with_state(page.rows)
    if form is None and can(request.membership, "payment_links"):
        form = PaymentLinkForm()
    return render(
        request,
        "dashboard/payment_links/list.html",
        {"page": page, "query": query_without_cursor(request), "form": form},
        status=status,
    )


@merchant_view("view")
def link_list(request, mode):
    return _list(request)


@merchant_view("payment_links")
def link_new(request, mode):
    """POST: a new link through the API's serializer and service, once per form."""
    if request.method != "POST":
        return redirect("dashboard:payment-links", mode=mode)
    form = PaymentLinkForm(request.POST)
    live = livemode(request)
    checked = form.link_fields(livemode=live, merchant=request.merchant)
    if checked is None:
        return _list(request, form=form, status=400)
    body, fields = checked

    def make() -> str:
        link = link_create(merchant=request.merchant, livemode=live, **fields)
        audit.record(request, "payment_link.created", object_id=link.id)
        return link.id

    try:
        done = once(request, key=form.cleaned_data[FIELD], data=body, operation=make)
    except ApiError as error:
        form.add_api_error(error)
        return _list(request, form=form, status=error.status)
    tell(
        request,
        done,
        made=_("Payment link %(id)s created."),
        again=_("This payment link form had already been sent: payment link %(id)s."),
    )
    return redirect("dashboard:payment-link", mode=mode, link_id=done.object_id)


def share_urls(url: str, description: str) -> dict[str, str]:
    """WhatsApp's and the SMS app's addresses that open a message with the link in it."""
    text = _("%(description)s — pay here: %(url)s") % {"description": description, "url": url}
    encoded = quote(text, safe="")
    return {"whatsapp": f"https://wa.me/?text={encoded}", "sms": f"sms:?body={encoded}"}


def _link(request, link_id: str):
    return of_merchant(
        links.link_get, merchant=request.merchant, livemode=livemode(request), link_id=link_id
    )


@merchant_view("view")
def link_detail(request, mode, link_id):
    link = _link(request, link_id)
    link.state, link.state_label = state_of(link)
    url = public_url("links-page", link.slug)
    scope = payments.charges_of(merchant=request.merchant, livemode=livemode(request))
    paid = scope.filter(checkout_session__payment_link=link)
    return render(
        request,
        "dashboard/payment_links/detail.html",
        {
            "link": link,
            "url": url,
            "qr_svg": reverse("links-qr-svg", args=[link.slug]),
            "qr_png": reverse("links-qr-png", args=[link.slug]),
            "share": share_urls(url, link.description),
            "page": page_of(request, paid, scope=paid),
            "query": query_without_cursor(request),
        },
    )


def _set_active(request, mode, link_id, *, active: bool):
    """POST: the link deactivated or activated by the API's service, and audited; a link that
    already is so is left alone (a second click, even at once, changes and records nothing)."""
    link = _link(request, link_id)
    if request.method != "POST":
        return redirect("dashboard:payment-link", mode=mode, link_id=link.id)
    with transaction.atomic():
        changed = link_set_active(link=link, active=active)
        if changed:
            action = "payment_link.activated" if active else "payment_link.deactivated"
            audit.record(request, action, object_id=link.id)
    if changed:
        said = (
            _("Payment link %(id)s activated: its page takes payments again.")
            if active
            else _("Payment link %(id)s deactivated: its page no longer takes payments.")
        )
        messages.success(request, said % {"id": link.id})
    return redirect("dashboard:payment-link", mode=mode, link_id=link.id)


@merchant_view("payment_links")
def link_deactivate(request, mode, link_id):
    return _set_active(request, mode, link_id, active=False)


@merchant_view("payment_links")
def link_activate(request, mode, link_id):
    return _set_active(request, mode, link_id, active=True)
