"""The application for live mode (docs/guides/going-live.md): the owner's one form at
/dashboard/settings/activation/ (no one else's: 403 and nothing changed), documents judged by
their content and size, draft → submitted → changes requested → submitted again → approved
(live mode on) or rejected, decided by staff holding payments.review_activation in the admin,
each decision mailed to the owner in the language they applied in, through a real SMTP server;
the documents streamed to those staff only; the settlement account made live and held when the
application is submitted; the audit rows."""

import html
import io
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard.models import ActivationApplication, AuditEntry
from payments.models import Merchant, SettlementAccount
from tests.dashboard.conftest import body_of, make_member, signed_in
from tests.factories import with_totp

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

PAGE = "/dashboard/settings/activation/"
PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
EXE = b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 64  # a Windows program

BUSINESS = {
    "legal_name": "Boutique Gombe SARL",
    "rccm_number": "CD/KNG/RCCM/23-B-01234",
    "id_nat": "01-83-N12345K",
    "nif": "A1234567B",
    "address": "12, avenue du Commerce, Gombe",
    "city": "Kinshasa",
    "activity": "Vente de pagnes et de vêtements",
    "website": "facebook.com/boutiquegombe",
    "representative_name": "Mado Kabila",
    "representative_phone": "+243 81 234 5678",
    "monthly_volume": "25 000 000",
    "monthly_volume_currency": "CDF",
}
BANK = {
    "account_type": "bank_account",
    "account_currency": "USD",
    "bank_name": "Rawbank",
    "account_holder": "Boutique Gombe SARL",
    "account_number": "0501 2345 6789 0123",
    "swift": "RAWBCDKI",
}


def documents(**override) -> dict:
    files = {
        "rccm_certificate": SimpleUploadedFile("rccm.pdf", PDF, "application/pdf"),
        "id_nat_certificate": SimpleUploadedFile("idnat.png", PNG, "image/png"),
        "representative_id": SimpleUploadedFile("passeport.jpg", JPEG, "image/jpeg"),
    }
    files.update(override)
    return files


