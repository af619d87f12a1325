"""The webhooks' own refusals, in the contract's error envelope like every ApiError."""

from django.utils.translation import gettext_noop

from core.errors import ApiError


class ResendsLimited(ApiError):
    """429: one more resend would pass a limit of the last hour (webhooks.services)."""

    status = 429
    type = "rate_limit_error"
    code = "rate_limited"
    EVENT = gettext_noop(
        "This event was already resent %(count)s times in the last hour: retry in %(wait)s seconds."
    )
    ACCOUNT = gettext_noop(
        "This account's events were already resent %(count)s times in the last hour in this "
        "mode: retry in %(wait)s seconds."
    )

    def __init__(self, message: str, *, count: int, wait: int) -> None:
        super().__init__(
            message,
            headers={"Retry-After": str(wait)},
            params={"count": count, "wait": wait},
        )
        self.wait = wait
