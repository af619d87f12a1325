"""The ledger as a CSV statement for reconciliation in a spreadsheet: UTF-8 with a byte order
mark (so Excel reads it as UTF-8; LibreOffice ignores it), a header row, CRLF line ends, one line
per ledger row with what it came from. Rows are read in chunks of a few thousand, each by a query
of its own that starts after the last row of the one before (keyset), and produced one by one:
a year of them streams without being held in memory, and without a server-side cursor, which
PgBouncer in transaction mode would lose between two chunks."""

import csv
from collections.abc import Iterable, Iterator

from django.db.models import Q, QuerySet

from core import money
from payments.models import LedgerEntry, Settlement
from payments.representations import iso

EXPORT_CHUNK = 2000  # rows read from the database at a time
STATEMENTS_AT_ONCE = 2  # statements being sent at once per account and mode

HEADER = (
    "id",
    "created_at",
    "type",
    "amount",
    "amount_decimal",
    "currency",
    "source",
    "network",
    "phone",
    "operator_reference",
    # Appended, so that a spreadsheet reading the columns above by position still reads them.
    "fee",
    "net",
    "available_on",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


class _Line:
    """A file-like object whose write() returns the line instead of storing it."""

    def write(self, value: str) -> str:
        return value


def spreadsheet_safe(value: str) -> str:
    """Text a spreadsheet could read as a formula is given a leading apostrophe (signed amounts
    and phone numbers, written by us, are left as they are)."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def _origin(entry: LedgerEntry):
    return entry.payout or entry.refund or entry.charge


def _settlement_reference(entry: LedgerEntry) -> str:
    """A settlement's row names it by its source only: its operator reference (a wallet's) is
    read from it. A few rows a day at most."""
    if not entry.source.startswith("stl_"):
        return ""
    found = Settlement.objects.filter(pk=entry.source).values_list("provider_reference", flat=True)
    return next(iter(found), "") or ""


def _row(entry: LedgerEntry) -> list[str]:
    origin = _origin(entry)
    phone = entry.payout.phone if entry.payout else (entry.charge.phone if entry.charge else "")
    network = (
        entry.payout.network if entry.payout else (entry.charge.network if entry.charge else "")
    )
    if origin is None:
        reference = _settlement_reference(entry)
    else:
        # The object's operator_reference as the API shows it (a refund of another payment of its
        # charge: that payment's).
        reference = getattr(origin, "operator_reference", None) or origin.provider_reference
    return [
        entry.id,
        iso(entry.created_at),
        entry.type,
        str(entry.amount),
        money.major_units(entry.amount),
        entry.currency,
        entry.source,
        network,
        phone,
        spreadsheet_safe(reference),
        str(entry.fee),
        str(entry.amount - entry.fee),
        iso(entry.available_on or entry.created_at),
    ]


def statement_lines(entries: Iterable[LedgerEntry]) -> Iterator[str]:
    writer = csv.writer(_Line(), lineterminator="\r\n")
    yield BOM + writer.writerow(HEADER)
    for entry in entries:
        yield writer.writerow(_row(entry))


def rows_in_chunks(rows: QuerySet, *, chunk: int, newest_first: bool = False) -> Iterator:
    """The rows of `rows` (ordered by created_at, then id; both descending when `newest_first`),
    `chunk` at a time: each chunk is one query of its own, in its own transaction, for the rows
    after the last one read."""
    beyond = "lt" if newest_first else "gt"
    after = Q()
    while True:
        batch = list(rows.filter(after)[:chunk])
        yield from batch
        if len(batch) < chunk:
            return
        last = batch[-1]
        after = Q(**{f"created_at__{beyond}": last.created_at}) | Q(
            created_at=last.created_at, **{f"id__{beyond}": last.id}
        )
