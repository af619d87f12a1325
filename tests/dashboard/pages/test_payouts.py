"""The payouts pages: the list and one payout for every role, a new payout for the roles that
may send one, through the API's service with its checks, once per form, audited."""

import re

import pytest

from dashboard.models import AuditEntry
from payments.models import Payout
from tests.dashboard.pages.conftest import ROLES
from tests.factories import sent_payout, succeeded_mobile_money_charge

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

NEW = "/dashboard/test/payouts/new/"
PAYERS = ("owner", "admin", "finance")


def new_payout(client, *, lang: str = "fr", key: str | None = None, **fields):
    if key is None:
        key = client.get(NEW).context["form"]["idempotency_key"].value()
    body = {"phone": "0812 345 678", "amount": "25", "currency": "CDF", "network": ""}
    return client.post(NEW, {**body, **fields, "idempotency_key": key}, HTTP_ACCEPT_LANGUAGE=lang)


@pytest.fixture
def funded(shop):
    succeeded_mobile_money_charge(shop, amount=1_000_000)  # 10 000 CDF available
    return shop


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_payouts_and_only_payers_send_them(funded, clients, role):
    existing = sent_payout(funded, amount=5000)
    assert clients[role].get("/dashboard/test/payouts/").status_code == 200
    assert clients[role].get(f"/dashboard/test/payouts/{existing.id}/").status_code == 200
    answer = new_payout(clients[role], key="dash_role")
    if role in PAYERS:
        assert answer.status_code == 302
        assert Payout.objects.count() == 2
    else:
        assert clients[role].get(NEW).status_code == 403
        assert answer.status_code == 403
        assert Payout.objects.count() == 1
        assert not AuditEntry.objects.filter(action="payout.created").exists()


def test_a_payout_with_the_number_as_people_type_it(funded, owner):
    answer = new_payout(owner, amount="2 500", phone="081 234 5678")
    payout = Payout.objects.get()
    assert answer["Location"] == f"/dashboard/test/payouts/{payout.id}/"
    assert (payout.amount, payout.currency, payout.phone, payout.network) == (
        250000,
        "CDF",
        "+243812345678",
        "VODACOM_MPESA",  # the number's operator
    )
    assert AuditEntry.objects.get(action="payout.created").object_id == payout.id
    shown = owner.get(answer["Location"])
    assert payout.id.encode() in shown.content


def test_a_double_submitted_payout_form_pays_once(funded, owner):
    key = owner.get(NEW).context["form"]["idempotency_key"].value()
    first = new_payout(owner, key=key)
    second = new_payout(owner, key=key)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert Payout.objects.count() == 1
    assert AuditEntry.objects.filter(action="payout.created").count() == 1


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (
            {"amount": "50000"},
            {
                "fr": "est de 10 000,00 CDF, inférieur au versement de 50 000,00 CDF.",
                "en": "is 10,000.00 CDF, less than the payout of 50,000.00 CDF.",
            },
        ),
        (
            {"amount": "12,50"},
            {
                "fr": "Le mobile money se paie en francs entiers : 12 ou 13 CDF.",
                "en": "Mobile money is paid in whole francs: 12 or 13 CDF.",
            },
        ),
        (
            {"amount": "2 500,50", "currency": "USD"},
            {
                "fr": "Le mobile money se paie en dollars entiers : 2 500 ou 2 501 USD.",
                "en": "Mobile money is paid in whole dollars: 2,500 or 2,501 USD.",
            },
        ),
        ({"phone": "0812"}, {"fr": "10 chiffres commençant par 08 ou 09", "en": "10 digits"}),
        (
            {"network": "AIRTEL_MONEY"},
            {"fr": "pas sur le réseau choisi", "en": "not on the chosen"},
        ),
    ],
)
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_what_the_api_refuses_is_said_in_words(funded, owner, fields, words, lang):
    answer = new_payout(owner, lang=lang, **fields)
    assert answer.status_code == 400
    page = answer.content.decode().replace("\xa0", " ").replace("\u202f", " ")
    assert words[lang] in page
    # A shopkeeper's words: no API parameter, no minor units, no E.164.
    said = " ".join(re.findall(r'class="[^"]*error[^"]*"[^>]*>([^<]*)<', page))
    api_words = r"\b(amount (must|doit)|phone (must|doit)|E\.164|multiple (of|de) 100)\b"
    assert said and not re.search(api_words, said)
    assert not Payout.objects.exists()


def test_another_merchants_payout_is_missing(funded, other_shop, owner):
    succeeded_mobile_money_charge(other_shop, amount=10000)
    theirs = sent_payout(other_shop, amount=5000)
    assert owner.get(f"/dashboard/test/payouts/{theirs.id}/").status_code == 404
    assert owner.get("/dashboard/test/payouts/").context["page"].rows == []
