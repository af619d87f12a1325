"""The dashboard's own pages: home, the merchant switcher, settings, team, the application for
live mode, audit, invitations.
The money pages (payments, balance, payouts, developers) build on the same guard
(permissions.merchant_view)."""

import csv
from datetime import timedelta

from allauth.core.exceptions import ReauthenticationRequired
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q, Sum
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.errors import ApiError
from dashboard import activation, downloads, notifications, services
from dashboard.filters import AuditFilter
from dashboard.forms import (
    ActivationForm,
    BusinessForm,
    InviteForm,
    NotificationForm,
    RoleForm,
    SecurityForm,
    account_words,
)
from dashboard.models import (
    ActivationApplication,
    AuditEntry,
    Invitation,
    Membership,
    MerchantSettings,
    NoticeKind,
    Role,
)
from dashboard.pages.common import row_id
from dashboard.pages.forms import OnceForm
from dashboard.pages.once import FIELD, new_key, once
from dashboard.permissions import (
    SESSION_MERCHANT,
    active_membership,
    can,
    forbidden,
    has_totp,
    may_manage,
    memberships_of,
    merchant_view,
    recently_authenticated,
)
from dashboard.plan import plan_words
from dashboard.roles import roles_with
from messaging import services as messaging
from payments import pricing, selectors
from payments.statement import spreadsheet_safe


@login_required
def index(request):
    return redirect("dashboard:home", mode="test")


@merchant_view("view")
def home(request, mode):
    livemode = mode == "live"
    now = timezone.localtime()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    week = today - timedelta(days=today.weekday())
    charges = selectors.charges_of(merchant=request.merchant, livemode=livemode)
    succeeded = Q(status="succeeded")
    totals = (
        charges.filter(created_at__gte=week)
        .values("currency")
        .annotate(
            today_count=Count("id", filter=succeeded & Q(created_at__gte=today)),
            today_sum=Sum("amount", filter=succeeded & Q(created_at__gte=today), default=0),
            week_count=Count("id", filter=succeeded),
            week_sum=Sum("amount", filter=succeeded, default=0),
        )
        .order_by("currency")
    )
    balance = selectors.balance_sums(merchant=request.merchant, livemode=livemode)
    return render(
        request,
        "dashboard/home.html",
        {
            "totals": list(totals),
            "balance": [
                (currency, sums.available, sums.pending)
                for currency, sums in sorted(balance.items())
            ],
            "recent": charges.order_by("-created_at", "-id")[:10],
            "activation": activation.standing(request.merchant),
        },
    )


@login_required
def no_merchant(request):
    """A user who belongs to no merchant (removed from every team) may start one."""
    if active_membership(request) is not None:
        return redirect("dashboard:index")
    form = BusinessForm(request.POST or None)
    del form.fields["support_email"], form.fields["support_phone"]
    if request.method == "POST" and form.is_valid():
        membership = services.merchant_signup(
            request, user=request.user, business_name=form.cleaned_data["name"]
        )
        request.session[SESSION_MERCHANT] = membership.merchant_id
        return redirect("dashboard:index")
    return render(request, "dashboard/no_merchant.html", {"form": form})


@login_required
@require_POST
def switch(request):
    """The merchant switcher: another of the user's merchants becomes the active one."""
    merchant = request.POST.get("merchant") or ""
    # No merchant's id holds a NUL, which PostgreSQL refuses in a query: no such merchant.
    mine = memberships_of(request.user)
    found = mine.filter(merchant_id=merchant).first() if "\x00" not in merchant else None
    if found is None:
        raise Http404
    request.session[SESSION_MERCHANT] = found.merchant_id
    messages.success(request, _("You are now working on %(name)s.") % {"name": found.merchant.name})
    return redirect("dashboard:index")


def _back(request, name: str):
    return redirect(f"dashboard:{name}")


def _refused(request, error) -> None:
    for message in getattr(error, "messages", [str(error)]):
        messages.error(request, message)


@merchant_view("team", mode_in_path=False)
def settings_business(request):
    merchant = request.merchant
    initial = {
        "name": merchant.name,
        "support_email": merchant.support_email,
        "support_phone": merchant.support_phone,
        "sms_receipts": "on" if messaging.messaging_settings(merchant).sms_receipts else "off",
        "time_zone": merchant.time_zone,
    }
    form = BusinessForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            changed = services.business_update(request, request.membership, **form.cleaned_data)
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            if changed:
                messages.success(request, _("Business settings saved."))
            return _back(request, "settings-business")
    return render(request, "dashboard/settings_business.html", {"form": form})


