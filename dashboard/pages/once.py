"""A dashboard form's action done once, however often the form is sent: each new form carries a
fresh idempotency key (a hidden field, made by OnceForm), and the action runs through the API's
idempotency machinery (core.api.idempotency) under that key, in the merchant's mode, as a POST of
the page's path whose body is what the action is about (a refund's charge, amount and reason, a
payout's or a link's checked fields, a batch file's digest and name; nothing for a key issued, a
secret rotated or an event sent again). A second submit of the same form (a double click, a reload, the back button)
gets the first one's answer instead of a second refund, payout, link, batch or key; one while the
first is still running is refused (idempotency_key_in_use), and so is the key sent again with other
values (idempotency_key_reused). A refused action leaves nothing behind (its writes are rolled
back and no answer is stored under the key), so the same form corrected runs again."""

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.http import JsonResponse

from core import ids
from core.api import idempotency

FIELD = "idempotency_key"


def new_key() -> str:
    return "dash_" + ids.random_token(32)


@dataclass(frozen=True)
class Done:
    object_id: str
    replayed: bool  # the form had already been sent: nothing was done this time


def once(
    request, *, key: str, data: dict, operation: Callable[[], str], livemode: bool | None = None
) -> Done:
    """Run `operation` (which returns the id of what it made) once per `key`. ApiErrors of the
    operation or of the machinery (idempotency_key_in_use, _reused, _invalid) are raised as the
    API raises them; nothing the operation wrote stays then. The mode is the page's, or
    `livemode` on a page outside a mode whose form names one (the settlement accounts')."""
    key = idempotency.key_from_header(key or "")
    scope = idempotency.Scope(
        merchant=request.merchant,
        livemode=request.mode == "live" if livemode is None else livemode,
        key=key,
        method="POST",
        path=request.path,
        fingerprint=idempotency.fingerprint(data),
    )
    response = idempotency.run(
        scope=scope, operation=lambda: JsonResponse({"id": operation()}, status=201)
    )
    return Done(
        object_id=json.loads(response.content)["id"],
        replayed=response.has_header(idempotency.REPLAYED_HEADER),
    )


def tell(request, done: Done, *, made: str, again: str) -> None:
    """Say what the form did: `made` (a new object) or `again` (the form had already been sent),
    each a translated sentence taking %(id)s."""
    if done.replayed:
        messages.info(request, again % {"id": done.object_id})
    else:
        messages.success(request, made % {"id": done.object_id})
