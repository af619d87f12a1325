"""The payments page: who sees it, whose charges, the search by each kind of `q`, the filters,
keyset pages that lose and repeat nothing while payments arrive, and its queries' plans."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.pages.keyset import PAGE_SIZE
from dashboard.pages.search import ChargeFilter
from payments import selectors
from tests.dashboard.pages.conftest import ROLES, client_of, member
from tests.factories import (
    make_charge,
    settle,
    succeeded_live_charge,
    succeeded_mobile_money_charge,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

LIST = "/dashboard/test/payments/"


def ids_on(response) -> list[str]:
    return [charge.id for charge in response.context["page"].rows]


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_the_payments_and_a_payment(shop, clients, role):
    charge = succeeded_mobile_money_charge(shop)
    listed = clients[role].get(LIST)
    assert listed.status_code == 200
    assert ids_on(listed) == [charge.id]
    shown = clients[role].get(f"{LIST}{charge.id}/")
    assert shown.status_code == 200
    assert charge.id.encode() in shown.content


def test_signed_out_visitors_are_sent_to_sign_in(client, shop):
    response = client.get(LIST)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_another_merchants_payment_is_missing(shop, other_shop, owner):
    theirs = succeeded_mobile_money_charge(other_shop)
    assert owner.get(f"{LIST}{theirs.id}/").status_code == 404
    assert ids_on(owner.get(LIST)) == []
    assert owner.get(LIST, {"q": theirs.id}).context["page"].rows == []


def test_test_and_live_payments_are_apart(shop, owner):
    ours = succeeded_mobile_money_charge(shop)
    live = succeeded_live_charge(shop)
    assert ids_on(owner.get(LIST)) == [ours.id]
    assert ids_on(owner.get("/dashboard/live/payments/")) == [live.id]
    assert owner.get(f"{LIST}{live.id}/").status_code == 404
    assert owner.get(f"/dashboard/live/payments/{ours.id}/").status_code == 404


def test_live_pages_are_missing_until_the_merchant_is_approved(shop, owner):
    assert owner.get("/dashboard/live/payments/").status_code == 404


@pytest.mark.parametrize(
    "typed",
    [
        "+243812345678",
        "+243 81 234 5678",
        "0812345678",
        "0812 345 678",
        "243812345678",
        "081-234-5678",
    ],
)
def test_a_phone_number_is_found_however_it_is_typed(shop, owner, typed):
    theirs = make_charge(shop, phone="+243812345678")
    make_charge(shop, phone="+243998765432", network="AIRTEL_MONEY")
    assert ids_on(owner.get(LIST, {"q": typed})) == [theirs.id]


def test_search_by_id_description_and_operator_reference(shop, owner):
    first = make_charge(shop, description="Commande 1042 — savon")
    second = settle(
        make_charge(shop, description="Loyer novembre"),
        "succeeded",
        provider_reference="MP2611ABCD",
    )
    assert ids_on(owner.get(LIST, {"q": first.id})) == [first.id]
    assert ids_on(owner.get(LIST, {"q": f"  {first.id} "})) == [first.id]
    assert ids_on(owner.get(LIST, {"q": "savon"})) == [first.id]
    assert ids_on(owner.get(LIST, {"q": "LOYER"})) == [second.id]
    assert ids_on(owner.get(LIST, {"q": "MP2611ABCD"})) == [second.id]
    assert ids_on(owner.get(LIST, {"q": "nothing like it"})) == []


def test_filters_by_status_network_and_dates(shop, owner):
    # 23:30 on the 2nd in Kinshasa, whose days the filters read (UTC+1).
    old = make_charge(shop, at=datetime(2026, 11, 2, 22, 30, tzinfo=UTC))
    paid = succeeded_mobile_money_charge(shop)
    airtel = make_charge(shop, phone="+243991234567", network="AIRTEL_MONEY")
    assert ids_on(owner.get(LIST, {"status": "succeeded"})) == [paid.id]
    assert ids_on(owner.get(LIST, {"network": "AIRTEL_MONEY"})) == [airtel.id]
    assert ids_on(owner.get(LIST, {"date_to": "2026-11-02"})) == [old.id]
    assert ids_on(owner.get(LIST, {"date_from": "2026-11-02", "date_to": "2026-11-02"})) == [old.id]
    assert old.id not in ids_on(owner.get(LIST, {"date_from": "2026-11-03"}))


def test_bad_filters_are_said_in_words_and_the_rest_still_applies(shop, owner):
    paid = succeeded_mobile_money_charge(shop)
    make_charge(shop)
    response = owner.get(
        LIST, {"status": "lost", "date_from": "2026-02-30", "network": "VODACOM_MPESA"}
    )
    assert response.status_code == 200
    assert response.context["filter"].errors.keys() == {"status", "date_from"}
    assert b'class="errorlist"' in response.content
    assert paid.id in ids_on(response)


def test_keyset_pages_lose_and_repeat_nothing_while_payments_arrive(shop, owner):
    start = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    made = [make_charge(shop, at=start + timedelta(minutes=i)).id for i in range(PAGE_SIZE + 7)]
    # Two charges in the same microsecond: the id breaks the tie.
    made += [make_charge(shop, at=start + timedelta(hours=2)).id for _ in range(2)]
    first = owner.get(LIST)
    assert len(ids_on(first)) == PAGE_SIZE
    arrived = [make_charge(shop).id for _ in range(3)]  # between two page loads
    seen = ids_on(first)
    after = first.context["page"].after
    while after:
        page = owner.get(LIST, {"after": after})
        seen += ids_on(page)
        after = page.context["page"].after
    assert sorted(seen) == sorted(made)
    assert len(seen) == len(set(seen))
    # Back to the newer page from the second one: the same rows as the first page showed.
    second = owner.get(LIST, {"after": first.context["page"].after})
    back = owner.get(LIST, {"before": second.context["page"].before})
    assert ids_on(back) == ids_on(first)
    assert set(arrived) <= set(ids_on(owner.get(LIST)))


def test_a_filtered_page_keeps_its_filter_on_the_next_page(shop, owner):
    for _ in range(PAGE_SIZE + 2):
        make_charge(shop, phone="+243991234567", network="AIRTEL_MONEY")
    make_charge(shop)
    first = owner.get(LIST, {"network": "AIRTEL_MONEY"})
    assert f"network=AIRTEL_MONEY&amp;after={first.context['page'].after}".encode() in first.content
    second = owner.get(LIST, {"network": "AIRTEL_MONEY", "after": first.context["page"].after})
    assert len(ids_on(second)) == 2


def test_the_list_costs_the_same_few_queries_on_any_page(shop, owner):
    for _ in range(PAGE_SIZE + 3):
        make_charge(shop)
    first = owner.get(LIST)
    with CaptureQueriesContext(connection) as on_first:
        owner.get(LIST, {"q": "+243812345678"})
    with CaptureQueriesContext(connection) as on_second:
        owner.get(LIST, {"q": "+243812345678", "after": first.context["page"].after})
    # the session, the user, the membership and its merchant's settings; the cursor and the page
    assert len(on_second) <= len(on_first) + 1 <= 12


MANY = 20_000

# Charges of one merchant written straight into the table (the services would take minutes):
# enough rows, with the phones, references and descriptions of a busy shop, for PostgreSQL's
# planner to choose as it would on a large table.
MANY_CHARGES = """
INSERT INTO payments_charge (id, merchant_id, livemode, amount, currency, payment_method, phone,
    network, status, description, metadata, callback_url, return_url, failure_code,
    failure_message, amount_refunded, provider, provider_reference, provider_attempt,
    provider_raw, check_count, reconcile_count, created_at, updated_at)
