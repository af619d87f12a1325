"""python manage.py createmerchant --name NAME [--webhook-url URL] [--live-approved] [--no-card-rail] --json"""

import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator

from core.destinations import url_refusal
from payments.services import accounts


class Command(BaseCommand):
    help = "Create a merchant with one test and one live secret key (shown once)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--webhook-url", default="")
        parser.add_argument("--live-approved", action="store_true")
        parser.add_argument("--no-card-rail", action="store_true")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="Print one JSON object."
        )

    def handle(self, *args, name, webhook_url, live_approved, no_card_rail, as_json, **options):
        if not name.strip():
            raise CommandError("--name must not be empty")
        if webhook_url:
            try:
                URLValidator(schemes=["http", "https"])(webhook_url)
            except ValidationError as exc:
                raise CommandError(f"--webhook-url is not an http(s) URL: {webhook_url}") from exc
            refusal = url_refusal(
                webhook_url, allow_private=settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
            )
            if refusal:
                raise CommandError(f"--webhook-url cannot receive webhooks: {refusal}")
        created = accounts.merchant_create(
            name=name.strip(),
            webhook_url=webhook_url,
            live_approved=live_approved,
            card_rail_enabled=not no_card_rail,
        )
        result = {
            "id": created.merchant.id,
            "name": created.merchant.name,
            "test_secret_key": created.test_key.plaintext,
            "live_secret_key": created.live_key.plaintext,
            "webhook_secret": created.test_webhook_secret,
            "test_webhook_secret": created.test_webhook_secret,
            "live_webhook_secret": created.live_webhook_secret,
        }
        if as_json:
            self.stdout.write(json.dumps(result))
        else:
            for label, value in result.items():
                self.stdout.write(f"{label:20} {value}")
            self.stdout.write("The secret keys are shown only now; they are stored as hashes.")
