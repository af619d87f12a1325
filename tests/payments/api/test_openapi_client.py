"""A Python client generated from the served /v1/openapi.json by openapi-python-client works as
typed against the running service: charge, refund and lists through its models, errors as the
Error model. A new merchant would start exactly so."""

import importlib
import json
import subprocess
import sys
import urllib.request
import uuid

import pytest

from tests.factories import sandbox_paid

PACKAGE = "payments_client"


@pytest.fixture
def client_package(live_server, tmp_path):
    """The package openapi-python-client generates from what the live service serves."""
    with urllib.request.urlopen(f"{live_server.url}/v1/openapi.json", timeout=10) as response:
        (tmp_path / "openapi.json").write_bytes(response.read())
    (tmp_path / "config.json").write_text(json.dumps({"post_hooks": []}))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(tmp_path / "openapi.json"),
            "--config",
            str(tmp_path / "config.json"),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / PACKAGE),
            "--fail-on-warning",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield lambda name="": importlib.import_module(f"{PACKAGE}{name}")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_charges_refunds_and_lists_through_its_models(
    client_package, live_server, merchant_keys
):
    package = client_package()
    models = client_package(".models")
    charges_api = client_package(".api.charges")
    refunds_api = client_package(".api.refunds")
    for name in ("charges_create", "charges_retrieve", "charges_list"):
        importlib.import_module(f"{charges_api.__name__}.{name}")
    for name in ("refunds_create", "refunds_list", "charge_refunds_list"):
        importlib.import_module(f"{refunds_api.__name__}.{name}")
    # Closed at the end: no kept-alive connection holds a server thread (and its database
    # connection) after the test.
    with package.AuthenticatedClient(
        base_url=live_server.url, token=merchant_keys.test_key.plaintext
    ) as client:
        merchant_journey(client, models, charges_api, refunds_api)


def merchant_journey(client, models, charges_api, refunds_api) -> None:

    created = charges_api.charges_create.sync(
        client=client,
        idempotency_key=str(uuid.uuid4()),
        body=models.ChargeCreateRequest(
            amount=250000,
            currency=models.Currency.CDF,
            phone="+243812345678",
            network=models.MobileMoneyNetwork.VODACOM_MPESA,
            description="Commande 42",
            metadata=models.Metadata.from_dict({"order": "42"}),
        ),
    )
    assert isinstance(created, models.MobileMoneyChargeCreated)
    assert created.status is models.ChargeStatus.PENDING
    assert (created.amount, created.currency) == (250000, models.Currency.CDF)
    assert created.metadata["order"] == "42"

    sandbox_paid(created.id)  # the customer approves on the phone
    charge = charges_api.charges_retrieve.sync(client=client, charge_id=created.id)
    assert isinstance(charge, models.Charge)
    assert charge.status is models.ChargeStatus.SUCCEEDED
    assert charge.payment_method is models.PaymentMethod.MOBILE_MONEY
    assert charge.failure_code is None and charge.checkout_session is None
    assert charge.created_at.tzinfo is not None

    refund = refunds_api.refunds_create.sync(
        client=client,
        charge_id=charge.id,
        body=models.RefundCreateRequest(
            amount=2500, reason=models.RefundRequestReason.REQUESTED_BY_CUSTOMER
        ),
    )
    assert isinstance(refund, models.Refund)
    assert (refund.charge_id, refund.amount) == (charge.id, 2500)
    assert refund.reason is models.RefundReason.REQUESTED_BY_CUSTOMER

    refunds = refunds_api.refunds_list.sync(client=client, limit=10)
    assert isinstance(refunds, models.RefundList)
    assert [r.id for r in refunds.data] == [refund.id] and refunds.has_more is False
    of_charge = refunds_api.charge_refunds_list.sync(client=client, charge_id=charge.id)
    assert [r.id for r in of_charge.data] == [refund.id]
    charges = charges_api.charges_list.sync(
        client=client, status=models.ChargesListStatus.SUCCEEDED, limit=5
    )
    assert isinstance(charges, models.ChargeList)
    assert [c.id for c in charges.data] == [charge.id]
    assert charges.data[0].amount_refunded == 2500 and charges.limit == 5

    # Refusals come back as the Error model, with the code to branch on.
    refused = charges_api.charges_create.sync(
        client=client, body=models.ChargeCreateRequest(amount=250000, currency=models.Currency.CDF)
    )
    assert isinstance(refused, models.Error)
    assert refused.error.type_ is models.ErrorType.INVALID_REQUEST_ERROR
    assert (refused.error.code, refused.error.param) == ("parameter_missing", "phone")
    missing = charges_api.charges_retrieve.sync(client=client, charge_id="ch_nothing")
    assert isinstance(missing, models.Error) and missing.error.code == "resource_missing"
