"""Prompts per phone (PHONE_PROMPT_LIMITS, docs/operations/security.md): in live mode the hosted
pages attempt at most 5 prompts to one phone per 10 minutes and 20 per day, whatever the
merchant, payment link or client address; past that the page answers 429 in the customer's
words, and no charge is made. Test mode and the merchant's own API charges are not counted.

The attacks come from several addresses of this machine (127.x.y.z) to a running server, which
sees each as the client's address under the deployment's own rules."""

import threading
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from checkout import services
from checkout.models import PromptedPhone
from payments.models import Charge
from tests.factories import make_session, merchant_with_keys
from tests.helpers import AddressClient, api_client
from tests.links.factories import make_link

PHONE = "+243812345678"
OTHER_PHONE = "+243812345600"
SANDBOX_AS_LIVE = {"VODACOM_MPESA": "sandbox.providers.SandboxMobileMoney"}


@pytest.fixture
def live_operator(settings):
    """The sandbox operator standing in for the live one (no prompt leaves this machine)."""
    settings.PAYMENT_PROVIDERS = {**settings.PAYMENT_PROVIDERS, "live": SANDBOX_AS_LIVE}
    settings.PHONE_PROMPT_LIMITS = "5/10m,20/d"


def live(merchant):
    merchant.live_approved = True
    merchant.save(update_fields=["live_approved"])
    return merchant


def open_link_session(visitor: AddressClient, link) -> str:
    """The visitor presses the link page's button: the path of the new session's page."""
    opened = visitor.submit(f"/pay/{link.slug}", f"/pay/{link.slug}", {"email": ""})
    assert opened.status == 303, opened.text[:500]
    return urlsplit(opened.headers["Location"]).path


def prompt(visitor: AddressClient, session_path: str, phone: str = PHONE):
    return visitor.submit(
        session_path, f"{session_path}/mobile-money", {"phone": phone, "network": ""}
    )


