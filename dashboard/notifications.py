"""Merchant notifications (contract §23, docs/guides/notifications.md): each member chooses
e-mail and/or SMS for each payment received, a daily summary, payouts and settlements paid or
failed, and payout batches awaiting their approval; security notices always go by e-mail.

The domain events (core/events.py) write a Notice row in the transaction of the change; a beat
job (dashboard.tasks.notices_send) sends a merchant's unsent notices of one kind and mode as one
message per member, and then no other of that kind for NOTIFY_GROUP_SECONDS: the notices that
arrive meanwhile are grouped into the next one. A burst of payments is a message every few
minutes, never one per payment; nothing sleeps. Another beat job sends each merchant's summary of
the day before once it is 07:00 in its time zone, once (a DailySummary row is the claim)."""

import logging
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.mail import send_mail, send_mass_mail
from django.db import IntegrityError, transaction
from django.db.models import Count, Sum
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from batches.models import BatchStatus, PayoutBatch
from core.money import format_amount
from dashboard import languages, words
from dashboard.models import (
    DailySummary,
    Membership,
    Notice,
    NoticeKind,
    NotificationPreference,
)
from dashboard.roles import Role, roles_with
from messaging.services import sms_queue
from payments.models import TIME_ZONES, Charge, ChargeStatus, Merchant

logger = logging.getLogger("dashboard.notifications")

EMAIL, SMS = "email", "sms"
# Who may be told of what: the role table's right to see it (docs/guides/dashboard.md).
PERMISSION = {
    NoticeKind.PAYMENT: "view",
    NoticeKind.SUMMARY: "view",
    NoticeKind.PAYOUT: "view",
    NoticeKind.BATCH: "payouts",  # those who may approve it
}
PAYOUT_EVENTS = {"payout.succeeded", "payout.failed", "settlement.paid", "settlement.failed"}
LISTED = 10  # rows an e-mail lists one by one; the rest are counted


# --- The domain events' receivers (dashboard/apps.py), in the change's transaction ---------


def charge_changed(sender, *, instance, type: str, **kwargs) -> None:
    if type == "charge.succeeded":
        _notice(instance, NoticeKind.PAYMENT, status="succeeded")


def payout_or_settlement_changed(sender, *, instance, type: str, **kwargs) -> None:
    if type in PAYOUT_EVENTS:
        _notice(instance, NoticeKind.PAYOUT, status=type)


def batch_awaiting_approval(sender, *, instance, **kwargs) -> None:
    _notice(instance, NoticeKind.BATCH, status=BatchStatus.AWAITING_APPROVAL)


def _notice(instance, kind: str, *, status: str) -> None:
    Notice.objects.create(
        merchant_id=instance.merchant_id,
        livemode=instance.livemode,
        kind=kind,
        object_id=instance.pk,
        status=status,
        amount=getattr(instance, "amount", None),
        currency=getattr(instance, "currency", ""),
    )


# --- Preferences ---------------------------------------------------------------------------


def preference_of(membership: Membership) -> NotificationPreference:
    """The member's choices, the defaults (unsaved) for one who never chose."""
    found = NotificationPreference.objects.filter(membership=membership).first()
    return found or NotificationPreference(membership=membership)


def may_get(membership: Membership, kind: str) -> bool:
    return membership.role in roles_with(PERMISSION[kind])


@transaction.atomic
def preference_update(*, membership: Membership, **values) -> NotificationPreference:
    preference, _created = NotificationPreference.objects.select_for_update().get_or_create(
        membership=membership
    )
    for name, value in values.items():
        setattr(preference, name, value)
    preference.save()
    return preference


def _recipients(merchant_id: str, kind: str) -> list[tuple[Membership, NotificationPreference]]:
    """The members who may be told of `kind` and chose a channel for it."""
    members = Membership.objects.filter(
        merchant_id=merchant_id, role__in=roles_with(PERMISSION[kind])
    ).select_related("user", "notification_preference")
    chosen = []
    for member in members.order_by("created_at"):
        try:
            preference = member.notification_preference
        except NotificationPreference.DoesNotExist:
            preference = NotificationPreference(membership=member)
        if preference.wants(kind, EMAIL) or (preference.wants(kind, SMS) and preference.phone):
            chosen.append((member, preference))
    return chosen


# --- The grouped notices (beat: dashboard.tasks.notices_send) --------------------------------


