"""Operators' callbacks (POST /providers/<network>/callback).

A callback is a hint, never a verdict: it is authenticated, then it triggers the status check
(services.charge_refresh), which asks the operator itself; the body never sets a status. The
operator gets a small JSON 200 as soon as that check is done (one status query, bounded by
PROVIDER_HTTP_TIMEOUT). Unknown or already-final charges are acknowledged and ignored.
"""

import hmac
import json
import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from payments import services
from payments.models import Charge, ChargeStatus, Network, PaymentMethod
from payments.providers.airtel import callback_hash_valid

logger = logging.getLogger("payments.callbacks")


def _answer(status: int = 200, **body) -> JsonResponse:
    return JsonResponse({"received": status == 200, **body}, status=status)


def _json(request: HttpRequest) -> dict | None:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _check(charge_id: str, network: str) -> JsonResponse:
    """Run the status check of a pending live charge of this network."""
    pending = Charge.objects.filter(
        pk=charge_id,
        livemode=True,
        network=network,
        payment_method=PaymentMethod.MOBILE_MONEY,
        status=ChargeStatus.PENDING,
    ).exists()
    if not pending:
        logger.info("%s callback for %s: no pending live charge, ignored", network, charge_id)
        return _answer()
    try:
        services.charge_refresh(charge_id=charge_id)
    except Exception:  # the poller will check again; the operator must not retry for our fault
        logger.exception("%s callback for %s: status check failed", network, charge_id)
    return _answer()


@csrf_exempt
@require_POST
def airtel_callback(request: HttpRequest) -> JsonResponse:
    body = _json(request)
    if body is None:
        return _answer(400, error="invalid_json")
    key = settings.AIRTEL_CALLBACK_HASH_KEY
    if key and not callback_hash_valid(request.body, body, key):
        logger.warning("airtel callback refused: hash missing or wrong")
        return _answer(401, error="invalid_hash")
    transaction = body.get("transaction") if isinstance(body.get("transaction"), dict) else {}
    charge_id = str(transaction.get("id") or "")
    if not charge_id:
        return _answer(400, error="transaction_id_missing")
    return _check(charge_id, Network.AIRTEL_MONEY)


@csrf_exempt
@require_POST
def orange_callback(request: HttpRequest) -> JsonResponse:
    expected = settings.ORANGE_NOTIF_TOKEN
    if not expected:
        logger.warning("orange callback refused: ORANGE_NOTIF_TOKEN is not configured")
        return _answer(403, error="callbacks_not_configured")
    body = _json(request)
    if body is None:
        return _answer(400, error="invalid_json")
    token = request.GET.get("notif_token") or body.get("notif_token") or ""
    if not isinstance(token, str) or not hmac.compare_digest(token.encode(), expected.encode()):
        logger.warning("orange callback refused: wrong notif_token")
        return _answer(401, error="invalid_notif_token")
    charge_id = str(body.get("partnerTransactionId") or "")
    if not charge_id:
        return _answer(400, error="partner_transaction_id_missing")
    return _check(charge_id, Network.ORANGE_MONEY)
