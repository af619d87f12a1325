"""The payout batches' pages: a file uploaded into a draft, its preview with each row's problems
in words, submit, the second approver's rule, approve or reject, the batch followed while it is
paid and its results as CSV; the roles (docs/guides/dashboard.md: 403, nothing changed), another
merchant's batch
missing, each action audited once however often its form is sent."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from batches import services
from batches.models import BatchStatus, PayoutBatch
from batches.parsing import MAX_BYTES, FileRefused, parse_file
from dashboard.models import AuditEntry
from payments.models import Payout
from tests.dashboard.pages.conftest import ROLES, Members, client_of, member
from tests.factories import succeeded_mobile_money_charge

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

BATCHES = "/dashboard/test/payouts/batches/"
NEW = BATCHES + "new/"
PAYERS = ("owner", "admin", "finance")
HEADER = "phone;amount;currency;network;reference;description\r\n"
GOOD = ["0812345001;100,00;CDF;;SAL-1;Salaire", "0812345002;250;CDF;;SAL-2;Salaire"]
BAD = ["0812;100;CDF;;SAL-1;", "0812345002;douze;CDF;;SAL-2;", "0812345003;100;CDF;;SAL-3;"]


def csv_of(lines: list[str]) -> bytes:
    return ("\ufeff" + HEADER + "".join(line + "\r\n" for line in lines)).encode()


def upload(client, data: bytes, *, key: str | None = None, lang: str = "fr"):
    if key is None:
        key = client.get(NEW).context["form"]["idempotency_key"].value()
    file = SimpleUploadedFile("salaires.csv", data, content_type="text/csv")
    return client.post(NEW, {"file": file, "idempotency_key": key}, HTTP_ACCEPT_LANGUAGE=lang)


def action(client, batch, name: str, lang: str = "fr"):
    return client.post(f"{BATCHES}{batch.id}/{name}/", HTTP_ACCEPT_LANGUAGE=lang)


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def funded(shop):
    succeeded_mobile_money_charge(shop, amount=1_000_000)  # 10 000 CDF available
    return shop


@pytest.fixture
def clients(funded) -> Members:
    return Members(funded)


def draft(client, lines=GOOD) -> PayoutBatch:
    answer = upload(client, csv_of(lines))
    batch = PayoutBatch.objects.order_by("-created_at").first()
    assert answer.status_code == 302
    assert answer["Location"] == f"{BATCHES}{batch.id}/"
    return batch


def test_a_good_file_is_previewed_submitted_approved_paid_and_its_results_downloaded(clients):
    finance, owner = clients["finance"], clients["owner"]
    batch = draft(finance)
    page = finance.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE="fr")
    assert page.status_code == 200 and batch.status == BatchStatus.DRAFT
    assert page.context["preview"]["submittable"]
    ((total),) = page.context["preview"]["totals"]
    assert (total["currency"], total["amount"], total["available"]) == ("CDF", 35000, 1_000_000)
    assert b'data-action="batch-submit"' in page.content
    assert "350,00" in page.content.decode()

    assert action(finance, batch, "submit").status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL
    assert action(owner, batch, "approve").status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.PROCESSING
    shown = owner.get(f"{BATCHES}{batch.id}/")
    assert b'hx-trigger="every 3s"' in shown.content  # polled while processing
    assert b"htmx" in shown.content

    assert services.batch_pay(batch_id=batch.id) == 2  # the worker's task, run here
    live = owner.get(f"{BATCHES}{batch.id}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="batch-live")
    assert live.templates[0].name == "dashboard/batches/_live.html"
    assert live.context["counts"] == {"total": 2, "pending": 2, "succeeded": 0, "failed": 0}
    payouts = list(batch.items.order_by("row").values_list("payout_id", flat=True))
    assert Payout.objects.filter(pk__in=payouts).count() == 2
    assert all(payout.encode() in live.content for payout in payouts)

    results = owner.get(f"{BATCHES}{batch.id}/results.csv")
    assert results.status_code == 200 and results["Content-Type"].startswith("text/csv")
    text = b"".join(results.streaming_content).decode()
    table = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    assert table[0][-3:] == ["payout_id", "status", "failure_code"]
    assert [line[-3:-1] for line in table[1:]] == [[payouts[0], "pending"], [payouts[1], "pending"]]

    actions = AuditEntry.objects.filter(object_id=batch.id).values_list("action", flat=True)
    assert sorted(actions) == ["payout_batch.approved", "payout_batch.submitted"]
    listed = owner.get(BATCHES)
    assert batch.id.encode() in listed.content and b"350,00" in listed.content


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_file_with_problems_shows_them_in_words_and_cannot_be_submitted(clients, lang):
    finance = clients["finance"]
    batch = draft(finance, BAD)
    page = finance.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    problems = {item.row: item.problems for item in batch.items.all()}
    assert [len(problems[row]) for row in (2, 3, 4)] == [1, 1, 0]
    for found in problems[2] + problems[3]:
        assert escape(found["messages"][lang]) in page
    assert {"fr": "Ligne 2, téléphone", "en": "Row 2, phone"}[lang] in page
    assert {"fr": "2 problèmes", "en": "2 problems"}[lang] in page
    assert 'data-action="batch-submit"' not in page  # no button

    forced = action(finance, batch, "submit", lang)
    assert forced.status_code == 400
    assert {"fr": "problèmes", "en": "problems"}[lang] in forced.content.decode()
    batch.refresh_from_db()
    assert batch.status == BatchStatus.DRAFT
    assert not batch.items.filter(reference_held=True).exists()
    assert not AuditEntry.objects.filter(action="payout_batch.submitted").exists()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_file_that_cannot_be_read_is_refused_in_words(clients, lang, settings):
    finance = clients["finance"]
    # A file just over the 1 MB a batch takes, sent with the service's own limits: its form is
    # within MAX_REQUEST_BODY, so the page says why it is refused.
    too_large = csv_of(GOOD) + b"x" * (MAX_BYTES + 1 - len(csv_of(GOOD)))
    assert len(too_large) == MAX_BYTES + 1
    # A NUL character, which no spreadsheet writes and PostgreSQL keeps nowhere.
    nul = b"phone;amount;currency;reference\r\n0812345678;10;CDF;SAL\x00-1\r\n"
    for data in (b"nom;montant\r\nAmani;10\r\n", too_large, nul):
        with pytest.raises(FileRefused) as refused:
            parse_file(data)
        answer = upload(finance, data, lang=lang)
        assert answer.status_code == 400
        assert escape(refused.value.problem.messages[lang]) in answer.content.decode()
    # A body over MAX_REQUEST_BODY is refused by the service before any view (413,
    # docs/guides/errors.md).
    larger = csv_of(GOOD) + b"x" * settings.MAX_REQUEST_BODY
    assert upload(finance, larger, lang=lang).status_code == 413
    assert not PayoutBatch.objects.exists()


def test_an_upload_sent_twice_makes_one_batch(clients):
    finance = clients["finance"]
    key = finance.get(NEW).context["form"]["idempotency_key"].value()
    first = upload(finance, csv_of(GOOD), key=key)
    second = upload(finance, csv_of(GOOD), key=key)
    assert first["Location"] == second["Location"]
    assert PayoutBatch.objects.count() == 1


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fr", ["Pris sur le solde · CDF", "data-taken>355,25 CDF</p>",
                "Versé : 350,00 CDF ; frais : 5,25 CDF", "Disponible : 10 000,00 CDF"]),
        ("en", ["Taken from the balance · CDF", "data-taken>355.25 CDF</p>",
                "Paid out: 350.00 CDF; fees: 5.25 CDF", "Available: 10,000.00 CDF"]),
    ],
)  # fmt: skip
def test_the_preview_shows_the_fees_and_what_the_batch_takes(clients, settings, lang, words):
    settings.PRICING_DEFAULT = [
        {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 150}
    ]
    finance = clients["finance"]
    batch = draft(finance)  # 100 CDF and 250 CDF: 1.50 + 3.75 CDF of fees
    page = finance.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang)
    ((total),) = page.context["preview"]["totals"]
    assert (total["amount"], total["fee"], total["taken"]) == (35000, 525, 35525)
    shown = page.content.decode().replace("\xa0", " ").replace("\u202f", " ")
    for expected in words:
        assert expected in shown
    assert 'href="/dashboard/settings/pricing/"' in shown


def test_an_approval_the_fees_would_overdraw_is_refused_in_words(shop, settings):
    succeeded_mobile_money_charge(shop, amount=35000)  # exactly the batch, before fees
    settings.PRICING_DEFAULT = [
        {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 150}
    ]
    owner = Members(shop)["owner"]  # the one member who may pay out approves alone
    batch = draft(owner)
    action(owner, batch, "submit")
    refused = action(owner, batch, "approve", "en")
    assert refused.status_code == 400
    assert (
        "The available CDF balance is 350.00 CDF, less than the 355.25 CDF this payout batch "
        "takes: 350.00 CDF paid out and 5.25 CDF in fees."
    ) in refused.content.decode()
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL and not Payout.objects.exists()


def test_the_second_approver_must_be_another_member_with_the_payout_right(clients):
    submitter = clients["finance"]
    clients["owner"]  # two members with the payout right: a second approver is required
    batch = draft(submitter)
    action(submitter, batch, "submit")
    page = submitter.get(f"{BATCHES}{batch.id}/")
    assert b'data-action="batch-approve"' not in page.content
    refused = action(submitter, batch, "approve", "en")
    assert refused.status_code == 403
    assert b"another member who may pay out must approve it" in refused.content
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL
    assert not AuditEntry.objects.filter(action="payout_batch.approved").exists()

    assert action(clients["viewer"], batch, "approve").status_code == 403
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL

    other = client_of(member(batch.merchant, "finance", "finance-deux@example.com"))
    assert b'data-action="batch-approve"' in other.get(f"{BATCHES}{batch.id}/").content
    assert action(other, batch, "approve").status_code == 302
    again = action(other, batch, "approve")  # the form sent twice
    assert again.status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.PROCESSING
    assert AuditEntry.objects.filter(action="payout_batch.approved").count() == 1
    assert (
        AuditEntry.objects.get(action="payout_batch.approved").email == "finance-deux@example.com"
    )


def test_a_rejected_batch_pays_nothing(clients):
    finance = clients["finance"]
    batch = draft(finance)
    action(finance, batch, "submit")
    assert action(clients["admin"], batch, "reject").status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.REJECTED
    assert action(clients["admin"], batch, "approve").status_code == 302  # shows its state
    batch.refresh_from_db()
    assert batch.status == BatchStatus.REJECTED
    assert not Payout.objects.exists()
    assert list(AuditEntry.objects.filter(object_id=batch.id).values_list("action", flat=True))
    assert AuditEntry.objects.filter(action="payout_batch.rejected", object_id=batch.id).exists()
    page = finance.get(f"{BATCHES}{batch.id}/").content
    assert b'data-action="batch-approve"' not in page and b'data-action="batch-reject"' not in page


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_batches_and_only_payers_act_on_them(clients, role):
    batch = draft(clients["owner"])
    client = clients[role]
    assert client.get(BATCHES).status_code == 200
    page = client.get(f"{BATCHES}{batch.id}/")
    assert page.status_code == 200
    assert (b'data-action="batch-submit"' in page.content) == (role in PAYERS)
    assert (b"/payouts/batches/new/" in client.get(BATCHES).content) == (role in PAYERS)
    assert b"/payouts/batches/" in client.get("/dashboard/test/payouts/").content
    if role in PAYERS:
        assert upload(client, csv_of(["0812345009;10;CDF;;X-1;"])).status_code == 302
        assert client.get(f"{BATCHES}{batch.id}/results.csv").status_code == 200
        return
    assert client.get(NEW).status_code == 403
    assert upload(client, csv_of(GOOD), key="dash_role").status_code == 403
    for name in ("submit", "approve", "reject"):
        assert action(client, batch, name).status_code == 403
    assert client.get(f"{BATCHES}{batch.id}/results.csv").status_code == 403
    assert PayoutBatch.objects.count() == 1
    batch.refresh_from_db()
    assert batch.status == BatchStatus.DRAFT
    assert not AuditEntry.objects.filter(action__startswith="payout_batch.").exists()


def test_another_merchants_batch_and_the_other_modes_are_missing(clients, other_shop):
    theirs = services.batch_create_from_file(
        merchant=other_shop, livemode=False, data=csv_of(GOOD), filename="a.csv"
    )
    owner = clients["owner"]
    assert owner.get(f"{BATCHES}{theirs.id}/").status_code == 404
    for name in ("submit", "approve", "reject"):
        assert action(owner, theirs, name).status_code == 404
    assert owner.get(f"{BATCHES}{theirs.id}/results.csv").status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == BatchStatus.DRAFT
    assert f'data-id="{theirs.id}"'.encode() not in owner.get(BATCHES).content

    ours = draft(owner)
    ours.merchant.live_approved = True
    ours.merchant.save(update_fields=["live_approved"])
    assert owner.get(f"/dashboard/live/payouts/batches/{ours.id}/").status_code == 404
    assert f'data-id="{ours.id}"'.encode() in owner.get(BATCHES).content
    assert (
        f'data-id="{ours.id}"'.encode() not in owner.get("/dashboard/live/payouts/batches/").content
    )


def test_live_mode_asks_for_two_factor_before_acting(clients):
    owner = clients["owner"]
    owner_user = owner.session["_auth_user_id"]
    batch = services.batch_create_from_file(
        merchant=clients.merchant, livemode=True, data=csv_of(GOOD), user_id=owner_user
    )
    clients.merchant.live_approved = True
    clients.merchant.save(update_fields=["live_approved"])
    answer = owner.post(f"/dashboard/live/payouts/batches/{batch.id}/submit/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/2fa/")
    batch.refresh_from_db()
    assert batch.status == BatchStatus.DRAFT


# One phone on rows 2 and 4 (written two ways), another on row 3 only.
TWICE = [
    "0812345001;100;CDF;;SAL-1;Salaire",
    "0812345002;250;CDF;;SAL-2;Salaire",
    "+243 812 345 001;50;CDF;;PRIME-1;Prime",
]
SAID_TWICE = {
    "fr": "Les lignes 2 et 4 paient toutes le +243812345001 : vérifiez que cette personne doit "
    "bien être payée 2 fois avant de soumettre le lot.",
    "en": "Rows 2 and 4 all pay +243812345001: check that this person is to be paid 2 times "
    "before you submit the batch.",
}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_phone_paid_on_several_rows_is_a_warning_in_words_not_a_problem(clients, lang):
    finance = clients["finance"]
    batch = draft(finance, TWICE)
    page = finance.get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang)
    assert page.context["preview"]["warnings"] == [SAID_TWICE[lang]]
    assert escape(SAID_TWICE[lang]) in page.content.decode()
    # The uploader decides: the batch may be submitted all the same.
    assert page.context["preview"]["submittable"]
    assert b'data-action="batch-submit"' in page.content
    assert action(finance, batch, "submit").status_code == 302
    batch.refresh_from_db()
    assert batch.status == BatchStatus.AWAITING_APPROVAL
    # A batch paying each phone once says nothing of the kind.
    other = draft(finance, GOOD)
    page = finance.get(f"{BATCHES}{other.id}/", HTTP_ACCEPT_LANGUAGE=lang)
    assert page.context["preview"]["warnings"] == [] and b"data-warnings" not in page.content


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("lang", "width"), [("fr", 360), ("en", 1280)])
def test_the_warning_of_a_phone_paid_twice_in_the_browser(
    browser, live_server, funded, axe_source, lang, width
):
    from tests.dashboard.pages.test_browser import fits, signed_in_page
    from tests.helpers import axe_violations, screenshot

    user = member(funded, "finance", f"finance-{lang}@example.com")
    context, page = signed_in_page(browser, live_server.url, user, language=lang)
    try:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}{NEW}")
        page.locator("#id_file").set_input_files(
            files=[{"name": "salaires.csv", "mimeType": "text/csv", "buffer": csv_of(TWICE)}]
        )
        page.locator("form[data-action=batch-upload] button[type=submit]").click()
        page.wait_for_url(f"**{BATCHES}pob_*/")
        assert page.locator("[data-warnings] li").all_inner_texts() == [SAID_TWICE[lang]]
        assert page.locator("form[data-action=batch-submit]").count() == 1
        assert fits(page)
        screenshot(page, f"dashboard-payout-batch-phone-twice-{lang}-{width}")
        assert axe_violations(page, axe_source) == []
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_upload_and_preview_at_360px_in_french(browser, live_server, funded, axe_source):
    from tests.dashboard.pages.test_browser import fits, signed_in_page
    from tests.helpers import axe_violations, screenshot

    user = member(funded, "finance", "finance-navigateur@example.com")
    context, page = signed_in_page(browser, live_server.url, user, language="fr")
    try:
        page.goto(f"{live_server.url}{NEW}")
        assert page.get_by_role("heading", level=1).inner_text() == "Nouveau lot de versements"
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        # A file over 1 MB is refused in words before it is sent (past the service's body limit,
        # the proxy would answer a bare 413).
        too_large = csv_of(GOOD) + b"\n" * (2 * 1024 * 1024)
        page.locator("#id_file").set_input_files(
            files=[{"name": "salaires.csv", "mimeType": "text/csv", "buffer": too_large}]
        )
        said = page.locator("#id_file ~ [role=alert]")
        assert said.inner_text() == "Le fichier dépasse 1 Mo : répartissez-le en plusieurs lots."
        page.locator("form[data-action=batch-upload] button[type=submit]").click()
        assert page.evaluate("document.getElementById('id_file').validity.customError")
        assert page.url == f"{live_server.url}{NEW}"
        assert fits(page)
        screenshot(page, "dashboard-payout-batch-too-large-fr")
        assert not PayoutBatch.objects.exists()
        page.locator("#id_file").set_input_files(
            files=[{"name": "salaires.csv", "mimeType": "text/csv", "buffer": csv_of(BAD)}]
        )
        assert said.is_hidden()
        page.locator("form[data-action=batch-upload] button[type=submit]").click()
        page.wait_for_url(f"**{BATCHES}pob_*/")
        assert page.locator("tbody tr.has-problems").count() == 2
        assert "2 problèmes empêchent" in page.get_by_role("alert").first.inner_text()
        assert page.locator("form[data-action=batch-submit]").count() == 0
        assert page.locator("form[data-action=batch-reject]").count() == 1
        assert fits(page)
        screenshot(page, "dashboard-payout-batch-preview-fr")
        assert axe_violations(page, axe_source) == []
    finally:
        context.close()


@pytest.mark.parametrize(
    ("lang", "header", "name"),
    [
        ("fr", "téléphone;montant;devise;réseau;référence;description", "modele-lot-de-paiements"),
        ("en", "phone,amount,currency,network,reference,description", "payout-batch-template"),
    ],
)
def test_the_template_is_offered_in_the_pages_language_and_reads_back(
    funded, clients, lang, header, name
):
    owner = clients["owner"]
    page = owner.get(NEW, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert 'href="/dashboard/test/payouts/batches/template.csv"' in page
    answer = owner.get(BATCHES + "template.csv", HTTP_ACCEPT_LANGUAGE=lang)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="{name}.csv"'
    text = answer.content.decode("utf-8")
    assert text.startswith("\ufeff" + header + "\r\n")
    rows = text.splitlines()[1:]
    assert len(rows) == 2 and all("0812 345 678" in r or "0991 234 567" in r for r in rows)
    # Sent back as it came (a spreadsheet saves it so), it is a batch of two payouts to check.
    assert upload(owner, answer.content, lang=lang).status_code == 302
    batch = PayoutBatch.objects.order_by("-created_at").first()
    assert [(r.phone, r.amount, r.currency, r.problems) for r in batch.items.order_by("row")] == [
        ("+243812345678", 2_500_000, "CDF", []),
        ("+243991234567", 1500, "USD", []),
    ]
    # Every role that sees batches may take the template.
    assert clients["viewer"].get(BATCHES + "template.csv").status_code == 200