def notices_send(*, now: datetime | None = None) -> int:
    """Send each (merchant, mode, kind) whose unsent notices may go now: none of its kind went
    within NOTIFY_GROUP_SECONDS. Returns how many groups were sent."""
    now = now or timezone.now()
    gap = timedelta(seconds=settings.NOTIFY_GROUP_SECONDS)
    groups = (
        Notice.objects.filter(sent_at__isnull=True)
        .values_list("merchant_id", "livemode", "kind")
        .distinct()
        .order_by()
    )
    sent = 0
    for merchant_id, livemode, kind in list(groups):
        same = {"merchant_id": merchant_id, "livemode": livemode, "kind": kind}
        with transaction.atomic():
            last = (
                Notice.objects.filter(**same, sent_at__isnull=False)
                .order_by("-sent_at")
                .values_list("sent_at", flat=True)
                .first()
            )
            if last is not None and now - last < gap:
                continue  # grouped into the next one
            # Claimed: another run at the same moment skips the rows locked here.
            rows = list(
                Notice.objects.select_for_update(skip_locked=True)
                .filter(**same, sent_at__isnull=True)
                .order_by("created_at", "pk")
            )
            if not rows:
                continue
            Notice.objects.filter(pk__in=[row.pk for row in rows]).update(sent_at=now)
            if kind == NoticeKind.BATCH:
                # A batch approved (or rejected) before its notice went needs no one any more.
                waiting = set(
                    PayoutBatch.objects.filter(
                        pk__in=[row.object_id for row in rows],
                        status=BatchStatus.AWAITING_APPROVAL,
                    ).values_list("pk", flat=True)
                )
                rows = [row for row in rows if row.object_id in waiting]
            if rows:
                _tell(Merchant.objects.get(pk=merchant_id), livemode, kind, rows)
                sent += 1
    return sent


def _tell(merchant: Merchant, livemode: bool, kind: str, rows: list[Notice]) -> None:
    recipients = _recipients(merchant.pk, kind)
    spoken = languages.languages_of([member.user_id for member, _p in recipients])
    mails = []
    for member, preference in recipients:
        with (
            translation.override(spoken[member.user_id]),
            timezone.override(ZoneInfo(merchant.time_zone)),
        ):
            subject, body, text = _words(merchant, livemode, kind, rows)
        if preference.wants(kind, EMAIL):
            mails.append((subject, body, None, [member.user.email]))
        if preference.wants(kind, SMS) and preference.phone:
            sms_queue(
                merchant=merchant,
                livemode=livemode,
                to=preference.phone,
                body=text,
                kind="notification",
            )
    if mails:
        # robust: a mail server down loses these mails (logged), never the notices' state.
        transaction.on_commit(lambda: send_mass_mail(mails), robust=True)


def _at(moment: datetime) -> str:
    """`14:05 (heure de Kinshasa)`, in the active zone and language."""
    local = timezone.localtime(moment)
    zone = timezone.get_current_timezone_name()
    return f"{date_format(local, 'TIME_FORMAT')} ({words.ZONE_NAMES.get(zone, zone)})"


def _sums(rows: list[Notice]) -> str:
    totals: dict[str, int] = defaultdict(int)
    for row in rows:
        if row.amount is not None and row.currency:
            totals[row.currency] += row.amount
    return ", ".join(format_amount(amount, currency) for currency, amount in sorted(totals.items()))


def _link(name: str, livemode: bool, *args) -> str:
    mode = "live" if livemode else "test"
    return settings.PUBLIC_BASE_URL + reverse(f"dashboard:{name}", args=[mode, *args])


def _words(merchant: Merchant, livemode: bool, kind: str, rows: list[Notice]):
    """(subject, mail body, SMS text) of one grouped notice, in the active language."""
    test = "" if livemode else _("[Test mode] ")
    name = merchant.name
    if kind == NoticeKind.PAYMENT:
        count, total = len(rows), _sums(rows)
        if count == 1:
            text = _("%(merchant)s: payment of %(amount)s received at %(when)s.") % {
                "merchant": name,
                "amount": total,
                "when": _at(rows[0].created_at),
            }
        else:
            text = _(
                "%(merchant)s: %(count)s payments received since %(when)s, %(total)s in all."
            ) % {"merchant": name, "count": count, "when": _at(rows[0].created_at), "total": total}
        subject = ngettext(
            "%(merchant)s: a payment received", "%(merchant)s: %(count)s payments received", count
        ) % {"merchant": name, "count": count}
        lines = [
            f"- {_at(row.created_at)} · {format_amount(row.amount, row.currency)} · {row.object_id}"
            for row in rows[:LISTED]
        ]
        url = _link("payments", livemode)
    elif kind == NoticeKind.PAYOUT:
        said = [_payout_words(row) for row in rows]
        text = f"{name}: " + ("; ".join(said[:3]) if len(said) <= 3 else _payout_counts(rows))
        subject = _("%(merchant)s: payouts and settlements") % {"merchant": name}
        lines = [f"- {_at(row.created_at)} · {line}" for row, line in zip(rows, said, strict=True)]
        lines = lines[:LISTED]
        url = _link("payouts", livemode)
    else:  # a batch awaiting approval
        count = len(rows)
        text = ngettext(
            "%(merchant)s: a payout batch awaits your approval.",
            "%(merchant)s: %(count)s payout batches await your approval.",
            count,
        ) % {"merchant": name, "count": count}
        subject = text
        lines = [
            f"- {row.object_id}: {_link('payout-batch', livemode, row.object_id)}"
            for row in rows[:LISTED]
        ]
        url = _link("payout-batches", livemode)
    if len(rows) > LISTED:
        lines.append(_("… and %(count)s more.") % {"count": len(rows) - LISTED})
    body = "\n".join([test + text, "", *lines, "", url, "", _footer()])
    return test + subject, body, test + text


