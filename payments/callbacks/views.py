"""Operators' callbacks (POST /providers/<network>/callback), one view for every network.

The network's adapter (payments/providers/registry.py) authenticates the callback and says which
charge or refund it is about; while a setting it needs for that (its `callback_settings`) is unset,
its callbacks are refused. A callback is a hint, never a verdict: once authenticated, it enqueues
the status check (tasks.charge_refresh → services.charge_refresh, which asks the operator itself)
and the operator gets its small JSON 200 at once; the body never sets a status. A charge failed by
our clock and still under reconciliation gets its reconciliation check instead. A callback that
names our succeeded live charge under another operator transaction id than the one recorded (a
second payment) is recorded for staff and queues the check of that transaction
(services.charge_extra_payment_check), given back if the operator confirms it. Unknown, final,
test-mode and other-network charges are otherwise acknowledged and ignored. A callback about one of our
refunds (Orange calls back for the cashin of a refund) queues the refund's status check. The
operator's own id a callback states (Orange's `reference`, the airtel_money_id of a payment Airtel
reports made) is kept on the live charge or refund while it has none; that is all a callback body
ever writes.
Callback-triggered status checks are bounded per charge (refund, payout): at most one per
CHECK_INTERVAL seconds, claimed with the shared cache's atomic add (Redis SET NX with an expiry) by
the first callback of the interval; every other callback in it, duplicate, replayed or forged,
queues nothing, and with the cache out of reach no callback queues anything. A check is only ever
queued for a pending live charge of that network, and the task skips a charge that is final by the
time it runs. The poller (beat `charges-poll-due`) checks every pending charge anyway, so a
callback that queues nothing loses nothing. If the broker cannot take the task, the callback is
still acknowledged and the interval freed for a later callback. A refused
callback gets the contract's error envelope (beside `"received": false`), never a 500: its body is
read by the one safe JSON loader, and one over MAX_REQUEST_BODY is refused with 413 before it is
read.
"""

import logging

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from core import throttles
from core.api.errors import callback_refusal as _refuse
from core.api.errors import not_found_view, rate_limited_response
from core.api.parsers import InvalidJson, loads_object
from payments.models import (
    Charge,
    ChargeStatus,
    PaymentMethod,
    Payout,
    PayoutStatus,
    Refund,
    RefundStatus,
)
from payments.providers import registry
from payments.providers.base import (
    CallbackIncomplete,
    CallbackNotice,
    CallbackUnauthenticated,
    CallingBack,
    ProviderCallback,
)
from payments.services import charges, queues

logger = logging.getLogger("payments.callbacks")
# Operators call from a few addresses, so the rate per address is generous (THROTTLE_CALLBACKS).
callbacks_throttled = throttles.per_address(
    "callbacks", "THROTTLE_CALLBACKS", rate_limited_response
)

CHECK_INTERVAL = 30  # seconds: at most one callback-triggered status check per charge in each


def _answer() -> JsonResponse:
    return JsonResponse({"received": True})


def _json(request: HttpRequest) -> dict | JsonResponse:
    """The callback's JSON object, or the 400 that refuses it."""
    try:
        return loads_object(request.body or b"{}")
    except InvalidJson as exc:
        return _refuse(
            request,
            400,
            type="invalid_request_error",
            code="invalid_json",
            message=f"The request body must be a JSON object ({exc}).",
        )


def _missing(request: HttpRequest, param: str) -> JsonResponse:
    return _refuse(
        request,
        400,
        type="invalid_request_error",
        code="parameter_missing",
        message=f"Missing required param: {param}.",
        param=param,
    )


def _window_key(charge_id: str) -> str:
    return f"payments:callback-check:{charge_id}"


def _claim_interval(ident: str, network: str) -> bool:
    """Whether this callback claims the CHECK_INTERVAL of `ident` (atomically: of any number of
    callbacks at once, one gets it) and may queue its status check."""
    try:
        claimed = bool(cache.add(_window_key(ident), 1, timeout=CHECK_INTERVAL))
    except Exception as exc:  # the cache is down: no bound can be kept, so nothing is queued
        logger.warning(
            "%s callback for %s: status check not enqueued, the shared cache is unavailable (%s);"
            " the poller will check it",
            network,
            ident,
            exc,
        )
        return False
    if not claimed:
        logger.info(
            "%s callback for %s: a status check was queued less than %ss ago",
            network,
            ident,
            CHECK_INTERVAL,
        )
    return claimed


def _publish(charge_id: str, network: str, task) -> None:
    try:
        task(charge_id)
    except Exception as exc:  # broker down: the operator must not retry for our fault
        logger.error(
            "%s callback for %s: status check not enqueued (%s); the poller will check it",
            network,
            charge_id,
            exc,
        )
        try:  # a later callback for this charge may try again
            cache.delete(_window_key(charge_id))
        except Exception:
            pass


def _enqueue(what: str, ident: str, network: str, *, pending: bool, task) -> JsonResponse:
    """Enqueue `task(ident)` at most once per CHECK_INTERVAL if the charge or refund is waiting
    for it."""
    if not pending:
        logger.info("%s callback for %s: no pending live %s, ignored", network, ident, what)
    elif _claim_interval(ident, network):
        transaction.on_commit(lambda: _publish(ident, network, task))
    return _answer()


