"""A bank transfer file: the live bank settlements staff hand to the bank in one go, one
currency a file, as CSV the bank's portal or a spreadsheet reads (docs/operations/staff.md):
UTF-8 with a byte order mark, a header row, CRLF line ends, one line per settlement, text typed
by people made spreadsheet-safe as in the ledger statement.

A file is never stored: its settlements carry its reference (bank_file), and each line comes
from the settlement and its account, which do not change once exported, so the same file is
built again whenever staff download it again."""

import csv

from core import money
from payments.models import Settlement
from payments.statement import BOM, spreadsheet_safe

HEADER = (
    "file_reference",
    "settlement",
    "reference",
    "merchant_name",
    "account_holder",
    "bank_name",
    "account_number",
    "swift",
    "amount",
    "currency",
)


class _Line:
    """A file-like object whose write() returns the line instead of storing it."""

    def write(self, value: str) -> str:
        return value


def bank_file_settlements(reference: str):
    """The settlements of the file `reference`, in the file's order."""
    return (
        Settlement.objects.filter(bank_file=reference)
        .select_related("account", "merchant")
        .order_by("created_at", "id")
    )


def _row(reference: str, settlement: Settlement) -> list[str]:
    account = settlement.account
    return [
        reference,
        settlement.id,
        settlement.reference,
        spreadsheet_safe(settlement.merchant.name),
        spreadsheet_safe(account.account_holder),
        spreadsheet_safe(account.bank_name),
        account.account_number,  # letters and digits only (services.settlements.account_add)
        account.swift,
        money.major_units(settlement.amount),
        settlement.currency,
    ]


def bank_file_text(reference: str, settlements) -> str:
    """The whole file: a few hundred lines at most, the settlements staff selected at once."""
    writer = csv.writer(_Line(), lineterminator="\r\n")
    lines = [BOM + writer.writerow(HEADER)]
    lines += [writer.writerow(_row(reference, settlement)) for settlement in settlements]
    return "".join(lines)


def bank_file_name(reference: str, currency: str) -> str:
    return f"{reference}-{currency}.csv"
