"""Operator statements in the generic format of contract §21, read and written.

A statement is a CSV file (UTF-8, an optional byte order mark, a header row):

    operator_reference,merchant_reference,type,amount,currency,status,completed_at,fee

Reading is strict, with the standard `csv` module: a file with one bad line is refused whole,
every problem said in words with its line number, and nothing is recorded. The operators' own
portal exports are read through this format (docs/providers/): where an operator publishes no
sample of its export, its statements are loaded in this one."""

import csv
import hashlib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils.translation import gettext as _

from core.money import Currency

COLUMNS = (
    "operator_reference",
    "merchant_reference",
    "type",
    "amount",
    "currency",
    "status",
    "completed_at",
    "fee",
)
TYPES = ("collection", "disbursement", "reversal")
STATUSES = ("succeeded", "failed")
MAX_ERRORS = 20  # problems listed before the rest are only counted
# Our ids as the adapters send them: a prefix and 24 letters and digits, the underscore kept or
# dropped (Airtel's references allow letters and digits only).
OUR_ID = re.compile(r"^(ch|re|po|stl)_?([A-Za-z0-9]{24})$")


class StatementInvalid(Exception):
    """The file cannot be read as a statement: each problem in words."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Line:
    number: int  # the line of the file (the header is line 1)
    operator_reference: str
    merchant_reference: str
    type: str
    amount: int
    currency: str
    status: str
    completed_at: datetime
    fee: int


def file_hash(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def our_id(reference: str) -> str:
    """Our object's id from the reference a line carries (ours as sent, with or without its
    underscore); empty when it is not one of ours."""
    found = OUR_ID.match(reference.strip())
    return f"{found.group(1)}_{found.group(2)}" if found else ""


def _positive(text: str, *, zero: bool) -> int | None:
    if not re.fullmatch(r"[0-9]+", text):
        return None
    value = int(text)
    return value if value > 0 or (zero and value == 0) else None


def _moment(text: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        return None
    if value.tzinfo is None:  # a statement without an offset speaks UTC
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _line(number: int, row: dict[str, str], problems: list[str]) -> Line | None:
    values = {name: (row.get(name) or "").strip() for name in COLUMNS}
    found = len(problems)
    where = {"line": number}
    amount = _positive(values["amount"], zero=False)
    if amount is None:
        problems.append(
            _("Line %(line)s: the amount “%(value)s” is not a whole positive number.")
            % {**where, "value": values["amount"]}
        )
    fee = _positive(values["fee"] or "0", zero=True)
    if fee is None:
        problems.append(
            _("Line %(line)s: the fee “%(value)s” is not a whole number.")
            % {**where, "value": values["fee"]}
        )
    if values["type"] not in TYPES:
        problems.append(
            _("Line %(line)s: the type “%(value)s” is not collection, disbursement or reversal.")
            % {**where, "value": values["type"]}
        )
    if values["status"] not in STATUSES:
        problems.append(
            _("Line %(line)s: the status “%(value)s” is not succeeded or failed.")
            % {**where, "value": values["status"]}
        )
    if values["currency"] not in Currency.values:
        problems.append(
            _("Line %(line)s: the currency “%(value)s” is not CDF or USD.")
            % {**where, "value": values["currency"]}
        )
    completed_at = _moment(values["completed_at"])
    if completed_at is None:
        problems.append(
            _("Line %(line)s: the date “%(value)s” is not a date and time (ISO 8601).")
            % {**where, "value": values["completed_at"]}
        )
    if not values["operator_reference"] and not values["merchant_reference"]:
        problems.append(
            _("Line %(line)s: neither the operator's reference nor ours is given.") % where
        )
    if len(problems) > found:
        return None
    return Line(
        number=number,
        operator_reference=values["operator_reference"],
        merchant_reference=values["merchant_reference"],
        type=values["type"],
        amount=amount,
        currency=values["currency"],
        status=values["status"],
        completed_at=completed_at,
        fee=fee,
    )


def parse_generic(content: bytes, *, header_line: int = 1) -> list[Line]:
    """Every line of a generic statement, or StatementInvalid naming every problem found (each
    line numbered as in the file, whose header is on `header_line`)."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StatementInvalid([_("The file is not UTF-8 text.")]) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise StatementInvalid(
            [
                _("Line %(line)s is not valid CSV (%(error)s).")
                % {"line": reader.line_num, "error": exc}
            ]
        ) from None
    if not rows:
        raise StatementInvalid([_("The file is empty.")])
    header = [name.strip() for name in rows[0]]
    if tuple(header) != COLUMNS:
        raise StatementInvalid(
            [
                _("The first line must name the columns %(columns)s.")
                % {"columns": ",".join(COLUMNS)}
            ]
        )
    problems: list[str] = []
    lines: list[Line] = []
    for number, row in enumerate(rows[1:], start=header_line + 1):
        if not any(cell.strip() for cell in row):
            continue  # a blank line (a trailing one, most often)
        if len(row) != len(COLUMNS):
            problems.append(
                _("Line %(line)s has %(found)s columns instead of %(wanted)s.")
                % {"line": number, "found": len(row), "wanted": len(COLUMNS)}
            )
            continue
        line = _line(number, dict(zip(COLUMNS, row, strict=True)), problems)
        if line is not None:
            lines.append(line)
    if problems:
        more = len(problems) - MAX_ERRORS
        shown = problems[:MAX_ERRORS]
        if more > 0:
            shown.append(_("… and %(count)s more problems.") % {"count": more})
        raise StatementInvalid(shown)
    if not lines:
        raise StatementInvalid([_("The file has no lines after its header.")])
    return lines


