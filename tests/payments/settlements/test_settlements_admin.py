"""Staff pages of settlements and settlement accounts: read-only lists and pages, full account
numbers for those who may send bank settlements only, and the bank settlements staff pay by
hand: the bank transfer file (one currency a file, each settlement in one file only, downloaded
again by its reference), then the bank's answer on each, paid by another staff member than the
one who exported it, or failed with a reason (amount and fee back)."""

import csv
import io
import re
import threading

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client

from payments import selectors
from payments.models import LedgerEntry, Settlement
from tests.factories import (
    BANK_NUMBER,
    exported_bank_settlement,
    live_bank_account,
    live_bank_settlement,
    with_totp,
)
from tests.helpers import admin_url
from tests.pricing import rate
from webhooks.models import Event

pytestmark = pytest.mark.django_db

LIST = "/admin/payments/settlement/"
ACCOUNTS = "/admin/payments/settlementaccount/"
FEE = 5000  # 50,00 CDF a bank settlement


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = [
        rate("settlement", currency="CDF", fixed=FEE),
        rate("settlement", currency="USD", fixed=1000),
    ]


def staff_member(name: str, *perms: str) -> Client:
    """A staff member who may see settlements and their accounts, and do `perms` (codenames)."""
    user = with_totp(
        get_user_model().objects.create_user(name, f"{name}@example.cd", "pw-123-long")
    )
    user.is_staff = True
    user.save()
    codenames = ["view_settlement", "view_settlementaccount", "view_ledgerentry", *perms]
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def viewer(db) -> Client:
    return staff_member("viewer")


@pytest.fixture
def alice(db) -> Client:
    return staff_member("alice", "send_settlement")


@pytest.fixture
def bob(db) -> Client:
    return staff_member("bob", "send_settlement")


def act(client, action: str, ids: list[str], language: str = "en", **extra):
    """The answer to running `action` on the settlements, in the staff's `language`."""
    data = {"action": action, "index": 0, "_selected_action": ids, **extra}
    return client.post(LIST, data, HTTP_ACCEPT_LANGUAGE=language)


