"""The CSV statement streams: the memory it takes does not grow with the number of rows (a year
of them is read in chunks and written line by line, never held whole)."""

import tracemalloc
from datetime import UTC, datetime, timedelta

import pytest

from payments.models import LedgerEntry

# Ledger rows written straight into the table, without their charges: only their volume matters.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db, pytest.mark.books_unchecked]

START = datetime(2025, 11, 1, tzinfo=UTC)


def _rows(merchant, count: int, offset: int) -> None:
    LedgerEntry.objects.bulk_create(
        [
            LedgerEntry(
                merchant=merchant,
                livemode=False,
                currency="CDF",
                type="charge",
                amount=10000 + n,
                source=f"ch_{offset + n:024d}",
                created_at=START + timedelta(minutes=offset + n),
            )
            for n in range(count)
        ],
        batch_size=5000,
    )


def _peak_while_streaming(api, query: str) -> tuple[int, int]:
    """(lines, peak bytes allocated) while the export is read chunk by chunk."""
    response = api.get(f"/v1/balance_transactions/export?{query}")
    assert response.status_code == 200 and response.streaming
    tracemalloc.start()
    try:
        lines = sum(chunk.count(b"\r\n") for chunk in response.streaming_content)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return lines, peak


def test_a_large_statement_takes_no_more_memory_than_a_small_one(api, merchant):
    _rows(merchant, 3_000, 0)
    _rows(merchant, 30_000, 100_000)
    small_query = "date_to=" + (START + timedelta(minutes=3_000)).isoformat().replace("+", "%2B")
    small_lines, small_peak = _peak_while_streaming(api, small_query)
    large_lines, large_peak = _peak_while_streaming(api, "")
    assert (small_lines, large_lines) == (3_000 + 1, 33_000 + 1)
    # Ten times the rows, about the same memory (a chunk of rows at a time).
    assert large_peak < 2 * small_peak, (small_peak, large_peak)
