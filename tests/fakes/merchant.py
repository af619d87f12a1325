"""A merchant's webhook receiver, for real: an HTTP server on 127.0.0.1 in a thread that verifies
every delivery with the public `standardwebhooks` package, as a merchant's code would."""

import contextlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook, WebhookVerificationError


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    verified: dict | None  # the payload if the signature verified, else None

    @property
    def payload(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Answers each POST with the next planned step (status, sleep, redirect, an answer dribbled
    byte by byte), then with 200."""

    host: str = "127.0.0.1"
    port: int = 0
    secret: str = ""
    received: list[Received] = field(default_factory=list)
    plan: deque = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Dribbled answers whose last byte went out (counted before it does): a sender that returned
    # while this was 0 gave up before the whole answer could have reached it.
    dribbled_whole: int = 0

    def url(self, path: str = "/hooks") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def then(self, *steps: dict) -> "Receiver":
        self.plan.extend(steps)
        return self

    def verified(self) -> list[Received]:
        return [r for r in self.received if r.verified is not None]


def _handler(receiver: Receiver):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                verified = Webhook(receiver.secret).verify(body, headers)
            except WebhookVerificationError:
                verified = None
            with receiver.lock:
                receiver.received.append(Received(self.path, headers, body, verified))
                step = receiver.plan.popleft() if receiver.plan else {}
            if step.get("sleep"):
                time.sleep(step["sleep"])
            if step.get("dribble"):  # the answer one byte at a time, each within any timeout
                answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                try:
                    for index, byte in enumerate(answer):
                        if index == len(answer) - 1:
                            with receiver.lock:
                                receiver.dribbled_whole += 1
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(step["dribble"])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender gave up
                self.close_connection = True
                return
            status = step.get("status", 200)
            answer = step.get("body", "ok").encode()
            try:
                self.send_response(status)
                if step.get("location"):
                    self.send_header("Location", step["location"])
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the sender gave up (timeout)

    return Handler


@contextlib.contextmanager
def serving(secret: str):
    """A live receiver that knows the signing secret `secret`, until the block ends."""
    state = Receiver(secret=secret)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