def _payout_words(row: Notice) -> str:
    amount = format_amount(row.amount, row.currency) if row.amount is not None else ""
    return {
        "payout.succeeded": _("payout %(id)s of %(amount)s paid"),
        "payout.failed": _("payout %(id)s of %(amount)s failed"),
        "settlement.paid": _("settlement %(id)s of %(amount)s paid"),
        "settlement.failed": _("settlement %(id)s of %(amount)s failed"),
    }[row.status] % {"id": row.object_id, "amount": amount}


def _payout_counts(rows: list[Notice]) -> str:
    paid = sum(1 for row in rows if row.status in ("payout.succeeded", "settlement.paid"))
    return _("%(paid)s paid, %(failed)s failed; see the dashboard.") % {
        "paid": paid,
        "failed": len(rows) - paid,
    }


def _footer() -> str:
    return _("You chose these notices at %(url)s") % {
        "url": settings.PUBLIC_BASE_URL + reverse("dashboard:settings-notifications")
    }


# --- The daily summary (beat: dashboard.tasks.summaries_send) -------------------------------


def summaries_send(*, now: datetime | None = None) -> int:
    """Each merchant's summary of the day before, once its clock has passed
    NOTIFY_SUMMARY_HOUR (and the notices sent over a day ago deleted). Returns how many
    summaries were sent."""
    now = now or timezone.now()
    # The notices sent long before any grouping could read them again are of no more use.
    keep = max(timedelta(days=1), 2 * timedelta(seconds=settings.NOTIFY_GROUP_SECONDS))
    Notice.objects.filter(sent_at__lt=now - keep).delete()
    sent = 0
    for zone_name, _label in TIME_ZONES:
        zone = ZoneInfo(zone_name)
        local = now.astimezone(zone)
        if local.hour < settings.NOTIFY_SUMMARY_HOUR:
            continue
        day = local.date() - timedelta(days=1)
        done = DailySummary.objects.filter(day=day).values("merchant_id")
        merchants = (
            Merchant.objects.filter(time_zone=zone_name, memberships__isnull=False)
            .exclude(pk__in=done)
            .distinct()
        )
        for merchant in merchants.iterator():
            if _summary_send(merchant, day, zone):
                sent += 1
    return sent


def _summary_send(merchant: Merchant, day, zone: ZoneInfo) -> bool:
    recipients = _recipients(merchant.pk, NoticeKind.SUMMARY)
    start = datetime.combine(day, time.min, tzinfo=zone)
    totals = list(
        Charge.objects.filter(
            merchant=merchant,
            status=ChargeStatus.SUCCEEDED,
            created_at__gte=start,
            created_at__lt=start + timedelta(days=1),
        )
        .values("livemode", "currency")
        .annotate(count=Count("pk"), total=Sum("amount"))
        .order_by("-livemode", "currency")
    )
    with transaction.atomic():
        try:
            with transaction.atomic():
                DailySummary.objects.create(merchant=merchant, day=day)
        except IntegrityError:
            return False  # another run sent it
        if not recipients or not totals:
            return False  # a day without payments is not worth a message
        spoken = languages.languages_of([member.user_id for member, _p in recipients])
        mails = []
        for member, preference in recipients:
            with translation.override(spoken[member.user_id]):
                subject, body, text = _summary_words(merchant, day, totals)
            if preference.wants(NoticeKind.SUMMARY, EMAIL):
                mails.append((subject, body, None, [member.user.email]))
            if preference.wants(NoticeKind.SUMMARY, SMS) and preference.phone:
                for livemode in sorted({row["livemode"] for row in totals}, reverse=True):
                    sms_queue(
                        merchant=merchant,
                        livemode=livemode,
                        to=preference.phone,
                        body=_summary_sms(merchant, day, totals, livemode),
                        kind="notification",
                    )
        if mails:
            transaction.on_commit(lambda: send_mass_mail(mails), robust=True)
    return True


