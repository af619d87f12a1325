"""The hosted-payment signature (HMAC-SHA256 of the signed fields, base64) against the public test
vectors: what it signs, what it accepts and what it refuses, and why."""

from datetime import UTC, datetime

import pytest

from core import money
from payments.providers import secure_acceptance
from payments.providers.base import InvalidSignature

FULL_REQUEST = {
    "access_key": "abc123",
    "profile_id": "PROF-1",
    "transaction_uuid": "7f1c2d3e",
    "signed_field_names": (
        "access_key,profile_id,transaction_uuid,signed_field_names,unsigned_field_names,"
        "signed_date_time,locale,transaction_type,reference_number,amount,currency"
    ),
    "unsigned_field_names": "",
    "signed_date_time": "2024-01-15T10:30:00Z",
    "locale": "en",
    "transaction_type": "sale",
    "reference_number": "ORD-42",
    "amount": "12.50",
    "currency": "USD",
}
FULL_SIGNATURE = "9HYJMl90kSFjROf8kns5IP0xYA2SYYSvH22sml5YnJc="
FULL_KEY = "test-secret-key"


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("foo,baz", "IVMC7Aj8pDKwLx+0eNfIfoQAHvViiLeavLyYatCtB+c="),
        ("baz,foo", "5Gw1ffUlVU9Cm0tTa/nzhQ81Bc6/SDqz/tEP5VyMzkk="),
    ],
)
def test_key_foo_vectors_depend_on_the_order_of_names(order, expected):
    assert secure_acceptance.sign({"foo": "bar", "baz": "bat"}, "FOO", order) == expected


def test_full_request_vector_string_and_signature():
    assert secure_acceptance.data_to_sign(FULL_REQUEST) == (
        "access_key=abc123,profile_id=PROF-1,transaction_uuid=7f1c2d3e,signed_field_names="
        "access_key,profile_id,transaction_uuid,signed_field_names,unsigned_field_names,"
        "signed_date_time,locale,transaction_type,reference_number,amount,currency,"
        "unsigned_field_names=,signed_date_time=2024-01-15T10:30:00Z,locale=en,"
        "transaction_type=sale,reference_number=ORD-42,amount=12.50,currency=USD"
    )
    signature = secure_acceptance.sign(FULL_REQUEST, FULL_KEY)
    assert signature == FULL_SIGNATURE
    assert len(signature) == 44


def test_verify_accepts_the_full_request_vector():
    fields = {**FULL_REQUEST, "signature": FULL_SIGNATURE}
    assert secure_acceptance.sign(fields, FULL_KEY) == FULL_SIGNATURE
    # Accepted: verify answers nothing (it raises InvalidSignature when it does not verify)…
    assert secure_acceptance.verify(fields, FULL_KEY) is None
    # …and the same call does refuse a wrong signature.
    with pytest.raises(InvalidSignature, match="signature does not match"):
        secure_acceptance.verify({**fields, "signature": FULL_SIGNATURE[::-1]}, FULL_KEY)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("amount", "12.51"),
        ("currency", "CDF"),
        ("reference_number", "ORD-43"),
        ("transaction_uuid", "7f1c2d3f"),
        ("unsigned_field_names", "amount"),
        ("signature", "9HYJMl90kSFjROf8kns5IP0xYA2SYYSvH22sml5YnJd="),
    ],
)
def test_verify_rejects_a_tampered_field(field, value):
    with pytest.raises(InvalidSignature, match="signature does not match"):
        secure_acceptance.verify(
            {**FULL_REQUEST, "signature": FULL_SIGNATURE, field: value}, FULL_KEY
        )


def test_verify_rejects_another_key():
    with pytest.raises(InvalidSignature, match="signature does not match"):
        secure_acceptance.verify({**FULL_REQUEST, "signature": FULL_SIGNATURE}, "test-secret-kez")


def test_verify_rejects_a_shortened_signed_list():
    # Dropping amount from the list and re-using the signature must not pass.
    names = FULL_REQUEST["signed_field_names"].replace(",amount", "")
    assert "amount" not in names.split(",")
    with pytest.raises(InvalidSignature, match="signature does not match"):
        secure_acceptance.verify(
            {**FULL_REQUEST, "signed_field_names": names, "signature": FULL_SIGNATURE}, FULL_KEY
        )


def test_verify_requires_signed_field_names_and_signature():
    fields = {**FULL_REQUEST, "signature": FULL_SIGNATURE}
    without_names = {k: v for k, v in fields.items() if k != "signed_field_names"}
    without_signature = {k: v for k, v in fields.items() if k != "signature"}
    for broken in (without_names, without_signature, {**fields, "signed_field_names": ""}):
        with pytest.raises(InvalidSignature, match="signed_field_names and signature are required"):
            secure_acceptance.verify(broken, FULL_KEY)


def test_verify_requires_signed_field_names_to_sign_itself():
    names = "access_key,profile_id,amount,currency"
    fields = {**FULL_REQUEST, "signed_field_names": names}
    fields["signature"] = secure_acceptance.sign(fields, FULL_KEY)
    with pytest.raises(InvalidSignature, match="itself"):
        secure_acceptance.verify(fields, FULL_KEY)


def test_build_request_is_verifiable_and_in_major_units():
    fields = secure_acceptance.build_request(
        access_key="abc123",
        profile_id="PROF-1",
        secret_key=FULL_KEY,
        reference_number="ch_x",
        amount=1250,
        currency="USD",
        receipt_url="https://pay.example/card/receipt",
        cancel_url="https://pay.example/card/receipt",
    )
    assert secure_acceptance.verify(fields, FULL_KEY) is None  # accepted
    assert fields["signature"] == secure_acceptance.sign(fields, FULL_KEY)
    assert fields["amount"] == "12.50"
    assert set(fields["signed_field_names"].split(",")) == set(fields) - {"signature"}
    assert {
        k: v for k, v in fields.items() if k not in ("transaction_uuid", "signed_date_time")
    } == {
        "access_key": "abc123",
        "profile_id": "PROF-1",
        "signed_field_names": fields["signed_field_names"],
        "unsigned_field_names": "",
        "locale": "fr-fr",  # the documented locale code of the default language
        "transaction_type": "sale",
        "reference_number": "ch_x",
        "amount": "12.50",
        "currency": "USD",
        "override_custom_receipt_page": "https://pay.example/card/receipt",
        "override_custom_cancel_page": "https://pay.example/card/receipt",
        "signature": fields["signature"],
    }
    # A fresh attempt of this charge, signed now.
    assert secure_acceptance.attempt_issued("ch_x", fields["transaction_uuid"])
    signed_at = secure_acceptance.parse_signed_date_time(fields["signed_date_time"])
    assert abs((datetime.now(UTC) - signed_at).total_seconds()) < 60
    # Another key does not verify it.
    with pytest.raises(InvalidSignature, match="signature does not match"):
        secure_acceptance.verify(fields, "test-secret-kez")


@pytest.mark.parametrize(("minor", "major"), [(1, "0.01"), (1250, "12.50"), (100000, "1000.00")])
def test_major_units(minor, major):
    assert money.major_units(minor) == major


@pytest.mark.parametrize(
    ("language", "locale"),
    [("fr", "fr-fr"), ("en", "en-us"), ("en-US", "en-us"), ("fr-fr", "fr-fr"), ("", "fr-fr")],
)
def test_the_form_locale_is_a_documented_locale_code(language, locale):
    """Secure Acceptance's locale field takes codes of its localization table (fr-fr, en-us)."""
    assert secure_acceptance.form_locale(language) == locale
