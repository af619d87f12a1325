"""Reading a payout batch file (docs/guides/payout-batches.md): CSV in UTF-8 with or without a byte
order mark, `,` or `;` between cells (the delimiter is sniffed from the header line, which has no
other punctuation; cells are otherwise read as spreadsheets write them, quotes inside a quoted cell
doubled: `"Prime ""novembre"", bonus"`), Windows or Unix line ends, the header
`phone,amount,currency,network,reference,description` (network and description optional, any order),
at most MAX_ROWS rows and MAX_BYTES bytes. Blank rows (Excel writes `;;;;;` for them) are skipped.

Amounts are in major units, as people type them: `25000`, `25000.00`, `25000,00`, read exactly
(Decimal, never a float). A decimal comma is unambiguous in a `;` file; in a `,` file a cell
holding one must be quoted (`"12,00"`), as spreadsheets write it, else the row has a cell too
many (even when that cell is empty), which is said in words instead of what the shifted cells
would say. Refused in words: more than 2 decimals, a thousands separator (`25 000`, `25,000.00`,
`25.000`: three digits after the only separator read as thousands), and cents (`12,50`: mobile money
pays whole units, docs/guides/charges.md). An amount's cell holding card data is refused as card
data, without being said back.

A problem of the file as a whole (not UTF-8, too large, no header…) raises FileRefused; a
problem of a row is noted on that row and column (batches.problems) and every row is read."""

import csv
import io
import re
import unicodedata
from decimal import Decimal

from django.utils.translation import gettext as _

from batches.checks import MAX_ROWS, Row, card_data_message
from batches.problems import Problem, problem
from core import money
from core.carddata import contains_card_number

# 1 MB, as docs/guides/payout-batches.md says: strictly less than MAX_REQUEST_BODY (1 MiB, the
# largest body the service takes), so that every file of 1 MB fits in the upload's form with room to
# spare, and one a little larger still reaches the page and is refused there in words rather than
# with the bare 413.
MAX_BYTES = 1_000_000
REQUIRED = ("phone", "amount", "currency", "reference")
OPTIONAL = ("network", "description")
HEADER = "phone,amount,currency,network,reference,description"
# The columns' French names, which a file may give instead (the French template's header):
# accents optional, as keyboards and spreadsheets type them.
FRENCH_COLUMNS = {
    "téléphone": "phone",
    "telephone": "phone",
    "montant": "amount",
    "devise": "currency",
    "réseau": "network",
    "reseau": "network",
    "référence": "reference",
    "description": "description",
}
FRENCH_HEADER = "téléphone;montant;devise;réseau;référence;description"

# Digits with at most one separator, `.` or `,`, followed by 1 or 2 digits.
PLAIN = re.compile(r"([0-9]+)(?:[.,]([0-9]{1,2}))?")
THOUSANDS = re.compile(r"[0-9]{1,3}(?:[ \u00a0\u202f\u2009'.,][0-9]{3})+(?:[.,][0-9]*)?")


