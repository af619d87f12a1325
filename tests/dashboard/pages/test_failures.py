"""Why a payment failed, on the dashboard, in the page's language: each stable failure code has
its words in French and in English (payments/failures.py), and a code without them shows the
message stored with the payment. Every code a provider's adapter or the sandbox can give has
words."""

import pytest
from django.utils import translation

from payments.failures import FAILURE_WORDS
from payments.providers import airtel, cybersource, mpesa, secure_acceptance
from payments.services.payouts import payout_resolve
from sandbox import providers as sandbox
from tests.factories import (
    make_charge,
    payout_waiting_for_staff,
    settle,
    succeeded_mobile_money_charge,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

PAYMENTS = "/dashboard/test/payments/"
PAYOUTS = "/dashboard/test/payouts/"


def page(client, path: str, language: str) -> str:
    response = client.get(path, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(
    ("language", "words"),
    [("fr", "Le solde du client était insuffisant."), ("en", "The customer’s balance")],
)
def test_a_declined_payment_says_why_in_the_pages_language(shop, clients, language, words):
    charge = make_charge(shop, status="declined", failure_code="insufficient_funds")

    shown = page(clients["viewer"], f"{PAYMENTS}{charge.id}/", language)

    assert words in shown.replace("&#x27;", "’").replace("'", "’")
    assert "(insufficient_funds)" in shown


def test_a_french_page_keeps_none_of_the_english_message(shop, clients):
    charge = make_charge(shop)
    english = "The customer did not answer the payment prompt in time."
    settle(charge, "failed", "timeout", failure_message=english)

    shown = page(clients["viewer"], f"{PAYMENTS}{charge.id}/", "fr")

    assert "Le client n’a pas répondu à temps." in shown  # beside the status and in the timeline
    assert english not in shown


def test_a_code_without_words_shows_the_message_kept_with_the_payment(shop, clients):
    charge = make_charge(shop)
    settle(charge, "failed", "provider_quirk", failure_message="Opérateur : transaction refusée.")

    shown = page(clients["viewer"], f"{PAYMENTS}{charge.id}/", "fr")

    assert "Opérateur : transaction refusée." in shown
    assert "(provider_quirk)" in shown


def test_a_failed_payout_says_why_in_french(shop, clients):
    succeeded_mobile_money_charge(shop, amount=100_000)  # what the payout draws on
    payout = payout_waiting_for_staff(shop)
    payout_resolve(payout_id=payout.id, succeeded=False, staff="staff")

    shown = page(clients["finance"], f"{PAYOUTS}{payout.id}/", "fr")

    assert "L’opérateur n’a pas pu le traiter." in shown.replace("&#x27;", "’")
    assert "(provider_error)" in shown


def test_every_code_a_provider_can_give_has_words_in_both_languages():
    tables = [
        airtel.RESPONSE_CODES, airtel.DISBURSEMENT_CODES, mpesa.INS_CODES, mpesa.QUERY_STATUSES,
        mpesa.PAYOUT_INS_CODES, mpesa.PAYOUT_QUERY_STATUSES, secure_acceptance.CARD_DECISIONS,
        sandbox.MOBILE_MONEY_SUFFIXES, sandbox.PAYOUT_SUFFIXES,
    ]  # fmt: skip
    codes = {row[1] for table in tables for row in table.values() if row and row[0] != "pending"}
    codes |= {code for code, _ in cybersource.REFUND_REFUSALS.values()}
    codes -= {"", "succeeded"}
    assert codes - set(FAILURE_WORDS) == set()
    for code, words in FAILURE_WORDS.items():
        with translation.override("en"):
            english = str(words)
        with translation.override("fr"):
            assert str(words) != english, code