def page(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def messages_after(client, language: str = "en") -> str:
    """The list as it shows next, with the messages the last action left."""
    return page(client.get(LIST, HTTP_ACCEPT_LANGUAGE=language))


def read_csv(response) -> tuple[list[list[str]], str]:
    body = b"".join(getattr(response, "streaming_content", [response.content])).decode()
    assert body.startswith("\ufeff") and body.endswith("\r\n")
    assert "\n" not in body.replace("\r\n", "")
    return list(csv.reader(io.StringIO(body.removeprefix("\ufeff"), newline=""))), body


def state_of(*settlements) -> list:
    """What staff actions could change: each settlement as stored, and its ledger rows."""
    ids = [settlement.pk for settlement in settlements]
    return [
        list(Settlement.objects.filter(pk__in=ids).order_by("pk").values()),
        list(LedgerEntry.objects.filter(source__in=ids).order_by("pk").values()),
    ]


def events_of(settlement) -> list[str]:
    found = Event.objects.filter(data__object__id=settlement.pk)
    return list(found.values_list("type", flat=True))


def test_the_list_filters_settlements_and_hides_full_numbers(merchant, viewer, alice):
    pending = live_bank_settlement(merchant, amount=250000)
    usd = live_bank_settlement(merchant, amount=2000, currency="USD")
    in_transit = exported_bank_settlement(merchant, amount=30000)

    def listed(client, **params) -> set[str]:
        shown = page(client.get(LIST, params, HTTP_ACCEPT_LANGUAGE="en"))
        return {s.pk for s in (pending, usd, in_transit) if s.pk in shown}

    everything = page(viewer.get(LIST, HTTP_ACCEPT_LANGUAGE="en"))
    assert "2,500.00 CDF" in everything and "•••• 4821" in everything
    assert BANK_NUMBER not in everything
    assert listed(viewer) == {pending.pk, usd.pk, in_transit.pk}
    assert listed(viewer, bank="to_export") == {pending.pk, usd.pk}
    assert listed(viewer, bank="at_bank") == {in_transit.pk}
    assert listed(viewer, status__exact="in_transit") == {in_transit.pk}
    assert listed(viewer, currency__exact="USD") == {usd.pk}
    assert listed(viewer, account_type="mobile_money") == set()
    assert listed(viewer, account_type="bank_account", method__exact="manual") == listed(viewer)
    assert listed(viewer, method__exact="automatic") == set()
    assert listed(viewer, livemode__exact="0") == set()
    assert listed(viewer, q=in_transit.bank_file) == {in_transit.pk}
    assert listed(viewer, q=pending.reference) == {pending.pk}
    assert listed(viewer, q=usd.pk) == {usd.pk}

    detail = page(viewer.get(admin_url(pending), HTTP_ACCEPT_LANGUAGE="en"))
    assert "2,500.00 CDF" in detail and "50.00 CDF" in detail  # amount and fee
    row = LedgerEntry.objects.get(type="settlement", source=pending.pk)
    assert admin_url(row) in detail and "-2,550.00 CDF" not in detail  # amount and fee apart
    assert "-2,500.00 CDF" in detail and "Rawbank" in detail and "RAWBCDKI" in detail
    assert "•••• 4821" in detail and BANK_NUMBER not in detail
    assert 'name="_save"' not in detail
    assert BANK_NUMBER not in page(viewer.get(admin_url(pending.account)))
    rows = page(viewer.get("/admin/payments/ledgerentry/", {"q": pending.pk}))
    assert row.pk in rows and admin_url(pending) in rows  # the row leads to its settlement
    paid_out = page(viewer.get("/admin/payments/ledgerentry/", {"settlement": pending.pk}))
    assert row.pk not in paid_out  # a manual settlement pays out no row of its own
    assert BANK_NUMBER not in page(viewer.get(ACCOUNTS))
    transit = page(viewer.get(admin_url(in_transit)))
    assert in_transit.bank_file in transit and "bank-files" not in transit  # no download

    # Staff who may send bank settlements read the whole number, and download the file again.
    assert BANK_NUMBER in page(alice.get(admin_url(pending)))
    assert BANK_NUMBER in page(alice.get(admin_url(pending.account)))
    assert BANK_NUMBER in page(alice.get(ACCOUNTS))
    assert f"bank-files/{in_transit.bank_file}/" in page(alice.get(admin_url(in_transit)))

    # French, as staff read it by default.
    french = page(viewer.get(LIST))
    assert "2\xa0500,00 CDF" in french and "virements bancaires" in french
    assert "En attente d’un fichier de virements" in french


def test_without_the_permission_to_send_nothing_changes(merchant, viewer, alice):
    pending = live_bank_settlement(merchant)
    in_transit = exported_bank_settlement(merchant, staff="alice")
    before = state_of(pending, in_transit)
    listing = page(viewer.get(LIST))
    for action in ("export_bank_file", "mark_paid", "mark_failed"):
        assert action not in listing
    answer = {f"answer-{in_transit.pk}": "FT2612345"}
    assert act(viewer, "export_bank_file", [pending.pk]).status_code == 403
    assert act(viewer, "mark_paid", [in_transit.pk], confirm="yes", **answer).status_code == 403
    assert act(viewer, "mark_failed", [in_transit.pk], confirm="yes", **answer).status_code == 403
    download = f"{LIST}bank-files/{in_transit.bank_file}/"
    assert viewer.get(download).status_code == 403
    assert state_of(pending, in_transit) == before
    assert events_of(in_transit) == []
    assert alice.get(download).status_code == 200
    assert alice.get(f"{LIST}bank-files/BTF-NOSUCHFILE/").status_code == 404


def test_the_bank_transfer_file_puts_settlements_in_transit_once(merchant, alice, bob):
    merchant.name = "=Boutique Gombe"  # as typed by people: kept from any spreadsheet formula
    merchant.save(update_fields=["name"])
    first = live_bank_settlement(merchant, amount=250075)
    other = live_bank_settlement(
        merchant,
        amount=120000,
        account=live_bank_account(
            merchant, account_number="CD41 0001 2345 6789", account_holder="+Kin Import"
        ),
    )
    wallet_or_test = exported_bank_settlement(merchant, amount=1000)  # not pending: left out

    response = act(alice, "export_bank_file", [first.pk, other.pk, wallet_or_test.pk])
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "no-store" in response["Cache-Control"]
    rows, body = read_csv(response)
    reference = Settlement.objects.get(pk=first.pk).bank_file
    assert re.fullmatch(r"BTF-[A-Z0-9]{10}", reference)
    assert response["Content-Disposition"] == f'attachment; filename="{reference}-CDF.csv"'
    assert rows == [
        [
            "file_reference",
            "settlement",
            "reference",
            "merchant_name",
            "account_holder",
            "bank_name",
            "account_number",
            "swift",
            "amount",
            "currency",
        ],
        [
            reference,
            first.pk,
            first.reference,
            "'=Boutique Gombe",
            "Boutique Gombe SARL",
            "Rawbank",
            BANK_NUMBER,
            "RAWBCDKI",
            "2500.75",
            "CDF",
        ],
        [
            reference,
            other.pk,
            other.reference,
            "'=Boutique Gombe",
            "'+Kin Import",
            "Rawbank",
            "CD41000123456789",
            "RAWBCDKI",
            "1200.00",
            "CDF",
        ],
    ]
    assert first.reference.startswith("CONGOPAY ")
    for settlement in (first, other):
        settlement.refresh_from_db()
        assert (settlement.status, settlement.bank_file) == ("in_transit", reference)
        assert settlement.exported_by == "alice"
        assert settlement.provider_raw[-1]["exported_by"] == "alice"  # who, with the answers
    assert Settlement.objects.get(pk=wallet_or_test.pk).bank_file != reference
    shown = messages_after(alice)
    assert f"Bank transfer file {reference}: 2 settlements, 3,700.75 CDF" in shown

    # Exported once: a second export of the same makes no file, and the first is there again.
    again = act(bob, "export_bank_file", [first.pk, other.pk])
    assert again.status_code == 302
    assert "waiting for a bank transfer file" in messages_after(bob)
    download = bob.get(f"{LIST}bank-files/{reference}/")
    assert download.status_code == 200
    assert read_csv(download)[1] == body  # the same file, byte for byte
    assert Settlement.objects.get(pk=first.pk).exported_by == "alice"


def test_a_file_is_in_one_currency(merchant, alice):
    cdf = live_bank_settlement(merchant)
    usd = live_bank_settlement(merchant, amount=2000, currency="USD")
    before = state_of(cdf, usd)
    refused = act(alice, "export_bank_file", [cdf.pk, usd.pk], language="fr")
    assert refused.status_code == 302
    shown = messages_after(alice, language="fr")
    assert "Un fichier de virements bancaires est dans une seule devise" in shown
    assert "CDF, USD" in shown and "Rien n’a été exporté." in shown
    assert state_of(cdf, usd) == before
    usd_file = act(alice, "export_bank_file", [usd.pk])
    assert read_csv(usd_file)[0][1][-2:] == ["20.00", "USD"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_staff_members_exporting_the_same_settlements_at_once_make_one_file_of_each(
    merchant,
):
    pending = [live_bank_settlement(merchant, amount=10000 + n * 100) for n in range(6)]
    ids = [settlement.pk for settlement in pending]
    clients = [staff_member("alice", "send_settlement"), staff_member("bob", "send_settlement")]
    barrier = threading.Barrier(len(clients))
    files: list = [None] * len(clients)

    def export(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            response = act(clients[index], "export_bank_file", ids)
            files[index] = read_csv(response)[0][1:] if response.status_code == 200 else []
        finally:
            connection.close()

    threads = [threading.Thread(target=export, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(found is not None for found in files), files
    in_files = [row[1] for found in files for row in found]
    assert sorted(in_files) == sorted(ids)  # each settlement in exactly one file
    for found in files:
        for row in found:
            stored = Settlement.objects.get(pk=row[1])
            assert (stored.status, stored.bank_file) == ("in_transit", row[0])


def test_another_staff_member_records_the_payment(merchant, alice, bob):
    exported = exported_bank_settlement(merchant, staff="alice", amount=250000)

    # The one who exported it is refused, in words, and nothing changes.
    before = state_of(exported)
    refused = act(
        alice, "mark_paid", [exported.pk], confirm="yes", **{f"answer-{exported.pk}": "FT2612345"}
    )
    assert refused.status_code == 302
    shown = messages_after(alice)
    assert f"You exported settlement {exported.pk} in file {exported.bank_file}" in shown
    assert "another staff member must mark it paid" in shown
    assert state_of(exported) == before

    # Another staff member gives the bank's reference on a confirmation page.
    form = page(act(bob, "mark_paid", [exported.pk]))
    assert "Record the bank&#x27;s payment" in form and "2,500.00 CDF" in form
    assert BANK_NUMBER in form and exported.reference in form
    assert state_of(exported) == before
    empty = page(act(bob, "mark_paid", [exported.pk], confirm="yes"))
    assert "Give the bank&#x27;s reference of this transfer." in empty
    assert state_of(exported) == before

    done = act(
        bob, "mark_paid", [exported.pk], confirm="yes", **{f"answer-{exported.pk}": " FT2612345 "}
    )
    assert done.status_code == 302
    assert f"Settlement {exported.pk}: paid." in messages_after(bob)
    paid = Settlement.objects.get(pk=exported.pk)
    assert (paid.status, paid.provider_reference) == ("paid", "FT2612345")
    assert paid.provider_raw[-1]["paid_by"] == "bob"
    assert events_of(paid) == ["settlement.paid"]
    assert list(
        LedgerEntry.objects.filter(source=paid.pk).values_list("type", "amount", "fee")
    ) == [("settlement", -250000, FEE)]
    detail = page(bob.get(admin_url(paid), HTTP_ACCEPT_LANGUAGE="en"))
    assert re.search(r"Bank&#x27;s answer recorded by.*?bob", detail, re.S)

    # Recorded once: a second answer changes nothing.
    again = act(bob, "mark_failed", [paid.pk], confirm="yes", **{f"answer-{paid.pk}": "No"})
    assert again.status_code == 302
    assert "None of the selected settlements is in a bank transfer file" in messages_after(bob)
    assert Settlement.objects.get(pk=paid.pk).status == "paid"
    assert events_of(paid) == ["settlement.paid"]


def test_a_failed_bank_settlement_gives_amount_and_fee_back(merchant, alice):
    exported = exported_bank_settlement(merchant, staff="alice", amount=250000)
    available = selectors.balance_get(merchant=merchant, livemode=True)["CDF"]
    form = page(act(alice, "mark_failed", [exported.pk], language="fr"))
    assert "Pourquoi la banque n’a pas payé" in form
    reason = "The bank closed this account: add another one."
    done = act(
        alice, "mark_failed", [exported.pk], confirm="yes", **{f"answer-{exported.pk}": reason}
    )
    assert done.status_code == 302
    assert f"Settlement {exported.pk}: failed." in messages_after(alice)
    failed = Settlement.objects.get(pk=exported.pk)
    assert (failed.status, failed.failure_code, failed.failure_message) == (
        "failed",
        "bank_rejected",
        reason,
    )
    assert failed.provider_raw[-1]["failed_by"] == "alice"  # the exporter may record a failure
    assert list(
        LedgerEntry.objects.filter(source=failed.pk)
        .order_by("created_at", "id")
        .values_list("type", "amount", "fee")
    ) == [("settlement", -250000, FEE), ("settlement_failure", 250000, -FEE)]
    back = selectors.balance_get(merchant=merchant, livemode=True)["CDF"]
    assert back == available + 250000 + FEE
    assert events_of(failed) == ["settlement.failed"]
