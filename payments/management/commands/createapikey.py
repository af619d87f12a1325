"""python manage.py createapikey --merchant mer_… --mode test|live [--json]"""

import json

from django.core.management.base import BaseCommand, CommandError

from payments.models import Merchant, Mode
from payments.services import accounts


class Command(BaseCommand):
    help = "Issue a new secret key for a merchant (several keys per mode allow rotation)."

    def add_arguments(self, parser):
        parser.add_argument("--merchant", required=True, help="Merchant id (mer_…)")
        parser.add_argument("--mode", required=True, choices=Mode.values)
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, merchant, mode, as_json, **options):
        try:
            owner = Merchant.objects.get(pk=merchant)
        except Merchant.DoesNotExist as exc:
            raise CommandError(f"No such merchant: {merchant}") from exc
        issued = accounts.api_key_create(merchant=owner, mode=mode)
        if as_json:
            self.stdout.write(
                json.dumps({"id": issued.api_key.pk, "mode": mode, "secret_key": issued.plaintext})
            )
        else:
            self.stdout.write(f"{issued.plaintext}\n(shown once; stored as a hash)")
