"""Test data, built through the same services and API the service itself uses: merchants and their
keys, staff users, charges in any state, refunds, payouts, settlements, checkout sessions and
events.

Every builder of the suite lives here; a test module only says what it needs of the data."""

import base64
import contextlib
import json
import secrets
from datetime import datetime, timedelta

import factory
import time_machine
from allauth.mfa.models import Authenticator
from allauth.mfa.utils import encrypt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client, override_settings

from checkout import services as checkout_services
from payments.models import Charge, Merchant, Payout, Settlement, SettlementAccount
from payments.providers.base import ProviderOutcome, RefundRequest
from payments.services import accounts, charges
from payments.services import payouts as payout_services
from payments.services import settlements as settlement_services

PHONE = "+243812345678"
# What a charge is made of unless a test says otherwise.
MOBILE_MONEY = {"amount": 5000, "currency": "CDF", "phone": PHONE, "network": "VODACOM_MPESA"}
CARD = {"amount": 1999, "currency": "USD", "payment_method": "card"}
CARD_REFERENCE = "6421589017086000001"


# --- Merchants, keys, staff --------------------------------------------------------------------


class MerchantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Merchant

    name = factory.Sequence(lambda n: f"Merchant {n}")
    live_approved = False
    card_rail_enabled = True


def merchant_with_keys(**kwargs):
    """A merchant and the plaintext of one test and one live key."""
    created = accounts.merchant_create(name=kwargs.pop("name", "Boutique Gombe"), **kwargs)
    return created


def with_support_contact(merchant, *, email: str = "", phone: str = "") -> Merchant:
    """The merchant once staff set its customer support contact (as the admin's form saves it)."""
    merchant.support_email, merchant.support_phone = email, phone
    merchant.full_clean()
    merchant.save(update_fields=["support_email", "support_phone"])
    return merchant


def with_totp(user):
    """The user once they have set up TOTP at /accounts/2fa/ (allauth's authenticator, its
    secret kept as allauth keeps it); the secret is `user.totp_secret`."""
    secret = base64.b32encode(secrets.token_bytes(20)).decode()
    Authenticator.objects.create(
        user=user, type=Authenticator.Type.TOTP, data={"secret": encrypt(secret)}
    )
    user.totp_secret = secret
    return user


def staff_user(username: str = "staff", password: str = "pw-123-long"):
    """A superuser of the admin, signing in as `{username}@example.cd` with TOTP set up."""
    user = get_user_model().objects.create_superuser(username, f"{username}@example.cd", password)
    return with_totp(user)


def staff_client(username: str = "staff") -> Client:
    """A browser signed in to the admin as a superuser (with their second factor)."""
    client = Client()
    client.force_login(staff_user(username))
    return client


# --- Charges, through the services -------------------------------------------------------------


def _at(moment: datetime | None):
    """Time frozen at `moment`, or left alone."""
    return time_machine.travel(moment, tick=False) if moment else contextlib.nullcontext()


def make_charge(
    merchant,
    *,
    livemode: bool = False,
    at: datetime | None = None,
    status: str = "pending",
    failure_code: str | None = None,
    **fields,
) -> Charge:
    """A charge created by the service: 5000 CDF by VODACOM_MPESA, or with payment_method="card"
    1999 USD by card, unless `fields` say otherwise. Created at `at` if given. A status other
    than pending is reached through the state machine, failing with `provider_error` unless
    `failure_code` says otherwise."""
    values = {**(CARD if fields.get("payment_method") == "card" else MOBILE_MONEY), **fields}
    with _at(at):
        created = charges.charge_create(merchant=merchant, livemode=livemode, **values)
        if status == "pending":
            return created
        if failure_code is None:
            failure_code = "" if status == "succeeded" else "provider_error"
        return settle(created, status, failure_code)


def settle(charge: Charge, status: str, failure_code: str = "", **outcome) -> Charge:
    """The charge as a provider's answer (`status`, `failure_code`, `outcome`) leaves it."""
    return charges.charge_apply_outcome(
        charge_id=charge.id,
        outcome=ProviderOutcome(status=status, failure_code=failure_code, **outcome),
    )


