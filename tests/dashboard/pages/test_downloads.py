"""The dashboard's downloads: the machine file first (the API's: `,`, English headers, UTC, the
same bytes as GET /v1/balance_transactions/export), and beside it one for people in the user's
language: in French `;`, French headers, decimal commas, the merchant's time with its zone named,
phone numbers Excel keeps as text, newest first as the page."""

import csv
import io
import re
from datetime import UTC, datetime

import pytest
import time_machine

from batches import services as batch_services
from dashboard import downloads
from dashboard.models import AuditEntry
from payments.models import Charge
from tests.dashboard.pages.conftest import Members
from tests.dashboard.test_payout_batches_pages import BATCHES, action, draft
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import api_client

pytestmark = [pytest.mark.django_db]

BALANCE = "/dashboard/test/balance/"
FIRST = datetime(2026, 12, 7, 23, 30, tzinfo=UTC)  # 00:30 on the 8th in Kinshasa
SECOND = datetime(2026, 12, 8, 13, 5, tzinfo=UTC)  # 14:05 in Kinshasa


def body(response) -> str:
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return b"".join(response.streaming_content).decode()


def table(text: str, delimiter: str) -> list[list[str]]:
    assert text.startswith("\ufeff") and "\r\n" in text
    return list(csv.reader(io.StringIO(text[1:]), delimiter=delimiter))


@pytest.fixture
def paid(shop):
    with time_machine.travel(FIRST, tick=False):
        first = succeeded_mobile_money_charge(shop, amount=250050, phone="+243812345678")
    with time_machine.travel(SECOND, tick=False):
        second = succeeded_mobile_money_charge(shop, amount=1_000_000, phone="+243991234567")
    return first, second


