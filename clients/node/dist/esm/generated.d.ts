import { APIClient } from "./core.js";
import type { ClientOptions, PagePromise, RequestOptions } from "./core.js";
/**
 * The balance per currency: the net of the balance transactions, split by their
 * available_on.
 */
export interface Balance {
    /** Always "balance". */
    object: BalanceObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** The net of the transactions whose available_on has passed: what refunds, payouts and settlements may draw on (never below zero). */
    available: Array<BalanceAmount>;
    /** The net of the transactions not yet available (charges within their plan's delay). */
    pending: Array<BalanceAmount>;
}
export interface BalanceAmount {
    currency: Currency;
    /** In the smallest currency unit. */
    amount: number;
}
export type BalanceObject = "balance";
/** One movement of the balance, written once and never changed. */
export interface BalanceTransaction {
    /** txn_ followed by 24 characters. */
    id: string;
    /** Always "balance_transaction". */
    object: BalanceTransactionObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    type: BalanceTransactionType;
    /** Signed, in the smallest currency unit: positive in, negative out. */
    amount: number;
    /** What this transaction charges, in the smallest currency unit: a charge's or a payout's fee; negative on a payout_failure, which gives the fee back; 0 for refunds and late payments. */
    fee: number;
    /** amount − fee: what moves the balance. */
    net: number;
    /** The parts of fee, adding up to it; [] when 0. */
    fee_details: Array<FeeDetail>;
    currency: Currency;
    /** The id of the charge, refund or payout that moved it. */
    source: string;
    /** The automatic settlement that paid this transaction out (stl_…), if any. */
    settlement: string | null;
    /** When its net becomes available: a charge's once its plan's delay has passed, every other transaction at its creation. */
    available_on: string;
    /** ISO 8601, UTC. */
    created_at: string;
}
/** A page of BalanceTransaction objects, newest first. */
export interface BalanceTransactionList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<BalanceTransaction>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type BalanceTransactionObject = "balance_transaction";
export type BalanceTransactionType = "charge" | "refund" | "refund_failure" | "payout" | "payout_failure" | "late_payment" | "settlement" | "settlement_failure";
/** The answer to a card charge: send the customer's browser to `next_action`. */
export interface CardChargeCreated {
    id: string;
    /** Always "charge". */
    object: ChargeObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    status: ChargeStatus;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    payment_method: PaymentMethod;
    next_action: NextAction;
}
/** A payment taken from a customer by mobile money or card. */
export interface Charge {
    /** ch_ followed by 24 characters. */
    id: string;
    /** Always "charge". */
    object: ChargeObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    payment_method: PaymentMethod;
    /** The customer's number in E.164 format (+243 then 9 digits). */
    phone?: string;
    /** Mobile money charges only. */
    network?: MobileMoneyNetwork;
    /** pending, then succeeded, failed or declined, once: a final status never changes. */
    status: ChargeStatus;
    description: string | null;
    metadata: Metadata;
    /** Refunded so far (pending refunds included), of the payment the charge kept: the service's refund of a second payment of the charge is not counted. */
    amount_refunded: number;
    /** What the charge cost, in the smallest currency unit, by the rate of the merchant's plan when it was created: round half up of amount × rate_bp / 10000, plus the fixed fee, never more than the amount. Null until it succeeded; kept when it is refunded. */
    fee: number | null;
    /** amount − fee: what the charge added to the balance. Null until it succeeded. */
    net: number | null;
    /** Why it failed, as a stable code (insufficient_funds, customer_rejected, timeout, provider_error, card_declined, …); null unless failed or declined. */
    failure_code: string | null;
    /** The failure in words, for people; null unless failed. */
    failure_message: string | null;
    /** The operator's or card provider's transaction id of the payment that stands (the one that made the charge succeed, or the late payment given back); null until known. What the operator's statement names it by. */
    operator_reference: string | null;
    /** The checkout session the charge was made from, if any. */
    checkout_session: string | null;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    updated_at: string;
    /** Present while a card charge is pending. */
    next_action?: NextAction;
}
/**
 * A charge: mobile money needs `phone` and `network`; card takes USD only. Card details are
 * never sent here.
 */
