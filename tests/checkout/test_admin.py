"""Staff see sessions with their charges, and cannot change them."""

import pytest

from checkout import services
from tests.factories import make_session
from tests.helpers import admin_url

pytestmark = pytest.mark.django_db


def test_session_list_filters_and_detail_with_charges(admin_client, merchant):
    session = make_session(merchant)
    other = make_session(merchant, amount=500000)
    services.session_expire(session=other)
    charge = services.session_attempt_create(
        session_id=session.id, payment_method="mobile_money", phone="+243812345678",
        network="VODACOM_MPESA",
    )  # fmt: skip
    listing = admin_client.get("/admin/checkout/checkoutsession/?status__exact=open")
    assert listing.status_code == 200
    assert session.id in listing.text and other.id not in listing.text
    found = admin_client.get(f"/admin/checkout/checkoutsession/?q={other.id}")
    assert other.id in found.text and session.id not in found.text
    detail = admin_client.get(admin_url(session))
    assert detail.status_code == 200
    assert charge.id in detail.text
    assert 'name="amount"' not in detail.text  # read-only
