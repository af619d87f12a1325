"""A merchant's application for live mode (docs/guides/going-live.md): its owner saves it as a
draft and submits it; staff approve it, reject it or send it back with changes requested, in
the admin (dashboard/admin.py). Each step locks the application, checks the transition, writes
the change and its audit row in one transaction; the owners are mailed each decision, in the
language the application was submitted in, once it has committed.

Submitting makes the settlement account typed in the application a live settlement account
(payments.services.settlements.account_add), held from then as every new live account is;
approving turns live mode on through payments (payments.services.accounts)."""

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from dashboard import audit
from dashboard.models import (
    Action,
    ActivationApplication,
    ActivationStatus,
    Membership,
    Role,
)
from dashboard.permissions import can
from payments.models import SettlementAccountType
from payments.services import accounts, settlements

logger = logging.getLogger(__name__)

# What a submitted application must hold, each said in words when it is missing.
BUSINESS = (
    "legal_name",
    "rccm_number",
    "id_nat",
    "nif",
    "address",
    "city",
    "activity",
    "website",
    "representative_name",
    "representative_phone",
)
BANK_ACCOUNT = ("account_currency", "bank_name", "account_holder", "account_number", "swift")
MOBILE_ACCOUNT = ("account_currency", "account_phone", "account_network")

# The values the owner's form may set (the documents apart).
VALUES = (
    *BUSINESS,
    "monthly_volume",
    "monthly_volume_currency",
    "account_type",
    "account_currency",
    "bank_name",
    "account_holder",
    "account_number",
    "swift",
    "account_phone",
    "account_network",
)

DECISIONS = {
    ActivationStatus.APPROVED: Action.ACTIVATION_APPROVED,
    ActivationStatus.REJECTED: Action.ACTIVATION_REJECTED,
    ActivationStatus.CHANGES_REQUESTED: Action.ACTIVATION_CHANGES_REQUESTED,
}


def application_of(merchant) -> ActivationApplication:
    """The merchant's application, a new draft the first time."""
    found, _created = ActivationApplication.objects.get_or_create(merchant=merchant)
    return found


def application_shown(merchant) -> ActivationApplication:
    """The merchant's application as its page shows it: a blank draft, not saved, until the
    owner saves one."""
    found = ActivationApplication.objects.filter(merchant=merchant).first()
    return found or ActivationApplication(merchant=merchant)


def _label(name: str) -> str:
    return capfirst(str(ActivationApplication._meta.get_field(name).verbose_name))


def account_typed(application: ActivationApplication) -> bool:
    """Whether a settlement account was typed in the application since it was last submitted."""
    return bool(application.account_type)


def missing(application: ActivationApplication) -> list[str]:
    """What the application still needs before it can be submitted, in words."""
    needed = [_label(name) for name in BUSINESS if not getattr(application, name)]
    if not application.monthly_volume or not application.monthly_volume_currency:
        needed.append(_("Expected monthly volume"))
    if account_typed(application):
        fields = (
            BANK_ACCOUNT
            if application.account_type == SettlementAccountType.BANK_ACCOUNT
            else MOBILE_ACCOUNT
        )
        needed += [
            _("Settlement account: %(field)s") % {"field": _label(name)}
            for name in fields
            if not getattr(application, name)
        ]
    elif application.settlement_account is None or application.settlement_account.removed_at:
        needed.append(_("A settlement account"))
    needed += [
        _label(name) for name in ActivationApplication.DOCUMENTS if not getattr(application, name)
    ]
    return needed


def standing(merchant) -> dict | None:
    """Where the merchant's application stands, for its dashboard's home: None once live mode
    is on; otherwise its status (None: not begun), what it still needs while it is with the
    owner, and the staff's words of their last decision."""
    if merchant.live_approved:
        return None
    application = ActivationApplication.objects.filter(merchant=merchant).first()
    if application is None:
        return {"status": None, "label": "", "missing": [], "note": ""}
    return {
        "status": application.status,
        "label": application.get_status_display(),
        "missing": missing(application) if application.editable else [],
        "note": application.decision_note,
    }


def _locked(application_id: str) -> ActivationApplication:
    return ActivationApplication.objects.select_for_update().get(pk=application_id)


def _owner_of(membership: Membership) -> None:
    if not can(membership, "activation"):
        raise PermissionDenied


def _not_editable() -> ValidationError:
    return ValidationError(
        _("This application is with our team now: it can be changed only if they ask for it.")
    )


@transaction.atomic
def application_save(
    request, membership: Membership, *, values: dict, documents: dict
) -> ActivationApplication:
    """The owner's draft: `values` (of VALUES) and `documents` (field → a checked upload, named
    after the type its content has) replace what it held. A document replaced is deleted from the
    storage once the change has committed."""
    _owner_of(membership)
    application = _locked(application_of(membership.merchant).pk)
    if not application.editable:
        raise _not_editable()
    for name in VALUES:
        if name in values:
            setattr(application, name, values[name])
    replaced = []
    for name, upload in documents.items():
        if name not in ActivationApplication.DOCUMENTS or upload is None:
            continue
        old = getattr(application, name)
        if old:
            replaced.append((old.storage, old.name))
        getattr(application, name).save(upload.name, upload, save=False)
    application.updated_at = timezone.now()
    application.save()
    for storage, name in replaced:
        transaction.on_commit(lambda storage=storage, name=name: storage.delete(name), robust=True)
    return application