def settled_charge(merchant, *, status: str = "succeeded", **fields) -> Charge:
    """A mobile money charge that reached `status` through the state machine."""
    return make_charge(merchant, status=status, **fields)


def prompt_sent(charge: Charge, *, at: datetime | None = None) -> Charge:
    """The charge once its payment request reached the provider (the request task's work), as
    it then stands."""
    with _at(at):
        charges.charge_request_payment(charge_id=charge.id)
    return Charge.objects.get(pk=charge.id)


def sent_charge(merchant, *, at: datetime | None = None, **fields) -> Charge:
    """A mobile money charge created at `at` whose prompt the provider received then."""
    return prompt_sent(make_charge(merchant, at=at, **fields), at=at)


def timed_out_charge(merchant, *, at: datetime, **fields) -> Charge:
    """Created and sent at `at`; the status check at the prompt's deadline hears nothing from the
    customer, so the charge fails with `timeout`."""
    sent = sent_charge(merchant, at=at, **fields)
    deadline = at + timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT)
    with _at(deadline):
        failed = charges.charge_refresh(charge_id=sent.id)
    assert (failed.status, failed.failure_code) == ("failed", "timeout")
    return failed


def succeeded_mobile_money_charge(
    merchant, *, amount: int = 10000, currency: str = "CDF", **fields
):
    """A test mode mobile money charge paid through the sandbox operator (prompt sent, status
    checked)."""
    created = make_charge(merchant, amount=amount, currency=currency, **fields)
    return sandbox_paid(created.id)


def sandbox_paid(charge_id: str) -> Charge:
    """A pending test mode mobile money charge (to a number the sandbox accepts) as the sandbox
    operator leaves it once the customer has approved: prompt sent, status checked, succeeded."""
    with override_settings(SANDBOX_MOBILE_MONEY_DELAY=0):
        charges.charge_request_payment(charge_id=charge_id)
        paid = charges.charge_refresh(charge_id=charge_id)
    assert paid.status == "succeeded"
    return paid


def succeeded_card_charge(merchant, *, amount: int = 1999, **fields) -> Charge:
    """A test mode card charge whose provider status check answered ACCEPT."""
    created = make_charge(merchant, payment_method="card", amount=amount, **fields)
    paid = settle(created, "succeeded", provider_reference=CARD_REFERENCE)
    assert paid.status == "succeeded"
    return paid


def succeeded_live_charge(merchant, *, amount: int = 10000, currency: str = "CDF") -> Charge:
    """A live mobile money charge its operator reported paid (the sandbox operator standing in
    for the live one). Approves the merchant for live mode."""
    merchant.live_approved = True
    merchant.save(update_fields=["live_approved"])
    sandbox = {"VODACOM_MPESA": "sandbox.providers.SandboxMobileMoney"}
    with override_settings(PAYMENT_PROVIDERS={**settings.PAYMENT_PROVIDERS, "live": sandbox}):
        created = make_charge(merchant, livemode=True, amount=amount, currency=currency)
    return settle(created, "succeeded", provider_reference="MP1")


# --- Charges, through the API ------------------------------------------------------------------


def _charge_answer(client, body: dict) -> dict:
    """POST /v1/charges: the 201 answer, in the mode of the client's key."""
    response = client.post("/v1/charges", body, format="json")
    assert response.status_code == 201, response.content
    live_key = "Bearer sk_live_" in client._credentials.get("HTTP_AUTHORIZATION", "")
    assert response.json()["livemode"] is live_key
    return response.json()


def charge_via_api(client, **body) -> Charge:
    """A charge made by POST /v1/charges with `body`, as stored."""
    return Charge.objects.get(pk=_charge_answer(client, body)["id"])


def card_charge_via_api(client, *, amount: int = 1999, **extra) -> dict:
    """A card charge made by POST /v1/charges: the API's answer, whose next_action is the form
    the merchant's page posts to the card provider."""
    return _charge_answer(client, {**CARD, "amount": amount, **extra})


