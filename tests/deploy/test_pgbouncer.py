"""The service behind PgBouncer in transaction mode (DB_POOLER=pgbouncer), as deployed on several
machines: Debian's PgBouncer in front of the test database, with a pool smaller than the clients
so that consecutive transactions of one client land on different server sessions."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings

from payments.models import LedgerEntry
from tests.factories import merchant_with_keys
from tests.helpers import free_port, wait_for

PGBOUNCER = "/usr/sbin/pgbouncer"

pytestmark = [pytest.mark.postgres, pytest.mark.pgbouncer, pytest.mark.books_unchecked]


@pytest.fixture
def pgbouncer(transactional_db):
    """PgBouncer in transaction mode on a free port, in front of the test database (two server
    connections per database and user); its DATABASE_URL."""
    if not os.access(PGBOUNCER, os.X_OK):
        if os.environ.get("CI"):
            pytest.fail("required in CI: Debian's pgbouncer (/usr/sbin/pgbouncer)")
        pytest.skip("needs Debian's pgbouncer (/usr/sbin/pgbouncer)")
    db = settings.DATABASES["default"]
    # PgBouncer refuses to run as root: it is then run as postgres, which must read its files.
    home = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
    home.chmod(0o755)
    port = free_port()
    user = db.get("USER") or "postgres"
    (home / "userlist.txt").write_text(f'"{user}" "{db.get("PASSWORD") or ""}"\n')
    (home / "pgbouncer.ini").write_text(
        f"""[databases]
* = host={db.get("HOST") or "127.0.0.1"} port={db.get("PORT") or 5432}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {home / "userlist.txt"}
pool_mode = transaction
default_pool_size = 2
max_client_conn = 200
ignore_startup_parameters = extra_float_digits
"""
    )
    for path in home.iterdir():
        path.chmod(0o644)
    as_user = ["-u", "postgres"] if os.geteuid() == 0 else []
    log = open(home / "pgbouncer.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [PGBOUNCER, *as_user, str(home / "pgbouncer.ini")], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"postgres://{user}@127.0.0.1:{port}/{db['NAME']}"

    def up() -> bool:
        assert proc.poll() is None, (home / "pgbouncer.log").read_text()
        probe = subprocess.run(
            ["pg_isready", "-h", "127.0.0.1", "-p", str(port), "-d", db["NAME"]],
            capture_output=True,
        )
        return probe.returncode == 0

    wait_for(up, timeout=20)
    yield url
    proc.terminate()
    proc.wait(timeout=10)
    log.close()
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def server_workers() -> int:
    return 2


@pytest.fixture
def server_env(pgbouncer) -> dict:
    """The server fixture's gunicorn reaches the database through PgBouncer."""
    return {"DATABASE_URL": pgbouncer, "DB_POOLER": "pgbouncer"}


def _request(base: str, key: str, method: str, path: str, body=None, headers=None):
    request = urllib.request.Request(
        base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        | (headers or {}),
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_charges_are_made_listed_and_idempotent_through_pgbouncer(server):
    key = merchant_with_keys().test_key.plaintext
    body = {"amount": 10000, "currency": "CDF", "phone": "+243971234567", "network": "AIRTEL_MONEY"}

    def create(_):
        return _request(server.base, key, "POST", "/v1/charges", body, {"Idempotency-Key": "k-1"})

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(create, range(4)))
    # At once: one makes the charge, the others are told it is still being made (409).
    assert {status for status, _ in answers} <= {201, 409}, answers
    answers.append(create(None))  # the retry afterwards is answered the same charge
    made = [json.loads(content)["id"] for status, content in answers if status == 201]
    assert answers[-1][0] == 201 and len(set(made)) == 1, answers
    ids = set(made)
    status, content = _request(server.base, key, "GET", "/v1/charges")
    assert status == 200
    assert [c["id"] for c in json.loads(content)["data"]] == list(ids)


ROWS = 5_000  # more than two chunks of the export (EXPORT_CHUNK)


def _ledger(merchant, offset: int) -> None:
    start = datetime(2025, 11, 1, tzinfo=UTC)
    LedgerEntry.objects.bulk_create(
        [
            LedgerEntry(
                merchant=merchant,
                livemode=False,
                currency="CDF",
                type="charge",
                amount=10000 + n,
                source=f"ch_{offset + n:024d}",
                # Several rows share a time: the chunks follow (created_at, id).
                created_at=start + timedelta(seconds=n // 3),
            )
            for n in range(ROWS)
        ],
        batch_size=5000,
    )


def test_several_statements_at_once_stream_whole_through_pgbouncer(server):
    """The drill's failure (exports failing with InvalidCursorName): a server-side cursor does
    not outlive its transaction behind PgBouncer. The statement is read in keyset chunks."""
    keys = []
    for n in range(3):
        created = merchant_with_keys(name=f"Boutique {n}")
        _ledger(created.merchant, n * ROWS)
        keys.append(created.test_key.plaintext)

    def export(key):
        status, content = _request(server.base, key, "GET", "/v1/balance_transactions/export")
        lines = content.decode("utf-8-sig").split("\r\n")
        return status, len([line for line in lines if line]), len({line for line in lines[1:]})

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(export, keys * 2))
    # Every statement whole: its header and each row once.
    assert all(status == 200 for status, _, _ in results), results
    assert {lines for _, lines, _ in results} == {ROWS + 1}
    assert {distinct for _, _, distinct in results} == {ROWS + 1}  # the rows and the final ""


def test_the_service_refuses_its_own_pool_behind_pgbouncer():
    env = {**os.environ, "DB_POOLER": "pgbouncer", "DB_POOL": "true"}
    env["DATABASE_URL"] = "postgres://postgres@127.0.0.1:6432/x"
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "DB_POOLER=pgbouncer" in done.stderr
