"""What the JavaScript and PHP libraries' tests share: the service as `make run` starts it, a
small script of the library run per scenario with the service's address and a test key, and a
local proxy between them that loses answers on purpose.

The libraries are tested from the outside, as a merchant's code uses them: each scenario is a
Node or PHP program (tests/clients/node/, tests/clients/php/) that prints what it got as JSON,
against the real service (not a mock). What is faked is only the network in between (the proxy)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from tests.helpers import free_port, wait_for

BASE = settings.BASE_DIR
STRICT = (
    os.environ.get("CI", "").lower() in ("1", "true", "yes")
    or os.environ.get("REQUIRE_REAL_SERVICES") == "1"
)


def runtime(name: str, package: str) -> str:
    """The path of `node` or `php`; without it the test is skipped (failed in CI, where
    .ci/run installs Debian's `package`)."""
    found = shutil.which(name)
    if found is None:
        reason = f"needs `{name}` (Debian's {package}) to run the library's scripts"
        if STRICT:
            pytest.fail(f"required in CI: {reason}", pytrace=False)
        pytest.skip(reason)
    return found


def run_json(command: list[str], *, env: dict[str, str], cwd: Path | None = None) -> dict:
    """Run one scenario; the JSON of the last line it printed."""
    done = subprocess.run(
        command,
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines, f"{command} printed nothing:\n{done.stderr[-4000:]}"
    return json.loads(lines[-1])


def charges_with_order(service, order: str) -> list[dict]:
    """The service's charges whose metadata names this order (read through the API)."""
    found = []
    path = "/v1/charges?limit=100"
    while True:
        page = service.call("GET", path)
        found += [c for c in page["data"] if c["metadata"].get("order") == order]
        if not page["has_more"]:
            return found
        path = f"/v1/charges?limit=100&starting_after={page['data'][-1]['id']}"


# --- A proxy that loses answers -------------------------------------------------------------------


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Proxy:
    """Forwards each request to the service and relays its answer, unless the next planned step
    for that method and path says otherwise:
    - {"drop": True}: forward the request, wait for the service's whole answer, then close the
      client's connection without relaying a byte of it (an answer lost on the way back);
    - {"status": 503, "headers": {...}, "body": {...}}: answer that instead of the service, which
      never sees the request (a load balancer's refusal)."""

    upstream: str
    port: int = 0
    seen: list[Seen] = field(default_factory=list)
    plans: dict[tuple[str, str], deque] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def plan(self, method: str, path: str, *steps: dict) -> None:
        with self.lock:
            self.plans.setdefault((method, path), deque()).extend(steps)

    def requests(self, method: str, path: str) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.method == method and s.path.split("?")[0] == path]


def _proxy_handler(proxy: Proxy):
    upstream = urlsplit(proxy.upstream)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _relay(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
            with proxy.lock:
                lowered = {k.lower(): v for k, v in headers.items()}
                proxy.seen.append(Seen(self.command, self.path, lowered, body))
                steps = proxy.plans.get((self.command, self.path.split("?")[0]))
                step = steps.popleft() if steps else {}
            if "status" in step:
                answer = json.dumps(step.get("body", {})).encode()
                self.send_response(step["status"])
                for name, value in step.get("headers", {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                return
            connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=120)
            try:
                connection.request(self.command, self.path, body=body or None, headers=headers)
                response = connection.getresponse()
                answer = response.read()  # the service has answered: the charge is made
            finally:
                connection.close()
            if step.get("drop"):
                self.close_connection = True
                return
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        do_GET = _relay
        do_POST = _relay

    return Handler


@contextlib.contextmanager
def proxying(upstream: str):
    proxy = Proxy(upstream=upstream)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _proxy_handler(proxy))
    server.daemon_threads = True
    proxy.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()


# --- A webhook receiver's record ---------------------------------------------------------------


def received(path: Path) -> list[dict]:
    """What a receiver (tests/clients/*/receiver.*) wrote of each delivery, one JSON line each."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST a delivery to a receiver as the service would; the receiver's HTTP status."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("POST", parts.path, body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


# --- The scenarios, the same for both libraries ---------------------------------------------------


class Library:
    """How to run a library's scenario scripts and its webhook receiver."""

    name = ""

    def command(self, script: str, *args: str) -> list[str]:
        raise NotImplementedError

    def receiver(self, port: int, env: dict[str, str]) -> subprocess.Popen:
        raise NotImplementedError

    def serves(self, example: str) -> bool:
        """Whether an example of the guide is a webhook endpoint (a server)."""
        raise NotImplementedError

    def example(self, example: str, number: int) -> list[str]:
        """The command that runs an example of the guide, saved in the merchant's project."""
        raise NotImplementedError

    def serve(self, example: str, number: int, port: int, env: dict, log) -> subprocess.Popen:
        """The webhook endpoint of an example, serving on 127.0.0.1:port, its output to log."""
        raise NotImplementedError

    def run(self, service, script: str, *args: str, base: str | None = None) -> dict:
        env = {
            "CONGOPAY_BASE_URL": base or service.base,
            "CONGOPAY_API_KEY": service.demo["test_secret_key"],
        }
        return run_json(self.command(script, *args), env=env)


def order(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:12]}"


def check_first_payment(library: Library, service) -> dict:
    """A charge made by the library, followed to success by retrieving it."""
    out = library.run(service, "first_payment", order("first"))
    created, charge = out["created"], out["charge"]
    assert created["id"].startswith("ch_") and created["object"] == "charge"
    assert created["status"] == "pending"
    assert (created["amount"], created["currency"]) == (250000, "CDF")
    assert charge["id"] == created["id"]
    assert charge["status"] == "succeeded", charge
    assert service.call("GET", f"/v1/charges/{charge['id']}")["status"] == "succeeded"
    return out


def check_partial_refund(library: Library, service) -> None:
    charge = check_first_payment(library, service)["charge"]
    out = library.run(service, "refund", charge["id"], "100000")
    refund = out["refund"]
    assert refund["id"].startswith("re_") and refund["object"] == "refund"
    assert (refund["amount"], refund["charge_id"]) == (100000, charge["id"])
    assert refund["status"] == "succeeded"  # in test mode, at once
    assert out["charge"]["amount_refunded"] == 100000
    assert out["charge"]["status"] == "succeeded"
    assert out["refunds"] == [refund["id"]]
    seen = service.call("GET", f"/v1/charges/{charge['id']}/refunds")["data"]
    assert [r["id"] for r in seen] == [refund["id"]]


def check_list_walks_every_page(library: Library, service) -> None:
    for _ in range(5):
        service.call(
            "POST",
            "/v1/charges",
            {"amount": 250000, "currency": "CDF", "phone": "+243812345678",
             "network": "VODACOM_MPESA", "metadata": {"order": order("walk")}},
        )  # fmt: skip
    expected = []
    path = "/v1/charges?limit=100"
    while True:
        page = service.call("GET", path)
        expected += [c["id"] for c in page["data"]]
        if not page["has_more"]:
            break
        path = f"/v1/charges?limit=100&starting_after={page['data'][-1]['id']}"
    assert len(expected) >= 5
    with proxying(service.base) as proxy:
        out = library.run(service, "walk", "2", base=proxy.url)
    assert out["ids"] == expected  # every charge, once, newest first
    first = out["first_page"]
    assert first["object"] == "list" and first["has_more"] is True
    assert [c["id"] for c in first["data"]] == expected[:2]
    pages = proxy.requests("GET", "/v1/charges")
    assert len(pages) >= 1 + 3  # the first page alone, then the walk: several pages
    # After its first page, the walk follows the last id seen.
    assert all("starting_after=" in seen.path for seen in pages[2:]), [s.path for s in pages]


def check_webhook_delivery(library: Library, service, tmp_path: Path) -> None:
    """The service delivers a real event to the library's receiver, which verifies it from the
    raw body; the same delivery with its body changed is refused."""
    record = tmp_path / f"{library.name}-received.jsonl"
    port = free_port()
    url = f"http://127.0.0.1:{port}/hooks"
    env = {
        "CONGOPAY_BASE_URL": service.base,
        "CONGOPAY_API_KEY": service.demo["test_secret_key"],
        "CONGOPAY_WEBHOOK_SECRET": service.demo["webhook_secret"],
        "CONGOPAY_RECEIVED": str(record),
    }
    process = library.receiver(port, env)
    try:
        wait_for(lambda: _listening(port), 60)
        service.call("POST", "/v1/webhook_endpoint", {"url": url})
        charge = check_first_payment(library, service)["charge"]

        def delivered():
            return [
                line
                for line in received(record)
                if "verified" in line and line["verified"]["data"]["object"]["id"] == charge["id"]
            ]

        (delivery,) = wait_for(delivered, 120)
        event = delivery["verified"]
        assert event["type"] == "charge.succeeded" and event["object"] == "event"
        assert event["id"] == delivery["headers"]["webhook-id"]
        assert event["data"]["object"]["status"] == "succeeded"

        body = delivery["body"].encode()
        tampered = body.replace(b"250000", b"900000", 1)
        assert tampered != body
        assert (
            post(url, tampered, {**delivery["headers"], "content-type": "application/json"}) == 400
        )
        refused = [line for line in received(record) if "refused" in line]
        assert [line["headers"]["webhook-id"] for line in refused] == [event["id"]]
        assert "signature" in refused[0]["refused"]
    finally:
        service.call("POST", "/v1/webhook_endpoint", {"url": None})
        process.terminate()
        process.wait(timeout=30)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def check_lost_answer_is_retried_once_charged(library: Library, service) -> None:
    """The first answer to a POST is lost on its way back: the library sends the same request
    again with the same idempotency key, and gets the first answer, replayed; one charge."""
    mine = order("lost")
    with proxying(service.base) as proxy:
        proxy.plan("POST", "/v1/charges", {"drop": True})
        out = library.run(service, "create_charge", mine, base=proxy.url)
    posts = proxy.requests("POST", "/v1/charges")
    assert len(posts) == 2
    keys = {seen.headers["idempotency-key"] for seen in posts}
    assert len(keys) == 1
    assert uuid.UUID(keys.pop()).version == 4
    assert posts[0].body == posts[1].body
    made = charges_with_order(service, mine)
    assert [c["id"] for c in made] == [out["charge"]["id"]]


def check_refusals_retried_as_they_say(library: Library, service) -> None:
    """A 503 is retried after a backoff, a 429 after its Retry-After; a 400 is not retried."""
    api_error = {"error": {"type": "api_error", "code": "provider_unavailable",
                           "message": "Try again.", "param": None, "request_id": "req_proxy"}}  # fmt: skip
    limited = {"error": {"type": "rate_limit_error", "code": "rate_limited",
                         "message": "Slow down.", "param": None, "request_id": "req_proxy"}}  # fmt: skip
    mine = order("refused")
    with proxying(service.base) as proxy:
        proxy.plan(
            "POST",
            "/v1/charges",
            {"status": 503, "body": api_error},
            {"status": 429, "headers": {"Retry-After": "1"}, "body": limited},
        )
        out = library.run(service, "create_charge", mine, base=proxy.url)
        posts = proxy.requests("POST", "/v1/charges")
        assert len(posts) == 3
        assert len({seen.headers["idempotency-key"] for seen in posts}) == 1
        assert [c["id"] for c in charges_with_order(service, mine)] == [out["charge"]["id"]]

        refused = library.run(service, "create_charge", order("zero"), "0", base=proxy.url)
        assert len(proxy.requests("POST", "/v1/charges")) == 4  # once: a 400 is final
    error = refused["error"]
    assert error["name"] in ("InvalidRequestError", "InvalidRequestException")
    assert (error["status"], error["type"]) == (400, "invalid_request_error")
    assert (error["code"], error["param"]) == ("amount_invalid", "amount")
    assert error["requestId"].startswith("req_") and error["message"]


# --- The guide's examples -------------------------------------------------------------------------

GUIDE = BASE / "docs" / "guides" / "libraries.md"


def guide_blocks(section: str, language: str) -> list[str]:
    """The ```language blocks of one section (`## section`) of the guide, in order."""
    text = GUIDE.read_text(encoding="utf-8")
    part = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"^```{language}\n(.*?)^```", part, flags=re.M | re.S)


