"""/v1 charges, refunds, payouts, the balance and the networks: thin views that validate, call one
service or selector, and render."""

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from core import slots
from core.api.base import ApiView
from core.api.openapi import errors
from core.api.pagination import paginate, paginate_sequence
from core.errors import StatementsBusy
from payments import examples, pricing, schemas, selectors
from payments.representations import (
    CHARGE_REPR_FIELDS,
    balance_repr,
    balance_transaction_repr,
    charge_created_repr,
    charge_repr,
    network_prediction_repr,
    network_repr,
    payout_repr,
    pricing_repr,
    refund_repr,
    settlement_account_repr,
    settlement_repr,
)
from payments.serializers import (
    ChargeCreateIn,
    ChargeListQuery,
    LedgerExportQuery,
    LedgerListQuery,
    NetworkListQuery,
    NetworkPredictQuery,
    PageQuery,
    PayoutCreateIn,
    PayoutListQuery,
    RefundCreateIn,
    SettlementAccountCreateIn,
    SettlementCreateIn,
    SettlementListQuery,
)
from payments.services import charges, ledger, payouts, refunds, settlements
from payments.statement import EXPORT_CHUNK, STATEMENTS_AT_ONCE, rows_in_chunks, statement_lines


def _charges(rows) -> list[dict]:
    return [charge_repr(charge) for charge in rows]


class ChargeListCreateView(ApiView):
    @extend_schema(
        operation_id="charges_create",
        tags=["Charges"],
        summary="Create a charge",
        description=(
            "Mobile money (the default `payment_method`): a payment prompt is sent to the "
            "customer's phone and the charge answers `pending`; it becomes `succeeded`, `failed` "
            "or `declined` within minutes (follow it with GET or the webhook). Amounts are whole "
            "units (multiples of 100).\n\n"
            "Card (USD only): the answer carries `next_action`; post its `params` as hidden "
            "inputs to its `payment_url` from the customer's browser. No card data ever reaches "
            "this API."
        ),
        request=ChargeCreateIn,
        responses={201: schemas.CHARGE_CREATED, **errors(403)},
        examples=examples.CHARGE_CREATE,
    )
    def post(self, request):
        data = self.validated(ChargeCreateIn)
        charge = charges.charge_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(charge_created_repr(charge), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="charges_list",
        tags=["Charges"],
        summary="List charges",
        description="Your charges in this key's mode, newest first, with optional filters.",
        parameters=[ChargeListQuery],
        responses={200: schemas.ChargeList},
        examples=examples.CHARGE_LIST,
    )
    def get(self, request):
        query = self.validated(ChargeListQuery, data=self.query())
        # only the columns a charge shows, not the operator's answers
        charges = selectors.charge_list(
            merchant=self.merchant, livemode=self.livemode, query=query
        ).only(*CHARGE_REPR_FIELDS)
        scope = selectors.charges_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, charges, _charges, cursor_scope=scope))


class ChargeDetailView(ApiView):
    @extend_schema(
        operation_id="charges_retrieve",
        tags=["Charges"],
        summary="Retrieve a charge",
        description="The charge as it is now. Confirm `succeeded` here (or by the webhook) before "
        "you deliver.",
        responses={200: schemas.Charge},
        examples=examples.CHARGE_RETRIEVE,
    )
    def get(self, request, charge_id: str):
        charge = selectors.charge_get(
            merchant=self.merchant,
            livemode=self.livemode,
            charge_id=charge_id,
            fields=CHARGE_REPR_FIELDS,  # not the operator's answers, only what is shown
        )
        return Response(charge_repr(charge))


class TransactionDetailView(ChargeDetailView):
    """Same object as GET /v1/charges/{id}; used to poll a card payment for its final status."""

    @extend_schema(
        operation_id="transactions_retrieve",
        tags=["Charges"],
        summary="Retrieve a charge by its transaction id",
        description="The same charge as GET /v1/charges/{charge_id}: the `transaction_id` that "
        "a card payment adds to your `return_url` is the charge's id.",
        responses={200: schemas.Charge},
        examples=examples.CHARGE_RETRIEVE,
    )
    def get(self, request, charge_id: str):
        return super().get(request, charge_id)


def _refunds(rows) -> list[dict]:
    return [refund_repr(refund) for refund in rows]


