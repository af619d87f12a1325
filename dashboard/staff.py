"""Staff sign in as merchants' members do (`/accounts/login/`, allauth; the admin's own sign-in
sends there, config/urls.py), with two factors (docs/operations/staff.md#signing-in):

- a staff member without TOTP is sent to set it up before any admin page answers;
- a staff member's e-mail address counts as verified: saving a staff user with an address
  (createsuperuser, the admin, the shell) records it as allauth's verified address, so that no
  confirmation mail stands between staff and their first sign-in. allauth keeps the addresses it
  signs in with as EmailAddress rows, and a row marked verified is how it knows an address is;
  the staff member's address is vouched for by whoever made them staff.
"""

import logging

from allauth.account.models import EmailAddress
from allauth.mfa.utils import is_mfa_enabled
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _

log = logging.getLogger(__name__)


class StaffTwoFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            request.path.startswith(reverse("admin:index"))
            and request.user.is_authenticated
            and request.user.is_staff
            and not is_mfa_enabled(request.user, types=["totp"])
        ):
            messages.warning(
                request, _("Staff sign in with two-factor authentication: set it up to continue.")
            )
            return redirect("mfa_activate_totp")
        return self.get_response(request)


def staff_address_verified(sender, instance, raw=False, **kwargs) -> None:
    """post_save of the user model: a staff user's address becomes a verified EmailAddress (its
    primary one if it has none), unless another account has verified that address already."""
    email = (instance.email or "").strip()
    if raw or not instance.is_staff or not email:
        return
    others = EmailAddress.objects.filter(email__iexact=email, verified=True)
    if others.exclude(user=instance).exists():
        log.warning("Staff user %s: %s is another account's address.", instance.pk, email)
        return
    address = EmailAddress.objects.filter(user=instance, email__iexact=email).first()
    if address is None:
        has_primary = EmailAddress.objects.filter(user=instance, primary=True).exists()
        EmailAddress.objects.create(
            user=instance, email=email.lower(), verified=True, primary=not has_primary
        )
    elif not address.verified:
        address.verified = True
        address.save(update_fields=["verified"])