@merchant_view("team", mode_in_path=False)
def settings_team(request):
    actor = request.membership
    form = InviteForm(request.POST or None)
    if not may_manage(actor, Role.OWNER):
        form.fields["role"].choices = [c for c in Role.choices if c[0] != Role.OWNER]
    if request.method == "POST" and not may_manage(actor, request.POST.get("role", "")):
        return forbidden(request)  # an admin inviting an owner, whose choice is not even shown
    if request.method == "POST":
        if form.is_valid():
            try:
                services.invite(request, actor, **form.cleaned_data)
            except ValidationError as error:
                form.add_error("email", error)
            else:
                messages.success(
                    request,
                    _("Invitation sent to %(email)s.") % {"email": form.cleaned_data["email"]},
                )
                return _back(request, "settings-team")
    members = Membership.objects.filter(merchant=request.merchant).select_related("user")
    # Expired ones too, until someone sends them again or revokes them: an invitee back from a
    # week away finds the team able to send the link again.
    invitations = Invitation.objects.filter(
        merchant=request.merchant, accepted_at__isnull=True, revoked_at__isnull=True
    )
    assignable = [c for c in Role.choices if may_manage(actor, c[0])]
    return render(
        request,
        "dashboard/settings_team.html",
        {
            "form": form,
            "members": [(m, may_manage(actor, m.role) and m.pk != actor.pk) for m in members],
            "invitations": [
                (invitation, may_manage(actor, invitation.role), new_key())
                for invitation in invitations
            ],
            "roles": assignable,
            "now": timezone.now(),
        },
    )


@merchant_view("team", mode_in_path=False)
@require_POST
def member_role(request, member_id):
    # The member first: another merchant's answers 404 whatever the form holds.
    target = get_object_or_404(Membership, pk=member_id, merchant=request.merchant)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a role."))
        return _back(request, "settings-team")
    if not (
        may_manage(request.membership, target.role)
        and may_manage(request.membership, form.cleaned_data["role"])
    ):
        return forbidden(request)
    try:
        services.role_change(request, request.membership, target.pk, form.cleaned_data["role"])
    except ValidationError as error:
        _refused(request, error)
    except PermissionDenied:
        return forbidden(request)
    return _back(request, "settings-team")


@merchant_view("team", mode_in_path=False)
@require_POST
def member_remove(request, member_id):
    target = Membership.objects.filter(pk=member_id, merchant=request.merchant).first()
    if target is None:
        if Membership.objects.filter(pk=member_id).exists():
            raise Http404  # another merchant's member
        return _back(request, "settings-team")  # removed already: the form sent twice
    if not may_manage(request.membership, target.role):
        return forbidden(request)
    try:
        services.member_remove(request, request.membership, target.pk)
    except ValidationError as error:
        _refused(request, error)
    except PermissionDenied:
        return forbidden(request)
    return _back(request, "settings-team")


def _invitation_managed(request, invitation_id) -> Invitation:
    """The merchant's invitation (404 for another merchant's or none), if the member may give
    its role (PermissionDenied otherwise: an admin and an owner's invitation)."""
    found = get_object_or_404(Invitation, pk=invitation_id, merchant=request.merchant)
    if not may_manage(request.membership, found.role):
        raise PermissionDenied
    return found


@merchant_view("team", mode_in_path=False)
@require_POST
def invitation_resend(request, invitation_id):
    """The invitation's mail sent again (its link valid anew). Once per form: the same form
    sent twice mails once."""
    try:
        found = _invitation_managed(request, invitation_id)
    except PermissionDenied:
        return forbidden(request)
    form = OnceForm(request.POST)
    form.is_valid()

    def resend() -> str:
        return str(services.invitation_resend(request, request.membership, found.pk).pk)

    try:
        done = once(
            request,
            key=form.cleaned_data.get(FIELD, ""),
            data={"invitation": found.pk},
            operation=resend,
            livemode=False,
        )
    except ApiError as error:
        messages.error(request, error.for_people())
    except ValidationError as error:
        _refused(request, error)
    except PermissionDenied:
        return forbidden(request)
    else:
        if done.replayed:
            messages.info(request, _("This invitation was sent again already."))
        else:
            messages.success(
                request, _("Invitation sent again to %(email)s.") % {"email": found.email}
            )
    return _back(request, "settings-team")


@merchant_view("team", mode_in_path=False)
@require_POST
def invitation_revoke(request, invitation_id):
    """Its link opens nothing any more; the same form sent twice revokes once."""
    try:
        found = _invitation_managed(request, invitation_id)
        revoked = services.invitation_revoke(request, request.membership, found.pk)
    except PermissionDenied:
        return forbidden(request)
    except ValidationError as error:
        _refused(request, error)
        return _back(request, "settings-team")
    if revoked:
        messages.success(request, _("Invitation to %(email)s revoked.") % {"email": found.email})
    return _back(request, "settings-team")


