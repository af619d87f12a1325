"""Sign-ups (docs/operations/security.md, "Throttles"): at most 10 sign-ups per client address
per hour, the address behind the trusted proxies as everywhere else, the refusal said in words;
a confirmation mail to one address at most once per 3 minutes."""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from tests.dashboard.conftest import PASSWORD
from tests.dashboard.test_accounts import sign_in
from tests.helpers import axe_violations, screenshot
from tests.payments.api.test_throttles_staff_sign_in import configured_settings

pytestmark = pytest.mark.django_db

REFUSED = {
    "fr": "Trop d’inscriptions ont été envoyées depuis votre adresse",
    "en": "Too many sign-ups were sent from your address in the last hour",
}


@pytest.fixture
def deployed_limits(settings, monkeypatch):
    """allauth's limits and the client address as config/settings/ sets them, behind
    `proxies` trusted proxies (the dashboard's tests turn the limits off otherwise)."""

    def configure(proxies: int) -> None:
        monkeypatch.setenv("THROTTLE_TRUSTED_PROXIES", str(proxies))
        configured = configured_settings()
        # none set: allauth's defaults
        settings.ACCOUNT_RATE_LIMITS = configured.get("ACCOUNT_RATE_LIMITS", {})
        for name in (
            "THROTTLE_TRUSTED_PROXIES",
            "AXES_IPWARE_PROXY_ORDER",
            "AXES_IPWARE_PROXY_COUNT",
            "AXES_IPWARE_META_PRECEDENCE_ORDER",
        ):
            setattr(settings, name, configured[name])
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    return configure


def sign_up(email: str, **client_address):
    return Client().post(
        "/accounts/signup/",
        {"email": email, "business_name": "Boutique", "password1": PASSWORD,
         "password2": PASSWORD},
        **client_address,
    )  # fmt: skip


# Each client's address: its own (no proxy), or the one a trusted proxy forwarded.
ADDRESSES = {
    0: lambda ip: {"REMOTE_ADDR": ip},
    1: lambda ip: {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": f"198.51.100.7, {ip}"},
}


@pytest.mark.parametrize("proxies", ADDRESSES, ids=["direct", "behind a proxy"])
def test_ten_sign_ups_per_client_address_per_hour(deployed_limits, mailoutbox, proxies):
    deployed_limits(proxies)
    # The counts live in the cache, which outlives a test: addresses of this run's own.
    run = uuid.uuid4()
    one, other = (f"10.{run.int % 250}.{run.int // 250 % 250}.{n}" for n in (1, 2))
    address = ADDRESSES[proxies]

    statuses = [sign_up(f"{run.hex[:8]}-{n}@example.com", **address(one)) for n in range(10)]
    assert [response.status_code for response in statuses] == [302] * 10
    assert len(mailoutbox) == 10

    refused = sign_up(f"{run.hex[:8]}-10@example.com", **address(one))
    assert refused.status_code == 429
    assert REFUSED["fr"] in refused.content.decode()
    english = sign_up(f"{run.hex[:8]}-11@example.com", HTTP_ACCEPT_LANGUAGE="en", **address(one))
    assert english.status_code == 429 and REFUSED["en"] in english.content.decode()
    assert len(mailoutbox) == 10  # no account, no mail

    # another client (behind the same proxy) signs up as usual
    assert sign_up(f"{run.hex[:8]}-12@example.com", **address(other)).status_code == 302
    # and the first one again an hour later
    with time_machine.travel(timezone.now() + timedelta(hours=1, seconds=1)):
        assert sign_up(f"{run.hex[:8]}-13@example.com", **address(one)).status_code == 302


def test_a_confirmation_mail_to_one_address_once_per_three_minutes(deployed_limits, mailoutbox):
    deployed_limits(0)
    run = uuid.uuid4()
    email = f"{run.hex[:8]}@example.com"
    ip = f"10.{run.int % 250}.{run.int // 250 % 250}.3"
    assert sign_up(email, REMOTE_ADDR=ip).status_code == 302
    assert [m.to for m in mailoutbox] == [[email]]

    # Signing in before confirming sends the mail again, and so does signing up once more
    # with the address: not within 3 minutes of the last one.
    sign_in(Client(), email, REMOTE_ADDR=ip)
    sign_up(email, REMOTE_ADDR=ip)
    sign_in(Client(), email, REMOTE_ADDR=ip)
    assert len(mailoutbox) == 1
    with time_machine.travel(timezone.now() + timedelta(minutes=3, seconds=1)):
        sign_in(Client(), email, REMOTE_ADDR=ip)
        sign_in(Client(), email, REMOTE_ADDR=ip)
    assert [m.to for m in mailoutbox] == [[email]] * 2


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_refused_sign_up_page_at_360_and_1280_px(
    browser, axe_source, live_server, settings, language
):
    settings.ACCOUNT_RATE_LIMITS = {"signup": "0/h/ip"}  # the browser's address is past it
    for width in (360, 1280):
        context = browser.new_context(
            locale={"fr": "fr-FR", "en": "en-GB"}[language],
            viewport={"width": width, "height": 780},
            bypass_csp=True,
        )
        page = context.new_page()
        try:
            page.goto(f"{live_server.url}/accounts/signup/")
            page.fill("input[name=email]", f"mado-{width}@example.com")
            page.fill("input[name=business_name]", "Mado Couture")
            page.fill("input[name=password1]", PASSWORD)
            page.fill("input[name=password2]", PASSWORD)
            with page.expect_response(lambda r: r.request.method == "POST") as answer:
                page.locator("main form button[type=submit]").click()
            assert answer.value.status == 429
            page.get_by_text(REFUSED[language]).wait_for()
            assert axe_violations(page, axe_source) == []
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            screenshot(page, f"dashboard-signup-refused-{language}-{width}")
        finally:
            context.close()
