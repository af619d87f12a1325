"""The demo merchant's owner in the embedded set-up (`make run`): a user with a verified address
and a password kept in var/demo-owner.json (readable by the owner only), printed as a sign-in
line by payments' demomerchant command (core.events.demo_merchant_ready)."""

import json
import os
import secrets

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from dashboard.models import Membership, MerchantSettings, Role

DEMO_EMAIL = "demo@example.com"


def demo_owner(sender, instance, var_dir, **kwargs) -> list[str]:
    path = var_dir / "demo-owner.json"
    saved = json.loads(path.read_text()) if path.exists() else {}
    password = saved.get("password") or secrets.token_urlsafe(12)
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
    if saved.get("password") != password:
        path.write_text(json.dumps({"email": DEMO_EMAIL, "password": password}, indent=2))
        os.chmod(path, 0o600)
    return [
        f"Dashboard: {settings.PUBLIC_BASE_URL}/accounts/login/  "
        f"e-mail {DEMO_EMAIL}  password {password}\n"
    ]
