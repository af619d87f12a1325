"""Where webhooks may go, in every mode: metadata, link-local, multicast and reserved addresses
never; loopback and private ones only with WEBHOOK_ALLOW_PRIVATE_NETWORKS; live only over https.
Checked when a URL is given (an IP-literal host) and at every delivery (pinned to the address)."""

import ipaddress

import pytest
import requests

from core.destinations import forbidden_reason
from tests.factories import record_event
from webhooks.models import DeliveryAttempt
from webhooks.services import delivery_attempt
from webhooks.transport import PinnedAddressAdapter

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
def test_live_delivery_to_a_forbidden_destination_fails_at_once(
    merchant, receiver, settings, url, reason
):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    delivery = record_event(merchant, livemode=True, url=url.format(port=receiver.port))
    result = delivery_attempt(delivery_id=delivery.deliveries.get().id)
    assert (result.status, result.attempts, result.next_attempt_at) == ("failed", 1, None)
    assert result.last_error.startswith("Refused destination:")
    assert reason in result.last_error
    assert DeliveryAttempt.objects.get().status_code is None
    assert receiver.received == []


def test_test_mode_may_use_http_localhost_when_private_networks_are_allowed(merchant, receiver):
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
        ("fd00::1", "a private address"),
        ("fec0::1", "a private address"),  # IPv6 site-local, deprecated but still routed
        ("fec0::a9fe:a9fe", "a private address"),
    ],
)
def test_forbidden_reason(address, expected):
    assert forbidden_reason(ipaddress.ip_address(address)) == expected


