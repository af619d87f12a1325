"""The `congopay` command: test-mode webhooks on a developer's machine.

    congopay listen --forward-to http://127.0.0.1:5000/hooks [--events charge.succeeded,...]
    congopay trigger charge.succeeded

The key comes from `--api-key` or CONGOPAY_API_KEY, the service from `--base-url` or
CONGOPAY_BASE_URL. Test keys only: a live key is refused before anything is asked.

`listen` needs no public address and changes nothing on the account: it polls the key's events
(GET /v1/events, once a second, newest first, back to a minute before the newest it has seen)
and forwards each new one to the local URL, signed with a `whsec_` secret of its own, made when
it starts and printed then, as Standard Webhooks headers. Events older than its start are not
forwarded. Each line it prints is the event's type and id and the local answer's status.

`trigger` makes the sandbox objects whose outcome is the event: a charge (succeeded, or failed
by the sandbox's number ending in 004), a refund of part of a succeeded charge, a payout (after
a charge that funds it), a checkout session paid on its hosted page."""

from __future__ import annotations

import argparse
import base64
import http.cookiejar
import json
import os
import secrets
import signal
import sys
import time
import typing
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import datetime, timedelta
from html.parser import HTMLParser

from . import types, webhooks
from .client import Congopay
from .errors import APIConnectionError, APIError

POLL_SECONDS = 1.0
LOOKBACK = timedelta(seconds=60)
FORWARD_TIMEOUT = 10
SETTLE_SECONDS = 120
# The sandbox's outcomes are chosen by the last digits of the number (docs/guides/sandbox.md).
PHONE_SUCCEEDS = "+243812345678"
PHONE_FAILS = "+243812345004"
NETWORK: types.MobileMoneyNetwork = "VODACOM_MPESA"
AMOUNT = 250000  # 2 500 CDF
TRIGGERS = (
    "charge.succeeded",
    "charge.failed",
    "refund.succeeded",
    "payout.succeeded",
    "checkout.session.completed",
)


class Refused(Exception):
    """What the command cannot do, in words; exit status 2."""


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--api-key",
        default=argparse.SUPPRESS,
        help="a test secret key, sk_test_… (default: CONGOPAY_API_KEY)",
    )
    common.add_argument(
        "--base-url",
        default=argparse.SUPPRESS,
        help="where the API answers, e.g. http://127.0.0.1:8000 (default: CONGOPAY_BASE_URL)",
    )
    main = argparse.ArgumentParser(
        prog="congopay",
        parents=[common],
        description="Test-mode webhooks on your machine: forward events, trigger them.",
    )
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")
    listen = commands.add_parser(
        "listen",
        parents=[common],
        help="forward the key's test events to a local URL",
        description="Forward the key's test-mode events, as they happen, to a local URL, signed "
        "with a new whsec_ secret printed at start. Ctrl-C stops.",
    )
    listen.add_argument("--forward-to", required=True, metavar="URL", help="the local receiver")
    listen.add_argument(
        "--events",
        default="",
        metavar="TYPES",
        help="comma-separated event types to forward (default: all)",
    )
    trigger = commands.add_parser(
        "trigger",
        parents=[common],
        help="make the sandbox objects that produce an event",
        description="Make the sandbox objects whose outcome is EVENT.",
    )
    trigger.add_argument("event", metavar="EVENT", choices=TRIGGERS, help=", ".join(TRIGGERS))
    return main


def main(argv: list[str] | None = None) -> int:
    """The command: Ctrl-C stops it where it is, without a traceback (even when started from a
    process that ignores Ctrl-C), and so does a SIGTERM."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    return run(argv)


def run(argv: list[str] | None = None) -> int:
    """The command's work, its exit status."""
    try:
        args = parser().parse_args(argv)
        client = connect(args)
        if args.command == "listen":
            return listen(client, args.forward_to, args.events)
        return trigger(client, args.event)
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 0
    except Refused as refused:
        print(f"congopay: {refused}", file=sys.stderr)
        return 2
    except (APIError, APIConnectionError) as error:
        print(f"congopay: {error}", file=sys.stderr)
        return 1