@pytest.fixture(autouse=True)
def _documents_in_a_folder_of_the_test(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"


@pytest.fixture
def owner_client(owner) -> Client:
    return signed_in(owner.user)


def reviewer(name: str = "reviewer", *perms: str) -> tuple:
    """A staff member (two-factor set up) holding `perms` ("app.codename")."""
    user = with_totp(
        get_user_model().objects.create_user(
            name, f"{name}@example.cd", "pw-123-long", is_staff=True
        )
    )
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    client = Client()
    client.force_login(user)
    return user, client


def review_url(application) -> str:
    return reverse("admin:dashboard_activationapplication_review", args=[application.pk])


def document_url(application, name: str) -> str:
    return reverse("admin:dashboard_activationapplication_document", args=[application.pk, name])


def submitted(client, shop, **extra) -> ActivationApplication:
    answer = client.post(PAGE, {**BUSINESS, **BANK, **documents(), **extra, "action": "submit"})
    assert answer.status_code == 302, answer.content.decode()[:3000]
    application = ActivationApplication.objects.get(merchant=shop)
    assert application.status == "submitted"
    return application


def decide(client, application, decision: str, note: str = ""):
    return client.post(review_url(application), {"decision": decision, "note": note})


def actions(shop) -> list[str]:
    return list(
        AuditEntry.objects.filter(merchant=shop, action__startswith="activation.")
        .order_by("created_at", "id")
        .values_list("action", flat=True)
    )


# --- The owner's page ----------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "developer", "finance", "support", "viewer"])
def test_only_the_owner_may_see_or_send_the_application(shop, owner, role):
    member = make_member(shop, role)
    client = signed_in(member.user)
    assert client.get(PAGE).status_code == 403
    answer = client.post(PAGE, {**BUSINESS, **BANK, **documents(), "action": "submit"})
    assert answer.status_code == 403
    assert not ActivationApplication.objects.exists()
    assert not SettlementAccount.objects.exists()
    assert actions(shop) == []
    # Nor is the way there offered to them.
    home = client.get("/dashboard/test/").content.decode()
    assert PAGE not in home


def test_the_home_page_says_where_the_application_stands_and_what_is_missing(shop, owner_client):
    home = owner_client.get("/dashboard/test/").content.decode()
    assert 'data-status="none"' in home and PAGE in home
    owner_client.post(PAGE, {"legal_name": "Boutique Gombe SARL", "action": "save"})
    home = owner_client.get("/dashboard/test/").content.decode()
    assert 'data-status="draft"' in home
    assert "RCCM certificate" in home or "Certificat RCCM" in home
    assert "Legal name" not in home  # given already


def test_a_draft_is_saved_whole_or_partly_and_nothing_leaves_for_staff(shop, owner_client):
    answer = owner_client.post(
        PAGE, {**BUSINESS, "rccm_certificate": documents()["rccm_certificate"], "action": "save"}
    )
    assert answer.status_code == 302
    application = ActivationApplication.objects.get(merchant=shop)
    assert application.status == "draft"
    assert application.legal_name == "Boutique Gombe SARL"
    assert application.website == "https://facebook.com/boutiquegombe"
    assert application.monthly_volume == 2_500_000_000  # 25 000 000 francs, in minor units
    assert application.rccm_certificate.name.endswith(".pdf")
    assert "rccm" not in application.rccm_certificate.name.split("/")[-1]  # a name of ours
    assert not application.id_nat_certificate
    assert not SettlementAccount.objects.exists()
    assert actions(shop) == []
    page = owner_client.get(PAGE).content.decode()
    assert "Boutique Gombe SARL" in page
    assert application.rccm_certificate.url not in page  # received, never at an address


def test_submitting_an_incomplete_application_says_what_is_missing_and_keeps_the_draft(
    shop, owner_client
):
    owner_client.cookies["django_language"] = "en"
    answer = owner_client.post(
        PAGE, {**BUSINESS, "nif": "", **documents(representative_id=""), "action": "submit"}
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    alert = page[page.index('role="alert"') :]
    for words in ("Before you submit, add:", "NIF", "A settlement account", "identity document"):
        assert words in alert[:1000], words
    application = ActivationApplication.objects.get(merchant=shop)
    assert application.status == "draft" and application.rccm_certificate
    assert not SettlementAccount.objects.exists()


def test_a_program_named_pdf_is_refused_by_its_content(shop, owner_client):
    disguised = SimpleUploadedFile("rccm.pdf", EXE, "application/pdf")
    answer = owner_client.post(
        PAGE, {**BUSINESS, **documents(rccm_certificate=disguised), "action": "save"}
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    assert 'role="alert"' in page
    assert "PDF, JPEG" in page  # said in words
    assert (
        not ActivationApplication.objects.filter(merchant=shop)
        .exclude(rccm_certificate="")
        .exists()
    )


def test_a_document_over_5_mb_is_refused_and_one_of_5_mb_taken(shop, owner_client):
    limit = 5 * 1024 * 1024
    larger = SimpleUploadedFile("big.pdf", PDF + b"0" * (limit + 1 - len(PDF)), "application/pdf")
    answer = owner_client.post(PAGE, {**documents(rccm_certificate=larger), "action": "save"})
    assert answer.status_code == 200
    assert "larger than 5 MB" in answer.content.decode() or "5 Mo" in answer.content.decode()
    assert not ActivationApplication.objects.exclude(rccm_certificate="").exists()

    # Three documents of 5 MB each pass the body limit of this page (1 MB elsewhere).
    whole = {
        name: SimpleUploadedFile(f"{name}.pdf", PDF + b"0" * (limit - len(PDF)), "application/pdf")
        for name in ActivationApplication.DOCUMENTS
    }
    answer = owner_client.post(PAGE, {**whole, "action": "save"})
    assert answer.status_code == 302
    application = ActivationApplication.objects.get(merchant=shop)
    for name in ActivationApplication.DOCUMENTS:
        assert getattr(application, name).size == limit


def test_the_page_offers_the_documents_types_and_refuses_large_files_before_sending(
    shop, owner_client
):
    page = owner_client.get(PAGE).content.decode()
    assert page.count('accept=".pdf,.jpg,.jpeg,.png,application/pdf,image/jpeg,image/png"') == 3
    assert page.count(f'data-max-bytes="{5 * 1024 * 1024}"') == 3
    assert "dashboard/file-size.js" in page


# --- Submitted, decided --------------------------------------------------------------------------


def test_submit_changes_requested_resubmit_approve(
    shop, owner, owner_client, smtp_sink, django_capture_on_commit_callbacks
):
    owner_client.cookies["django_language"] = "en"
    application = submitted(owner_client, shop)
    assert application.language == "en"
    assert actions(shop) == ["activation.submitted"]

    # The settlement account is a live one now, held from the submission; its number is no
    # longer kept in the application.
    account = application.settlement_account
    assert account.livemode and account.type == "bank_account" and account.currency == "USD"
    assert account.account_number == "0501234567890123" and account.last4 == "0123"
    assert account.available_from >= timezone.now() + timedelta(seconds=172800 - 60)
    assert application.account_number == "" and application.account_type == ""

    # Submitted, the owner cannot change it.
    refused = owner_client.post(PAGE, {**BUSINESS, "legal_name": "Autre", "action": "save"})
    assert refused.status_code == 302
    application.refresh_from_db()
    assert application.legal_name == "Boutique Gombe SARL"

    user, staff = reviewer("reviewer", "payments.review_activation")
    queue = staff.get(reverse("admin:dashboard_activationapplication_changelist"))
    assert queue.status_code == 200 and "Boutique Gombe SARL" in queue.content.decode()
    page = staff.get(review_url(application))
    assert page.status_code == 200
    assert "0123" in page.content.decode() and "0501234567890123" not in page.content.decode()

    # Changes requested without a note: refused, nothing changes.
    assert decide(staff, application, "changes_requested").status_code == 200
    application.refresh_from_db()
    assert application.status == "submitted"

    note = "La copie du certificat Id. Nat. est illisible : envoyez un scan plus net."
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(staff, application, "changes_requested", note).status_code == 302
    application.refresh_from_db()
    assert application.status == "changes_requested" and application.decision_note == note
    message = smtp_sink.messages[-1]
    assert message["To"] == owner.user.email
    assert "changes needed" in message["Subject"]
    assert note in body_of(message)
    assert "https://pay.example.cd/dashboard/settings/activation/" in body_of(message)
    home = owner_client.get("/dashboard/test/").content.decode()
    assert 'data-status="changes_requested"' in home and "illisible" in home

    # The owner replaces the document and submits again, in French this time; the account
    # given before is kept, and still held from the first submission.
    owner_client.cookies["django_language"] = "fr"
    clearer = SimpleUploadedFile("idnat.png", PNG + b"\x01", "image/png")
    old_name = application.id_nat_certificate.name
    with django_capture_on_commit_callbacks(execute=True):
        answer = owner_client.post(
            PAGE, {**BUSINESS, "id_nat_certificate": clearer, "action": "submit"}
        )
    assert answer.status_code == 302
    application.refresh_from_db()
    assert application.status == "submitted" and application.language == "fr"
    assert application.id_nat_certificate.name != old_name
    assert not application.id_nat_certificate.storage.exists(old_name)
    assert application.settlement_account_id == account.pk
    assert SettlementAccount.objects.filter(merchant=shop, livemode=True).count() == 1

    with django_capture_on_commit_callbacks(execute=True):
        assert decide(staff, application, "approved").status_code == 302
    application.refresh_from_db()
    assert application.status == "approved" and application.decided_by == user
    assert Merchant.objects.get(pk=shop.pk).live_approved is True
    message = smtp_sink.messages[-1]
    assert "mode réel" in message["Subject"]  # in the language of the last submission
    assert "/dashboard/live/" in body_of(message)
    assert actions(shop) == [
        "activation.submitted",
        "activation.changes_requested",
        "activation.submitted",
        "activation.approved",
    ]
    decided = AuditEntry.objects.get(merchant=shop, action="activation.changes_requested")
    assert decided.email == "reviewer@example.cd" and decided.details_text() == note
    assert owner_client.get("/dashboard/live/").status_code == 200

    # Decided, it is decided once.
    assert decide(staff, application, "rejected", "Non").status_code == 200
    application.refresh_from_db()
    assert application.status == "approved"


def test_a_rejection_says_why_and_is_final(
    shop, owner, owner_client, smtp_sink, django_capture_on_commit_callbacks
):
    application = submitted(owner_client, shop)
    _user, staff = reviewer("reviewer", "payments.review_activation")
    assert decide(staff, application, "rejected").status_code == 200  # no reason: refused
    reason = "Le RCCM ne correspond pas à l'entreprise déclarée."
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(staff, application, "rejected", reason).status_code == 302
    application.refresh_from_db()
    assert application.status == "rejected" and application.decision_note == reason
    assert Merchant.objects.get(pk=shop.pk).live_approved is False
    message = smtp_sink.messages[-1]
    assert "n’a pas été approuvée" in message["Subject"]  # French, the default language
    assert reason in body_of(message)
    assert actions(shop) == ["activation.submitted", "activation.rejected"]
    page = owner_client.get(PAGE).content.decode()
    assert html.escape(reason) in page and 'name="action"' not in page  # no form any more
    assert owner_client.get("/dashboard/live/").status_code == 404


def test_a_settlement_account_typed_anew_replaces_the_one_given_before(shop, owner_client):
    application = submitted(owner_client, shop)
    first = application.settlement_account
    _user, staff = reviewer("reviewer", "payments.review_activation")
    decide(staff, application, "changes_requested", "Un compte en francs, s'il vous plaît.")
    wallet = {
        "account_type": "mobile_money",
        "account_currency": "CDF",
        "account_phone": "0812 345 678",
    }
    # The whole page is sent again, as a browser sends it: the business, and the new account.
    assert owner_client.post(PAGE, {**BUSINESS, **wallet, "action": "submit"}).status_code == 302
    application.refresh_from_db()
    second = application.settlement_account
    assert second.pk != first.pk
    assert (second.type, second.phone, second.network) == (
        "mobile_money",
        "+243812345678",
        "VODACOM_MPESA",
    )
    assert second.livemode and second.available_from > timezone.now()
    first.refresh_from_db()
    assert first.removed_at is not None


# --- The staff's side ----------------------------------------------------------------------------


def test_documents_are_streamed_to_reviewers_only(shop, owner_client):
    application = submitted(owner_client, shop)
    url = document_url(application, "rccm_certificate")

    _user, holder = reviewer("holder", "payments.review_activation")
    answer = holder.get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/pdf"
    assert "no-store" in answer["Cache-Control"]
    assert b"".join(answer.streaming_content) == PDF
    assert holder.get(document_url(application, "representative_id"))["Content-Type"] == (
        "image/jpeg"
    )

    # Staff who may see applications but not review them: no document, no decision.
    _user, viewer = reviewer("viewer", "dashboard.view_activationapplication")
    assert viewer.get(url).status_code == 403
    assert viewer.get(review_url(application)).status_code == 403
    assert decide(viewer, application, "approved").status_code == 403
    details = viewer.get(
        reverse("admin:dashboard_activationapplication_change", args=[application.pk])
    )
    assert details.status_code == 200 and url not in details.content.decode()
    application.refresh_from_db()
    assert application.status == "submitted"

    # Not staff: the owner, anyone signed in, no one signed in.
    assert owner_client.get(url).status_code == 403
    assert Client().get(url).status_code == 403
    assert holder.get(document_url(application, "nothing")).status_code == 404
    assert Merchant.objects.get(pk=shop.pk).live_approved is False


def test_the_queue_lists_submitted_applications_first(shop, other_shop, owner_client):
    application = submitted(owner_client, shop)
    ActivationApplication.objects.create(merchant=other_shop, legal_name="Pharmacie en brouillon")
    _user, staff = reviewer("reviewer", "payments.review_activation")
    page = staff.get(reverse("admin:dashboard_activationapplication_changelist")).content.decode()
    assert "Boutique Gombe SARL" in page and "Pharmacie en brouillon" not in page
    every = staff.get(
        reverse("admin:dashboard_activationapplication_changelist") + "?status=all"
    ).content.decode()
    assert "Pharmacie en brouillon" in every
    assert review_url(application) in page


def test_the_body_limit_of_the_documents_page_is_its_own(shop, owner_client, settings):
    """A body over 1 MB is refused before any view elsewhere (413), and taken on this page."""
    big = b"0" * (settings.MAX_REQUEST_BODY + 10)
    elsewhere = owner_client.post(
        "/dashboard/settings/business/", {"name": "x", "blob": io.BytesIO(big)}
    )
    assert elsewhere.status_code == 413
    here = owner_client.post(
        PAGE,
        {"rccm_certificate": SimpleUploadedFile("r.pdf", PDF + big, "application/pdf")},
    )
    assert here.status_code == 302  # saved as a draft


def test_the_server_reads_the_documents_page_body_whole_beyond_the_usual_limit(settings):
    """The WSGI layer (config/wsgi.py) reads a body before Django does: on this page up to
    MAX_UPLOAD_BODY, through a temporary file past MAX_REQUEST_BODY."""
    from core.api.middleware import request_bodies

    seen = {}

    def app(environ, start_response):
        seen["body"] = environ["wsgi.input"].read()
        seen["length"] = environ["CONTENT_LENGTH"]
        start_response("200 OK", [])
        return [b""]

    body = bytes(range(256)) * (settings.MAX_REQUEST_BODY * 6 // 256)
    assert settings.MAX_REQUEST_BODY < len(body) < settings.MAX_UPLOAD_BODY
    environ = {"PATH_INFO": PAGE, "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)}
    request_bodies(app)(environ, lambda *args: None)
    assert seen == {"body": body, "length": str(len(body))}
