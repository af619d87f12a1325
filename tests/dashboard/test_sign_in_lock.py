"""A member locked out by others' failed sign-ins has a way out: the locked page says that a
password reset by e-mail unlocks the account, and the reset's link signs them in at once, whatever
the others keep doing (dashboard/signin.py, dashboard/adapter.py,
docs/operations/security.md#sign-in-lockouts). Against a real server, from several addresses."""

import uuid

import pytest
from django.core import mail

from tests.addressed import From
from tests.dashboard.conftest import PASSWORD, make_member

pytestmark = pytest.mark.django_db(transaction=True)

NEW_PASSWORD = "Matete-2026-nouveau!"


def reset_by_mail(browser: From, email: str):
    """Ask for a password reset, then follow the mail's link and choose NEW_PASSWORD."""
    mail.outbox.clear()
    assert browser.post("/accounts/password/reset/", {"email": email}).status == 302
    (reset_mail,) = [m for m in mail.outbox if email in m.to]
    return browser.follow_reset_link(reset_mail.body, NEW_PASSWORD)


def test_five_failures_from_anywhere_lock_the_account_and_a_reset_lets_the_member_in(
    live_server, shop, settings
):
    settings.ACCOUNT_RATE_LIMITS = {}  # allauth's, as deployed: five failures per account
    # The limits' counts live in the cache, which outlives a test: an address of this run's own.
    member = make_member(shop, "owner", email=f"owner-{uuid.uuid4().hex[:8]}@example.com")
    email = member.user.email
    for i in range(5):  # others, from five addresses
        assert From(live_server.url, f"127.0.0.{10 + i}").sign_in(email, "guess").status == 200

    owner = From(live_server.url, "127.0.0.20", language="fr")
    page = owner.sign_in(email, PASSWORD)  # the right password, from the owner's own address
    assert page.status == 200 and "errorlist" in page.text  # refused, in words
    assert "Une réinitialisation du mot de passe par e-mail le débloque aussitôt" in page.text
    assert 'href="/accounts/password/reset/"' in page.text
    assert owner.get("/dashboard/test/").status == 302  # not signed in

    answer = reset_by_mail(owner, email)
    assert answer.status == 302 and answer.location == "/dashboard/"  # signed in by the link
    assert owner.get("/dashboard/test/").status == 200

    # The others keep guessing; the member, with the new password, signs in elsewhere too.
    for i in range(5):
        From(live_server.url, f"127.0.0.{10 + i}").sign_in(email, "guess-again")
    assert reset_by_mail(From(live_server.url, "127.0.0.21"), email).status == 302


def test_a_lock_on_the_members_own_address_is_lifted_by_a_reset(live_server, shop, settings):
    """Others behind the member's own address (an office, a mobile operator's gateway) lock the
    pair out; the reset lifts that lock too, and the next sign-in with the password works."""
    settings.THROTTLE_ADMIN_LOGIN = "3/h"
    member = make_member(shop, "finance", email=f"finance-{uuid.uuid4().hex[:8]}@example.com")
    email = member.user.email
    office = "127.0.0.30"
    for _ in range(3):
        From(live_server.url, office).sign_in(email, "guess")

    colleague = From(live_server.url, office)
    page = colleague.sign_in(email, PASSWORD)
    assert page.status == 429
    assert "A password reset by e-mail unlocks the account at once." in page.text
    assert 'href="/accounts/password/reset/"' in page.text
    assert From(live_server.url, "127.0.0.31").sign_in(email, PASSWORD).status == 302

    assert reset_by_mail(From(live_server.url, "127.0.0.32"), email).status == 302
    answer = From(live_server.url, office).sign_in(email, NEW_PASSWORD)
    assert answer.status == 302 and answer.location == "/dashboard/"
