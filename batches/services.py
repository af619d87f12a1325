"""Payout batches: the only code that changes them (docs/guides/payout-batches.md).

  1. batch_create (a draft from checked rows: a dashboard upload, batch_create_from_file, or the
     API's items), then batch_submit (no row with a problem; each row's reference is then held
     for the merchant and mode, by a unique constraint, until a rejection gives it back) →
     awaiting_approval (a row that fails later gives its reference back: nothing was paid);
     batch_reject, or batch_approve: under the batch's row lock, so that two
     approvals (twice, or two members at once) approve once; the second approver's rule (the
     approver is neither the member who created the batch, or whose key did, nor the one who
     submitted it) and the balance of each currency against the whole batch (its payouts and
     their fees) are checked there.
     Approved → processing. A batch of the API is submitted at once, and approved at once by the
     key holder, unless a live key's merchant requires a second approver: it then awaits a
     member's approval in the dashboard (core.events.api_payout_batch_creating).
  2. batch_pay (a task, BATCH_PAYOUT_RATE rows a second): each row is taken under a row lock
     that skips rows another worker holds, and paid as POST /v1/payouts with the Idempotency-Key
     `{batch id}:{reference}` would pay it (docs/guides/payout-batches.md), through the idempotency
     layer: its payout (payments' payout_create, under the balance lock), the answer stored under
     that key and the row's link to the payout are written in one transaction: a worker killed
     midway leaves a row either paid (all committed) or untouched (none), never paid twice (the link
     is unique). A payout the merchant already made with that key and body is the row's; another
     body fails the row alone; a request holding the key right now leaves the row queued for the
     next run. The batch's next_run_at is pushed out while rows are being paid; the sweep
     (batches_resume) takes up a batch whose worker has gone quiet.
  3. A row follows its payout (item_on_payout_changed, a receiver of payments' payout events);
     a row whose payout is refused (balance_insufficient, network closed…) fails alone, in
     words. Once no row is queued or pending the batch is complete and `payout_batch.completed`
     is announced (core.events.payout_batch_changed), once: the batch's row lock decides.

Services take the acting user's id as a plain value (None for the API: the key holder).
"""

import csv
import json
import logging
import time
from collections.abc import Iterator
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from batches import checks, queues
from batches.errors import (
    BatchHasProblems,
    BatchStatusInvalid,
    ReferenceTaken,
    SecondApproverRequired,
)
from batches.models import (
    ITEM_OPEN,
    BatchSource,
    BatchStatus,
    ItemStatus,
    PayoutBatch,
    PayoutBatchItem,
)
from batches.parsing import parse_file
from batches.problems import Problem, problem
from batches.representations import payout_batch_repr
from core import events, money
from core.api import idempotency
from core.api.renderers import JsonRenderer
from core.carddata import find_card_data
from core.errors import ApiError, BalanceInsufficient, IdempotencyKeyInUse, LiveModeNotApproved
from payments import phones, selectors
from payments.models import ApiKey, Merchant, Payout
from payments.representations import payout_repr
from payments.services import payouts
from payments.statement import BOM, spreadsheet_safe

logger = logging.getLogger("batches.services")
RESUME_BATCH = 100  # batches one sweep takes up at most
SUBMIT_ATTEMPTS = 3  # holds of a batch's references tried, if batches taking them are rejected


# --- Creating, submitting, approving, rejecting -------------------------------------------------


def _moved(
    batch: PayoutBatch, status: str, *, step: str, user_id: int | None, now=None, **fields
) -> PayoutBatch:
    """The batch (locked) moved to `status` by `user_id`: `{step}_by` and `{step}_at` noted."""
    now = now or timezone.now()
    values = {"status": status, f"{step}_by_id": user_id, f"{step}_at": now, "updated_at": now}
    for name, value in {**values, **fields}.items():
        setattr(batch, name, value)
    batch.save(update_fields=[name.removesuffix("_id") for name in {**values, **fields}])
    return batch


def _locked(*, merchant: Merchant, livemode: bool, batch_id: str) -> PayoutBatch:
    return PayoutBatch.objects.select_for_update().get(
        pk=batch_id, merchant=merchant, livemode=livemode
    )


