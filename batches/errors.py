"""The refusals of payout batches' services, as the API and the dashboard show them."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from batches.problems import Problem
from core.errors import InvalidRequest, PermissionDenied


class BatchHasProblems(InvalidRequest):
    code = "payout_batch_invalid"
    default_message = gettext_noop(
        "Some rows of this payout batch have problems: correct the file and upload it again."
    )


class ReferenceTaken(BatchHasProblems):
    """A row's reference is held by another batch submitted since this one was checked: the
    dashboard says it of the row, the API as the problem of its item (`problem`, `row`)."""

    def __init__(self, *, row: int, problem: Problem) -> None:
        super().__init__(_("Row %(row)s: %(problem)s") % {"row": row, "problem": problem.message})
        self.row = row
        self.problem = problem


class BatchStatusInvalid(InvalidRequest):
    code = "payout_batch_status_invalid"
    default_message = gettext_noop("This payout batch cannot be changed in its current status.")


class SecondApproverRequired(PermissionDenied):
    code = "second_approver_required"
    default_message = gettext_noop(
        "You uploaded or submitted this payout batch, or made the API key that created it: "
        "another member who may pay out must approve it."
    )
