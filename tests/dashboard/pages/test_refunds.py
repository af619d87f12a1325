"""The refund form of a payment's page: the roles that may refund, the API's service with its
rules and its errors in words, once per form however often it is sent, and the audit row."""

import pytest

from dashboard.models import AuditEntry
from payments.models import Refund
from tests.dashboard.pages.conftest import ROLES
from tests.factories import (
    make_charge,
    sent_payout,
    succeeded_live_charge,
    succeeded_mobile_money_charge,
)
from tests.helpers import api_client

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

REFUNDERS = ("owner", "admin", "finance", "support")


def page(charge, mode: str = "test") -> str:
    return f"/dashboard/{mode}/payments/{charge.id}/"


def form_key(client, charge) -> str:
    """The idempotency key the payment's page put in its refund form."""
    return client.get(page(charge)).context["refund_form"]["idempotency_key"].value()


def refund(client, charge, *, key: str | None = None, lang: str = "fr", **fields):
    key = key if key is not None else form_key(client, charge)
    return client.post(
        f"{page(charge)}refund/",
        {"idempotency_key": key, "amount": "", "reason": "", **fields},
        HTTP_ACCEPT_LANGUAGE=lang,
    )


@pytest.mark.parametrize("role", ROLES)
def test_only_the_roles_that_may_refund_see_the_form_and_can_use_it(shop, clients, role):
    charge = succeeded_mobile_money_charge(shop)
    shown = clients[role].get(page(charge))
    answer = refund(clients[role], charge, key="dash_anything")
    if role in REFUNDERS:
        assert shown.context["refund_form"] is not None
        assert b'data-action="refund"' in shown.content
        assert answer.status_code == 302
        assert Refund.objects.filter(charge=charge).count() == 1
    else:
        assert shown.context["refund_form"] is None
        assert b'data-action="refund"' not in shown.content
        assert answer.status_code == 403
        assert not Refund.objects.filter(charge=charge).exists()
        assert not AuditEntry.objects.filter(action="refund.created").exists()


def test_a_refund_in_full_or_in_part_through_the_api_service_audited(shop, clients):
    charge = succeeded_mobile_money_charge(shop, amount=10000)
    answer = refund(clients["support"], charge, amount="25", reason="requested_by_customer")
    assert answer.status_code == 302 and answer["Location"] == page(charge)
    made = Refund.objects.get(charge=charge)
    assert (made.amount, made.status, made.reason) == (2500, "succeeded", "requested_by_customer")
    entry = AuditEntry.objects.get(action="refund.created")
    assert (entry.object_id, entry.merchant_id, entry.mode) == (made.id, shop.pk, "test")
    assert entry.email.startswith("support-")
    refund(clients["owner"], charge)  # what remains
    assert sorted(Refund.objects.filter(charge=charge).values_list("amount", flat=True)) == [
        2500,
        7500,
    ]
    shown = clients["viewer"].get(page(charge))
    assert made.id.encode() in shown.content


def test_a_double_submitted_form_refunds_once(shop, owner):
    charge = succeeded_mobile_money_charge(shop, amount=10000)
    key = form_key(owner, charge)
    first = refund(owner, charge, key=key, amount="10")
    second = refund(owner, charge, key=key, amount="10")
    assert first.status_code == second.status_code == 302
    made = Refund.objects.get(charge=charge)
    assert made.amount == 1000
    assert AuditEntry.objects.filter(action="refund.created").count() == 1
    said = [str(m) for m in owner.get(page(charge)).context["messages"]]
    assert any(made.id in message for message in said)
    # A new form (a new key) is a new refund.
    refund(owner, charge, amount="10")
    assert Refund.objects.filter(charge=charge).count() == 2


