"""Merchant notifications (contract §23): each member's choices on
/dashboard/settings/notifications/, a payment notice within a minute of the payment and a burst
grouped (NOTIFY_GROUP_SECONDS), payouts and settlements, batches awaiting approval (to those who
may approve them), the daily summary at 07:00 in the merchant's zone, SMS through messaging,
security notices always by e-mail. The beat jobs run as Celery tasks (eager); mail lands in
Django's test outbox."""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from allauth.mfa.models import Authenticator
from allauth.mfa.signals import authenticator_removed

from dashboard import services, tasks
from dashboard.models import Notice, NotificationPreference
from messaging.models import Message
from payments.providers.base import ProviderOutcome
from payments.services import payouts as payout_services
from tests.dashboard.conftest import make_member, signed_in
from tests.factories import (
    make_charge,
    sent_payout,
    succeeded_mobile_money_charge,
    with_totp,
)

pytestmark = [pytest.mark.django_db]

PAGE = "/dashboard/settings/notifications/"
START = datetime(2026, 12, 8, 13, 5, tzinfo=UTC)  # 14:05 in Kinshasa


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def choose(membership, **choices) -> NotificationPreference:
    defaults = {
        "payment_email": False,
        "summary_email": False,
        "payout_email": False,
        "batch_email": False,
    }
    return NotificationPreference.objects.create(membership=membership, **{**defaults, **choices})


