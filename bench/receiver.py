"""A fast webhook receiver for the benchmark (not a test): an asyncio HTTP/1.1 server on 127.0.0.1
that answers every POST 200 at once, keeps connections alive, checks each Standard Webhooks
signature and counts the events it received. `GET /stats` answers its counts as JSON.

    python bench/receiver.py PORT WHSEC_SECRET
"""

import asyncio
import base64
import hashlib
import hmac
import json
import sys
import time

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


class Stats:
    def __init__(self, secret: str) -> None:
        self.key = base64.b64decode(secret.removeprefix("whsec_"))
        self.ids: set[str] = set()
        self.bad = 0
        self.first = 0.0
        self.last = 0.0

    def received(self, headers: dict[str, str], body: bytes) -> None:
        msg_id = headers.get("webhook-id", "")
        signed = f"{msg_id}.{headers.get('webhook-timestamp', '')}.".encode() + body
        expected = base64.b64encode(hmac.new(self.key, signed, hashlib.sha256).digest()).decode()
        given = [s.partition(",")[2] for s in headers.get("webhook-signature", "").split()]
        if not any(hmac.compare_digest(expected, s) for s in given):
            self.bad += 1
            return
        now = time.time()
        if not self.ids:
            self.first = now
        self.last = now
        self.ids.add(msg_id)

    def as_json(self) -> bytes:
        return json.dumps(
            {"events": len(self.ids), "bad": self.bad, "first": self.first, "last": self.last}
        ).encode()


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stats: Stats):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length") or 0))
            if method == "GET" and path == "/stats":
                payload = stats.as_json()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(payload)}\r\n\r\n".encode()
                    + payload
                )
            else:
                stats.received(headers, body)
                writer.write(OK)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def main(port: int, secret: str) -> None:
    stats = Stats(secret)
    server = await asyncio.start_server(
        lambda r, w: serve(r, w, stats), "127.0.0.1", port, backlog=512
    )
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
