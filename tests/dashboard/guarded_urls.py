"""The dashboard's routes plus one guarded view per permission, each of which would write an
audit row: what a page of any permission gets from `merchant_view` and `live_sensitive`."""

from django.http import HttpResponse
from django.urls import include, path

import dashboard.urls  # noqa: F401 (registers the <mode:> converter)
from dashboard import audit
from dashboard.permissions import PERMISSIONS, live_sensitive, merchant_view


def _acting(perm):
    @merchant_view(perm)
    def view(request, mode):
        if request.method == "POST":
            audit.record(request, "settings.updated", object_id=f"guarded:{perm}")
        return HttpResponse(
            f"{perm} {request.merchant.pk} {request.mode} {request.membership.role}"
        )

    return view


@merchant_view("refund")
@live_sensitive
def sensitive(request, mode):
    audit.record(request, "refund.created", object_id="guarded:sensitive")
    return HttpResponse("done")


urlpatterns = [
    *[path(f"guarded/<mode:mode>/{perm}/", _acting(perm)) for perm in PERMISSIONS],
    path("guarded/<mode:mode>/sensitive/", sensitive),
    path("", include("config.urls")),
]
