"""A tiny threaded HTTP server on 127.0.0.1 (random port) that hosts one fake provider.

A fake answers like the provider would, and refuses — recording a `violation` — any request that
breaks the provider's rules (missing header, wrong signature, bad body…). Tests assert that no
violation happened, or that the expected one did.
"""

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self):
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None


@dataclass
class Response:
    status: int
    body: object = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Silence:
    """A scripted answer that never comes in time: the fake waits `seconds`, then answers 504."""

    seconds: float


@dataclass
class Dribble:
    """A scripted answer sent one byte every `seconds`: each byte comes within any timeout, the
    whole answer long after."""

    seconds: float
    body: object = field(default_factory=lambda: {"status": "LIMBO"})


@dataclass
class Flood:
    """A scripted answer without end in sight: 200 with a body of `size` bytes (spaces after an
    opening brace), sent as fast as the client reads it."""

    size: int = 64 << 20


class FakeProvider:
    """Subclasses register routes with `route(method, pattern)`, each returning a Response.

    `answer_next(method, pattern, answer)` scripts the operator's answer to the next matching
    request instead (a 5xx, a 401, an unknown code, Silence, or a Dribble): the request is recorded in `log`
    but not processed."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.violations: list[str] = []
        self.log: list[Request] = []
        self._routes: list[tuple[str, re.Pattern, object]] = []
        self._server: ThreadingHTTPServer | None = None
        self._scripted: list[tuple[str, re.Pattern, Response | Silence]] = []
        self._stopping = threading.Event()
        # Dribbled answers begun, and those whose last byte went out (counted before it does): a
        # client that returned while none had gone out whole cut each at its deadline.
        self.dribbles_begun = 0
        self.dribbled_whole = 0

    def answer_next(
        self, method: str, pattern: str, answer: "Response | Silence", times: int = 1
    ) -> None:
        with self.lock:
            self._scripted.extend([(method, re.compile(f"^{pattern}$"), answer)] * times)

    def requests_to(self, method: str, path: str) -> list[Request]:
        with self.lock:
            return [r for r in self.log if r.method == method and r.path == path]

    def route(self, method: str, pattern: str, handler) -> None:
        self._routes.append((method, re.compile(f"^{pattern}$"), handler))

    def refuse(self, status: int, violation: str, body: object = None) -> Response:
        with self.lock:
            self.violations.append(violation)
        return Response(status, body if body is not None else {"error": violation})

    def dispatch(self, request: Request) -> Response:
        with self.lock:
            self.log.append(request)
            scripted = next(
                (s for s in self._scripted if s[0] == request.method and s[1].match(request.path)),
                None,
            )
            if scripted:
                self._scripted.remove(scripted)
        if scripted:
            answer = scripted[2]
            if isinstance(answer, Silence):
                self._stopping.wait(answer.seconds)
                return Response(504, {"error": "gateway timeout"})
            return answer  # a Response, or a Dribble the handler sends
        for method, pattern, handler in self._routes:
            match = pattern.match(request.path)
            if match and method == request.method:
                return handler(request, **match.groupdict())
        return self.refuse(404, f"no route {request.method} {request.path}")

    # --- server -------------------------------------------------------------------------------
    def start(self) -> str:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self):
                split = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    method=self.command,
                    path=split.path,
                    query={k: v[0] for k, v in parse_qs(split.query).items()},
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length) if length else b"",
                )
                response = fake.dispatch(request)
                if isinstance(response, Dribble):
                    self._dribble(response)
                    return
                if isinstance(response, Flood):
                    self._flood(response)
                    return
                payload = (
                    response.body
                    if isinstance(response.body, bytes)
                    else json.dumps(response.body).encode()
                )
                self.send_response(response.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

            def _dribble(self, answer: Dribble) -> None:
                body = json.dumps(answer.body).encode()
                raw = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                raw += b"Content-Length: %d\r\n\r\n" % len(body) + body
                self.close_connection = True
                with fake.lock:
                    fake.dribbles_begun += 1
                try:
                    for index, byte in enumerate(raw):
                        if fake._stopping.is_set():
                            return
                        if index == len(raw) - 1:
                            with fake.lock:
                                fake.dribbled_whole += 1
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(answer.seconds)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (cut at its deadline)

            def _flood(self, answer: Flood) -> None:
                self.close_connection = True
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(answer.size))
                self.end_headers()
                block = b"{" + b" " * (64 * 1024 - 1)
                try:
                    for _ in range(answer.size // len(block)):
                        if fake._stopping.is_set():
                            return
                        self.wfile.write(block)
                        block = b" " * len(block)
                except (BrokenPipeError, ConnectionResetError):
                    fake.flood_cut = True  # the client stopped reading it

            do_GET = do_POST = do_PUT = _handle

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        host, port = self._server.server_address[:2]
        self.host = f"{host}:{port}"
        self.url = f"http://{self.host}"
        return self.url

    def stop(self) -> None:
        self._stopping.set()
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def cut_every_dribble(self) -> bool:
        """At least one dribbled answer was begun, and none had gone out whole: the client,
        having returned, cut each at its deadline instead of reading it to its end."""
        with self.lock:
            return self.dribbles_begun > 0 and self.dribbled_whole == 0

    def bearer(self, request: Request) -> str | None:
        value = request.headers.get("authorization", "")
        return value[7:] if value.startswith("Bearer ") else None
