"""What the dashboard changes about people: sign-up's merchant, invitations, roles, ownership.
Each writes its audit row in the same transaction. The money moves through payments' services."""

from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from dashboard import audit, notifications
from dashboard.models import (
    Action,
    Invitation,
    Membership,
    MerchantSettings,
    Role,
    invitation_expiry,
)
from dashboard.permissions import may_manage
from dashboard.roles import roles_with
from messaging import services as messaging
from payments.services import accounts


@transaction.atomic
def merchant_signup(request, *, user, business_name: str) -> Membership:
    """A new merchant (test keys; live mode waits for staff approval) owned by `user`."""
    created = accounts.merchant_create(name=business_name)
    MerchantSettings.objects.create(merchant=created.merchant)
    return Membership.objects.create(user=user, merchant=created.merchant, role=Role.OWNER)


SESSION_INVITATIONS = "dashboard_invitations"


def invitation_seen(request, invitation: Invitation) -> None:
    """Its link was opened in this browser before signing up: the key that proves the mail was
    read (the last few kept)."""
    keys = [key for key in request.session.get(SESSION_INVITATIONS, []) if key != invitation.key]
    request.session[SESSION_INVITATIONS] = [*keys[-4:], invitation.key]


def invitations_seen(request, email: str) -> list[Invitation]:
    """The open invitations to `email` whose link was opened in this browser. A sign-up joins
    only those: an address typed at sign-up is not verified yet, and whoever typed it must not
    join a team the address was invited to without having the invitation's mail."""
    keys = set(request.session.get(SESSION_INVITATIONS, []))
    return [invitation for invitation in open_invitations(email) if invitation.key in keys]


def open_invitations(email: str) -> list[Invitation]:
    if not email:
        return []
    return list(
        Invitation.objects.filter(
            email__iexact=email,
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        ).select_related("merchant")
    )


@transaction.atomic
def invite(request, actor: Membership, *, email: str, role: str) -> Invitation:
    if not may_manage(actor, role):
        raise PermissionDenied
    email = email.strip()
    # The team locked first, as every change to it is: the same form sent twice at once (a
    # double click) waits here and finds the first one's invitation, where a lock on the
    # invitations alone locks nothing while there is none yet.
    _lock_team(actor.merchant_id)
    if Membership.objects.filter(merchant=actor.merchant, user__email__iexact=email).exists():
        raise ValidationError(_("%(email)s is already a member.") % {"email": email})
    # One open invitation per address: the same one sent twice (a form submitted twice) does
    # nothing more; another role replaces it with a new link.
    pending = Invitation.objects.select_for_update().filter(
        merchant=actor.merchant, email__iexact=email, accepted_at__isnull=True, revoked_at=None
    )
    same = pending.filter(role=role, expires_at__gt=timezone.now()).first()
    if same is not None:
        return same
    pending.delete()
    invitation = Invitation.objects.create(
        merchant=actor.merchant, email=email, role=role, invited_by=actor.user
    )
    audit.record(request, Action.MEMBER_INVITED, merchant=actor.merchant, object_id=email)
    _mail_invitation(invitation, inviter=actor.user.email)
    return invitation


def _mail_invitation(invitation: Invitation, *, inviter: str) -> None:
    """The invitation's mail, once the transaction that made or renewed it has committed."""
    url = settings.PUBLIC_BASE_URL + reverse("dashboard:invitation", args=[invitation.key])
    context = {"invitation": invitation, "url": url, "inviter": inviter}
    transaction.on_commit(
        lambda: send_mail(
            render_to_string("dashboard/email/invitation_subject.txt", context).strip(),
            render_to_string("dashboard/email/invitation_message.txt", context),
            None,
            [invitation.email],
        )
    )


def _pending_invitation(actor: Membership, invitation_id: int) -> Invitation:
    """The invitation, locked with the team; PermissionDenied for a role the actor may not
    give (an admin and an owner's invitation); ValidationError once it was used."""
    _lock_team(actor.merchant_id)
    invitation = Invitation.objects.select_for_update().get(
        pk=invitation_id, merchant_id=actor.merchant_id
    )
    if not may_manage(actor, invitation.role):
        raise PermissionDenied
    if invitation.accepted_at is not None:
        raise ValidationError(
            _("%(email)s has accepted this invitation already.") % {"email": invitation.email}
        )
    return invitation


@transaction.atomic
def invitation_resend(request, actor: Membership, invitation_id: int) -> Invitation:
    """The same link mailed again, valid for DASHBOARD_INVITATION_DAYS from now (an expired
    invitation too). A revoked one is not sent again: invite the address anew."""
    invitation = _pending_invitation(actor, invitation_id)
    if invitation.revoked_at is not None:
        raise ValidationError(_("This invitation was revoked: send a new one."))
    invitation.expires_at = invitation_expiry()
    invitation.save(update_fields=["expires_at"])
    audit.record(
        request, Action.INVITATION_RESENT, merchant=actor.merchant, object_id=invitation.email
    )
    _mail_invitation(invitation, inviter=actor.user.email)
    return invitation


