"""The payout batch's preview says one thing at a time: a file with problems gets no green
"read" banner above the red "cannot be submitted"; its corrected file, uploaded from the draft's
page, replaces the draft, which leaves the list; counts agree with their number (ngettext); each row shows its
description, in French and English. In headless Chromium at 360 px and 1280 px, and through the pages."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from batches import services
from batches.models import PayoutBatch
from tests.dashboard.pages.conftest import client_of, member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.dashboard.test_payout_batches_pages import BAD, BATCHES, GOOD, NEW, csv_of
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import screenshot

pytestmark = [pytest.mark.postgres]

CANNOT = {"fr": "2 problèmes empêchent de soumettre ce lot", "en": "2 problems keep this batch"}
READ = {"fr": "lu : vérifiez ses lignes", "en": "read: check its rows"}


@pytest.fixture
def funded(shop):
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    return shop


def upload_from(page, form: str, data: bytes) -> None:
    page.locator(f"form[data-action={form}] input[type=file]").set_input_files(
        files=[{"name": "salaires.csv", "mimeType": "text/csv", "buffer": data}]
    )
    page.locator(f"form[data-action={form}] button[type=submit]").click()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_file_with_problems_then_its_corrected_file(browser, live_server, funded, lang, width):
    user = member(funded, "finance", f"finance-preview-{lang}-{width}@example.com")
    context, page = signed_in_page(browser, live_server.url, user, language=lang, width=width)
    try:
        page.goto(f"{live_server.url}{NEW}")
        upload_from(page, "batch-upload", csv_of(BAD))
        page.wait_for_url(f"**{BATCHES}pob_*/")
        wrong = PayoutBatch.objects.get()
        assert CANNOT[lang] in page.get_by_role("alert").first.inner_text()
        assert page.locator(".messages").count() == 0  # no "read" banner
        assert fits(page)
        screenshot(page, f"batch-problems-{lang}-{width}")

        upload_from(page, "batch-replace", csv_of(GOOD))
        page.wait_for_function(f"!location.pathname.endsWith('/{wrong.id}/')")
        right = PayoutBatch.objects.get()  # the draft it replaced is gone
        assert right.id != wrong.id and page.url.endswith(f"{BATCHES}{right.id}/")
        assert READ[lang] in page.locator(".messages .success").inner_text()
        assert page.locator("form[data-action=batch-submit]").count() == 1
        # What each payout is for, as the file says it.
        assert page.locator("tbody [data-description]").all_inner_texts() == ["Salaire"] * 2
        screenshot(page, f"batch-corrected-{lang}-{width}")

        page.goto(f"{live_server.url}{BATCHES}")
        assert [row.get_attribute("data-id") for row in page.locator("tbody tr").all()] == [
            right.id
        ]
        assert page.goto(f"{live_server.url}{BATCHES}{wrong.id}/").status == 404
    finally:
        context.close()


@pytest.mark.django_db
def test_a_file_that_replaces_a_submitted_batch_leaves_it_alone(funded):
    """Only a draft is deleted: one submitted meanwhile by another member stays."""
    owner = member(funded, "owner", "owner-replace@example.com")
    client = client_of(owner)
    first = services.batch_create_from_file(
        merchant=funded, livemode=False, data=csv_of(GOOD), user_id=owner.pk
    )
    services.batch_submit(merchant=funded, livemode=False, batch_id=first.id, user_id=owner.pk)
    key = client.get(NEW).context["form"]["idempotency_key"].value()
    file = SimpleUploadedFile("salaires.csv", csv_of(["0812345009;100;CDF;;SAL-9;"]))
    answer = client.post(NEW, {"file": file, "idempotency_key": key, "replaces": first.id})
    assert answer.status_code == 302
    first.refresh_from_db()
    assert first.status == "awaiting_approval" and PayoutBatch.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", ["0 versement payé", "0 versement échoué", "2 versements en attente"]),
        ("en", ["0 payouts paid", "0 payouts failed", "2 payouts pending"]),
    ],
)
def test_the_counts_of_a_batch_being_paid_agree_with_their_number(funded, lang, said):
    owner = member(funded, "owner", f"owner-counts-{lang}@example.com")
    batch = services.batch_create_from_file(
        merchant=funded, livemode=False, data=csv_of(GOOD), user_id=owner.pk
    )
    services.batch_submit(merchant=funded, livemode=False, batch_id=batch.id, user_id=owner.pk)
    services.batch_approve(merchant=funded, livemode=False, batch_id=batch.id, user_id=owner.pk)
    services.batch_pay(batch_id=batch.id)
    page = client_of(owner).get(f"{BATCHES}{batch.id}/", HTTP_ACCEPT_LANGUAGE=lang)
    text = page.content.decode()
    for words in said:
        assert words in text
