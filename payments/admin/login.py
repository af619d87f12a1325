"""The staff login, throttled per client address: after THROTTLE_ADMIN_LOGIN failed attempts the
address gets a plain "too many attempts" page (429, Retry-After) until the window ends, so
passwords cannot be guessed at speed."""

from django.conf import settings
from django.contrib import admin
from django.template.response import TemplateResponse

from payments import throttles

SCOPE = "admin_login"


def admin_login(request, extra_context=None):
    address = throttles.client_address(request)
    wait = throttles.blocked(SCOPE, address, settings.THROTTLE_ADMIN_LOGIN)
    if wait is not None:
        response = TemplateResponse(
            request,
            "admin/login_throttled.html",
            {**admin.site.each_context(request), "wait_minutes": max(1, round(wait / 60))},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
    response = admin.site.login(request, extra_context)
    if request.method == "POST" and not request.user.is_authenticated:
        throttles.hit(SCOPE, address, settings.THROTTLE_ADMIN_LOGIN)  # the password was wrong
    return response
