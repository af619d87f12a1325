"""The customer who keeps an older card page open and pays on both tabs, in headless Chromium
against the live test server, with a real worker on Redis sending the refunds: the payment that
made the charge succeed is kept, the other one is given back once."""

import re

import pytest

from checkout import services
from payments.models import Charge, ExtraPayment, Refund
from payments.services import ledger
from sandbox.models import SandboxTransaction
from tests.factories import make_session
from tests.helpers import wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
]

CARD_FORM = 'form[data-method="card"]'


def attempt_on(tab) -> SandboxTransaction:
    """The card provider's record of the attempt the tab's card page is for."""
    action = tab.locator("form[action$='/decide']").first.get_attribute("action")
    return SandboxTransaction.objects.get(pk=re.search(r"/card/pay/([^/]+)/decide", action)[1])


def test_two_tabs_paid_keep_one_payment_and_give_the_other_back_once(
    page, merchant, public_base_url, celery_worker_process
):
    celery_worker_process()
    shop = {
        "success_url": f"{public_base_url}/healthz?m=ok",
        "cancel_url": f"{public_base_url}/healthz?m=cancel",
    }
    session = make_session(merchant, currency="USD", amount=1999, **shop)
    url = services.session_repr(session)["url"]

    # First tab: the card page of the first attempt, left open.
    old_tab = page
    old_tab.goto(url)
    old_tab.locator(f"{CARD_FORM} button[type=submit]").click()
    old_tab.wait_for_selector('[data-outcome="accept"]')
    charge = Charge.objects.get(checkout_session=session)

    # Second tab of the same browser: back to our page, then to a fresh card page.
    new_tab = old_tab.context.new_page()
    new_tab.goto(f"{url}/card-return?transaction_id={charge.id}")
    new_tab.get_by_role("button", name="Revenir à la page de paiement par carte").click()
    new_tab.wait_for_selector('[data-outcome="accept"]')
    old_attempt, new_attempt = attempt_on(old_tab), attempt_on(new_tab)
    assert old_attempt.attempt != new_attempt.attempt

    new_tab.locator('[data-outcome="accept"]').click()
    new_tab.wait_for_url(re.compile(r".*/healthz\?m=ok&.*"), timeout=30_000)
    old_tab.locator('[data-outcome="accept"]').click()  # the customer pays the old tab too
    # That tab's reply comes back to a charge that has succeeded: it goes where the other did.
    old_tab.wait_for_url(re.compile(r".*/healthz\?m=ok&.*"), timeout=30_000)

    # The worker sends the refund of the other payment to the card provider.
    refund = wait_for(
        lambda: Refund.objects.filter(charge=charge, status="succeeded").first(), timeout=60
    )
    charge.refresh_from_db()
    assert (charge.status, charge.provider_reference) == ("succeeded", new_attempt.id)
    assert (refund.reason, refund.amount, refund.payment_reference) == (
        "late_payment",
        1999,
        old_attempt.id,
    )
    assert charge.amount_refunded == 0
    assert list(Refund.objects.filter(charge=charge)) == [refund]
    assert ExtraPayment.objects.get(charge=charge).refund == refund
    given_back = SandboxTransaction.objects.get(kind="refund", reference=refund.id)
    assert given_back.request["payment"] == old_attempt.id
    assert ledger.ledger_check() == []
