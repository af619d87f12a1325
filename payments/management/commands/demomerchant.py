"""Create the demo merchant once and print its test key (the embedded set-up of `make run`), and
what the other apps offer with it (demo_merchant_ready: the dashboard's sign-in).

Keys are stored only as hashes, so the plaintext of the demo key is kept in var/demo-merchant.json
(readable by the owner only) to be printed again on later runs.
"""

import json
import os

from django.conf import settings
from django.core.management.base import BaseCommand

from core import events
from core.api.authentication import hash_api_key
from payments.models import ApiKey, Merchant
from payments.services import accounts

DEMO_NAME = "Demo Boutique Kinshasa"


class Command(BaseCommand):
    help = "Create (once) a demo merchant and print its test secret key."

    def handle(self, *args, **options):
        path = settings.VAR_DIR / "demo-merchant.json"
        demo = self._load(path)
        if demo is None:
            created = accounts.merchant_create(name=DEMO_NAME)
            demo = {
                "id": created.merchant.id,
                "name": created.merchant.name,
                "test_secret_key": created.test_key.plaintext,
                "webhook_secret": created.test_webhook_secret,
            }
            path.write_text(json.dumps(demo, indent=2))
            os.chmod(path, 0o600)
        self.stdout.write(
            "\nDemo merchant: {name} ({id})\nTest secret key: {key}\n\n"
            "  curl -H 'Authorization: Bearer {key}' {base}/v1/charges\n".format(
                name=demo["name"],
                id=demo["id"],
                key=demo["test_secret_key"],
                base=settings.PUBLIC_BASE_URL,
            )
        )
        merchant = Merchant.objects.get(pk=demo["id"])
        answers = events.demo_merchant_ready.send(
            sender=Merchant, instance=merchant, var_dir=settings.VAR_DIR
        )
        for _receiver, lines in answers:
            for line in lines or ():
                self.stdout.write(line)

    def _load(self, path):
        """The saved demo merchant, if it still exists in this database with a working key."""
        if not path.exists():
            return None
        try:
            demo = json.loads(path.read_text())
        except ValueError:
            return None
        key_ok = ApiKey.objects.filter(
            key_hash=hash_api_key(demo.get("test_secret_key", "")), revoked_at__isnull=True
        ).exists()
        if not (key_ok and Merchant.objects.filter(pk=demo.get("id")).exists()):
            return None
        return demo
