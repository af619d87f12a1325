"""`make bench`: the service as deployed, beside an older version of itself, in one run.

Two versions run side by side on loopback: `new`, this checkout, as production runs it (Debian's
nginx with deploy/nginx/ in front of gunicorn with config/gunicorn.py), and `old`, the commit
BENCH_OLD_COMMIT (git worktree add into a temporary folder, removed at the end) as it was deployed
then (gunicorn with that commit's config/gunicorn.py, no proxy). Each has its own database and
Redis database, made alike: the old version migrates and creates three merchants, 10,000 and
1,000,000 charges are seeded (one INSERT … SELECT each), and the new version's database is a copy
of it (CREATE DATABASE … TEMPLATE) migrated forward by this checkout.

The HTTP rows are driven by wrk, 16 connections: the bare route (a 404 that touches neither the
database nor Redis), GET of a charge, keyset and filtered lists of each merchant, POST of a charge
without and with a fresh Idempotency-Key, and one done key replayed by every connection. The rows
take turns for BENCH_ROUNDS rounds of BENCH_SECONDS each, the old and the new version one after the
other (in turn first), so that a change of load on a shared machine touches both alike; new ÷ old
is the median of the rounds' ratios. No Celery worker runs meanwhile (the charges' tasks wait in
Redis and are purged afterwards), so these rows measure what the web tier pays.

Then, for each version: the drain of BENCH_EVENTS pre-recorded webhook events by its webhook
worker, and payments end to end with its workers and beat running as deployed: BENCH_E2E_RATE
charges per second for BENCH_E2E_SECONDS through the API (each with its Idempotency-Key), the
sandbox operator answering each status check SANDBOX_MOBILE_MONEY_DELAY seconds after the prompt
(BENCH_E2E_DELAY), the charge succeeded with its ledger row and its event, and the webhook
delivered to a local receiver that verifies its signature with the `standardwebhooks` package.
pgbench's one-row commits are given once, for reference.

    make bench                                   # about 7 minutes
    BENCH_SECONDS=5 BENCH_ROUNDS=5 make bench    # longer, steadier
    BENCH_DATABASE=bench_x BENCH_REDIS_URL=redis://127.0.0.1:6379/14 \
        BENCH_OLD_REDIS_URL=redis://127.0.0.1:6379/13 make bench

The databases (BENCH_DATABASE_old and _new, default `bench_…`) are dropped, made anew and dropped
at the end; the Redis databases (BENCH_REDIS_URL, default db 15, for the new version;
BENCH_OLD_REDIS_URL, default db 14, for the old) are flushed: give the benchmark ones of its own.
Loopback only; every phase is bounded in time, and everything started is stopped at the end.
"""

import http.client
import json
import os
import queue
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deploy.render import NGINX, nginx_command, nginx_prefix  # noqa: E402