export interface ChargeCreateRequest {
    /** In the smallest currency unit: 250000 is 2 500.00 CDF, 1999 is 19.99 USD. */
    amount: number;
    currency: Currency;
    /** Mobile money, required: the customer's DRC mobile number in E.164 format: +243 then 9 digits starting with 8 or 9 (+243812345678). */
    phone?: string;
    /** Mobile money, required: the operator of that number (its prefix must belong to it). */
    network?: MobileMoneyNetwork;
    payment_method?: PaymentMethod;
    /** Free text, for you. */
    description?: string;
    metadata?: Metadata;
    /** Where this object's webhook events go, instead of your webhook endpoint's URL. */
    callback_url?: string;
    /** Card only: where the customer lands after the hosted page. */
    return_url?: string;
}
export type ChargeCreated = MobileMoneyChargeCreated | CardChargeCreated;
/** A page of Charge objects, newest first. */
export interface ChargeList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Charge>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type ChargeObject = "charge";
export type ChargeStatus = "pending" | "succeeded" | "failed" | "declined";
/** A payment page hosted by the service: send the customer to `url`. */
export interface CheckoutSession {
    /** cs_ followed by 24 characters. */
    id: string;
    /** Always "checkout.session". */
    object: CheckoutSessionObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** The payment page to send the customer to. */
    url: string;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    /** open, then complete (a charge succeeded) or expired. */
    status: CheckoutSessionStatus;
    /** Where the customer goes after paying. */
    success_url: string;
    /** Where the customer goes to give up. */
    cancel_url: string;
    metadata: Metadata;
    customer_phone: string | null;
    customer_email: string | null;
    /** What the page offers, in this order. */
    payment_methods: Array<PaymentMethod>;
    /** The succeeded charge, once the session is complete. */
    charge: string | null;
    /** The payment link the session was opened from, if any. */
    payment_link: string | null;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    expires_at: string;
}
/** A checkout session: the amount to pay and where the customer comes back to. */
export interface CheckoutSessionCreateRequest {
    /** In the smallest currency unit: 250000 is 2 500.00 CDF, 1999 is 19.99 USD. */
    amount: number;
    currency: Currency;
    /** Where the customer goes after paying; {CHECKOUT_SESSION_ID} is replaced with the session's id. */
    success_url: string;
    /** Where the customer goes to give up. */
    cancel_url: string;
    metadata?: Metadata;
    /** Pre-fills the page: +243 then 9 digits starting with 8 or 9. */
    customer_phone?: string;
    customer_email?: string;
    /** Seconds from now until the session expires. */
    expires_in?: number;
}
/** A page of CheckoutSession objects, newest first. */
export interface CheckoutSessionList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<CheckoutSession>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type CheckoutSessionObject = "checkout.session";
export type CheckoutSessionStatus = "open" | "complete" | "expired";
export interface Counts {
    /** Rows in the batch. */
    total: number;
    /** Rows not settled yet. */
    pending: number;
    /** Rows paid. */
    succeeded: number;
    /** Rows that failed (see each row's failure_code). */
    failed: number;
}
export type Currency = "CDF" | "USD";
export interface Deleted {
    id: string;
    object: string;
    deleted: boolean;
}
/** One event on its way to one URL, retried on a schedule until it succeeds or fails. */
export interface Delivery {
    /** Always "delivery". */
    object: DeliveryObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    event_id: string;
    url: string;
    status: ProcessingStatus;
    /** ISO 8601, UTC. */
    created_at: string;
    /** null once final. */
    next_attempt_at: string | null;
    /** null until a 2xx answer. */
    delivered_at: string | null;
    /** Oldest first. */
    attempts: Array<DeliveryAttempt>;
}
export interface DeliveryAttempt {
    /** ISO 8601, UTC. */
    attempted_at: string;
    url: string;
    /** Your endpoint's HTTP status; null when it gave none. */
    status_code: number | null;
    /** Why no 2xx came back (timeout, refused address, …). */
    error: string | null;
    duration_ms: number;
}
/** A page of Delivery objects, newest first. */
export interface DeliveryList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Delivery>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type DeliveryObject = "delivery";
/** Every error, whatever the status. */
export interface Error {
    error: ErrorDetail;
}
export interface ErrorDetail {
    /** The kind of error. */
    type: ErrorType;
    /** What went wrong, as a stable code to branch on (parameter_missing, amount_invalid, resource_missing, …). */
    code: string;
    /** The error in words, in English, or in French when Accept-Language asks for it. Show it to people; do not parse it. */
    message: string;
    /** The parameter or header at fault, when there is one. */
    param: string | null;
    /** Also in the Request-Id header: quote it to support. */
    request_id: string | null;
}
export type ErrorType = "invalid_request_error" | "authentication_error" | "permission_error" | "idempotency_error" | "rate_limit_error" | "api_error";
/** Something that happened to one of your objects; also the body of each webhook delivery. */
export interface Event {
    /** evt_ followed by 24 characters; the same on resends. */
    id: string;
    /** Always "event". */
    object: EventObject;
    type: EventType;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** ISO 8601, UTC. */
    created_at: string;
    data: EventData;
}
export interface EventData {
    /** The object as it was right after the change. */
    object: EventDataObject;
}
export type EventDataObject = Charge | Refund | Payout | Settlement | CheckoutSession | PayoutBatch;
/** A page of Event objects, newest first. */
export interface EventList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Event>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type EventObject = "event";
export type EventType = "charge.succeeded" | "charge.failed" | "charge.declined" | "refund.succeeded" | "refund.failed" | "checkout.session.completed" | "checkout.session.expired" | "payout.succeeded" | "payout.failed" | "payout_batch.completed" | "settlement.paid" | "settlement.failed";
export interface FeeDetail {
    type: FeeType;
    /** Negative where a failure gives the fee back. */
    amount: number;
    currency: Currency;
}
export type FeeType = "processing_fee" | "payout_fee" | "settlement_fee";
export type ListObject = "list";
/**
 * A text message a customer (a receipt) or a member (a notification) would get. Test mode
 * sends none: its messages are kept, `sent`, to be read here.
 */
export interface Message {
    /** sms_ followed by 24 characters. */
    id: string;
    /** Always "message". */
    object: MessageObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** The phone, E.164 (+243…). */
    to: string;
    /** The text, as the phone shows it. */
    body: string;
    kind: MessageKind;
    /** A kept test message is `sent`. */
    status: MessageStatus;
    /** ISO 8601, UTC. */
    created_at: string;
}
export type MessageKind = "receipt" | "notification";
/** A page of Message objects, newest first. */
export interface MessageList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Message>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type MessageObject = "message";
export type MessageStatus = "queued" | "sent" | "delivered" | "failed";
/** Your own key-value pairs (at most 50 keys of 1 to 40 characters, string values of at most 500), returned as given. */
export type Metadata = {
    [key: string]: string;
};
/** The answer to a mobile money charge: the prompt is on its way to the customer's phone. */
export interface MobileMoneyChargeCreated {
    id: string;
    /** Always "charge". */
    object: ChargeObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    /** The customer's number in E.164 format (+243 then 9 digits). */
    phone: string;
    network: MobileMoneyNetwork;
    status: ChargeStatus;
    description: string | null;
    metadata: Metadata;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    updated_at: string;
}
export type MobileMoneyNetwork = "AIRTEL_MONEY" | "VODACOM_MPESA" | "ORANGE_MONEY";
/**
 * A mobile money network: whether it takes payments now, the amounts it takes, whether it
 * pays out.
 */
