"""Staff pages of the ledger: a read-only list by merchant, mode, currency and type, each row linked
to what moved the money; and the balance of each mode on the merchant's page."""

import html
import re

import pytest

from payments.models import LedgerEntry
from payments.services.refunds import refund_create
from tests.factories import (
    MerchantFactory,
    sent_payout,
    succeeded_card_charge,
    succeeded_live_charge,
    succeeded_mobile_money_charge,
)
from tests.helpers import admin_url

pytestmark = pytest.mark.django_db

LIST = "/admin/payments/ledgerentry/"


@pytest.fixture
def moves(merchant, settings):
    """Money moved in every way: a row of each kind the admin links to."""
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    charge = succeeded_mobile_money_charge(merchant, amount=100000)
    card = succeeded_card_charge(merchant, amount=5000)
    refund = refund_create(charge=charge, amount=2000)
    payout = sent_payout(merchant, amount=3000, phone="+243812345001")  # the operator refuses it
    from payments.services.payouts import payout_refresh

    assert payout_refresh(payout_id=payout.id).status == "failed"
    live = succeeded_live_charge(merchant, amount=10000)
    other = succeeded_mobile_money_charge(MerchantFactory(), amount=4000)
    return {
        "charge": charge,
        "card": card,
        "refund": refund,
        "payout": payout,
        "live": live,
        "other": other,
    }


def rows(page: str) -> set[tuple[str, str]]:
    """(type, source) of each row the page lists."""
    listed = set()
    for row in LedgerEntry.objects.all():
        if row.id in page:
            listed.add((row.type, row.source))
    return listed


def page_of(client, **params) -> str:
    response = client.get(LIST, params)
    assert response.status_code == 200
    return response.content.decode()


def test_list_filters_and_search(staff, moves, merchant):
    charge, card, refund = moves["charge"], moves["card"], moves["refund"]
    payout, live, other = moves["payout"], moves["live"], moves["other"]
    everything = page_of(staff)
    assert rows(everything) == {
        ("charge", charge.id),
        ("charge", card.id),
        ("refund", refund.id),
        ("payout", payout.id),
        ("payout_failure", payout.id),
        ("charge", live.id),
        ("charge", other.id),
    }
    assert "1\xa0000,00 CDF" in everything and "-20,00 CDF" in everything

    assert rows(page_of(staff, livemode__exact="1")) == {("charge", live.id)}
    assert rows(page_of(staff, currency__exact="USD")) == {("charge", card.id)}
    assert rows(page_of(staff, type__exact="payout_failure")) == {("payout_failure", payout.id)}
    mine_in_test = page_of(staff, merchant=merchant.id, livemode__exact="0")
    assert ("charge", other.id) not in rows(mine_in_test) and len(rows(mine_in_test)) == 5
    chosen = rf'class="selected">\s*<a href="[^"]*">{re.escape(merchant.name)}</a>'
    assert re.search(chosen, mine_in_test)  # the filter says whose rows these are

    assert rows(page_of(staff, q=payout.id)) == {
        ("payout", payout.id),
        ("payout_failure", payout.id),
    }
    row = LedgerEntry.objects.get(type="refund")
    assert rows(page_of(staff, q=row.id)) == {("refund", refund.id)}
    assert rows(page_of(staff, q=other.merchant_id)) == {("charge", other.id)}


def test_each_row_links_to_what_moved_the_money(staff, moves):
    page = page_of(staff)
    for name in ("charge", "card", "refund", "payout", "live"):
        source = moves[name]
        link = f'<a href="{admin_url(source)}">{source.id}</a>'
        assert link in page, name
        assert staff.get(admin_url(source)).status_code == 200
    # A refund's row names its charge too, but links to the refund.
    refund_row = LedgerEntry.objects.get(type="refund")
    detail = staff.get(admin_url(refund_row)).content.decode()
    assert f'<a href="{admin_url(moves["refund"])}">' in detail


