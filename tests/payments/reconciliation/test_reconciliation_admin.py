"""The staff pages of reconciliation: loading a statement, its results, float and fees, the open
differences resolved with a note by staff holding payments.reconcile (403 without it), and the
CSV export."""

import csv
import io

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from core.money import format_amount
from payments import pricing
from payments.models import ReconciliationResult, Statement
from tests.factories import succeeded_mobile_money_charge, with_totp
from tests.payments.reconciliation.test_reconcile import line_of, statement_file

pytestmark = pytest.mark.django_db

LOAD = reverse("admin:payments_statement_load")
RESULTS = reverse("admin:payments_reconciliationresult_changelist")


@pytest.fixture
def charge(merchant):
    return succeeded_mobile_money_charge(merchant, amount=10000)


def upload(client, content: bytes, network="VODACOM_MPESA"):
    return client.post(
        LOAD,
        {
            "network": network,
            "mode": "test",
            "file": SimpleUploadedFile("day.csv", content, content_type="text/csv"),
        },
    )


def viewer(django_user_model, *codenames):
    user = with_totp(
        django_user_model.objects.create_user("viewer", password="pw-123-long", is_staff=True)
    )
    for codename in codenames:
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def test_staff_load_a_statement_and_read_its_results_float_and_fees(staff, charge, tmp_path):
    content = statement_file(tmp_path, [line_of(charge, status="failed", fee=120)]).read_bytes()
    answer = upload(staff, content)
    statement = Statement.objects.get()
    assert answer.status_code == 302 and answer.url.endswith(f"{statement.pk}/change/")
    page = staff.get(answer.url).content.decode()
    assert statement.id in page
    # Float and the operator's fees beside our merchants' (the charge's fee by its plan).
    with translation.override("fr"):
        shown = [format_amount(v, "CDF") for v in (120, pricing.charge_fee(charge), 10000 - 120)]
    for amount in shown:
        assert amount in page, amount
    assert staff.get(RESULTS + "?state=open").content.decode().count(charge.id) >= 1
    # Again: nothing changes.
    upload(staff, content)
    assert Statement.objects.count() == 1


def test_a_malformed_file_is_refused_in_words_on_the_page(staff, charge):
    answer = upload(staff, b"operator_reference\nX\n")
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "errornote" in text and not Statement.objects.exists()


def test_resolving_needs_the_permission_and_records_who_when_why(
    staff, charge, tmp_path, client, django_user_model
):
    upload(staff, statement_file(tmp_path, [line_of(charge, status="failed")]).read_bytes())
    result = ReconciliationResult.objects.get()
    assert result.is_open and result.needs_staff

    client.force_login(viewer(django_user_model, "view_reconciliationresult", "view_statement"))
    assert client.get(RESULTS).status_code == 200
    posted = client.post(
        RESULTS,
        {"action": "resolve", "_selected_action": [result.pk], "confirm": "yes", "note": "x"},
    )
    assert posted.status_code == 403
    assert client.get(LOAD).status_code == 403
    assert ReconciliationResult.objects.get().is_open

    page = staff.post(RESULTS, {"action": "resolve", "_selected_action": [result.pk]})
    assert page.status_code == 200 and 'name="note"' in page.content.decode()
    empty = staff.post(
        RESULTS, {"action": "resolve", "_selected_action": [result.pk], "confirm": "yes"}
    )
    assert empty.status_code == 200 and ReconciliationResult.objects.get().is_open
    done = staff.post(
        RESULTS,
        {
            "action": "resolve",
            "_selected_action": [result.pk],
            "confirm": "yes",
            "note": "Operator confirmed the payment; ticket OP-12.",
        },
    )
    assert done.status_code == 302
    result.refresh_from_db()
    assert not result.is_open
    assert (result.resolved_by, result.resolution_note) == (
        "staff",
        "Operator confirmed the payment; ticket OP-12.",
    )
    assert result.resolved_at is not None
    assert LogEntry.objects.filter(object_id=str(result.pk)).exists()


def test_results_export_as_csv(staff, charge, tmp_path):
    upload(staff, statement_file(tmp_path, [line_of(charge, amount=9000)]).read_bytes())
    result = ReconciliationResult.objects.get()
    answer = staff.post(RESULTS, {"action": "export_csv", "_selected_action": [result.pk]})
    assert answer.status_code == 200
    body = b"".join(answer.streaming_content).decode("utf-8-sig")
    [row] = list(csv.DictReader(io.StringIO(body)))
    assert (row["result"], row["object"], row["our_amount"], row["statement_amount"]) == (
        "amount_mismatch",
        charge.id,
        "10000",
        "9000",
    )
