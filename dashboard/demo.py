"""The demo merchant's owner and a demo staff member in the embedded set-up (`make run`): users
with a verified address and a password kept in var/demo-owner.json and var/demo-staff.json
(readable by the owner only), printed as sign-in lines by payments' demomerchant command
(core.events.demo_merchant_ready)."""

import json
import os
import secrets

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from dashboard.models import Membership, MerchantSettings, Role

DEMO_EMAIL = "demo@example.com"
DEMO_STAFF_EMAIL = "staff@example.com"


def saved_password(path) -> str:
    saved = json.loads(path.read_text()) if path.exists() else {}
    return saved.get("password") or secrets.token_urlsafe(12)


def save_password(path, email: str, password: str) -> None:
    saved = json.loads(path.read_text()) if path.exists() else {}
    if saved.get("password") != password:
        path.write_text(json.dumps({"email": email, "password": password}, indent=2))
        os.chmod(path, 0o600)


def demo_owner(sender, instance, var_dir, **kwargs) -> list[str]:
    path = var_dir / "demo-owner.json"
    password = saved_password(path)
    with transaction.atomic():
        user = get_user_model().objects.filter(email__iexact=DEMO_EMAIL).first()
        if user is None or not user.check_password(password):
            user = user or get_user_model()(username="demo", email=DEMO_EMAIL)
            user.set_password(password)
            user.save()
        EmailAddress.objects.update_or_create(
            user=user, email=DEMO_EMAIL, defaults={"verified": True, "primary": True}
        )
        Membership.objects.get_or_create(
            user=user, merchant=instance, defaults={"role": Role.OWNER}
        )
        MerchantSettings.objects.get_or_create(merchant=instance)
    save_password(path, DEMO_EMAIL, password)
    return [
        f"Dashboard: {settings.PUBLIC_BASE_URL}/accounts/login/  "
        f"e-mail {DEMO_EMAIL}  password {password}\n"
    ]


def demo_staff(sender, instance, var_dir, **kwargs) -> list[str]:
    """A superuser who signs in as staff do: the e-mail address and password at the accounts'
    sign-in, then sets up two-factor before the admin opens (dashboard/staff.py)."""
    path = var_dir / "demo-staff.json"
    password = saved_password(path)
    with transaction.atomic():
        user = get_user_model().objects.filter(email__iexact=DEMO_STAFF_EMAIL).first()
        if user is None:
            user = get_user_model()(username="demo-staff", email=DEMO_STAFF_EMAIL)
        if not (user.is_staff and user.is_superuser and user.check_password(password)):
            user.is_staff = user.is_superuser = True
            user.set_password(password)
            user.save()  # its address counts as verified (dashboard/staff.py)
    save_password(path, DEMO_STAFF_EMAIL, password)
    return [
        f"Admin (staff): {settings.PUBLIC_BASE_URL}/admin/  e-mail {DEMO_STAFF_EMAIL}  "
        f"password {password}  (then set up two-factor)\n"
    ]
