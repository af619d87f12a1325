"""The audit log's writer: one row per thing a person did or tried in the dashboard
(docs/guides/dashboard.md)."""

from axes.helpers import get_client_ip_address
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_ipv46_address

from dashboard.models import Action, AuditEntry, Membership
from payments import pricing


def client_ip(request) -> str | None:
    """The client's address as axes reads it (django-ipware told THROTTLE_TRUSTED_PROXIES, in
    config/settings/security.py): the sign-in lockouts and the audit log see the same address."""
    address = get_client_ip_address(request) if request is not None else None
    if not address:
        return None
    try:
        validate_ipv46_address(address)
    except ValidationError:
        return None
    return address


def record(
    request,
    action: str,
    *,
    merchant=None,
    mode: str = "",
    object_id: str = "",
    user=None,
    email: str = "",
    details: dict | None = None,
) -> AuditEntry:
    """Write one row. The user is the request's unless given (a failed sign-in has none, only
    the e-mail address typed; an API request has its key, which `email` names); the merchant is
    the request's active one unless given."""
    if action not in Action.values:
        raise ValueError(f"unknown audit action {action!r}")
    if user is None and request is not None and isinstance(request.user, get_user_model()):
        user = request.user
    if merchant is None and request is not None:
        merchant = getattr(request, "merchant", None)
    if not mode and request is not None:
        mode = getattr(request, "mode", "") or ""
    user_agent = request.META.get("HTTP_USER_AGENT", "") if request is not None else ""
    return AuditEntry.objects.create(
        user=user,
        email=(email or (user.email if user is not None else ""))[:254],
        merchant=merchant,
        mode=mode,
        action=action,
        object_id=str(object_id)[:100],
        ip=client_ip(request),
        user_agent=user_agent[:500],
        details=details,
    )


def record_for_person(request, action: str, *, user=None, email: str = "") -> list[AuditEntry]:
    """A row about a person rather than one merchant (sign-ins, two-factor): one per merchant
    they belong to, so each merchant's log shows it; one without a merchant otherwise."""
    if user is None and email:
        user = get_user_model().objects.filter(email__iexact=email).first()
    merchants = (
        [m.merchant for m in Membership.objects.filter(user=user).select_related("merchant")]
        if user is not None
        else []
    )
    return [
        record(request, action, merchant=merchant, user=user, email=email)
        for merchant in merchants or [None]
    ]


def pricing_updated(sender, instance, changes, user=None, request=None, **kwargs) -> None:
    """core.events.pricing_updated: staff changed the merchant's price plan, one row per rate
    (the object: its key; the details: the rate before and after, said in words when read).
    The plan is the same in both modes: no mode."""
    for change in changes:
        record(
            request,
            Action.PRICING_UPDATED,
            merchant=instance,
            user=user,
            object_id=pricing.change_key(change),
            details=change,
        )
