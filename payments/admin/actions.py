"""The "check status now" action that charges, refunds and payouts share."""

from collections.abc import Callable, Iterable

from django.contrib import admin, messages
from django.http import HttpRequest

from payments.errors import ApiError


def ask_again(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    ids: Iterable[str],
    *,
    refresh: Callable[[str], object],
    noun: str = "",
) -> list:
    """Ask the provider again where each object stands, one after the other, through its
    service's refresh (which asks outside any transaction, then applies the answer under the row
    lock). A provider that cannot be asked (ApiError) is reported for that object; the others are
    still asked. With `noun`, each answer is shown ("Payout po_…: succeeded."). Returns the
    objects as they now stand."""
    refreshed = []
    for object_id in ids:
        try:
            done = refresh(object_id)
        except ApiError as exc:
            model_admin.message_user(request, f"{object_id}: {exc.message}", messages.ERROR)
            continue
        refreshed.append(done)
        if noun:
            model_admin.message_user(request, f"{noun} {done.id}: {done.status}.", messages.INFO)
    return refreshed
