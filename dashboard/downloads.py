"""The dashboard's downloads for people: beside each machine file (the API's format: `,`,
English headers, UTC, left as it is), the same rows as a spreadsheet in the user's language
reads them: in French `;` between cells and a decimal comma (the French Excel's list separator
and decimal), headers in words, times in the merchant's time zone named in the header, phone
numbers as text (`="+243…"`, which Excel shows as `+243…` instead of a number losing its `+`),
newest first as the pages list them. UTF-8 with a byte order mark and CRLF, as the statement."""

import csv
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from core import money
from dashboard import words
from payments import phones
from payments.failures import failure_words
from payments.statement import BOM, EXPORT_CHUNK, rows_in_chunks, spreadsheet_safe

# The query string's value of a download for people (`?format=people`); `csv` is the machines'.
PEOPLE = "people"


class _Line:
    def write(self, value: str) -> str:
        return value


class PeopleCsv:
    """How cells are written for people reading `language` in `zone`."""

    def __init__(self, *, language: str, zone: str):
        self.language = language
        self.zone = zone
        self.french = language.startswith("fr")
        self.writer = csv.writer(
            _Line(), delimiter=";" if self.french else ",", lineterminator="\r\n"
        )

    def zone_words(self) -> str:
        return str(words.ZONE_NAMES.get(self.zone, self.zone))

    def moment(self, value: datetime | None) -> str:
        """`08/12/2026 14:05` in French; `2026-12-08 14:05` in English, which a spreadsheet
        reads as a date whatever its country (`08/12` is August in an American one). The zone
        is named in the header."""
        if value is None:
            return ""
        local = timezone.localtime(value, ZoneInfo(self.zone))
        return date_format(local, "d/m/Y H:i" if self.french else "Y-m-d H:i")

    def amount(self, minor: int | None) -> str:
        if minor is None:
            return ""
        units = money.major_units(minor)
        return units.replace(".", ",") if self.french else units

    @staticmethod
    def phone(value: str) -> str:
        """A number we wrote as text Excel keeps; anything else safe from being a formula."""
        return f'="{value}"' if phones.is_valid_drc_mobile(value) else spreadsheet_safe(value)

    @staticmethod
    def text(value: str) -> str:
        return spreadsheet_safe(value or "")

    def lines(self, header: list[str], rows: Iterable, row: Callable) -> Iterator[str]:
        with translation.override(self.language):
            yield BOM + self.writer.writerow(header)
            for item in rows:
                yield self.writer.writerow(row(item))


def people_csv(request) -> PeopleCsv:
    """The download's reader: the request's language, the merchant's zone."""
    return PeopleCsv(language=translation.get_language() or "fr", zone=request.merchant.time_zone)


def newest_first_in_chunks(rows: QuerySet, *, chunk: int = EXPORT_CHUNK) -> Iterator:
    """The rows of `rows` newest first (created_at, then id, descending), `chunk` at a time, as
    the statement's chunks are read the other way round."""
    return rows_in_chunks(rows.order_by("-created_at", "-id"), chunk=chunk, newest_first=True)


def attachment(lines: Iterator[str], filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- The statement (the balance's ledger) --------------------------------------------------


def statement_lines(reader: PeopleCsv, entries: Iterable) -> Iterator[str]:
    with translation.override(reader.language):
        zone = reader.zone_words()
        header = [
            _("Date (%(zone)s)") % {"zone": zone},
            _("Kind"),
            _("Amount"),
            _("Fee"),
            _("Net"),
            _("Currency"),
            _("Available on (%(zone)s)") % {"zone": zone},
            _("Network"),
            _("Phone"),
            _("Operator reference"),
            _("Origin"),
        ]

    def row(entry) -> list[str]:
        payout, charge = entry.payout, entry.charge
        origin = payout or entry.refund or charge
        phone = payout.phone if payout else (charge.phone if charge else "")
        network = payout.network if payout else (charge.network if charge else "")
        return [
            reader.moment(entry.created_at),
            entry.get_type_display(),
            reader.amount(entry.amount),
            reader.amount(entry.fee),
            reader.amount(entry.amount - entry.fee),
            entry.currency,
            reader.moment(entry.available_on or entry.created_at),
            network,
            reader.phone(phone) if phone else "",
            reader.text(getattr(origin, "provider_reference", "") or ""),
            entry.source,
        ]

    return reader.lines(header, entries, row)


# --- The audit log -------------------------------------------------------------------------


def audit_lines(reader: PeopleCsv, entries: Iterable) -> Iterator[str]:
    with translation.override(reader.language):
        header = [
            _("When (%(zone)s)") % {"zone": reader.zone_words()},
            _("Who"),
            _("Mode"),
            _("Action"),
            _("Object"),
            _("Address"),
            _("Browser"),
            _("Details"),
        ]

    def row(entry) -> list[str]:
        return [
            reader.moment(entry.created_at),
            reader.text(entry.email),
            entry.mode,
            entry.get_action_display(),
            reader.text(entry.object_id),
            entry.ip or "",
            reader.text(entry.user_agent),
            reader.text(entry.details_text()),
        ]

    return reader.lines(header, entries, row)


# --- A payout batch's results --------------------------------------------------------------


def batch_results_lines(reader: PeopleCsv, batch) -> Iterator[str]:
    """In the file's order (the rows as uploaded, as the batch's page lists them)."""
    with translation.override(reader.language):
        header = [
            _("Row"),
            _("Phone"),
            _("Amount"),
            _("Currency"),
            _("Network"),
            _("Reference"),
            _("Description"),
            _("Payout"),
            _("Status"),
            _("Why it failed"),
        ]

    def row(item) -> list[str]:
        return [
            str(item.row),
            reader.phone(item.phone),
            reader.amount(item.amount),
            reader.text(item.currency),
            reader.text(item.network),
            reader.text(item.reference),
            reader.text(item.description),
            item.payout_id or "",
            item.get_status_display(),
            reader.text(failure_words(item.failure_code, item.failure_message))
            if item.failure_code
            else "",
        ]

    return reader.lines(header, batch.items.order_by("row").iterator(chunk_size=500), row)