export interface Network {
    /** Always "network". */
    object: NetworkObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    network: MobileMoneyNetwork;
    /** closed: new charges and payouts are refused (503 network_unavailable) until it reopens; degraded: many recent payments failed at the operator. */
    status: NetworkStatus;
    /** What it takes, per currency. */
    currencies: Array<NetworkLimits>;
    /** Whether payouts can be sent on it. */
    payouts: boolean;
}
export interface NetworkLimits {
    currency: Currency;
    /** The smallest amount the network takes, in minor units. */
    min_amount: number;
    /** The largest amount the network takes, in minor units. */
    max_amount: number;
}
/** A page of Network objects, always in the same order. */
export interface NetworkList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Network>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type NetworkObject = "network";
/** The operator a typed number belongs to. */
export interface NetworkPrediction {
    /** Always "network_prediction". */
    object: NetworkPredictionObject;
    /** The customer's number in E.164 format (+243 then 9 digits). */
    phone: string;
    /** null: a DRC mobile number of a prefix no operator is known for. */
    network: MobileMoneyNetwork | null;
}
export type NetworkPredictionObject = "network_prediction";
export type NetworkStatus = "operational" | "degraded" | "closed";
/**
 * What the customer's browser must do to pay a pending card charge: POST a form with one
 * hidden input per `params` entry, unchanged, to `payment_url`.
 */
export interface NextAction {
    type: NextActionType;
    /** The card provider's hosted payment page. */
    payment_url: string;
    /** The signed form fields of this payment attempt (no card data). */
    params: {
        [key: string]: string;
    };
}
export type NextActionType = "provider_redirect";
/**
 * A link to share (a message, a QR code): each customer who opens `url` pays on a checkout
 * session of their own.
 */
export interface PaymentLink {
    /** plink_ followed by 24 characters. */
    id: string;
    /** Always "payment_link". */
    object: PaymentLinkObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** The public page to share: /pay/{slug}. */
    url: string;
    /** A QR code of `url` (SVG; .png for a PNG). */
    qr_code_url: string;
    /** false once deactivated. */
    active: boolean;
    /** null when custom_amount is true. */
    amount: number | null;
    /** Whether the customer types the amount. */
    custom_amount: boolean;
    currency: Currency;
    /** What is sold. */
    description: string;
    /** How many payments the link takes at most. */
    max_payments: number | null;
    /** Completed checkout sessions of the link. */
    payments_count: number;
    /** ISO 8601, UTC. */
    expires_at: string | null;
    success_url: string | null;
    metadata: Metadata;
    /** ISO 8601, UTC. */
    created_at: string;
}
/** A payment link: what is sold, and its amount or `custom_amount: true`. */
export interface PaymentLinkCreateRequest {
    currency: Currency;
    /** What is sold, shown on the page (1 to 200 characters). */
    description: string;
    /** In the smallest currency unit; omit with custom_amount. */
    amount?: number;
    /** true: the customer types the amount (within the networks' limits). */
    custom_amount?: boolean;
    /** How many payments the link takes at most. */
    max_payments?: number;
    /** When the link stops taking payments. */
    expires_at?: string;
    /** Where the customer goes after paying; {CHECKOUT_SESSION_ID} is replaced with the session's id. Without it the service shows its own page. */
    success_url?: string;
    metadata?: Metadata;
}
/** A page of PaymentLink objects, newest first. */
export interface PaymentLinkList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<PaymentLink>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type PaymentLinkObject = "payment_link";
/** Only `active` changes once a link is made. */
export interface PaymentLinkUpdateRequest {
    /** false: the page answers 410 and takes no payment. */
    active: boolean;
}
export type PaymentMethod = "mobile_money" | "card";
/** Money sent from the available balance to a mobile money account. */
export interface Payout {
    /** po_ followed by 24 characters. */
    id: string;
    /** Always "payout". */
    object: PayoutObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    /** The customer's number in E.164 format (+243 then 9 digits). */
    phone: string;
    network: MobileMoneyNetwork;
    status: ProcessingStatus;
    description: string | null;
    metadata: Metadata;
    /** Why it failed, as a stable code (insufficient_funds, customer_rejected, timeout, provider_error, card_declined, …); null unless failed or declined. */
    failure_code: string | null;
    /** The failure in words, for people; null unless failed. */
    failure_message: string | null;
    /** The operator's transaction id of the payout; null until the operator gives one. */
    operator_reference: string | null;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    updated_at: string;
}
/** Many payouts at once, one per row, each through POST /v1/payouts' rules. */
export interface PayoutBatch {
    /** pob_ followed by 24 characters. */
    id: string;
    /** Always "payout_batch". */
    object: PayoutBatchObjectEnum;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** processing while rows are being paid, then complete (every row succeeded or failed). Batches made in the dashboard are first draft and awaiting_approval (or rejected); so is, awaiting_approval, a batch of a live key whose account requires a second approver, until a member approves (or rejects) it in the dashboard. */
    status: PayoutBatchStatusEnum;
    counts: Counts;
    totals: Array<Total>;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    approved_at: string | null;
    /** ISO 8601, UTC. */
    completed_at: string | null;
}
export interface PayoutBatchCreateRequest {
    /** 1 to 1000 payouts; every one is checked before any is paid. */
    items: Array<PayoutBatchItemRequest>;
}
/** One row of a batch and its payout. */
export interface PayoutBatchItem {
    /** Always "payout_batch_item". */
    object: PayoutBatchItemObjectEnum;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** The index in `items` (API), or the row of the uploaded file (header = 1). */
    row: number;
    /** The customer's number in E.164 format (+243 then 9 digits). */
    phone: string;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    network: MobileMoneyNetwork;
    reference: string;
    description: string | null;
    status: PayoutBatchItemStatusEnum;
    /** The row's payout (po_…), once it is made. */
    payout: string | null;
    /** Why it failed, as a stable code (insufficient_funds, customer_rejected, timeout, provider_error, card_declined, …); null unless failed or declined. */
    failure_code: string | null;
    /** The failure in words, for people; null unless failed. */
    failure_message: string | null;
}
/** A page of a batch's rows, in row order. */
export interface PayoutBatchItemList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<PayoutBatchItem>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type PayoutBatchItemObjectEnum = "payout_batch_item";
/** One payout of the batch, as POST /v1/payouts takes it. */
export interface PayoutBatchItemRequest {
    /** E.164: +243 then 9 digits (+243812345678). */
    phone: string;
    /** Minor units, a multiple of 100 (whole francs or dollars). */
    amount: number;
    currency: Currency;
    /** The operator of that number. */
    network: MobileMoneyNetwork;
    /** Yours, unique among all your batches' rows in this mode (an invoice or employee number): a reference is never paid twice. */
    reference: string;
    /** Free text. */
    description?: string;
}
export type PayoutBatchItemStatusEnum = "draft" | "queued" | "pending" | "succeeded" | "failed" | "canceled";
export type PayoutBatchObjectEnum = "payout_batch";
export type PayoutBatchStatusEnum = "draft" | "awaiting_approval" | "processing" | "complete" | "rejected";
/** A payout from your available balance to a mobile money account. */
export interface PayoutCreateRequest {
    /** In the smallest currency unit: 250000 is 2 500.00 CDF, 1999 is 19.99 USD. */
    amount: number;
    currency: Currency;
    /** The customer's DRC mobile number in E.164 format: +243 then 9 digits starting with 8 or 9 (+243812345678). */
    phone: string;
    /** The operator of that number (its prefix must belong to it). */
    network: MobileMoneyNetwork;
    /** Free text, for you. */
    description?: string;
    metadata?: Metadata;
    /** Where this object's webhook events go, instead of your webhook endpoint's URL. */
    callback_url?: string;
}
/** A page of Payout objects, newest first. */
export interface PayoutList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Payout>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type PayoutObject = "payout";
/**
 * The merchant's price plan. Of its rates the most specific applies: the network's, else
 * the payment method's, else the kind's. Test mode applies the same plan.
 */
