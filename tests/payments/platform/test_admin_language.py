"""The French admin reads as French: amounts in the active language's number format, and page
titles that name each model the admin shows without a missing elision ("Affichage de
encaissement")."""

import re

import pytest
from django.apps import apps
from django.contrib import admin

from messaging.services import sms_receipts_set
from tests.factories import (
    close_network,
    live_bank_settlement,
    one_of_everything,
    statement_with_a_difference,
)
from tests.helpers import admin_url

pytestmark = pytest.mark.django_db

OURS = ("payments", "checkout", "webhooks", "messaging")


def titles(html: str) -> list[str]:
    """The page's <title> and its <h1>s, their whitespace made plain."""
    found = re.findall(r"<title>(.*?)</title>", html, re.S) + re.findall(
        r"<h1>(.*?)</h1>", html, re.S
    )
    return [" ".join(text.replace("\xa0", " ").split()) for text in found]


def test_every_model_page_names_its_model_without_a_missing_elision(staff, merchant):
    one_of_everything(merchant, webhook_url="https://shop.example.cd/hooks")
    close_network("ORANGE_MONEY")
    live_bank_settlement(merchant)  # and its settlement account
    statement_with_a_difference()
    sms_receipts_set(merchant=merchant, enabled=True)
    shown = [
        model
        for model in apps.get_models()
        if model._meta.app_label in OURS and admin.site.is_registered(model)
    ]
    assert len(shown) >= 9
    for model in shown:
        obj = model.objects.first()
        assert obj is not None, model
        page = staff.get(admin_url(obj), HTTP_ACCEPT_LANGUAGE="fr")
        assert page.status_code == 200, model
        heading = titles(page.text)
        name = str(model._meta.verbose_name)
        assert any(name in text for text in heading), (model, heading)
        for text in heading:
            assert not re.search(r"\b[dD]e [aeiouyéèêAEIOUYÉ]", text), (model, text)
    charge = apps.get_model("payments", "Charge").objects.first()
    assert "Affichage : encaissement" in titles(staff.get(admin_url(charge)).text)[0]


def test_admin_amounts_follow_the_staffs_language(staff, merchant):
    paid = one_of_everything(merchant, webhook_url="https://shop.example.cd/hooks")["paid"]
    french = staff.get(admin_url(paid), HTTP_ACCEPT_LANGUAGE="fr").text
    assert "2\xa0500,00 CDF" in french and "2,500.00 CDF" not in french
    english = staff.get(admin_url(paid), HTTP_ACCEPT_LANGUAGE="en").text
    assert "2,500.00 CDF" in english and "2\xa0500,00" not in english
    ledger = staff.get("/admin/payments/ledgerentry/", HTTP_ACCEPT_LANGUAGE="fr").text
    assert "2\xa0500,00 CDF" in ledger
