"""payments.rows builds the instance of a row it read (GET of a charge, a page of charges) without
Model.from_db's way where that comes to the same: the instance the ORM would give, attribute for
attribute, with the same columns deferred; a model with a receiver of pre_init or post_init still
gets them."""

import pytest
from django.db import connection
from django.db.models import DEFERRED, Model
from django.db.models.signals import post_init, pre_init
from django.utils import timezone

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


# --- New instances -------------------------------------------------------------------------------


def _new_charge_values(merchant, **values) -> dict:
    now = timezone.now()
    return {
        "merchant": merchant,
        "livemode": False,
        "amount": 250000,
        "currency": "CDF",
        "payment_method": "mobile_money",
        "description": "Commande 42",
        "metadata": {"order": "42"},
        "callback_url": "",
        "checkout_session": None,
        "created_at": now,
        "updated_at": now,
        **values,
    }


def test_a_new_instance_is_the_one_the_model_makes():
    """rows.new(Charge, …) is Charge(…) attribute for attribute (its key and cached objects, its
    state, each default) for the values a new charge is made with, and others."""
    merchant = merchant_with_keys().merchant
    session = make_session(merchant)
    shapes = [
        _new_charge_values(merchant),
        _new_charge_values(merchant, checkout_session=session, phone="+243812345678"),
        {**_new_charge_values(merchant), "merchant": None},  # a relation set to None
        {"merchant_id": merchant.pk, "amount": 100, "currency": "USD"},  # a key by its id
        {"status": "failed", "metadata": {"n": [1, 2]}, "next_action": {"type": "x"}},
        {},
    ]
    now = timezone.now()
    for values in shapes:
        # the defaults that differ from one call to the next: a random key, the time
        values = {"id": "ch_" + "a" * 24, "created_at": now, "updated_at": now, **values}
        made, model = rows.new(Charge, **values), Charge(**values)
        assert _seen(made) == _seen(model), values
        assert made.merchant_id == model.merchant_id
    # Made without the model's __init__, which a receiver-less model needs no more.
    calls = []
    init = Model.__init__

    def counted(self, *args, **kwargs):
        calls.append(type(self))
        init(self, *args, **kwargs)

    Model.__init__ = counted
    try:
        rows.new(Charge, **shapes[0])
        assert calls == []
        Charge(**shapes[0])
        assert calls == [Charge]
    finally:
        Model.__init__ = init
    # Defaults are made afresh for each instance, as the model makes them.
    one, two = rows.new(Charge), rows.new(Charge)
    assert one.id != two.id and one.id.startswith("ch_") and len(one.id) == len(Charge().id)
    assert one.metadata == {} and one.metadata is not two.metadata
    assert one.provider_raw is not two.provider_raw


def test_a_new_instance_refuses_what_the_model_refuses():
    merchant = merchant_with_keys().merchant
    with pytest.raises(TypeError) as made:
        rows.new(Charge, colour="red")
    with pytest.raises(TypeError) as model:
        Charge(colour="red")
    assert str(made.value) == str(model.value)
    both = _new_charge_values(merchant, id="ch_" + "a" * 24, merchant_id=merchant.pk)
    assert _seen(rows.new(Charge, **both)) == _seen(Charge(**both))  # the model takes both
    with pytest.raises(ValueError, match='must be a "Merchant" instance'):
        rows.new(Charge, merchant="mer_x")


@pytest.mark.parametrize("signal", [pre_init, post_init])
def test_a_new_instance_still_sends_the_models_init_signals(signal):
    got = []

    def receiver(sender, **kwargs):
        got.append(sender)

    signal.connect(receiver, sender=Charge)
    try:
        made = rows.new(Charge, **_new_charge_values(merchant_with_keys().merchant))
    finally:
        signal.disconnect(receiver, sender=Charge)
    assert got == [Charge] and made.amount == 250000
    deferred = rows.new(Charge, amount=DEFERRED)  # left unset, as the model leaves it
    assert "amount" in deferred.get_deferred_fields()
