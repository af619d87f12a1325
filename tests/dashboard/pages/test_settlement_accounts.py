"""The settlement settings (/dashboard/settings/settlement/): the owner's alone (403 and nothing
changed for every other role), both modes on one page, a bank account or the business's own
wallet added and removed through the API's services, once per form, errors in words; a live
account needs two-factor and a recent sign-in, is held, and is mailed at once through a real SMTP
server to every owner and admin, each in their language; every addition and removal, from the
dashboard or the API, is in the merchant's audit log with its details in words."""

import re
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.utils import translation

from dashboard.models import AuditEntry
from payments.models import SettlementAccount
from payments.services.accounts import api_key_create
from tests.dashboard.conftest import PASSWORD, body_of
from tests.dashboard.pages.conftest import ROLES, client_of, member
from tests.dashboard.test_four_eyes import live_member, sign_in, with_two_factor
from tests.helpers import api_client, wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

PAGE = "/dashboard/settings/settlement/"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # 10:00 in Kinshasa, 11:00 in Lubumbashi
BANK = {
    "bank-mode": "test",
    "bank-currency": "CDF",
    "bank-bank_name": "Rawbank",
    "bank-account_holder": "Boutique Gombe SARL",
    "bank-account_number": "0501 2345 6789 4821",
    "bank-swift": "rawbcdki",
}
WALLET = {"wallet-mode": "test", "wallet-currency": "CDF", "wallet-phone": "0812 345 678"}


def add(client, kind: str, fields: dict, *, lang: str = "fr", key: str | None = None, **more):
    prefix = "bank" if kind == "bank_account" else "wallet"
    if key is None:
        key = client.get(PAGE).context[f"{prefix}_form"]["idempotency_key"].value()
    body = {**fields, **more, "type": kind, f"{prefix}-idempotency_key": key}
    return client.post(PAGE, body, HTTP_ACCEPT_LANGUAGE=lang)


def live(fields: dict) -> dict:
    return {name: "live" if name.endswith("-mode") else value for name, value in fields.items()}


@pytest.fixture
def approved(shop):
    shop.live_approved = True
    shop.save(update_fields=["live_approved"])
    return shop


@pytest.mark.parametrize("role", ROLES)
def test_only_the_owner_adds_and_removes_accounts(shop, clients, role):
    owner = clients["owner"]
    assert add(owner, "bank_account", BANK).status_code == 302
    account = SettlementAccount.objects.get()
    rows = AuditEntry.objects.count()
    client = clients[role]
    if role == "owner":
        assert client.get(PAGE).status_code == 200
        return
    assert client.get(PAGE).status_code == 403
    assert add(client, "mobile_money", WALLET, key="dash_role").status_code == 403
    assert client.post(f"{PAGE}{account.id}/remove/").status_code == 403
    account.refresh_from_db()
    assert account.removed_at is None
    assert SettlementAccount.objects.count() == 1
    assert AuditEntry.objects.count() == rows
    # The settings' tabs show the page to the owner only.
    assert PAGE.encode() not in client.get("/dashboard/settings/pricing/").content
    assert PAGE.encode() in owner.get("/dashboard/settings/pricing/").content