@pytest.mark.django_db(transaction=True)
def test_prompts_to_one_phone_are_limited_across_addresses_merchants_and_links(
    live_server, public_base_url, live_operator
):
    links = [
        make_link(live(merchant_with_keys(name=name).merchant), livemode=True)
        for name in ("Boutique Gombe", "Pharmacie Limete")
    ]
    visitors = [AddressClient(live_server.url) for _ in range(4)]
    assert len({visitor.address for visitor in visitors}) == 4

    answers = []
    for turn in range(2):
        for number, visitor in enumerate(visitors):
            session_path = open_link_session(visitor, links[(turn + number) % 2])
            answers.append(prompt(visitor, session_path))
    assert [answer.status for answer in answers] == [303] * 5 + [429] * 3
    assert Charge.objects.filter(phone=PHONE).count() == 5  # no charge for a refused attempt

    refused = answers[5]
    assert 600 - 60 <= int(refused.headers["Retry-After"]) <= 600
    assert "Trop de demandes de paiement vers ce numéro. Réessayez dans 10 minutes." in refused.text
    assert 'data-method="mobile_money"' in refused.text  # the page itself, to pay later
    assert f'value="{PHONE}"' in refused.text or "81 234 5678" in refused.text

    english = AddressClient(live_server.url, language="en")
    refused = prompt(english, open_link_session(english, links[0]))
    assert refused.status == 429
    assert "Too many payment requests to this number. Please try again in 10 minutes." in (
        refused.text
    )

    # Another phone is not held back by it, from the same addresses.
    assert prompt(visitors[0], open_link_session(visitors[0], links[0]), OTHER_PHONE).status == 303
    assert Charge.objects.filter(phone=PHONE).count() == 5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_attempts_at_once_from_many_addresses_make_no_more_prompts_than_the_limit(
    live_server, public_base_url, live_operator
):
    link = make_link(live(merchant_with_keys().merchant), livemode=True)
    visitors = [AddressClient(live_server.url) for _ in range(8)]
    pages = [open_link_session(visitor, link) for visitor in visitors]
    barrier = threading.Barrier(len(visitors))
    statuses = []

    def attack(visitor, page):
        barrier.wait()
        statuses.append(prompt(visitor, page).status)

    threads = [
        threading.Thread(target=attack, args=pair) for pair in zip(visitors, pages, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert sorted(statuses) == [303] * 5 + [429] * 3
    assert Charge.objects.filter(phone=PHONE, livemode=True).count() == 5


@pytest.mark.django_db
def test_the_windows_slide_and_a_day_holds_twenty(live_operator):
    merchant = live(merchant_with_keys().merchant)
    client = Client()

    def attempt():
        session = make_session(merchant, livemode=True)
        url = f"/pay/{session.id}/mobile-money"
        return client.post(url, {"phone": PHONE, "network": ""}, HTTP_ACCEPT_LANGUAGE="fr")

    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        assert [attempt().status_code for _ in range(5)] == [303] * 5
        clock.move_to(start + timedelta(minutes=9, seconds=30))
        refused = attempt()
        assert refused.status_code == 429 and refused["Retry-After"] == "30"
        assert "Réessayez dans 1 minute." in refused.content.decode()
        for round_ in range(1, 4):  # five more every 11 minutes: 20 in 33 minutes
            clock.move_to(start + timedelta(minutes=11 * round_))
            assert [attempt().status_code for _ in range(5)] == [303] * 5
        clock.move_to(start + timedelta(hours=3))
        refused = attempt()
        assert refused.status_code == 429
        assert int(refused["Retry-After"]) == 21 * 3600
        assert "Réessayez dans 21 heures." in refused.content.decode()
        clock.move_to(start + timedelta(days=1, seconds=1))  # the first five left the day
        assert [attempt().status_code for _ in range(6)] == [303] * 5 + [429]
    assert Charge.objects.filter(phone=PHONE).count() == 25


@pytest.mark.django_db
def test_test_mode_and_the_merchants_api_charges_are_not_counted(live_operator, merchant_keys):
    merchant = live(merchant_keys.merchant)
    client = Client()
    for _ in range(7):  # test mode: its prompts reach no phone
        session = make_session(merchant)
        response = client.post(f"/pay/{session.id}/mobile-money", {"phone": PHONE, "network": ""})
        assert response.status_code == 303
    api = api_client(merchant_keys.live_key.plaintext)
    body = {"amount": 500000, "currency": "CDF", "phone": PHONE, "network": "VODACOM_MPESA"}
    for number in range(6):  # the merchant's own key has its own limits
        answer = api.post("/v1/charges", body, format="json", HTTP_IDEMPOTENCY_KEY=f"k{number}")
        assert answer.status_code == 201, answer.content
    for _ in range(5):  # none of those used the phone's live hosted-page prompts
        session = make_session(merchant, livemode=True)
        response = client.post(f"/pay/{session.id}/mobile-money", {"phone": PHONE, "network": ""})
        assert response.status_code == 303
    session = make_session(merchant, livemode=True)
    response = client.post(f"/pay/{session.id}/mobile-money", {"phone": PHONE, "network": ""})
    assert response.status_code == 429
    assert session.charges.count() == 0


@pytest.mark.django_db
def test_an_attempt_that_makes_no_charge_is_not_counted(live_operator, settings):
    """A network the operator does not serve now refuses the charge: nothing was sent."""
    merchant = live(merchant_with_keys().merchant)
    settings.PAYMENT_PROVIDERS = {**settings.PAYMENT_PROVIDERS, "live": {}}
    client = Client()
    for _ in range(6):
        session = make_session(merchant, livemode=True)
        response = client.post(
            f"/pay/{session.id}/mobile-money", {"phone": PHONE, "network": "VODACOM_MPESA"}
        )
        assert response.status_code != 429
    assert not PromptedPhone.objects.filter(pk=PHONE).exists()


@pytest.mark.django_db
def test_the_counts_of_phones_not_prompted_for_a_day_are_forgotten(live_operator):
    merchant = live(merchant_with_keys().merchant)
    start = timezone.now()
    for phone, at in ((PHONE, start - timedelta(days=1, minutes=1)), (OTHER_PHONE, start)):
        with time_machine.travel(at, tick=False):
            session = make_session(merchant, livemode=True)
            services.session_attempt_create(
                session_id=session.id, payment_method="mobile_money", phone=phone,
                network="VODACOM_MPESA",
            )  # fmt: skip
    with time_machine.travel(start, tick=False):
        assert services.phone_prompts_forget() == 1
    assert list(PromptedPhone.objects.values_list("phone", flat=True)) == [OTHER_PHONE]
