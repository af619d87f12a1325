"""Examples shown by the API reference (/v1/docs) for charges, refunds, payouts and the balance:
real bodies, as the API sends them (a test checks each against its schema). The events'
examples (webhooks/api/schemas.py) show the charge."""

from core.api.examples import answer, page, request

CHARGE_ID = "ch_4fQm2Lr8TzVb6NcXw1JkHs0P"
CARD_CHARGE_ID = "ch_9VbT3kWq7Yx1Lm5NpZc2Rd8F"

MOBILE_MONEY_REQUEST = {
    "amount": 250000,
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
    "description": "Commande 42",
    "metadata": {"order": "42"},
    "callback_url": "https://shop.example.cd/hooks",
}
CARD_REQUEST = {
    "amount": 1999,
    "currency": "USD",
    "payment_method": "card",
    "return_url": "https://shop.example.cd/merci",
}

MOBILE_MONEY_CREATED = {
    "id": CHARGE_ID,
    "object": "charge",
    "livemode": False,
    "amount": 250000,
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
    "status": "pending",
    "description": "Commande 42",
    "metadata": {"order": "42"},
    "created_at": "2026-11-21T09:30:12.482913Z",
    "updated_at": "2026-11-21T09:30:12.482913Z",
}
NEXT_ACTION = {
    "type": "provider_redirect",
    "payment_url": "https://pay.example.cd/sandbox/card/pay",
    "params": {
        "access_key": "sandbox0access0key0000000000000001",
        "profile_id": "SANDBOX-PROFILE-1",
        "transaction_uuid": "5f0c9a7e2b8d4e61a3c4f2d1b0e9a8c7",
        "signed_field_names": "access_key,profile_id,transaction_uuid,signed_field_names,"
        "unsigned_field_names,signed_date_time,locale,transaction_type,reference_number,amount,"
        "currency,override_custom_receipt_page,override_custom_cancel_page",
        "unsigned_field_names": "",
        "signed_date_time": "2026-11-21T09:31:02Z",
        "locale": "fr",
        "transaction_type": "sale",
        "reference_number": CARD_CHARGE_ID,
        "amount": "19.99",
        "currency": "USD",
        "override_custom_receipt_page": "https://pay.example.cd/card/receipt",
        "override_custom_cancel_page": "https://pay.example.cd/card/receipt",
        "signature": "kq5B9xPz0m3Vt7rL2cWn8YhJ4fD6sA1eGuQoRiTbN0E=",
    },
}
CARD_CREATED = {
    "id": CARD_CHARGE_ID,
    "object": "charge",
    "livemode": False,
    "status": "pending",
    "amount": 1999,
    "currency": "USD",
    "payment_method": "card",
    "next_action": NEXT_ACTION,
}
CHARGE = {
    "id": CHARGE_ID,
    "object": "charge",
    "livemode": False,
    "amount": 250000,
    "currency": "CDF",
    "payment_method": "mobile_money",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
    "status": "succeeded",
    "description": "Commande 42",
    "metadata": {"order": "42"},
    "amount_refunded": 0,
    "fee": 7500,
    "net": 242500,
    "failure_code": None,
    "failure_message": None,
    "operator_reference": "sbx_8KdV2nQ4wLm7XpR1tYc5Hb3Z",
    "checkout_session": None,
    "created_at": "2026-11-21T09:30:12.482913Z",
    "updated_at": "2026-11-21T09:30:19.107254Z",
}
REFUND = {
    "id": "re_2HkQ8sVn5LxB0wTz7MpC3fYd",
    "object": "refund",
    "livemode": False,
    "charge_id": CHARGE_ID,
    "amount": 2500,
    "currency": "CDF",
    "status": "pending",
    "reason": "requested_by_customer",
    "metadata": {"ticket": "T-9"},
    "failure_code": None,
    "failure_message": None,
    "operator_reference": None,
    "created_at": "2026-11-22T14:05:41.550120Z",
    "updated_at": "2026-11-22T14:05:41.550120Z",
}
PAYOUT = {
    "id": "po_7RtY2mKp9QwX4nBv1LsD6cHz",
    "object": "payout",
    "livemode": False,
    "amount": 100000,
    "currency": "CDF",
    "phone": "+243971234567",
    "network": "AIRTEL_MONEY",
    "status": "pending",
    "description": "Versement fournisseur",
    "metadata": {},
    "failure_code": None,
    "failure_message": None,
    "operator_reference": None,
    "created_at": "2026-11-23T08:00:03.000417Z",
    "updated_at": "2026-11-23T08:00:03.000417Z",
}
BALANCE = {
    "object": "balance",
    "livemode": False,
    "available": [{"currency": "CDF", "amount": 142500}, {"currency": "USD", "amount": 1891}],
    "pending": [{"currency": "CDF", "amount": 0}, {"currency": "USD", "amount": 0}],
}
BALANCE_TRANSACTION = {
    "id": "txn_5JmW8qZr1TvK3xNc7BpL0sYf",
    "object": "balance_transaction",
    "livemode": False,
    "type": "charge",
    "amount": 250000,
    "fee": 7500,
    "net": 242500,
    "fee_details": [{"type": "processing_fee", "amount": 7500, "currency": "CDF"}],
    "currency": "CDF",
    "source": CHARGE_ID,
    "settlement": None,
    "available_on": "2026-11-21T09:30:19.107254Z",
    "created_at": "2026-11-21T09:30:19.107254Z",
}
PRICING = {
    "object": "pricing",
    "livemode": False,
    "rates": [
        {
            "kind": "charge",
            "payment_method": "card",
            "network": None,
            "currency": "USD",
            "rate_bp": 390,
            "fixed": 30,
            "available_after_days": 0,
        },
        {
            "kind": "charge",
            "payment_method": "mobile_money",
            "network": None,
            "currency": "CDF",
            "rate_bp": 300,
            "fixed": 0,
            "available_after_days": 0,
        },
        {
            "kind": "payout",
            "payment_method": "mobile_money",
            "network": None,
            "currency": "CDF",
            "rate_bp": 150,
            "fixed": 0,
            "available_after_days": 0,
        },
    ],
}