def test_a_test_bank_account_shows_its_last_four_only_and_is_audited(shop, owner, mailoutbox):
    answer = add(owner, "bank_account", BANK, lang="en")
    assert answer.status_code == 302 and answer["Location"] == PAGE
    account = SettlementAccount.objects.get()
    assert (account.livemode, account.account_number, account.swift, account.is_default) == (
        False,
        "050123456789" + "4821",
        "RAWBCDKI",
        True,
    )
    page = owner.get(PAGE, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Bank account at Rawbank ending in 4821 (CDF)" in page
    assert "050123456789" not in page
    assert "On hold until" not in page  # test mode: no hold
    entry = AuditEntry.objects.get(action="settlement_account.added")
    assert (entry.mode, entry.object_id, entry.email) == ("test", account.id, entry.user.email)
    with translation.override("fr"):
        assert entry.details_text() == "Compte bancaire chez Rawbank finissant par 4821 (CDF)"
    assert mailoutbox == []  # a test account is no one's money


def test_a_wallet_is_the_business_own_number_as_people_type_it(shop, owner):
    assert add(owner, "mobile_money", WALLET).status_code == 302
    wallet = SettlementAccount.objects.get()
    assert (wallet.phone, wallet.network, wallet.account_holder) == (
        "+243812345678",
        "VODACOM_MPESA",  # the number's operator
        shop.name,
    )
    page = owner.get(PAGE, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Vodacom M-Pesa wallet ending in 5678 (CDF)" in page


def test_a_double_submitted_form_adds_one_account(shop, owner):
    key = owner.get(PAGE).context["bank_form"]["idempotency_key"].value()
    first = add(owner, "bank_account", BANK, key=key)
    again = add(owner, "bank_account", BANK, key=key)
    assert first.status_code == again.status_code == 302
    assert SettlementAccount.objects.count() == 1
    assert AuditEntry.objects.filter(action="settlement_account.added").count() == 1


@pytest.mark.parametrize(
    ("kind", "fields", "words"),
    [
        (
            "bank_account",
            {**BANK, "bank-account_number": "12 34"},
            {"fr": "8 à 34 lettres et chiffres", "en": "8 to 34 letters and digits"},
        ),
        (
            "bank_account",
            {**BANK, "bank-swift": "RAW"},
            {"fr": "8 ou 11 lettres et chiffres", "en": "8 or 11 letters and digits"},
        ),
        (
            "mobile_money",
            {**WALLET, "wallet-network": "ORANGE_MONEY"},
            {"fr": "pas sur le réseau choisi", "en": "not on the chosen network"},
        ),
        (
            "mobile_money",
            {**WALLET, "wallet-phone": "0812"},
            {"fr": "10 chiffres commençant par 08 ou 09", "en": "10 digits starting with 08 or 09"},
        ),
    ],
)
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_wrong_account_is_refused_in_words(shop, owner, kind, fields, words, lang):
    answer = add(owner, kind, fields, lang=lang)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert words[lang] in page and 'role="alert"' in page
    text = re.sub(r"<[^>]+>", " ", page)
    assert "account_number" not in text and "E.164" not in text  # words, never field names
    assert not SettlementAccount.objects.exists()


def test_a_live_account_needs_two_factor_and_a_recent_sign_in(approved, settings, mailoutbox):
    member(approved, "owner", "patron@example.cd")
    client = sign_in("patron@example.cd")
    refused = add(client, "bank_account", live(BANK), lang="en")
    assert refused.status_code == 403
    assert "need two-factor authentication" in refused.content.decode()
    assert not SettlementAccount.objects.exists()

    with_two_factor(client)
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 0  # the sign-in is no longer recent
    answer = add(client, "bank_account", live(BANK))
    assert answer.status_code == 302 and answer.url.startswith("/accounts/reauthenticate/")
    assert not SettlementAccount.objects.exists()
    assert not AuditEntry.objects.filter(action="settlement_account.added").exists()

    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 600
    resumed = client.post(answer.url, {"password": PASSWORD})
    assert resumed.status_code == 302  # the form, sent once confirmed
    account = SettlementAccount.objects.get()
    assert account.livemode and account.available_from > account.created_at


def test_a_new_live_account_is_held_and_mailed_to_every_owner_and_admin_in_their_language(
    approved, smtp_sink, django_capture_on_commit_callbacks
):
    approved.time_zone = "Africa/Lubumbashi"
    approved.save(update_fields=["time_zone"])
    owner = live_member(approved, "owner", "patron@example.cd")
    admin = client_of(member(approved, "admin", "admin@example.cd"))
    admin.get("/dashboard/test/", HTTP_ACCEPT_LANGUAGE="en")  # uses the dashboard in English
    member(approved, "owner", "associee@example.cd")  # never seen: French, the default
    member(approved, "finance", "compta@example.cd")
    member(approved, "developer", "dev@example.cd")
    with time_machine.travel(NOW, tick=False), django_capture_on_commit_callbacks(execute=True):
        answer = add(owner, "bank_account", live(BANK))
    assert answer.status_code == 302
    account = SettlementAccount.objects.get()
    assert account.available_from == datetime(2026, 12, 3, 9, 0, tzinfo=UTC)  # two days on

    mails = wait_for(lambda: len(smtp_sink.messages) == 3 and smtp_sink.messages)
    by_address = {message["To"]: message for message in mails}
    assert set(by_address) == {"patron@example.cd", "associee@example.cd", "admin@example.cd"}
    english = by_address["admin@example.cd"]
    assert english["Subject"] == "Boutique Gombe: a new live settlement account was added"
    text = body_of(english)
    assert "patron@example.cd added a live settlement account to Boutique Gombe" in text
    assert "Bank account at Rawbank ending in 4821 (CDF)" in text
    assert "Account holder: Boutique Gombe SARL" in text
    assert "from 3 December 2026, 11:00 (Lubumbashi time), not before" in text
    assert "tell an owner of the business at once" in text  # an admin cannot remove it
    assert "050123456789" not in text
    french = body_of(by_address["associee@example.cd"])
    assert "Compte bancaire chez Rawbank finissant par 4821 (CDF)" in french
    assert "3 décembre 2026 11:00 (heure de Lubumbashi)" in french
    assert "supprimez-le tout de suite" in french
    assert "/dashboard/settings/settlement/" in french
    assert by_address["patron@example.cd"]["Subject"].strip() == (
        "Boutique Gombe : un nouveau compte de reversement réel a été ajouté"
    )

    with time_machine.travel(NOW, tick=False):  # the session's time
        page = owner.get(PAGE, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "En attente jusqu’au 3 décembre 2026 11:00 (heure de Lubumbashi)" in page
    entry = AuditEntry.objects.get(action="settlement_account.added")
    assert (entry.mode, entry.email, entry.user.email) == (
        "live",
        "patron@example.cd",
        "patron@example.cd",
    )
    with translation.override("en"):
        assert entry.details_text() == (
            "Bank account at Rawbank ending in 4821 (CDF), on hold until 3 December 2026, 11:00 "
            "(Lubumbashi time)"
        )


def test_an_account_added_through_the_api_is_audited_and_mailed_too(
    approved, smtp_sink, django_capture_on_commit_callbacks
):
    member(approved, "owner", "patron@example.cd")
    made = api_key_create(merchant=approved, mode="live")
    client = api_client(made.plaintext)
    wallet = {"type": "mobile_money", "currency": "USD", "phone": "+243971234567",
              "network": "AIRTEL_MONEY"}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/v1/settlement_accounts", wallet, format="json")
    assert answer.status_code == 201, answer.content
    entry = AuditEntry.objects.get(action="settlement_account.added")
    assert entry.user is None and entry.email == f"API key {made.api_key.prefix}"
    assert entry.mode == "live" and entry.object_id == answer.json()["id"]
    (mail,) = wait_for(lambda: smtp_sink.messages)
    assert f"API key {made.api_key.prefix}" in body_of(mail)
    assert "Portefeuille Airtel Money finissant par 4567 (USD)" in body_of(mail)
    with django_capture_on_commit_callbacks(execute=True):
        deleted = client.delete(f"/v1/settlement_accounts/{entry.object_id}")
    assert deleted.status_code == 200
    removed = AuditEntry.objects.get(action="settlement_account.removed")
    assert removed.email == entry.email and removed.mode == "live"
    assert len(smtp_sink.messages) == 1  # a removal is not mailed


def test_removing_an_account_is_audited_and_a_live_one_needs_two_factor(approved, settings):
    owner = live_member(approved, "owner", "patron@example.cd")
    assert add(owner, "bank_account", BANK).status_code == 302
    assert add(owner, "mobile_money", live(WALLET)).status_code == 302
    test_account = SettlementAccount.objects.get(livemode=False)
    live_account = SettlementAccount.objects.get(livemode=True)

    plain = Client()
    plain.force_login(live_account.merchant.memberships.get().user)  # no recent sign-in records
    answer = plain.post(f"{PAGE}{live_account.id}/remove/")
    assert answer.status_code == 302 and answer.url.startswith("/accounts/reauthenticate/")
    live_account.refresh_from_db()
    assert live_account.removed_at is None

    assert owner.post(f"{PAGE}{test_account.id}/remove/").status_code == 302
    assert owner.post(f"{PAGE}{live_account.id}/remove/").status_code == 302
    assert owner.post(f"{PAGE}{live_account.id}/remove/").status_code == 302  # sent twice
    assert not SettlementAccount.objects.filter(removed_at__isnull=True).exists()
    removed = AuditEntry.objects.filter(action="settlement_account.removed")
    assert sorted(removed.values_list("mode", flat=True)) == ["live", "test"]


def test_another_merchants_account_is_missing(shop, other_shop, owner):
    theirs = client_of(member(other_shop, "owner", "autre@example.cd"))
    assert add(theirs, "bank_account", BANK).status_code == 302
    account = SettlementAccount.objects.get()
    assert owner.post(f"{PAGE}{account.id}/remove/").status_code == 404
    viewer = client_of(member(shop, "viewer"))
    assert viewer.post(f"{PAGE}{account.id}/remove/").status_code == 404
    account.refresh_from_db()
    assert account.removed_at is None
    assert account.id not in owner.get(PAGE).content.decode()
