"""/dashboard/{mode}/developers/: the mode's API keys (listed by prefix, with the member who made
each; a new key's secret is shown once, on the page that made it; revoke; live keys only by the
owner and admins, as they move money), the webhook endpoint (URL, secret reveal and
rotation) and the events with their deliveries and resend, each through the API's service."""

import json
from functools import wraps

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import ApiError
from dashboard import audit
from dashboard.pages.common import livemode, of_merchant, page_of, query_without_cursor, row_id
from dashboard.pages.forms import KeyForm, OnceForm, WebhookEndpointForm
from dashboard.pages.once import FIELD, once
from dashboard.permissions import (
    can,
    forbidden,
    live_sensitive,
    merchant_view,
    names_another_merchants_object,
)
from payments.models import ApiKey
from payments.services.accounts import api_key_create, api_key_revoke
from webhooks import selectors as webhook_selectors
from webhooks import services as webhook_services
from webhooks.models import Event


def _keys(request):
    return (
        ApiKey.objects.filter(merchant=request.merchant, mode=request.mode)
        .select_related("created_by")
        .order_by("-created_at", "-id")
    )


def keys_managed(request) -> bool:
    """Whether the member may create and revoke this mode's keys: a live key moves money, so
    only the roles with the payout right too (owner, admin) hold live ones."""
    return request.mode != "live" or can(request.membership, "live_keys")


def key_right(view):
    """A key action of the mode for the members who may manage its keys; 403 otherwise, with
    nothing changed (404 for a key that is not the merchant's in this mode, as for any
    role)."""

    @wraps(view)
    def guarded(request, mode, *args, **kwargs):
        if not keys_managed(request):
            if names_another_merchants_object(request.merchant, mode, kwargs):
                raise Http404
            return forbidden(request)
        return view(request, mode, *args, **kwargs)

    return guarded


def _page(request, *, status=200, **context):
    endpoint = webhook_services.endpoint_get(merchant=request.merchant, livemode=livemode(request))
    recent = Event.objects.filter(merchant=request.merchant, livemode=livemode(request)).order_by(
        "-created_at", "-id"
    )[:10]
    return render(
        request,
        "dashboard/developers/index.html",
        {
            "keys": _keys(request),
            "keys_managed": keys_managed(request),
            "key_form": context.pop("key_form", None) or KeyForm(),
            "rotate_form": context.pop("rotate_form", None) or OnceForm(),
            "endpoint": endpoint,
            "endpoint_form": context.pop("endpoint_form", None)
            or WebhookEndpointForm(initial={"url": endpoint.url}),
            "events": recent,
            **context,
        },
        status=status,
    )


def _secret_shown(request, **secret):
    """The page with a secret on it, which no cache keeps."""
    response = _page(request, **secret)
    response["Cache-Control"] = "no-store"
    return response


def posted(view):
    """An action of the page: sent by its forms (POST); a GET (a link, a reload after a
    re-confirmation) shows the page instead."""

    @wraps(view)
    def action(request, mode, *args, **kwargs):
        if request.method != "POST":
            return redirect("dashboard:developers", mode=mode)
        return view(request, mode, *args, **kwargs)

    return action


@merchant_view("developers")
def developers(request, mode):
    return _page(request)


@merchant_view("developers")
@key_right
@live_sensitive
@posted
def key_create(request, mode):
    """A new key of the mode; its secret is on this answer only (it is stored as a hash)."""
    form = KeyForm(request.POST)
    if not form.is_valid():
        return _page(request, key_form=form, status=400)
    name = form.cleaned_data["name"].strip()
    made = {}

    def issue() -> str:
        issued = api_key_create(
            merchant=request.merchant, mode=request.mode, created_by_id=request.user.pk, name=name
        )
        audit.record(
            request,
            "api_key.created",
            object_id=issued.api_key.prefix,
            details={"name": name} if name else None,
        )
        made["plaintext"] = issued.plaintext
        return str(issued.api_key.pk)

    try:
        done = once(
            request, key=form.cleaned_data.get(FIELD, ""), data={"name": name}, operation=issue
        )
    except ApiError as error:
        form.add_api_error(error)
        return _page(request, key_form=form, status=error.status)
    if done.replayed:
        messages.info(
            request,
            _(
                "This form had already made a key; its secret was shown once and cannot be "
                "shown again. Revoke it if it was not kept."
            ),
        )
        return redirect("dashboard:developers", mode=mode)
    return _secret_shown(request, new_key=made["plaintext"])


@merchant_view("developers")
@key_right
@posted
def key_revoke(request, mode, key_id):
    pk = row_id(key_id)
    key = _keys(request).filter(pk=pk).first() if pk is not None else None
    if key is None:
        raise Http404  # another merchant's or mode's key
    with transaction.atomic():  # recorded only by the request that revoked it
        revoked = api_key_revoke(api_key=key)
        if revoked:
            audit.record(request, "api_key.revoked", object_id=key.prefix)
    if revoked:
        messages.success(request, _("Key %(key)s revoked.") % {"key": str(key)})
    return redirect("dashboard:developers", mode=mode)