def _enqueue_check(charge_id: str, network: str) -> JsonResponse:
    """The status check of a pending live charge of this network, or the reconciliation check of
    one failed by our clock and still being asked about (a late payment is refunded at once)."""
    charge = (
        Charge.objects.filter(
            pk=charge_id,
            livemode=True,
            network=network,
            payment_method=PaymentMethod.MOBILE_MONEY,
        )
        .values("status", "reconcile_next_at")
        .first()
    )
    if charge is not None and charge["status"] != ChargeStatus.PENDING:
        reconciling = charge["reconcile_next_at"] is not None
        return _enqueue(
            "charge", charge_id, network, pending=reconciling, task=queues.charge_reconcile_enqueue
        )
    pending = charge is not None
    return _enqueue(
        "charge", charge_id, network, pending=pending, task=queues.charge_refresh_enqueue
    )


# Besides charges, a callback can be about the cashin of a refund or of a payout (Orange's):
# what → (model, the lookup of its network, its pending status, its status check).
CASHINS = {
    "refund": (Refund, "charge__network", RefundStatus.PENDING, queues.refund_refresh_enqueue),
    "payout": (Payout, "network", PayoutStatus.PENDING, queues.payout_refresh_enqueue),
}


def _cashin_of(notice: CallbackNotice) -> tuple[str, str]:
    """("refund" or "payout", its id) when the notice is about a cashin; ("", "") otherwise."""
    if notice.refund_id:
        return "refund", notice.refund_id
    if notice.payout_id:
        return "payout", notice.payout_id
    return "", ""


def _enqueue_cashin_check(what: str, ident: str, network: str) -> JsonResponse:
    """The status check of a sent, pending live refund or payout of this network."""
    model, network_lookup, pending_status, task = CASHINS[what]
    pending = model.objects.filter(
        pk=ident,
        livemode=True,
        status=pending_status,
        provider_requested_at__isnull=False,
        **{network_lookup: network},
    ).exists()
    return _enqueue(what, ident, network, pending=pending, task=task)


@csrf_exempt
def provider_callback(request: HttpRequest, network: str) -> JsonResponse:
    """POST /providers/<network>/callback: the network's adapter authenticates the callback and
    says what it is about; a name no operator calls back at is answered 404."""
    adapter = registry.callback_adapter(network)
    if adapter is None:
        return not_found_view(request)
    return _take(request, adapter, network.upper())


@require_POST
@callbacks_throttled
def _take(request: HttpRequest, adapter: CallingBack, network: str) -> JsonResponse:
    unset = [name for name in adapter.callback_settings if not getattr(settings, name, "")]
    if unset:
        logger.warning("%s callback refused: %s is not configured", network, ", ".join(unset))
        return _refuse(
            request,
            403,
            type="permission_error",
            code="callbacks_not_configured",
            message=f"{adapter.label} callbacks are not configured on this service.",
        )
    body = _json(request)
    if isinstance(body, JsonResponse):
        return body
    callback = ProviderCallback(
        body=body, raw_body=request.body, query=request.GET, headers=request.headers
    )
    try:
        notice = adapter.parse_callback(callback)
    except CallbackUnauthenticated as exc:
        logger.warning("%s callback refused: %s", network, exc.message)
        return _refuse(
            request, 401, type="authentication_error", code=exc.code, message=exc.message
        )
    except CallbackIncomplete as exc:
        return _missing(request, exc.param)
    if notice.provider_reference:
        _keep_reference(notice, network)
    what, ident = _cashin_of(notice)
    if what:
        return _enqueue_cashin_check(what, ident, network)
    if notice.provider_reference and _paid_again(notice, network):
        return _answer()
    return _enqueue_check(notice.charge_id, network)


def _paid_again(notice: CallbackNotice, network: str) -> bool:
    """Whether the callback names our succeeded live charge of this network under another
    operator transaction id than the one recorded: a second payment, recorded for staff and
    checked with the operator by that id (at most once per CHECK_INTERVAL), never dropped."""
    reference = notice.provider_reference[:100]
    charge = (
        Charge.objects.filter(
            pk=notice.charge_id,
            livemode=True,
            network=network,
            payment_method=PaymentMethod.MOBILE_MONEY,
            status=ChargeStatus.SUCCEEDED,
        )
        .exclude(provider_reference__in=("", reference))
        .values_list("pk", flat=True)
        .first()
    )
    if charge is None:
        return False
    waits = charges.charge_extra_payment_reported(
        charge_id=charge, reference=reference, answer={"callback": network}
    )
    if waits and _claim_interval(f"{charge}:{reference}", network):
        transaction.on_commit(lambda: _publish_extra_check(charge, reference, network))
    return True


def _publish_extra_check(charge_id: str, reference: str, network: str) -> None:
    try:
        queues.charge_extra_payment_check_enqueue(charge_id=charge_id, reference=reference)
    except Exception as exc:  # broker down: staff see the payment reported, and may ask
        logger.error(
            "%s callback for %s: check of payment %s not enqueued (%s)",
            network,
            charge_id,
            reference,
            exc,
        )
        try:
            cache.delete(_window_key(f"{charge_id}:{reference}"))
        except Exception:
            pass


def _keep_reference(notice: CallbackNotice, network: str) -> None:
    """The operator's own id stated by an authenticated callback, kept on our live charge,
    refund or payout of that network while it has none (staff find the payment at the operator by
    it). Never a status: that is the status check's."""
    reference = notice.provider_reference[:100]
    what, ident = _cashin_of(notice)
    if what:
        model, network_lookup, _, _ = CASHINS[what]
        found = model.objects.filter(
            pk=ident, livemode=True, provider_reference="", **{network_lookup: network}
        )
    else:
        ident = notice.charge_id
        found = Charge.objects.filter(
            pk=ident, livemode=True, network=network, provider_reference=""
        )
    if found.update(provider_reference=reference):
        logger.info("%s callback for %s: operator reference kept", network, ident)
