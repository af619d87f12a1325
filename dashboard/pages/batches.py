"""/dashboard/{mode}/payouts/batches/: payout batches from a spreadsheet
(docs/guides/payout-batches.md) through batches' services: the list, a file uploaded into a draft
(once per form), the draft's preview with each row's problems in words, submit, approve (the second
approver's rule of the merchant's security settings: four eyes are two people) or reject, the batch
followed while it is paid, and its results as CSV. A refused action changes nothing and says why on
the batch's page; an action sent twice finds the batch already moved and shows where it stands."""

import hashlib

from django.contrib import messages
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from batches import selectors, services
from batches.errors import BatchStatusInvalid
from batches.models import BatchStatus
from batches.parsing import FileRefused, template
from batches.problems import Problem
from core.errors import ApiError
from dashboard import audit, downloads
from dashboard import services as team_rules
from dashboard.pages.common import livemode, of_merchant, page_of
from dashboard.pages.forms import BatchUploadForm
from dashboard.pages.once import FIELD, once, tell
from dashboard.permissions import can, live_sensitive, merchant_view

COLUMNS = {
    None: gettext_lazy("Row"),
    "phone": gettext_lazy("Phone"),
    "amount": gettext_lazy("Amount"),
    "currency": gettext_lazy("Currency"),
    "network": gettext_lazy("Network"),
    "reference": gettext_lazy("Reference"),
    "description": gettext_lazy("Description"),
}


@merchant_view("view")
def batch_list(request, mode):
    scope = selectors.batches_of(merchant=request.merchant, livemode=livemode(request))
    page = page_of(request, scope.select_related("created_by"), scope=scope)
    return render(request, "dashboard/batches/list.html", {"page": page, "query": ""})


@merchant_view("payouts")
@live_sensitive
def batch_new(request, mode):
    if request.method != "POST":
        return render(request, "dashboard/batches/new.html", {"form": BatchUploadForm()})
    form = BatchUploadForm(request.POST, request.FILES)
    data = form.file_data()
    if data is None:
        return render(request, "dashboard/batches/new.html", {"form": form}, status=400)
    upload = form.cleaned_data["file"]
    replaces = form.cleaned_data["replaces"]
    live = livemode(request)

    def create() -> str:
        batch = services.batch_create_from_file(
            merchant=request.merchant,
            livemode=live,
            data=data,
            filename=upload.name,
            user_id=request.user.pk,
        )
        if replaces:
            services.batch_discard_draft(
                merchant=request.merchant, livemode=live, batch_id=replaces
            )
        return batch.id

    try:
        done = once(
            request,
            key=form.cleaned_data[FIELD],
            data={
                "file": hashlib.sha256(data).hexdigest(),
                "filename": upload.name,
                "replaces": replaces,
            },
            operation=create,
        )
    except FileRefused as refused:
        form.add_error("file", refused.problem.message)
        return render(request, "dashboard/batches/new.html", {"form": form}, status=400)
    except ApiError as error:
        form.add_api_error(error)
        return render(request, "dashboard/batches/new.html", {"form": form}, status=error.status)
    # A file with problems gets no "read" banner: its page's alert, which says that it cannot be
    # submitted and why, is the one message.
    if done.replayed or not services.batch_problems(batch=_batch(request, done.object_id)):
        tell(
            request,
            done,
            made=_("Payout batch %(id)s read: check its rows, then submit it."),
            again=_("This file had already been sent: payout batch %(id)s."),
        )
    return redirect("dashboard:payout-batch", mode=mode, batch_id=done.object_id)


def _batch(request, batch_id):
    return of_merchant(
        selectors.batch_get,
        merchant=request.merchant,
        livemode=livemode(request),
        batch_id=batch_id,
    )


def _rows(batch) -> list[dict]:
    """Each row with its problems in the reader's language, each under its column's name."""
    rows = []
    for item in selectors.batch_items(batch=batch).select_related("payout"):
        problems = [Problem.from_json(data) for data in item.problems]
        rows.append(
            {
                "item": item,
                "problems": [
                    {"column": COLUMNS.get(found.column, found.column), "message": found.message}
                    for found in problems
                ],
            }
        )
    return rows