export interface Pricing {
    /** Always "pricing". */
    object: PricingObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    rates: Array<PricingRate>;
}
export type PricingKind = "charge" | "payout" | "settlement";
export type PricingObject = "pricing";
export interface PricingRate {
    kind: PricingKind;
    /** Null: the kind's rate for every method. */
    payment_method: PaymentMethod | null;
    /** Null: every network of the method. */
    network: MobileMoneyNetwork | null;
    currency: Currency;
    /** Basis points of the amount: 250 is 2.50 %. */
    rate_bp: number;
    /** Added to each fee, in the smallest currency unit. */
    fixed: number;
    /** Charges: days after it succeeded before a charge's net is available. 0 for the other kinds. */
    available_after_days: number;
}
export type ProcessingStatus = "pending" | "succeeded" | "failed";
/** Money given back to the customer of a succeeded charge, in full or in part. */
export interface Refund {
    /** re_ followed by 24 characters. */
    id: string;
    /** Always "refund". */
    object: RefundObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    charge_id: string;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    currency: Currency;
    status: ProcessingStatus;
    /** late_payment: a payment that could not be accepted (it arrived after its charge had failed, or it is a second payment of the charge), given back by the service itself. */
    reason: RefundReason | null;
    metadata: Metadata;
    /** Why it failed, as a stable code (insufficient_funds, customer_rejected, timeout, provider_error, card_declined, …); null unless failed or declined. */
    failure_code: string | null;
    /** The failure in words, for people; null unless failed. */
    failure_message: string | null;
    /** The operator's or card provider's transaction id. For a late_payment refund of a second payment of the charge: that payment's id (such a refund is not counted in the charge's amount_refunded). For any other refund: the provider's id of the refund itself, null until the provider gives one. */
    operator_reference: string | null;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    updated_at: string;
}
/** A refund of all (amount omitted) or part of a succeeded charge. */
export interface RefundCreateRequest {
    /** Omitted: what remains refundable. */
    amount?: number;
    reason?: RefundRequestReason;
    metadata?: Metadata;
}
/** A page of Refund objects, newest first. */
export interface RefundList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Refund>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type RefundObject = "refund";
export type RefundReason = "duplicate" | "fraudulent" | "requested_by_customer" | "late_payment";
export type RefundRequestReason = "duplicate" | "fraudulent" | "requested_by_customer";
/** Available balance moved to one of the merchant's settlement accounts. */
export interface Settlement {
    /** stl_ followed by 24 characters. */
    id: string;
    /** Always "settlement". */
    object: SettlementObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** In the smallest currency unit (250000 = 2 500.00 CDF). */
    amount: number;
    /** Taken from the balance with the amount; given back on failure. */
    fee: number;
    currency: Currency;
    settlement_account: SettlementAccountShown;
    /** manual: on demand; automatic: by schedule. */
    method: SettlementMethod;
    /** pending, in_transit (handed to the bank or the operator), then paid or failed. */
    status: SettlementStatus;
    /** What you will find on your bank or wallet statement. */
    reference: string;
    /** The operator's transaction id of a mobile money settlement (the bank's reference of a bank one, once paid). */
    operator_reference: string | null;
    /** Why it failed, as a stable code (insufficient_funds, customer_rejected, timeout, provider_error, card_declined, …); null unless failed or declined. */
    failure_code: string | null;
    /** The failure in words, for people; null unless failed. */
    failure_message: string | null;
    /** When the money is expected (when it arrived, once paid). */
    arrival_estimate: string | null;
    /** ISO 8601, UTC. */
    created_at: string;
    /** ISO 8601, UTC. */
    updated_at: string;
}
/** Where settlements of one currency go: a bank account or the merchant's own wallet. */
export interface SettlementAccount {
    /** sa_ followed by 24 characters. */
    id: string;
    /** Always "settlement_account". */
    object: SettlementAccountObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    type: SettlementAccountType;
    currency: Currency;
    /** Bank accounts only. */
    bank_name?: string;
    /** Mobile money accounts only. */
    network?: MobileMoneyNetwork;
    /** The business's name for a mobile money account. */
    account_holder: string;
    /** The last four characters of the number. */
    last4: string;
    /** Settlements of its currency go here by default. */
    default: boolean;
    /** Settlements to it can be made from then (a new live account is held). */
    available_from: string;
    /** ISO 8601, UTC. */
    created_at: string;
}
/**
 * A bank account (bank_name, account_holder, account_number, swift) or the merchant's own
 * mobile money wallet (phone, network) that settlements of one currency go to.
 */
