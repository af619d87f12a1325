"""Fees where a merchant looks in the dashboard: a payment's amount, fee and net; the available
and pending balance on the home and balance pages, what pending payouts and refunds are taking
out, and each ledger row's fee, net and available on; the price plan in words at
/dashboard/settings/pricing/ for every member; a payout's fee said before it is sent."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import formats, timezone, translation

from config.settings.payments import PRICING_DEFAULT_PLAN
from dashboard.pages.balance import Balance
from payments.models import LedgerEntry, PriceRate
from tests.dashboard.pages.conftest import ROLES
from tests.factories import (
    make_charge,
    sent_payout,
    succeeded_card_charge,
    succeeded_mobile_money_charge,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

HOME = "/dashboard/test/"
BALANCE = "/dashboard/test/balance/"
PRICING = "/dashboard/settings/pricing/"

MOBILE_MONEY_CDF = {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF"}
CARD_USD = {"kind": "charge", "payment_method": "card", "currency": "USD"}
PAYOUT_CDF = {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF"}


def text(response) -> str:
    """The page as people read it: the non-breaking spaces of French numbers as spaces."""
    return response.content.decode().replace("\xa0", " ").replace("\u202f", " ")


@pytest.fixture
def books(shop, settings):
    """50 000 CDF collected before fees (available); then, with fees, 100 000 CDF collected
    at 3 % and available in 7 days (pending: 97 000), and a payout of 100 CDF at 1.5 % still
    on its way (101.50 taken from the available balance)."""
    before = succeeded_mobile_money_charge(shop, amount=5_000_000)
    settings.PRICING_DEFAULT = [
        {**MOBILE_MONEY_CDF, "rate_bp": 300, "fixed": 0, "available_after_days": 7},
        {**PAYOUT_CDF, "rate_bp": 150, "fixed": 0},
    ]
    later = succeeded_mobile_money_charge(shop, amount=10_000_000)
    payout = sent_payout(shop, amount=10000)
    return before, later, payout


# --- A payment's page ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "fr",
            ["100 000,00 CDF", '3 000,00 CDF <span class="muted">(3,00 %)</span>', "97 000,00 CDF"],
        ),
        (
            "en",
            ["100,000.00 CDF", '3,000.00 CDF <span class="muted">(3.00 %)</span>', "97,000.00 CDF"],
        ),
    ],
)
def test_a_payment_shows_its_amount_fee_and_net(books, clients, lang, words):
    _, later, _ = books
    shown = clients["viewer"].get(
        f"/dashboard/test/payments/{later.id}/", HTTP_ACCEPT_LANGUAGE=lang
    )
    assert (shown.context["fee"], shown.context["net"]) == (300_000, 9_700_000)
    page = text(shown)
    for expected in words:
        assert expected in page
    labels = {"fr": ("<dt>Frais</dt>", "<dt>Net</dt>"), "en": ("<dt>Fee</dt>", "<dt>Net</dt>")}
    assert all(label in page for label in labels[lang])


def test_a_card_payment_shows_the_rate_and_its_fixed_part(shop, clients, settings):
    settings.PRICING_DEFAULT = [{**CARD_USD, "rate_bp": 390, "fixed": 30}]
    paid = succeeded_card_charge(shop, amount=1999)  # 77.961 cents rounded to 78, + 30
    page = text(
        clients["owner"].get(f"/dashboard/test/payments/{paid.id}/", HTTP_ACCEPT_LANGUAGE="en")
    )
    assert '<dd data-fee>1.08 USD <span class="muted">(3.90 % + 0.30 USD)</span></dd>' in page
    assert "18.91 USD" in page


def test_before_it_succeeds_a_payment_has_no_fee_or_net_yet(shop, clients, settings):
    settings.PRICING_DEFAULT = [{**MOBILE_MONEY_CDF, "rate_bp": 300, "fixed": 0}]
    waiting = make_charge(shop, amount=250000)
    shown = clients["owner"].get(
        f"/dashboard/test/payments/{waiting.id}/", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert (shown.context["fee"], shown.context["net"]) == (None, None)
    page = text(shown)
    assert "<dd data-fee>—</dd>" in page
    assert "once the payment succeeds" in page


# --- Home and balance ---------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_the_balance_page_shows_available_pending_and_what_is_on_its_way_out(books, clients, role):
    shown = clients[role].get(BALANCE, HTTP_ACCEPT_LANGUAGE="fr")
    assert shown.context["balances"] == [
        Balance(currency="CDF", available=4_989_850, pending=9_700_000, outgoing=10150),
        Balance(currency="USD", available=0, pending=0, outgoing=0),
    ]
    page = text(shown)
    assert "Disponible · CDF" in page and "49 898,50 CDF" in page
    assert "En attente · CDF" in page and "97 000,00 CDF" in page
    assert (
        "En cours de sortie (versements, reversements et remboursements en cours) : 101,50 CDF"
        in page
    )


def test_the_home_page_shows_available_and_pending(books, clients):
    shown = clients["viewer"].get(HOME, HTTP_ACCEPT_LANGUAGE="en")
    assert shown.context["balance"] == [("CDF", 4_989_850, 9_700_000), ("USD", 0, 0)]
    page = text(shown)
    assert "Available · CDF" in page and "49,898.50 CDF" in page
    assert "Pending · CDF" in page and "97,000.00 CDF" in page


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_ledger_shows_each_rows_fee_net_and_when_it_is_available(books, clients, lang):
    _, later, payout = books
    shown = clients["finance"].get(BALANCE, HTTP_ACCEPT_LANGUAGE=lang)
    page = text(shown)
    charge_row = LedgerEntry.objects.get(charge=later, type="charge")
    with translation.override(lang):
        on = formats.date_format(
            timezone.localtime(charge_row.available_on, ZoneInfo("Africa/Kinshasa")),
            "SHORT_DATETIME_FORMAT",
        ).replace("\xa0", " ")
        on += " WAT"  # the merchant's time, its zone named
    row = page[page.index(f'<tr data-id="{charge_row.id}">') :]
    row = row[: row.index("</tr>")]
    fee, net = {"fr": ("3 000,00 CDF", "97 000,00 CDF"), "en": ("3,000.00 CDF", "97,000.00 CDF")}[
        lang
    ]
    assert f'<td class="num" data-fee>{fee}</td>' in row
    assert f'<td class="num" data-net>{net}</td>' in row
    assert on in row
    assert {"fr": "En attente", "en": "Pending"}[lang] in row  # not yet available
    payout_row = LedgerEntry.objects.get(payout=payout, type="payout")
    row = page[page.index(f'<tr data-id="{payout_row.id}">') :]
    row = row[: row.index("</tr>")]
    fee, net = {"fr": ("1,50 CDF", "-101,50 CDF"), "en": ("1.50 CDF", "-101.50 CDF")}[lang]
    assert f"data-fee>{fee}</td>" in row and f"data-net>{net}</td>" in row
    assert "badge pending" not in row  # available from its creation


def test_the_exported_ledger_has_fee_net_and_available_on(books, clients):
    _, later, _ = books
    exported = clients["owner"].get(BALANCE, {"format": "csv"})
    lines = b"".join(exported.streaming_content).decode("utf-8-sig").splitlines()
    header = lines[0].split(",")
    assert header[-3:] == ["fee", "net", "available_on"]
    (row,) = [line.split(",") for line in lines if f",{later.id}," in line]
    entry = LedgerEntry.objects.get(charge=later, type="charge")
    assert row[-3:-1] == ["300000", "9700000"]
    assert row[-1].startswith((entry.created_at + timedelta(days=7)).date().isoformat())


# --- The price plan -----------------------------------------------------------------------------


def own_plan(merchant, settings) -> None:
    """The default plan of the settings, with the merchant's own Airtel Money rate in CDF:
    2.50 %, available 7 days after the payment."""
    settings.PRICING_DEFAULT = PRICING_DEFAULT_PLAN
    PriceRate.objects.create(
        merchant=merchant,
        kind="charge",
        payment_method="mobile_money",
        network="AIRTEL_MONEY",
        currency="CDF",
        rate_bp=250,
        fixed=0,
        available_after_days=7,
    )


@pytest.fixture
def plan(shop, settings):
    own_plan(shop, settings)


@pytest.mark.parametrize("role", ROLES)
def test_every_member_reads_the_price_plan_in_words(plan, clients, role):
    shown = clients[role].get(PRICING, HTTP_ACCEPT_LANGUAGE="en")
    assert shown.status_code == 200
    page = text(shown)
    for line in (
        "Mobile money collections in CDF: 3.00 % per payment",
        "Airtel Money collections in CDF: 2.50 % per payment, available 7 days after the payment",
        "Card collections in USD: 3.90 % + 0.30 USD per payment",
        "Card collections in CDF: 3.90 % per payment",
        "Mobile money payouts in USD: 1.50 % per payout",
        "Settlements to a mobile money account in CDF: 1.00 % per settlement",
        "Bank settlements in CDF, and any other settlement without a rate of its own: "
        "25,000.00 CDF per settlement",
        "Bank settlements in USD, and any other settlement without a rate of its own: "
        "10.00 USD per settlement",
    ):
        assert f"<li>{line}</li>" in page
    assert "the most specific one is used: the network's, else the payment method's" in page
    assert [part.kind for part in shown.context["parts"]] == ["charge", "payout", "settlement"]
    assert [part.title for part in shown.context["parts"]] == [
        "Payments you collect",
        "Payouts",
        "Settlements to your own account",
    ]


def test_the_price_plan_in_french(plan, clients):
    page = text(clients["viewer"].get(PRICING, HTTP_ACCEPT_LANGUAGE="fr"))
    for line in (
        "Encaissements mobile money en CDF : 3,00 % par paiement",
        "Encaissements Airtel Money en CDF : 2,50 % par paiement, disponible 7 jours après le "
        "paiement",
        "Encaissements par carte en USD : 3,90 % + 0,30 USD par paiement",
        "Versements mobile money en CDF : 1,50 % par versement",
        "Reversements bancaires en CDF, et tout autre reversement sans taux propre : "
        "25 000,00 CDF par reversement",
    ):
        assert f"<li>{line}</li>" in page
    assert "le plus précis l’emporte : celui du réseau" in page
    assert "<h2>Paiements encaissés</h2>" in page


def test_a_plan_without_rates_says_there_is_no_fee(shop, clients):
    page = text(clients["owner"].get(PRICING, HTTP_ACCEPT_LANGUAGE="en"))
    assert page.count("<p>No fee.</p>") == 3


def test_the_settings_lead_every_member_to_the_price_plan(clients):
    viewer, owner = clients["viewer"], clients["owner"]
    assert viewer.get("/dashboard/settings/").url == PRICING
    assert owner.get("/dashboard/settings/").url == "/dashboard/settings/business/"
    home = viewer.get(HOME).content.decode()
    assert f'href="{PRICING}"' in home
    pricing = viewer.get(PRICING).content.decode()
    assert "/dashboard/settings/business/" not in pricing  # the team's pages are not offered
    business = owner.get("/dashboard/settings/business/").content.decode()
    assert f'href="{PRICING}"' in business


# --- Payouts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fr", "Versements mobile money en CDF : 1,50 % par versement"),
        ("en", "Mobile money payouts in CDF: 1.50 % per payout"),
    ],
)
def test_the_payout_form_says_the_fee_before_the_payout_is_sent(
    shop, clients, settings, lang, words
):
    settings.PRICING_DEFAULT = [{**PAYOUT_CDF, "rate_bp": 150, "fixed": 0}]
    page = text(clients["finance"].get("/dashboard/test/payouts/new/", HTTP_ACCEPT_LANGUAGE=lang))
    assert words in page
    form = page.index('data-action="payout"')
    assert form < page.index(words) < page.index("</form>", form)


def test_a_payouts_page_shows_its_fee_and_what_it_took(books, clients):
    _, _, payout = books
    page = text(
        clients["viewer"].get(f"/dashboard/test/payouts/{payout.id}/", HTTP_ACCEPT_LANGUAGE="en")
    )
    assert "<dd data-fee>1.50 CDF</dd>" in page
    assert "<dd data-taken>101.50 CDF</dd>" in page