def _api_error(shop_keys, charge, lang: str, **body) -> dict:
    answer = api_client(shop_keys.test_key.plaintext).post(
        f"/v1/charges/{charge.id}/refunds", body, format="json", HTTP_ACCEPT_LANGUAGE=lang
    )
    assert answer.status_code == 400
    return answer.json()["error"]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_refund_the_balance_cannot_cover_is_refused_in_the_apis_words(shop_keys, owner, lang):
    shop = shop_keys.merchant
    charge = succeeded_mobile_money_charge(shop, amount=10000)
    sent_payout(shop, amount=10000)  # the balance is paid out
    error = _api_error(shop_keys, charge, lang)
    assert error["code"] == "balance_insufficient"
    assert error["message"].endswith(
        ("0, less than the refund of 10000.", "remboursement de 10000.")
    )
    answer = refund(owner, charge, lang=lang)
    assert answer.status_code == 400
    # The API's sentence, its amounts (minor units there) as people read them.
    assert {
        "fr": "Le solde disponible en CDF est de 0,00 CDF, inférieur au remboursement de 100,00 CDF.",
        "en": "The available CDF balance is 0.00 CDF, less than the refund of 100.00 CDF.",
    }[lang] in answer.content.decode()
    assert not Refund.objects.filter(charge=charge).exists()
    assert not AuditEntry.objects.filter(action="refund.created").exists()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_refund_over_what_remains_is_refused_in_the_apis_words(shop_keys, owner, lang):
    words = {
        "fr": "dépasse ce qui reste remboursable sur le paiement",
        "en": "is greater than what remains refundable on charge",
    }
    hundreds = {"fr": ("200,00 CDF", "100,00 CDF"), "en": ("200.00 CDF", "100.00 CDF")}
    the_amount = {"fr": "Le montant", "en": "The amount"}[lang]
    charge = succeeded_mobile_money_charge(shop_keys.merchant, amount=10000)
    error = _api_error(shop_keys, charge, lang, amount=20000)
    assert error["code"] == "amount_exceeds_refundable"
    assert error["message"] == f"{the_amount} (20000) {words[lang]} {charge.id} (10000)."
    answer = refund(owner, charge, lang=lang, amount="200")
    assert answer.status_code == 400
    page = answer.content.decode()
    said = f"{the_amount} ({hundreds[lang][0]}) {words[lang]} {charge.id} ({hundreds[lang][1]})."
    assert said in page
    # The same form, corrected, goes through: the refused one left nothing behind.
    key = answer.context["refund_form"]["idempotency_key"].value()
    assert refund(owner, charge, key=key, amount="20").status_code == 302
    assert Refund.objects.get(charge=charge).amount == 2000


def test_amounts_in_words_the_form_cannot_read(shop, owner):
    charge = succeeded_mobile_money_charge(shop, amount=10000)
    for typed in ("dix", "12.345", "-5", "1e3"):
        answer = refund(owner, charge, amount=typed, lang="en")
        assert answer.status_code == 400
        assert b"at most two decimals" in answer.content
    answer = refund(owner, charge, amount="12.50", lang="en")  # mobile money: whole units
    assert answer.status_code == 400
    assert b"Mobile money is paid in whole francs: 12 or 13 CDF." in answer.content
    assert b"multiple of 100" not in answer.content
    answer = refund(owner, charge, amount="12,50", lang="fr")
    assert "Le mobile money se paie en francs entiers : 12 ou 13 CDF." in answer.content.decode()
    assert not Refund.objects.filter(charge=charge).exists()


def test_a_pending_charge_has_no_refund_form_and_is_refused(shop, owner):
    charge = make_charge(shop)
    assert owner.get(page(charge)).context["refund_form"] is None
    assert refund(owner, charge, key="dash_x").status_code == 400
    assert not Refund.objects.exists()


def test_another_merchants_charge_cannot_be_refunded(shop, other_shop, owner):
    theirs = succeeded_mobile_money_charge(other_shop)
    assert refund(owner, theirs, key="dash_x").status_code == 404
    assert not Refund.objects.exists()


def test_a_live_refund_needs_two_factor(shop, owner):
    charge = succeeded_live_charge(shop)
    answer = owner.post(
        f"{page(charge, 'live')}refund/", {"idempotency_key": "dash_live", "amount": ""}
    )
    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/2fa/")
    assert not Refund.objects.filter(charge=charge).exists()
