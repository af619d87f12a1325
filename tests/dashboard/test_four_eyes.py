"""Four eyes are two people: with a second approver required, a payout batch is approved by
neither the member who created it (uploaded it, or made the API key that created it) nor the one
who submitted it, in both modes; a live API batch of such a team waits for that approval in the
dashboard; a live key pays out alone only while the owner's "payouts by API" is on; live keys
are the owner's and admins'; turning the second approver off asks for two-factor again and is
mailed to every owner. The live-mode tests drive the dashboard of a merchant made as harnesses
make one: `createmerchant --live-approved --owner-email … --owner-password …`."""

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, TestCase, override_settings

from batches import services
from batches.errors import BatchStatusInvalid
from batches.models import BatchStatus, PayoutBatch
from dashboard.models import AuditEntry, Membership, MerchantSettings
from payments.models import ApiKey, Merchant, Payout
from payments.services.accounts import api_key_create
from tests.dashboard.conftest import PASSWORD, make_member, signed_in, totp_code
from tests.dashboard.test_payout_batches_pages import GOOD, action, csv_of, draft
from tests.factories import succeeded_live_charge, succeeded_mobile_money_charge
from tests.helpers import api_client, race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

capture_on_commit = TestCase.captureOnCommitCallbacks
SECRET = re.compile(r'id="authenticator_secret"[^>]*?value="([A-Z2-7]+)"')
BATCHES = "/dashboard/test/payouts/batches/"
LIVE_BATCHES = "/dashboard/live/payouts/batches/"
LIVE_DEV = "/dashboard/live/developers/"
ITEMS = [
    {"phone": "+243812345678", "amount": 10000, "currency": "CDF", "network": "VODACOM_MPESA",
     "reference": "SAL-1"},
    {"phone": "+243971234567", "amount": 10000, "currency": "CDF", "network": "AIRTEL_MONEY",
     "reference": "SAL-2"},
]  # fmt: skip
OWN = {
    "en": "You uploaded or submitted this payout batch, or made the API key that created it",
    "fr": "Vous avez déposé ou soumis ce lot de versements, ou créé la clé d’API qui l’a créé",
}
ALONE = {
    "en": "No other member of this team may pay out",
    "fr": "Aucun autre membre de cette équipe ne peut faire de versements",
}


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def funded(shop):
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    return shop


def member_client(merchant, role: str, email: str | None = None) -> Client:
    return signed_in(make_member(merchant, role, email).user)


def sign_in(email: str, password: str = PASSWORD) -> Client:
    client = Client()
    answer = client.post("/accounts/login/", {"login": email, "password": password})
    assert answer.status_code == 302 and "/accounts/login/" not in answer.url
    return client


def with_two_factor(client: Client, password: str = PASSWORD) -> Client:
    """TOTP set up through allauth's pages (the password asked again first): the client has
    two-factor and a sign-in within the last minutes, as live actions need."""
    answer = client.get("/accounts/2fa/totp/activate/")
    if answer.status_code == 302:
        assert answer.url.startswith("/accounts/reauthenticate/")
        client.post(answer.url, {"password": password})
    page = client.get("/accounts/2fa/totp/activate/")
    secret = SECRET.search(page.content.decode()).group(1)
    with capture_on_commit(execute=True):
        answer = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert answer.status_code == 302
    return client


def live_member(merchant, role: str, email: str) -> Client:
    make_member(merchant, role, email)
    return with_two_factor(sign_in(email))


def createmerchant(*args) -> dict:
    out = StringIO()
    call_command("createmerchant", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def approvals() -> int:
    return AuditEntry.objects.filter(action="payout_batch.approved").count()


# --- The dashboard: two people, in both modes --------------------------------------------------


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_member_who_uploaded_cannot_approve_what_another_submitted(funded, lang):
    uploader = member_client(funded, "finance")
    submitter = member_client(funded, "owner")
    batch = draft(uploader)
    assert action(submitter, batch, "submit").status_code == 302

    page = uploader.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang)
    assert b'data-action="batch-approve"' not in page.content
    assert b'data-note="own-batch"' in page.content
    refused = action(uploader, batch, "approve", lang)
    assert refused.status_code == 403
    assert OWN[lang] in refused.content.decode()
    assert 'role="alert"' in refused.content.decode()
    assert action(submitter, batch, "approve", lang).status_code == 403
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL and approvals() == 0

    third = member_client(funded, "admin")
    assert b'data-action="batch-approve"' in third.get(f"{BATCHES}{batch.id}/").content
    assert action(third, batch, "approve").status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.PROCESSING
    assert AuditEntry.objects.get(action="payout_batch.approved").email.startswith("admin-")


