"""The database: DATABASE_URL, SQLite's sharing of one file by the web server and the worker, and
on PostgreSQL the connections (kept, pooled, or behind PgBouncer), the server's timeouts and the
TCP keepalives."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import VAR_DIR, env

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the worker share the file: wait for the lock instead of failing, and
    # take the write lock at BEGIN so that read-then-write transactions do not deadlock.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(VAR_DIR / "test-db.sqlite3")
    # The ledger's balance index carries the amount on PostgreSQL (INCLUDE); SQLite builds it
    # without, which is all this warning says.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]
else:
    # Both options below must stay off behind PgBouncer in transaction mode (one transaction's
    # prepared statements are not there for the next; a pool in front of a pool holds nothing).
    db_options = DATABASES["default"].setdefault("OPTIONS", {})
    if env.bool("DB_SERVER_SIDE_BINDING", default=False):
        # Django binds the parameters server side, and psycopg prepares a statement once it has
        # run DB_PREPARE_THRESHOLD times on a connection (its plan then reused). `migrate` runs
        # with it off: a server-bound statement holds one command, and some migrations send
        # several at once (0007's trigger).
        db_options["server_side_binding"] = True
        db_options["prepare_threshold"] = env.int("DB_PREPARE_THRESHOLD", default=5)
    if env.bool("DB_POOL", default=False):
        # psycopg's pool, per process: a request borrows a connection and gives it back at its
        # end (persistent connections are the pool's, so CONN_MAX_AGE must be 0).
        db_options["pool"] = {
            "min_size": env.int("DB_POOL_MIN_SIZE", default=2),
            "max_size": env.int("DB_POOL_MAX_SIZE", default=8),
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
        }
        DATABASES["default"]["CONN_MAX_AGE"] = 0
    else:
        DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DB_CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

    # --- Database: pooler, timeouts, keepalives (deployment on several machines) -------------
    # DB_POOLER=pgbouncer: the service reaches PostgreSQL through PgBouncer in transaction mode,
    # where consecutive transactions of one connection may run on different server sessions. A
    # server-side cursor, a prepared statement or a session setting made in one transaction is
    # then not there in the next: Django's server-side cursors (QuerySet.iterator) are off, no
    # statement is prepared, and our own pool (DB_POOL) is refused, PgBouncer being the pool.
    DB_POOLER = env.str("DB_POOLER", default="")
    if DB_POOLER not in ("", "pgbouncer"):
        raise ImproperlyConfigured("DB_POOLER must be empty (direct) or 'pgbouncer'.")
    if DB_POOLER == "pgbouncer":
        if env.bool("DB_POOL", default=False) or env.bool("DB_SERVER_SIDE_BINDING", default=False):
            raise ImproperlyConfigured(
                "DB_POOLER=pgbouncer (transaction mode) cannot be used with DB_POOL or "
                "DB_SERVER_SIDE_BINDING: unset them (PgBouncer is the pool)."
            )
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
        db_options["prepare_threshold"] = None  # psycopg prepares nothing
    # Server-side limits, in milliseconds (0: none). A statement running longer than
    # DB_STATEMENT_TIMEOUT is cancelled; a session idle inside a transaction for longer than
    # DB_IDLE_IN_TRANSACTION_TIMEOUT is ended by the server and its locks freed (a process frozen
    # or cut off mid-transaction holds nothing for long); a lock waited for longer than
    # DB_LOCK_TIMEOUT fails the statement. They are sent as the connection's startup `options`;
    # PgBouncer refuses or drops that parameter, so behind it they are set on the role instead
    # (ALTER ROLE … SET, docs/operations/production.md) and not sent.
    DB_STATEMENT_TIMEOUT = env.int("DB_STATEMENT_TIMEOUT", default=60_000)
    DB_IDLE_IN_TRANSACTION_TIMEOUT = env.int("DB_IDLE_IN_TRANSACTION_TIMEOUT", default=60_000)
    DB_LOCK_TIMEOUT = env.int("DB_LOCK_TIMEOUT", default=10_000)
    if not DB_POOLER:
        db_options["options"] = " ".join(
            [
                *filter(None, [db_options.get("options")]),  # any of DATABASE_URL's own first
                f"-c statement_timeout={DB_STATEMENT_TIMEOUT}",
                f"-c idle_in_transaction_session_timeout={DB_IDLE_IN_TRANSACTION_TIMEOUT}",
                f"-c lock_timeout={DB_LOCK_TIMEOUT}",
            ]
        )
    # TCP keepalives (libpq): a connection whose other end vanished (a machine gone, a NAT that
    # forgot it) is noticed within about idle + interval × count seconds, on both sides.
    db_options.update(
        {
            "keepalives": 1,
            "keepalives_idle": env.int("DB_KEEPALIVES_IDLE", default=60),
            "keepalives_interval": env.int("DB_KEEPALIVES_INTERVAL", default=10),
            "keepalives_count": env.int("DB_KEEPALIVES_COUNT", default=5),
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
