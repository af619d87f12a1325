"""python manage.py revokeapikey (--key sk_… | --id N)"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.api.authentication import hash_api_key
from payments.models import ApiKey
from payments.services import accounts


class Command(BaseCommand):
    help = "Revoke a secret key at once, given the key itself or its id (see the admin)."

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--key", help="The secret key (sk_test_… / sk_live_…)")
        group.add_argument("--id", type=int, help="The key's id as shown in the admin")

    def handle(self, *args, key, id, **options):
        lookup = {"key_hash": hash_api_key(key)} if key else {"pk": id}
        try:
            api_key = ApiKey.objects.get(**lookup)
        except ApiKey.DoesNotExist as exc:
            raise CommandError("No such API key.") from exc
        accounts.api_key_revoke(api_key=api_key)
        # Told to the web processes through the shared cache if it can be reached; each reads the
        # key again within API_KEY_CACHE_SECONDS in any case.
        self.stdout.write(
            f"Revoked {api_key.prefix} of {api_key.merchant_id}: refused by every web process "
            f"within {settings.API_KEY_CACHE_SECONDS:g} seconds."
        )
