"""A merchant's webhook receiver for the benchmark (not a test): an asyncio HTTP/1.1 server on
127.0.0.1 that verifies each delivery's Standard Webhooks signature with the `standardwebhooks`
package, as a merchant would, answers it 200 at once and keeps the connection alive. It counts the
events it received (each id once) and notes when each arrived. `GET /stats` answers its counts,
`GET /arrivals` every verified event as [object id, event type, arrival time (Unix seconds)].

    python bench/receiver.py PORT WHSEC_SECRET
"""

import asyncio
import json
import sys
import time

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


class Stats:
    def __init__(self, secret: str) -> None:
        self.webhook = Webhook(secret)
        self.arrivals: dict[str, tuple[str, str, float]] = {}
        self.bad = 0
        self.first = 0.0
        self.last = 0.0

    def received(self, headers: dict[str, str], body: bytes) -> None:
        now = time.time()
        try:
            event = self.webhook.verify(body, headers)
        except (WebhookVerificationError, ValueError):
            self.bad += 1
            return
        if not self.arrivals:
            self.first = now
        self.last = now
        data = event.get("data") or {}
        obj = data.get("object", data)
        self.arrivals.setdefault(event["id"], (obj.get("id", ""), event.get("type", ""), now))

    def as_json(self) -> bytes:
        return json.dumps(
            {
                "events": len(self.arrivals),
                "bad": self.bad,
                "first": self.first,
                "last": self.last,
            }
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
            if method == "GET" and path in ("/stats", "/arrivals"):
                if path == "/stats":
                    payload = stats.as_json()
                else:
                    payload = json.dumps(list(stats.arrivals.values())).encode()
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
