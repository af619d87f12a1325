"""The Python library (clients/python, `import congopay`) and its CLI against the real service, as
`make run` starts it: a charge to success, a partial refund, lists walked over every page, a real
webhook delivery verified (and a tampered one refused), errors as exceptions, and a POST whose
first answer a local proxy drops, retried with the same Idempotency-Key: one charge. The CLI
forwards the events it triggers to a local receiver, signed with its own secret.

The webhook verification also passes the test vectors of the Standard Webhooks reference
library (github.com/standard-webhooks/standard-webhooks, libraries/python/tests/test_webhooks.py
at commit b2fa7b8719fb75d326b591077f5d1b385cfcdfae)."""

import base64
import contextlib
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import congopay
import pytest
import standardwebhooks
from congopay import cli, webhooks

from tests.fakes import merchant as merchant_site
from tests.helpers import wait_for

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
CLIENT_SRC = CLIENTS / "python" / "src"
MOBILE_MONEY = {"currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture
def client(service) -> congopay.Congopay:
    return congopay.Congopay(api_key=service.demo["test_secret_key"], base_url=service.base)


def settled(client, charge_id: str) -> dict:
    """The charge once the sandbox has answered it (within a second here)."""
    return wait_for(
        lambda: (found := client.charges.retrieve(charge_id))["status"] != "pending" and found,
        120,  # generous: several test processes may share a loaded machine
    )


# --- Charges, refunds, lists ----------------------------------------------------------------------


def test_a_charge_succeeds_and_a_part_of_it_is_refunded(client):
    created = client.charges.create(amount=250000, **MOBILE_MONEY, metadata={"order": "42"})
    assert created["object"] == "charge" and created["status"] == "pending"
    assert created["livemode"] is False

    charge = settled(client, created["id"])
    assert charge["status"] == "succeeded"
    assert (charge["amount"], charge["currency"], charge["metadata"]) == (250000, "CDF", {"order": "42"})  # fmt: skip
    assert client.transactions.retrieve(created["id"]) == charge

    refund = client.refunds.create(charge["id"], amount=100000)
    assert (refund["object"], refund["status"], refund["amount"]) == ("refund", "succeeded", 100000)
    assert client.charges.retrieve(charge["id"])["amount_refunded"] == 100000
    assert [r["id"] for r in client.refunds.list(charge["id"])] == [refund["id"]]
    assert client.refunds.retrieve(refund["id"]) == refund
    assert refund["id"] in [r["id"] for r in client.refunds.list(limit=100).data]


def test_iterating_a_list_walks_every_page(client):
    marker = uuid.uuid4().hex
    made = [
        client.charges.create(amount=250000 + 100 * i, **MOBILE_MONEY, metadata={"run": marker})[
            "id"
        ]
        for i in range(5)
    ]
    first = client.charges.list(limit=2)
    assert len(first.data) == 2 and first.has_more
    walked = [c["id"] for c in first]  # starting_after each page's last id
    assert len(walked) == len(set(walked)) >= 5
    assert [i for i in walked if i in made] == made[::-1]  # newest first, all of them

    # A list without ids to start after: pages follow each other by offset.
    networks = [n["network"] for n in client.networks.list(limit=1)]
    assert sorted(networks) == ["AIRTEL_MONEY", "ORANGE_MONEY", "VODACOM_MPESA"]
    assert client.networks.predict(phone="0812345678")["network"] == "VODACOM_MPESA"


def test_errors_are_exceptions_with_the_envelope(client, service):
    with pytest.raises(congopay.InvalidRequestError) as refused:
        client.charges.create(amount=250050, **MOBILE_MONEY)  # operators take whole francs
    error = refused.value
    assert isinstance(error, congopay.APIError)
    assert (error.status, error.type, error.code, error.param) == (
        400, "invalid_request_error", "amount_invalid", "amount"
    )  # fmt: skip
    assert error.message and error.request_id.startswith("req_")

    with pytest.raises(congopay.InvalidRequestError) as missing:
        client.charges.retrieve("ch_" + "x" * 24)
    assert (missing.value.status, missing.value.code) == (404, "resource_missing")

    stranger = congopay.Congopay(api_key="sk_test_" + "x" * 32, base_url=service.base)
    with pytest.raises(congopay.AuthenticationError) as unknown:
        stranger.balance.retrieve()
    assert (unknown.value.status, unknown.value.code) == (401, "invalid_api_key")


# --- Webhooks ---------------------------------------------------------------------------------------


def test_a_real_delivery_is_unwrapped_and_a_tampered_one_refused(client):
    secret = client.webhook_endpoint.retrieve()["secret"]
    with merchant_site.serving(secret) as receiver:
        client.webhook_endpoint.update(url=receiver.url("/hooks"))
        try:
            charge = client.charges.create(amount=250000, **MOBILE_MONEY)
            delivery = wait_for(
                lambda: next(
                    (r for r in receiver.received if charge["id"].encode() in r.body), None
                ),
                120,
            )
        finally:
            client.webhook_endpoint.update(url=None)

    event = client.webhooks.unwrap(delivery.body, delivery.headers, secret)
    assert event["type"] == "charge.succeeded"
    assert event["data"]["object"]["id"] == charge["id"]
    assert event == client.events.retrieve(event["id"])
    # The body as a string, and the headers in another case, as frameworks give them.
    headers = {name.title(): value for name, value in delivery.headers.items()}
    assert client.webhooks.unwrap(delivery.body.decode(), headers, secret) == event

    tampered = delivery.body.replace(b"250000", b"990000", 1)
    assert tampered != delivery.body
    with pytest.raises(congopay.WebhookVerificationError):
        client.webhooks.unwrap(tampered, delivery.headers, secret)
    other_secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    with pytest.raises(congopay.WebhookVerificationError):
        client.webhooks.unwrap(delivery.body, delivery.headers, other_secret)


# The reference library's vectors: its message, payload and secret, and its signature of them at
# 1614265330 (test_sign_function).
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_PAYLOAD = '{"test": 2432232314}'
VECTOR_SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def vector(secret: str = VECTOR_SECRET, timestamp: int | None = None) -> dict[str, str]:
    """The reference tests' PayloadForTesting headers, signed now (or at `timestamp`)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        "webhook-id": VECTOR_ID,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhooks.sign(secret, VECTOR_ID, timestamp, VECTOR_PAYLOAD),
    }


def test_the_standard_webhooks_reference_vectors_pass():
    unwrap = congopay.Congopay(api_key="sk_test_x", base_url="http://127.0.0.1:9").webhooks.unwrap
    refused = congopay.WebhookVerificationError

    # test_sign_function
    assert (
        webhooks.sign("whsec_" + VECTOR_SECRET, VECTOR_ID, 1614265330, VECTOR_PAYLOAD)
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
    # test_valid_signature_is_valid_and_returns_json, with and without the prefix
    assert unwrap(VECTOR_PAYLOAD, vector(), VECTOR_SECRET) == {"test": 2432232314}
    assert unwrap(VECTOR_PAYLOAD.encode(), vector(), "whsec_" + VECTOR_SECRET)["test"] == 2432232314
    # test_missing_id / timestamp / signature, test_invalid_timestamp, test_invalid_signature
    for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
        headers = vector()
        del headers[name]
        with pytest.raises(refused):
            unwrap(VECTOR_PAYLOAD, headers, VECTOR_SECRET)
    with pytest.raises(refused):
        unwrap(VECTOR_PAYLOAD, {**vector(), "webhook-timestamp": "hello"}, VECTOR_SECRET)
    invalid = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="
    with pytest.raises(refused):
        unwrap(VECTOR_PAYLOAD, {**vector(), "webhook-signature": invalid}, VECTOR_SECRET)
    # test_old_timestamp_fails, test_new_timestamp_fails: five minutes and a second away
    for timestamp in (int(time.time()) - 301, int(time.time()) + 301):
        with pytest.raises(refused):
            unwrap(VECTOR_PAYLOAD, vector(timestamp=timestamp), VECTOR_SECRET)
    # test_multi_sig_payload_is_valid
    headers = vector()
    headers["webhook-signature"] = " ".join(
        [
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
            "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
            headers["webhook-signature"],
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
        ]
    )
    assert unwrap(VECTOR_PAYLOAD, headers, VECTOR_SECRET)["test"] == 2432232314
    # test_signature_verification_with_unpadded_secret
    for unpadded, padded in (("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", "="), ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwBr", "==")):  # fmt: skip
        headers = vector(secret=unpadded + padded)
        assert unwrap(VECTOR_PAYLOAD, headers, unpadded)["test"] == 2432232314
        assert unwrap(VECTOR_PAYLOAD, headers, "whsec_" + unpadded)["test"] == 2432232314
    # test_empty_secret_raises_error: a secret that is no secret is the caller's mistake
    for empty in ("", "whsec_"):
        with pytest.raises(ValueError):
            unwrap(VECTOR_PAYLOAD, vector(), empty)


def test_the_reference_library_and_this_one_agree():
    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    body = json.dumps({"id": "evt_1", "type": "charge.succeeded", "note": "Lubumbashi é"})
    headers = webhooks.signed_headers(secret, "evt_1", body)
    assert standardwebhooks.Webhook(secret).verify(body, headers)["id"] == "evt_1"
    now = time.time()
    signed = standardwebhooks.Webhook(secret).sign("evt_2", datetime.fromtimestamp(now, UTC), body)
    theirs = {
        "webhook-id": "evt_2",
        "webhook-timestamp": str(int(now)),
        "webhook-signature": signed,
    }
    assert webhooks.verify(body, theirs, secret)["note"] == "Lubumbashi é"


# --- Retries --------------------------------------------------------------------------------------


@dataclass
class Proxy:
    """A TCP proxy in front of the service that passes each request on and, as planned for each
    connection in turn, drops the answer (the connection closes before a byte of it is sent),
    answers 503 itself (a load balancer with the service out of reach), or relays it."""

    upstream: tuple[str, int]
    plan: list[str] = field(default_factory=list)  # "drop" | "503", then relay
    requests: list[bytes] = field(default_factory=list)
    answers: list[bytes] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def keys(self) -> list[bytes]:
        """The Idempotency-Key of each request, in order."""
        found = [re.search(rb"(?im)^idempotency-key: *(\S+)\r$", r) for r in self.requests]
        return [match[1] for match in found if match]

    def handle(self, conn: socket.socket) -> None:
        with conn:
            request = read_request(conn)
            self.requests.append(request)
            step = self.plan.pop(0) if self.plan else "relay"
            if step == "503":
                conn.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\n"
                    b"Content-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\n"
                    b"busy"
                )
                return
            with socket.create_connection(self.upstream, timeout=60) as upstream:
                upstream.sendall(request)
                answer = b""
                while chunk := upstream.recv(65536):
                    answer += chunk
            self.answers.append(answer)
            if step == "relay":
                conn.sendall(answer)


def read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length: *(\d+)\r?$", head)
    while length and len(body) < int(length[1]):
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@contextlib.contextmanager
def proxying(service, *plan: str):
    proxy = Proxy(upstream=("127.0.0.1", int(service.base.rsplit(":", 1)[1])), plan=list(plan))
    listener = socket.create_server(("127.0.0.1", 0))
    proxy.port = listener.getsockname()[1]

    def serve():
        with contextlib.suppress(OSError):  # the listener closed at the end
            while True:
                conn, _ = listener.accept()
                threading.Thread(target=proxy.handle, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield proxy
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() waiting in the thread
        listener.close()


def test_a_post_whose_answer_is_lost_is_retried_with_its_key_and_charges_once(client, service):
    marker = uuid.uuid4().hex
    with proxying(service, "drop") as proxy:
        behind = congopay.Congopay(api_key=service.demo["test_secret_key"], base_url=proxy.url)
        charge = behind.charges.create(amount=250000, **MOBILE_MONEY, metadata={"run": marker})
    assert len(proxy.requests) == 2
    first, second = proxy.keys()
    assert first == second and uuid.UUID(first.decode()).version == 4
    # The service made the charge on the first request, and replayed its answer to the second.
    assert b"Idempotent-Replayed: true" in proxy.answers[1]
    assert proxy.answers[0].split(b"\r\n\r\n", 1)[1] == proxy.answers[1].split(b"\r\n\r\n", 1)[1]
    mine = [c["id"] for c in client.charges.list(limit=100) if c["metadata"].get("run") == marker]
    assert mine == [charge["id"]]


def test_a_5xx_is_retried_and_another_4xx_never(service):
    with proxying(service, "503") as proxy:
        behind = congopay.Congopay(api_key=service.demo["test_secret_key"], base_url=proxy.url)
        assert behind.balance.retrieve()["object"] == "balance"
        assert len(proxy.requests) == 2  # the 503, then the answer

        with pytest.raises(congopay.InvalidRequestError):
            behind.charges.create(amount=1, currency="CDF", phone="+243812345678", network="x")
        assert len(proxy.requests) == 3  # once: a 400 is not retried

    nobody = congopay.Congopay(
        api_key="sk_test_x", base_url=proxy.url, max_retries=1, timeout=5
    )  # the proxy is gone: nothing listens there any more
    with pytest.raises(congopay.APIConnectionError) as lost:
        nobody.charges.create(amount=250000, **MOBILE_MONEY, idempotency_key="order-42-try")
    assert lost.value.idempotency_key == "order-42-try"


# --- The CLI ----------------------------------------------------------------------------------------


def test_the_cli_refuses_a_live_key(capsys):
    assert cli.run(["listen", "--api-key", "sk_live_abc", "--base-url", "http://127.0.0.1:9",
                     "--forward-to", "http://127.0.0.1:9/hooks"]) == 2  # fmt: skip
    assert "test mode only" in capsys.readouterr().err


class Lines:
    """A process's output, line by line, as it comes."""

    def __init__(self, stream):
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self.read, args=(stream,), daemon=True).start()

    def read(self, stream):
        for line in stream:
            self.lines.put(line.rstrip("\n"))

    def wait(self, pattern: str, timeout: float = 120) -> re.Match:
        """The first line (from here on) that matches; fails if none comes within `timeout`."""
        while True:
            line = self.lines.get(timeout=timeout)
            self.seen.append(line)
            if match := re.search(pattern, line):
                return match


