"""The payment links' public pages. A slug is letters and digits only, so these never take a
checkout session's /pay/cs_… address."""

from django.urls import re_path

from links import views

SLUG = r"(?P<slug>[A-Za-z0-9]{16,40})"

urlpatterns = [
    re_path(rf"^pay/{SLUG}$", views.page, name="links-page"),
    re_path(rf"^pay/{SLUG}/done$", views.done, name="links-done"),
    re_path(rf"^pay/{SLUG}/qr\.svg$", views.qr_svg, name="links-qr-svg"),
    re_path(rf"^pay/{SLUG}/qr\.png$", views.qr_png, name="links-qr-png"),
]
