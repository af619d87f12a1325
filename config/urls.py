"""Top-level routes: the /v1 API, hosted checkout pages, what the providers call, the sandbox
card provider, admin, health."""

from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import TemplateView

from config.health import healthz, readyz
from config.overview import overview
from core.api import errors as api_errors
from core.api.docs import ApiDocsView, ApiSchemaView
from dashboard.signin import login as dashboard_login

# Staff sign in through the accounts' sign-in, with their second factor (allauth's way to put the
# admin behind it): /admin/login/ sends there (docs/operations/staff.md#signing-in).
admin.site.login = secure_admin_login(admin.site.login)

urlpatterns = [
    # Home: where the admin's "View site" leads; links to the API reference and the admin.
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("admin/overview/", admin.site.admin_view(overview), name="admin-overview"),
    path("admin/", admin.site.urls),
    # allauth's, one sign-in of an account at a time; staff's and merchants' members' alike
    path("accounts/login/", dashboard_login, name="account_login"),
    path("accounts/", include("allauth.urls")),
    path("dashboard/", include("dashboard.urls")),
    path("i18n/", include("django.conf.urls.i18n")),  # the language switcher (set_language)
    path("healthz", healthz, name="healthz"),  # liveness: for a process supervisor
    path("readyz", readyz, name="readyz"),  # readiness: for a load balancer
    path("v1/openapi.json", ApiSchemaView.as_view(), name="openapi"),
    path("v1/docs", ApiDocsView.as_view(url_name="openapi"), name="api-docs"),
    path("v1/", include("payments.api.urls")),
    path("v1/", include("checkout.api.urls")),
    path("v1/", include("links.api.urls")),
    path("v1/", include("webhooks.api.urls")),
    path("v1/", include("batches.api.urls")),
    path("v1/", include("messaging.api.urls")),
    re_path(r"^v1(?:/.*)?$", api_errors.not_found_view),
    path("", include("payments.callbacks.urls")),
    path("", include("messaging.urls")),  # /r/{token}, the SMS vendors' delivery reports
    path("", include("links.urls")),  # /pay/{slug}: before checkout's /pay/{session id}
    path("", include("checkout.urls")),
    path("sandbox/", include("sandbox.urls")),
]

handler400 = "core.api.errors.handler400"
handler404 = "core.api.errors.handler404"
handler500 = "core.api.errors.handler500"