@transaction.atomic
def invitation_revoke(request, actor: Membership, invitation_id: int) -> bool:
    """Its link opens nothing any more. True if this call revoked it: of the same form sent
    twice, the second changes nothing and writes no audit row."""
    invitation = _pending_invitation(actor, invitation_id)
    if invitation.revoked_at is not None:
        return False
    invitation.revoked_at = timezone.now()
    invitation.save(update_fields=["revoked_at"])
    audit.record(
        request, Action.INVITATION_REVOKED, merchant=actor.merchant, object_id=invitation.email
    )
    return True


@transaction.atomic
def invitation_accept(request, invitation: Invitation, user) -> Membership:
    """`user` joins the invitation's merchant with its role (once: a second acceptance, or an
    existing membership, changes nothing)."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    existing = Membership.objects.filter(user=user, merchant_id=invitation.merchant_id).first()
    if existing is not None:
        if invitation.accepted_at is None:
            invitation.accepted_at = timezone.now()
            invitation.save(update_fields=["accepted_at"])
        return existing
    if invitation.accepted_at is not None:  # used, and its member has left or was removed since
        raise ValidationError(_("This invitation was used already. Ask the team for a new one."))
    if not invitation.is_open:
        raise ValidationError(_("This invitation has expired."))
    membership = Membership.objects.create(
        user=user, merchant_id=invitation.merchant_id, role=invitation.role
    )
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_at"])
    audit.record(
        request,
        Action.MEMBER_JOINED,
        merchant=invitation.merchant,
        user=user,
        email=user.email,
        object_id=user.email,
    )
    return membership


def _owners(merchant_id) -> int:
    return Membership.objects.filter(merchant_id=merchant_id, role=Role.OWNER).count()


def _lock_team(merchant_id) -> list[Membership]:
    """The merchant's memberships, locked: changes to one team are taken one at a time, so two
    owners demoting each other at once never leave the merchant without one."""
    return list(Membership.objects.select_for_update().filter(merchant_id=merchant_id))


@transaction.atomic
def role_change(request, actor: Membership, target_id: int, role: str) -> Membership:
    _lock_team(actor.merchant_id)
    target = Membership.objects.get(pk=target_id, merchant_id=actor.merchant_id)
    if not (may_manage(actor, target.role) and may_manage(actor, role)):
        raise PermissionDenied
    if target.role == role:
        return target
    if target.role == Role.OWNER and _owners(actor.merchant_id) <= 1:
        raise ValidationError(_("A merchant always keeps one owner."))
    target.role = role
    target.save(update_fields=["role"])
    audit.record(
        request, Action.MEMBER_ROLE_CHANGED, merchant=actor.merchant, object_id=target.user.email
    )
    return target


@transaction.atomic
def member_remove(request, actor: Membership, target_id: int) -> None:
    _lock_team(actor.merchant_id)
    target = Membership.objects.filter(pk=target_id, merchant_id=actor.merchant_id).first()
    if target is None:
        return  # already removed (a form sent twice)
    if not may_manage(actor, target.role):
        raise PermissionDenied
    if target.role == Role.OWNER and _owners(actor.merchant_id) <= 1:
        raise ValidationError(_("A merchant always keeps one owner."))
    email = target.user.email
    target.delete()
    audit.record(request, Action.MEMBER_REMOVED, merchant=actor.merchant, object_id=email)


@transaction.atomic
def ownership_transfer(request, actor: Membership, target_id: int) -> Membership:
    """The owner makes another member the owner and becomes an admin."""
    _lock_team(actor.merchant_id)
    actor = Membership.objects.get(pk=actor.pk)
    target = Membership.objects.get(pk=target_id, merchant_id=actor.merchant_id)
    if actor.role != Role.OWNER:
        raise PermissionDenied
    if target.pk == actor.pk:
        return actor
    target.role = Role.OWNER
    target.save(update_fields=["role"])
    actor.role = Role.ADMIN
    actor.save(update_fields=["role"])
    for member in (target, actor):
        audit.record(
            request,
            Action.MEMBER_ROLE_CHANGED,
            merchant=actor.merchant,
            object_id=member.user.email,
        )
    notifications.ownership_transfer_told(
        merchant=actor.merchant, by=actor.user, new_owner=target.user
    )
    return target


@transaction.atomic
def business_update(request, membership: Membership, sms_receipts=None, **values) -> bool:
    """The merchant's fields in `values`, and its customers' receipts by SMS (messaging's
    setting) when `sms_receipts` is given; one audit row names what changed."""
    merchant = type(membership.merchant).objects.select_for_update().get(pk=membership.merchant_id)
    changed = [name for name, value in values.items() if getattr(merchant, name) != value]
    receipts_changed = (
        sms_receipts is not None
        and messaging.messaging_settings(merchant).sms_receipts != sms_receipts
    )
    if not changed and not receipts_changed:
        return False
    for name in changed:
        setattr(merchant, name, values[name])
    merchant.full_clean()
    if changed:
        merchant.save(update_fields=changed)
    if receipts_changed:
        messaging.sms_receipts_set(merchant=merchant, enabled=sms_receipts)
        changed.append("sms_receipts")
    audit.record(request, Action.SETTINGS_UPDATED, merchant=merchant, object_id=",".join(changed))
    return True


@transaction.atomic
def security_update(request, membership: Membership, **values) -> bool:
    """The owner's security settings. "Payouts by API" turned on or off is audited as such
    (api_payouts.enabled, api_payouts.disabled), the others as settings.updated; that change,
    and the second approver no longer required, are mailed to every owner: both let money
    leave on fewer people's word (whoever made the change must not be the only one to know)."""
    if membership.role != Role.OWNER:
        raise PermissionDenied
    current, _created = MerchantSettings.objects.select_for_update().get_or_create(
        merchant_id=membership.merchant_id
    )
    changed = [name for name, value in values.items() if getattr(current, name) != value]
    if not changed:
        return False
    approver_before = current.second_approver_required()
    for name in changed:
        setattr(current, name, values[name])
    current.save(update_fields=changed)
    merchant = membership.merchant
    others = [name for name in changed if name != "api_payouts_enabled"]
    if others:
        audit.record(
            request, Action.SETTINGS_UPDATED, merchant=merchant, object_id=",".join(others)
        )
    news = []
    if "api_payouts_enabled" in changed:
        enabled = current.api_payouts_enabled
        audit.record(
            request,
            Action.API_PAYOUTS_ENABLED if enabled else Action.API_PAYOUTS_DISABLED,
            merchant=merchant,
            object_id="api_payouts_enabled",
        )
        news.append(
            _("Payouts by API with a live key are allowed again.")
            if enabled
            else _("Payouts by API with a live key are now refused.")
        )
    if approver_before and not current.second_approver_required():
        news.append(
            _(
                "Payout batches no longer need a second approver: the member who submits a "
                "batch may approve it alone."
            )
        )
    if news:
        _owners_told(request, merchant, news)
    return True