@merchant_view("developers")
@live_sensitive
@posted
def endpoint_update(request, mode):
    form = WebhookEndpointForm(request.POST)
    url = form.endpoint_url(livemode=livemode(request))
    if url is None:
        return _page(request, endpoint_form=form, status=400)
    with transaction.atomic():  # recorded only when the URL changed (not by a form sent again)
        changed = webhook_services.endpoint_set_url(
            merchant=request.merchant, livemode=livemode(request), url=url
        )
        if changed:
            audit.record(request, "webhook_endpoint.updated", object_id=url or "-")
    messages.success(request, _("Webhook URL saved."))
    return redirect("dashboard:developers", mode=mode)


@merchant_view("developers")
@live_sensitive
@posted
def secret_reveal(request, mode):
    """The endpoint's signing secret, shown on this answer (POST: a deliberate act, audited)."""
    endpoint = webhook_services.endpoint_get(merchant=request.merchant, livemode=livemode(request))
    audit.record(request, "api_key.revealed", object_id=f"webhook_secret:{request.mode}")
    return _secret_shown(request, secret=endpoint.secret)


@merchant_view("developers")
@live_sensitive
@posted
def secret_rotate(request, mode):
    """A new signing secret, the current one kept for 24 h. Once per form: a second rotation
    from the same form (a double click) would push out the secret the merchant's receiver
    still checks, with no 24 h to change it."""
    form = OnceForm(request.POST)
    form.is_valid()

    def rotate() -> str:
        endpoint = webhook_services.endpoint_rotate_secret(
            merchant=request.merchant, livemode=livemode(request)
        )
        audit.record(request, "webhook_secret.rotated", object_id=f"webhook_secret:{request.mode}")
        return str(endpoint.pk)

    try:
        done = once(request, key=form.cleaned_data.get(FIELD, ""), data={}, operation=rotate)
    except ApiError as error:
        form.add_api_error(error)
        return _page(request, rotate_form=form, status=error.status)
    if done.replayed:
        messages.info(request, _("This form had already rotated the secret: it is shown below."))
    else:
        messages.success(
            request,
            _("New signing secret made; the previous one keeps signing deliveries for 24 hours."),
        )
    endpoint = webhook_services.endpoint_get(merchant=request.merchant, livemode=livemode(request))
    return _secret_shown(request, secret=endpoint.secret)


@merchant_view("developers")
def event_list(request, mode):
    scope = Event.objects.filter(merchant=request.merchant, livemode=livemode(request))
    kind = request.GET.get("type") or ""
    events = webhook_selectors.event_list(
        merchant=request.merchant, livemode=livemode(request), filters={"type": kind}
    )
    return render(
        request,
        "dashboard/developers/events.html",
        {
            "page": page_of(request, events, scope=scope),
            "query": query_without_cursor(request),
            "kind": kind,
            "types": Event._meta.get_field("type").choices,
        },
    )


def _event(request, event_id):
    return of_merchant(
        webhook_selectors.event_get,
        merchant=request.merchant,
        livemode=livemode(request),
        event_id=event_id,
    )


def _event_page(request, event, *, status=200, error="", form=None):
    return render(
        request,
        "dashboard/developers/event.html",
        {
            "event": event,
            "resend_form": form or OnceForm(),
            # The event's data as JSON, as the merchant's receiver reads it in the delivery.
            "data": json.dumps(event.data, indent=2, ensure_ascii=False),
            "deliveries": webhook_selectors.event_deliveries(event=event),
            "destination": webhook_selectors.event_current_destination(event=event),
            "error": error,
        },
        status=status,
    )


@merchant_view("developers")
def event_detail(request, mode, event_id):
    return _event_page(request, _event(request, event_id))


@merchant_view("developers")
def event_resend(request, mode, event_id):
    """Send the event again through the API's resend (its bounds: 5 per event and 100 per
    merchant and mode in an hour)."""
    event = _event(request, event_id)
    if request.method != "POST":
        return redirect("dashboard:event", mode=mode, event_id=event.id)
    form = OnceForm(request.POST)
    form.is_valid()
    sent_to = {}

    def resend() -> str:
        delivery = webhook_services.event_resend(event=event)
        audit.record(request, "event.resent", object_id=event.id)
        sent_to["url"] = delivery.url
        return str(delivery.pk)

    try:  # once per form: a double click counts one resend against the event's five
        done = once(request, key=form.cleaned_data.get(FIELD, ""), data={}, operation=resend)
    except ApiError as error:
        return _event_page(
            request, event, status=error.status, error=error.localized(), form=OnceForm()
        )
    if done.replayed:
        messages.info(request, _("This form had already sent the event again."))
    else:
        messages.success(request, _("Event queued for sending to %(url)s.") % sent_to)
    return redirect("dashboard:event", mode=mode, event_id=event.id)