SELECT 'ch_many' || lpad(g::text, 20, '0'), %s, false, 10000, 'CDF', 'mobile_money',
    '+24381' || lpad((g %% 5000)::text, 7, '0'), 'VODACOM_MPESA', 'failed',
    'Commande ' || g, '{}', '', '', '', '', 0, 'sandbox', 'REF' || g, '', '[]', 0, 0,
    now() - g * interval '1 minute', now()
FROM generate_series(1, %s) g
"""


@pytest.fixture
def busy_shop(shop):
    with connection.cursor() as cursor:
        cursor.execute(MANY_CHARGES, [shop.pk, MANY])
        cursor.execute("ANALYZE payments_charge")
    return shop


def _plan(merchant, query: dict) -> str:
    """The page's plan. At twenty thousand rows a sequential scan is sometimes priced near the
    index (on a large table, a search without its index reads every row), so it is priced out
    here: what is left is which index the page's query can use."""
    scope = selectors.charges_of(merchant=merchant, livemode=False)
    found = ChargeFilter(query, queryset=scope).qs.order_by("-created_at", "-id")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    return found[: PAGE_SIZE + 1].explain()


@pytest.mark.parametrize(
    ("q", "index"),
    [
        ("0810 004 242", "charge_search_phone_idx"),
        ("REF4242", "charge_search_reference_idx"),
        ("Commande 4242", "charge_search_description_idx"),
    ],
)
def test_each_kind_of_search_is_read_through_an_index(busy_shop, q, index):
    plan = _plan(busy_shop, {"q": q})
    assert index in plan
    assert "Seq Scan" not in plan


def test_the_unfiltered_list_reads_its_index_in_order(busy_shop):
    plan = _plan(busy_shop, {})
    assert "charge_list_idx" in plan
    assert "Sort" not in plan and "Seq Scan" not in plan


def test_the_search_updates_the_results_alone_for_htmx(shop, owner):
    charge = make_charge(shop, description="Commande savon")
    response = owner.get(
        LIST, {"q": "savon"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="payments-results"
    )
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert charge.id.encode() in response.content
    full = owner.get(LIST, {"q": "savon"})
    assert b"<html" in full.content and b'id="payments-results"' in full.content


def test_a_member_of_two_merchants_sees_the_active_ones_payments(shop, other_shop):
    user = member(shop, "viewer", "both@example.com")
    from dashboard.models import Membership

    Membership.objects.create(user=user, merchant=other_shop, role="viewer")
    theirs = succeeded_mobile_money_charge(other_shop)
    ours = succeeded_mobile_money_charge(shop)
    viewer = client_of(user)
    assert ids_on(viewer.get(LIST)) == [ours.id]
    viewer.post("/dashboard/switch/", {"merchant": other_shop.pk})
    assert ids_on(viewer.get(LIST)) == [theirs.id]
    assert viewer.get(f"{LIST}{ours.id}/").status_code == 404