@merchant_view("security", mode_in_path=False)
def settings_security(request):
    """The team's rules. Turning the second approver off lets one person pay out alone: it
    asks, as live actions do, for two-factor and a sign-in or re-confirmation within the last
    minutes (allauth's re-confirmation, which then resumes the form)."""
    current = MerchantSettings.of(request.merchant)
    approver = {None: "", True: "on", False: "off"}[current.require_second_approver]
    form = SecurityForm(
        request.POST or None,
        initial={
            "require_two_factor": current.require_two_factor,
            "require_second_approver": approver,
            "api_payouts_enabled": "on" if current.api_payouts_enabled else "off",
        },
    )
    if request.method == "POST" and form.is_valid():
        values = {
            "require_two_factor": form.cleaned_data["require_two_factor"],
            "require_second_approver": {"": None, "on": True, "off": False}[
                form.cleaned_data["require_second_approver"]
            ],
            "api_payouts_enabled": {"": current.api_payouts_enabled, "on": True, "off": False}[
                form.cleaned_data["api_payouts_enabled"]
            ],
        }
        turning_off = current.second_approver_required() and not (
            MerchantSettings(
                merchant=request.merchant,
                require_second_approver=values["require_second_approver"],
            ).second_approver_required()
        )
        if values["require_two_factor"] and not has_totp(request.user):
            form.add_error(
                "require_two_factor",
                _("Set up two-factor authentication for yourself first."),
            )
        elif turning_off and not has_totp(request.user):
            form.add_error(
                "require_second_approver",
                _(
                    "Turning the second approver off needs two-factor authentication: set it "
                    "up for yourself first."
                ),
            )
        else:
            if turning_off and not recently_authenticated(request):
                raise ReauthenticationRequired
            if services.security_update(request, request.membership, **values):
                messages.success(request, _("Security settings saved."))
            return _back(request, "settings-security")
    others = (
        Membership.objects.filter(merchant=request.merchant)
        .exclude(pk=request.membership.pk)
        .select_related("user")
    )
    return render(
        request,
        "dashboard/settings_security.html",
        {
            "form": form,
            "others": others,
            "second_approver_now": current.second_approver_required(),
            "payers": Membership.objects.filter(
                merchant=request.merchant, role__in=roles_with("payouts")
            ).count(),
            "transfer_form": OnceForm(),
        },
    )


@merchant_view("team", mode_in_path=False)
@require_POST
def ownership_transfer(request):
    """The owner makes another member the owner and becomes an admin, once per form. Guarded
    as the team's pages are, the owner's right checked by the service after the form's key:
    the form sent twice comes back from an admin by then, and gets the first answer."""
    member = request.POST.get("member") or ""
    pk = row_id(member)
    target = (
        Membership.objects.filter(pk=pk, merchant=request.merchant).first()
        if pk is not None
        else None
    )
    if target is None:
        raise Http404  # no member of this merchant
    form = OnceForm(request.POST)
    form.is_valid()
    try:
        once(
            request,
            key=form.cleaned_data.get(FIELD, ""),
            data={"member": member},
            operation=lambda: str(
                services.ownership_transfer(request, request.membership, target.pk).pk
            ),
        )
    except PermissionDenied:
        return forbidden(request)
    except ApiError as error:
        messages.error(request, error.for_people())
        return _back(request, "settings-security")
    messages.success(request, _("%(email)s is now the owner.") % {"email": target.user.email})
    return _back(request, "settings-team")


@merchant_view("team", mode_in_path=False)
def audit_log(request):
    entries = AuditEntry.objects.filter(merchant=request.merchant).select_related(None)
    found = AuditFilter(request.GET or None, queryset=entries)
    rows = found.qs if found.is_bound and found.is_valid() else entries
    if request.GET.get("format") == "csv":
        return _audit_csv(rows)
    if request.GET.get("format") == downloads.PEOPLE:
        reader = downloads.people_csv(request)
        return downloads.attachment(
            downloads.audit_lines(reader, downloads.newest_first_in_chunks(rows)),
            f"audit-{reader.language}.csv",
        )
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "dashboard/audit.html",
        {"filter": found, "page": page, "query": query.urlencode()},
    )


class _Echo:
    def write(self, value):
        return value


def _audit_row(entry: AuditEntry) -> list[str]:
    # A failed sign-in writes what anyone typed (the e-mail, the user agent): no cell may reach
    # a spreadsheet as a formula.
    return [entry.created_at.isoformat()] + [
        spreadsheet_safe(value)
        for value in (
            entry.email,
            entry.mode,
            entry.action,
            entry.object_id,
            entry.ip or "",
            entry.user_agent,
            entry.details_text(),
        )
    ]