export interface SettlementAccountCreateIn {
    type: SettlementAccountType;
    currency: Currency;
    bank_name?: string;
    account_holder?: string;
    /** 8 to 34 letters and digits; spaces are ignored. Never shown again: last4. */
    account_number?: string;
    /** SWIFT/BIC code. */
    swift?: string;
    /** The customer's DRC mobile number in E.164 format: +243 then 9 digits starting with 8 or 9 (+243812345678). */
    phone?: string;
    /** The operator of that number (its prefix must belong to it). */
    network?: MobileMoneyNetwork;
}
/** A page of SettlementAccount objects, newest first. */
export interface SettlementAccountList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<SettlementAccount>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type SettlementAccountObject = "settlement_account";
export interface SettlementAccountShown {
    id: string;
    type: SettlementAccountType;
    bank_name?: string;
    network?: MobileMoneyNetwork;
    last4: string;
}
export type SettlementAccountType = "bank_account" | "mobile_money";
/** A settlement of available balance to a settlement account. */
export interface SettlementCreateIn {
    currency: Currency;
    /** By default the most the available balance covers with the fee (whole units for a mobile money account). */
    amount?: number;
    /** By default the currency's default account. */
    settlement_account?: string;
}
/** A page of Settlement objects, newest first. */
export interface SettlementList {
    /** Always "list". */
    object: ListObject;
    /** The path that was asked. */
    url: string;
    data: Array<Settlement>;
    /** Whether another page follows. */
    has_more: boolean;
    limit: number;
    offset: number;
}
export type SettlementMethod = "manual" | "automatic";
export type SettlementObject = "settlement";
export type SettlementStatus = "pending" | "in_transit" | "paid" | "failed";
export interface Total {
    currency: Currency;
    /** What the rows in that currency add up to. */
    amount: number;
}
/** Where this mode's events are sent by default, and the secret that signs them. */
export interface WebhookEndpoint {
    /** Always "webhook_endpoint". */
    object: WebhookEndpointObject;
    /** true for a live key's object, false in test mode. */
    livemode: boolean;
    /** null: events are kept, not sent. */
    url: string | null;
    /** whsec_… secret that signs this mode's deliveries. */
    secret: string;
    /** Until then the secret replaced by the last rotation also signs deliveries. */
    previous_secret_expires_at: string | null;
}
export type WebhookEndpointObject = "webhook_endpoint";
/** The URL this mode's events are sent to. */
export interface WebhookEndpointUpdateRequest {
    /** https in live mode; null stops sending (events are still kept). */
    url: string | null;
}
/** The query parameters of `GET /v1/balance_transactions/export`. */
export interface BalanceTransactionsExportParams {
    currency?: "CDF" | "USD";
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_from?: string;
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_to?: string;
    type?: "charge" | "refund" | "refund_failure" | "payout" | "payout_failure" | "late_payment" | "settlement" | "settlement_failure";
}
/** The query parameters of `GET /v1/balance_transactions`. */
export interface BalanceTransactionsListParams {
    currency?: "CDF" | "USD";
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_from?: string;
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_to?: string;
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The transactions an automatic settlement paid out (stl_…). */
    settlement?: string;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
    type?: "charge" | "refund" | "refund_failure" | "payout" | "payout_failure" | "late_payment" | "settlement" | "settlement_failure";
}
/** The query parameters of `GET /v1/charges/{charge_id}/refunds`. */
export interface ChargeRefundsListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
}
/** The query parameters of `GET /v1/charges`. */
export interface ChargesListParams {
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_from?: string;
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_to?: string;
    /** How many objects to return. */
    limit?: number;
    network?: "AIRTEL_MONEY" | "VODACOM_MPESA" | "ORANGE_MONEY";
    /** How many objects to skip. */
    offset?: number;
    payment_method?: "mobile_money" | "card";
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
    status?: "pending" | "succeeded" | "failed" | "declined";
}
/** The query parameters of `GET /v1/checkout/sessions`. */
export interface CheckoutSessionsListParams {
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_from?: string;
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_to?: string;
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
    status?: "open" | "complete" | "expired";
}
/** The query parameters of `GET /v1/events/{event_id}/deliveries`. */
export interface EventDeliveriesListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
}
/** The query parameters of `GET /v1/events`. */
export interface EventsListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
    type?: "charge.succeeded" | "charge.failed" | "charge.declined" | "refund.succeeded" | "refund.failed" | "checkout.session.completed" | "checkout.session.expired" | "payout.succeeded" | "payout.failed" | "payout_batch.completed" | "settlement.paid" | "settlement.failed";
}
/** The query parameters of `GET /v1/networks`. */
export interface NetworksListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
}
/** The query parameters of `GET /v1/networks/predict`. */
export interface NetworksPredictParams {
    /** The number as a customer types it: 0812 345 678, +243 81 234 5678, 243812345678… */
    phone: string;
}
/** The query parameters of `GET /v1/payment_links`. */
export interface PaymentLinksListParams {
    /** Only active (true) or inactive (false) links. */
    active?: boolean;
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
}
/** The query parameters of `GET /v1/payout_batches/{batch_id}/items`. */
export interface PayoutBatchesItemsParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** A row number of the previous page: the page starts after it (offset must then be 0). */
    starting_after?: string;
}
/** The query parameters of `GET /v1/payouts`. */
export interface PayoutsListParams {
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_from?: string;
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_to?: string;
    /** How many objects to return. */
    limit?: number;
    network?: "AIRTEL_MONEY" | "VODACOM_MPESA" | "ORANGE_MONEY";
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
    status?: "pending" | "succeeded" | "failed";
}
/** The query parameters of `GET /v1/refunds`. */
export interface RefundsListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
}
/** The query parameters of `GET /v1/settlement_accounts`. */
export interface SettlementAccountsListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
}
/** The query parameters of `GET /v1/settlements`. */
export interface SettlementsListParams {
    currency?: "CDF" | "USD";
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_from?: string;
    /** A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset (2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole day, a date_to datetime is exclusive. */
    date_to?: string;
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
    status?: "pending" | "in_transit" | "paid" | "failed";
}
/** The query parameters of `GET /v1/test_helpers/messages`. */
export interface TestHelpersMessagesListParams {
    /** How many objects to return. */
    limit?: number;
    /** How many objects to skip. */
    offset?: number;
    /** The id of an object of the previous page: the page starts after it (offset must then be 0). Faster than offset for deep pages. */
    starting_after?: string;
}
/** `client.balance` */
export declare class BalanceResource {
    #private;
    constructor(client: APIClient);
    /**
     * Retrieve the balance.
     *
     * The balance per currency in this key's mode, the net of its transactions (succeeded charges less their fees, less refunds, payouts and their fees): available now, and pending until each charge's available_on.
     *
     * `GET /v1/balance`
     */
    retrieve(options?: RequestOptions): Promise<Balance>;
}
/** `client.balanceTransactions` */
export declare class BalanceTransactionsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Export balance transactions as CSV.
     *
     * The same movements as a CSV statement (UTF-8, one header line, oldest first), for your accounting.
     *
     * `GET /v1/balance_transactions/export`
     */
    export(params?: BalanceTransactionsExportParams, options?: RequestOptions): Promise<string>;
    /**
     * List balance transactions.
     *
     * Every movement of the balance, newest first: what each charge, refund and payout added or took.
     *
     * `GET /v1/balance_transactions`
     */
    list(params?: BalanceTransactionsListParams, options?: RequestOptions): PagePromise<BalanceTransaction, BalanceTransactionList>;
}
/** `client.charges` */
export declare class ChargesResource {
    #private;
    constructor(client: APIClient);
    /**
     * Create a charge.
     *
     * Mobile money (the default `payment_method`): a payment prompt is sent to the customer's phone and the charge answers `pending`; it becomes `succeeded`, `failed` or `declined` within minutes (follow it with GET or the webhook). Amounts are whole units (multiples of 100).
     *
     * Card (USD only): the answer carries `next_action`; post its `params` as hidden inputs to its `payment_url` from the customer's browser. No card data ever reaches this API.
     *
     * `POST /v1/charges`
     */
    create(params: ChargeCreateRequest, options?: RequestOptions): Promise<ChargeCreated>;
    /**
     * List charges.
     *
     * Your charges in this key's mode, newest first, with optional filters.
     *
     * `GET /v1/charges`
     */
    list(params?: ChargesListParams, options?: RequestOptions): PagePromise<Charge, ChargeList>;
    /**
     * Retrieve a charge.
     *
     * The charge as it is now. Confirm `succeeded` here (or by the webhook) before you deliver.
     *
     * `GET /v1/charges/{charge_id}`
     */
    retrieve(chargeId: string, options?: RequestOptions): Promise<Charge>;
}
/** `client.checkout` */
export declare class CheckoutResource {
    readonly sessions: CheckoutSessionsResource;
    constructor(client: APIClient);
}
/** `client.checkout.sessions` */
export declare class CheckoutSessionsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Create a checkout session.
     *
     * A payment page for one amount: send the customer to the session's `url`; they come back to `success_url` or `cancel_url`. The page offers mobile money for whole amounts and card for USD (when card payments are on). `{CHECKOUT_SESSION_ID}` in `success_url` is replaced with the session's id.
     *
     * `POST /v1/checkout/sessions`
     */
    create(params: CheckoutSessionCreateRequest, options?: RequestOptions): Promise<CheckoutSession>;
    /**
     * Expire an open checkout session.
     *
     * Close the page now: the customer can no longer pay on it (400 checkout_session_not_open when it is not open, 400 checkout_session_payment_pending while a payment on it is still pending).
     *
     * `POST /v1/checkout/sessions/{session_id}/expire`
     */
    expire(sessionId: string, options?: RequestOptions): Promise<CheckoutSession>;
    /**
     * List checkout sessions.
     *
     * Your checkout sessions in this key's mode, newest first.
     *
     * `GET /v1/checkout/sessions`
     */
    list(params?: CheckoutSessionsListParams, options?: RequestOptions): PagePromise<CheckoutSession, CheckoutSessionList>;
    /**
     * Retrieve a checkout session.
     *
     * The session as it is now; `charge` names the charge that paid it.
     *
     * `GET /v1/checkout/sessions/{session_id}`
     */
    retrieve(sessionId: string, options?: RequestOptions): Promise<CheckoutSession>;
}
/** `client.events` */
export declare class EventsResource {
    #private;
    constructor(client: APIClient);
    /**
     * List events.
     *
     * Every event of this key's mode, newest first, whether or not it was sent.
     *
     * `GET /v1/events`
     */
    list(params?: EventsListParams, options?: RequestOptions): PagePromise<Event, EventList>;
    /**
     * List an event's deliveries and attempts.
     *
     * Every delivery of the event (the first and each resend, newest first) with its attempts: when, your endpoint's HTTP status or the error, how long it took. Paged by limit and offset (a delivery has no id to start after).
     *
     * `GET /v1/events/{event_id}/deliveries`
     */
    listDeliveries(eventId: string, params?: EventDeliveriesListParams, options?: RequestOptions): PagePromise<Delivery, DeliveryList>;
    /**
     * Resend an event.
     *
     * Send the event again, with the same id so your receiver can de-duplicate, to where it would go now: its charge's `callback_url` (for a charge or one of its refunds) or its payout's, else this mode's endpoint URL (400 webhook_url_missing when there is none). The answer is the new delivery; while a delivery of the event to that URL still waits for its first attempt, it is that delivery, and no second one is queued. At most 5 resends of an event, and 100 of this mode's events, in an hour (each counts, even one answered with the waiting delivery): beyond, 429 rate_limited, with the seconds to wait in Retry-After. A delivery to the endpoint URL goes to the URL as it is at each attempt.
     *
     * `POST /v1/events/{event_id}/resend`
     */
    resend(eventId: string, options?: RequestOptions): Promise<Delivery>;
    /**
     * Retrieve an event.
     *
     * The event, exactly as its deliveries carry it.
     *
     * `GET /v1/events/{event_id}`
     */
    retrieve(eventId: string, options?: RequestOptions): Promise<Event>;
}
/** `client.networks` */
export declare class NetworksResource {
    #private;
    constructor(client: APIClient);
    /**
     * List the networks.
     *
     * Each mobile money network in this key's mode: whether it takes payments now (operational, degraded, closed), the amounts it takes per currency, whether it pays out. Offer your customers the networks that are not closed and take the amount. Always in the same order; every network fits in the default page.
     *
     * `GET /v1/networks`
     */
    list(params?: NetworksListParams, options?: RequestOptions): PagePromise<Network, NetworkList>;
    /**
     * Predict the network of a phone number.
     *
     * The number as typed by a customer, in E.164, and the operator its prefix belongs to (400 phone_invalid when it is no DRC mobile number).
     *
     * `GET /v1/networks/predict`
     */
    predict(params: NetworksPredictParams, options?: RequestOptions): Promise<NetworkPrediction>;
}
/** `client.paymentLinks` */
export declare class PaymentLinksResource {
    #private;
    constructor(client: APIClient);
    /**
     * Create a payment link.
     *
     * A page to share (`url`, and its QR code `qr_code_url`): every customer who opens it pays on a checkout session of their own. Give `amount`, or `custom_amount: true` for the customer to type it (within the networks' limits). After `max_payments` payments, after `expires_at`, or once deactivated, the page answers 410.
     *
     * `POST /v1/payment_links`
     */
    create(params: PaymentLinkCreateRequest, options?: RequestOptions): Promise<PaymentLink>;
    /**
     * List payment links.
     *
     * Your payment links in this key's mode, newest first.
     *
     * `GET /v1/payment_links`
     */
    list(params?: PaymentLinksListParams, options?: RequestOptions): PagePromise<PaymentLink, PaymentLinkList>;
    /**
     * Retrieve a payment link.
     *
     * The link as it is now; `payments_count` counts its completed sessions.
     *
     * `GET /v1/payment_links/{link_id}`
     */
    retrieve(linkId: string, options?: RequestOptions): Promise<PaymentLink>;
    /**
     * Deactivate or reactivate a payment link.
     *
     * Only `active` changes once a link is made.
     *
     * `POST /v1/payment_links/{link_id}`
     */
    update(linkId: string, params: PaymentLinkUpdateRequest, options?: RequestOptions): Promise<PaymentLink>;
}
/** `client.payoutBatches` */
export declare class PayoutBatchesResource {
    #private;
    constructor(client: APIClient);
    /**
     * Create a payout batch.
     *
     * Up to 1,000 payouts at once, each checked as POST /v1/payouts checks one (phone, network, the network's limits, whole units, currency) and with a `reference` no other row of yours has: the first problem answers 400 with `param` `items[i].field`, and nothing is paid. Otherwise the batch is approved at once (your key approves it), provided your available balance covers it in each currency (else 400 balance_insufficient), and the workers pay its rows; a row that meets an insufficient balance later fails alone. With a live key of an account that requires a second approver, the batch is answered `awaiting_approval` instead: a member who may pay out (not the one who made the key) approves it in the dashboard, the balance is checked then, or rejects it. Follow it with GET or the `payout_batch.completed` webhook.
     *
     * `POST /v1/payout_batches`
     */
    create(params: PayoutBatchCreateRequest, options?: RequestOptions): Promise<PayoutBatch>;
    /**
     * List a payout batch's rows.
     *
     * Each row with its payout and status, in row order.
     *
     * `GET /v1/payout_batches/{batch_id}/items`
     */
    listItems(batchId: string, params?: PayoutBatchesItemsParams, options?: RequestOptions): PagePromise<PayoutBatchItem, PayoutBatchItemList>;
    /**
     * Retrieve a payout batch.
     *
     * The batch as it is now, with how many rows are pending, paid and failed.
     *
     * `GET /v1/payout_batches/{batch_id}`
     */
    retrieve(batchId: string, options?: RequestOptions): Promise<PayoutBatch>;
}
/** `client.payouts` */
export declare class PayoutsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Create a payout.
     *
     * Send money from your available balance to a mobile money account. The amount is taken from the balance at once (400 balance_insufficient when it does not cover it) and given back if the payout fails. A live key pays out only while the owner's security setting "payouts by API" is on (403 api_payouts_disabled).
     *
     * `POST /v1/payouts`
     */
    create(params: PayoutCreateRequest, options?: RequestOptions): Promise<Payout>;
    /**
     * List payouts.
     *
     * Your payouts in this key's mode, newest first, with optional filters.
     *
     * `GET /v1/payouts`
     */
    list(params?: PayoutsListParams, options?: RequestOptions): PagePromise<Payout, PayoutList>;
    /**
     * Retrieve a payout.
     *
     * The payout as it is now.
     *
     * `GET /v1/payouts/{payout_id}`
     */
    retrieve(payoutId: string, options?: RequestOptions): Promise<Payout>;
}
/** `client.pricing` */
export declare class PricingResource {
    #private;
    constructor(client: APIClient);
    /**
     * Retrieve the price plan.
     *
     * The rates of the merchant's plan, the same in test and live mode: a fee is round half up of amount × rate_bp / 10000, plus fixed, never more than the amount; the most specific rate applies (the network's, else the payment method's, else the kind's).
     *
     * `GET /v1/pricing`
     */
    retrieve(options?: RequestOptions): Promise<Pricing>;
}
/** `client.refunds` */
export declare class RefundsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Refund a charge.
     *
     * Give back all of a succeeded charge (omit `amount`) or part of it. The amount is taken from your available balance of the charge's mode and currency at once (400 balance_insufficient when it does not cover it: money paid out cannot be given back a second time). The refund answers `pending` and becomes `succeeded` or `failed`; a failed refund frees its amount again.
     *
     * `POST /v1/charges/{charge_id}/refunds`
     */
    create(chargeId: string, params?: RefundCreateRequest, options?: RequestOptions): Promise<Refund>;
    /**
     * List refunds.
     *
     * All your refunds in this key's mode, newest first.
     *
     * `GET /v1/refunds`
     */
    list(params?: RefundsListParams, options?: RequestOptions): PagePromise<Refund, RefundList>;
    /**
     * List a charge's refunds.
     *
     * The refunds of one charge, newest first.
     *
     * `GET /v1/charges/{charge_id}/refunds`
     */
    list(chargeId: string, params?: ChargeRefundsListParams, options?: RequestOptions): PagePromise<Refund, RefundList>;
    /**
     * Retrieve a refund.
     *
     * The refund as it is now.
     *
     * `GET /v1/refunds/{refund_id}`
     */
    retrieve(refundId: string, options?: RequestOptions): Promise<Refund>;
}
/** `client.settlementAccounts` */
export declare class SettlementAccountsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Add a settlement account.
     *
     * A bank account or your own mobile money wallet that settlements of one currency go to. The first account of a currency is its default. The full number is never shown again (last4). A new live account is on hold until available_from (SETTLEMENT_ACCOUNT_HOLD, two days by default), and every owner and admin is told by e-mail at once.
     *
     * `POST /v1/settlement_accounts`
     */
    create(params: SettlementAccountCreateIn, options?: RequestOptions): Promise<SettlementAccount>;
    /**
     * Remove a settlement account.
     *
     * Settlements no longer go to it; its settlements keep it. When it was the default, the oldest remaining account of its currency becomes the default.
     *
     * `DELETE /v1/settlement_accounts/{account_id}`
     */
    delete(accountId: string, options?: RequestOptions): Promise<Deleted>;
    /**
     * List settlement accounts.
     *
     * Your settlement accounts in this key's mode, newest first.
     *
     * `GET /v1/settlement_accounts`
     */
    list(params?: SettlementAccountsListParams, options?: RequestOptions): PagePromise<SettlementAccount, SettlementAccountList>;
}
/** `client.settlements` */
export declare class SettlementsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Create a settlement.
     *
     * Move available balance to a settlement account. Amount and fee are taken from the available balance at once (400 balance_insufficient when it does not cover them) and given back if the settlement fails. The checks come in this order: live approval (403 live_mode_not_approved), the account (400 settlement_account_missing, then settlement_account_on_hold), the balance.
     *
     * `POST /v1/settlements`
     */
    create(params: SettlementCreateIn, options?: RequestOptions): Promise<Settlement>;
    /**
     * List settlements.
     *
     * Your settlements in this key's mode, newest first, with optional filters.
     *
     * `GET /v1/settlements`
     */
    list(params?: SettlementsListParams, options?: RequestOptions): PagePromise<Settlement, SettlementList>;
    /**
     * Retrieve a settlement.
     *
     * The settlement as it is now.
     *
     * `GET /v1/settlements/{settlement_id}`
     */
    retrieve(settlementId: string, options?: RequestOptions): Promise<Settlement>;
}
/** `client.testHelpers` */
export declare class TestHelpersResource {
    readonly messages: TestHelpersMessagesResource;
    constructor(client: APIClient);
}
/** `client.testHelpers.messages` */
export declare class TestHelpersMessagesResource {
    #private;
    constructor(client: APIClient);
    /**
     * List test mode's text messages.
     *
     * The text messages test mode would have sent (customers' receipts, members' notifications), newest first: nothing is sent to a phone in test mode, each is kept here, `sent`. Test keys only: a live key gets 404 `resource_missing`.
     *
     * `GET /v1/test_helpers/messages`
     */
    list(params?: TestHelpersMessagesListParams, options?: RequestOptions): PagePromise<Message, MessageList>;
}
/** `client.transactions` */
export declare class TransactionsResource {
    #private;
    constructor(client: APIClient);
    /**
     * Retrieve a charge by its transaction id.
     *
     * The same charge as GET /v1/charges/{charge_id}: the `transaction_id` that a card payment adds to your `return_url` is the charge's id.
     *
     * `GET /v1/transactions/{charge_id}`
     */
    retrieve(chargeId: string, options?: RequestOptions): Promise<Charge>;
}
/** `client.webhookEndpoint` */
export declare class WebhookEndpointResource {
    #private;
    constructor(client: APIClient);
    /**
     * Retrieve the webhook endpoint.
     *
     * The URL this mode's events are sent to by default (a charge's or payout's `callback_url` overrides it) and the secret that signs them. A test key sees only the test endpoint, a live key the live one.
     *
     * `GET /v1/webhook_endpoint`
     */
    retrieve(options?: RequestOptions): Promise<WebhookEndpoint>;
    /**
     * Rotate the signing secret.
     *
     * A new signing secret for this mode; the previous one keeps signing deliveries for 24 hours, so your receiver can switch without losing any.
     *
     * `POST /v1/webhook_endpoint/rotate_secret`
     */
    rotateSecret(options?: RequestOptions): Promise<WebhookEndpoint>;
    /**
     * Set the webhook endpoint's URL.
     *
     * Set (or, with null, clear) the URL this mode's events are sent to.
     *
     * `POST /v1/webhook_endpoint`
     */
    update(params: WebhookEndpointUpdateRequest, options?: RequestOptions): Promise<WebhookEndpoint>;
}
/** Every resource of the API, on the client. */
export declare class Resources extends APIClient {
    readonly balance: BalanceResource;
    readonly balanceTransactions: BalanceTransactionsResource;
    readonly charges: ChargesResource;
    readonly checkout: CheckoutResource;
    readonly events: EventsResource;
    readonly networks: NetworksResource;
    readonly paymentLinks: PaymentLinksResource;
    readonly payoutBatches: PayoutBatchesResource;
    readonly payouts: PayoutsResource;
    readonly pricing: PricingResource;
    readonly refunds: RefundsResource;
    readonly settlementAccounts: SettlementAccountsResource;
    readonly settlements: SettlementsResource;
    readonly testHelpers: TestHelpersResource;
    readonly transactions: TransactionsResource;
    readonly webhookEndpoint: WebhookEndpointResource;
    constructor(options?: ClientOptions);
}
