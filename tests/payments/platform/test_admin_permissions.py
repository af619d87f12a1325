"""Seeing is not changing: every action of every page of the staff site, walked over the models
the site registers, needs a permission beyond seeing, which the table below names. A staff member
who may only see is not offered any of them, and one posted anyway changes nothing (403 on the
service's own pages); holding the named permission is what offers it, and then it does change
something. Issuing an API key needs its own permission (payments.issue_apikey), which changing
merchants does not give. The pages an admin adds beside Django's own (get_urls) are listed here
too, with the permission each needs, and a staff member who may only see is refused them."""

import re

import pytest
from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.core.files.base import ContentFile
from django.test import Client, RequestFactory
from django.urls import reverse

from batches.services import batch_create_approved
from checkout.services import session_attempt_create
from dashboard.models import ActivationApplication
from links.services import link_create, link_open_session
from messaging.services import sms_receipts_set
from payments.models import ApiKey
from payments.services.refunds import refund_create
from tests.factories import (
    close_network,
    exported_bank_settlement,
    live_bank_settlement,
    make_session,
    payout_waiting_for_staff,
    record_event,
    sent_charge,
    settle,
    statement_with_a_difference,
    succeeded_mobile_money_charge,
    with_totp,
)
from tests.helpers import admin_url, set_webhook_url

pytestmark = pytest.mark.django_db

OUR_APPS = {"payments", "checkout", "links", "webhooks", "sandbox", "batches"}

# Every action the staff site offers, by model, and the permission that offers it.
NEEDS = {
    ("payments.merchant", "issue_test_key"): "payments.issue_apikey",
    ("payments.merchant", "issue_live_key"): "payments.issue_apikey",
    ("payments.merchant", "rotate_test_webhook_secret"): "webhooks.change_webhookendpoint",
    ("payments.merchant", "rotate_live_webhook_secret"): "webhooks.change_webhookendpoint",
    ("payments.merchant", "delete_selected"): "payments.delete_merchant",
    ("payments.apikey", "revoke"): "payments.change_apikey",
    ("payments.apikey", "delete_selected"): "payments.delete_apikey",
    ("payments.charge", "check_status_now"): "payments.change_charge",
    ("payments.charge", "give_back_again"): "payments.change_refund",
    ("payments.refund", "check_with_provider"): "payments.change_refund",
    ("payments.refund", "mark_succeeded"): "payments.change_refund",
    ("payments.refund", "mark_failed"): "payments.change_refund",
    ("payments.payout", "check_with_operator"): "payments.change_payout",
    ("payments.payout", "mark_succeeded"): "payments.change_payout",
    ("payments.payout", "mark_failed"): "payments.change_payout",
    ("payments.networkstate", "reopen"): "payments.change_networkstate",
    ("payments.settlement", "export_bank_file"): "payments.send_settlement",
    ("payments.settlement", "mark_paid"): "payments.send_settlement",
    ("payments.settlement", "mark_failed"): "payments.send_settlement",
    ("payments.reconciliationresult", "resolve"): "payments.reconcile",
    ("payments.reconciliationresult", "export_csv"): "payments.reconcile",
    ("webhooks.event", "resend"): "webhooks.add_delivery",
    ("webhooks.delivery", "delete_selected"): "webhooks.delete_delivery",
    ("auth.user", "delete_selected"): "auth.delete_user",
    ("auth.group", "delete_selected"): "auth.delete_group",
    # The dashboard's accounts (django-allauth): staff verify an address, or remove a lost
    # authenticator app so that its owner can sign in and set up a new one.
    ("account.emailaddress", "make_verified"): "account.change_emailaddress",
    ("account.emailaddress", "delete_selected"): "account.delete_emailaddress",
    ("mfa.authenticator", "delete_selected"): "mfa.delete_authenticator",
}

# Pages an admin adds beside Django's own five (list, add, change, delete, history), by URL name,
# with the permission each needs; each is the page of one object of its admin's model, addressed
# by its id unless ADDRESSED_BY names the field that addresses it. A new one is listed here, and
# so tested.
EXTRA_PAGES = {
    "auth_user_password_change": "auth.change_user",
    "payments_settlement_bank_file": "payments.send_settlement",
    "payments_merchant_pricing": "payments.change_pricing",
    "payments_fees_earned": "payments.view_ledgerentry",
    "payments_statement_load": "payments.reconcile",  # an operator's statement loaded by staff
    # An application for live mode: its review (the decision) and its documents.
    "dashboard_activationapplication_review": "payments.review_activation",
    "dashboard_activationapplication_document": "payments.review_activation",
}
# Pages a staff member who may only see reads too, without changing anything through them: the
# price plan (its form posts need payments.change_pricing) and the fees earned (a report).
READ_BY_VIEWERS = {"payments_merchant_pricing", "payments_fees_earned"}
ADDRESSED_BY = {"payments_settlement_bank_file": "bank_file"}  # a bank transfer file
NOT_ADDRESSED = {"payments_fees_earned", "payments_statement_load"}  # pages of no one object
# What such a page's address takes after the object's id.
EXTRA_ARGUMENTS = {"dashboard_activationapplication_document": ["rccm_certificate"]}