@pytest.fixture
def run_notices(django_capture_on_commit_callbacks):
    """The beat job at `at`, its mail sent once its transaction commits."""

    def run(at: datetime) -> int:
        with (
            time_machine.travel(at, tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            return tasks.notices_send.delay().get()

    return run


def spaced(text: str) -> str:
    return text.replace("\xa0", " ").replace("\u202f", " ")


def paid_at(shop, at: datetime, amount: int = 250000):
    with time_machine.travel(at, tick=False):
        return succeeded_mobile_money_charge(shop, amount=amount)


def test_the_page_offers_each_choice_and_keeps_the_phone_in_e164(shop):
    owner = make_member(shop, "owner")
    client = signed_in(owner.user)
    page = client.get(PAGE, HTTP_ACCEPT_LANGUAGE="fr")
    html = page.content.decode()
    for kind in ("payment", "summary", "payout", "batch"):
        for channel in ("email", "sms"):
            assert re.search(f'<input[^>]*data-notify="{kind}"[^>]*data-channel="{channel}"', html)
    assert 'checked disabled data-notify="security" data-channel="email"' in html
    assert "Toujours" in html

    saved = client.post(PAGE, {"phone": "0812 345 678", "payment_sms": "on", "batch_email": "on"})
    assert saved.status_code == 302
    preference = NotificationPreference.objects.get(membership=owner)
    assert preference.phone == "+243812345678"
    assert (preference.payment_sms, preference.payment_email, preference.batch_email) == (
        True,
        False,
        True,
    )
    assert preference.summary_email is False  # unticked is off

    refused = client.post(PAGE, {"phone": "12", "payment_sms": "on"}, HTTP_ACCEPT_LANGUAGE="fr")
    assert refused.status_code == 200
    assert "numéro de mobile congolais" in refused.content.decode()
    no_phone = client.post(PAGE, {"phone": "", "summary_sms": "on"}, HTTP_ACCEPT_LANGUAGE="en")
    assert "Enter your mobile number" in no_phone.content.decode()
    assert NotificationPreference.objects.get(membership=owner).phone == "+243812345678"


def test_a_viewer_is_not_offered_the_batches_it_cannot_approve(shop):
    viewer = make_member(shop, "viewer")
    html = signed_in(viewer.user).get(PAGE).content.decode()
    assert 'data-notify="payment"' in html and 'data-notify="batch"' not in html


def test_a_burst_of_payments_is_grouped(shop, other_shop, mailoutbox, eager_tasks, run_notices):
    owner = make_member(shop, "owner")
    choose(owner, payment_email=True)
    choose(make_member(shop, "finance"))  # chose nothing
    choose(make_member(other_shop, "owner"), payment_email=True)
    paid_at(shop, START)
    assert run_notices(START + timedelta(seconds=15)) == 1  # within a minute
    (first,) = mailoutbox
    assert first.to == [owner.user.email]
    assert "2 500,00 CDF" in spaced(first.body) and "14:05 (heure de Kinshasa)" in first.body
    assert first.subject.startswith("[Mode test]")

    for second in range(1, 31):  # a burst: 30 payments in the next 30 seconds
        paid_at(shop, START + timedelta(seconds=15 + second), amount=10000)
    assert run_notices(START + timedelta(seconds=60)) == 0  # grouped into the next one
    assert run_notices(START + timedelta(seconds=250)) == 0
    assert len(mailoutbox) == 1
    assert run_notices(START + timedelta(seconds=15 + 300)) == 1
    assert len(mailoutbox) == 2
    assert "30 paiements reçus" in mailoutbox[1].body
    assert "3 000,00 CDF" in spaced(mailoutbox[1].body)
    assert run_notices(START + timedelta(seconds=1000)) == 0  # nothing new
    assert not Notice.objects.filter(sent_at__isnull=True).exists()
    with time_machine.travel(START + timedelta(days=2), tick=False):
        tasks.summaries_send.delay().get()
    assert not Notice.objects.exists()  # sent long ago: deleted


def test_payment_notices_by_sms_go_to_the_test_inbox(shop, mailoutbox, eager_tasks, run_notices):
    owner = make_member(shop, "owner")
    choose(owner, payment_sms=True, phone="+243812345678")
    paid_at(shop, START)
    run_notices(START + timedelta(seconds=15))
    (message,) = Message.objects.all()
    assert (message.to, message.kind, message.livemode) == ("+243812345678", "notification", False)
    assert "2 500,00 CDF" in spaced(message.body)
    assert mailoutbox == []


def test_payouts_and_batches(shop, mailoutbox, eager_tasks, run_notices):
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    owner, viewer = make_member(shop, "owner"), make_member(shop, "viewer")
    choose(owner, payout_email=True, batch_email=True)
    choose(viewer, payout_email=True, batch_email=True)  # not one who may approve
    with time_machine.travel(START, tick=False):
        payout = sent_payout(shop, amount=5000)
        payout_services.payout_apply_outcome(
            payout_id=payout.id, outcome=ProviderOutcome(status="succeeded")
        )
    run_notices(START + timedelta(seconds=10))
    told = {mail.to[0]: mail for mail in mailoutbox}
    assert set(told) == {owner.user.email, viewer.user.email}
    assert payout.id in told[owner.user.email].body

    from tests.dashboard.test_payout_batches_pages import action, draft

    mailoutbox.clear()
    finance_member = make_member(shop, "finance")
    choose(finance_member)  # chose nothing
    finance = signed_in(finance_member.user)
    batch = draft(finance)
    action(finance, batch, "submit")
    run_notices(START + timedelta(seconds=20))
    assert [mail.to for mail in mailoutbox] == [[owner.user.email]]
    assert batch.id in mailoutbox[0].body


def test_a_batch_approved_before_its_notice_goes_is_not_told(
    shop, mailoutbox, eager_tasks, run_notices
):
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    owner = make_member(shop, "owner")
    choose(owner, batch_email=True)
    from tests.dashboard.test_payout_batches_pages import action, draft

    finance = signed_in(make_member(shop, "finance").user)
    batch = draft(finance)
    action(finance, batch, "submit")
    action(signed_in(owner.user), batch, "approve")
    run_notices(START)
    assert mailoutbox == []


def test_the_daily_summary_at_seven_in_the_merchants_zone(
    shop, other_shop, mailoutbox, eager_tasks, django_capture_on_commit_callbacks
):
    owner = make_member(shop, "owner")
    choose(owner, summary_email=True)
    other_shop.time_zone = "Africa/Lubumbashi"
    other_shop.save(update_fields=["time_zone"])
    far = make_member(other_shop, "owner")
    choose(far, summary_email=True)
    # The 7th in Kinshasa: 23:30 UTC on the 6th is 00:30 on the 7th; 23:30 UTC on the 7th is
    # the 8th already.
    for at in (datetime(2026, 12, 6, 23, 30, tzinfo=UTC), datetime(2026, 12, 7, 12, 0, tzinfo=UTC)):
        paid_at(shop, at)
    paid_at(shop, datetime(2026, 12, 7, 23, 30, tzinfo=UTC))
    make_charge(shop, at=datetime(2026, 12, 7, 12, 0, tzinfo=UTC))  # not paid: not counted
    paid_at(other_shop, datetime(2026, 12, 7, 12, 0, tzinfo=UTC))

    with (
        time_machine.travel(datetime(2026, 12, 8, 5, 59, tzinfo=UTC), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        # 06:59 in Kinshasa; 07:59 in Lubumbashi, whose summary goes (its owner chose it)
        assert tasks.summaries_send.delay().get() == 1
    (eastern,) = mailoutbox
    assert eastern.to == [far.user.email] and "heure de Lubumbashi" in eastern.body
    mailoutbox.clear()
    with (
        time_machine.travel(datetime(2026, 12, 8, 6, 0, tzinfo=UTC), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert tasks.summaries_send.delay().get() == 1
        assert tasks.summaries_send.delay().get() == 0  # once
    (summary,) = mailoutbox
    assert summary.to == [owner.user.email]
    assert "7 décembre 2026" in summary.subject
    assert "2 paiements, 5 000,00 CDF" in spaced(summary.body)


def test_security_notices_are_always_mailed(shop, mailoutbox, django_capture_on_commit_callbacks):
    owner = make_member(shop, "owner")
    admin = make_member(shop, "admin")
    choose(owner)
    choose(admin)
    with_totp(admin.user)
    authenticator = Authenticator.objects.get(user=admin.user, type=Authenticator.Type.TOTP)
    with django_capture_on_commit_callbacks(execute=True):
        authenticator_removed.send(
            sender=Authenticator, request=None, user=admin.user, authenticator=authenticator
        )
    assert {mail.to[0] for mail in mailoutbox} == {admin.user.email, owner.user.email}

    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.ownership_transfer(None, owner, admin.pk)
    assert {mail.to[0] for mail in mailoutbox} == {owner.user.email, admin.user.email}
    assert all(
        "is now an admin" in mail.body or "est désormais" in mail.body for mail in mailoutbox
    )


def test_a_settlement_paid_and_the_summary_by_sms(
    shop, mailoutbox, eager_tasks, run_notices, django_capture_on_commit_callbacks
):
    from payments.services import settlements

    owner = make_member(shop, "owner")
    choose(owner, payout_sms=True, summary_sms=True, phone="+243812345678")
    paid_at(shop, START, amount=5_000_000)  # 14:05 on the 8th in Kinshasa
    settlements.account_add(
        merchant=shop,
        livemode=False,
        type="bank_account",
        currency="CDF",
        bank_name="Rawbank",
        account_holder="Boutique Gombe SARL",
        account_number="0501 2345 6789 4821",
        swift="RAWBCDKI",
    )
    with time_machine.travel(START, tick=False):
        settlement = settlements.settlement_create(
            merchant=shop, livemode=False, currency="CDF", amount=100000
        )
        settlements.settlement_apply_outcome(
            settlement_id=settlement.id, outcome=ProviderOutcome(status="paid")
        )
    run_notices(START + timedelta(seconds=5))
    (message,) = Message.objects.filter(kind="notification")
    assert settlement.id in message.body and "1 000,00 CDF" in spaced(message.body)
    assert mailoutbox == []  # SMS only, as chosen

    with time_machine.travel(datetime(2026, 12, 9, 6, 0, tzinfo=UTC), tick=False):
        tasks.summaries_send.delay().get()
    texts = [m.body for m in Message.objects.filter(kind="notification").order_by("created_at")]
    assert len(texts) == 2 and "1 paiement, 50 000,00 CDF" in spaced(texts[1])
