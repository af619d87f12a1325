"""payments.rows runs its statements on the server-binding cursor it keeps per connection, without
building Django's cursor each time (PostgreSQL, prepared statements). What Django's cursor does
for a statement still holds there: the health check of an idle connection and a new connection
after a dead one, Django's exceptions, the time of the last query, and queries that are being
counted are seen."""

import pytest
from django.db import Error, ProgrammingError, connection
from django.test.utils import CaptureQueriesContext

from payments import rows
from payments.models import Charge
from tests.factories import make_charge, merchant_with_keys
from tests.helpers import killed_by_the_server, next_request

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WHERE = "id = %s"


@pytest.fixture(autouse=True)
def _fresh_connection():
    connection.close()


@pytest.fixture
def charge():
    if connection.settings_dict["OPTIONS"].get("prepare_threshold") is None:
        pytest.skip("DB_PREPARED_STATEMENTS=false: nothing is kept")
    return make_charge(merchant_with_keys().merchant)


def read(charge) -> str:
    return rows.read_one(Charge, WHERE, [charge.id]).id


@pytest.fixture
def cursors_made(monkeypatch):
    """How many Django cursors the connection of this thread builds from now on."""
    made = []
    build = connection.cursor

    def counting():
        made.append(1)
        return build()

    monkeypatch.setattr(connection, "cursor", counting)
    return made


def test_after_the_first_statement_no_django_cursor_is_built(charge, cursors_made):
    assert read(charge) == charge.id  # binds the cursor it keeps
    first = len(cursors_made)
    for _ in range(3):
        assert read(charge) == charge.id
    assert len(cursors_made) == first
    assert connection.used_at is not None


def test_counted_queries_still_go_through_django_and_are_seen(charge):
    read(charge)
    with CaptureQueriesContext(connection) as captured:
        read(charge)
    assert len(captured) == 1


def test_an_idle_dead_connection_is_checked_and_replaced(charge, settings):
    read(charge)
    killed_by_the_server()
    connection.used_at -= settings.DB_HEALTH_CHECK_AFTER + 1
    next_request()
    assert read(charge) == charge.id  # a new connection, and a cursor bound on it


def test_a_dead_connection_used_moments_ago_fails_once_then_is_replaced(charge):
    read(charge)
    killed_by_the_server()
    next_request()
    with pytest.raises(Error):  # Django's exception, as through its cursor
        read(charge)
    next_request()  # Django closes the connection that failed…
    assert read(charge) == charge.id  # …and the next request gets a new one


def test_with_zero_every_request_is_checked(charge, settings):
    settings.DB_HEALTH_CHECK_AFTER = 0
    read(charge)
    killed_by_the_server()
    next_request()
    assert read(charge) == charge.id


def test_a_bad_statement_raises_djangos_exception(charge):
    read(charge)
    with pytest.raises(ProgrammingError):
        rows.read_one(Charge, "no_such_column = %s", [1])
    assert read(charge) == charge.id  # autocommit: the connection goes on
