"""An input serializer's fields are bound to it and read its context, although they are copied
and bound once per serializer class and thread and lent to each serializer of that class on the
thread (payments.api.fields.StrictSerializer)."""

import threading

from rest_framework import serializers

from payments.api.fields import StrictSerializer
from payments.api.serializers import ChargeCreateIn, RefundCreateIn

GOOD = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def test_a_serializer_reads_its_fields_bound_to_itself_and_its_context():
    test = ChargeCreateIn(data={}, context={"livemode": False})
    for name, declared in ChargeCreateIn._declared_fields.items():
        ours = test.fields[name]
        assert ours is not declared
        assert ours.parent is test and ours.field_name == name
        assert ours.context["livemode"] is False
        assert getattr(declared, "parent", None) is None  # the declaration itself stays unbound
    live = ChargeCreateIn(data={}, context={"livemode": True})
    for name in ChargeCreateIn._declared_fields:
        assert live.fields[name].parent is live
        assert live.fields[name].context["livemode"] is True


def test_each_validates_with_its_own_context_whichever_read_the_fields_last():
    """Live mode wants https callback URLs: the same lent fields answer each serializer by its
    own mode, also when the other one read them between its creation and its validation."""
    body = {**GOOD, "callback_url": "http://example.com/hook"}
    test = ChargeCreateIn(data=body, context={"livemode": False})
    live = ChargeCreateIn(data=body, context={"livemode": True})
    test.fields, live.fields  # noqa: B018 (both read before either validates)
    assert test.is_valid(), test.errors
    assert not live.is_valid()
    assert live.errors["callback_url"][0].code == "url_invalid"
    again = ChargeCreateIn(data=body, context={"livemode": False})
    assert again.is_valid(), again.errors


def test_threads_never_share_a_field():
    here = ChargeCreateIn(data={}, context={}).fields["amount"]
    there = []
    thread = threading.Thread(
        target=lambda: there.append(ChargeCreateIn(data={}, context={}).fields["amount"])
    )
    thread.start()
    thread.join()
    assert there[0] is not here
    assert ChargeCreateIn(data={}, context={}).fields["amount"] is here  # lent again here
    assert RefundCreateIn(data={}, context={}).fields is not ChargeCreateIn(data={}).fields


def test_validation_of_one_leaves_the_other_as_it_was():
    bad = ChargeCreateIn(data={**GOOD, "amount": "ten"}, context={"livemode": False})
    fine = ChargeCreateIn(data=GOOD, context={"livemode": False})
    assert not bad.is_valid()
    assert fine.is_valid(), fine.errors
    assert fine.validated_data["amount"] == 250000
    assert set(bad.errors) == {"amount"}


class Tagged(StrictSerializer):
    tags = serializers.ListField(child=serializers.CharField(max_length=3))
    inner = ChargeCreateIn(required=False)


def test_a_field_holding_fields_is_copied_whole_and_its_child_bound_to_the_copy():
    first, second = Tagged(data={}, context={"mode": 1}), Tagged(data={}, context={"mode": 2})
    assert first.fields["tags"].child is not second.fields["tags"].child
    assert first.fields["tags"].child.context["mode"] == 1
    assert second.fields["tags"].child.context["mode"] == 2
    assert first.fields["inner"].fields["amount"].context["mode"] == 1
    assert Tagged(data={"tags": ["abcd"]}).is_valid() is False
    assert Tagged(data={"tags": ["abc"]}).is_valid() is True