class FileRefused(Exception):
    """The file cannot be read as a payout batch; `problem` says why, in every language."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.messages.get("en", problem.code))
        self.problem = problem


def too_large() -> str:
    """What a file over MAX_BYTES is told, here and on the upload page before it is sent."""
    return _("The file is larger than 1 MB: split it into several batches.")


def _refuse(code: str, words) -> FileRefused:
    return FileRefused(problem(None, code, words))


def parse_amount(text: str) -> tuple[int | None, Problem | None]:
    """Major units as typed → (minor units, None), or (None, the problem in words)."""
    value = text.strip()
    if not value:
        return None, problem("amount", "parameter_missing", lambda: _("The amount is missing."))
    match = PLAIN.fullmatch(value)
    if match is None:
        if THOUSANDS.fullmatch(value):
            return None, problem(
                "amount",
                "amount_invalid",
                lambda: (
                    _(
                        "%(amount)s has a thousands separator (or more than 2 decimals): write the "
                        "amount with digits only and at most 2 decimals (e.g. 25000 or 25000,00)."
                    )
                    % {"amount": value}
                ),
            )
        if re.fullmatch(r"[0-9]+[.,][0-9]{3,}", value):
            return None, problem(
                "amount",
                "amount_invalid",
                lambda: _("%(amount)s has more than 2 decimals.") % {"amount": value},
            )
        return None, problem(
            "amount",
            "amount_invalid",
            lambda: (
                _(
                    "%(amount)s is not an amount: write it in francs or dollars, with digits only "
                    "and at most 2 decimals (e.g. 25000 or 25000,00)."
                )
                % {"amount": value}
            ),
        )
    units, cents = match.group(1), (match.group(2) or "").ljust(2, "0")
    amount = int(Decimal(f"{units}.{cents}").scaleb(2))
    if not money.is_whole(amount):
        return None, problem(
            "amount",
            "amount_invalid",
            lambda: (
                _(
                    "%(amount)s has cents: mobile money pays whole francs or dollars only "
                    "(e.g. 12 or 12,00)."
                )
                % {"amount": value}
            ),
        )
    if amount <= 0:
        return None, problem(
            "amount",
            "amount_invalid",
            lambda: _("The amount must be greater than zero."),
        )
    if amount > 999_999_999_999:
        return None, problem(
            "amount", "amount_invalid", lambda: _("%(amount)s is too large.") % {"amount": value}
        )
    return amount, None


def _decode(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise _refuse("file_too_large", too_large)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _refuse(
            "file_not_utf8",
            lambda: _(
                "The file is not in UTF-8: save it as “CSV UTF-8” (Excel) or choose the UTF-8 "
                "character set (LibreOffice)."
            ),
        ) from None
    # No spreadsheet writes a NUL character in a CSV file; a file that holds one is no text to
    # read (and no database keeps it).
    if "\x00" in text:
        raise _refuse(
            "file_invalid",
            lambda: _(
                "The file holds characters that are not text (NUL): save it again as “CSV UTF-8” "
                "(Excel) or as CSV in the UTF-8 character set (LibreOffice)."
            ),
        )
    return text


def _delimiter(header_line: str) -> str:
    """The header's delimiter, `,` or `;` (the header has no other punctuation). Only the
    delimiter is taken from the sniffer: what it guesses of the quoting from a header without
    quotes (doublequote=False) would misread the quotes spreadsheets double inside a cell."""
    try:
        return csv.Sniffer().sniff(header_line, delimiters=",;").delimiter
    except csv.Error:
        return ";" if header_line.count(";") > header_line.count(",") else ","


def _column_name(cell: str) -> str:
    name = unicodedata.normalize("NFC", cell.strip().lower())
    return FRENCH_COLUMNS.get(name, name)


def _columns(header: list[str]) -> dict[str, int]:
    names = [_column_name(name) for name in header]
    for name in names:
        if name not in REQUIRED + OPTIONAL:
            raise _refuse(
                "header_invalid",
                lambda name=name: (
                    _("Unknown column “%(column)s” in the first row: the columns are %(header)s.")
                    % {"column": name, "header": HEADER}
                ),
            )
        if names.count(name) > 1:
            raise _refuse(
                "header_invalid",
                lambda name=name: _("The column “%(column)s” is given twice.") % {"column": name},
            )
    missing = [name for name in REQUIRED if name not in names]
    if missing:
        raise _refuse(
            "header_invalid",
            lambda: (
                _(
                    "The first row must name the columns %(header)s (network and description may be "
                    "left out); missing: %(missing)s."
                )
                % {"header": HEADER, "missing": ", ".join(missing)}
            ),
        )
    return {name: index for index, name in enumerate(names)}


def _empty() -> FileRefused:
    return _refuse(
        "file_empty",
        lambda: _("The file is empty: its first row must be %(header)s.") % {"header": HEADER},
    )


def _blank(record: list[str]) -> bool:
    return not any(cell.strip() for cell in record)


def parse_file(data: bytes) -> list[Row]:
    """The rows of an uploaded file, each with the problems its reading found (see the module's
    docstring); FileRefused when the file as a whole cannot be taken."""
    text = _decode(data)
    # The header is the first line that is not empty (a spreadsheet's own empty rows above it
    # are `;;;;;` or nothing).
    first_line = next((line for line in text.splitlines() if line.strip(" \t,;")), "")
    if not first_line:
        raise _empty()
    delimiter = _delimiter(first_line)
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), "excel", delimiter=delimiter))
    except csv.Error as exc:
        reason = str(exc)
        raise _refuse(
            "file_invalid",
            lambda: _("The file cannot be read as CSV: %(reason)s.") % {"reason": reason},
        ) from None
    header = next((index for index, record in enumerate(records) if not _blank(record)), None)
    if header is None:
        raise _empty()
    columns = _columns(records[header])
    numbered = [
        (index + 1, record) for index, record in enumerate(records[header + 1 :], start=header + 1)
    ]
    numbered = [(number, record) for number, record in numbered if not _blank(record)]
    if not numbered:
        raise _refuse("file_empty", lambda: _("The file has no rows to pay."))
    if len(numbered) > MAX_ROWS:
        raise _refuse(
            "too_many_rows",
            lambda: (
                _("The file has %(count)s rows: a batch has at most %(max)s.")
                % {"count": len(numbered), "max": MAX_ROWS}
            ),
        )
    return [_row(number, record, columns) for number, record in numbered]


def _split_amount(record: list[str], columns: dict[str, int]) -> bool:
    """Whether a row with more cells than the header looks like an amount with a decimal comma
    left unquoted in a `,` file (`12,00` read as `12` and `00`), even when the cells it pushed
    past the header are empty."""
    index = columns["amount"]
    if len(record) <= max(len(columns), index + 1):
        return False
    return re.fullmatch(r"[0-9]+,[0-9]{1,3}", f"{record[index]},{record[index + 1]}") is not None


def _row(number: int, record: list[str], columns: dict[str, int]) -> Row:
    def cell(name: str) -> str:
        index = columns.get(name)
        return record[index] if index is not None and index < len(record) else ""

    row = Row(
        number=number,
        phone=cell("phone").strip(),
        currency=cell("currency").strip(),
        network=cell("network").strip(),
        reference=cell("reference").strip(),
        description=cell("description").strip(),
    )
    extra = [cell for cell in record[len(columns) :] if cell.strip()]
    if extra or _split_amount(record, columns):
        row.add(
            problem(
                None,
                "row_invalid",
                lambda: _(
                    "This row has more cells than the header: in a file separated by commas, "
                    'an amount with a decimal comma must be in quotes ("12,00"), or use “;” '
                    "between cells."
                ),
            )
        )
        return row  # its cells are not where the header says: nothing more can be read
    if contains_card_number(cell("amount")):  # refused without the words that would repeat it
        row.add(problem("amount", "card_data_forbidden", lambda: card_data_message("amount")))
        return row
    row.amount, amount_problem = parse_amount(cell("amount"))
    if amount_problem is not None:
        row.add(amount_problem)
    return row


# The template offered for download: the header and two rows to overwrite, in the page's
# language. The French one is what a French spreadsheet opens as columns (`;`, a byte order mark
# for Excel's UTF-8). Its phone numbers are written with spaces, which a spreadsheet keeps as text
# (digits alone lose their leading 0, or turn into 8.12E+08) and this file's reading takes.
TEMPLATES = {
    "fr": (
        FRENCH_HEADER.split(";"),
        ";",
        [
            ["0812 345 678", "25000", "CDF", "", "SAL-001", "Salaire de novembre"],
            ["0991 234 567", "15", "USD", "", "SAL-002", "Prime de fin d’année"],
        ],
    ),
    "en": (
        HEADER.split(","),
        ",",
        [
            ["0812 345 678", "25000", "CDF", "", "SAL-001", "November salary"],
            ["0991 234 567", "15", "USD", "", "SAL-002", "Year-end bonus"],
        ],
    ),
}


def template(language: str) -> bytes:
    """The batch template in `language` (French unless English), as a CSV file's bytes."""
    header, delimiter, rows = TEMPLATES["en" if language.startswith("en") else "fr"]
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return ("\ufeff" + out.getvalue()).encode("utf-8")