@transaction.atomic
def application_submit(request, membership: Membership) -> ActivationApplication:
    """The owner's draft sent to staff, once it holds everything (ValidationError listing what
    is missing otherwise). The settlement account typed in it becomes a live settlement account,
    held from now; one typed anew replaces the account made at an earlier submission."""
    _owner_of(membership)
    application = _locked(application_of(membership.merchant).pk)
    if not application.editable:
        raise _not_editable()
    needed = missing(application)
    if needed:
        raise ValidationError(
            _("Before you submit, add: %(missing)s.") % {"missing": ", ".join(needed)}
        )
    who = request.user.email
    if account_typed(application):
        previous = application.settlement_account
        bank = application.account_type == SettlementAccountType.BANK_ACCOUNT
        application.settlement_account = settlements.account_add(
            merchant=application.merchant,
            livemode=True,
            type=application.account_type,
            currency=application.account_currency,
            bank_name=application.bank_name if bank else "",
            account_holder=application.account_holder if bank else "",
            account_number=application.account_number if bank else "",
            swift=application.swift if bank else "",
            phone="" if bank else application.account_phone,
            network="" if bank else application.account_network,
            added_by=who,
        )
        if previous is not None and previous.removed_at is None:
            settlements.account_remove(account=previous, removed_by=who)
        # The account shows its last four characters from now on: the number is not kept here.
        for name in (
            "account_type",
            "account_currency",
            "bank_name",
            "account_holder",
            "account_number",
            "swift",
            "account_phone",
            "account_network",
        ):
            setattr(application, name, "")
    now = timezone.now()
    application.status = ActivationStatus.SUBMITTED
    application.submitted_at = now
    application.submitted_by = request.user
    application.updated_at = now
    application.language = (translation.get_language() or settings.LANGUAGE_CODE)[:8]
    application.save()
    audit.record(
        request,
        Action.ACTIVATION_SUBMITTED,
        merchant=application.merchant,
        object_id=application.pk,
    )
    return application


@transaction.atomic
def application_decide(
    request, application_id: str, *, decision: str, note: str = "", staff
) -> ActivationApplication:
    """A staff member's decision on a submitted application: approved (live mode turned on),
    rejected (`note`: the reason) or changes_requested (`note`: what to change; the owner may
    edit and submit it again). ValidationError, in words, when it is no longer waiting for a
    decision or a reason or note is missing. The owners are mailed once it has committed."""
    if decision not in DECISIONS:
        raise ValueError(f"unknown decision {decision!r}")
    application = _locked(application_id)
    if application.status != ActivationStatus.SUBMITTED:
        raise ValidationError(_("This application is not waiting for a decision any more."))
    note = note.strip()
    if decision != ActivationStatus.APPROVED and not note:
        raise ValidationError(
            _("Say why, in words the merchant will read: the reason or the changes needed.")
        )
    if decision == ActivationStatus.APPROVED:
        accounts.merchant_live_approve(merchant=application.merchant)
    now = timezone.now()
    application.status = decision
    application.decision_note = note
    application.decided_at = now
    application.decided_by = staff
    application.updated_at = now
    application.save()
    audit.record(
        request,
        DECISIONS[decision],
        merchant=application.merchant,
        user=staff,
        object_id=application.pk,
        details={"note": note} if note else None,
    )
    _owners_told(application)
    return application


def _owners_told(application: ActivationApplication) -> None:
    """The decision mailed to every owner of the merchant, in the language the application was
    submitted in, once it has committed. A mail that cannot be sent is logged: the decision
    stands, and the dashboard says it too."""
    owners = list(
        Membership.objects.filter(merchant_id=application.merchant_id, role=Role.OWNER)
        .order_by("created_at")
        .values_list("user__email", flat=True)
    )
    if not owners:
        return
    context = {
        "application": application,
        "merchant": application.merchant,
        "status": application.status,
        "note": application.decision_note,
        "url": settings.PUBLIC_BASE_URL + reverse("dashboard:settings-activation"),
        "live_url": settings.PUBLIC_BASE_URL + reverse("dashboard:home", args=["live"]),
    }
    with translation.override(application.language or settings.LANGUAGE_CODE):
        subject = render_to_string("dashboard/email/activation_subject.txt", context).strip()
        body = render_to_string("dashboard/email/activation_message.txt", context)

    def send() -> None:
        try:
            send_mail(subject, body, None, owners)
        except OSError:
            logger.exception("The decision on %s could not be mailed.", application.pk)

    transaction.on_commit(send)