@pytest.mark.parametrize(
    "address, expected",
    [
        ("127.0.0.1", None),
        ("10.0.0.7", None),
        ("::1", None),
        ("169.254.169.254", "a cloud metadata address"),
        ("169.254.10.10", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("240.0.0.1", "a reserved address"),
        ("0.0.0.0", "an unspecified address"),
        ("::ffff:169.254.169.254", "a cloud metadata address"),
        # Alibaba Cloud's and Oracle Cloud's metadata, in ranges development may otherwise use.
        ("100.100.100.200", "a cloud metadata address"),
        ("192.0.0.192", "a cloud metadata address"),
        ("::ffff:100.100.100.200", "a cloud metadata address"),
        ("64:ff9b::c000:c0", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.201", None),
        ("192.0.0.193", None),
    ],
)
def test_private_networks_allowed_never_open_metadata_or_link_local(address, expected):
    assert forbidden_reason(ipaddress.ip_address(address), allow_private=True) == expected


@pytest.mark.parametrize(
    "url, allowed, reason",
    [
        ("http://169.254.169.254/latest/meta-data/", True, "metadata"),
        ("http://169.254.1.1/hooks", True, "link-local"),
        ("http://[ff02::1]/hooks", True, "multicast"),
        ("http://127.0.0.1:{port}/internal", False, "loopback"),
        ("http://localhost:{port}/internal", False, "loopback"),
        ("http://192.168.0.10/hooks", False, "private"),
    ],
)
def test_test_mode_delivery_to_a_forbidden_destination_fails_at_once(
    merchant, receiver, settings, url, allowed, reason
):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = allowed
    delivery = record_event(merchant, url=url.format(port=receiver.port))
    result = delivery_attempt(delivery_id=delivery.deliveries.get().id)
    assert (result.status, result.attempts) == ("failed", 1)
    assert result.last_error.startswith("Refused destination:") and reason in result.last_error
    assert receiver.received == []


@pytest.mark.parametrize(
    "url, allowed",
    [
        ("http://169.254.169.254/latest/meta-data/", True),
        ("http://[fd00:ec2::254]/", True),
        ("http://100.100.100.200/latest/meta-data/", True),
        ("http://192.0.0.192/opc/v2/instance/", True),
        ("http://1684301000/", True),  # 100.100.100.200 as one number
        ("http://224.0.0.1/hooks", True),
        ("http://127.0.0.1:3000/hooks", False),
        ("http://10.1.2.3/hooks", False),
        # Other spellings of the same addresses, as resolvers and browsers read them.
        ("http://2852039166/", True),
        ("http://0xa9.0xfe.0xa9.0xfe/", True),
        ("http://0251.0376.0251.0376/", True),
        ("http://169.254.169.254./", True),
        ("http://[::ffff:169.254.169.254]/", True),
        ("http://[64:ff9b::a9fe:a9fe]/", True),
        ("http://0.0.0.0:8000/", True),
        ("http://0.1.2.3/", True),
        ("http://127.1:3000/", False),
        ("http://2130706433/", False),
        ("http://127.0.0.1./", False),
    ],
)
def test_a_refused_ip_literal_is_refused_when_given(api, settings, url, allowed):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = allowed
    charge = {
        "amount": 5000,
        "currency": "CDF",
        "phone": "+243812345678",
        "network": "VODACOM_MPESA",
    }
    response = api.post("/v1/charges", {**charge, "callback_url": url}, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["param"]) == ("url_invalid", "callback_url")
    response = api.post("/v1/webhook_endpoint", {"url": url}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "url_invalid"


def test_loopback_is_accepted_when_private_networks_are_allowed(api, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    response = api.post(
        "/v1/webhook_endpoint", {"url": "http://localhost:3000/hooks"}, format="json"
    )
    assert response.status_code == 200
    response = api.post(
        "/v1/webhook_endpoint", {"url": "http://127.0.0.1:3000/hooks"}, format="json"
    )
    assert response.status_code == 200


def test_pinned_connection_goes_to_the_checked_address_with_the_original_host(receiver):
    # The name does not resolve at all: only the pinned address can have been used.
    session = requests.Session()
    session.mount("http://", PinnedAddressAdapter(ipaddress.ip_address("127.0.0.1")))
    host = f"hooks.shop.invalid:{receiver.port}"
    response = session.post(f"http://{host}/pinned", data=b"{}", headers={"Host": host}, timeout=5)
    assert response.status_code == 200
    [got] = receiver.received
    assert (got.path, got.headers["host"]) == ("/pinned", host)


def _self_signed(tmp_path, hostname: str):
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=1))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def _tls_server(tmp_path, handler, sni_seen: list | None = None):
    """An HTTPS server on 127.0.0.1 with a certificate for hooks.shop.example, serving `handler`
    in a thread: (server, port, certificate path). `sni_seen` collects the SNI names asked for."""
    import ssl
    import threading
    from http.server import HTTPServer

    cert_path, key_path = _self_signed(tmp_path, "hooks.shop.example")
    server = HTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    if sni_seen is not None:
        context.sni_callback = lambda sock, name, ctx: sni_seen.append(name)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server, server.server_address[1], cert_path


def test_pinned_https_still_checks_the_certificate_for_the_url_host(tmp_path):
    from http.server import BaseHTTPRequestHandler

    seen, sni = [], []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            seen.append(self.headers["Host"])
            self.send_response(204)
            self.end_headers()

    server, port, cert_path = _tls_server(tmp_path, Handler, sni_seen=sni)
    try:
        session = requests.Session()
        session.mount("https://", PinnedAddressAdapter(ipaddress.ip_address("127.0.0.1")))
        host = f"hooks.shop.example:{port}"
        response = session.post(
            f"https://{host}/hooks", headers={"Host": host}, verify=str(cert_path), timeout=5
        )
        assert response.status_code == 204
        assert (seen, sni) == ([host], ["hooks.shop.example"])  # Host and SNI: the URL's host

        other = requests.Session()
        other.mount("https://", PinnedAddressAdapter(ipaddress.ip_address("127.0.0.1")))
        with pytest.raises(requests.exceptions.SSLError):
            other.post(f"https://elsewhere.example:{port}/hooks", verify=str(cert_path), timeout=5)
    finally:
        server.shutdown()
        server.server_close()


MALFORMED_URLS = [
    "http://[::1/x",
    "http://[zz::1]/",
    "http://example.com:99999/hooks",
    "http://example.com:0/hooks",
    "http://example.com:-1/hooks",
    "http://a.b.c.123/hooks",
    "http://exa mple.com/",
    "http://example.com/\thooks",
    "http://",
    "ftp://example.com/",
]


@pytest.mark.parametrize("url", MALFORMED_URLS)
def test_a_malformed_url_is_a_400_everywhere_a_url_is_given(api, url):
    charge = {
        "amount": 5000,
        "currency": "CDF",
        "phone": "+243812345678",
        "network": "VODACOM_MPESA",
    }
    response = api.post("/v1/charges", {**charge, "callback_url": url}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "url_invalid"
    response = api.post("/v1/webhook_endpoint", {"url": url}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "url_invalid"
    session = {"amount": 5000, "currency": "CDF", "success_url": url, "cancel_url": url}
    response = api.post("/v1/checkout/sessions", session, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "url_invalid"


@pytest.mark.parametrize("url", ["http://[::1/x", "http://example.com:99999/hooks"])
def test_a_stored_malformed_url_is_a_refused_attempt_not_a_crash(merchant, receiver, url):
    """A URL stored before these checks existed (or written straight into the database) is
    recorded as refused; the delivery task never raises."""
    delivery = record_event(merchant, url=url)
    result = delivery_attempt(delivery_id=delivery.deliveries.get().id)
    assert (result.status, result.attempts) == ("failed", 1)
    assert result.last_error.startswith("Refused destination: the URL cannot be read")
    attempt = DeliveryAttempt.objects.get(delivery=result)
    assert attempt.status_code is None


@pytest.mark.parametrize(
    "url", ["http://[::1/x", "http://example.com:99999/", "http://2852039166/"]
)
def test_staff_cannot_save_an_endpoint_url_deliveries_may_not_call(merchant, settings, url):
    from django.core.exceptions import ValidationError

    endpoint = merchant.webhook_endpoints.get(livemode=False)
    endpoint.url = url
    with pytest.raises(ValidationError) as caught:
        endpoint.full_clean()
    assert "url" in caught.value.message_dict


def test_staff_cannot_save_a_plain_http_live_endpoint(merchant):
    from django.core.exceptions import ValidationError

    endpoint = merchant.webhook_endpoints.get(livemode=True)
    endpoint.url = "http://example.com/hooks"
    with pytest.raises(ValidationError) as caught:
        endpoint.full_clean()
    assert caught.value.message_dict["url"] == ["Live mode requires an https URL."]
    endpoint.url = "https://example.com/hooks"
    endpoint.full_clean()


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["http://169.254.169.254/", "http://0xa9fea9fe/", "http://[::1/x"])
def test_createmerchant_refuses_a_webhook_url_deliveries_may_not_call(url):
    from django.core.management import CommandError, call_command

    from payments.models import Merchant

    with pytest.raises(CommandError, match="--webhook-url"):
        call_command("createmerchant", "--name", "X", "--webhook-url", url, "--json")
    assert not Merchant.objects.filter(name="X").exists()


def test_a_dribbled_answer_over_tls_is_cut_at_its_deadline(tmp_path):
    """The deadline's cut (core.deadlines) ends a wait inside TLS too."""
    import threading
    import time
    from http.server import BaseHTTPRequestHandler

    from core import deadlines

    whole = threading.Event()  # set before the answer's last byte goes out

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            try:
                for index, byte in enumerate(answer):
                    if index == len(answer) - 1:
                        whole.set()
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            self.close_connection = True

    server, port, cert_path = _tls_server(tmp_path, Handler)
    try:
        session = requests.Session()
        session.mount("https://", PinnedAddressAdapter(ipaddress.ip_address("127.0.0.1")))
        with pytest.raises(deadlines.DeadlinePassed), deadlines.deadline(0.6):
            response = session.post(
                f"https://hooks.shop.example:{port}/hooks",
                data=b"{}",
                verify=str(cert_path),
                timeout=0.3,
                stream=True,
            )
            response.raw.read(1024)
        assert not whole.is_set()  # cut before the whole answer (4.4 s of it) could come
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def dns(monkeypatch):
    """The outside world's DNS, answering for the names a test gives (others as usual)."""
    import socket

    names: dict[str, str] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in names:
            address = names[host]
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return names


@pytest.mark.parametrize(
    "address", ["169.254.169.254", "100.100.100.200", "192.0.0.192", "fd00:ec2::254"]
)
def test_a_name_resolving_to_a_cloud_metadata_address_is_refused_at_delivery(
    merchant, settings, dns, address
):
    """Private networks allowed (development) or not, and in test mode."""
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    dns["metadata.shop.example"] = address
    event = record_event(merchant, url="http://metadata.shop.example/latest/meta-data/")
    result = delivery_attempt(delivery_id=event.deliveries.get().id)
    assert (result.status, result.attempts, result.next_attempt_at) == ("failed", 1, None)
    assert result.last_error.startswith("Refused destination:")
    assert f"resolves to {address}, a cloud metadata address" in result.last_error


def test_no_attempt_says_whether_a_port_is_closed_silent_or_resetting(
    api, merchant, settings, caplog
):
    """Which ports of an address are open must not be read from the deliveries: a refused
    connection, one that never answers and one reset by the other end are told in the same
    words, to the API and to staff; the cause is in the server's log."""
    import socket
    import struct
    import threading

    from webhooks.transport import NO_ANSWER

    settings.WEBHOOK_TIMEOUT = 0.3
    with socket.socket() as probe:  # nothing listens there
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    silent = socket.socket()  # accepts (the kernel does) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    resetting = socket.socket()
    resetting.bind(("127.0.0.1", 0))
    resetting.listen(8)

    def reset_each():
        while True:
            try:
                connection, _ = resetting.accept()
            except OSError:
                return
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()  # RST

    threading.Thread(target=reset_each, daemon=True).start()
    try:
        errors = []
        for port in (closed, silent.getsockname()[1], resetting.getsockname()[1]):
            event = record_event(merchant, url=f"http://127.0.0.1:{port}/hooks")
            delivery_attempt(delivery_id=event.deliveries.get().id)
            [shown] = api.get(f"/v1/events/{event.id}/deliveries").json()["data"]
            errors.append(shown["attempts"][0]["error"])
    finally:
        silent.close()
        resetting.close()
    assert errors == [NO_ANSWER] * 3
    assert set(DeliveryAttempt.objects.values_list("error", flat=True)) == {NO_ANSWER}
    log = caplog.text.lower()
    assert "refused" in log and "timed out" in log
    # The reset met in the answer's read, or in the request's sending, as the machine's pace has it.
    assert "reset" in log or "closed connection without response" in log