def test_the_machine_statement_is_the_apis_to_the_byte(shop_keys, clients, paid):
    page = clients["finance"].get(BALANCE, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    machine = page.index('value="csv"')
    assert machine < page.index('value="people"')  # the machine format first
    ours = body(clients["finance"].get(BALANCE, {"format": "csv"}, HTTP_ACCEPT_LANGUAGE="fr"))
    api = api_client(shop_keys.test_key.plaintext).get("/v1/balance_transactions/export")
    assert ours == b"".join(api.streaming_content).decode()
    assert ours.startswith("\ufeffid,created_at,type,amount,")
    assert "2026-12-07T23:30:00" in ours  # UTC, oldest first


def test_the_statement_for_people_in_french(clients, paid):
    first, second = paid
    text = body(clients["finance"].get(BALANCE, {"format": "people"}, HTTP_ACCEPT_LANGUAGE="fr"))
    rows = table(text, ";")
    assert rows[0][:6] == [
        "Date (heure de Kinshasa)",
        "Nature",
        "Montant",
        "Frais",
        "Net",
        "Devise",
    ]
    assert "Téléphone" in rows[0]
    dates = [row[0] for row in rows[1:]]
    assert dates == ["08/12/2026 14:05", "08/12/2026 00:30"]  # newest first, local days
    newest = dict(zip(rows[0], rows[1], strict=True))
    assert newest["Montant"] == "10000,00" and newest["Devise"] == "CDF"
    assert re.fullmatch(r"\d+,\d\d", newest["Frais"])
    assert newest["Téléphone"] == '="+243991234567"'  # a text cell in Excel, its + kept
    assert dict(zip(rows[0], rows[2], strict=True))["Montant"] == "2500,50"


def test_the_statement_for_people_in_english_and_another_zone(shop, clients, paid):
    shop.time_zone = "Africa/Lubumbashi"
    shop.save(update_fields=["time_zone"])
    text = body(clients["owner"].get(BALANCE, {"format": "people"}, HTTP_ACCEPT_LANGUAGE="en"))
    rows = table(text, ",")
    assert rows[0][:3] == ["Date (Lubumbashi time)", "Kind", "Amount"]
    assert [row[0] for row in rows[1:]] == ["2026-12-08 15:05", "2026-12-08 01:30"]
    assert rows[1][2] == "10000.00"


def test_only_the_statement_roles_download_it(clients, paid):
    assert clients["viewer"].get(BALANCE, {"format": "people"}).status_code == 403


def test_the_audit_log_for_people(shop, clients):
    owner = clients["owner"]
    with time_machine.travel(FIRST, tick=False):
        AuditEntry.objects.create(merchant=shop, action="settings.updated", email="a@example.cd")
    with time_machine.travel(SECOND, tick=False):
        AuditEntry.objects.create(merchant=shop, action="settings.updated", email="=cmd|x")
    machine = body(owner.get("/dashboard/audit/", {"format": "csv"}))
    assert machine.startswith("created_at,email,mode,action,")  # as before, untouched
    rows = table(body(owner.get("/dashboard/audit/", {"format": "people"})), ";")
    assert rows[0][:3] == ["Quand (heure de Kinshasa)", "Qui", "Mode"]
    assert [row[0] for row in rows[1:]] == ["08/12/2026 14:05", "08/12/2026 00:30"]
    assert rows[1][1] == "'=cmd|x"  # never a formula


def test_a_batchs_results_for_people(funded_clients):
    finance, owner = funded_clients["finance"], funded_clients["owner"]
    batch = draft(finance)
    action(finance, batch, "submit")
    action(owner, batch, "approve")
    batch_services.batch_pay(batch_id=batch.id)
    page = owner.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert page.index("results.csv") < page.index("results.csv?format=people")
    machine = body(owner.get(f"{BATCHES}{batch.id}/results.csv"))
    assert machine.startswith("\ufeffphone,amount,currency,")
    rows = table(body(owner.get(f"{BATCHES}{batch.id}/results.csv", {"format": "people"})), ";")
    assert rows[0][:4] == ["Ligne", "Téléphone", "Montant", "Devise"]
    assert [row[1] for row in rows[1:]] == ['="+243812345001"', '="+243812345002"']
    assert [row[2] for row in rows[1:]] == ["100,00", "250,00"]
    english = table(
        body(
            owner.get(
                f"{BATCHES}{batch.id}/results.csv", {"format": "people"}, HTTP_ACCEPT_LANGUAGE="en"
            )
        ),
        ",",
    )
    assert english[0][:3] == ["Row", "Phone", "Amount"] and english[1][2] == "100.00"


@pytest.fixture
def funded_clients(shop) -> Members:
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    return Members(shop)


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_both_downloads_side_by_side_in_chromium(
    browser, live_server, shop, axe_source, language, width
):
    from tests.dashboard.pages.conftest import member
    from tests.dashboard.pages.test_browser import fits, signed_in_page
    from tests.helpers import axe_violations, screenshot

    user = member(shop, "finance", f"finance-{language}-{width}@example.com")
    succeeded_mobile_money_charge(shop, amount=250000, phone="+243812345678")
    context, page = signed_in_page(browser, live_server.url, user, language=language, width=width)
    try:
        page.goto(f"{live_server.url}{BALANCE}")
        buttons = page.locator("[data-downloads] button")
        assert buttons.count() == 2
        with page.expect_download() as machine:
            buttons.nth(0).click()
        assert machine.value.suggested_filename.startswith("balance-transactions-test-")
        with page.expect_download() as people:
            buttons.nth(1).click()
        assert people.value.suggested_filename.endswith(f"-{language}.csv")
        text = open(people.value.path(), encoding="utf-8").read()  # noqa: PTH123, SIM115
        header = {"fr": "Date (heure de Kinshasa);", "en": "Date (Kinshasa time),"}[language]
        assert text.startswith("\ufeff" + header)
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"dashboard-balance-downloads-{language}-{width}")
    finally:
        context.close()


def test_newest_first_chunks_read_every_row_once_across_equal_times(shop):
    """Chunks continue after the last row read, by time then id: rows made in the same instant
    are neither skipped nor read twice at a chunk's edge."""
    with time_machine.travel(datetime(2026, 12, 1, 9, tzinfo=UTC), tick=False):
        made = [succeeded_mobile_money_charge(shop) for _ in range(3)]
    made.append(succeeded_mobile_money_charge(shop))
    rows = Charge.objects.filter(merchant=shop)
    read = [charge.id for charge in downloads.newest_first_in_chunks(rows, chunk=2)]
    assert read == list(rows.order_by("-created_at", "-id").values_list("id", flat=True))
    assert sorted(read) == sorted(charge.id for charge in made)
