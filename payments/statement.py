"""The ledger as a CSV statement for reconciliation in a spreadsheet: UTF-8 with a byte order
mark (so Excel reads it as UTF-8; LibreOffice ignores it), a header row, CRLF line ends, one line
per ledger row with what it came from. Rows are produced one by one, so a year of them streams
without being held in memory."""

import csv
from collections.abc import Iterable, Iterator

from payments import money
from payments.models import LedgerEntry
from payments.representations import iso

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
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


class _Line:
    """A file-like object whose write() returns the line instead of storing it."""

    def write(self, value: str) -> str:
        return value


def _cell(value: str) -> str:
    """Text a spreadsheet could read as a formula is given a leading apostrophe (signed amounts
    and phone numbers, written by us, are left as they are)."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def _origin(entry: LedgerEntry):
    return entry.payout or entry.refund or entry.charge


def _row(entry: LedgerEntry) -> list[str]:
    origin = _origin(entry)
    phone = entry.payout.phone if entry.payout else (entry.charge.phone if entry.charge else "")
    network = (
        entry.payout.network if entry.payout else (entry.charge.network if entry.charge else "")
    )
    reference = getattr(origin, "provider_reference", "") or ""
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
        _cell(reference),
    ]


def statement_lines(entries: Iterable[LedgerEntry]) -> Iterator[str]:
    writer = csv.writer(_Line(), lineterminator="\r\n")
    yield BOM + writer.writerow(HEADER)
    for entry in entries:
        yield writer.writerow(_row(entry))