@transaction.atomic
def batch_create(
    *,
    merchant: Merchant,
    livemode: bool,
    rows: list[checks.Row],
    source: str = BatchSource.DASHBOARD,
    user_id: int | None = None,
    api_key: ApiKey | None = None,
    filename: str = "",
) -> PayoutBatch:
    """A draft batch of `rows`, checked by the caller (checks.rows_check): a row with problems
    is kept with them, for the preview. Made with `api_key`, its creator is the member who made
    that key, when the dashboard did."""
    batch = PayoutBatch(
        merchant=merchant,
        livemode=livemode,
        source=source,
        filename=filename[:255],
        created_by_id=api_key.created_by_id if api_key is not None else user_id,
        created_by_key=api_key,
    )
    batch.row_count = len(rows)
    batch.totals = checks.totals(rows)
    batch.save()
    PayoutBatchItem.objects.bulk_create(
        [
            PayoutBatchItem(
                batch=batch,
                merchant=merchant,
                livemode=livemode,
                row=row.number,
                phone=row.phone[:40],
                amount=row.amount,
                currency=row.currency[:10],
                network=row.network[:40],
                reference=row.reference[:200],
                description=row.description,
                problems=[item.as_json() for item in row.problems],
            )
            for row in rows
        ]
    )
    return batch


def batch_create_from_file(
    *, merchant: Merchant, livemode: bool, data: bytes, filename: str = "", user_id=None
) -> PayoutBatch:
    """A draft from an uploaded file (batches.parsing): parsing.FileRefused when the file as a
    whole cannot be read."""
    rows = checks.rows_check(parse_file(data), merchant=merchant, livemode=livemode, api=False)
    return batch_create(
        merchant=merchant,
        livemode=livemode,
        rows=rows,
        source=BatchSource.DASHBOARD,
        user_id=user_id,
        filename=filename,
    )


def _rows_of(batch: PayoutBatch) -> list[checks.Row]:
    return [
        checks.Row(
            number=item.row,
            phone=item.phone,
            amount=item.amount,
            currency=item.currency,
            network=item.network,
            reference=item.reference,
            description=item.description,
            problems=[Problem.from_json(data) for data in item.problems],
        )
        for item in batch.items.order_by("row")
    ]


def batch_problems(*, batch: PayoutBatch) -> list[tuple[int, Problem]]:
    """(row, problem) of every row, in row order then column order."""
    return [(row.number, item) for row in _rows_of(batch) for item in row.problems]


def batch_taken(*, batch: PayoutBatch) -> dict[str, tuple[int, int]]:
    """Per currency, what the batch pays and what its payouts cost in fees by the merchant's
    plan now (checks.fees): each payout takes both from the available balance."""
    fees = checks.fees(batch.items.only("amount", "currency", "network"), merchant=batch.merchant)
    return {
        currency: (amount, fees.get(currency, 0))
        for currency, amount in sorted(batch.totals.items())
    }


def batch_preview(*, batch: PayoutBatch) -> dict:
    """What the preview shows besides the rows: each currency's total, its fees and what the
    batch takes (both) against the available balance, whether the batch may be submitted, and
    the warnings that do not keep it from being submitted (a phone that several rows pay)."""
    available = selectors.balance_get(merchant=batch.merchant, livemode=batch.livemode)
    currencies = [
        {
            "currency": currency,
            "amount": amount,
            "fee": fee,
            "taken": amount + fee,
            "available": available.get(currency, 0),
            "covered": amount + fee <= available.get(currency, 0),
        }
        for currency, (amount, fee) in batch_taken(batch=batch).items()
    ]
    problems = batch_problems(batch=batch)
    warnings = checks.phones_paid_twice(
        batch.items.order_by("row").only("row", "phone", "problems")
    )
    return {
        "totals": currencies,
        "problems": problems,
        "submittable": not problems,
        "warnings": warnings,
    }


