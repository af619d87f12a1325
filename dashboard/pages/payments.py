"""/dashboard/{mode}/payments/: the merchant's charges (search, filters, keyset pages), one
charge's amount, fee and net and its timeline, and its refund through the API's refund
service."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import ApiError
from dashboard import audit, words
from dashboard.pages.common import livemode, of_merchant, page_of, query_without_cursor
from dashboard.pages.forms import RefundForm
from dashboard.pages.once import FIELD, once, tell
from dashboard.pages.search import ChargeFilter
from dashboard.permissions import can, live_sensitive, merchant_view
from dashboard.plan import price
from payments import selectors
from payments.failures import failure_words
from payments.models import ChargeStatus, PaymentMethod
from payments.representations import charge_fee_and_net
from payments.services.refunds import refund_create
from webhooks.models import Event

EVENTS_SHOWN = 50
ANSWER_TEXT = 300  # characters of an operator's answer shown


@merchant_view("view")
def payment_list(request, mode):
    scope = selectors.charges_of(merchant=request.merchant, livemode=livemode(request))
    found = ChargeFilter(request.GET or None, queryset=scope)
    page = page_of(request, found.qs, scope=scope)
    context = {"filter": found, "page": page, "query": query_without_cursor(request)}
    if request.htmx and request.htmx.target == "payments-results":
        return render(request, "dashboard/payments/_results.html", context)
    return render(request, "dashboard/payments/list.html", context)


@dataclass
class Moment:
    at: datetime
    title: str
    detail: str = ""
    status: str = ""  # a status's value (the badge's colour)
    label: str = ""  # and its name
    deliveries: list = field(default_factory=list)


def _answer_text(answer: dict) -> str:
    text = ", ".join(
        f"{name}: {value}"
        for name, value in answer.items()
        if name != "at" and isinstance(value, str | int | float | bool) and value != ""
    )
    return text[:ANSWER_TEXT]


def charge_events(charge) -> list:
    """The events of the charge and of its refunds (newest last), each with its deliveries and
    their attempts. Events come after their charge: the list's index is read from its
    creation on."""
    return list(
        Event.objects.filter(
            merchant_id=charge.merchant_id,
            livemode=charge.livemode,
            created_at__gte=charge.created_at,
        )
        .filter(Q(data__object__id=charge.id) | Q(data__object__charge_id=charge.id))
        .prefetch_related("deliveries__attempt_log")
        .order_by("created_at", "id")[:EVENTS_SHOWN]
    )


def timeline(charge, refunds: list, events: list) -> list[Moment]:
    """What happened to a charge, oldest first: created, sent to the operator, the operator's
    answers, its final status, its refunds and its events with their deliveries."""
    card = charge.payment_method == PaymentMethod.CARD
    moments = [Moment(charge.created_at, _("Payment created"))]
    if charge.provider_requested_at:
        moments.append(
            Moment(
                charge.provider_requested_at,
                _("Sent to the card provider") if card else _("Payment prompt sent to the phone"),
            )
        )
    for answer in charge.provider_raw or []:
        try:
            at = datetime.fromisoformat(answer.get("at", ""))
        except (TypeError, ValueError):
            continue
        moments.append(Moment(at, _("Operator's answer"), _answer_text(answer)))
    if charge.status != ChargeStatus.PENDING and charge.finalized_at:
        moments.append(
            Moment(
                charge.finalized_at,
                _("Final status"),
                failure_words(charge.failure_code, charge.failure_message),
                status=charge.status,
                label=charge.get_status_display(),
            )
        )
    if charge.late_payment_at:
        moments.append(
            Moment(
                charge.late_payment_at,
                _("Late payment: the operator reported it after the payment had failed"),
                _("Given back in full automatically."),
            )
        )
    for refund in refunds:
        moments.append(
            Moment(
                refund.created_at,
                _("Refund %(id)s") % {"id": refund.id},
                refund.get_reason_display() if refund.reason else "",
                status=refund.status,
                label=refund.get_status_display(),
            )
        )
    for event in events:
        moments.append(
            Moment(
                event.created_at,
                _("Webhook event: %(what)s")
                % {"what": words.EVENT_WORDS.get(event.type, event.type)},
                f"{event.id} ({event.type})",
                deliveries=list(event.deliveries.all()),
            )
        )
    return sorted(moments, key=lambda moment: moment.at)


def _detail(request, charge, *, form=None, status=200):
    refunds = list(selectors.refunds_of_charge(charge=charge).order_by("created_at", "id"))
    refundable = charge.status == ChargeStatus.SUCCEEDED and charge.amount_refundable > 0
    if form is None and refundable and can(request.membership, "refund"):
        form = RefundForm()
    fee_and_net = charge_fee_and_net(charge)
    return render(
        request,
        "dashboard/payments/detail.html",
        {
            "charge": charge,
            "fee": fee_and_net["fee"],
            "net": fee_and_net["net"],
            "fee_rate": _fee_rate(charge) if fee_and_net["fee"] is not None else "",
            "refunds": refunds,
            "timeline": timeline(charge, refunds, charge_events(charge)),
            "refund_form": form if refundable else None,
        },
        status=status,
    )


def _fee_rate(charge) -> str:
    """The rate kept on the charge when it was created, in words ("" before fees)."""
    if charge.fee_rate_bp is None:
        return ""
    return price(rate_bp=charge.fee_rate_bp, fixed=charge.fee_fixed or 0, currency=charge.currency)


def _charge(request, charge_id: str):
    return of_merchant(
        selectors.charge_get,
        merchant=request.merchant,
        livemode=livemode(request),
        charge_id=charge_id,
    )


@merchant_view("view")
def payment_detail(request, mode, charge_id):
    return _detail(request, _charge(request, charge_id))


@merchant_view("refund")
@live_sensitive
def payment_refund(request, mode, charge_id):
    """POST: refund the charge through the API's service (refund_create), once per form."""
    charge = _charge(request, charge_id)
    if request.method != "POST":
        return redirect("dashboard:payment", mode=mode, charge_id=charge.id)
    form = RefundForm(request.POST)
    form.currency_of_amount = charge.currency
    if not form.is_valid():
        return _detail(request, charge, form=form, status=400)
    amount, reason = form.cleaned_data["amount"], form.cleaned_data["reason"]

    def refund() -> str:
        made = refund_create(charge=charge, amount=amount, reason=reason)
        audit.record(request, "refund.created", object_id=made.id)
        return made.id

    try:
        done = once(
            request,
            key=form.cleaned_data[FIELD],
            data={"charge": charge.id, "amount": amount, "reason": reason},
            operation=refund,
        )
    except ApiError as error:
        form.add_api_error(error)
        return _detail(request, charge, form=form, status=error.status)
    tell(
        request,
        done,
        made=_("Refund %(id)s created."),
        again=_("This refund form had already been sent: refund %(id)s."),
    )
    return redirect("dashboard:payment", mode=mode, charge_id=charge.id)
