"""payments.rows builds the instance of a row it read (GET of a charge, a page of charges) without
Model.from_db's way where that comes to the same: the instance the ORM would give, attribute for
attribute, with the same columns deferred; a model with a receiver of pre_init or post_init still
gets them."""

import pytest
from django.db import connection
from django.db.models.signals import post_init, pre_init

from payments import rows
from payments.models import Charge, Refund
from payments.representations import CHARGE_REPR_FIELDS
from tests.factories import (
    make_charge,
    make_session,
    merchant_with_keys,
    succeeded_mobile_money_charge,
)

pytestmark = pytest.mark.django_db


def _shapes(merchant) -> list[Charge]:
    refunded = succeeded_mobile_money_charge(merchant, amount=20000)
    Charge.objects.filter(pk=refunded.pk).update(amount_refunded=5000)
    return [
        make_charge(merchant, description="Commande 42", metadata={"order": "42", "n": [1, 2]}),
        make_charge(merchant, status="failed", failure_code="insufficient_funds"),
        make_charge(merchant, payment_method="card"),  # next_action
        make_charge(merchant, checkout_session=make_session(merchant)),
        refunded,
    ]


def _seen(instance) -> tuple:
    state = instance._state
    attributes = {name: value for name, value in vars(instance).items() if name != "_state"}
    return (
        type(instance),
        attributes,
        [(name, type(value)) for name, value in attributes.items()],
        instance.get_deferred_fields(),
        state.adding,
        state.db,
        state.fields_cache,
    )


@pytest.mark.parametrize("fields", [None, CHARGE_REPR_FIELDS, ("created_at",)])
def test_a_row_read_is_the_instance_the_orm_gives(fields):
    merchant = merchant_with_keys().merchant
    for charge in _shapes(merchant):
        query = Charge.objects.all() if fields is None else Charge.objects.only(*fields)
        orm = query.get(pk=charge.pk)
        one = rows.read_one(Charge, "id = %s", [charge.pk], fields=fields)
        (listed,) = rows.read_many(
            Charge, "id = %s", [charge.pk], order_by="id", limit=2, fields=fields
        )
        assert _seen(one) == _seen(orm)
        assert _seen(listed) == _seen(orm)
        assert one.merchant == merchant  # a foreign key still reads its object
        if fields is not None:  # a deferred column is still read when asked for
            assert one.provider_raw == orm.provider_raw


def test_another_model_with_foreign_keys():
    from payments.services import refunds

    charge = succeeded_mobile_money_charge(merchant_with_keys().merchant, amount=20000)
    refund = refunds.refund_create(charge=charge, amount=5000)
    orm = Refund.objects.get(pk=refund.pk)
    assert _seen(rows.read_one(Refund, "id = %s", [refund.pk])) == _seen(orm)


@pytest.mark.parametrize("signal", [pre_init, post_init])
def test_a_receiver_of_the_models_init_signals_still_gets_them(signal):
    charge = make_charge(merchant_with_keys().merchant)
    got = []

    def receiver(sender, **kwargs):
        got.append(kwargs.get("instance", sender))

    signal.connect(receiver, sender=Charge)
    try:
        rows.read_one(Charge, "id = %s", [charge.pk], fields=CHARGE_REPR_FIELDS)
        rows.read_many(Charge, "id = %s", [charge.pk], order_by="id", limit=1)
    finally:
        signal.disconnect(receiver, sender=Charge)
    assert len(got) == 2
    assert rows.read_one(Charge, "id = %s", [charge.pk]).pk == charge.pk  # none since
    assert len(got) == 2


def test_reads_on_this_database():
    """The instance says which database it was read from, as from_db says it."""
    charge = make_charge(merchant_with_keys().merchant)
    assert rows.read_one(Charge, "id = %s", [charge.pk])._state.db == connection.alias
