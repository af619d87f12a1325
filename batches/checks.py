"""The checks every row of a payout batch passes before anything is paid, the same for a file
uploaded to the dashboard (batches.parsing) and for the items of POST /v1/payout_batches: a
DRC mobile number (payments.phones, the one reading of numbers), a network (given, or predicted from
the number's prefix, docs/guides/networks.md), an amount within that network's limits
(payments.services.networks, the one rule) in whole units, a supported currency, a reference that no
other row of the batch and no submitted row of an earlier batch has (same merchant and mode), a
description of at most 1,000 characters, and no card data in any cell (core.carddata, the rule
the API applies to every field: docs/guides/charges.md). Each problem is noted on its row and column
(batches.problems)."""

from dataclasses import dataclass, field

from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from batches.models import REFERENCE_MAX, PayoutBatchItem
from batches.problems import Problem, column_order, problem
from core import money
from core.api.fields import AMOUNT_MAX, AMOUNT_MIN, DESCRIPTION_MAX
from core.carddata import contains_card_number
from payments import phones, pricing
from payments.models import Currency, Merchant, Network
from payments.services import networks, payouts

MAX_ROWS = 1000
# The text cells of a row, each looked at for card data before anything else (the amount's cell
# is looked at as it is read: batches.parsing).
TEXT_COLUMNS = ("phone", "currency", "network", "reference", "description")


@dataclass
class Row:
    """One payout of a batch as read: `number` is the row of the file (the header is row 1) or
    the index in the API's `items`."""

    number: int
    phone: str = ""
    amount: int | None = None  # minor units; None when it could not be read
    currency: str = ""
    network: str = ""
    reference: str = ""
    description: str = ""
    problems: list[Problem] = field(default_factory=list)

    def has_problem(self, column: str) -> bool:
        return any(item.column == column for item in self.problems)

    def add(self, item: Problem) -> None:
        self.problems.append(item)


def card_data_message(param: str) -> str:
    """What card data in `param` (a column, or a field of an API item) is told, without it."""
    return _(
        "%(param)s holds card data: card details are never taken here, card payments are "
        "entered on the card provider's hosted page only."
    ) % {"param": param}


def _holds_card_data(row: Row, column: str) -> bool:
    value = getattr(row, column)
    if column == "phone" and phones.predict(value) is not None:
        return False  # a DRC number as people type it (00243…, +243 0…) may have 13 or 14 digits
    return contains_card_number(value)


def _check_card_data(row: Row) -> None:
    """A cell holding card data is refused on its row, and emptied: the card number is neither
    stored with the row nor said back in another problem's words (the other checks pass over a
    column that already has its problem)."""
    for column in TEXT_COLUMNS:
        if _holds_card_data(row, column):
            setattr(row, column, "")
            row.add(
                problem(
                    column, "card_data_forbidden", lambda column=column: card_data_message(column)
                )
            )


def _where(number: int, api: bool) -> str:
    return f"items[{number}]" if api else _("row %(row)s") % {"row": number}


def _check_phone(row: Row, *, api: bool) -> None:
    raw = row.phone
    if row.has_problem("phone"):
        return
    if not raw.strip():
        row.add(problem("phone", "parameter_missing", lambda: _("The phone number is missing.")))
        return
    if api:
        if not phones.is_valid_drc_mobile(raw):
            row.add(
                problem(
                    "phone",
                    phones.PHONE_INVALID,
                    lambda: (
                        _(
                            "%(phone)s is not a DRC mobile number in E.164 format: +243 then 9 "
                            "digits starting with 8 or 9 (e.g. +243812345678)."
                        )
                        % {"phone": raw}
                    ),
                )
            )
        return
    prediction = phones.predict(raw)
    if prediction is None:
        row.add(
            problem(
                "phone",
                phones.PHONE_INVALID,
                lambda: (
                    _(
                        "%(phone)s is not a DRC mobile number: write 10 digits starting with 08 or 09 "
                        "(e.g. 0812345678), or +243 then 9 digits (e.g. +243812345678)."
                    )
                    % {"phone": raw}
                ),
            )
        )
        return
    row.phone = prediction.phone