@transaction.atomic
def batch_submit(
    *, merchant: Merchant, livemode: bool, batch_id: str, user_id: int | None = None
) -> PayoutBatch:
    """A draft without problems → awaiting_approval, its references held."""
    batch = _locked(merchant=merchant, livemode=livemode, batch_id=batch_id)
    if batch.status != BatchStatus.DRAFT:
        raise BatchStatusInvalid(
            _("Only a draft can be submitted; this payout batch is %(status)s.")
            % {"status": batch.get_status_display()}
        )
    rows = _rows_of(batch)
    if any(row.problems for row in rows):
        raise BatchHasProblems()
    for _attempt in range(SUBMIT_ATTEMPTS):
        # References held by batches submitted since this one was checked.
        _references_free_check(rows, merchant=merchant, livemode=livemode, batch_id=batch.id)
        try:
            with transaction.atomic():
                batch.items.update(reference_held=True, updated_at=timezone.now())
            break
        except IntegrityError:
            # A batch submitted at the same moment holds one of them: the unique index waited
            # for it to commit, so the next check (a new statement, read committed) sees its
            # rows and names the first; unless that batch was rejected since, freeing them.
            continue
    else:
        raise BatchHasProblems(
            _(
                "A reference of this payout batch was just taken by another batch being "
                "submitted: upload the file again to see which."
            )
        )
    batch = _moved(batch, BatchStatus.AWAITING_APPROVAL, step="submitted", user_id=user_id)
    events.payout_batch_awaiting_approval.send(sender=PayoutBatch, instance=batch)
    return batch


def _references_free_check(
    rows: list[checks.Row], *, merchant: Merchant, livemode: bool, batch_id: str
) -> None:
    """ReferenceTaken for the first row whose reference another batch's row holds now."""
    fresh = [checks.Row(number=row.number, reference=row.reference) for row in rows]
    checks.rows_references_check(fresh, merchant=merchant, livemode=livemode, batch_id=batch_id)
    for row in fresh:
        for found in row.problems:
            raise ReferenceTaken(row=row.number, problem=found)


@transaction.atomic
def batch_approve(
    *,
    merchant: Merchant,
    livemode: bool,
    batch_id: str,
    user_id: int | None = None,
    require_second_approver: bool = False,
) -> PayoutBatch:
    """awaiting_approval → processing, once: the batch's row is locked, so that a second
    approval (the same member twice, or two members at once) finds it approved and is refused.
    With `require_second_approver` (the merchant's security setting, which the dashboard
    passes), four eyes are two people: the approver is a member, neither the one who created
    the batch (uploaded it, or made the API key that created it) nor the one who submitted it
    (whether that member may pay out is the dashboard's to check). The whole batch, its
    payouts and their fees, is checked against the available balance of each currency; rows
    that meet an insufficient balance later fail alone."""
    batch = _locked(merchant=merchant, livemode=livemode, batch_id=batch_id)
    if batch.status != BatchStatus.AWAITING_APPROVAL:
        raise BatchStatusInvalid(
            _("This payout batch is %(status)s: only one awaiting approval can be approved.")
            % {"status": batch.get_status_display()}
        )
    if require_second_approver and (
        user_id is None or user_id in (batch.created_by_id, batch.submitted_by_id)
    ):
        raise SecondApproverRequired()
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    available = selectors.balance_get(merchant=merchant, livemode=livemode)
    for currency, (amount, fee) in batch_taken(batch=batch).items():
        if amount + fee > available.get(currency, 0):
            raise BalanceInsufficient(
                _balance_short(currency, available.get(currency, 0), amount, fee),
                param="items",
            )
    now = timezone.now()
    batch.items.update(status=ItemStatus.QUEUED, updated_at=now)
    batch.status = BatchStatus.PROCESSING
    batch.approved_by_id = user_id
    batch.approved_at = now
    batch.next_run_at = now + timedelta(seconds=settings.BATCH_RESUME_AFTER)
    batch.updated_at = now
    batch.save(update_fields=["status", "approved_by", "approved_at", "next_run_at", "updated_at"])
    transaction.on_commit(lambda: queues.batch_pay_enqueue(batch_id=batch.id), robust=True)
    return batch


