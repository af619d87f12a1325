"""The balance page: what is available, pending and on its way out per currency, the ledger's
rows in keyset pages, and the statement as the API exports it, for the roles that may export
statements."""

import pytest

from dashboard.pages.balance import Balance
from dashboard.pages.keyset import PAGE_SIZE
from tests.dashboard.pages.conftest import ROLES
from tests.factories import sent_payout, succeeded_mobile_money_charge
from tests.helpers import api_client

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

BALANCE = "/dashboard/test/balance/"
EXPORTERS = ("owner", "admin", "finance")


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_the_balance_and_only_some_export_it(shop, clients, role):
    succeeded_mobile_money_charge(shop, amount=10000)
    sent_payout(shop, amount=3000)
    shown = clients[role].get(BALANCE)
    assert shown.status_code == 200
    assert Balance("CDF", available=7000, pending=0, outgoing=3000) in shown.context["balances"]
    exported = clients[role].get(BALANCE, {"format": "csv"})
    if role in EXPORTERS:
        assert exported.status_code == 200
        assert b'value="csv"' in shown.content
    else:
        assert exported.status_code == 403
        assert b'value="csv"' not in shown.content


def test_the_statement_is_the_apis_statement(shop_keys, owner):
    shop = shop_keys.merchant
    succeeded_mobile_money_charge(shop, amount=10000)
    sent_payout(shop, amount=3000)
    ours = owner.get(BALANCE, {"format": "csv", "currency": "CDF"})
    assert ours["Content-Type"] == "text/csv; charset=utf-8"
    assert ours["Content-Disposition"].startswith(
        'attachment; filename="balance-transactions-test-'
    )
    theirs = api_client(shop_keys.test_key.plaintext).get(
        "/v1/balance_transactions/export", {"currency": "CDF"}
    )
    assert b"".join(ours.streaming_content) == b"".join(theirs.streaming_content)


def test_ledger_pages_lose_and_repeat_nothing(shop, owner):
    for _ in range(PAGE_SIZE + 2):
        succeeded_mobile_money_charge(shop, amount=1000)
    first = owner.get(BALANCE)
    succeeded_mobile_money_charge(shop, amount=1000)  # between two page loads
    second = owner.get(BALANCE, {"after": first.context["page"].after})
    seen = [row.id for row in first.context["page"].rows + second.context["page"].rows]
    assert len(seen) == len(set(seen)) == PAGE_SIZE + 2


def test_the_other_mode_and_merchant_are_not_counted(shop, other_shop, owner):
    succeeded_mobile_money_charge(other_shop, amount=10000)
    shown = owner.get(BALANCE)
    assert Balance("CDF", available=0, pending=0, outgoing=0) in shown.context["balances"]
    assert shown.context["page"].rows == []