def _detail(request, batch, *, error: str = "", status: int = 200):
    context = {
        "batch": batch,
        "rows": _rows(batch),
        "counts": services.batch_counts(batch_id=batch.id),
        "processing": batch.status == BatchStatus.PROCESSING,
        "error": error,
    }
    if request.htmx and request.htmx.target == "batch-live":
        return render(request, "dashboard/batches/_live.html", context)
    if batch.status == BatchStatus.DRAFT:
        context["preview"] = services.batch_preview(batch=batch)
        if can(request.membership, "payouts"):
            context["replace_form"] = BatchUploadForm(initial={"replaces": batch.id})
    if batch.status == BatchStatus.AWAITING_APPROVAL:
        context.update(_approval(request, batch))
    return render(request, "dashboard/batches/detail.html", context, status=status)


def _approval(request, batch) -> dict:
    """Who may approve a batch awaiting approval, as its page says it: with a second approver
    required, neither its creator (who uploaded it, or made the API key that created it) nor
    its submitter; a team where no one else may pay out is told so."""
    if not team_rules.second_approver_required(request.merchant):
        return {"approvable": can(request.membership, "payouts")}
    theirs = (batch.created_by_id, batch.submitted_by_id)
    return {
        "approvable": can(request.membership, "payouts") and request.user.pk not in theirs,
        "own_batch": request.user.pk in theirs,
        "no_other_approver": team_rules.approvers_besides(request.merchant, *theirs) == 0,
    }


@merchant_view("view")
def batch_detail(request, mode, batch_id):
    return _detail(request, _batch(request, batch_id))


def _action(service, *, audited: str, done, **options):
    """A POST view of `service` on one batch (batch_submit, batch_approve or batch_reject) for
    the members with the payout right, audited as `audited`, then the batch's page; `options`
    are the service's further arguments, each a function of the request. A batch that has moved
    on already (the form sent twice, or another member was quicker) is shown as it stands; any
    other refusal is said on the batch's page, with its status, and changes nothing."""

    @merchant_view("payouts")
    @live_sensitive
    def view(request, mode, batch_id):
        batch = _batch(request, batch_id)
        if request.method != "POST":
            return redirect("dashboard:payout-batch", mode=mode, batch_id=batch.id)
        try:
            service(
                merchant=request.merchant,
                livemode=livemode(request),
                batch_id=batch.id,
                user_id=request.user.pk,
                **{name: option(request) for name, option in options.items()},
            )
        except BatchStatusInvalid as error:
            messages.info(request, error.localized())
            return redirect("dashboard:payout-batch", mode=mode, batch_id=batch.id)
        except ApiError as error:
            batch.refresh_from_db()
            return _detail(request, batch, error=error.localized(), status=error.status)
        audit.record(request, audited, object_id=batch.id)
        messages.success(request, str(done) % {"id": batch.id})
        return redirect("dashboard:payout-batch", mode=mode, batch_id=batch.id)

    return view


batch_submit = _action(
    services.batch_submit,
    audited="payout_batch.submitted",
    done=gettext_lazy("Payout batch %(id)s submitted: it now awaits approval."),
)
batch_approve = _action(
    services.batch_approve,
    audited="payout_batch.approved",
    done=gettext_lazy("Payout batch %(id)s approved: its payouts are being sent."),
    require_second_approver=lambda request: team_rules.second_approver_required(request.merchant),
)
batch_reject = _action(
    services.batch_reject,
    audited="payout_batch.rejected",
    done=gettext_lazy("Payout batch %(id)s rejected: nothing will be paid."),
)


@merchant_view("payouts")
def batch_results(request, mode, batch_id):
    """The batch's results as CSV (batches.services.results_csv_lines), streamed; with
    `?format=people`, as a spreadsheet in the user's language reads them (dashboard.downloads)."""
    batch = _batch(request, batch_id)
    if request.GET.get("format") == downloads.PEOPLE:
        reader = downloads.people_csv(request)
        return downloads.attachment(
            downloads.batch_results_lines(reader, batch),
            f"{batch.id}-results-{reader.language}.csv",
        )
    response = StreamingHttpResponse(
        services.results_csv_lines(batch=batch), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{batch.id}-results.csv"'
    return response


@merchant_view("view")
def batch_template(request, mode):
    """The batch file's template in the page's language (batches.parsing.template)."""
    language = "en" if (get_language() or "fr").startswith("en") else "fr"
    response = HttpResponse(template(language), content_type="text/csv; charset=utf-8")
    name = {"fr": "modele-lot-de-paiements.csv", "en": "payout-batch-template.csv"}[language]
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