def pending_refund_via_api(client, charge: Charge, amount: int | None = None) -> dict:
    """A refund asked by POST /v1/charges/{id}/refunds that the provider has not answered yet
    (a live provider answers after the request's commit): the API's answer."""
    body = {} if amount is None else {"amount": amount}
    response = client.post(f"/v1/charges/{charge.id}/refunds", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "pending"
    return response.json()


# --- Live charges paid at a local fake provider ------------------------------------------------


def paid_live_card_charge(cybersource, client) -> Charge:
    """A live card charge the customer paid on the fake CyberSource's hosted page, as the status
    search then finds it."""
    body = card_charge_via_api(client)
    cybersource.pay(body["next_action"]["params"], "accept")
    paid = charges.charge_refresh(charge_id=body["id"])
    assert paid.status == "succeeded"
    return paid


def checked_live_charge(client, **body) -> Charge:
    """A live mobile money charge sent to its operator and checked until it left pending (or
    five checks)."""
    created = charge_via_api(client, **body)
    charges.charge_request_payment(charge_id=created.id)
    for _ in range(5):
        checked = charges.charge_refresh(charge_id=created.id)
        if checked.status != "pending":
            break
    return checked


def paid_orange_charge(orange, client, **body) -> Charge:
    """A live Orange Money charge the customer confirmed on the handset: Orange's callback, then
    the status check it queued."""
    created = charge_via_api(client, **body)
    charges.charge_request_payment(charge_id=created.id)
    callback = Client(enforce_csrf_checks=True).post(  # Orange's server sends no CSRF token
        "/providers/orange_money/callback",
        json.dumps(orange.answer(created.id)),
        content_type="application/json",
        HTTP_AUTHORIZATION=settings.ORANGE_CALLBACK_AUTHORIZATION,
    )
    assert callback.status_code == 200
    charges.charge_refresh(charge_id=created.id)  # the status check the callback queued
    assert client.get(f"/v1/charges/{created.id}").json()["status"] == "succeeded"
    return Charge.objects.get(pk=created.id)


def answered_mpesa_charge(mpesa, client, code: str, **body) -> Charge:
    """A live M-Pesa charge whose customer's PIN entry ends with `code`, as it then stands."""
    mpesa.pin_entry[body["phone"].removeprefix("+")] = code
    created = charge_via_api(client, **body)
    charges.charge_request_payment(charge_id=created.id)
    return Charge.objects.get(pk=created.id)


# --- Networks ----------------------------------------------------------------------------------


def close_network(network: str, *, livemode: bool = False, reason: str = "Operator outage"):
    """`network` closed by staff in one mode, as the admin closes it."""
    from payments.services.networks import network_set_closed

    return network_set_closed(
        network=network, livemode=livemode, closed=True, reason=reason, by="staff"
    )


def settled_charges(
    merchant, network: str, outcomes: dict[str, int], *, livemode: bool = False, at=None
) -> None:
    """Mobile money charges on `network` settled through the state machine (at `at`, or now):
    `outcomes` maps "succeeded", "declined" or a failure code ("provider_error", "timeout") to
    how many of them."""
    phone = {"VODACOM_MPESA": PHONE, "AIRTEL_MONEY": "+243971234567"}.get(network, "+243851234567")
    for outcome, count in outcomes.items():
        status = outcome if outcome in ("succeeded", "declined") else "failed"
        code = {"succeeded": "", "declined": "insufficient_funds"}.get(outcome, outcome)
        for _ in range(count):
            make_charge(
                merchant,
                livemode=livemode,
                at=at,
                status=status,
                failure_code=code,
                phone=phone,
                network=network,
            )


# --- Payouts -----------------------------------------------------------------------------------


def sent_payout(
    merchant,
    *,
    amount: int = 5000,
    currency: str = "CDF",
    phone: str = PHONE,
    network: str = "VODACOM_MPESA",
    **fields,
) -> Payout:
    """A test mode payout from the merchant's balance (which must hold it), handed to the sandbox
    operator, which has not answered yet: pending, its next status check planned."""
    created = payout_services.payout_create(
        merchant=merchant,
        livemode=False,
        amount=amount,
        currency=currency,
        phone=phone,
        network=network,
        **fields,
    )
    sent = payout_services.payout_send(payout_id=created.id)
    assert sent.status == "pending" and sent.provider_requested_at is not None
    return sent


def payout_waiting_for_staff(merchant, **fields) -> Payout:
    """A sent payout whose operator said nothing until its status checks ended: pending, no
    next check, for staff to settle with what the operator confirmed."""
    sent = sent_payout(merchant, **fields)
    later = sent.provider_requested_at + timedelta(seconds=settings.RECONCILIATION_WINDOW + 1)
    with _at(later):
        waiting = payout_services.payout_apply_outcome(
            payout_id=sent.id, outcome=ProviderOutcome(status="pending", raw={"error": "HTTP 503"})
        )
    assert waiting.status == "pending" and waiting.next_check_at is None
    return waiting


# --- Settlements -------------------------------------------------------------------------------

BANK_NUMBER = "05012345678904821"


def live_bank_account(
    merchant,
    *,
    currency: str = "CDF",
    account_number: str = BANK_NUMBER,
    account_holder: str = "Boutique Gombe SARL",
    bank_name: str = "Rawbank",
    swift: str = "RAWBCDKI",
) -> SettlementAccount:
    """A live bank settlement account of the merchant, added as the API adds one, past its hold
    (added with none)."""
    with override_settings(SETTLEMENT_ACCOUNT_HOLD=0):
        return settlement_services.account_add(
            merchant=merchant,
            livemode=True,
            type="bank_account",
            currency=currency,
            bank_name=bank_name,
            account_holder=account_holder,
            account_number=account_number,
            swift=swift,
        )


def live_bank_settlement(
    merchant,
    *,
    amount: int = 10000,
    currency: str = "CDF",
    account: SettlementAccount | None = None,
) -> Settlement:
    """A pending live settlement of `amount` to a bank account (the currency's default, a live
    bank account added if it has none), its amount and fee first paid into the live balance by
    a live charge: waiting for staff to put it in a bank transfer file."""
    if account is None:
        account = SettlementAccount.objects.filter(
            merchant=merchant, livemode=True, currency=currency, is_default=True
        ).first() or live_bank_account(merchant, currency=currency)
    fee = settlement_services.settlement_fee(merchant=merchant, account=account, amount=amount)
    succeeded_live_charge(merchant, amount=amount + fee, currency=currency)
    return settlement_services.settlement_create(
        merchant=merchant,
        livemode=True,
        currency=currency,
        amount=amount,
        account_id=account.pk,
    )


def exported_bank_settlement(merchant, *, staff: str = "exporter", **fields) -> Settlement:
    """A live bank settlement in a bank transfer file `staff` exported: in transit, waiting for
    the bank's answer."""
    pending = live_bank_settlement(merchant, **fields)
    _reference, (exported,) = settlement_services.settlement_bank_export(
        settlement_ids=[pending.pk], staff=staff
    )
    assert exported.status == "in_transit"
    return exported


# --- Refunds, checkout sessions, events --------------------------------------------------------


def refund_request(
    charge: Charge, *, amount: int | None = None, refund_id: str = "re_test000000000000000000001"
) -> RefundRequest:
    """What the core hands a provider adapter to refund (part of) `charge`."""
    return RefundRequest(
        refund_id=refund_id,
        charge_id=charge.id,
        amount=amount or charge.amount,
        charge_amount=charge.amount,
        currency=charge.currency,
        provider_reference=charge.provider_reference,
        phone=charge.phone,
        network=charge.network,
    )


def make_session(merchant, **fields):
    """A test mode checkout session of 250000 CDF, made by the service the API uses."""
    values = {
        "livemode": False,
        "amount": 250000,
        "currency": "CDF",
        "success_url": "https://shop.example.cd/merci?order=42",
        "cancel_url": "https://shop.example.cd/panier",
        **fields,
    }
    return checkout_services.session_create(merchant=merchant, **values)


def record_event(merchant, *, url: str = "", livemode: bool = False, type="charge.succeeded"):
    """An event of a charge, written as a state change writes it (with its delivery to `url`)."""
    from webhooks.services import event_record

    with transaction.atomic():
        return event_record(
            merchant=merchant,
            livemode=livemode,
            type=type,
            data={"id": "ch_test", "object": "charge", "livemode": livemode},
            destination_url=url,
        )


def event_with_id(merchant, event_id: str):
    """An event written with the id given: one whose random part reads like the admin's quoting
    of a character (`evt_5F…`, `evt_2F…`) shows whether an id survives the admin's addresses."""
    from webhooks.models import Event

    return Event.objects.create(
        id=event_id,
        merchant=merchant,
        type="charge.succeeded",
        data={"id": "ch_test", "object": "charge", "livemode": False},
    )


def expire_session(session) -> None:
    """The session's expiry as the state machine applies it (e.g. data from before the rule)."""
    from checkout.models import SessionStatus

    with transaction.atomic():
        checkout_services._session_transition(session_id=session.id, to=SessionStatus.EXPIRED)


# --- Everything the API can show -----------------------------------------------------------------


def one_of_everything(merchant, *, webhook_url: str) -> dict:
    """One object of each kind in each state the API can show (mobile money and card charges,
    pending, paid, failed, declined; refunds, a payout, ledger rows; open, complete and expired
    checkout sessions), with the events they wrote, their deliveries to `webhook_url` and one
    attempt of each: what the API's description is checked against. Returns them by name."""
    from payments.services import payouts, refunds
    from webhooks import services as webhook_services
    from webhooks.models import Delivery, Event

    webhook_services.endpoint_set_url(merchant=merchant, livemode=False, url=webhook_url)
    paid = succeeded_mobile_money_charge(
        merchant, amount=250000, description="Commande 42", metadata={"order": "42"}
    )
    card_paid = succeeded_card_charge(merchant)
    complete = make_session(merchant, customer_phone=PHONE, metadata={"order": "43"})
    attempt = checkout_services.session_attempt_create(
        session_id=complete.id, payment_method="mobile_money", phone=PHONE, network="VODACOM_MPESA"
    )
    expired = make_session(merchant, customer_email="client@example.cd")
    expire_session(expired)
    objects = {
        "paid": paid,
        "card_paid": card_paid,
        "pending": make_charge(merchant, callback_url="https://shop.example.cd/hooks"),
        "card_pending": make_charge(merchant, payment_method="card"),
        "failed": make_charge(merchant, status="failed"),
        "declined": make_charge(merchant, status="declined", failure_code="insufficient_funds"),
        "from_session": settle(attempt, "succeeded"),
        "refund": refunds.refund_create(
            charge=paid, amount=2500, reason="requested_by_customer", metadata={"ticket": "T-9"}
        ),
        "full_refund": refunds.refund_create(charge=card_paid),
        "payout": payouts.payout_create(
            merchant=merchant,
            livemode=False,
            amount=100000,
            currency="CDF",
            phone="+243971234567",
            network="AIRTEL_MONEY",
            description="Versement fournisseur",
        ),
        "open": make_session(merchant),
        "complete": complete,
        "expired": expired,
    }
    for delivery in Delivery.objects.filter(event__merchant=merchant):
        webhook_services.delivery_attempt(delivery_id=delivery.pk)
    objects["event"] = Event.objects.filter(merchant=merchant).order_by("created_at").first()
    return objects


def statement_with_a_difference():
    """A test-mode M-Pesa statement whose one line names nothing of ours: a statement, its
    line and an open difference for staff (§21)."""
    from payments.services.reconciliation import statement_load

    return statement_load(
        network="VODACOM_MPESA",
        livemode=False,
        content=b"operator_reference,merchant_reference,type,amount,currency,status,completed_at,"
        b"fee\nMP-UNKNOWN-1,,collection,5000,CDF,succeeded,2026-12-01T10:00:00Z,0\n",
    ).statement