def connect(args: argparse.Namespace) -> Congopay:
    key = getattr(args, "api_key", None) or os.environ.get("CONGOPAY_API_KEY", "")
    base = getattr(args, "base_url", None) or os.environ.get("CONGOPAY_BASE_URL", "")
    if not key:
        raise Refused("an API key is needed: --api-key sk_test_… or CONGOPAY_API_KEY")
    if key.startswith("sk_live_"):
        raise Refused(
            "this is a live key: the CLI works in test mode only, so that no real payment or "
            "real customer's data reaches a laptop. Use a test key (sk_test_…)."
        )
    if not key.startswith("sk_test_"):
        raise Refused("this is no secret key: use a test key (sk_test_…)")
    if not base:
        raise Refused("the service's address is needed: --base-url URL or CONGOPAY_BASE_URL")
    return Congopay(api_key=key, base_url=base)


def say(line: str) -> None:
    print(line, flush=True)


# --- listen -------------------------------------------------------------------------------------


def created(event: types.Event) -> datetime:
    return datetime.fromisoformat(event["created_at"].replace("Z", "+00:00"))


def listen(client: Congopay, forward_to: str, events: str) -> int:
    wanted = {name.strip() for name in events.split(",") if name.strip()}
    unknown = wanted - set(typing.get_args(types.EventType))
    if unknown:
        raise Refused(
            f"no such event type: {', '.join(sorted(unknown))} "
            f"(the types: {', '.join(typing.get_args(types.EventType))})"
        )
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    seen: dict[str, datetime] = {}
    newest: datetime | None = None
    # What happened before the start is never forwarded: the events down to a minute before the
    # newest are marked as seen.
    for event in client.events.list(limit=100):
        newest = newest or created(event)
        if created(event) < newest - LOOKBACK:
            break
        seen[event["id"]] = created(event)
    say(f"Ready. Forwarding test-mode events to {forward_to} (Ctrl-C to stop).")
    say(f"Webhook signing secret: {secret}")
    if wanted:
        say(f"Events: {', '.join(sorted(wanted))}")
    while True:
        horizon = newest - LOOKBACK if newest else None
        fresh = []
        for event in client.events.list(limit=100):
            if horizon is not None and created(event) < horizon:
                break
            if event["id"] not in seen:
                seen[event["id"]] = created(event)
                fresh.append(event)
        for event in reversed(fresh):  # oldest first, as they happened
            newest = max(newest or created(event), created(event))
            if not wanted or event["type"] in wanted:
                say(f"{event['type']} {event['id']} -> {forward(forward_to, secret, event)}")
        if newest:
            for old in [i for i, at in seen.items() if at < newest - 2 * LOOKBACK]:
                del seen[old]
        time.sleep(POLL_SECONDS)


def forward(url: str, secret: str, event: types.Event) -> str:
    """POST the event to the local URL as the service delivers it; the answer's status, or why
    there was none."""
    body = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "congopay-cli",
        **webhooks.signed_headers(secret, event["id"], body),
    }
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=FORWARD_TIMEOUT) as answer:
            return str(answer.status)
    except urllib.error.HTTPError as answer:
        answer.close()
        return str(answer.code)
    except (OSError, ValueError) as error:
        reason = error.reason if isinstance(error, urllib.error.URLError) else error
        return f"no answer ({reason})"


# --- trigger ------------------------------------------------------------------------------------


def trigger(client: Congopay, event: str) -> int:
    made: Callable[[Congopay], object] = {
        "charge.succeeded": lambda c: charge(c, PHONE_SUCCEEDS),
        "charge.failed": lambda c: charge(c, PHONE_FAILS),
        "refund.succeeded": refund,
        "payout.succeeded": payout,
        "checkout.session.completed": checkout_session,
    }[event]
    made(client)
    say(f"Triggered {event}: the sandbox sends it within a few seconds.")
    return 0