def _check_network(row: Row, *, api: bool) -> None:
    if row.has_problem("network"):
        return
    phone_ok = not row.has_problem("phone")
    value = row.network.strip().upper()
    if not value:
        if api:
            row.add(problem("network", "parameter_missing", lambda: _("The network is missing.")))
            return
        if not phone_ok:
            return  # nothing to predict it from; the phone's problem says why
        predicted = phones.network_for(row.phone)
        if predicted is None:
            row.add(
                problem(
                    "network",
                    "parameter_missing",
                    lambda: (
                        _(
                            "No operator is known for the prefix of %(phone)s: give the network "
                            "(%(networks)s)."
                        )
                        % {"phone": row.phone, "networks": ", ".join(Network.values)}
                    ),
                )
            )
            return
        row.network = predicted
        return
    if value not in Network.values:
        row.add(
            problem(
                "network",
                "parameter_invalid",
                lambda: (
                    _("Unknown network %(network)s: use one of %(networks)s.")
                    % {"network": row.network, "networks": ", ".join(Network.values)}
                ),
            )
        )
        return
    row.network = value
    if phone_ok and phones.phone_problem(row.phone, value) == phones.PHONE_NETWORK_MISMATCH:
        owner = phones.network_for(row.phone)
        row.add(
            problem(
                "phone",
                phones.PHONE_NETWORK_MISMATCH,
                lambda: (
                    _("The number %(phone)s belongs to %(owner)s, not %(network)s.")
                    % {"phone": row.phone, "owner": owner, "network": value}
                ),
            )
        )


def _check_currency(row: Row) -> None:
    if row.has_problem("currency"):
        return
    value = row.currency.strip().upper()
    if value not in Currency.values:
        row.add(
            problem(
                "currency",
                "currency_not_supported",
                lambda: (
                    _("Unsupported currency %(currency)s: use one of %(currencies)s.")
                    % {"currency": row.currency or '""', "currencies": ", ".join(Currency.values)}
                ),
            )
        )
        return
    row.currency = value


def check_api_amount(row: Row, value) -> None:
    """The API's `amount`: a JSON integer of minor units, in range, of whole units."""
    if type(value) is not int:
        row.add(
            problem(
                "amount",
                "amount_invalid",
                lambda: _(
                    "amount must be a JSON integer in the smallest currency unit "
                    "(e.g. 2500000 = 25 000.00)."
                ),
            )
        )
    elif not AMOUNT_MIN <= value <= AMOUNT_MAX:
        row.add(
            problem(
                "amount",
                "amount_invalid",
                lambda: (
                    _("amount must be between %(min)s and %(max)s.")
                    % {"min": AMOUNT_MIN, "max": AMOUNT_MAX}
                ),
            )
        )
    elif not money.is_whole(value):
        row.add(
            problem(
                "amount",
                "amount_invalid",
                lambda: _(
                    "Mobile money pays whole units only: amount must be a multiple of 100 "
                    "(e.g. 2500 = 25.00)."
                ),
            )
        )
    else:
        row.amount = value


def _check_limits(row: Row) -> None:
    if row.amount is None or row.has_problem("amount"):
        return
    if row.has_problem("currency") or row.network not in Network.values:
        return
    if not networks.network_takes(network=row.network, currency=row.currency, amount=row.amount):
        network, currency = row.network, row.currency
        row.add(
            problem(
                "amount",
                "amount_invalid",
                lambda: networks.limits_message(network=network, currency=currency),
            )
        )


def _check_reference(row: Row) -> None:
    row.reference = row.reference.strip()
    if row.has_problem("reference"):
        return
    if not row.reference:
        row.add(
            problem(
                "reference",
                "parameter_missing",
                lambda: _(
                    "The reference is missing: give each row a reference of your own "
                    "(an invoice or employee number), so that it is never paid twice."
                ),
            )
        )
    elif len(row.reference) > REFERENCE_MAX:
        row.add(
            problem(
                "reference",
                "parameter_invalid",
                lambda: (
                    _("The reference is longer than %(max)s characters.") % {"max": REFERENCE_MAX}
                ),
            )
        )


def _check_description(row: Row) -> None:
    if not row.has_problem("description") and len(row.description) > DESCRIPTION_MAX:
        row.add(
            problem(
                "description",
                "parameter_invalid",
                lambda: (
                    _("The description is longer than %(max)s characters.")
                    % {"max": DESCRIPTION_MAX}
                ),
            )
        )


