"""What a live flow leaves behind: logs that name the charge and refund but never a credential or a
token, and API answers that never show the provider's raw answers (those are for staff only)."""

import json
import logging

import pytest

from payments.models import Refund
from payments.services import refunds
from tests.factories import checked_live_charge, paid_live_card_charge

pytestmark = pytest.mark.django_db

MOBILE = {
    "airtel": {"amount": 250000, "currency": "CDF", "phone": "+243971234567"},
    "mpesa": {"amount": 1000, "currency": "USD", "phone": "+243812345678"},
    "orange": {"amount": 50000, "currency": "CDF", "phone": "+243851234567"},
}
NETWORK = {"airtel": "AIRTEL_MONEY", "mpesa": "VODACOM_MPESA", "orange": "ORANGE_MONEY"}
# Keys of the API's charge object: nothing else may appear.
CHARGE_KEYS = {
    "id", "object", "livemode", "amount", "currency", "payment_method", "phone", "network",
    "status", "description", "metadata", "amount_refunded", "fee", "net", "failure_code",
    "failure_message", "checkout_session", "created_at", "updated_at", "next_action",
}  # fmt: skip


def secrets_of(name: str, fake, settings) -> list[str]:
    values = {
        "airtel": lambda: [settings.AIRTEL_CLIENT_SECRET, *fake.tokens],
        "mpesa": lambda: [settings.MPESA_API_KEY, *fake.sessions],
        "orange": lambda: [
            settings.ORANGE_CLIENT_SECRET,
            settings.ORANGE_NOTIF_TOKEN,
            settings.ORANGE_CALLBACK_AUTHORIZATION,
            *fake.tokens,
            *fake.services_tokens,
            *fake.forms_tokens,
        ],
        "card": lambda: [settings.CARD_LIVE_SECRET_KEY, settings.CARD_REST_SHARED_SECRET],
    }[name]()
    return [str(v) for v in values if v]


@pytest.mark.parametrize("name", ["airtel", "mpesa", "orange", "card"])
def test_logs_name_the_payment_and_never_a_secret(name, request, live_api, settings, caplog):
    fake = request.getfixturevalue("cybersource" if name == "card" else name)
    caplog.set_level(logging.DEBUG)
    if name == "card":
        charge = paid_live_card_charge(fake, live_api)
    else:
        charge = checked_live_charge(live_api, **MOBILE[name], network=NETWORK[name])
    assert charge.status == "succeeded", charge.provider_raw
    refund = live_api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json").json()
    refunds.refund_send(refund_id=refund["id"])

    text = "\n".join(
        f"{r.name} {r.getMessage()} {r.exc_text or ''} {getattr(r, 'args', '')}"
        for r in caplog.records
    )
    provider_lines = [r.getMessage() for r in caplog.records if r.name.startswith("payments.prov")]
    assert any(charge.id in line for line in provider_lines)
    assert any(refund["id"] in line for line in provider_lines)
    for secret in secrets_of(name, fake, settings):
        assert secret not in text, f"a {name} credential or token reached the logs"

    # Staff see the provider's answers; merchants never do.
    charge.refresh_from_db()
    assert charge.provider_raw
    answer = live_api.get(f"/v1/charges/{charge.id}").json()
    # The operator's transaction id is shown (§21: what its statement names the charge by).
    assert answer.pop("operator_reference") in (None, charge.provider_reference)
    assert set(answer) <= CHARGE_KEYS, set(answer) - CHARGE_KEYS
    refund_answer = live_api.get(f"/v1/refunds/{refund['id']}").json()
    assert not {"provider_raw", "provider_reference", "raw"} & set(refund_answer)
    # The provider's id of the refund is the one thing of its answers the merchant is shown,
    # as the refund's operator_reference (to find it in the provider's statement).
    reference = refund_answer.pop("operator_reference")
    assert reference in (None, Refund.objects.get(pk=refund["id"]).provider_reference)
    shown = json.dumps(answer) + json.dumps(refund_answer)
    for entry in charge.provider_raw + Refund.objects.get(pk=refund["id"]).provider_raw:
        for key, value in entry.items():
            ours = value in (charge.id, refund["id"])  # echoes of our own ids
            if key != "at" and isinstance(value, str) and len(value) > 12 and not ours:
                assert value not in shown, f"{key} of a raw answer shown to the merchant"
