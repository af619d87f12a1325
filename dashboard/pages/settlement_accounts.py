"""/dashboard/settings/settlement/: where the merchant's settlements go, one page for both modes
(each account marked test or live): the owner adds a bank account or the business's own mobile
money wallet, and removes one, through the API's services (account_add, account_remove) with
their rules and errors, once per form. A live account is where a stolen session would send the
money: adding or removing one needs two-factor and a recent sign-in, and a new one is held and
mailed to every owner and admin (dashboard/settlements.py, which also writes the audit rows)."""

from allauth.core.exceptions import ReauthenticationRequired
from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.errors import ApiError
from dashboard import words
from dashboard.pages.forms import BankAccountForm, SettlementAccountForm, WalletForm
from dashboard.pages.once import FIELD, once
from dashboard.permissions import has_totp, merchant_view, recently_authenticated
from payments.models import SettlementAccount, SettlementAccountType
from payments.services import settlements

FORMS = {
    SettlementAccountType.BANK_ACCOUNT: (BankAccountForm, "bank"),
    SettlementAccountType.MOBILE_MONEY: (WalletForm, "wallet"),
}


def _live_refused(request) -> str | None:
    """Why the user may not change a live account now ("" once they may), or raise allauth's
    re-confirmation, which sends the form on once confirmed."""
    if not has_totp(request.user):
        return _(
            "Live settlement accounts need two-factor authentication: set it up for yourself "
            "first (My account)."
        )
    if not recently_authenticated(request):
        raise ReauthenticationRequired
    return None


def _page(request, *, bank=None, wallet=None, status: int = 200):
    merchant = request.merchant
    initial = {"mode": "live" if merchant.live_approved else "test"}
    accounts = SettlementAccount.objects.filter(
        merchant=merchant, removed_at__isnull=True
    ).order_by("-livemode", "currency", "created_at", "id")
    now = timezone.now()
    rows = [
        {
            "account": account,
            "words": words.account_name(account),
            "held_until": (
                words.local_moment(account.available_from, merchant.time_zone)
                if account.available_from > now
                else ""
            ),
        }
        for account in accounts
    ]
    return render(
        request,
        "dashboard/settings_settlement.html",
        {
            "rows": rows,
            "bank_form": bank or BankAccountForm(prefix="bank", initial=initial),
            "wallet_form": wallet or WalletForm(prefix="wallet", initial=initial),
            "hold_hours": settings.SETTLEMENT_ACCOUNT_HOLD // 3600,
        },
        status=status,
    )


@merchant_view("settlement_accounts", mode_in_path=False)
def settlement_accounts(request):
    if request.method != "POST":
        return _page(request)
    kind = request.POST.get("type", "")
    if kind not in FORMS:
        return _page(request, status=400)
    form_class, prefix = FORMS[kind]
    form: SettlementAccountForm = form_class(request.POST, prefix=prefix)
    shown = {prefix: form}

    def refused(status: int):
        return _page(request, **shown, status=status)

    fields = form.account_fields()
    if fields is None:
        return refused(400)
    live = form.cleaned_data["mode"] == "live"
    if live:
        reason = _live_refused(request)
        if reason:
            form.add_error(None, reason)
            return refused(403)

    def add() -> str:
        return settlements.account_add(
            merchant=request.merchant, livemode=live, added_by=request.user.email, **fields
        ).id

    try:
        done = once(
            request,
            key=form.cleaned_data[FIELD],
            data={"livemode": live, **fields},
            operation=add,
            livemode=live,
        )
    except ApiError as error:
        form.add_api_error(error)
        return refused(error.status)
    account = SettlementAccount.objects.get(pk=done.object_id)
    said = words.account_name(account)
    if done.replayed:
        messages.info(
            request, _("This form had already been sent: %(account)s.") % {"account": said}
        )
    elif live:
        messages.success(
            request,
            _(
                "%(account)s added. It is on hold until %(when)s; every owner and admin has been "
                "told by e-mail."
            )
            % {
                "account": said,
                "when": words.local_moment(account.available_from, request.merchant.time_zone),
            },
        )
    else:
        messages.success(request, _("%(account)s added.") % {"account": said})
    return redirect("dashboard:settings-settlement")


@merchant_view("settlement_accounts", mode_in_path=False)
@require_POST
def settlement_account_remove(request, account_id):
    account = SettlementAccount.objects.filter(pk=account_id, merchant=request.merchant).first()
    if account is None:
        raise Http404
    if account.removed_at is None:
        if account.livemode:
            reason = _live_refused(request)
            if reason:
                messages.error(request, reason)
                return redirect("dashboard:settings-settlement")
        settlements.account_remove(account=account, removed_by=request.user.email)
    said = words.account_name(account)
    messages.success(request, _("%(account)s removed.") % {"account": said})
    return redirect("dashboard:settings-settlement")