def rows_references_check(
    rows: list[Row],
    *,
    merchant: Merchant,
    livemode: bool,
    api: bool = False,
    batch_id: str | None = None,
) -> None:
    """A reference given twice in the batch, or held by a submitted row of an earlier batch of
    the merchant in this mode."""
    first: dict[str, int] = {}
    for row in rows:
        if not row.reference or row.has_problem("reference"):
            continue
        if row.reference in first:
            other = first[row.reference]
            row.add(
                problem(
                    "reference",
                    "reference_duplicate",
                    lambda row=row, other=other: (
                        _(
                            "The reference %(reference)s is also that of %(other)s: each row needs "
                            "its own."
                        )
                        % {"reference": row.reference, "other": _where(other, api)}
                    ),
                )
            )
        else:
            first[row.reference] = row.number
    earlier = (
        PayoutBatchItem.objects.filter(
            merchant=merchant, livemode=livemode, reference_held=True, reference__in=list(first)
        )
        .exclude(batch_id=batch_id)
        .values_list("reference", "batch_id", "row")
    )
    taken = {reference: (batch, number) for reference, batch, number in earlier}
    for row in rows:
        if row.reference in taken and first.get(row.reference) == row.number:
            batch, number = taken[row.reference]
            row.add(
                problem(
                    "reference",
                    "reference_duplicate",
                    lambda row=row, batch=batch, number=number: (
                        _(
                            "The reference %(reference)s was already used in payout batch "
                            "%(batch)s (row %(row)s): it is not paid twice."
                        )
                        % {"reference": row.reference, "batch": batch, "row": number}
                    ),
                )
            )


def rows_check(
    rows: list[Row],
    *,
    merchant: Merchant,
    livemode: bool,
    api: bool,
    batch_id: str | None = None,
) -> list[Row]:
    """Check every row (in place, adding to the problems a file's reading found) and return them.
    The API reads numbers strictly (E.164, a network given); a file as people type them."""
    for row in rows:
        _check_card_data(row)  # first, even on a row whose cells could not be placed
        if any(item.column is None for item in row.problems):
            continue  # a row whose cells could not be placed (parsing): its one problem says why
        _check_phone(row, api=api)
        _check_network(row, api=api)
        _check_currency(row)
        _check_limits(row)
        _check_reference(row)
        _check_description(row)
    rows_references_check(rows, merchant=merchant, livemode=livemode, api=api, batch_id=batch_id)
    for row in rows:
        row.problems.sort(key=column_order)
    return rows


def phones_paid_twice(items) -> list[str]:
    """A warning, in the reader's language, for each phone that several rows pay (rows whose
    number could be read), in the order of their first row. Not a problem: paying one person
    twice may be meant (a salary and a bonus), so whoever submits the batch decides."""
    rows_of: dict[str, list[int]] = {}
    for item in items:
        if item.phone and not any(found.get("column") == "phone" for found in item.problems):
            rows_of.setdefault(item.phone, []).append(item.row)
    return [
        ngettext(
            "Rows %(rows)s all pay %(phone)s: check that this person is to be paid %(count)s "
            "time before you submit the batch.",
            "Rows %(rows)s all pay %(phone)s: check that this person is to be paid %(count)s "
            "times before you submit the batch.",
            len(rows),
        )
        % {
            "rows": get_text_list([str(row) for row in rows], _("and")),
            "phone": phone,
            "count": len(rows),
        }
        for phone, rows in rows_of.items()
        if len(rows) > 1
    ]


def totals(rows) -> dict[str, int]:
    """What the rows add up to, per currency (rows whose amount or currency could not be read
    left out)."""
    sums: dict[str, int] = {}
    for row in rows:
        if row.amount is not None and row.currency in Currency.values:
            sums[row.currency] = sums.get(row.currency, 0) + row.amount
    return dict(sorted(sums.items()))


def fees(rows, *, merchant: Merchant) -> dict[str, int]:
    """What the rows' payouts cost in fees by the merchant's plan now, per currency (rows left
    out as totals leaves them out). Each payout takes its amount and its fee from the available
    balance (payments.services.payouts.payout_fee)."""
    plan = pricing.plan_of(merchant)
    sums: dict[str, int] = {}
    for row in rows:
        if row.amount is not None and row.currency in Currency.values:
            fee = payouts.payout_fee(
                merchant=merchant,
                amount=row.amount,
                currency=row.currency,
                network=row.network,
                plan=plan,
            )
            sums[row.currency] = sums.get(row.currency, 0) + fee
    return dict(sorted(sums.items()))