def _balance_short(currency: str, available: int, amount: int, fee: int) -> str:
    """Why the available balance cannot pay the batch, amounts in the reader's format."""
    language = translation.get_language()
    values = {
        "currency": currency,
        "available": money.format_amount(available, currency, language),
        "amount": money.format_amount(amount, currency, language),
        "fee": money.format_amount(fee, currency, language),
        "taken": money.format_amount(amount + fee, currency, language),
    }
    if not fee:
        return (
            _(
                "The available %(currency)s balance is %(available)s, less than the "
                "%(amount)s this payout batch pays."
            )
            % values
        )
    return (
        _(
            "The available %(currency)s balance is %(available)s, less than the %(taken)s "
            "this payout batch takes: %(amount)s paid out and %(fee)s in fees."
        )
        % values
    )


@transaction.atomic
def batch_reject(
    *, merchant: Merchant, livemode: bool, batch_id: str, user_id: int | None = None
) -> PayoutBatch:
    """A draft or a batch awaiting approval → rejected: nothing is paid, its references are
    free again."""
    batch = _locked(merchant=merchant, livemode=livemode, batch_id=batch_id)
    if batch.status not in (BatchStatus.DRAFT, BatchStatus.AWAITING_APPROVAL):
        raise BatchStatusInvalid(
            _("This payout batch is %(status)s: it can no longer be rejected.")
            % {"status": batch.get_status_display()}
        )
    now = timezone.now()
    batch.items.update(status=ItemStatus.CANCELED, reference_held=False, updated_at=now)
    return _moved(batch, BatchStatus.REJECTED, step="rejected", user_id=user_id, now=now)


@transaction.atomic
def batch_discard_draft(*, merchant: Merchant, livemode: bool, batch_id: str) -> bool:
    """Delete a draft that a corrected file replaces: a draft has paid nothing and holds no
    reference (its rows' references are held only once it is submitted), so nothing of it needs
    keeping. A batch that is no longer a draft (submitted meanwhile), or none, is left alone."""
    batch = (
        PayoutBatch.objects.select_for_update()
        .filter(pk=batch_id, merchant=merchant, livemode=livemode, status=BatchStatus.DRAFT)
        .first()
    )
    if batch is None:
        return False
    batch.items.all().delete()
    batch.delete()
    return True


@transaction.atomic
def batch_create_approved(
    *, merchant: Merchant, livemode: bool, items: list[dict], api_key: ApiKey | None = None
) -> PayoutBatch:
    """POST /v1/payout_batches: the items checked (the first problem is the API's 400, with
    `param` `items[i].column`), then the batch created with `api_key` and submitted at once;
    approved at once by the key holder, unless the key is live and its merchant requires a
    second approver: the batch then awaits approval in the dashboard, by a member with the
    payout right other than the one who made the key."""
    api_items_card_data_check(items)
    rows = api_rows(items)
    checks.rows_check(rows, merchant=merchant, livemode=livemode, api=True)
    for row in rows:
        for found in row.problems:
            raise ApiError(
                found.message,
                code=found.code,
                param=f"items[{row.number}].{found.column}" if found.column else "items",
            )
    batch = batch_create(
        merchant=merchant, livemode=livemode, rows=rows, source=BatchSource.API, api_key=api_key
    )
    try:
        batch = batch_submit(merchant=merchant, livemode=livemode, batch_id=batch.id)
    except ReferenceTaken as taken:
        # Taken by a batch posted at the same moment: said as when it had come first.
        raise ApiError(
            taken.problem.message,
            code=taken.problem.code,
            param=f"items[{taken.row}].{taken.problem.column}",
        ) from None
    if livemode and approval_required(merchant=merchant, api_key=api_key):
        if not merchant.live_approved:
            raise LiveModeNotApproved()  # as the approval would say it
        return batch
    return batch_approve(merchant=merchant, livemode=livemode, batch_id=batch.id)


def approval_required(*, merchant: Merchant, api_key: ApiKey | None) -> bool:
    """Whether a live batch of the API awaits a member's approval: the dashboard's answer
    (core.events.api_payout_batch_creating)."""
    answers = events.api_payout_batch_creating.send(
        sender=PayoutBatch, instance=merchant, api_key=api_key
    )
    return any(answer is True for _receiver, answer in answers)


ITEM_FIELDS = ("phone", "amount", "currency", "network", "reference", "description")


