"""The refusals of payout batches' services, as the API and the dashboard show them."""

from django.utils.translation import gettext_noop

from core.errors import InvalidRequest, PermissionDenied


class BatchHasProblems(InvalidRequest):
    code = "payout_batch_invalid"
    default_message = gettext_noop(
        "Some rows of this payout batch have problems: correct the file and upload it again."
    )


class BatchStatusInvalid(InvalidRequest):
    code = "payout_batch_status_invalid"
    default_message = gettext_noop("This payout batch cannot be changed in its current status.")


class SecondApproverRequired(PermissionDenied):
    code = "second_approver_required"
    default_message = gettext_noop(
        "This payout batch must be approved by another member than the one who submitted it."
    )