def charge(client: Congopay, phone: str, amount: int = AMOUNT) -> types.ChargeCreated:
    made = client.charges.create(
        amount=amount,
        currency="CDF",
        phone=phone,
        network=NETWORK,
        description="congopay trigger",
    )
    say(f"Charge {made['id']} of {amount // 100} CDF to {phone}: pending")
    return made


def settled(client: Congopay, charge_id: str) -> types.Charge:
    """The charge once the sandbox has answered it."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        found = client.charges.retrieve(charge_id)
        if found["status"] != "pending":
            say(f"Charge {charge_id}: {found['status']}")
            return found
        time.sleep(0.5)
    raise Refused(f"the charge {charge_id} was still pending after {SETTLE_SECONDS} seconds")


def refund(client: Congopay) -> None:
    paid = settled(client, charge(client, PHONE_SUCCEEDS)["id"])
    if paid["status"] != "succeeded":
        raise Refused(f"the charge that was to be refunded is {paid['status']}")
    # Part of it: the charge's fee stays with the service, and its net is what funds a refund.
    made = client.refunds.create(paid["id"], amount=AMOUNT // 2)
    say(f"Refund {made['id']} of {made['amount'] // 100} CDF: {made['status']}")


def available(client: Congopay, currency: str) -> int:
    amounts = client.balance.retrieve()["available"]
    return next((a["amount"] for a in amounts if a["currency"] == currency), 0)


def payout(client: Congopay) -> None:
    amount = AMOUNT // 2
    if available(client, "CDF") < AMOUNT:  # the payout and its fee, with room to spare
        paid = settled(client, charge(client, PHONE_SUCCEEDS)["id"])
        if paid["status"] != "succeeded":
            raise Refused(f"the charge that was to fund the payout is {paid['status']}")
    made = client.payouts.create(
        amount=amount, currency="CDF", phone=PHONE_SUCCEEDS, network=NETWORK
    )
    say(f"Payout {made['id']} of {amount // 100} CDF to {PHONE_SUCCEEDS}: {made['status']}")


class Form(HTMLParser):
    """The fields and action of a page's `form[data-method="mobile_money"]`."""

    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}
        self.inside = False
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form" and found.get("data-method") == "mobile_money":
            self.inside, self.action = True, found.get("action", "")
        elif self.inside and tag == "input" and found.get("name"):
            self.fields[found["name"]] = found.get("value", "")
        elif self.inside and tag == "select" and found.get("name"):
            self.select = found["name"]
        elif self.inside and tag == "option" and self.select:
            if self.select not in self.fields or "selected" in found:
                self.fields[self.select] = found.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None


def checkout_session(client: Congopay) -> None:
    session = client.checkout.sessions.create(
        amount=AMOUNT,
        currency="CDF",
        success_url="https://example.com/success",
        cancel_url="https://example.com/cancel",
    )
    say(f"Checkout session {session['id']}: {session['url']}")
    pay_on_page(session["url"], PHONE_SUCCEEDS)
    say(f"Paid on the page by {PHONE_SUCCEEDS}")


def pay_on_page(url: str, phone: str) -> None:
    """What a customer does on the hosted page: the phone number, then the pay button."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    with opener.open(url, timeout=30) as page:
        form = Form()
        form.feed(page.read().decode())
        final = page.geturl()
    if form.action is None:
        raise Refused("the checkout page offers no mobile money payment")
    form.fields["phone"] = phone
    data = urllib.parse.urlencode(form.fields).encode()
    action = urllib.parse.urljoin(final, form.action)
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(final))
    request = urllib.request.Request(
        action, data=data, method="POST", headers={"Referer": final, "Origin": origin}
    )
    with opener.open(request, timeout=30) as answer:
        answer.read()
