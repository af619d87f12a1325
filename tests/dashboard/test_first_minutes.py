"""A merchant's first minutes: the sign-up mail and the banners name the e-mail address the
merchant typed (never the username allauth derives for itself), and the invitee's sign-up page
carries the invited address and asks for no business name."""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from tests.dashboard.conftest import PASSWORD

pytestmark = pytest.mark.django_db

EMAIL = "mama.nsimba+boutique@example.com"
BANNER = re.compile(r'<div[^>]*class="[^"]*message[^"]*"[^>]*>(.*?)</div>', re.S)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("fr", "avec cette adresse e-mail, mama.nsimba+boutique@example.com"),
        ("en", "with this e-mail address, mama.nsimba+boutique@example.com"),
    ],
)
def test_the_sign_up_mail_and_banner_name_the_address(settings, language, words):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client = Client(headers={"accept-language": language})
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    response = client.post(
        "/accounts/signup/",
        {"email": EMAIL, "business_name": "Chez Mama", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 302
    user = get_user_model().objects.get(email__iexact=EMAIL)
    (message,) = mail.outbox
    assert words in message.body
    assert user.username not in message.body.replace(EMAIL, "")
    assert not re.search(r"\b(user|utilisateur)\b", message.body)

    (link,) = re.findall(r"https?://\S+/accounts/confirm-email/\S+/", message.body)
    landed = client.post(urlsplit(link).path, follow=True).content.decode()
    assert EMAIL in landed  # the banners: the address confirmed, signed in as it
    assert user.username not in landed.replace(EMAIL, "")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_invitees_sign_up_page_carries_the_address_and_no_business_name(
    settings, shop, owner, language
):
    from dashboard.models import Invitation, Membership

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    invitation = Invitation.objects.create(merchant=shop, email="Kiese@Example.com", role="finance")
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get(f"/dashboard/invitations/{invitation.key}/").content.decode()
    (sign_up,) = re.findall(r'href="(/accounts/signup/[^"]*)"', page)
    form = client.get(sign_up.replace("&amp;", "&")).content.decode()
    assert re.search(r'name="email"[^>]*value="Kiese@Example.com"', form)
    assert 'name="business_name"' not in form
    assert (
        client.post(
            sign_up.replace("&amp;", "&"),
            {"email": "Kiese@Example.com", "password1": PASSWORD, "password2": PASSWORD},
        ).status_code
        == 302
    )
    (address,) = (
        get_user_model().objects.get(email__iexact="kiese@example.com").emailaddress_set.all()
    )
    confirm = re.findall(r"https?://\S+/accounts/confirm-email/\S+/", mail.outbox[-1].body)[0]
    client.post(urlsplit(confirm).path)
    assert Membership.objects.get(user=address.user).merchant == shop

    # Another address, with no invitation, is asked for its business.
    plain = Client().get("/accounts/signup/?email=someone@example.com").content.decode()
    assert 'name="business_name"' in plain
