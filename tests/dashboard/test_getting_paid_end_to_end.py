"""From sign-up to money in the bank, with no command line: a shop signs up in the dashboard,
confirms its address, applies for live mode with its documents and bank account, staff approve it
in the admin, the account's hold passes, a live payment comes in, the owner (two-factor) withdraws
it, one staff member exports the bank transfer file and another records the bank's payment. The
books agree at the end (the suite's check after every test)."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from dashboard.models import ActivationApplication, Membership
from payments.models import Merchant, Settlement, SettlementAccount
from tests.dashboard.conftest import PASSWORD, body_of
from tests.dashboard.pages.test_settlements import withdraw
from tests.dashboard.test_activation import BANK, BUSINESS, PAGE, decide, documents, reviewer
from tests.dashboard.test_four_eyes import sign_in, with_two_factor
from tests.factories import succeeded_live_charge
from tests.helpers import totp_code, totp_secret
from tests.payments.settlements.test_settlements_admin import act, staff_member
from tests.pricing import rate
from webhooks.models import Event

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _plan_and_documents(settings, tmp_path):
    settings.PRICING_DEFAULT = [rate("settlement", currency="USD", fixed=1000)]  # 10 USD a transfer
    settings.MEDIA_ROOT = tmp_path / "media"


def signed_in_with_two_factor(user) -> Client:
    """The owner signs in with the password, then the code of the authenticator app."""
    client = Client()
    answer = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert answer.status_code == 302 and answer.url.startswith("/accounts/2fa/authenticate")
    answer = client.post(answer.url, {"code": totp_code(totp_secret(user))})
    assert answer.status_code == 302 and "/accounts/" not in answer.url
    return client


def test_a_new_shop_is_paid_into_its_bank_account_without_a_command_line(smtp_sink):
    # 1. Sign-up and the address confirmed by the mailed link.
    visitor = Client()
    answer = visitor.post(
        "/accounts/signup/",
        {"email": "mado@example.cd", "business_name": "Boutique Gombe SARL",
         "password1": PASSWORD, "password2": PASSWORD},
    )  # fmt: skip
    assert answer.status_code == 302
    (link,) = re.findall(
        r"https?://\S+/accounts/confirm-email/\S+/", body_of(smtp_sink.messages[0])
    )
    assert visitor.post(urlsplit(link).path).status_code == 302
    user = get_user_model().objects.get(email="mado@example.cd")
    shop = Membership.objects.get(user=user, role="owner").merchant
    assert not shop.live_approved

    # 2. The owner applies for live mode, with documents and a USD bank account.
    owner = with_two_factor(sign_in("mado@example.cd"))
    applied = owner.post(PAGE, {**BUSINESS, **BANK, **documents(), "action": "submit"})
    assert applied.status_code == 302, applied.content.decode()[:2000]
    application = ActivationApplication.objects.get(merchant=shop)
    account = SettlementAccount.objects.get(merchant=shop, livemode=True)
    assert account.available_from > timezone.now()  # held from the submission

    # 3. Staff approve it in the admin: live mode is on.
    _, staff = reviewer("reviewer", "payments.review_activation")
    assert decide(staff, application, "approved").status_code == 302
    shop = Merchant.objects.get(pk=shop.pk)
    assert shop.live_approved

    # 4. Once the hold has passed, a live payment in, and the owner withdraws it all.
    with time_machine.travel(account.available_from + timedelta(minutes=1), tick=False):
        succeeded_live_charge(shop, amount=250_000, currency="USD")  # 2 500 USD
        owner = signed_in_with_two_factor(user)  # two days later: a fresh sign-in
        quote, confirmed = withdraw(
            owner, url="/dashboard/live/settlements/new/", currency="USD", lang="en"
        )
        assert confirmed is not None and confirmed.status_code == 302, quote.content.decode()[:2000]
    settlement = Settlement.objects.get(merchant=shop, livemode=True)
    assert (settlement.amount, settlement.fee, settlement.status) == (249_000, 1000, "pending")

    # 5. One staff member sends the bank file; another records the bank's payment.
    alice = staff_member("alice", "send_settlement")
    bob = staff_member("bob", "send_settlement")
    exported = act(alice, "export_bank_file", [settlement.pk])
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    assert Settlement.objects.get(pk=settlement.pk).status == "in_transit"
    done = act(
        bob, "mark_paid", [settlement.pk], confirm="yes", **{f"answer-{settlement.pk}": "FT26"}
    )
    assert done.status_code == 302
    paid = Settlement.objects.get(pk=settlement.pk)
    assert (paid.status, paid.provider_reference) == ("paid", "FT26")
    assert list(
        Event.objects.filter(type__startswith="settlement.").values_list("type", flat=True)
    ) == ["settlement.paid"]
