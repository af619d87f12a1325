"""Each input serializer has fields of its own, bound to it and reading its context, although
plain fields are copied shallowly from the declared ones (payments.api.fields.StrictSerializer)."""

from rest_framework import serializers

from payments.api.fields import StrictSerializer
from payments.api.serializers import ChargeCreateIn


def test_two_serializers_never_share_a_field_nor_its_binding():
    test = ChargeCreateIn(data={}, context={"livemode": False})
    live = ChargeCreateIn(data={}, context={"livemode": True})
    for name, declared in ChargeCreateIn._declared_fields.items():
        ours, theirs = test.fields[name], live.fields[name]
        assert ours is not theirs and ours is not declared
        assert (ours.parent, theirs.parent) == (test, live)
        assert (ours.field_name, theirs.field_name) == (name, name)
        assert (ours.context["livemode"], theirs.context["livemode"]) == (False, True)
        assert getattr(declared, "parent", None) is None  # the declaration itself stays unbound


def test_validation_of_one_leaves_the_other_as_it_was():
    good = {
        "amount": 250000,
        "currency": "CDF",
        "phone": "+243812345678",
        "network": "VODACOM_MPESA",
    }
    bad = ChargeCreateIn(data={**good, "amount": "ten"}, context={"livemode": False})
    fine = ChargeCreateIn(data=good, context={"livemode": False})
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
