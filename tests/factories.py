"""Test data, built through the same services the service itself uses."""

import factory

from payments.models import Merchant
from payments.services import accounts


class MerchantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Merchant

    name = factory.Sequence(lambda n: f"Merchant {n}")
    live_approved = False
    card_rail_enabled = True


def merchant_with_keys(**kwargs):
    """A merchant and the plaintext of one test and one live key."""
    created = accounts.merchant_create(name=kwargs.pop("name", "Boutique Gombe"), **kwargs)
    return created
