"""What the staff actions share: each declares the permission it needs, and one posted by a staff
member who lacks it is refused with 403; asking the provider again; the page on which staff
confirm what an operator told them before it is recorded."""

from collections.abc import Callable, Iterable

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext

from core.admin.display import status_word
from core.errors import ApiError
from core.money import format_amount


class ActionsByPermission:
    """A ModelAdmin mixin for pages whose actions change something. Each action declares the
    permission it needs (`@admin.action(permissions=[...])` and the ModelAdmin's
    `has_<name>_permission`), so Django offers it only to those who hold that permission; one
    posted anyway (a form kept from before, a hand-made request) answers 403 and runs nothing,
    instead of Django's "No action selected" and a redirect that would read as success."""

    def changelist_view(self, request, extra_context=None):
        if request.method == "POST":
            offered = self.get_actions(request)
            if any(name and name not in offered for name in request.POST.getlist("action")):
                raise PermissionDenied
        return super().changelist_view(request, extra_context)


def ask_again(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    ids: Iterable[str],
    *,
    refresh: Callable[[str], object],
    each: str = "",
    none: str = "",
) -> list:
    """Ask the provider again where each object stands, one after the other, through its
    service's refresh (which asks outside any transaction, then applies the answer under the row
    lock). A provider that cannot be asked (ApiError) is reported for that object; the others are
    still asked. With `each` (a sentence with %(id)s and %(status)s, already in the staff's
    language), each answer is shown ("Versement po_… : réussi."); with `none`, that message is
    shown when there is nothing to ask about. Returns the objects as they now stand."""
    ids = list(ids)
    if not ids and none:
        model_admin.message_user(request, none, messages.INFO)
    refreshed = []
    for object_id in ids:
        try:
            done = refresh(object_id)
        except ApiError as exc:
            model_admin.message_user(
                request,
                gettext("Could not ask about %(id)s: %(message)s")
                % {"id": object_id, "message": exc.localized()},
                messages.ERROR,
            )
            continue
        refreshed.append(done)
        if each:
            status = status_word(done)
            model_admin.message_user(
                request, each % {"id": done.id, "status": status}, messages.INFO
            )
    return refreshed


def confirmation_page(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    objects: list,
    *,
    template: str,
    succeeded: bool,
    action: str,
    **context,
) -> TemplateResponse | None:
    """The page listing `objects` on which staff confirm what the operator told them (`action`
    posted again with confirm=yes); None once they have confirmed."""
    if request.POST.get("confirm") == "yes":
        return None
    for obj in objects:
        obj.amount_text = format_amount(obj.amount, obj.currency)
    return TemplateResponse(
        request,
        template,
        {
            **model_admin.admin_site.each_context(request),
            "opts": model_admin.model._meta,
            "succeeded": succeeded,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            **context,
        },
    )
