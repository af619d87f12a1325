"""The statement export's operator_reference column (§13, §21): what each row's object is called
by its operator, a wallet settlement's included, so that an operator's statement can be laid
beside it."""

import csv
import io

import pytest

from payments.models import Settlement
from tests.factories import succeeded_mobile_money_charge
from tests.pricing import rate

pytestmark = pytest.mark.django_db

WALLET = {
    "type": "mobile_money",
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}


def test_every_row_names_its_operator_reference(api, merchant, settings):
    settings.PRICING_DEFAULT = [rate("settlement", currency="CDF", fixed=0)]
    charge = succeeded_mobile_money_charge(merchant, amount=50000)
    assert api.post("/v1/settlement_accounts", WALLET, format="json").status_code == 201
    made = api.post("/v1/settlements", {"currency": "CDF"}, format="json")
    assert made.status_code == 201, made.json()
    # The operator's transaction id, as its answer records it once the wallet is paid.
    Settlement.objects.filter(pk=made.json()["id"]).update(provider_reference="MP-STL-1")

    response = api.get("/v1/balance_transactions/export")
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = {row["source"]: row for row in csv.DictReader(io.StringIO(body))}
    assert rows[charge.id]["operator_reference"] == charge.provider_reference
    assert rows[made.json()["id"]]["operator_reference"] == "MP-STL-1"
    assert (
        api.get(f"/v1/charges/{charge.id}").json()["operator_reference"]
        == charge.provider_reference
    )