def api_items_card_data_check(items) -> None:
    """Card data in an item (core.carddata, docs/guides/charges.md; each item read as the body
    of POST /v1/payouts it stands for) answers 400 card_data_forbidden, named as the contract names
    an item's params (`items[1].description`). The request's own card data check (StrictSerializer)
    would name it `items[1][description]`: the view runs this one before it."""
    if not isinstance(items, list):
        return  # not a list of items: the body's own check and api_rows say what is wrong
    for index, item in enumerate(items):
        param = find_card_data(item) if isinstance(item, dict) else None
        if param is not None:
            raise ApiError(
                checks.card_data_message(param),
                code="card_data_forbidden",
                param=f"items[{index}].{param}",
            )


def api_rows(items) -> list[checks.Row]:
    """The API's `items` as rows; what is not of the right shape is a problem of its row."""
    if not isinstance(items, list) or not items:
        raise ApiError(
            _("items must be a non-empty list of payouts."), code="parameter_invalid", param="items"
        )
    if len(items) > checks.MAX_ROWS:
        raise ApiError(
            _("items has %(count)s payouts: a batch has at most %(max)s.")
            % {"count": len(items), "max": checks.MAX_ROWS},
            code="parameter_invalid",
            param="items",
        )
    rows = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ApiError(
                _("Each item must be an object."),
                code="parameter_invalid",
                param=f"items[{index}]",
            )
        for key in item:
            if key not in ITEM_FIELDS:
                raise ApiError(
                    _("Received unknown parameter: %(param)s.")
                    % {"param": f"items[{index}].{key}"},
                    code="parameter_unknown",
                    param=f"items[{index}].{key}",
                )
        row = checks.Row(number=index)
        for name in ("phone", "currency", "network", "reference", "description"):
            value = item.get(name, "")
            if not isinstance(value, str):
                row.add(
                    problem(
                        name,
                        "parameter_invalid",
                        lambda name=name: _("%(param)s must be a string.") % {"param": name},
                    )
                )
                continue
            setattr(row, name, value)
        if "amount" not in item:
            row.add(problem("amount", "parameter_missing", lambda: _("The amount is missing.")))
        else:
            checks.check_api_amount(row, item["amount"])
        rows.append(row)
    return rows


# --- Paying ------------------------------------------------------------------------------------


def _payout_body(item: PayoutBatchItem) -> dict:
    """The body of the POST /v1/payouts that pays the row, as an API client would send it."""
    body = {
        "amount": item.amount,
        "currency": item.currency,
        "phone": item.phone,
        "network": item.network,
    }
    if item.description:
        body["description"] = item.description
    body["metadata"] = {"payout_batch": item.batch_id, "reference": item.reference}
    return body


def _answered(payout: Payout) -> HttpResponse:
    """What POST /v1/payouts answers when it makes `payout`, byte for byte, so that a merchant
    sending it with the row's key gets the very answer the API would have stored."""
    renderer = JsonRenderer()
    return HttpResponse(
        renderer.render(payout_repr(payout)),
        status=201,
        content_type=f"{renderer.media_type}; charset={renderer.charset}",
    )


def _row_payout(item: PayoutBatchItem) -> Payout:
    """The row's payout, made once under the key {batch id}:{reference} by the idempotency layer
    (docs/guides/idempotency.md), as POST /v1/payouts with that Idempotency-Key would make it: a
    payout the merchant made with that key and body is the one its answer names (replayed); another
    body raises IdempotencyKeyReused, a request holding the key right now IdempotencyKeyInUse. The
    payout is locked, so that a settlement of a replayed one waits for the row's link to it."""
    body = _payout_body(item)
    scope = idempotency.Scope(
        merchant=item.merchant,
        livemode=item.livemode,
        key=item.idempotency_key,
        method="POST",
        path=reverse("payouts"),
        fingerprint=idempotency.fingerprint(body),
    )
    answer = idempotency.run(
        scope=scope,
        operation=lambda: _answered(
            payouts.payout_create(merchant=item.merchant, livemode=item.livemode, **body)
        ),
    )
    return Payout.objects.select_for_update().get(
        pk=json.loads(answer.content)["id"], merchant=item.merchant, livemode=item.livemode
    )