class ChargeRefundListCreateView(ApiView):
    def _charge(self, charge_id: str):
        return selectors.charge_get(
            merchant=self.merchant, livemode=self.livemode, charge_id=charge_id
        )

    @extend_schema(
        operation_id="refunds_create",
        tags=["Refunds"],
        summary="Refund a charge",
        description=(
            "Give back all of a succeeded charge (omit `amount`) or part of it. The amount is "
            "taken from your available balance of the charge's mode and currency at once (400 "
            "balance_insufficient when it does not cover it: money paid out cannot be given back "
            "a second time). The refund answers `pending` and becomes `succeeded` or `failed`; a "
            "failed refund frees its amount again."
        ),
        request=RefundCreateIn,
        responses={201: schemas.Refund},
        examples=examples.REFUND_CREATE,
    )
    def post(self, request, charge_id: str):
        charge = self._charge(charge_id)
        data = self.validated(RefundCreateIn)
        refund = refunds.refund_create(charge=charge, **data)
        return Response(refund_repr(refund), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="charge_refunds_list",
        tags=["Refunds"],
        summary="List a charge's refunds",
        description="The refunds of one charge, newest first.",
        parameters=[PageQuery],
        responses={200: schemas.RefundList},
        examples=examples.REFUND_LIST,
    )
    def get(self, request, charge_id: str):
        charge = self._charge(charge_id)
        self.validated(PageQuery, data=self.query())
        return Response(paginate(request, selectors.refunds_of_charge(charge=charge), _refunds))


class RefundListView(ApiView):
    @extend_schema(
        operation_id="refunds_list",
        tags=["Refunds"],
        summary="List refunds",
        description="All your refunds in this key's mode, newest first.",
        parameters=[PageQuery],
        responses={200: schemas.RefundList},
        examples=examples.REFUND_LIST,
    )
    def get(self, request):
        self.validated(PageQuery, data=self.query())
        refunds_of = selectors.refunds_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, refunds_of, _refunds))


class RefundDetailView(ApiView):
    @extend_schema(
        operation_id="refunds_retrieve",
        tags=["Refunds"],
        summary="Retrieve a refund",
        description="The refund as it is now.",
        responses={200: schemas.Refund},
        examples=examples.REFUND_RETRIEVE,
    )
    def get(self, request, refund_id: str):
        refund = selectors.refund_get(
            merchant=self.merchant, livemode=self.livemode, refund_id=refund_id
        )
        return Response(refund_repr(refund))


# --- Payouts ---


def _payouts(rows) -> list[dict]:
    return [payout_repr(payout) for payout in rows]


class PayoutListCreateView(ApiView):
    @extend_schema(
        operation_id="payouts_create",
        tags=["Payouts"],
        summary="Create a payout",
        description=(
            "Send money from your available balance to a mobile money account. The amount is "
            "taken from the balance at once (400 balance_insufficient when it does not cover "
            "it) and given back if the payout fails. A live key pays out only while the "
            'owner\'s security setting "payouts by API" is on (403 api_payouts_disabled).'
        ),
        request=PayoutCreateIn,
        responses={201: schemas.Payout, **errors(403)},
        examples=examples.PAYOUT_CREATE,
    )
    def post(self, request):
        payouts.payout_by_api_check(
            merchant=self.merchant, livemode=self.livemode, api_key=self.principal.api_key
        )
        data = self.validated(PayoutCreateIn)
        payout = payouts.payout_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(payout_repr(payout), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="payouts_list",
        tags=["Payouts"],
        summary="List payouts",
        description="Your payouts in this key's mode, newest first, with optional filters.",
        parameters=[PayoutListQuery],
        responses={200: schemas.PayoutList},
        examples=examples.PAYOUT_LIST,
    )
    def get(self, request):
        query = self.validated(PayoutListQuery, data=self.query())
        payouts_of = selectors.payout_list(
            merchant=self.merchant, livemode=self.livemode, query=query
        )
        scope = selectors.payouts_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, payouts_of, _payouts, cursor_scope=scope))


def _key_name(principal) -> str:
    """Who acted through the API, as the audit log and the owners' mail say it."""
    return f"API key {principal.api_key.prefix}"


