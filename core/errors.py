"""Domain errors. Services raise these; the one exception handler turns them into the contract's
error envelope. No view builds an error body by hand."""

from django.utils.translation import get_language, gettext, gettext_noop
from django.utils.translation import gettext as _

from core.money import format_amount


class Amount(int):
    """An amount of minor units in an error's message: the API says it as the integer its `amount`
    takes (`250000`), a page for people as they read it (`2 500,00 CDF`, for_people)."""

    def __new__(cls, value: int, currency: str) -> "Amount":
        amount = super().__new__(cls, value)
        amount.currency = currency
        return amount


class TranslatableError(Exception):
    """An error whose message is one sentence of the message catalogue: `str()` says it in English
    (logs, operators, staff), `localized()` in the active language (an API answer). String
    parameters are looked up in the catalogue too, so that a reason inside a sentence follows it;
    one without a translation (a host name, a number) is kept as it is."""

    def __init__(self, template: str, **params) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)

    def localized(self) -> str:
        return self._said(for_people=False)

    def for_people(self) -> str:
        """`localized()`, its amounts as people read them (the dashboard's forms)."""
        return self._said(for_people=True)

    def _said(self, *, for_people: bool) -> str:
        if not self.params:
            return gettext(self.template)
        language = get_language() or "en"
        params = {}
        for name, value in self.params.items():
            if for_people and isinstance(value, Amount):
                value = format_amount(value, value.currency, language)
            elif isinstance(value, str) and value:
                value = gettext(value)
            params[name] = value
        return gettext(self.template) % params


class ApiError(TranslatableError):
    """`message` is what logs, staff and the hosted pages show: as given (a message a request
    path has already translated), else in English. The API answers with `localized()`: a
    `default_message`, or a `message` given with `params`, is then said in the request's
    language."""

    status = 400
    type = "invalid_request_error"
    code = "parameter_invalid"
    default_message = gettext_noop("The request is invalid.")

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
        params: dict | None = None,
    ) -> None:
        super().__init__(message or self.default_message, **(params or {}))
        self.message = str(self)
        if code:
            self.code = code
        self.param = param
        self.headers = headers or {}


class InvalidRequest(ApiError):
    """400 invalid_request_error, with the code that says what is wrong (parameter_invalid, …)."""


class ResourceMissing(ApiError):
    status = 404
    code = "resource_missing"

    def __init__(
        self, resource: str = "object", object_id: str | None = None, *, param: str | None = None
    ):
        message = (
            _("No such %(resource)s: '%(id)s'.") % {"resource": resource, "id": object_id}
            if object_id
            else _("Unrecognized request URL.")
        )
        super().__init__(message, param=param)


class ChargeNotRefundable(ApiError):
    code = "charge_not_refundable"
    default_message = gettext_noop("This charge cannot be refunded.")


class AmountExceedsRefundable(ApiError):
    code = "amount_exceeds_refundable"
    default_message = gettext_noop(
        "The refund amount is greater than what remains refundable on this charge."
    )


class CheckoutSessionNotOpen(ApiError):
    code = "checkout_session_not_open"
    default_message = gettext_noop("This checkout session is no longer open.")


class CheckoutSessionPaymentPending(ApiError):
    code = "checkout_session_payment_pending"
    default_message = gettext_noop(
        "A payment attempt of this checkout session is still pending: it cannot be expired now."
    )


class PermissionDenied(ApiError):
    status = 403
    type = "permission_error"


class LiveModeNotApproved(PermissionDenied):
    code = "live_mode_not_approved"
    default_message = gettext_noop("This account is not yet approved for live payments.")


class CardRailDisabled(PermissionDenied):
    code = "card_rail_disabled"
    default_message = gettext_noop("Card payments are not enabled for this account.")


class ApiPayoutsDisabled(PermissionDenied):
    code = "api_payouts_disabled"
    default_message = gettext_noop(
        "Payouts by API are turned off for this account: its owner can turn them on in the "
        "dashboard's security settings."
    )


class StatementsBusy(ApiError):
    """429: the account's statements already being sent at once are as many as it may have."""

    status = 429
    type = "rate_limit_error"
    code = "rate_limited"
    default_message = gettext_noop(
        "This account's statements are already being sent, %(count)s at once: retry once one "
        "of them is done."
    )


class IdempotencyError(ApiError):
    type = "idempotency_error"


class IdempotencyKeyInUse(IdempotencyError):
    status = 409
    code = "idempotency_key_in_use"
    default_message = gettext_noop(
        "A request with this Idempotency-Key is still being processed. Retry after it completes."
    )


class IdempotencyKeyInvalid(IdempotencyError):
    code = "idempotency_key_invalid"
    default_message = gettext_noop("Idempotency-Key must be 1 to 255 printable ASCII characters.")


class IdempotencyKeyReused(IdempotencyError):
    code = "idempotency_key_reused"
    default_message = gettext_noop(
        "This Idempotency-Key was already used with another endpoint or another request body."
    )


class ProviderUnavailable(ApiError):
    status = 503
    type = "api_error"
    code = "provider_unavailable"
    default_message = gettext_noop("The payment provider is unavailable. Please retry later.")


class NetworkUnavailable(ApiError):
    """A network that staff closed (an operator's outage or maintenance): nothing new is sent
    to it until it is reopened."""

    status = 503
    type = "api_error"
    code = "network_unavailable"
    default_message = gettext_noop("This network is unavailable at the moment. Please retry later.")


class CardReplyRejected(Exception):
    """A card provider reply posted to our receipt page that we do not trust (bad signature, not
    our charge, or echoes that differ from what we asked for). Shown as a 400 page, never an API
    error: the customer's browser brought it."""


class BalanceInsufficient(ApiError):
    code = "balance_insufficient"
    default_message = gettext_noop("The available balance is lower than the payout amount.")