# CyberSource's Payment Batch Detail Report, CSV (Business Center Reporting User Guide, "CSV
# Reports" and its sample): a title line, then these columns; amounts signed, in major units.
CYBERSOURCE_TITLE = "Payment Batch Detail Report"
CYBERSOURCE_COLUMNS = (
    "batch_id",
    "merchant_id",
    "batch_date",
    "request_id",
    "merchant_ref_number",
    "trans_ref_no",
    "payment_method",
    "currency",
    "amount",
    "transaction_type",
)
CYBERSOURCE_TYPES = {"ics_bill": "collection", "ics_credit": "reversal"}


def _minor_units(text: str) -> str:
    """A report's decimal amount (100.00, -100.00) as minor units without its sign, or the text
    as it is when it is not one (the generic checks then say so)."""
    found = re.fullmatch(r"-?([0-9]+)(?:\.([0-9]{1,2}))?", text.strip())
    if not found:
        return text
    return str(int(found.group(1)) * 100 + int((found.group(2) or "0").ljust(2, "0")))


def parse_cybersource_batch(content: bytes) -> list[Line]:
    """CyberSource's Payment Batch Detail Report read as generic lines: request_id is the
    operator's reference, merchant_ref_number ours (the charge's or refund's id we send),
    ics_bill a collection and ics_credit a reversal, each settled (succeeded) on its batch's
    date; the report states no fee."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StatementInvalid([_("The file is not UTF-8 text.")]) from None
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if len(rows) < 2 or [c.strip() for c in rows[1]] != list(CYBERSOURCE_COLUMNS):
        raise StatementInvalid(
            [
                _("The first line must name the columns %(columns)s.")
                % {"columns": ",".join(CYBERSOURCE_COLUMNS)}
            ]
        )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for row in rows[2:]:
        if not any(cell.strip() for cell in row):
            writer.writerow([])
            continue
        if len(row) != len(CYBERSOURCE_COLUMNS):
            writer.writerow(row)  # the generic checks say how many columns it has
            continue
        cell = dict(zip(CYBERSOURCE_COLUMNS, (c.strip() for c in row), strict=True))
        writer.writerow(
            [
                cell["request_id"],
                cell["merchant_ref_number"],
                CYBERSOURCE_TYPES.get(cell["transaction_type"], cell["transaction_type"]),
                _minor_units(cell["amount"]),
                cell["currency"],
                "succeeded",
                f"{cell['batch_date']}T00:00:00Z" if cell["batch_date"] else "",
                "0",
            ]
        )
    # The report's header is its second line: lines are numbered as in the file.
    return parse_generic(out.getvalue().encode(), header_line=2)


def parse(content: bytes, *, network: str) -> tuple[str, list[Line]]:
    """The statement's format and lines: the card provider's Payment Batch Detail Report when
    the file is one, the generic format otherwise."""
    if network == "CARD" and content.lstrip(b"\xef\xbb\xbf").startswith(CYBERSOURCE_TITLE.encode()):
        return "cybersource_pbdr", parse_cybersource_batch(content)
    return "generic", parse_generic(content)


def write_generic(out, lines: Iterable[dict]) -> None:
    """Write a generic statement to the text stream `out`: each of `lines` a dict of COLUMNS."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for line in lines:
        writer.writerow([line.get(name, "") for name in COLUMNS])
