"""`make bench`: the hot paths of the service side by side, in one run, as production runs them.

Starts PostgreSQL and Redis on 127.0.0.1 if they are not running, installs Debian's wrk if it is
missing, makes a fresh database with two merchants (10,000 and 1,000,000 charges, seeded with one
INSERT … SELECT each), starts gunicorn on 127.0.0.1 with production's settings (config/gunicorn.py)
and drives it with wrk, 16 connections: the bare route (a 404 that touches neither the database
nor Redis), GET of a charge, keyset and filtered lists of each merchant, POST of a charge without
and with a fresh Idempotency-Key, and one done key replayed by every connection. The rows take
turns for BENCH_ROUNDS rounds of BENCH_SECONDS each, so that a change of load on a shared machine
touches them alike, and the bare route runs again after every other row. Then pgbench's one-row
commits, for reference, and the drain of BENCH_EVENTS pre-recorded webhook events by a Celery
worker with 2 processes to a local receiver. It prints one table: req/s, p50, p99, non-2xx, and
each row's ratio to the bare route measured right before and right after it (on a busy machine
only the ratios mean much), then the targets met or missed.

    make bench                                  # about 4 minutes
    BENCH_SECONDS=5 BENCH_ROUNDS=5 make bench   # longer, steadier
    BENCH_DATABASE=bench_x BENCH_REDIS_URL=redis://127.0.0.1:6379/14 make bench

The database (BENCH_DATABASE, default `bench`) is dropped and made anew and dropped at the end;
the Redis database (BENCH_REDIS_URL, default db 15) is flushed: give the benchmark ones of its
own. Loopback only; every phase is bounded in time, and everything started is stopped at the end.
No Celery worker runs during the HTTP rows (the charges' tasks wait in Redis and are purged
before the drain), so the rows measure what the web processes pay.
"""

import json
import os
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG = "postgres://postgres@127.0.0.1:5432"
DATABASE = os.environ.get("BENCH_DATABASE", "bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
SECONDS = max(1, min(int(os.environ.get("BENCH_SECONDS", "3")), 30))  # per row and round
ROUNDS = max(1, min(int(os.environ.get("BENCH_ROUNDS", "3")), 10))
CONNECTIONS = 16
SMALL = 10_000  # charges of one merchant
LARGE = int(os.environ.get("BENCH_LARGE", "1000000"))  # and of another
EVENTS = int(os.environ.get("BENCH_EVENTS", "3000"))
PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
BODY = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


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


# --- The machine: PostgreSQL, Redis, wrk -------------------------------------------------------


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


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    log("installing Debian's wrk")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env).returncode != 0:
        sh("apt-get", "update", "-qq", env=env)
        sh("apt-get", "install", "-y", "-qq", "wrk", env=env)
    return shutil.which("wrk") or "/usr/bin/wrk"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def machine() -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores (nproc), load average {load}"


# --- The service's environment -----------------------------------------------------------------