def _owners_told(request, merchant, news: list[str]) -> None:
    """A mail to every owner of `merchant` saying what `request`'s user changed, once the
    change has committed."""
    owners = list(
        Membership.objects.filter(merchant=merchant, role=Role.OWNER).values_list(
            "user__email", flat=True
        )
    )
    context = {
        "merchant": merchant,
        "who": request.user.email,
        "news": news,
        "url": settings.PUBLIC_BASE_URL + reverse("dashboard:settings-security"),
    }
    subject = render_to_string("dashboard/email/security_changed_subject.txt", context).strip()
    body = render_to_string("dashboard/email/security_changed_message.txt", context)
    transaction.on_commit(lambda: send_mail(subject, body, None, owners))


# --- The team's rules of payouts, as the API and the batches' pages ask them -----------------


def settings_of(merchant_id) -> MerchantSettings:
    """The merchant's team settings as they stand (the defaults when none were saved)."""
    found = MerchantSettings.objects.filter(merchant_id=merchant_id).first()
    return found or MerchantSettings(merchant_id=merchant_id)


def second_approver_required(merchant) -> bool:
    return settings_of(merchant.pk).second_approver_required()


def approvers_besides(merchant, *user_ids) -> int:
    """How many members with the payout right are none of `user_ids` (the batch's creator and
    submitter): those who may approve it when a second approver is required."""
    return (
        Membership.objects.filter(merchant=merchant, role__in=roles_with("payouts"))
        .exclude(user_id__in=[pk for pk in user_ids if pk is not None])
        .count()
    )


def api_payouts_allowed(sender, *, instance, **kwargs) -> bool:
    """core.events.api_payout_creating: the owner's "payouts by API" setting."""
    return settings_of(instance.pk).api_payouts_enabled


def api_batch_approval_required(sender, *, instance, **kwargs) -> bool:
    """core.events.api_payout_batch_creating: a live batch of the API waits for a member's
    approval when the merchant requires a second approver."""
    return second_approver_required(instance)


def owner_named(sender, *, instance, email: str, password: str | None, **kwargs) -> str:
    """core.events.merchant_owner_named (createmerchant --owner-email): the user of `email`
    becomes the owner of the new merchant `instance`. A new user is made with that address
    confirmed and `password` (checked as sign-up checks it; none: a password reset sets one);
    an existing user keeps theirs, which `password`, when given, must be. ValueError, in words,
    for a password refused."""
    email = email.lower()  # as allauth keeps addresses, and finds them at sign-in
    address = EmailAddress.objects.filter(email__iexact=email).select_related("user").first()
    user = address.user if address else get_user_model().objects.filter(email__iexact=email).first()
    if user is None:
        user = get_user_model()(email=email)
        if password is None:
            user.set_unusable_password()
        else:
            try:
                get_adapter().clean_password(password, user)
            except ValidationError as refused:
                raise ValueError("--owner-password: " + " ".join(refused.messages)) from None
            user.set_password(password)
        get_adapter().populate_username(None, user)
        user.save()
        EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    elif password is not None and not user.check_password(password):
        raise ValueError(f"--owner-password: {email} has an account already, with another password")
    Membership.objects.get_or_create(user=user, merchant=instance, defaults={"role": Role.OWNER})
    MerchantSettings.objects.get_or_create(merchant=instance)
    return user.email