def _summary_line(row: dict) -> str:
    return ngettext(
        "%(count)s payment, %(total)s", "%(count)s payments, %(total)s", row["count"]
    ) % {"count": row["count"], "total": format_amount(row["total"], row["currency"])}


def _summary_words(merchant: Merchant, day, totals: list[dict]):
    when = date_format(day, "DATE_FORMAT")
    subject = _("%(merchant)s: your payments of %(day)s") % {
        "merchant": merchant.name,
        "day": when,
    }
    lines = [
        _("Payments received on %(day)s (%(zone)s):")
        % {"day": when, "zone": words.ZONE_NAMES.get(merchant.time_zone, merchant.time_zone)}
    ]
    for row in totals:
        mode = _("Live") if row["livemode"] else _("Test mode")
        lines.append(f"- {mode}: {_summary_line(row)}")
    lines += ["", _link("payments", bool(totals[0]["livemode"])), "", _footer()]
    return subject, "\n".join(lines), ""


def _summary_sms(merchant: Merchant, day, totals: list[dict], livemode: bool) -> str:
    mine = "; ".join(_summary_line(row) for row in totals if row["livemode"] == livemode)
    return _("%(merchant)s, %(day)s: %(totals)s.") % {
        "merchant": merchant.name,
        "day": date_format(day, "SHORT_DATE_FORMAT"),
        "totals": mine,
    }


# --- Security notices: always by e-mail, not to be turned off --------------------------------


def security_notice(*, users, said: Callable[[], tuple[str, str]]) -> None:
    """A security notice to each of `users` by e-mail, whatever they chose, in their language
    (`said()` answers the subject and the body in the active one), once the change commits."""
    users = list(users)
    spoken = languages.languages_of([user.pk for user in users])
    for user in users:
        with translation.override(spoken[user.pk]):
            mail = said()
        recipient = user.email
        transaction.on_commit(
            lambda mail=mail, recipient=recipient: send_mail(mail[0], mail[1], None, [recipient]),
            robust=True,
        )


def owners_of(merchant_id) -> list:
    return [
        member.user
        for member in Membership.objects.filter(
            merchant_id=merchant_id, role=Role.OWNER
        ).select_related("user")
    ]


def two_factor_off_told(user) -> None:
    """Two-factor turned off: the person, and the owners of each team they belong to."""
    memberships = list(Membership.objects.filter(user=user).select_related("merchant"))
    zone = memberships[0].merchant.time_zone if memberships else "Africa/Kinshasa"
    told = {user.pk: user}
    for membership in memberships:
        told.update({owner.pk: owner for owner in owners_of(membership.merchant_id)})
    now = timezone.now()
    url = settings.PUBLIC_BASE_URL + reverse("mfa_index")

    def said():
        return (
            _("Two-factor authentication was turned off for %(email)s") % {"email": user.email},
            _(
                "Two-factor authentication was turned off for %(email)s on CongoPay on "
                "%(when)s.\n\nIf this was not you, reset the password and turn two-factor "
                "authentication back on: %(url)s\n\nThis security notice is always sent."
            )
            % {"email": user.email, "when": words.local_moment(now, zone), "url": url},
        )

    security_notice(users=told.values(), said=said)


def ownership_transfer_told(*, merchant: Merchant, by, new_owner) -> None:
    """Ownership transferred: every owner (the new one among them) and the former owner."""
    told = {owner.pk: owner for owner in owners_of(merchant.pk)}
    told[by.pk] = by
    told[new_owner.pk] = new_owner
    url = settings.PUBLIC_BASE_URL + reverse("dashboard:audit")

    def said():
        values = {"merchant": merchant.name, "who": by.email, "new": new_owner.email, "url": url}
        return (
            _("%(merchant)s: ownership transferred to %(new)s") % values,
            _(
                "%(who)s made %(new)s the owner of %(merchant)s on CongoPay; %(who)s is now an "
                "admin.\n\nIf you did not expect this, check the team and the audit log: "
                "%(url)s\n\nThis security notice is always sent."
            )
            % values,
        )

    security_notice(users=told.values(), said=said)