def test_rows_are_never_added_changed_or_deleted_here(staff, moves):
    row = LedgerEntry.objects.get(type="payout")
    detail = staff.get(admin_url(row))
    assert detail.status_code == 200
    assert 'name="_save"' not in detail.content.decode()
    assert "delete_selected" not in page_of(staff)
    assert staff.get(f"{LIST}add/").status_code == 403
    assert staff.post(f"{LIST}add/", {"amount": 1}).status_code == 403
    assert staff.post(admin_url(row), {"amount": 1}).status_code == 403
    assert staff.get(admin_url(row, "delete")).status_code == 403
    assert staff.post(admin_url(row, "delete"), {"post": "yes"}).status_code == 403
    deleting = {"action": "delete_selected", "_selected_action": [row.id], "post": "yes"}
    staff.post(LIST, deleting, follow=True)
    assert LedgerEntry.objects.get(pk=row.id).amount == -3000


def test_the_merchant_page_shows_each_modes_balance_with_links(staff, moves, merchant):
    page = staff.get(admin_url(merchant)).content.decode()  # French by default
    # test: 1,000.00 − 20.00 (refund) − 30.00 + 30.00 (payout failed) CDF; 50.00 USD by card
    assert re.search(r"test</th><td>980,00 CDF, 50,00 USD</td>", page)
    assert re.search(r"live</th><td>100,00 CDF, 0,00 USD</td>", page)

    links = [
        html.unescape(href) for href in re.findall(r'href="([^"]+)">écritures du grand livre', page)
    ]
    assert len(links) == 2
    test_rows = rows(staff.get(links[0]).content.decode())
    assert test_rows == {
        (row.type, row.source)
        for row in LedgerEntry.objects.filter(merchant=merchant, livemode=False)
    }
    assert rows(staff.get(links[1]).content.decode()) == {("charge", moves["live"].id)}

    payouts = [html.unescape(href) for href in re.findall(r'href="([^"]+)">versements', page)]
    assert len(payouts) == 2
    assert moves["payout"].id in staff.get(payouts[0]).content.decode()
    assert moves["payout"].id not in staff.get(payouts[1]).content.decode()


def test_a_new_merchant_has_no_balance_yet(staff):
    page = staff.get("/admin/payments/merchant/add/")
    assert page.status_code == 200
    assert "ledger rows" not in page.content.decode()


@pytest.mark.postgres
def test_a_source_is_searched_through_its_index(staff, moves):
    """The one-row-per-source index begins with the row's type: the search names every type, so
    PostgreSQL looks the source up in it under each, instead of reading all of it or the table."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    payout = moves["payout"]
    # Rows of no charge, taken back at the end (the ledger's own check would find them).
    with transaction.atomic():
        # A ledger of some size, so that the plans are the ones a real ledger gets.
        with connection.cursor() as cursor:
            cursor.execute(
                """INSERT INTO payments_ledgerentry
                       (id, merchant_id, livemode, currency, type, amount, source, created_at, epoch)
                   SELECT 'le_fill' || i, %s, false, 'CDF', 'charge', 100, 'ch_fill' || i,
                          now() - make_interval(secs => i), 0
                   FROM generate_series(1, 20000) AS i""",
                [payout.merchant_id],
            )
            cursor.execute("ANALYZE payments_ledgerentry")
        with CaptureQueriesContext(connection) as captured:
            assert len(rows(page_of(staff, q=payout.id))) == 2
        searched = [
            q["sql"]
            for q in captured
            if "payments_ledgerentry" in q["sql"] and payout.id in q["sql"]
        ]
        assert searched
        for sql in searched:  # the page, and the dates it spans
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN " + sql)
                lines = [row[0] for row in cursor.fetchall()]
            plan = "\n".join(lines)
            on_index = [n for n, line in enumerate(lines) if "on ledger_once_per_source" in line]
            assert on_index, plan
            condition = lines[on_index[0] + 1]
            assert "Index Cond" in condition and "type" in condition and "source" in condition, plan
        transaction.set_rollback(True)