def test_a_batch_uploaded_again_by_another_member_is_not_theirs_to_approve(funded):
    """Submitted again: the rows a member re-uploaded (after a rejection) and another submitted
    are the uploader's batch, not one the uploader may approve."""
    finance = member_client(funded, "finance")
    owner = member_client(funded, "owner")
    admin = member_client(funded, "admin")
    first = draft(finance)
    action(finance, first, "submit")
    assert action(admin, first, "reject").status_code == 302

    again = draft(owner)  # the same file, uploaded again by the owner
    assert action(finance, again, "submit").status_code == 302
    assert action(owner, again, "approve").status_code == 403
    assert action(finance, again, "approve").status_code == 403
    again.refresh_from_db()
    assert again.status == BatchStatus.AWAITING_APPROVAL
    assert action(admin, again, "approve").status_code == 302
    again.refresh_from_db()
    assert again.status == BatchStatus.PROCESSING and approvals() == 1


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_team_where_no_one_else_may_pay_out_is_told_so(funded, lang):
    MerchantSettings.objects.filter(merchant=funded).update(require_second_approver=True)
    owner = member_client(funded, "owner")
    member_client(funded, "developer")  # no payout right: no approver either
    batch = draft(owner)
    action(owner, batch, "submit")
    page = owner.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert ALONE[lang] in page and OWN[lang] in page
    refused = action(owner, batch, "approve", lang)
    assert refused.status_code == 403 and ALONE[lang] in refused.content.decode()
    security = owner.get("/dashboard/settings/security/", HTTP_ACCEPT_LANGUAGE=lang)
    assert b'data-note="one-payer"' in security.content

    member_client(funded, "finance")  # now someone else may
    page = owner.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert ALONE[lang] not in page and OWN[lang] in page


@pytest.mark.django_db(transaction=True)
def test_a_batch_approved_twice_at_once_is_approved_once(shop):
    """Two members approving the same API batch at the same moment: one approval."""
    succeeded_live_charge(shop, amount=1_000_000)
    key = api_key_create(merchant=shop, mode="live")
    for role in ("owner", "finance", "admin"):
        make_member(shop, role)
    made = api_client(key.plaintext).post("/v1/payout_batches", {"items": ITEMS}, format="json")
    assert made.status_code == 201 and made.json()["status"] == "awaiting_approval"
    finance, admin = (
        Membership.objects.get(merchant=shop, role=role).user_id for role in ("finance", "admin")
    )

    def approve(user_id):
        return lambda: services.batch_approve(
            merchant=Merchant.objects.get(pk=shop.pk),
            livemode=True,
            batch_id=made.json()["id"],
            user_id=user_id,
            require_second_approver=True,
        )

    racers = iter([approve(finance), approve(admin)])
    outcomes = race(lambda: next(racers)())
    assert sorted(type(outcome).__name__ for outcome in outcomes) == [
        BatchStatusInvalid.__name__,
        PayoutBatch.__name__,
    ]
    assert PayoutBatch.objects.get().status == BatchStatus.PROCESSING


# --- The API in live mode ----------------------------------------------------------------------