def test_listen_forwards_what_trigger_makes_signed_with_its_own_secret(service):
    env = {
        **os.environ,
        "PYTHONPATH": str(CLIENT_SRC),
        "CONGOPAY_API_KEY": service.demo["test_secret_key"],
        "CONGOPAY_BASE_URL": service.base,
    }
    command = [sys.executable, "-m", "congopay"]
    with merchant_site.serving("whsec_" + "A" * 32) as receiver:
        listen = subprocess.Popen(
            [*command, "listen", "--forward-to", receiver.url("/hooks")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            output = Lines(listen.stdout)
            receiver.secret = output.wait(r"Webhook signing secret: (whsec_\S+)")[1]
            expected = {}
            for event, made in [
                ("charge.succeeded", r"Charge (ch_\w+)"),
                ("charge.failed", r"Charge (ch_\w+)"),
                ("refund.succeeded", r"Refund (re_\w+)"),
                ("payout.succeeded", r"Payout (po_\w+)"),
                ("checkout.session.completed", r"Checkout session (cs_\w+)"),
            ]:
                run = subprocess.run(
                    [*command, "trigger", event], env=env, capture_output=True, text=True,
                    timeout=180,
                )  # fmt: skip
                assert run.returncode == 0, run.stdout + run.stderr
                expected[event] = re.findall(made, run.stdout)[-1]
            # Each event the receiver got, signed with the secret listen printed, and listen's
            # line for it: its type, its id and the receiver's answer.
            printed = {}

            def delivered() -> dict[tuple[str, str], str]:
                return {
                    (r.verified["type"], r.verified["data"]["object"]["id"]): r.verified["id"]
                    for r in receiver.verified()
                }

            while not all(delivered().get(pair) in printed for pair in expected.items()):
                line = output.wait(r"^(\S+) (evt_\w+) -> (.+)$")
                printed[line[2]] = (line[1], line[3])
        finally:
            listen.send_signal(signal.SIGINT)
            listen.wait(timeout=30)
            errors = listen.stderr.read()
        assert listen.returncode == 0, errors
        assert "Traceback" not in errors

        assert len(receiver.verified()) == len(receiver.received)
        for pair in expected.items():
            assert printed[delivered()[pair]] == (pair[0], "200")