def check_guide_examples(library: Library, service, tmp_path: Path, section: str, language: str):
    """Every example of the library's section of the guide, run as written in a merchant's
    project (the package installed there) with the demo merchant's test key: the scripts one after
    the other, the webhook endpoint as a server that the service delivers a real event to. What
    each printed (a server: its log), in order."""
    env = {
        "CONGOPAY_BASE_URL": service.base,
        "CONGOPAY_API_KEY": service.demo["test_secret_key"],
        "CONGOPAY_WEBHOOK_SECRET": service.demo["webhook_secret"],
    }
    outputs = []
    for number, block in enumerate(guide_blocks(section, language)):
        if not library.serves(block):
            done = subprocess.run(
                library.example(block, number),
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, f"example {number}:\n{done.stdout}\n{done.stderr}"
            outputs.append(done.stdout)
            continue
        port = free_port()
        log = tmp_path / f"example-{number}.log"
        with open(log, "w") as output:
            process = library.serve(block, number, port, env, output)
        try:
            wait_for(lambda: _listening(port), 60)  # noqa: B023 (used at once)
            service.call("POST", "/v1/webhook_endpoint", {"url": f"http://127.0.0.1:{port}/"})
            charge = check_first_payment(library, service)["charge"]
            wait_for(lambda: f"paid: {charge['id']}" in log.read_text(), 120)  # noqa: B023
        finally:
            service.call("POST", "/v1/webhook_endpoint", {"url": None})
            process.terminate()
            process.wait(timeout=30)
        outputs.append(log.read_text())
    return outputs