def test_a_live_merchants_dashboard_made_by_createmerchant_drives_four_eyes_end_to_end():
    made = createmerchant(
        "--name",
        "Pharmacie Lumumba",
        "--live-approved",
        "--owner-email",
        "Proprietaire@Example.cd",
        "--owner-password",
        PASSWORD,
    )
    assert made["owner_email"] == "proprietaire@example.cd"  # as sign-in finds it
    merchant = Merchant.objects.get(pk=made["id"])
    succeeded_live_charge(merchant, amount=1_000_000)
    owner = with_two_factor(sign_in("proprietaire@example.cd"))
    assert owner.get("/dashboard/live/").status_code == 200

    # The owner makes a live key in the dashboard: shown once, listed with its maker.
    form = owner.get(LIVE_DEV).context["key_form"]["idempotency_key"].value()
    answer = owner.post(f"{LIVE_DEV}keys/", {"idempotency_key": form})
    assert answer.status_code == 200
    plaintext = answer.context["new_key"]
    assert plaintext.startswith("sk_live_")
    key = ApiKey.objects.get(merchant=merchant, mode="live", created_by__isnull=False)
    assert key.created_by.email == "proprietaire@example.cd"
    listed = owner.get(LIVE_DEV).content.decode()
    assert "proprietaire@example.cd" in listed and key.prefix in listed

    # Alone with the payout right: the key holder's batch is approved at once, as before.
    api = api_client(plaintext)
    alone = api.post("/v1/payout_batches", {"items": ITEMS[:1]}, format="json")
    assert alone.status_code == 201 and alone.json()["status"] == "processing"

    # Two members may pay out: a live batch of the API waits for the other one.
    finance = live_member(merchant, "finance", "comptable@example.cd")
    answer = api.post("/v1/payout_batches", {"items": ITEMS[1:]}, format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["status"], body["livemode"], body["approved_at"]) == (
        "awaiting_approval",
        True,
        None,
    )
    assert body["counts"] == {"total": 1, "pending": 0, "succeeded": 0, "failed": 0}
    batch = PayoutBatch.objects.get(pk=body["id"])
    assert (batch.created_by_key_id, batch.created_by.email) == (key.pk, key.created_by.email)
    assert batch.items.get().payout_id is None
    assert api.get(f"/v1/payout_batches/{batch.id}").json()["status"] == "awaiting_approval"

    page = owner.get(f"{LIVE_BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-action="batch-approve"' not in page and key.prefix in page
    refused = owner.post(f"{LIVE_BATCHES}{batch.id}/approve/", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 403 and OWN["en"] in refused.content.decode()
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL

    assert finance.post(f"{LIVE_BATCHES}{batch.id}/approve/").status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.PROCESSING
    assert batch.approved_by.email == "comptable@example.cd"
    assert finance.post(f"{LIVE_BATCHES}{batch.id}/approve/").status_code == 302  # twice
    assert approvals() == 1

    # Test mode is the key holder's alone, whatever the team.
    test_key = api_client(made["test_secret_key"])
    succeeded_mobile_money_charge(merchant, amount=100_000)
    tested = test_key.post("/v1/payout_batches", {"items": ITEMS[:1]}, format="json")
    assert tested.status_code == 201 and tested.json()["status"] == "processing"


def test_a_live_batch_of_an_unapproved_merchant_is_refused_before_it_waits(shop):
    MerchantSettings.objects.filter(merchant=shop).update(require_second_approver=True)
    key = api_key_create(merchant=shop, mode="live")
    answer = api_client(key.plaintext).post("/v1/payout_batches", {"items": ITEMS}, format="json")
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "live_mode_not_approved"
    assert not PayoutBatch.objects.exists()


LIVE_SANDBOX = {
    "VODACOM_MPESA": "sandbox.providers.SandboxMobileMoney",
    "AIRTEL_MONEY": "sandbox.providers.SandboxMobileMoney",
}


def test_live_payouts_by_api_follow_the_owners_setting(
    shop, mailoutbox, django_capture_on_commit_callbacks, settings
):
    settings.PAYMENT_PROVIDERS = {**settings.PAYMENT_PROVIDERS, "live": LIVE_SANDBOX}
    succeeded_live_charge(shop, amount=1_000_000)
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    owner = member_client(shop, "owner", "patron@example.cd")
    make_member(shop, "owner", "associee@example.cd")
    make_member(shop, "admin", "admin@example.cd")
    live = api_client(api_key_create(merchant=shop, mode="live").plaintext)
    test = api_client(api_key_create(merchant=shop, mode="test").plaintext)
    payout = {**ITEMS[0]}
    del payout["reference"]
    assert b'name="api_payouts_enabled"' in owner.get("/dashboard/settings/security/").content

    with django_capture_on_commit_callbacks(execute=True):
        answer = owner.post(
            "/dashboard/settings/security/",
            {"api_payouts_enabled": "off"},
            HTTP_ACCEPT_LANGUAGE="fr",
        )
    assert answer.status_code == 302
    assert MerchantSettings.objects.get(merchant=shop).api_payouts_enabled is False
    assert AuditEntry.objects.filter(action="api_payouts.disabled").count() == 1
    (mail,) = mailoutbox
    assert sorted(mail.to) == ["associee@example.cd", "patron@example.cd"]
    assert "patron@example.cd" in mail.body and "refusés" in mail.body

    refused = live.post("/v1/payouts", payout, format="json")
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert (error["type"], error["code"]) == ("permission_error", "api_payouts_disabled")
    assert not Payout.objects.filter(livemode=True).exists()
    assert test.post("/v1/payouts", payout, format="json").status_code == 201  # test mode

    with django_capture_on_commit_callbacks(execute=True):
        owner.post("/dashboard/settings/security/", {"api_payouts_enabled": "on"})
    assert AuditEntry.objects.filter(action="api_payouts.enabled").count() == 1
    assert len(mailoutbox) == 2
    assert live.post("/v1/payouts", payout, format="json").status_code == 201


# --- Live keys: the owner's and admins' ---------------------------------------------------------


def test_live_keys_are_made_and_revoked_by_the_owner_and_admins_only(shop):
    shop.live_approved = True
    shop.save(update_fields=["live_approved"])
    developer = member_client(shop, "developer", "dev@example.cd")
    dev_user = Membership.objects.get(merchant=shop, role="developer").user
    earlier = api_key_create(merchant=shop, mode="live", created_by_id=dev_user.pk).api_key
    keys = ApiKey.objects.count()

    page = developer.get(LIVE_DEV)
    assert page.status_code == 200  # the live webhook endpoint is still the developer's
    assert b'data-note="live-keys"' in page.content
    assert f'action="{LIVE_DEV}keys/"'.encode() not in page.content
    assert f"{LIVE_DEV}keys/{earlier.pk}/revoke/".encode() not in page.content
    assert developer.post(f"{LIVE_DEV}keys/", {"idempotency_key": "dash_dev"}).status_code == 403
    assert developer.post(f"{LIVE_DEV}keys/{earlier.pk}/revoke/").status_code == 403
    earlier.refresh_from_db()
    assert ApiKey.objects.count() == keys and earlier.revoked_at is None
    assert not AuditEntry.objects.filter(action__startswith="api_key.").exists()
    # Test keys stay the developer's, and say who made them.
    test_page = developer.get("/dashboard/test/developers/")
    form = test_page.context["key_form"]["idempotency_key"].value()
    made = developer.post("/dashboard/test/developers/keys/", {"idempotency_key": form})
    assert made.status_code == 200 and made.context["new_key"].startswith("sk_test_")
    assert ApiKey.objects.filter(mode="test", created_by=dev_user).count() == 1

    admin = live_member(shop, "admin", "admin@example.cd")
    listed = admin.get(LIVE_DEV).content.decode()
    assert "dev@example.cd" in listed  # the earlier key, with who made it
    form = admin.get(LIVE_DEV).context["key_form"]["idempotency_key"].value()
    answer = admin.post(f"{LIVE_DEV}keys/", {"idempotency_key": form})
    assert answer.context["new_key"].startswith("sk_live_")
    assert ApiKey.objects.filter(mode="live", created_by__email="admin@example.cd").count() == 1
    assert admin.post(f"{LIVE_DEV}keys/{earlier.pk}/revoke/").status_code == 302
    earlier.refresh_from_db()
    assert earlier.revoked_at is not None


# --- The second approver turned off ------------------------------------------------------------


def test_turning_the_second_approver_off_asks_for_two_factor_again_and_mails_every_owner(
    shop, mailoutbox, django_capture_on_commit_callbacks, settings
):
    make_member(shop, "owner", "patron@example.cd")
    make_member(shop, "owner", "associee@example.cd")
    MerchantSettings.objects.filter(merchant=shop).update(require_second_approver=True)
    off = {"require_second_approver": "off"}
    client = sign_in("patron@example.cd")

    answer = client.post("/dashboard/settings/security/", off, HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 200
    assert "needs two-factor authentication" in answer.content.decode()
    assert MerchantSettings.objects.get(merchant=shop).require_second_approver is True

    with_two_factor(client)
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 0  # the sign-in is no longer recent
    answer = client.post("/dashboard/settings/security/", off)
    assert answer.status_code == 302 and answer.url.startswith("/accounts/reauthenticate/")
    assert MerchantSettings.objects.get(merchant=shop).require_second_approver is True
    assert mailoutbox == []

    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 600
    with django_capture_on_commit_callbacks(execute=True):
        resumed = client.post(answer.url, {"password": PASSWORD}, HTTP_ACCEPT_LANGUAGE="en")
    assert resumed.status_code == 302  # the form, sent once confirmed
    assert MerchantSettings.objects.get(merchant=shop).require_second_approver is False
    assert AuditEntry.objects.get(action="settings.updated").object_id == "require_second_approver"
    (mail,) = mailoutbox
    assert sorted(mail.to) == ["associee@example.cd", "patron@example.cd"]
    assert "no longer need a second approver" in mail.body

    # Turning it on again asks nothing more and tells no one.
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 0
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/dashboard/settings/security/", {"require_second_approver": "on"})
    assert answer.status_code == 302 and answer.url == "/dashboard/settings/security/"
    assert len(mailoutbox) == 1


# --- createmerchant --owner-email ----------------------------------------------------------------


def test_createmerchant_names_an_owner_only_when_asked(shop):
    plain = createmerchant("--name", "Sans propriétaire")
    assert "owner_email" not in plain
    assert not Membership.objects.filter(merchant_id=plain["id"]).exists()

    existing = make_member(shop, "admin", "deja@example.cd").user
    made = createmerchant("--name", "Deux", "--owner-email", "deja@example.cd")
    assert made["owner_email"] == "deja@example.cd"
    assert Membership.objects.get(merchant_id=made["id"]).user == existing
    assert MerchantSettings.objects.filter(merchant_id=made["id"]).exists()

    merchants = Merchant.objects.count()
    with pytest.raises(CommandError, match="another password"):
        createmerchant("--name", "Trois", "--owner-email", "deja@example.cd", "--owner-password",
                       "Not-the-right-one-2026")  # fmt: skip
    with pytest.raises(CommandError, match="--owner-password"):
        createmerchant("--name", "Trois", "--owner-email", "new@example.cd", "--owner-password",
                       "123")  # fmt: skip
    with pytest.raises(CommandError, match="needs --owner-email"):
        createmerchant("--name", "Trois", "--owner-password", PASSWORD)
    with pytest.raises(CommandError, match="not an e-mail address"):
        createmerchant("--name", "Trois", "--owner-email", "nobody")
    assert Merchant.objects.count() == merchants


def test_an_owner_made_without_a_password_sets_one_by_mail(db):
    made = createmerchant("--name", "Quatre", "--owner-email", "sans-mot@example.cd")
    owner = Membership.objects.get(merchant_id=made["id"])
    assert owner.role == "owner" and not owner.user.has_usable_password()
    assert owner.user.emailaddress_set.get().verified
    with override_settings(ACCOUNT_RATE_LIMITS=False):
        answer = Client().post("/accounts/password/reset/", {"email": "sans-mot@example.cd"})
    assert answer.status_code == 302


# --- The pages at 360 px and 1280 px -------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("width", [360, 1280])
def test_the_pages_that_say_who_may_act_fit_and_pass_axe(
    browser, live_server, funded, axe_source, language, width
):
    from tests.dashboard.pages.test_browser import fits, signed_in_page
    from tests.helpers import axe_violations, screenshot

    MerchantSettings.objects.filter(merchant=funded).update(require_second_approver=True)
    owner = make_member(funded, "owner", "patron@example.cd").user
    developer = make_member(funded, "developer", "dev@example.cd").user
    batch = services.batch_create_from_file(
        merchant=funded, livemode=False, data=csv_of(GOOD), filename="paie.csv", user_id=owner.pk
    )
    services.batch_submit(merchant=funded, livemode=False, batch_id=batch.id, user_id=owner.pk)
    funded.live_approved = True
    funded.save(update_fields=["live_approved"])
    api_key_create(merchant=funded, mode="live", created_by_id=developer.pk)
    pages = [
        (owner, f"{BATCHES}{batch.id}/", "[data-note=no-other-approver]", "batch"),
        (owner, "/dashboard/settings/security/", "[data-note=one-payer]", "security"),
        (developer, LIVE_DEV, "[data-note=live-keys]", "live-keys"),
    ]
    for user, path, note, name in pages:
        context, page = signed_in_page(browser, live_server.url, user, language=language)
        try:
            page.set_viewport_size({"width": width, "height": 760})
            page.goto(f"{live_server.url}{path}")
            assert page.locator(note).is_visible()
            assert fits(page)
            assert axe_violations(page, axe_source) == []
            screenshot(page, f"dashboard-four-eyes-{name}-{language}-{width}")
        finally:
            context.close()
