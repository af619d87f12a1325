"""Staff load a statement and resolve a difference in a real browser, at 1280 px in French and
360 px in English."""

import pytest

from payments.models import ReconciliationResult, Statement
from tests.factories import staff_user, succeeded_mobile_money_charge
from tests.helpers import admin_sign_in, screenshot
from tests.payments.reconciliation.test_reconcile import line_of, statement_file

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_load_a_statement_and_resolve_a_difference(page, live_server, merchant, tmp_path):
    staff_user("staff", password="pw-123-long")
    charge = succeeded_mobile_money_charge(merchant, amount=250000)
    path = statement_file(tmp_path, [line_of(charge, status="failed", fee=2500)])

    page.set_viewport_size({"width": 1280, "height": 800})
    admin_sign_in(page, live_server.url, "/admin/payments/statement/")
    page.click("text=Charger un relevé d’opérateur")
    page.select_option("#id_network", "VODACOM_MPESA")
    page.select_option("#id_mode", "test")
    page.set_input_files("#id_file", str(path))
    page.click("input[value='Charger et rapprocher']")
    statement = Statement.objects.get()
    page.wait_for_selector(f"text=Relevé {statement.id} chargé : 1 écart(s) restent ouverts.")
    assert "Solde de clôture de l’opérateur" in page.content()
    screenshot(page, "reconciliation-statement-fr-1280")

    page.set_viewport_size({"width": 360, "height": 800})
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    page.goto(f"{live_server.url}/admin/payments/reconciliationresult/?state=open")
    result = ReconciliationResult.objects.get()
    page.check(f"input[name=_selected_action][value='{result.pk}']")
    page.select_option("select[name=action]", "resolve")
    page.click("button[name=index]")
    page.wait_for_selector("textarea[name=note]")
    page.fill("textarea[name=note]", "Operator ticket OP-12: the payment was reversed.")
    screenshot(page, "reconciliation-resolve-360")
    page.click("input[value='Resolve']")
    page.wait_for_selector("text=difference(s) resolved")
    screenshot(page, "reconciliation-results-360")
    result.refresh_from_db()
    assert result.resolved_by == "staff" and not result.is_open