class SettlementAccountListCreateView(ApiView):
    @extend_schema(
        operation_id="settlement_accounts_create",
        tags=["Settlements"],
        summary="Add a settlement account",
        description=(
            "A bank account or your own mobile money wallet that settlements of one currency go "
            "to. The first account of a currency is its default. The full number is never shown "
            "again (last4). A new live account is on hold until available_from "
            "(SETTLEMENT_ACCOUNT_HOLD, two days by default), and every owner and admin is told "
            "by e-mail at once."
        ),
        request=SettlementAccountCreateIn,
        responses={201: schemas.SettlementAccount},
        examples=examples.SETTLEMENT_ACCOUNT_CREATE,
    )
    def post(self, request):
        data = self.validated(SettlementAccountCreateIn)
        account = settlements.account_add(
            merchant=self.merchant,
            livemode=self.livemode,
            added_by=_key_name(self.principal),
            **data,
        )
        return Response(settlement_account_repr(account), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="settlement_accounts_list",
        tags=["Settlements"],
        summary="List settlement accounts",
        description="Your settlement accounts in this key's mode, newest first.",
        parameters=[PageQuery],
        responses={200: schemas.SettlementAccountList},
        examples=examples.SETTLEMENT_ACCOUNT_LIST,
    )
    def get(self, request):
        self.validated(PageQuery, data=self.query())
        accounts = selectors.settlement_accounts_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, accounts, _accounts, cursor_scope=accounts))


class SettlementAccountDetailView(ApiView):
    @extend_schema(
        operation_id="settlement_accounts_delete",
        tags=["Settlements"],
        summary="Remove a settlement account",
        description="Settlements no longer go to it; its settlements keep it. When it was the "
        "default, the oldest remaining account of its currency becomes the default.",
        responses={200: schemas.Deleted},
        examples=examples.SETTLEMENT_ACCOUNT_DELETE,
    )
    def delete(self, request, account_id: str):
        account = settlements.account_get(
            merchant=self.merchant, livemode=self.livemode, account_id=account_id
        )
        settlements.account_remove(account=account, removed_by=_key_name(self.principal))
        return Response({"id": account.id, "object": "settlement_account", "deleted": True})


class SettlementListCreateView(ApiView):
    @extend_schema(
        operation_id="settlements_create",
        tags=["Settlements"],
        summary="Create a settlement",
        description=(
            "Move available balance to a settlement account. Amount and fee are taken from the "
            "available balance at once (400 balance_insufficient when it does not cover them) "
            "and given back if the settlement fails. The checks come in this order: live "
            "approval (403 live_mode_not_approved), the account (400 "
            "settlement_account_missing, then settlement_account_on_hold), the balance."
        ),
        request=SettlementCreateIn,
        responses={201: schemas.Settlement, **errors(403)},
        examples=examples.SETTLEMENT_CREATE,
    )
    def post(self, request):
        data = self.validated(SettlementCreateIn)
        settlement = settlements.settlement_create(
            merchant=self.merchant,
            livemode=self.livemode,
            currency=data["currency"],
            amount=data.get("amount"),
            account_id=data.get("settlement_account"),
        )
        return Response(settlement_repr(settlement), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="settlements_list",
        tags=["Settlements"],
        summary="List settlements",
        description="Your settlements in this key's mode, newest first, with optional filters.",
        parameters=[SettlementListQuery],
        responses={200: schemas.SettlementList},
        examples=examples.SETTLEMENT_LIST,
    )
    def get(self, request):
        query = self.validated(SettlementListQuery, data=self.query())
        found = selectors.settlement_list(
            merchant=self.merchant, livemode=self.livemode, query=query
        )
        scope = selectors.settlements_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, found, _settlements, cursor_scope=scope))


class SettlementDetailView(ApiView):
    @extend_schema(
        operation_id="settlements_retrieve",
        tags=["Settlements"],
        summary="Retrieve a settlement",
        description="The settlement as it is now.",
        responses={200: schemas.Settlement},
        examples=examples.SETTLEMENT_RETRIEVE,
    )
    def get(self, request, settlement_id: str):
        settlement = selectors.settlement_get(
            merchant=self.merchant, livemode=self.livemode, settlement_id=settlement_id
        )
        return Response(settlement_repr(settlement))


def _accounts(rows) -> list[dict]:
    return [settlement_account_repr(account) for account in rows]


def _settlements(rows) -> list[dict]:
    return [settlement_repr(settlement) for settlement in rows]


class PayoutDetailView(ApiView):
    @extend_schema(
        operation_id="payouts_retrieve",
        tags=["Payouts"],
        summary="Retrieve a payout",
        description="The payout as it is now.",
        responses={200: schemas.Payout},
        examples=examples.PAYOUT_RETRIEVE,
    )
    def get(self, request, payout_id: str):
        payout = selectors.payout_get(
            merchant=self.merchant, livemode=self.livemode, payout_id=payout_id
        )
        return Response(payout_repr(payout))


# --- Balance and ledger ---


def _entries(rows) -> list[dict]:
    return [balance_transaction_repr(entry) for entry in rows]