def registered() -> dict:
    """Every model the staff site registers, by label, with its ModelAdmin."""
    return {
        model._meta.label_lower: admin.site.get_model_admin(model)
        for model in apps.get_models()
        if admin.site.is_registered(model)
    }


def all_actions() -> set[tuple[str, str]]:
    """Every action some staff member can be offered: what a superuser is offered."""
    request = RequestFactory().get("/")
    request.user = get_user_model()(is_superuser=True, is_staff=True, is_active=True)
    return {
        (label, name)
        for label, model_admin in registered().items()
        for name in model_admin.get_actions(request)
    }


def everything() -> dict:
    """What every table holds (but the login sessions): a request that changed nothing leaves it
    equal."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models()
        if model is not Session
    }


def staff_member(name: str, *perms: str) -> Client:
    """A staff member who may see everything and do only `perms` ("app.codename")."""
    user = with_totp(
        get_user_model().objects.create_user(name, password="pw-123-long", is_staff=True)
    )
    granted = Permission.objects.filter(codename__startswith="view_")
    for perm in perms:
        app_label, codename = perm.split(".")
        granted |= Permission.objects.filter(content_type__app_label=app_label, codename=codename)
    user.user_permissions.set(granted)
    client = Client()
    client.force_login(user)
    return client


def changelist(label: str) -> str:
    return reverse("admin:{}_{}_changelist".format(*label.split(".")))


def offered(client: Client, label: str) -> set[str]:
    page = client.get(changelist(label))
    assert page.status_code == 200
    return set(re.findall(r'<option value="(\w+)"', page.content.decode()))


def run(client: Client, label: str, action: str):
    """The action posted on every row of the list, confirmed if it asks."""
    model = apps.get_model(label)
    rows = [str(pk) for pk in model.objects.values_list("pk", flat=True)]
    assert rows, f"nothing of {label} to run {action} on"
    # The bank's answer (its reference, or why it did not pay) that settlements' actions ask for.
    answers = {f"answer-{row}": "FT2612345" for row in rows}
    return client.post(
        changelist(label),
        {
            "action": action,
            "index": 0,
            "_selected_action": rows,
            "confirm": "yes",
            "post": "yes",
            **answers,
        },
    )


@pytest.fixture
def world(merchant, settings, tmp_path):
    """One of each thing an action works on, in the state in which the action does something."""
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3600  # the sandbox operator answers pending for now
    settings.MEDIA_ROOT = tmp_path / "media"
    application = ActivationApplication(
        merchant=merchant, legal_name="Boutique", status="submitted"
    )
    application.rccm_certificate.save("rccm.pdf", ContentFile(b"%PDF-1.7\n"), save=False)
    application.save()
    set_webhook_url(merchant, "https://shop.example.cd/hooks")
    succeeded_mobile_money_charge(merchant, amount=100000)
    paid = succeeded_mobile_money_charge(merchant, amount=250000)
    refund_create(charge=paid, amount=2000, metadata={"sandbox_refund": "pending"})
    sent_charge(merchant)
    payout_waiting_for_staff(merchant, amount=7000)
    close_network("AIRTEL_MONEY")
    record_event(merchant, url="https://shop.example.cd/hooks")
    make_session(merchant)
    link = link_create(
        merchant=merchant, livemode=False, currency="CDF", description="Riz", amount=5000
    )
    settle(
        session_attempt_create(
            session_id=link_open_session(link=link, customer_email="client@example.cd").id,
            payment_method="mobile_money",
            phone="+243812345678",
            network="VODACOM_MPESA",
        ),
        "succeeded",
    )  # a payment link, and the receipt of its payment
    item = {"phone": "+243812345678", "amount": 1000, "currency": "CDF", "network": "VODACOM_MPESA"}
    batch_create_approved(merchant=merchant, livemode=False, items=[{**item, "reference": "A-1"}])
    exported_bank_settlement(merchant, staff="exporter")  # for the bank's answer
    live_bank_settlement(merchant)  # for a bank transfer file
    statement_with_a_difference()  # and its difference for staff to resolve
    sms_receipts_set(merchant=merchant, enabled=True)  # the merchant's choice, recorded
    Group.objects.create(name="support")
    member = get_user_model().objects.create_user("member", "member@example.cd", "pw-123-long")
    EmailAddress.objects.create(user=member, email=member.email, verified=False, primary=True)
    Authenticator.objects.create(user=member, type=Authenticator.Type.TOTP, data={})
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0  # asked again, the sandbox operator has an answer
    return merchant


def test_the_table_names_every_action_of_the_staff_site():
    assert all_actions() == set(NEEDS)


@pytest.mark.parametrize(("label", "action"), sorted(NEEDS))
def test_an_action_needs_its_permission(world, label, action):
    viewer = staff_member("viewer")
    assert action not in offered(viewer, label)
    before = everything()
    refused = run(viewer, label, action)
    if label.split(".")[0] in OUR_APPS:
        assert refused.status_code == 403
    assert everything() == before

    holder = staff_member("holder", NEEDS[label, action])
    assert action in offered(holder, label)
    if action == "delete_selected":
        return  # Django's own action; what it deletes depends on what the rows hold
    done = run(holder, label, action)
    assert done.status_code in (200, 302)
    assert everything() != before


def test_changing_merchants_does_not_give_keys(world):
    editor = staff_member("editor", "payments.change_merchant", "payments.change_apikey")
    assert {"issue_test_key", "issue_live_key"}.isdisjoint(offered(editor, "payments.merchant"))
    before = ApiKey.objects.count()
    assert run(editor, "payments.merchant", "issue_live_key").status_code == 403
    assert ApiKey.objects.count() == before


def test_the_permission_to_issue_keys_issues_a_live_key_shown_once(world):
    issuer = staff_member("issuer", "payments.issue_apikey")
    assert {"issue_test_key", "issue_live_key"} <= offered(issuer, "payments.merchant")
    assert "rotate_live_webhook_secret" not in offered(issuer, "payments.merchant")
    before = ApiKey.objects.filter(merchant=world, mode="live").count()
    page = run(issuer, "payments.merchant", "issue_live_key")
    assert page.status_code == 200
    assert re.findall(r"<code data-key>sk_live_[A-Za-z0-9]+</code>", page.content.decode())
    assert ApiKey.objects.filter(merchant=world, mode="live").count() == before + 1


def test_a_page_that_only_shows_changes_nothing_when_posted(world):
    """Django's own pages of each model: a staff member who may only see gets a read-only page,
    and a POST to add, change or delete answers 403 and changes nothing; nor does a list whose
    columns are editable (merchants' live approval and card rail) take an edit."""
    viewer = staff_member("viewer")
    before = everything()
    for label, model_admin in registered().items():
        app_label, model_name = label.split(".")
        obj = model_admin.model.objects.first()
        assert obj is not None, label
        url = f"admin:{app_label}_{model_name}"
        assert viewer.get(admin_url(obj)).status_code == 200, label
        for page in (reverse(f"{url}_add"), admin_url(obj), admin_url(obj, "delete")):
            assert viewer.post(page, {"post": "yes"}).status_code == 403, (label, page)
    edit = {
        "form-TOTAL_FORMS": "1",
        "form-INITIAL_FORMS": "1",
        "form-0-id": world.pk,
        "form-0-live_approved": "on",
        "form-0-card_rail_enabled": "on",
        "_save": "Save",
    }
    assert viewer.post(changelist("payments.merchant"), edit).status_code == 403
    assert everything() == before


def test_no_page_beside_djangos_own_goes_untested(world):
    """Each admin's pages are Django's five (and the old address of a change page, which
    redirects), or listed in EXTRA_PAGES with the permission they need, which a staff member who
    may only see lacks: 403, nothing changed; the one who holds it is let in."""
    viewer = staff_member("viewer")
    for label, model_admin in registered().items():
        prefix = label.replace(".", "_")
        own = {f"{prefix}_{page}" for page in ("changelist", "add", "history", "delete", "change")}
        extra = {pattern.name for pattern in model_admin.urls if pattern.name} - own
        assert extra <= set(EXTRA_PAGES), label
        for name in extra:
            objects = model_admin.model.objects
            by = ADDRESSED_BY.get(name)
            address = getattr(objects.exclude(**{by: ""}).first(), by) if by else objects.first().pk
            page = reverse(
                f"admin:{name}",
                args=[] if name in NOT_ADDRESSED else [address, *EXTRA_ARGUMENTS.get(name, [])],
            )
            before = everything()  # the holders of the pages before this one made since
            assert viewer.get(page).status_code == (200 if name in READ_BY_VIEWERS else 403), name
            before = everything()  # reading a page signs the viewer in: what a post changes
            # 403; a report that takes no post at all answers 405.
            assert viewer.post(page).status_code in (403, 405), name
            assert everything() == before, name
            holder = staff_member(f"holder-{name}", EXTRA_PAGES[name])
            assert holder.get(page).status_code == 200, name