def _audit_csv(rows):
    writer = csv.writer(_Echo())
    # "details" last: a spreadsheet reading the columns before it by position still reads them.
    header = ["created_at", "email", "mode", "action", "object_id", "ip", "user_agent", "details"]
    # The details are said in the request's language, though the lines are written after the
    # view has returned.
    language = translation.get_language()

    def lines():
        yield writer.writerow(header)
        with translation.override(language):
            for entry in rows.iterator(chunk_size=1000):
                yield writer.writerow(_audit_row(entry))

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="audit.csv"'
    return response


def invitation(request, key):
    """The link of an invitation mail: signed in as the invited address, join at once (POST);
    otherwise sign up (or sign in) first, the link brings you back."""
    found = Invitation.objects.filter(key=key).select_related("merchant").first()
    if found is None:
        raise Http404
    if not request.user.is_authenticated:
        if found.is_open:
            services.invitation_seen(request, found)  # signing up from here joins the team
        return render(request, "dashboard/invitation.html", {"invitation": found})
    if request.user.email.lower() != found.email.lower():
        return render(
            request, "dashboard/invitation.html", {"invitation": found, "wrong_user": True}
        )
    if request.method == "POST":
        try:
            membership = services.invitation_accept(request, found, request.user)
        except ValidationError as error:
            _refused(request, error)
            return redirect("dashboard:invitation", key=key)
        request.session[SESSION_MERCHANT] = membership.merchant_id
        messages.success(request, _("Welcome to %(name)s.") % {"name": found.merchant.name})
        return redirect("dashboard:index")
    if Membership.objects.filter(user=request.user, merchant=found.merchant).exists():
        # Joined already (signing up from the link joins once the address is confirmed, and
        # brings back here): the team's dashboard.
        request.session[SESSION_MERCHANT] = found.merchant_id
        return redirect("dashboard:index")
    return render(request, "dashboard/invitation.html", {"invitation": found})


@merchant_view("view", mode_in_path=False)
def settings_pricing(request):
    """The merchant's price plan in words, for every member: the same in both modes."""
    return render(
        request,
        "dashboard/settings_pricing.html",
        {"parts": plan_words(pricing.plan_of(request.merchant))},
    )


@merchant_view("view", mode_in_path=False)
def settings_notifications(request):
    """The member's own notices (dashboard.notifications): every member chooses for
    themselves, among the kinds their role may hear of."""
    membership = request.membership
    kinds = [kind for kind in NoticeKind.values if notifications.may_get(membership, kind)]
    preference = notifications.preference_of(membership)
    initial = {"phone": preference.phone}
    for kind in kinds:
        for channel in ("email", "sms"):
            initial[f"{kind}_{channel}"] = preference.wants(kind, channel)
    form = NotificationForm(request.POST or None, initial=initial, kinds=kinds)
    if request.method == "POST" and form.is_valid():
        notifications.preference_update(membership=membership, **form.cleaned_data)
        messages.success(request, _("Your notifications are saved."))
        return _back(request, "settings-notifications")
    rows = [
        {
            "kind": kind,
            "label": NoticeKind(kind).label,
            "email": form[f"{kind}_email"],
            "sms": form[f"{kind}_sms"],
        }
        for kind in kinds
    ]
    return render(request, "dashboard/settings_notifications.html", {"form": form, "rows": rows})


@merchant_view("view", mode_in_path=False)
def index_settings(request):
    if can(request.membership, "team"):
        return redirect("dashboard:settings-business")
    return redirect("dashboard:settings-pricing")


@merchant_view("activation", mode_in_path=False)
def settings_activation(request):
    """The owner's application for live mode, on one page: saved as a draft, or saved and
    submitted (what is missing said in words, the draft kept)."""
    application = activation.application_shown(request.merchant)
    form = ActivationForm(request.POST or None, request.FILES or None, instance=application)
    if request.method == "POST":
        if not application.editable:
            messages.error(request, _("This application cannot be changed now."))
            return _back(request, "settings-activation")
        if form.is_valid():
            activation.application_save(
                request, request.membership, values=form.values(), documents=form.uploads()
            )
            if request.POST.get("action") != "submit":
                messages.success(request, _("Your application is saved. Submit it when ready."))
                return _back(request, "settings-activation")
            try:
                activation.application_submit(request, request.membership)
            except ValidationError as error:
                form.add_error(None, error)
            except ApiError as error:
                form.add_error(None, error.for_people())
            else:
                messages.success(
                    request, _("Your application is submitted. We will write to you by e-mail.")
                )
                return _back(request, "settings-activation")
        # The form wrote what it read onto the instance: the page shows what is saved.
        application = activation.application_shown(request.merchant)
    account = application.settlement_account
    return render(
        request,
        "dashboard/settings_activation.html",
        {
            "form": form,
            "application": application,
            "missing": activation.missing(application),
            "account": account,
            "account_text": account_words(account) if account is not None else "",
            "documents": [
                (form[name], bool(getattr(application, name)))
                for name in ActivationApplication.DOCUMENTS
            ],
        },
    )
