"""What each hot endpoint costs in SQL: a fixed number of queries, whatever the page size or the
number of rows behind it (never one per row). Once its key has been read (the key cache), a
request runs no query to authenticate. Each test runs inside a transaction, so the services'
transactions show here as a SAVEPOINT and its RELEASE (BEGIN and COMMIT in production)."""

import uuid

import pytest

from tests.factories import make_charge, succeeded_mobile_money_charge

pytestmark = pytest.mark.django_db

MOBILE_MONEY = {
    "amount": 250000,
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}
PAYOUT = {"amount": 5000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture
def warm(api):
    """The key read once (and its last_used_at written): later requests find it cached."""
    assert api.get("/v1/balance").status_code == 200
    return api


def test_a_request_with_a_cached_key_runs_no_query_to_authenticate(warm, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert warm.get("/v1/webhook_endpoint/nothing-here").status_code == 404
    with django_assert_num_queries(1):  # the balance itself
        assert warm.get("/v1/balance").status_code == 200


def test_get_charge_is_one_query(warm, merchant, django_assert_num_queries):
    charge = make_charge(merchant)
    with django_assert_num_queries(1):
        response = warm.get(f"/v1/charges/{charge.id}")
    assert response.json()["id"] == charge.id


def _charges_of_every_shape(merchant) -> list:
    from payments.models import Charge

    refunded = succeeded_mobile_money_charge(merchant, amount=20000)
    Charge.objects.filter(pk=refunded.pk).update(amount_refunded=5000)
    return [
        make_charge(merchant, description="Commande 42", metadata={"order": "42"}),
        make_charge(merchant, status="failed", failure_code="insufficient_funds"),
        make_charge(merchant, payment_method="card"),  # pending: shows next_action
        make_charge(merchant, payment_method="card", status="failed", failure_code="declined"),
        refunded,
    ]


def test_get_charge_reads_only_what_it_shows(warm, merchant, django_assert_num_queries):
    """The GET reads the columns charge_repr shows, not the operator's answers: each shape of
    charge is shown as the whole row shows it, and showing it asks for no deferred column."""
    from payments.models import Charge
    from payments.representations import charge_repr

    for charge in _charges_of_every_shape(merchant):
        whole = charge_repr(Charge.objects.get(pk=charge.pk))
        with django_assert_num_queries(1):
            response = warm.get(f"/v1/charges/{charge.id}")
        assert response.json() == whole


def test_a_list_reads_only_what_it_shows(warm, merchant, django_assert_num_queries):
    """A page of charges shows each charge as the whole row shows it (every shape of charge, in
    the list's order), in one query, and showing them asks for no deferred column."""
    from payments.models import Charge
    from payments.representations import charge_repr

    charges = _charges_of_every_shape(merchant)
    whole = [
        charge_repr(charge)
        for charge in Charge.objects.filter(pk__in=[c.pk for c in charges]).order_by(
            "-created_at", "-id"
        )
    ]
    with django_assert_num_queries(1):
        page = warm.get("/v1/charges?limit=100").json()
    assert page["data"] == whole
    with django_assert_num_queries(2):  # + the cursor
        after = warm.get(f"/v1/charges?limit=100&starting_after={whole[0]['id']}").json()
    assert after["data"] == whole[1:]


def test_refund_and_payout_lists_are_one_query_plus_one_for_their_cursor(
    warm, merchant, django_assert_num_queries
):
    """The lists of refunds (of a charge, of the merchant) and of payouts: one query a page (+1 for starting_after, +1 for a charge's own row),
    each object shown as the ORM reads it, newest first, the cursor's rules as for charges."""
    from payments.models import Payout, Refund
    from payments.representations import payout_repr, refund_repr
    from payments.services import refunds
    from tests.factories import sent_payout

    charge = succeeded_mobile_money_charge(merchant, amount=90000)
    for amount in (10000, 20000, 30000):
        refunds.refund_create(charge=charge, amount=amount)
        sent_payout(merchant, amount=1000 + amount // 10)
    newest = ("-created_at", "-id")
    lists = [
        # + the charge itself
        (f"/v1/charges/{charge.id}/refunds", Refund.objects.filter(charge=charge), refund_repr, 1),
        ("/v1/refunds", Refund.objects.filter(merchant=merchant), refund_repr, 0),
        ("/v1/payouts", Payout.objects.filter(merchant=merchant), payout_repr, 0),
        ("/v1/payouts?status=pending&network=VODACOM_MPESA", Payout.objects.all(), payout_repr, 0),
    ]
    for path, objects, represent, more in lists:
        whole = [represent(obj) for obj in objects.order_by(*newest)]
        joint = "&" if "?" in path else "?"
        with django_assert_num_queries(1 + more):
            page = warm.get(f"{path}{joint}limit=2").json()
        assert page["data"] == whole[:2] and page["has_more"]
        with django_assert_num_queries(2 + more):
            after = warm.get(f"{path}{joint}limit=2&starting_after={whole[0]['id']}").json()
        assert after["data"] == whole[1:3] and not after["has_more"]
        missing = warm.get(f"{path}{joint}starting_after=po_nothing")
        assert missing.status_code == 400
        assert missing.json()["error"]["param"] == "starting_after"


@pytest.mark.parametrize("rows", [1, 40])
def test_a_list_is_one_query_plus_one_for_its_cursor(
    warm, merchant, django_assert_num_queries, rows
):
    charges = [make_charge(merchant) for _ in range(rows)]
    for limit in (1, 100):
        with django_assert_num_queries(1):
            assert len(warm.get(f"/v1/charges?limit={limit}").json()["data"]) == min(limit, rows)
        with django_assert_num_queries(1):
            assert warm.get(f"/v1/charges?limit={limit}&status=pending").status_code == 200
        with django_assert_num_queries(2):
            response = warm.get(f"/v1/charges?limit={limit}&starting_after={charges[-1].id}")
        assert response.status_code == 200


def test_post_charge_is_a_check_and_an_insert(warm, django_assert_num_queries):
    # is the network closed, the merchant's own rates (the fee kept on the charge), the INSERT
    with django_assert_num_queries(3):
        assert warm.post("/v1/charges", MOBILE_MONEY, format="json").status_code == 201


def test_post_charge_with_a_key_and_its_replay(warm, django_assert_num_queries, is_postgres):
    key = str(uuid.uuid4())
    # Look for an answer; in one transaction: claim the key (PostgreSQL's advisory lock), look
    # again, whether the network is closed, the merchant's own rates, the charge's INSERT, the
    # answer.
    with django_assert_num_queries(9 if is_postgres else 8):
        first = warm.post("/v1/charges", MOBILE_MONEY, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert first.status_code == 201
    with django_assert_num_queries(1):  # the stored answer, replayed
        replay = warm.post("/v1/charges", MOBILE_MONEY, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert replay.content == first.content and replay["Idempotent-Replayed"] == "true"


def test_get_balance_is_one_query_whatever_the_ledger(warm, merchant, django_assert_num_queries):
    for amount in (10000, 20000, 30000):
        succeeded_mobile_money_charge(merchant, amount=amount)
        with django_assert_num_queries(1):
            assert warm.get("/v1/balance").json()["available"][0]["amount"] > 0


def test_post_payout_reads_the_balance_under_the_merchant_lock(
    warm, merchant, django_assert_num_queries
):
    from django.db import connection

    succeeded_mobile_money_charge(merchant, amount=20000)
    # SAVEPOINT, is the network open, the merchant's rates (the payout's fee), the merchant's
    # row lock, the balance, the payout, (on
    # PostgreSQL, the shared lock of its balance's checkpoints,) the epoch its ledger row is
    # written in, the row, RELEASE.
    with django_assert_num_queries(10 if connection.vendor == "postgresql" else 9):
        assert warm.post("/v1/payouts", PAYOUT, format="json").status_code == 201
