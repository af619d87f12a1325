"""Live deliveries only reach public HTTPS addresses; the check happens when sending."""

import ipaddress

import pytest
import requests

from tests.webhooks.conftest import record_event
from webhooks.models import DeliveryAttempt
from webhooks.services import delivery_attempt
from webhooks.transport import PinnedAddressAdapter, forbidden_reason

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url, reason",
    [
        ("http://hooks.shop.example/webhooks", "must use https"),
        ("https://127.0.0.1:{port}/hooks", "loopback"),
        ("https://localhost:{port}/hooks", "loopback"),
        ("https://[::1]:{port}/hooks", "loopback"),
        ("https://10.20.30.40/hooks", "private"),
        ("https://192.168.1.10/hooks", "private"),
        ("https://169.254.169.254/latest/meta-data/", "metadata"),
        ("https://[fd00:ec2::254]/latest/meta-data/", "metadata"),
        ("https://224.0.0.1/hooks", "multicast"),
    ],
)
def test_live_delivery_to_a_forbidden_destination_fails_at_once(merchant, receiver, url, reason):
    delivery = record_event(merchant, livemode=True, url=url.format(port=receiver.port))
    result = delivery_attempt(delivery_id=delivery.deliveries.get().id)
    assert (result.status, result.attempts, result.next_attempt_at) == ("failed", 1, None)
    assert result.last_error.startswith("Refused destination:")
    assert reason in result.last_error
    assert DeliveryAttempt.objects.get().status_code is None
    assert receiver.received == []


def test_test_mode_may_use_http_localhost(merchant, receiver):
    event = record_event(merchant, url=f"http://localhost:{receiver.port}/hooks")
    assert delivery_attempt(delivery_id=event.deliveries.get().id).status == "succeeded"
    assert len(receiver.verified()) == 1


@pytest.mark.parametrize(
    "address, expected",
    [
        ("41.243.0.10", None),
        ("2c0f:f4c0::1", None),
        ("100.64.0.1", "not a public address"),
        ("0.0.0.0", "an unspecified address"),
        ("240.0.0.1", "a reserved address"),
        ("::ffff:10.0.0.1", "a private address"),
        ("2002:7f00:1::", "a loopback address"),
        ("fe80::1", "a link-local address"),
        ("fd00:ec2::254", "a cloud metadata address"),
    ],
)
def test_forbidden_reason(address, expected):
    assert forbidden_reason(ipaddress.ip_address(address)) == expected


def test_pinned_connection_goes_to_the_checked_address_with_the_original_host(receiver):
    # The name does not resolve at all: only the pinned address can have been used.
    session = requests.Session()
    session.mount("http://", PinnedAddressAdapter(ipaddress.ip_address("127.0.0.1")))
    host = f"hooks.shop.invalid:{receiver.port}"
    response = session.post(f"http://{host}/pinned", data=b"{}", headers={"Host": host}, timeout=5)
    assert response.status_code == 200
    [got] = receiver.received
    assert (got.path, got.headers["host"]) == ("/pinned", host)