PG = "postgres://postgres@127.0.0.1:5432"
DATABASE = os.environ.get("BENCH_DATABASE", "bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
OLD_REDIS_URL = os.environ.get("BENCH_OLD_REDIS_URL", "redis://127.0.0.1:6379/14")
OLD_COMMIT = os.environ.get("BENCH_OLD_COMMIT", "8b318fd")
SECONDS = max(1, min(int(os.environ.get("BENCH_SECONDS", "2")), 30))  # per row, version, round
ROUNDS = max(1, min(int(os.environ.get("BENCH_ROUNDS", "3")), 10))
CONNECTIONS = 16
SMALL = 10_000  # charges of one merchant
LARGE = int(os.environ.get("BENCH_LARGE", "1000000"))  # and of another
EVENTS = int(os.environ.get("BENCH_EVENTS", "3000"))
E2E_RATE = float(os.environ.get("BENCH_E2E_RATE", "150"))  # charges per second, offered
E2E_SECONDS = max(2, min(int(os.environ.get("BENCH_E2E_SECONDS", "10")), 120))
E2E_DELAY = os.environ.get("BENCH_E2E_DELAY", "1")  # the sandbox customer's time to answer
E2E_FOLLOW = 120  # seconds after the last POST the webhooks are waited for
PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
BODY = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
# The workers as each version's documentation deployed them (README's production list then,
# docs/operations/production.md now), without the long-calls worker that test mode never uses.
WORKERS = {
    "old": [["--concurrency", "4"]],
    "new": [
        ["--concurrency", "4"],
        ["--hostname", "periodic@%h", "--queues", "periodic", "--concurrency", "2"],
        ["--hostname", "webhooks@%h", "--queues", "webhooks", "--pool", "threads",
         "--concurrency", "32", "--prefetch-multiplier", "4"],
    ],
}  # fmt: skip
QUEUES = {"old": "celery,payments-long", "new": "celery,payments-long,webhooks,periodic"}


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def sh(*cmd: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kwargs)


def ready(*cmd: str) -> bool:
    return subprocess.run(cmd, capture_output=True).returncode == 0


def wait_for(check, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise SystemExit(f"{what} did not come up within {seconds:g} s")


# --- The machine: PostgreSQL, Redis, nginx, wrk ----------------------------------------------


def ensure_servers() -> None:
    """Use the running PostgreSQL and Redis, or start them (as .ci/run does)."""
    if not ready("pg_isready", "-h", "127.0.0.1", "-p", "5432", "-q"):
        version = sorted(os.listdir("/etc/postgresql"))[-1]
        sh("pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start")
        wait_for(lambda: ready("pg_isready", "-h", "127.0.0.1", "-p", "5432", "-q"), "PostgreSQL")
    if not ready("redis-cli", "-h", "127.0.0.1", "-p", "6379", "ping"):
        sh("redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", "6379",
           "--save", "", "--appendonly", "no")  # fmt: skip
        wait_for(lambda: ready("redis-cli", "-h", "127.0.0.1", "-p", "6379", "ping"), "Redis")


def ensure_debian(package: str, binary: str) -> None:
    """Install Debian's `package` unless `binary` is there (a fresh machine has neither nginx
    nor wrk); the package lists are refreshed only when the first try cannot find it."""
    if Path(binary).exists() or shutil.which(binary):
        return
    log(f"installing Debian's {package}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(["apt-get", "install", "-y", "-qq", package], env=env).returncode != 0:
        sh("apt-get", "update", "-qq", env=env)
        sh("apt-get", "install", "-y", "-qq", package, env=env)


def ensure_wrk() -> str:
    ensure_debian("wrk", "wrk")
    return shutil.which("wrk") or "/usr/bin/wrk"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def machine() -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores (nproc), load average {load}"


# --- The two versions --------------------------------------------------------------------------

COMMON_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "bench-" + secrets.token_hex(32),
    "SANDBOX_CARD_SECRET_KEY": "bench-" + secrets.token_hex(32),
    "ALLOWED_HOSTS": "127.0.0.1",
    "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
    "STATIC_MANIFEST": "false",
    "LOG_LEVEL": "WARNING",
    # The rate limit is counted as usual, at a rate the benchmark stays under.
    "API_RATE_LIMIT": "1000000/s",
    "THROTTLE_AUTH_FAILURES": "1000000/s",
    "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
    "SANDBOX_MOBILE_MONEY_DELAY": E2E_DELAY,
    "DJANGO_SETTINGS_MODULE": "config.settings",
}
# The new version behind nginx, as deployed: the client's address is the one nginx appends.
NEW_ENV = {"THROTTLE_TRUSTED_PROXIES": "1"}


@dataclass
class Version:
    name: str  # "old" or "new"
    tree: Path
    database: str
    redis_url: str
    env: dict = field(default_factory=dict)
    base: str = ""  # what wrk and the clients call
    roots: dict = field(default_factory=dict)  # CPU group → the pid of its master process

    def __post_init__(self) -> None:
        self.env = {
            **os.environ,
            **COMMON_ENV,
            **(NEW_ENV if self.name == "new" else {}),
            "DATABASE_URL": f"{PG}/{self.database}",
            "REDIS_URL": self.redis_url,
            "VAR_DIR": tempfile.mkdtemp(prefix=f"bench-var-{self.name}-"),
            "PYTHONPATH": str(self.tree),
        }
        self.env["STATIC_ROOT"] = str(Path(self.env["VAR_DIR"]) / "staticfiles")

    def python(self, code: str, timeout: float = 300) -> str:
        """Run `code` with this version's code and settings; its standard output."""
        return sh(sys.executable, "-c", code, cwd=self.tree, env=self.env, timeout=timeout).stdout

    def psql(self, sql: str) -> str:
        return sh("psql", f"{PG}/{self.database}", "-qAt", "-v", "ON_ERROR_STOP=1",
                  "-c", sql).stdout  # fmt: skip


SETUP = """
import json, os, django
django.setup()
from django.core.management import call_command
from payments.services.accounts import merchant_create
call_command("migrate", verbosity=0)
made = {}
for name, url in (("small", ""), ("large", ""), ("e2e", os.environ["BENCH_RECEIVER_URL"])):
    new = merchant_create(name="Bench " + name, webhook_url=url)
    made[name] = {"id": new.merchant.id, "key": new.test_key.plaintext,
                  "secret": new.test_webhook_secret}
print("BENCH " + json.dumps(made))
"""
MIGRATE = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
"""
# Each pending delivery's task, sent with the version's Celery app to its deliveries' queue.
ENQUEUE_DELIVERIES = """
import django
django.setup()
from django.conf import settings
from webhooks import tasks
from webhooks.models import Delivery
queue = getattr(settings, "WEBHOOKS_QUEUE", None)
for delivery_id in Delivery.objects.filter(status="pending").values_list("id", flat=True):
    tasks.delivery_send.apply_async((delivery_id,), queue=queue)
"""


def drop_database(name: str) -> None:
    sh("psql", f"{PG}/postgres", "-q", "-c", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed_charges(version: Version, merchant_id: str, first: int, last: int) -> None:
    """Charges first..last of a merchant in test mode, one second apart going back in time, all
    networks and statuses: one INSERT … SELECT, not the ORM."""
    version.psql(f"""
        INSERT INTO payments_charge (
            id, merchant_id, livemode, amount, currency, payment_method, phone, network, status,
            description, metadata, callback_url, return_url, failure_code, failure_message,
            amount_refunded, provider, provider_reference, provider_attempt, provider_raw,
            check_count, reconcile_count, created_at, updated_at, finalized_at)
        SELECT 'ch_seed' || lpad(i::text, 17, '0'), '{merchant_id}', false, 1000 + (i % 97) * 100,
            'CDF', 'mobile_money', '+2438123' || lpad((i % 100000)::text, 5, '0'),
            (ARRAY['AIRTEL_MONEY','VODACOM_MPESA','ORANGE_MONEY'])[1 + i % 3],
            (ARRAY['succeeded','failed','declined','succeeded'])[1 + i % 4],
            'Commande ' || i, '{{}}', '', '', '', '', 0, 'sandbox', '', '', '[]', 0, 0,
            now() - make_interval(secs => i), now() - make_interval(secs => i),
            now() - make_interval(secs => i)
        FROM generate_series({first}, {last}) AS i
    """)


def make_databases(old: Version, new: Version, receiver_url: str) -> dict:
    """The old version's database, migrated by it, with its merchants and the seeded charges;
    the new version's a copy of it migrated forward. The merchants' ids, keys and secrets."""
    for version in (old, new):
        drop_database(version.database)
        sh("redis-cli", "-u", version.redis_url, "flushdb")
    sh("psql", f"{PG}/postgres", "-q", "-c", f'CREATE DATABASE "{old.database}"')
    old.env["BENCH_RECEIVER_URL"] = receiver_url
    out = old.python(SETUP)
    merchants = json.loads(next(x for x in out.splitlines() if x.startswith("BENCH "))[6:])
    log(f"seeding {SMALL:,} + {LARGE:,} charges")
    seed_charges(old, merchants["small"]["id"], 1, SMALL)
    seed_charges(old, merchants["large"]["id"], SMALL + 1, SMALL + LARGE)
    old.psql("VACUUM ANALYZE payments_charge")
    sh("psql", f"{PG}/postgres", "-q", "-c",
       f'CREATE DATABASE "{new.database}" TEMPLATE "{old.database}"')  # fmt: skip
    new.python(MIGRATE)
    return merchants


# --- Processes -----------------------------------------------------------------------------------


class Processes:
    def __init__(self) -> None:
        self.running: list[subprocess.Popen] = []

    def start(self, *cmd: str, version: Version | None = None, out=None) -> subprocess.Popen:
        proc = subprocess.Popen(
            cmd,
            cwd=version.tree if version else ROOT,
            env=version.env if version else os.environ.copy(),
            stdout=out or subprocess.DEVNULL,
            stderr=out or None,
        )
        self.running.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc in self.running:
            self.running.remove(proc)

    def stop_all(self) -> None:
        for proc in list(reversed(self.running)):
            self.stop(proc)


def _up(base: str) -> bool:
    try:
        urllib.request.urlopen(base + "/v1/nothing-here", timeout=1)
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
    return True


def start_web(procs: Processes, version: Version, folder: Path) -> None:
    """gunicorn with the version's config/gunicorn.py; for the new version, nginx as deployed in
    front of it (worker_processes auto, as in Debian's nginx.conf)."""
    port = free_port()
    server = procs.start(sys.executable, "-m", "gunicorn", "config.wsgi", "-c",
                         str(version.tree / "config" / "gunicorn.py"),
                         "--bind", f"127.0.0.1:{port}", version=version)  # fmt: skip
    version.roots = {"web": server.pid}
    version.base = f"http://127.0.0.1:{port}"
    if version.name == "new":
        prefix = folder / "nginx"
        front = free_port()
        nginx_prefix(prefix, upstream_ports=(port,), port=front, http_port=free_port(),
                     static_root=Path(version.env["VAR_DIR"]) / "staticfiles",
                     worker_processes="auto")  # fmt: skip
        proxy = procs.start(*nginx_command(prefix))
        version.roots["nginx"] = proxy.pid
        version.base = f"http://127.0.0.1:{front}"
    wait_for(lambda: _up(f"http://127.0.0.1:{port}"), f"the {version.name} version's gunicorn")
    wait_for(lambda: _up(version.base), f"the {version.name} version's front")


# --- CPU per request -------------------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")
CPU_GROUPS = ("nginx", "web", "PostgreSQL", "Redis", "workers")


def cpu_seconds(roots: dict[str, int | list[int]]) -> dict[str, float]:
    """CPU (user + system) spent so far by the version's nginx and gunicorn (each master and its
    workers), the database's processes and Redis (/proc). A database process that ended
    meanwhile (a backend, an autovacuum worker) is counted in its postmaster's time of reaped
    children."""
    ticks = dict.fromkeys(CPU_GROUPS, 0)
    by_pid = {
        pid: group
        for group, pids in roots.items()
        for pid in (pids if isinstance(pids, list) else [pids])
    }
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        used = int(fields[11]) + int(fields[12])
        pid, ppid = int(entry), int(fields[1])
        group = by_pid.get(pid) or by_pid.get(ppid)
        if group:
            ticks[group] += used
        elif name == "postgres":
            ticks["PostgreSQL"] += used
            if ppid == 1 or _name(ppid) != "postgres":  # the postmaster
                ticks["PostgreSQL"] += int(fields[13]) + int(fields[14])
        elif name.startswith("redis-server"):
            ticks["Redis"] += used
    return {group: used / TICK for group, used in ticks.items()}


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


# --- wrk -------------------------------------------------------------------------------------------

LUA_DONE = r"""
function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'BENCH {"requests": %d, "duration_us": %d, "status": %d, "socket": %d, "p50": %d, "p99": %d}\n',
      summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
      latency:percentile(50), latency:percentile(99)))
end
"""

LUA_FRESH_KEYS = r"""
local counter = 0
local prefix = "k"
local threads = 0
function setup(thread)
   threads = threads + 1
   thread:set("tid", threads)
end
function init(args)
   prefix = args[1] .. "-" .. tostring(tid)
end
function request()
   counter = counter + 1
   wrk.headers["Idempotency-Key"] = prefix .. "-" .. counter
   return wrk.format()
end
"""


class Wrk:
    def __init__(self, binary: str, folder: Path) -> None:
        self.binary, self.folder = binary, folder

    def run(self, version: Version, path: str, key: str, *, method="GET", body=None,
            headers=None, fresh_keys=False, seconds=None) -> dict:  # fmt: skip
        script = self.folder / f"{uuid.uuid4().hex}.lua"
        lua = ""
        if method != "GET":
            lua += f"wrk.method = {json.dumps(method)}\n"
        if body is not None:
            lua += f"wrk.body = {json.dumps(json.dumps(body))}\n"
            lua += 'wrk.headers["Content-Type"] = "application/json"\n'
        for name, value in (headers or {}).items():
            lua += f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}\n"
        if fresh_keys:
            lua += LUA_FRESH_KEYS
        script.write_text(lua + LUA_DONE)
        cmd = [self.binary, "-t2", f"-c{CONNECTIONS}", f"-d{seconds or SECONDS}s", "--timeout",
               "10s", "-H", f"Authorization: Bearer {key}", "-s", str(script),
               version.base + path]  # fmt: skip
        if fresh_keys:
            cmd += ["--", uuid.uuid4().hex[:12]]
        before = cpu_seconds(version.roots)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=SECONDS + 30).stdout
        after = cpu_seconds(version.roots)
        line = next((x for x in out.splitlines() if x.startswith("BENCH ")), None)
        if line is None:
            raise SystemExit(f"wrk printed no result:\n{out}")
        r = json.loads(line[6:])
        return {
            "seconds": r["duration_us"] / 1e6,
            "rps": r["requests"] / (r["duration_us"] / 1e6),
            "p50": r["p50"] / 1000,
            "p99": r["p99"] / 1000,
            "non2xx": r["status"],
            "socket": r["socket"],
            "requests": r["requests"],
            "cpu": {group: after[group] - before[group] for group in CPU_GROUPS},
        }


def combine(runs: list[dict]) -> dict:
    """Rounds of one row of one version: req/s over all of them, the median p50 and p99, every
    non-2xx, and the CPU each request cost over all rounds."""
    requests = sum(r["requests"] for r in runs)
    return {
        "rps": requests / sum(r["seconds"] for r in runs),
        "p50": statistics.median(r["p50"] for r in runs),
        "p99": statistics.median(r["p99"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "socket": sum(r["socket"] for r in runs),
        "requests": requests,
        "cpu_ms": {g: 1000 * sum(r["cpu"][g] for r in runs) / requests for g in CPU_GROUPS},
    }


# --- HTTP helpers ----------------------------------------------------------------------------------


def post_json(base: str, key: str, path: str, body: dict, idem: str | None = None):
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            **({"Idempotency-Key": idem} if idem else {}),
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def get_json(base: str, key: str, path: str):
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _stats(port: int, what: str = "stats"):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{what}", timeout=5) as response:
            return json.loads(response.read())
    except OSError:
        return None


def start_receiver(procs: Processes, port: int, secret: str) -> subprocess.Popen:
    receiver = procs.start(sys.executable, str(ROOT / "bench" / "receiver.py"), str(port), secret)
    wait_for(lambda: _stats(port) is not None, "the receiver")
    return receiver


# --- The HTTP rows ---------------------------------------------------------------------------------

BARE = "bare: GET /v1/<unknown> (404, no database, no Redis)"
GET = "GET /v1/charges/{id}"
POST = "POST /v1/charges"
FIRST = "POST /v1/charges + fresh Idempotency-Key"
REPLAY = "POST /v1/charges, one done key replayed by 16 connections"
KEYSET = "GET /v1/charges?limit=10&starting_after=… ({size} charges)"
FILTERED = "GET /v1/charges?status=succeeded&network=ORANGE_MONEY&limit=10 ({size} charges)"


def http_rows(wrk: Wrk, versions: list[Version], merchants: dict) -> dict[str, dict[str, dict]]:
    """Every HTTP row of both versions, taking turns: {label: {"old": …, "new": …, "ratio": …}}."""
    small, large = merchants["small"]["key"], merchants["large"]["key"]
    setup = {}
    for version in versions:
        status, charge = post_json(version.base, small, "/v1/charges", BODY)
        assert status == 201, charge
        done_key = f"bench-done-{uuid.uuid4()}"
        status, _ = post_json(version.base, small, "/v1/charges", BODY, idem=done_key)
        assert status == 201

        def middle(api_key: str, size: int, base=version.base) -> str:
            page = get_json(base, api_key, f"/v1/charges?limit=1&offset={size // 2}")
            return page["data"][0]["id"]

        setup[version.name] = {
            "charge": charge["id"],
            "done_key": done_key,
            "cursors": {SMALL: middle(small, SMALL), LARGE: middle(large, LARGE)},
        }
        # Warm every worker and thread (imports, connections) before anything is counted.
        for path in ("/v1/nothing-here", f"/v1/charges/{charge['id']}"):
            wrk.run(version, path, small, seconds=2)

    keys = {SMALL: small, LARGE: large}
    phases = [
        (BARE, lambda v, s: wrk.run(v, "/v1/nothing-here", small)),
        (GET, lambda v, s: wrk.run(v, f"/v1/charges/{s['charge']}", small)),
        (POST, lambda v, s: wrk.run(v, "/v1/charges", small, method="POST", body=BODY)),
        (FIRST, lambda v, s: wrk.run(v, "/v1/charges", small, method="POST", body=BODY,
                                     fresh_keys=True)),
        (REPLAY, lambda v, s: wrk.run(v, "/v1/charges", small, method="POST", body=BODY,
                                      headers={"Idempotency-Key": s["done_key"]})),
    ]  # fmt: skip
    for size in (SMALL, LARGE):
        label = f"{size:,}"
        phases += [
            (KEYSET.format(size=label),
             lambda v, s, size=size: wrk.run(
                 v, f"/v1/charges?limit=10&starting_after={s['cursors'][size]}", keys[size])),
            (FILTERED.format(size=label),
             lambda v, s, size=size: wrk.run(
                 v, "/v1/charges?status=succeeded&network=ORANGE_MONEY&limit=10", keys[size])),
        ]  # fmt: skip
    runs = {label: {v.name: [] for v in versions} for label, _ in phases}
    turn = 0
    for number in range(1, ROUNDS + 1):
        log(f"HTTP rows, round {number} of {ROUNDS}")
        for label, run in phases:
            order = versions if turn % 2 == 0 else list(reversed(versions))
            turn += 1
            for version in order:
                runs[label][version.name].append(run(version, setup[version.name]))
    rows = {}
    for label, by_version in runs.items():
        rows[label] = {name: combine(r) for name, r in by_version.items()}
        rows[label]["ratio"] = statistics.median(
            n["rps"] / o["rps"] for o, n in zip(by_version["old"], by_version["new"], strict=True)
        )
    return rows


# --- Workers: the webhook drain and payments end to end --------------------------------------------


def purge(version: Version) -> None:
    """Every task waiting in the version's queues (what the HTTP rows left), with its Celery."""
    sh(sys.executable, "-m", "celery", "-A", "config", "purge", "-f", "-Q", QUEUES[version.name],
       cwd=version.tree, env=version.env)  # fmt: skip


def start_worker(procs: Processes, version: Version, args: list[str], folder: Path, beat=False):
    """A Celery worker (or beat) of the version, its log in `folder`; returns once it is ready."""
    name = "beat" if beat else (args[args.index("--hostname") + 1] if "--hostname" in args
                                else "celery@%h").split("@")[0]  # fmt: skip
    logfile = folder / f"{version.name}-{name}.log"
    out = open(logfile, "w")  # noqa: SIM115 (closed with the process's end)
    if beat:
        cmd = ["beat", "--loglevel", "INFO", "--schedule",
               str(Path(version.env["VAR_DIR"]) / "celerybeat-schedule")]  # fmt: skip
    else:
        cmd = ["worker", "--loglevel", "INFO", *args]
    proc = procs.start(sys.executable, "-m", "celery", "-A", "config", *cmd, version=version,
                       out=out)  # fmt: skip
    marker = "beat: Starting" if beat else " ready."
    wait_for(lambda: marker in logfile.read_text() or proc.poll() is not None,
             f"the {version.name} version's {name}", 60)  # fmt: skip
    if proc.poll() is not None:
        raise SystemExit(f"{name} of the {version.name} version stopped:\n{logfile.read_text()}")
    return proc


def settle(version: Version) -> None:
    """What the earlier phases left behind must not run now: their tasks are purged, and the
    HTTP rows' charges, never sent, are closed so that the unsent-charge sweep does not send
    them."""
    purge(version)
    version.psql("UPDATE payments_charge SET status = 'failed', failure_code = 'timeout', "
                 "finalized_at = now(), next_check_at = NULL WHERE status = 'pending'")  # fmt: skip


def webhook_drain(procs: Processes, version: Version, merchant: dict, folder: Path) -> dict:
    """EVENTS events recorded (SQL) with their deliveries and tasks queued, then the version's
    webhook worker started, and beat (whose sweep enqueues again a delivery left waiting):
    deliveries per second between the first and the last arrival, within 40 s."""
    settle(version)
    port = free_port()
    receiver = start_receiver(procs, port, merchant["secret"])
    url = f"http://127.0.0.1:{port}/hooks"
    version.psql(f"""
        INSERT INTO webhooks_event (id, merchant_id, livemode, type, data, destination_url, created_at)
        SELECT 'evt_bench' || lpad(i::text, 15, '0'), '{merchant["id"]}', false, 'charge.succeeded',
            jsonb_build_object('object', jsonb_build_object('id', 'ch_bench' || i, 'object', 'charge',
                'amount', 5000, 'currency', 'CDF', 'status', 'succeeded')),
            '{url}', now()
        FROM generate_series(1, {EVENTS}) AS i;
        INSERT INTO webhooks_delivery (event_id, url, status, attempts, next_attempt_at, last_error,
            created_at, updated_at)
        SELECT 'evt_bench' || lpad(i::text, 15, '0'), '{url}', 'pending', 0, now(), '', now(), now()
        FROM generate_series(1, {EVENTS}) AS i;
    """)  # fmt: skip
    if version.name == "new":  # its deliveries carry their event's merchant and mode
        version.psql("UPDATE webhooks_delivery d SET merchant_id = e.merchant_id, "
                     "livemode = e.livemode FROM webhooks_event e WHERE e.id = d.event_id")  # fmt: skip
    version.psql("ANALYZE webhooks_event, webhooks_delivery")
    version.python(ENQUEUE_DELIVERIES)
    workers = [start_worker(procs, version, WORKERS[version.name][-1], folder),
               start_worker(procs, version, [], folder, beat=True)]  # fmt: skip
    deadline = time.monotonic() + 40
    stats = _stats(port)
    while time.monotonic() < deadline and stats["events"] < EVENTS:
        time.sleep(0.25)
        stats = _stats(port)
    for proc in workers:
        procs.stop(proc)
    procs.stop(receiver)
    elapsed = max(stats["last"] - stats["first"], 1e-3)
    return {
        "rate": (stats["events"] - 1) / elapsed if stats["events"] > 1 else 0.0,
        "received": stats["events"],
        "bad": stats["bad"],
    }


class OpenLoop:
    """POST /v1/charges at a steady offered rate, each with a fresh Idempotency-Key, from a pool of
    threads on kept-alive connections: the i-th request is due at start + i / rate, whatever the
    answers to the earlier ones (a late send is counted, not skipped)."""

    def __init__(self, base: str, key: str, rate: float, seconds: float) -> None:
        self.host, self.port = base.removeprefix("http://").split(":")
        self.key, self.rate, self.count = key, rate, int(rate * seconds)
        self.due: queue.Queue = queue.Queue()
        self.sent: dict[str, float] = {}  # charge id → when its request was sent
        self.latencies: list[float] = []
        self.late: list[float] = []
        self.errors = 0
        self.unsent = 0  # due after the deadline: the service fell too far behind
        self.stop_at = 0.0
        self.lock = threading.Lock()

    def _client(self) -> None:
        conn = http.client.HTTPConnection(self.host, int(self.port), timeout=30)
        headers = {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}
        body = json.dumps(BODY)
        while (due := self.due.get()) is not None:
            started = time.time()
            if started > self.stop_at:
                with self.lock:
                    self.unsent += 1
                continue
            try:
                conn.request("POST", "/v1/charges", body,
                             {**headers, "Idempotency-Key": uuid.uuid4().hex})  # fmt: skip
                response = conn.getresponse()
                answer = response.read()
                ok = response.status == 201
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(self.host, int(self.port), timeout=30)
                ok = False
            finished = time.time()
            with self.lock:
                self.late.append(started - due)
                if ok:
                    self.sent[json.loads(answer)["id"]] = started
                    self.latencies.append(finished - started)
                else:
                    self.errors += 1
        conn.close()

    def run(self) -> None:
        clients = [threading.Thread(target=self._client, daemon=True) for _ in range(32)]
        for client in clients:
            client.start()
        start = time.time() + 0.1
        self.stop_at = start + self.count / self.rate + 15
        for i in range(self.count):
            due = start + i / self.rate
            pause = due - time.time()
            if pause > 0:
                time.sleep(pause)
            self.due.put(due)
        for _ in clients:
            self.due.put(None)
        for client in clients:
            client.join(timeout=max(0.1, self.stop_at + 35 - time.time()))


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def end_to_end(procs: Processes, version: Version, merchant: dict, port: int, folder: Path):
    """The version's workers and beat as deployed; E2E_RATE charges a second for E2E_SECONDS
    through the API, each followed to its webhook at the receiver (the merchant's URL)."""
    settle(version)
    receiver = start_receiver(procs, port, merchant["secret"])
    workers = [start_worker(procs, version, args, folder) for args in WORKERS[version.name]]
    workers.append(start_worker(procs, version, [], folder, beat=True))
    version.roots["workers"] = [proc.pid for proc in workers]  # and their pool processes
    load = OpenLoop(version.base, merchant["key"], E2E_RATE, E2E_SECONDS)
    before = cpu_seconds(version.roots)
    load.run()
    # Every payment is followed to its webhook (for two minutes at most after the last POST), so
    # that the CPU the phase took is that of the payments completed.
    deadline = time.monotonic() + E2E_FOLLOW
    stats = _stats(port)
    while time.monotonic() < deadline and stats["events"] < len(load.sent):
        time.sleep(0.25)
        stats = _stats(port)
    after = cpu_seconds(version.roots)
    del version.roots["workers"]
    arrivals = {cid: at for cid, kind, at in _stats(port, "arrivals")
                if kind == "charge.succeeded" and cid in load.sent}  # fmt: skip
    for proc in workers:
        procs.stop(proc)
    procs.stop(receiver)
    ids = ",".join(f"'{cid}'" for cid in load.sent) or "''"
    answered = {}
    for line in version.psql(
        "SELECT reference, extract(epoch FROM answered_at) FROM payments_sandboxtransaction "
        f"WHERE kind = 'mobile_money' AND reference IN ({ids}) AND answered_at IS NOT NULL"
    ).splitlines():
        reference, at = line.split("|")
        answered[reference] = float(at)
    succeeded = int(
        version.psql(
            f"SELECT count(*) FROM payments_charge WHERE id IN ({ids}) AND status = 'succeeded'"
        )
    )
    ledger = int(version.psql(
        f"SELECT count(*) FROM payments_ledgerentry WHERE charge_id IN ({ids}) "
        "AND type = 'charge'"))  # fmt: skip
    times = sorted(arrivals.values())
    to_webhook = [arrivals[c] - answered[c] for c in arrivals if c in answered]
    from_post = [arrivals[c] - load.sent[c] for c in arrivals]
    to_answer = [answered[c] - load.sent[c] for c in answered]
    return {
        "offered": load.count,
        "created": len(load.sent),
        "errors": load.errors,
        "unsent": load.unsent,
        "succeeded": succeeded,
        "ledger": ledger,
        "delivered": len(arrivals),
        "bad": stats["bad"],
        "rate": (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0,
        "answer_p50": percentile(to_webhook, 50),
        "answer_p99": percentile(to_webhook, 99),
        "asked_p50": percentile(to_answer, 50),
        "asked_p99": percentile(to_answer, 99),
        "post_p50": percentile(from_post, 50),
        "post_p99": percentile(from_post, 99),
        "api_p99": percentile(load.latencies, 99),
        "late_p99": percentile(load.late, 99),
        "cpu_ms": {g: 1000 * (after[g] - before[g]) / max(len(arrivals), 1) for g in CPU_GROUPS},
    }


def pgbench_one_row_commits(version: Version, folder: Path) -> dict:
    """TPS of one-row INSERT commits by 16 clients: what the database and its disk allow."""
    version.psql(
        "CREATE TABLE IF NOT EXISTS bench_commit (id bigserial PRIMARY KEY, v int NOT NULL)"
    )
    script = folder / "commit.sql"
    script.write_text("INSERT INTO bench_commit (v) VALUES (1);\n")
    out = sh(PGBENCH, "-n", "-c", str(CONNECTIONS), "-j", "2", "-T", "5", "-f",
             str(script), f"{PG}/{version.database}").stdout  # fmt: skip
    tps = float(next(x for x in out.splitlines() if x.startswith("tps")).split()[2])
    latency = next(x for x in out.splitlines() if x.startswith("latency average"))
    return {"tps": tps, "latency": float(latency.split()[3])}


# --- The report ------------------------------------------------------------------------------------


def ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def report(rows: dict, others: dict, e2e: dict, pgbench: dict, load_at_start: str, started):
    order = [BARE, GET] + [label for label in rows if label.startswith("GET /v1/charges?")]
    order += [POST, FIRST, REPLAY]
    print()
    print(f"Machine: {load_at_start} at the start, {machine().split(', ', 1)[1]} at the end.")
    print(f"old: {OLD_COMMIT}, gunicorn -c config/gunicorn.py as then (its own worker, no proxy). "
          "new: this checkout, nginx (deploy/nginx/) in front of gunicorn -c config/gunicorn.py. "
          f"wrk, {CONNECTIONS} connections; {ROUNDS} rounds of {SECONDS} s per row and version, "
          "the rows and versions taking turns. req/s over all rounds; p50/p99: median of the "
          "rounds; new ÷ old: median of the rounds' ratios.")  # fmt: skip
    print()
    print("| path | old req/s | new req/s | new ÷ old | p50 ms old → new | p99 ms old → new "
          "| non-2xx old, new |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label in order:
        o, n = rows[label]["old"], rows[label]["new"]
        errors = f"{o['non2xx']:,}, {n['non2xx']:,}"
        if o["socket"] or n["socket"]:
            errors += f" (+{o['socket']}, {n['socket']} socket errors)"
        print(f"| {label} | {o['rps']:,.0f} | {n['rps']:,.0f} | {rows[label]['ratio']:.2f} "
              f"| {o['p50']:.1f} → {n['p50']:.1f} | {o['p99']:.1f} → {n['p99']:.1f} "
              f"| {errors} |")  # fmt: skip
    print()
    print("CPU per request, ms, over all rounds (/proc): the version's nginx and gunicorn (master "
          "and workers), PostgreSQL and Redis; old ÷ new: the old version's total over the new "
          "one's, which new ÷ old req/s comes to while the two cores are busy.")  # fmt: skip
    print()
    print("| path | old: web | PostgreSQL | Redis | total | new: nginx | web | PostgreSQL "
          "| Redis | total | old ÷ new |")  # fmt: skip
    print("|---|" + "---:|" * 10)
    for label in order:
        o, n = rows[label]["old"]["cpu_ms"], rows[label]["new"]["cpu_ms"]
        to, tn = sum(o.values()), sum(n.values())
        print(f"| {label} | {o['web']:.3f} | {o['PostgreSQL']:.3f} | {o['Redis']:.3f} | {to:.3f} "
              f"| {n['nginx']:.3f} | {n['web']:.3f} | {n['PostgreSQL']:.3f} | {n['Redis']:.3f} "
              f"| {tn:.3f} | {to / tn:.2f} |")  # fmt: skip
    print()
    eo, en = e2e["old"], e2e["new"]
    print(f"Workers as each version deployed them, and beat. The webhook drain: {EVENTS:,} "
          "pre-recorded events, the deliveries' worker alone (old: prefork, 4 processes, every "
          "queue; new: the webhooks queue's worker, a pool of 32 threads). End to end: "
          f"{E2E_RATE:g} charges/s offered for {E2E_SECONDS} s through the API (each with an "
          f"Idempotency-Key), the sandbox operator answering {E2E_DELAY} s after the prompt; "
          "completed = charge succeeded, ledger row written, webhook delivered and its signature "
          "verified; per second between the first and the last webhook; the operator's answer is "
          "the sandbox's answered_at, when the status check read the outcome.")  # fmt: skip
    print()
    print("| row | old | new | new ÷ old |")
    print("|---|---:|---:|---:|")

    def line(label: str, o, n, fmt: str = "{:,.0f}", ratio=True) -> None:
        shown = [("" if x is None else fmt.format(x)) for x in (o, n)]
        r = f"{n / o:.2f}" if ratio and o and n is not None else ""
        print(f"| {label} | {shown[0]} | {shown[1]} | {r} |")

    line("webhook drain (events/s)", others["old"]["rate"], others["new"]["rate"])
    line("payments completed end to end (/s)", eo["rate"], en["rate"])
    line("… of the offered: created; succeeded; ledger rows; webhooks", *(
        f"{e['offered']:,}: {e['created']:,}; {e['succeeded']:,}; {e['ledger']:,}; "
        f"{e['delivered']:,}" for e in (eo, en)), fmt="{}", ratio=False)  # fmt: skip
    for key, label in (("asked_p50", "POST → the operator's answer, p50 (ms)"),
                       ("asked_p99", "POST → the operator's answer, p99 (ms)"),
                       ("answer_p50", "operator's answer → webhook, p50 (ms)"),
                       ("answer_p99", "operator's answer → webhook, p99 (ms)"),
                       ("post_p50", "POST → webhook, p50 (ms)"),
                       ("post_p99", "POST → webhook, p99 (ms)"),
                       ("api_p99", "POST /v1/charges under that load, p99 (ms)")):  # fmt: skip
        o = None if eo[key] is None else eo[key] * 1000
        n = None if en[key] is None else en[key] * 1000
        line(label, o, n)
    print()
    print("CPU per payment completed end to end, ms (/proc, from the first charge sent to the last "
          f"webhook, or {E2E_FOLLOW} s after the last charge sent, over the payments completed "
          "meanwhile):")  # fmt: skip
    print()
    print("| version | nginx | web | PostgreSQL | Redis | Celery workers and beat | total |")
    print("|---|" + "---:|" * 6)
    for name, e in (("old", eo), ("new", en)):
        cpu = e["cpu_ms"]
        print(f"| {name} | " + " | ".join(f"{cpu[g]:.1f}" for g in CPU_GROUPS)
              + f" | {sum(cpu.values()):.1f} |")  # fmt: skip
    lateness = max(x or 0 for x in (eo["late_p99"], en["late_p99"])) * 1000
    print()
    print(f"pgbench, one-row INSERT commits, 16 clients: {pgbench['tps']:,.0f} TPS "
          f"({pgbench['latency']:.1f} ms average), for reference. The load generator sent its "
          f"requests within {lateness:.0f} ms of their time (p99).")  # fmt: skip
    print()
    checks = []
    for label in order:
        ratio = rows[label]["ratio"]
        checks.append((f"{label}: new ÷ old = {ratio:.2f} (≥ 0.7)", ratio >= 0.7))
    replay = statistics.median([rows[REPLAY]["new"]["rps"] / rows[FIRST]["new"]["rps"]])
    checks.append((f"new: replay ÷ first request with a key = {replay:.2f} (≥ 1.5), "
                   f"{rows[REPLAY]['new']['non2xx']} non-2xx (0)",
                   replay >= 1.5 and rows[REPLAY]["new"]["non2xx"] == 0))  # fmt: skip
    for template in (KEYSET, FILTERED):
        at_small = rows[template.format(size=f"{SMALL:,}")]["new"]["p50"]
        at_large = rows[template.format(size=f"{LARGE:,}")]["new"]["p50"]
        name = template.split(" (")[0]
        checks.append((f"new: {name}: p50 at {LARGE:,} ÷ at {SMALL:,} = "
                       f"{at_large / at_small:.2f} (≤ 1.5)", at_large <= 1.5 * at_small))  # fmt: skip
    kept = en["delivered"] == en["offered"]
    checks.append((f"new: payments end to end = {en['rate']:,.0f}/s (≥ 150), "
                   f"{en['delivered']:,} of {en['offered']:,} completed",
                   en["rate"] >= 150 and kept))  # fmt: skip
    p99 = en["answer_p99"]
    checks.append((f"new: operator's answer → webhook p99 = {ms(p99 and p99 * 1000)} ms (< 1000)",
                   p99 is not None and p99 < 1.0))  # fmt: skip
    drain = others["new"]["rate"]
    checks.append((f"new: webhook drain = {drain:,.0f} events/s (≥ 300)", drain >= 300))
    print("```text")
    for text, ok in checks:
        print(f"{'ok  ' if ok else 'MISS'} {text}")
    print("```")
    print(f"\nTotal time {time.monotonic() - started:.0f} s.")


def main() -> None:
    started = time.monotonic()
    ensure_servers()
    ensure_debian("nginx", NGINX)  # the new version runs behind it, as deployed
    wrk_binary = ensure_wrk()
    load_at_start = machine()
    folder = Path(tempfile.mkdtemp(prefix="bench-"))
    old_tree = folder / "old"
    sh("git", "-C", str(ROOT), "worktree", "add", "--detach", str(old_tree), OLD_COMMIT)
    old = Version("old", old_tree, f"{DATABASE}_old", OLD_REDIS_URL)
    new = Version("new", ROOT, f"{DATABASE}_new", REDIS_URL)
    versions = [old, new]
    log(f"databases {old.database} and {new.database}, Redis {OLD_REDIS_URL} and {REDIS_URL}; "
        f"{ROUNDS} rounds of {SECONDS} s per row; {load_at_start}")  # fmt: skip
    procs = Processes()
    try:
        e2e_port = free_port()
        merchants = make_databases(old, new, f"http://127.0.0.1:{e2e_port}/hooks")
        for version in versions:
            start_web(procs, version, folder / version.name)
        rows = http_rows(Wrk(wrk_binary, folder), versions, merchants)
        drains, e2e = {}, {}
        for version in versions:
            log(f"{version.name}: webhook drain of {EVENTS:,} events")
            drains[version.name] = webhook_drain(procs, version, merchants["small"], folder)
            log(f"{version.name}: payments end to end, {E2E_RATE:g}/s for {E2E_SECONDS} s")
            e2e[version.name] = end_to_end(procs, version, merchants["e2e"], e2e_port, folder)
        log("pgbench")
        pgbench = pgbench_one_row_commits(new, folder)
    finally:
        procs.stop_all()
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_tree)],
                       capture_output=True)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
        for version in versions:
            shutil.rmtree(version.env["VAR_DIR"], ignore_errors=True)
    report(rows, drains, e2e, pgbench, load_at_start, started)
    for version in versions:
        drop_database(version.database)


if __name__ == "__main__":
    main()