ENV = {
    **os.environ,
    "DATABASE_URL": f"{PG}/{DATABASE}",
    "REDIS_URL": REDIS_URL,
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
    "VAR_DIR": tempfile.mkdtemp(prefix="bench-var-"),
    "PYTHONPATH": str(ROOT),
}
os.environ.update(ENV)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def fresh_database() -> None:
    sh("psql", f"{PG}/postgres", "-q", "-c", f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
    sh("psql", f"{PG}/postgres", "-q", "-c", f'CREATE DATABASE "{DATABASE}"')
    sh("redis-cli", "-u", REDIS_URL, "flushdb")


def psql(sql: str) -> str:
    return sh("psql", f"{PG}/{DATABASE}", "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql).stdout


def seed_charges(merchant_id: str, first: int, last: int) -> None:
    """Charges first..last of a merchant in test mode, one second apart going back in time, all
    networks and statuses: one INSERT … SELECT, not the ORM."""
    psql(f"""
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
    psql("VACUUM ANALYZE payments_charge")


# --- Processes -----------------------------------------------------------------------------------


class Processes:
    def __init__(self) -> None:
        self.running: list[subprocess.Popen] = []

    def start(self, *cmd: str, quiet: bool = True) -> subprocess.Popen:
        out = subprocess.DEVNULL if quiet else None
        proc = subprocess.Popen(cmd, cwd=ROOT, env=os.environ.copy(), stdout=out, stderr=None)
        self.running.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc in self.running:
            self.running.remove(proc)

    def stop_all(self) -> None:
        for proc in list(reversed(self.running)):
            self.stop(proc)


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


# --- CPU per request -------------------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")
CPU_GROUPS = ("web", "PostgreSQL", "Redis", "wrk")


def cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU (user + system) spent so far by the web server (gunicorn's master and workers), the
    database's processes, Redis and the load generators this process ran (/proc, and the rusage
    of waited-for children). A database process that ended meanwhile (a backend, an autovacuum
    worker) is counted in its postmaster's time of reaped children."""
    ticks = dict.fromkeys(CPU_GROUPS[:3], 0)
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
        if int(entry) == server_pid or int(fields[1]) == server_pid:
            ticks["web"] += used
        elif name == "postgres":
            ticks["PostgreSQL"] += used
            if int(fields[1]) == 1 or _name(int(fields[1])) != "postgres":  # the postmaster
                ticks["PostgreSQL"] += int(fields[13]) + int(fields[14])
        elif name.startswith("redis-server"):
            ticks["Redis"] += used
    seconds = {group: used / TICK for group, used in ticks.items()}
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds["wrk"] = children.ru_utime + children.ru_stime
    return seconds


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


class Wrk:
    def __init__(self, binary: str, base: str, key: str, folder: Path, server_pid: int) -> None:
        self.binary, self.base, self.key, self.folder = binary, base, key, folder
        self.server_pid = server_pid

    def run(self, path: str, *, method="GET", body=None, headers=None, fresh_keys=False, key=None):
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
        cmd = [self.binary, "-t2", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "--timeout", "10s",
               "-H", f"Authorization: Bearer {key or self.key}", "-s", str(script),
               self.base + path]  # fmt: skip
        if fresh_keys:
            cmd += ["--", uuid.uuid4().hex[:12]]
        before = cpu_seconds(self.server_pid)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=SECONDS + 30).stdout
        after = cpu_seconds(self.server_pid)
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


# --- The phases ------------------------------------------------------------------------------------


def pgbench_one_row_commits(folder: Path) -> dict:
    """TPS of one-row INSERT commits by 16 clients: what the database and its disk allow."""
    psql("CREATE TABLE IF NOT EXISTS bench_commit (id bigserial PRIMARY KEY, v int NOT NULL)")
    script = folder / "commit.sql"
    script.write_text("INSERT INTO bench_commit (v) VALUES (1);\n")
    prefix = folder / "pgbench"
    out = sh(PGBENCH, "-n", "-c", str(CONNECTIONS), "-j", "2", "-T", "8", "-f",
             str(script), "-l", "--log-prefix", str(prefix), f"{PG}/{DATABASE}").stdout  # fmt: skip
    tps = float(next(x for x in out.splitlines() if x.startswith("tps")).split()[2])
    latencies = []
    for log_file in folder.glob("pgbench*"):
        for row in log_file.read_text().splitlines():
            latencies.append(int(row.split()[2]) / 1000)
    latencies.sort()
    return {
        "rps": tps,
        "p50": latencies[len(latencies) // 2],
        "p99": latencies[int(len(latencies) * 0.99)],
        "non2xx": 0,
        "socket": 0,
        "requests": len(latencies),
    }


def webhook_drain(procs: Processes, merchant, secret: str) -> dict:
    """EVENTS events recorded (SQL) with their deliveries and tasks queued, then a worker with
    2 processes started, on the deliveries' queue: deliveries per second between the first and
    the last arrival."""
    from django.conf import settings

    from webhooks.models import Delivery

    port = free_port()
    receiver = procs.start(sys.executable, str(ROOT / "bench" / "receiver.py"), str(port), secret)
    wait_for(lambda: _stats(port) is not None, "the receiver")
    url = f"http://127.0.0.1:{port}/hooks"
    psql(f"""
        INSERT INTO webhooks_event (id, merchant_id, livemode, type, data, destination_url, created_at)
        SELECT 'evt_bench' || lpad(i::text, 15, '0'), '{merchant.id}', false, 'charge.succeeded',
            jsonb_build_object('object', jsonb_build_object('id', 'ch_bench' || i, 'object', 'charge',
                'amount', 5000, 'currency', 'CDF', 'status', 'succeeded')),
            '{url}', now()
        FROM generate_series(1, {EVENTS}) AS i;
        INSERT INTO webhooks_delivery (event_id, url, status, attempts, next_attempt_at, last_error,
            created_at, updated_at)
        SELECT 'evt_bench' || lpad(i::text, 15, '0'), '{url}', 'pending', 0, now(), '', now(), now()
        FROM generate_series(1, {EVENTS}) AS i;
    """)  # fmt: skip
    from webhooks.services import _enqueue

    for delivery_id in Delivery.objects.filter(status="pending").values_list("id", flat=True):
        _enqueue(delivery_id)
    worker = procs.start(
        sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "2",
        "--queues", settings.WEBHOOKS_QUEUE,
        "--loglevel", "WARNING", "--without-gossip", "--without-mingle", quiet=False,
    )  # fmt: skip
    deadline = time.monotonic() + max(60, EVENTS / 20)
    stats = _stats(port)
    while time.monotonic() < deadline and stats["events"] < EVENTS:
        time.sleep(0.25)
        stats = _stats(port)
    procs.stop(worker)
    procs.stop(receiver)
    elapsed = max(stats["last"] - stats["first"], 1e-3)
    return {
        "rps": (stats["events"] - 1) / elapsed if stats["events"] > 1 else 0.0,
        "p50": None,
        "p99": None,
        "non2xx": EVENTS - stats["events"] + stats["bad"],
        "socket": 0,
        "requests": stats["events"],
    }


def _stats(port: int):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=2) as response:
            return json.loads(response.read())
    except OSError:
        return None


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


def _up(base: str) -> bool:
    try:
        urllib.request.urlopen(base + "/v1/nothing-here", timeout=1)
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
    return True


BARE = "bare: GET /v1/<unknown> (404, no database, no Redis)"
GET = "GET /v1/charges/{id}"
POST = "POST /v1/charges"
FIRST = "POST /v1/charges + fresh Idempotency-Key"
REPLAY = "POST /v1/charges, one done key replayed by 16 connections"
KEYSET = "GET /v1/charges?limit=10&starting_after=… ({size} charges)"
FILTERED = "GET /v1/charges?status=succeeded&network=ORANGE_MONEY&limit=10 ({size} charges)"
PGBENCH_ROW = "pgbench: one-row INSERT commits, 16 clients (TPS)"
DRAIN = "webhook drain, Celery worker with 2 processes (events/s)"


def combine(runs: list[dict], beside: list[tuple[dict, dict]]) -> dict:
    """Rounds of one row: req/s over all of them, the median p50 and p99, every non-2xx, and the
    median of the ratios to the bare route measured just before and just after each of them (the
    mean of the two req/s)."""
    return {
        "rps": sum(r["requests"] for r in runs) / sum(r["seconds"] for r in runs),
        "p50": statistics.median(r["p50"] for r in runs),
        "p99": statistics.median(r["p99"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "socket": sum(r["socket"] for r in runs),
        "requests": sum(r["requests"] for r in runs),
        "ratio": statistics.median(
            2 * r["rps"] / (before["rps"] + after["rps"])
            for r, (before, after) in zip(runs, beside, strict=True)
        ),
        "rounds": runs,
        "cpu_ms": {  # per request, over all rounds
            group: 1000 * sum(r["cpu"][group] for r in runs) / sum(r["requests"] for r in runs)
            for group in CPU_GROUPS
        },
    }


def main() -> None:
    started = time.monotonic()
    ensure_servers()
    wrk_binary = ensure_wrk()
    load_at_start = machine()
    log(f"database {DATABASE}, Redis {REDIS_URL}, {ROUNDS} rounds of {SECONDS} s per row; "
        f"{load_at_start}")  # fmt: skip
    fresh_database()

    import django

    django.setup()
    from django.core.management import call_command

    from payments.services.accounts import merchant_create

    call_command("migrate", verbosity=0)
    small = merchant_create(name="Bench, 10k charges")
    large = merchant_create(name="Bench, 1M charges")
    key = small.test_key.plaintext
    log(f"seeding {SMALL:,} + {LARGE:,} charges")
    seed_charges(small.merchant.id, 1, SMALL)
    seed_charges(large.merchant.id, SMALL + 1, SMALL + LARGE)

    procs = Processes()
    folder = Path(tempfile.mkdtemp(prefix="bench-"))
    rows: dict[str, dict] = {}
    try:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = procs.start(sys.executable, "-m", "gunicorn", "config.wsgi", "-c",
                             str(ROOT / "config" / "gunicorn.py"), "--bind", f"127.0.0.1:{port}")  # fmt: skip
        wait_for(lambda: _up(base), "gunicorn")
        wrk = Wrk(wrk_binary, base, key, folder, server.pid)

        status, charge = post_json(base, key, "/v1/charges", BODY)
        assert status == 201, charge
        done_key = f"bench-done-{uuid.uuid4()}"
        status, _ = post_json(base, key, "/v1/charges", BODY, idem=done_key)
        assert status == 201
        large_key = large.test_key.plaintext

        def middle(api_key: str, size: int) -> str:
            page = get_json(base, api_key, f"/v1/charges?limit=1&offset={size // 2}")
            return page["data"][0]["id"]

        cursors = {SMALL: middle(key, SMALL), LARGE: middle(large_key, LARGE)}
        keys = {SMALL: key, LARGE: large_key}
        phases = [
            (BARE, lambda: wrk.run("/v1/nothing-here")),
            (GET, lambda: wrk.run(f"/v1/charges/{charge['id']}")),
            (POST, lambda: wrk.run("/v1/charges", method="POST", body=BODY)),
            (FIRST, lambda: wrk.run("/v1/charges", method="POST", body=BODY, fresh_keys=True)),
            (REPLAY, lambda: wrk.run("/v1/charges", method="POST", body=BODY,
                                     headers={"Idempotency-Key": done_key})),
        ]  # fmt: skip
        for size in (SMALL, LARGE):
            label = f"{size:,}"
            phases += [
                (KEYSET.format(size=label),
                 lambda s=size: wrk.run(f"/v1/charges?limit=10&starting_after={cursors[s]}",
                                        key=keys[s])),
                (FILTERED.format(size=label),
                 lambda s=size: wrk.run("/v1/charges?status=succeeded&network=ORANGE_MONEY&limit=10",
                                        key=keys[s])),
            ]  # fmt: skip

        # Warm every worker and thread (imports, connections) before anything is counted.
        for path in ("/v1/nothing-here", f"/v1/charges/{charge['id']}"):
            subprocess.run([wrk_binary, "-t2", f"-c{CONNECTIONS}", "-d2s", "-H",
                            f"Authorization: Bearer {key}", base + path], capture_output=True)  # fmt: skip

        # Each round: the bare route, then every other row followed by the bare route again, so
        # that a row's ratio is to the bare route measured on either side of it, seconds apart.
        (_, bare_run), *others = phases
        runs: dict[str, list[dict]] = {label: [] for label, _ in phases}
        beside: dict[str, list[tuple[dict, dict]]] = {label: [] for label, _ in others}
        for number in range(1, ROUNDS + 1):
            log(f"round {number} of {ROUNDS}")
            before = bare_run()
            runs[BARE].append(before)
            for label, run in others:
                runs[label].append(run())
                after = bare_run()
                runs[BARE].append(after)
                beside[label].append((before, after))
                before = after
        rows[BARE] = combine(runs[BARE], [(run, run) for run in runs[BARE]])
        for label, _ in others:
            rows[label] = combine(runs[label], beside[label])
        app_purge()  # the charges' tasks: no worker was meant to run them
        log("pgbench")
        rows[PGBENCH_ROW] = pgbench_one_row_commits(folder)
        log(f"webhook drain of {EVENTS} events")
        rows[DRAIN] = webhook_drain(procs, small.merchant, small.test_webhook_secret)
    finally:
        procs.stop_all()
        shutil.rmtree(folder, ignore_errors=True)

    bare = rows[BARE]["rps"]
    for label in (PGBENCH_ROW, DRAIN):
        rows[label]["ratio"] = rows[label]["rps"] / bare
    order = [BARE, GET] + [label for label in rows if label.startswith("GET /v1/charges?")]
    order += [POST, FIRST, REPLAY, PGBENCH_ROW, DRAIN]
    print()
    print(f"Machine: {load_at_start} at the start, {machine().split(', ', 1)[1]} at the end.")
    print(f"gunicorn -c config/gunicorn.py; wrk, {CONNECTIONS} connections; {ROUNDS} rounds of "
          f"{SECONDS} s per row, the rows taking turns, the bare route between every two. req/s "
          "over all rounds; p50/p99: median of the rounds; ÷ bare: median of the rounds' ratios "
          "to the bare route right before and right after.")  # fmt: skip
    print()
    print("| path | req/s | p50 ms | p99 ms | non-2xx | ÷ bare |")
    print("|---|---:|---:|---:|---:|---:|")
    for label in order:
        r = rows[label]
        p50 = "" if r["p50"] is None else f"{r['p50']:.1f}"
        p99 = "" if r["p99"] is None else f"{r['p99']:.1f}"
        non2xx = f"{r['non2xx']:,}" + (f" (+{r['socket']} socket errors)" if r["socket"] else "")
        print(f"| {label} | {r['rps']:,.0f} | {p50} | {p99} | {non2xx} | {r['ratio']:.2f} |")
    print()
    http_rows = [label for label in order if "cpu_ms" in rows[label]]
    bare_cpu = sum(rows[BARE]["cpu_ms"].values())
    print("CPU per request, ms, over all rounds: the web server (gunicorn's master and workers), "
          "the database, Redis and the load generator. ÷ bare: the bare route's total over the "
          "row's, which the req/s ratio comes to while the two cores are busy.")  # fmt: skip
    print()
    print("| path | " + " | ".join(CPU_GROUPS) + " | total | ÷ bare |")
    print("|---|" + "---:|" * (len(CPU_GROUPS) + 2))
    for label in http_rows:
        cpu = rows[label]["cpu_ms"]
        total = sum(cpu.values())
        figures = " | ".join(f"{cpu[group]:.3f}" for group in CPU_GROUPS)
        print(f"| {label} | {figures} | {total:.3f} | {bare_cpu / total:.2f} |")
    print()
    replay = rows[REPLAY]
    replay_vs_first = statistics.median(
        r["rps"] / f["rps"] for r, f in zip(replay["rounds"], rows[FIRST]["rounds"], strict=True)
    )
    checks = [
        (f"POST ÷ bare = {rows[POST]['ratio']:.2f} (≥ 0.35)", rows[POST]["ratio"] >= 0.35),
        (f"GET ÷ bare = {rows[GET]['ratio']:.2f} (≥ 0.5)", rows[GET]["ratio"] >= 0.5),
        (f"replay ÷ first request with a key = {replay_vs_first:.2f} (≥ 1.5), "
         f"{replay['non2xx']} non-2xx (0)", replay_vs_first >= 1.5 and replay["non2xx"] == 0),
    ]  # fmt: skip
    for template in (KEYSET, FILTERED):
        at_small = rows[template.format(size=f"{SMALL:,}")]["p50"]
        at_large = rows[template.format(size=f"{LARGE:,}")]["p50"]
        name = template.split(" (")[0]
        checks.append((f"{name}: p50 at {LARGE:,} ÷ at {SMALL:,} = {at_large / at_small:.2f} "
                       "(≤ 1.5)", at_large <= 1.5 * at_small))  # fmt: skip
    drain = rows[DRAIN]["rps"]
    checks.append((f"webhook drain = {drain:,.0f} events/s (≥ 300)", drain >= 300))
    for text, ok in checks:
        print(f"{'ok  ' if ok else 'MISS'} {text}")
    print(f"\nTotal time {time.monotonic() - started:.0f} s.")
    sh("psql", f"{PG}/postgres", "-q", "-c", f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


def app_purge() -> None:
    from config.celery import app

    app.control.purge()


if __name__ == "__main__":
    main()