CHARGE_CREATE = [
    request("Mobile money", MOBILE_MONEY_REQUEST, "A prompt on the customer's phone"),
    request("Card", CARD_REQUEST, "The customer pays on the card provider's page"),
    answer("Mobile money charge", MOBILE_MONEY_CREATED, 201),
    answer("Card charge", CARD_CREATED, 201),
]
CHARGE_RETRIEVE = [answer("Succeeded charge", CHARGE)]
CHARGE_LIST = [answer("Charges", page("/v1/charges", CHARGE))]
REFUND_CREATE = [
    request(
        "Partial refund",
        {"amount": 2500, "reason": "requested_by_customer", "metadata": {"ticket": "T-9"}},
    ),
    request("Full refund", {}, "amount omitted: what remains refundable"),
    answer("Refund", REFUND, 201),
    answer(
        "balance_insufficient",
        {
            "error": {
                "type": "invalid_request_error",
                "code": "balance_insufficient",
                "message": "The available CDF balance is 0, less than the refund of 2500.",
                "param": "amount",
                "request_id": "req_8Jq2mV0cXw4LbT1sYfN6aKpE",
            }
        },
        400,
        "The available balance of the charge's currency cannot cover the refund",
    ),
]
REFUND_RETRIEVE = [answer("Refund", REFUND)]
REFUND_LIST = [answer("Refunds", page("/v1/refunds", REFUND))]
PAYOUT_CREATE = [
    request(
        "Payout",
        {
            "amount": 100000,
            "currency": "CDF",
            "phone": "+243971234567",
            "network": "AIRTEL_MONEY",
            "description": "Versement fournisseur",
        },
    ),
    answer("Payout", PAYOUT, 201),
]
PAYOUT_RETRIEVE = [answer("Payout", PAYOUT)]
SETTLEMENT_ACCOUNT = {
    "id": "sa_4TbN7vQx2KmW9rLc5JhP8zYd",
    "object": "settlement_account",
    "livemode": False,
    "type": "bank_account",
    "currency": "USD",
    "bank_name": "Rawbank",
    "account_holder": "Boutique Gombe SARL",
    "last4": "4821",
    "default": True,
    "available_from": "2026-11-21T09:30:12.482913Z",
    "created_at": "2026-11-21T09:30:12.482913Z",
}
SETTLEMENT = {
    "id": "stl_8QwE3rTy6UiO1pAs4DfG7hJk",
    "object": "settlement",
    "livemode": False,
    "amount": 240000,
    "fee": 1000,
    "currency": "USD",
    "settlement_account": {
        "id": SETTLEMENT_ACCOUNT["id"],
        "type": "bank_account",
        "bank_name": "Rawbank",
        "last4": "4821",
    },
    "method": "manual",
    "status": "in_transit",
    "reference": "CONGOPAY 8QWE3RTY6UIO",
    "operator_reference": None,
    "failure_code": None,
    "failure_message": None,
    "arrival_estimate": "2026-11-21T09:30:17.482913Z",
    "created_at": "2026-11-21T09:30:12.482913Z",
    "updated_at": "2026-11-21T09:30:12.482913Z",
}
SETTLEMENT_ACCOUNT_CREATE = [
    request(
        "Bank account",
        {
            "type": "bank_account",
            "currency": "USD",
            "bank_name": "Rawbank",
            "account_holder": "Boutique Gombe SARL",
            "account_number": "0501 2345 6789 4821",
            "swift": "RAWBCDKI",
        },
    ),
    request(
        "Own mobile money wallet",
        {
            "type": "mobile_money",
            "currency": "CDF",
            "phone": "+243812345678",
            "network": "VODACOM_MPESA",
        },
    ),
    answer("Settlement account", SETTLEMENT_ACCOUNT, 201),
]
SETTLEMENT_ACCOUNT_LIST = [
    answer("Settlement accounts", page("/v1/settlement_accounts", SETTLEMENT_ACCOUNT))
]
SETTLEMENT_ACCOUNT_DELETE = [
    answer(
        "Removed",
        {"id": SETTLEMENT_ACCOUNT["id"], "object": "settlement_account", "deleted": True},
    )
]
SETTLEMENT_CREATE = [
    request("All that is available", {"currency": "USD"}),
    request(
        "An amount, to an account",
        {"currency": "USD", "amount": 100000, "settlement_account": SETTLEMENT_ACCOUNT["id"]},
    ),
    answer("Settlement", SETTLEMENT, 201),
]
SETTLEMENT_RETRIEVE = [answer("Settlement", SETTLEMENT)]
SETTLEMENT_LIST = [answer("Settlements", page("/v1/settlements", SETTLEMENT))]
PAYOUT_LIST = [answer("Payouts", page("/v1/payouts", PAYOUT))]
BALANCE_RETRIEVE = [answer("Balance", BALANCE)]
PRICING_RETRIEVE = [answer("Price plan", PRICING)]
BALANCE_TRANSACTION_LIST = [
    answer("Balance transactions", page("/v1/balance_transactions", BALANCE_TRANSACTION))
]
NETWORK_LIST = [
    answer(
        "Networks",
        {
            "object": "list",
            "url": "/v1/networks",
            "data": [
                {
                    "object": "network",
                    "livemode": False,
                    "network": network,
                    "status": status,
                    "currencies": [
                        {"currency": "CDF", "min_amount": 10000, "max_amount": 500000000},
                        {"currency": "USD", "min_amount": 100, "max_amount": 250000},
                    ],
                    "payouts": True,
                }
                for network, status in (
                    ("AIRTEL_MONEY", "operational"),
                    ("VODACOM_MPESA", "degraded"),
                    ("ORANGE_MONEY", "closed"),
                )
            ],
            "has_more": False,
            "limit": 10,
            "offset": 0,
        },
    )
]
NETWORK_PREDICT = [
    answer(
        "Vodacom number",
        {"object": "network_prediction", "phone": "+243812345678", "network": "VODACOM_MPESA"},
    )
]