class BalanceView(ApiView):
    @extend_schema(
        operation_id="balance_retrieve",
        tags=["Balance"],
        summary="Retrieve the balance",
        description="The balance per currency in this key's mode, the net of its "
        "transactions (succeeded charges less their fees, less refunds, payouts and their "
        "fees): available now, and pending until each charge's available_on.",
        responses={200: schemas.Balance},
        examples=examples.BALANCE_RETRIEVE,
    )
    def get(self, request):
        sums = selectors.balance_sums(merchant=self.merchant, livemode=self.livemode)
        ledger.ledger_checkpoints_ask(
            merchant_id=self.merchant.pk, livemode=self.livemode, sums=sums
        )
        return Response(balance_repr(livemode=self.livemode, sums=sums))


class PricingView(ApiView):
    @extend_schema(
        operation_id="pricing_retrieve",
        tags=["Balance"],
        summary="Retrieve the price plan",
        description="The rates of the merchant's plan, the same in test and live mode: a fee "
        "is round half up of amount × rate_bp / 10000, plus fixed, never more than the amount; "
        "the most specific rate applies (the network's, else the payment method's, else the "
        "kind's).",
        responses={200: schemas.Pricing},
        examples=examples.PRICING_RETRIEVE,
    )
    def get(self, request):
        return Response(pricing_repr(livemode=self.livemode, plan=pricing.plan_of(self.merchant)))


class BalanceTransactionListView(ApiView):
    @extend_schema(
        operation_id="balance_transactions_list",
        tags=["Balance"],
        summary="List balance transactions",
        description="Every movement of the balance, newest first: what each charge, refund and "
        "payout added or took.",
        parameters=[LedgerListQuery],
        responses={200: schemas.BalanceTransactionList},
        examples=examples.BALANCE_TRANSACTION_LIST,
    )
    def get(self, request):
        filters = self.validated(LedgerListQuery, data=self.query())
        queryset = selectors.ledger_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        scope = selectors.ledger_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _entries, cursor_scope=scope))


class BalanceTransactionExportView(ApiView):
    @extend_schema(
        operation_id="balance_transactions_export",
        tags=["Balance"],
        summary="Export balance transactions as CSV",
        description="The same movements as a CSV statement (UTF-8, one header line, oldest "
        "first), for your accounting.",
        parameters=[LedgerExportQuery],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="The statement.")
        },
    )
    def get(self, request):
        filters = self.validated(LedgerExportQuery, data=self.query())
        rows = selectors.ledger_export_rows(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        # A thread writes a long statement for as long as its client reads it: a few at once
        # per account and mode, so that no key can hold every thread (core/slots.py).
        slot = slots.take("statement", f"{self.merchant.pk}:{self.livemode:d}", STATEMENTS_AT_ONCE)
        if slot is None:
            raise StatementsBusy(headers={"Retry-After": "5"}, params={"count": STATEMENTS_AT_ONCE})
        response = StreamingHttpResponse(
            slot.holding(statement_lines(rows_in_chunks(rows, chunk=EXPORT_CHUNK))),
            content_type="text/csv; charset=utf-8",
        )
        mode = "live" if self.livemode else "test"
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = (
            f'attachment; filename="balance-transactions-{mode}-{stamp}.csv"'
        )
        return response


# --- Networks ---


class NetworkListView(ApiView):
    @extend_schema(
        operation_id="networks_list",
        tags=["Networks"],
        summary="List the networks",
        description="Each mobile money network in this key's mode: whether it takes payments now "
        "(operational, degraded, closed), the amounts it takes per currency, whether it pays "
        "out. Offer your customers the networks that are not closed and take the amount. "
        "Always in the same order; every network fits in the default page.",
        parameters=[NetworkListQuery],
        responses={200: schemas.NetworkList},
        examples=examples.NETWORK_LIST,
    )
    def get(self, request):
        self.validated(NetworkListQuery, data=self.query())
        overview = selectors.network_overview(livemode=self.livemode)
        return Response(
            paginate_sequence(
                request,
                overview,
                lambda rows: [network_repr(item, livemode=self.livemode) for item in rows],
            )
        )


class NetworkPredictView(ApiView):
    @extend_schema(
        operation_id="networks_predict",
        tags=["Networks"],
        summary="Predict the network of a phone number",
        description="The number as typed by a customer, in E.164, and the operator its prefix "
        "belongs to (400 phone_invalid when it is no DRC mobile number).",
        parameters=[NetworkPredictQuery],
        responses={200: schemas.NetworkPrediction},
        examples=examples.NETWORK_PREDICT,
    )
    def get(self, request):
        data = self.validated(NetworkPredictQuery, data=self.query())
        return Response(network_prediction_repr(data["phone"]))
