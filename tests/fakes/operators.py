"""Outside parties for tests: a mobile money operator whose refund endpoint cannot be reached.

Payments and status checks behave like the sandbox operator; a refund request fails the way a
live adapter fails when the connection is refused, so nobody knows whether the operator took it.
"""

from payments.providers.base import ProviderError, RefundRequest
from sandbox.providers import SandboxMobileMoney


class UnreachableRefundsOperator(SandboxMobileMoney):
    name = "unreachable-refunds"

    def refund(self, request: RefundRequest):
        raise ProviderError("connection refused by the operator's refund endpoint")


class UnreachableOperator(SandboxMobileMoney):
    """Takes the prompt, but its status enquiry can never be reached (a 5xx, a timeout)."""

    name = "unreachable-status"

    def check_status(self, query):
        raise ProviderError("operator status endpoint answered 503")
