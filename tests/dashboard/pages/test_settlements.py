"""The settlements pages (/dashboard/{mode}/settlements/): every member sees the list (with the
available and pending balance and the schedule) and one settlement; the payout roles withdraw
(the fee shown before anything is taken, then the API's settlement_create once per form;
live: two-factor) and set the schedule of each currency, audited; 403 and nothing changed for
the others. A test withdrawal goes in transit at once and is paid after the sandbox's delay."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone, translation

from dashboard.models import AuditEntry
from payments.models import LedgerEntry, SettledEntry, Settlement, SettlementSchedule
from payments.services import settlements
from tests.dashboard.pages.conftest import ROLES, client_of, member
from tests.dashboard.test_four_eyes import live_member
from tests.factories import succeeded_live_charge, succeeded_mobile_money_charge
from tests.pricing import rate

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

LIST = "/dashboard/test/settlements/"
NEW = "/dashboard/test/settlements/new/"
SCHEDULE = "/dashboard/test/settlements/schedule/"
PAYERS = ("owner", "admin", "finance")
BANK = {
    "type": "bank_account",
    "currency": "CDF",
    "bank_name": "Rawbank",
    "account_holder": "Boutique Gombe SARL",
    "account_number": "0501 2345 6789 4821",
    "swift": "RAWBCDKI",
}


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = [rate("settlement", currency="CDF", fixed=250000)]  # 2 500 CDF
    settings.SANDBOX_SETTLEMENT_DELAY = 5


@pytest.fixture
def funded(shop):
    succeeded_mobile_money_charge(shop, amount=5_000_000)  # 50 000 CDF available
    return shop


@pytest.fixture
def bank(funded):
    return settlements.account_add(merchant=funded, livemode=False, **BANK)


def withdraw(
    client, *, lang: str = "fr", url: str = NEW, key: str | None = None, confirm=True, **fields
):
    """The withdrawal form sent, then its confirmation: (the quote page, the confirmation)."""
    if key is None:
        key = client.get(url).context["form"]["idempotency_key"].value()
    body = {"currency": "CDF", "amount": "", "settlement_account": "", **fields}
    quote = client.post(url, {**body, "idempotency_key": key}, HTTP_ACCEPT_LANGUAGE=lang)
    if not confirm or quote.status_code != 200 or quote.context.get("quote") is None:
        return quote, None
    confirm = {field.html_name: field.value() for field in quote.context["form"]}
    confirm = {name: "" if value is None else value for name, value in confirm.items()}
    return quote, client.post(url, confirm, HTTP_ACCEPT_LANGUAGE=lang)


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_settlements_and_only_payers_withdraw(bank, clients, role):
    existing = settlements.settlement_create(
        merchant=bank.merchant, livemode=False, currency="CDF", amount=100000
    )
    client = clients[role]
    listed = client.get(LIST)
    assert listed.status_code == 200 and existing.id.encode() in listed.content
    assert client.get(f"{LIST}{existing.id}/").status_code == 200
    may = role in PAYERS
    assert (NEW.encode() in listed.content) is may
    quote, confirmed = withdraw(client, key="dash_role", amount="1000")
    schedule = client.post(
        SCHEDULE,
        {"currency": "CDF", "cdf-interval": "daily", "cdf-weekday": "0", "cdf-minimum": ""},
    )
    if may:
        assert confirmed.status_code == 302
        assert Settlement.objects.count() == 2
        assert schedule.status_code == 302
        assert SettlementSchedule.objects.get().interval == "daily"
    else:
        assert client.get(NEW).status_code == 403
        assert client.get(SCHEDULE).status_code == 403
        assert quote.status_code == 403 and confirmed is None
        assert schedule.status_code == 403
        assert Settlement.objects.count() == 1
        assert not SettlementSchedule.objects.exists()
        assert not AuditEntry.objects.filter(
            action__in=["settlement.created", "settlement_schedule.updated"]
        ).exists()


def test_the_fee_is_shown_before_anything_is_taken_then_paid_after_the_sandbox_delay(bank, owner):
    now = timezone.now()
    with time_machine.travel(now, tick=False):
        quote, confirmed = withdraw(owner, amount="10 000", lang="en")
        shown = quote.content.decode()
        assert "10,000.00 CDF" in shown and "2,500.00 CDF" in shown  # amount and fee
        assert "12,500.00 CDF" in shown  # what it takes from the balance
        assert "Bank account at Rawbank ending in 4821 (CDF)" in shown
        settlement = Settlement.objects.get()
        assert confirmed["Location"] == f"{LIST}{settlement.id}/"
        assert (settlement.amount, settlement.fee, settlement.status) == (
            1_000_000,
            250000,
            "in_transit",
        )
        entry = AuditEntry.objects.get(action="settlement.created")
        assert (entry.object_id, entry.mode) == (settlement.id, "test")
    # Nothing was taken by the quote alone: one settlement row in the ledger.
    assert LedgerEntry.objects.filter(type="settlement").count() == 1
    with time_machine.travel(now + timedelta(seconds=6), tick=False):
        paid = settlements.settlement_refresh(settlement_id=settlement.id)
        assert paid.status == "paid"
        page = owner.get(f"{LIST}{settlement.id}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Versé" in page and settlement.reference in page
    assert "12\xa0500,00 CDF" in page  # taken from the balance: amount and fee


def test_all_that_is_available_by_default_and_a_confirmation_sent_twice_settles_once(bank, owner):
    key = owner.get(NEW).context["form"]["idempotency_key"].value()
    quote, confirmed = withdraw(owner, key=key, lang="en")
    assert quote.context["quote"].amount == 5_000_000 - 250000  # all, less the fee
    again = owner.post(
        NEW, {field.html_name: field.value() or "" for field in quote.context["form"]}
    )
    assert confirmed.status_code == again.status_code == 302
    assert confirmed["Location"] == again["Location"]
    assert Settlement.objects.count() == 1
    assert AuditEntry.objects.filter(action="settlement.created").count() == 1


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (
            {"amount": "60000"},
            {
                "fr": "Le solde disponible en CDF est de 50 000,00 CDF, moins que les 62 500,00 CDF",
                "en": "The available CDF balance is 50,000.00 CDF, less than the 62,500.00 CDF",
            },
        ),
        (
            {"currency": "USD"},
            {"fr": "pas de compte de reversement en USD", "en": "no USD settlement account"},
        ),
        ({"amount": "12,505"}, {"fr": "au plus deux décimales", "en": "at most two decimals"}),
    ],
)
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_what_the_service_refuses_is_said_in_words(bank, owner, fields, words, lang):
    quote, confirmed = withdraw(owner, lang=lang, **fields)
    assert quote.status_code == 400 and confirmed is None
    page = quote.content.decode().replace("\u202f", " ").replace("\xa0", " ")
    assert words[lang] in page and 'role="alert"' in page
    assert not Settlement.objects.exists()


def test_the_balance_checked_again_when_confirmed(bank, owner):
    quote, _confirmed = withdraw(owner, amount="40000", confirm=False)
    assert quote.status_code == 200
    settlements.settlement_create(
        merchant=bank.merchant, livemode=False, currency="CDF", amount=1_000_000
    )
    form = {field.html_name: field.value() or "" for field in quote.context["form"]}
    late = owner.post(NEW, form, HTTP_ACCEPT_LANGUAGE="en")
    assert late.status_code == 400
    assert "less than the 42,500.00 CDF" in late.content.decode()
    assert not late.context["form"]["confirmed"].value()  # quoted again before it is sent
    assert Settlement.objects.count() == 1


def test_a_live_withdrawal_needs_two_factor(shop, settings):
    with time_machine.travel(datetime.now(UTC) - timedelta(days=3)):
        succeeded_live_charge(shop, amount=5_000_000)
        settlements.account_add(merchant=shop, livemode=True, **BANK)
    live_new = "/dashboard/live/settlements/new/"
    plain = client_of(member(shop, "finance", "compta@example.cd"))
    answer = plain.get(live_new)
    assert answer.status_code == 302 and answer.url == "/accounts/2fa/"
    answer = plain.post(live_new, {"currency": "CDF", "idempotency_key": "dash_live"})
    assert answer.status_code == 302 and answer.url == "/accounts/2fa/"
    assert not Settlement.objects.exists()

    finance = live_member(shop, "admin", "admin@example.cd")
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 0
    answer = finance.post(live_new, {"currency": "CDF", "idempotency_key": "dash_live2"})
    assert answer.status_code == 302 and answer.url.startswith("/accounts/reauthenticate/")
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 600
    quote, confirmed = withdraw(finance, url=live_new, amount="1000")
    assert confirmed.status_code == 302
    settlement = Settlement.objects.get()
    assert settlement.livemode and settlement.status == "pending"  # staff's bank transfer
    assert AuditEntry.objects.get(action="settlement.created").mode == "live"


def test_the_schedule_is_saved_per_currency_and_audited_in_words(bank, clients):
    finance = clients["finance"]
    body = {
        "currency": "CDF",
        "cdf-interval": "weekly",
        "cdf-weekday": "4",
        "cdf-minimum": "100 000",
    }
    assert finance.post(SCHEDULE, body).status_code == 302
    assert finance.post(SCHEDULE, body).status_code == 302  # the same again: nothing changes
    schedule = SettlementSchedule.objects.get()
    assert (schedule.livemode, schedule.currency, schedule.interval, schedule.weekday, schedule.minimum) == (
        False, "CDF", "weekly", 4, 10_000_000,
    )  # fmt: skip
    entry = AuditEntry.objects.get(action="settlement_schedule.updated")
    assert (entry.object_id, entry.mode) == ("CDF", "test")
    with translation.override("en"):
        assert entry.details_text() == "CDF: On demand only → Every Friday, from 100,000.00 CDF"
    with translation.override("fr"):
        assert entry.details_text().replace("\xa0", " ") == (
            "CDF : À la demande seulement → Chaque vendredi, à partir de 100 000,00 CDF"
        )
    listed = clients["viewer"].get(LIST, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Every Friday, from 100,000.00 CDF" in listed
    refused = finance.post(SCHEDULE, {**body, "cdf-minimum": "douze"}, HTTP_ACCEPT_LANGUAGE="en")
    assert (
        refused.status_code == 400
        and "Give an amount in francs or dollars" in refused.content.decode()
    )
    # Daily: the weekday is not kept.
    finance.post(SCHEDULE, {**body, "cdf-interval": "daily"})
    schedule.refresh_from_db()
    assert (schedule.interval, schedule.weekday) == ("daily", 0)


def test_a_settlements_page_lists_the_balance_transactions_it_paid_out(bank, owner):
    settlement = settlements.settlement_create(
        merchant=bank.merchant, livemode=False, currency="CDF", amount=100000
    )
    charge_row = LedgerEntry.objects.get(type="charge")
    SettledEntry.objects.create(entry=charge_row, settlement=settlement)
    page = owner.get(f"{LIST}{settlement.id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The balance transaction it paid out" in page
    assert f'data-id="{charge_row.id}"' in page


def test_the_list_filters_by_status_and_another_merchants_settlement_is_missing(
    bank, other_shop, owner
):
    ours = settlements.settlement_create(
        merchant=bank.merchant, livemode=False, currency="CDF", amount=100000
    )
    succeeded_mobile_money_charge(other_shop, amount=1_000_000)
    settlements.account_add(merchant=other_shop, livemode=False, **BANK)
    theirs = settlements.settlement_create(
        merchant=other_shop, livemode=False, currency="CDF", amount=100000
    )
    assert owner.get(f"{LIST}{theirs.id}/").status_code == 404
    assert [s.id for s in owner.get(LIST).context["page"].rows] == [ours.id]
    assert owner.get(LIST, {"status": "paid"}).context["page"].rows == []
    assert [s.id for s in owner.get(LIST, {"status": "in_transit"}).context["page"].rows] == [
        ours.id
    ]
    listed = owner.get(LIST, HTTP_ACCEPT_LANGUAGE="en")
    assert "Times: Kinshasa time." in listed.content.decode()
    balances = listed.context["balances"]
    # The fee is never more than the amount: 1 000 CDF takes 2 000 CDF in all.
    assert balances == [("CDF", 5_000_000 - 200000, 0), ("USD", 0, 0)]