def _row_linked(item: PayoutBatchItem, payout: Payout) -> None:
    """The row follows its payout from now on; a replayed payout may be settled already."""
    item.payout = payout
    item.status = payout.status  # a payout's statuses are a row's: pending, succeeded, failed
    item.failure_code = payout.failure_code
    item.failure_message = payout.failure_message[:500]
    item.reference_held = payout.status != ItemStatus.FAILED  # as item_on_payout_changed
    item.updated_at = timezone.now()
    item.save(
        update_fields=[
            "payout",
            "status",
            "failure_code",
            "failure_message",
            "reference_held",
            "updated_at",
        ]
    )
    if item.status != ItemStatus.PENDING:
        _complete_if_done(item.batch_id)


def _row_failed(item: PayoutBatchItem, exc: ApiError) -> None:
    """A row refused (balance_insufficient, network_unavailable, idempotency_key_reused…) fails
    alone, in words."""
    logger.warning("payout batch %s row %s not paid: %s", item.batch_id, item.row, exc)
    item.status = ItemStatus.FAILED
    item.failure_code = exc.code
    item.failure_message = str(exc)[:500]
    item.reference_held = False  # nothing was paid: the reference may be paid later
    item.updated_at = timezone.now()
    item.save(
        update_fields=["status", "failure_code", "failure_message", "reference_held", "updated_at"]
    )
    _complete_if_done(item.batch_id)


def _pay(item: PayoutBatchItem) -> bool:
    """Pay the row (locked by the caller): linked to its payout, or failed alone. False, with
    nothing written, while another request holds the row's key."""
    try:
        with transaction.atomic(), translation.override("en"):
            payout = _row_payout(item)
    except IdempotencyKeyInUse:
        logger.info(
            "payout batch %s row %s: its key is in use, left queued", item.batch_id, item.row
        )
        return False
    except ApiError as exc:
        _row_failed(item, exc)
        return True
    _row_linked(item, payout)
    return True


def _pay_next(batch_id: str, *, busy: set[int]) -> bool:
    """Pay the batch's next queued row, if any (False: none left to take). A row whose key
    another request holds right now (the merchant's own POST /v1/payouts with that key, still
    running) stays queued, untouched, and is noted in `busy` for this run to pass over: the
    batch's next run comes back to it."""
    while True:
        with transaction.atomic():
            item = (
                PayoutBatchItem.objects.filter(batch_id=batch_id, status=ItemStatus.QUEUED)
                .exclude(pk__in=busy)
                .order_by("row")
                .select_for_update(skip_locked=True, of=("self",))
                .select_related("merchant")
                .first()
            )
            if item is None:
                return False
            if _pay(item):
                return True
        busy.add(item.pk)


def batch_pay(*, batch_id: str) -> int:
    """Pay up to BATCH_PAYOUT_RATE rows of the batch, then come back a second later for the
    next ones (and for rows whose key was in use); returns how many were taken. Several workers
    on one batch share its rows."""
    started = time.monotonic()
    taken = 0
    busy: set[int] = set()
    while taken < settings.BATCH_PAYOUT_RATE and _pay_next(batch_id, busy=busy):
        taken += 1
    more = PayoutBatchItem.objects.filter(batch_id=batch_id, status=ItemStatus.QUEUED).exists()
    now = timezone.now()
    PayoutBatch.objects.filter(pk=batch_id, status=BatchStatus.PROCESSING).update(
        next_run_at=now + timedelta(seconds=settings.BATCH_RESUME_AFTER) if more else None
    )
    if more:
        queues.batch_pay_enqueue(
            batch_id=batch_id, countdown=max(0.0, 1 - (time.monotonic() - started))
        )
    else:
        with transaction.atomic():
            _complete_if_done(batch_id)
    return taken


def batches_resume(*, now=None) -> int:
    """The sweep: batches whose rows are not all paid and whose worker has gone quiet (killed,
    or the broker lost the task) are taken up again."""
    now = now or timezone.now()
    with transaction.atomic():  # two sweeps at once share the due batches out
        ids = list(
            PayoutBatch.objects.filter(status=BatchStatus.PROCESSING, next_run_at__lte=now)
            .order_by("next_run_at")
            .select_for_update(skip_locked=True)
            .values_list("id", flat=True)[:RESUME_BATCH]
        )
        PayoutBatch.objects.filter(pk__in=ids).update(
            next_run_at=now + timedelta(seconds=settings.BATCH_RESUME_AFTER)
        )
    for batch_id in ids:
        queues.batch_pay_enqueue(batch_id=batch_id)
    return len(ids)


