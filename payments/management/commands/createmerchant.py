"""python manage.py createmerchant --name NAME [--webhook-url URL] [--live-approved] [--no-card-rail]
[--owner-email EMAIL [--owner-password PASSWORD]] --json

With --owner-email, that user (made with a confirmed address when new) is the merchant's owner
in the dashboard (core.events.merchant_owner_named): a harness can then sign in to a live-approved
merchant's dashboard. The JSON then also carries "owner_email"; without it, it is as it was."""

import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator, validate_email
from django.db import transaction

from core import events
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
            "--owner-email",
            default="",
            help="Make this user the merchant's owner in the dashboard (created, with a "
            "confirmed address, when new).",
        )
        parser.add_argument(
            "--owner-password",
            default=None,
            help="The new owner's password (an existing user's must be this one).",
        )
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="Print one JSON object."
        )

    def handle(
        self,
        *args,
        name,
        webhook_url,
        live_approved,
        no_card_rail,
        owner_email,
        owner_password,
        as_json,
        **options,
    ):
        if not name.strip():
            raise CommandError("--name must not be empty")
        owner_email = owner_email.strip()
        if owner_password is not None and not owner_email:
            raise CommandError("--owner-password needs --owner-email")
        if owner_email:
            try:
                validate_email(owner_email)
            except ValidationError as exc:
                raise CommandError(
                    f"--owner-email is not an e-mail address: {owner_email}"
                ) from exc
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
        with transaction.atomic():  # a refused owner leaves no merchant behind
            created = accounts.merchant_create(
                name=name.strip(),
                webhook_url=webhook_url,
                live_approved=live_approved,
                card_rail_enabled=not no_card_rail,
            )
            owner = self._owner(created.merchant, owner_email, owner_password)
        result = {
            "id": created.merchant.id,
            "name": created.merchant.name,
            "test_secret_key": created.test_key.plaintext,
            "live_secret_key": created.live_key.plaintext,
            "webhook_secret": created.test_webhook_secret,
            "test_webhook_secret": created.test_webhook_secret,
            "live_webhook_secret": created.live_webhook_secret,
        }
        if owner:
            result["owner_email"] = owner
        if as_json:
            self.stdout.write(json.dumps(result))
        else:
            for label, value in result.items():
                self.stdout.write(f"{label:20} {value}")
            self.stdout.write("The secret keys are shown only now; they are stored as hashes.")

    def _owner(self, merchant, email: str, password: str | None) -> str:
        """The address of the owner the dashboard made of `email`, "" without one."""
        if not email:
            return ""
        try:
            answers = events.merchant_owner_named.send(
                sender=type(merchant), instance=merchant, email=email, password=password
            )
        except ValueError as refused:
            raise CommandError(str(refused)) from None
        owners = [answer for _receiver, answer in answers if answer]
        if not owners:
            raise CommandError("--owner-email: no dashboard is installed to make an owner in")
        return owners[0]
