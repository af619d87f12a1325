"""Mail links (docs/operations/security.md, "Mail links"): every link of every mail the accounts
and the team send is on PUBLIC_BASE_URL, whatever host the request that caused it named, in
its Host header or a proxy's X-Forwarded-Host, on a deployment that accepts any host name."""

import re
from urllib.parse import urlsplit

import pytest
from django.test import Client

from tests.dashboard.conftest import PASSWORD, make_user, signed_in

pytestmark = pytest.mark.django_db

PUBLIC = "https://pay.example.cd"
URL = re.compile(r"""https?://[^\s<>"']+""")
# The hosts a request may claim: its own Host, a proxy's forwarded one, both at once.
CLAIMED = {
    "host": {"HTTP_HOST": "evil.example.com"},
    "forwarded host": {"HTTP_X_FORWARDED_HOST": "evil.example.com"},
    "both": {"HTTP_HOST": "evil.example.com", "HTTP_X_FORWARDED_HOST": "evil2.example.com:8443"},
}


@pytest.fixture(autouse=True)
def _any_host_accepted(settings):
    """A deployment that answers several host names, behind a proxy it trusts with them."""
    settings.PUBLIC_BASE_URL = PUBLIC
    settings.ALLOWED_HOSTS = ["*"]
    settings.USE_X_FORWARDED_HOST = True


def links_of(message) -> list[str]:
    """Every link of the mail, in its text and in any HTML version; none names another host."""
    bodies = [message.body] + [content for content, _type in getattr(message, "alternatives", [])]
    text = "\n".join(bodies)
    assert "evil" not in text, text
    links = URL.findall(text)
    assert links, text
    assert [link for link in links if not link.startswith(PUBLIC + "/")] == [], text
    return links


@pytest.mark.parametrize("claimed", CLAIMED.values(), ids=CLAIMED.keys())
def test_a_password_reset_mails_its_key_on_the_public_address(owner, mailoutbox, claimed):
    response = Client().post("/accounts/password/reset/", {"email": owner.user.email}, **claimed)
    assert response.status_code == 302
    (message,) = mailoutbox
    (link,) = [u for u in links_of(message) if "/accounts/password/reset/key/" in u]

    # the key works, at the public address
    client = Client()
    response = client.get(urlsplit(link).path)
    assert response.status_code == 302
    new = "Matadi-2027-a-long-one!"
    response = client.post(response.url, {"password1": new, "password2": new})
    assert response.status_code == 302
    owner.user.refresh_from_db()
    assert owner.user.check_password(new)


@pytest.mark.parametrize("claimed", CLAIMED.values(), ids=CLAIMED.keys())
def test_a_reset_for_an_unknown_address_links_to_the_public_sign_up(db, mailoutbox, claimed):
    Client().post("/accounts/password/reset/", {"email": "nobody@example.com"}, **claimed)
    (message,) = mailoutbox
    assert f"{PUBLIC}/accounts/signup/" in links_of(message)


@pytest.mark.parametrize("claimed", CLAIMED.values(), ids=CLAIMED.keys())
def test_sign_up_mails_its_confirmation_link_on_the_public_address(db, mailoutbox, claimed):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"email": "amani@example.com", "business_name": "Chez Amani", "password1": PASSWORD,
         "password2": PASSWORD},
        **claimed,
    )  # fmt: skip
    assert response.status_code == 302
    (message,) = mailoutbox
    (link,) = [u for u in links_of(message) if "/accounts/confirm-email/" in u]
    assert client.post(urlsplit(link).path).status_code == 302
    assert client.get("/dashboard/test/").status_code == 200  # the link confirmed and signed in


@pytest.mark.parametrize("claimed", CLAIMED.values(), ids=CLAIMED.keys())
def test_a_sign_up_with_a_known_address_mails_public_links(owner, mailoutbox, claimed):
    Client().post(
        "/accounts/signup/",
        {"email": owner.user.email, "business_name": "Encore", "password1": PASSWORD,
         "password2": PASSWORD},
        **claimed,
    )  # fmt: skip
    (message,) = mailoutbox
    links = links_of(message)
    assert f"{PUBLIC}/accounts/password/reset/" in links


@pytest.mark.parametrize("claimed", CLAIMED.values(), ids=CLAIMED.keys())
def test_an_invitation_is_mailed_on_the_public_address(
    owner, mailoutbox, claimed, django_capture_on_commit_callbacks
):
    client = signed_in(owner.user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/dashboard/settings/team/", {"email": "fin@example.com", "role": "finance"}, **claimed
        )
    assert response.status_code == 302
    (message,) = mailoutbox
    (link,) = links_of(message)
    invitee = signed_in(make_user("fin@example.com"))
    assert invitee.get(urlsplit(link).path).status_code == 200