# --- Following the payouts ---------------------------------------------------------------------


def item_on_payout_changed(sender, *, instance, **kwargs) -> None:
    """A payout reached its final status (core.events.payout_changed): its row follows, in the
    same transaction."""
    item = (
        PayoutBatchItem.objects.select_for_update()
        .filter(payout_id=instance.pk)
        .only("id", "batch_id")
        .first()
    )
    if item is None:
        return
    PayoutBatchItem.objects.filter(pk=item.pk).update(
        status=instance.status,
        failure_code=instance.failure_code,
        failure_message=instance.failure_message[:500],
        # A row whose payout failed paid nothing: its reference may be paid by a later batch.
        reference_held=instance.status != ItemStatus.FAILED,
        updated_at=timezone.now(),
    )
    _complete_if_done(item.batch_id)


def _complete_if_done(batch_id: str) -> None:
    """Inside a transaction: the batch complete, and announced once, when no row is queued or
    pending. The batch's row lock makes the last of several settling rows see all the others."""
    batch = PayoutBatch.objects.select_for_update().get(pk=batch_id)
    if batch.status != BatchStatus.PROCESSING:
        return
    if batch.items.filter(status__in=ITEM_OPEN).exists():
        return
    now = timezone.now()
    batch.status = BatchStatus.COMPLETE
    batch.completed_at = now
    batch.next_run_at = None
    batch.updated_at = now
    batch.save(update_fields=["status", "completed_at", "next_run_at", "updated_at"])
    events.payout_batch_changed.send(
        sender=PayoutBatch,
        instance=batch,
        type="payout_batch.completed",
        data=payout_batch_repr(batch, counts=batch_counts(batch_id=batch.id)),
        destination_url="",
    )


# --- Reading -----------------------------------------------------------------------------------


def batch_counts(*, batch_id: str) -> dict[str, int]:
    """How many rows are in each state: total, pending (queued or pending), succeeded, failed,
    canceled."""
    by_status = dict(
        PayoutBatchItem.objects.filter(batch_id=batch_id)
        .values_list("status")
        .annotate(count=Count("id"))
        .order_by()
    )
    counts = {
        "total": sum(by_status.values()),
        "pending": sum(by_status.get(status, 0) for status in ITEM_OPEN),
        "succeeded": by_status.get(ItemStatus.SUCCEEDED, 0),
        "failed": by_status.get(ItemStatus.FAILED, 0),
    }
    return counts


RESULTS_HEADER = (
    "phone",
    "amount",
    "currency",
    "network",
    "reference",
    "description",
    "payout_id",
    "status",
    "failure_code",
)


class _Line:
    def write(self, value: str) -> str:
        return value


def _phone_cell(phone: str) -> str:
    """A number we wrote (+243…, E.164) as the statement leaves it; anything else is what the
    uploader typed (a row with a problem), which a spreadsheet could read as a formula."""
    return phone if phones.is_valid_drc_mobile(phone) else spreadsheet_safe(phone)


def results_csv_lines(*, batch: PayoutBatch) -> Iterator[str]:
    """The batch's results as CSV lines (UTF-8 text with a byte order mark, CRLF): the input
    columns, the amount in major units as it was typed, then payout_id, status and
    failure_code; every text cell safe from being read as a formula, as the statement's are.
    For the dashboard's download (a StreamingHttpResponse of these lines)."""
    writer = csv.writer(_Line())
    yield BOM + writer.writerow(RESULTS_HEADER)
    for item in batch.items.order_by("row").iterator(chunk_size=500):
        yield writer.writerow(
            [
                _phone_cell(item.phone),
                money.major_units(item.amount) if item.amount is not None else "",
                *(
                    spreadsheet_safe(text)
                    for text in (
                        item.currency,
                        item.network,
                        item.reference,
                        item.description,
                        item.payout_id or "",
                        item.status,
                        item.failure_code,
                    )
                ),
            ]
        )
