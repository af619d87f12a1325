"""Staff pages of refunds: read-only list and detail, filters, search, the status-check action."""

import pytest

from payments.services.refunds import refund_create
from tests.factories import succeeded_card_charge, succeeded_mobile_money_charge, with_totp
from tests.helpers import admin_url

pytestmark = pytest.mark.django_db

LIST = "/admin/payments/refund/"


@pytest.fixture
def refunds(merchant):
    card = succeeded_card_charge(merchant, amount=1999)
    mobile = succeeded_mobile_money_charge(merchant, amount=250000)
    return {
        "card": refund_create(charge=card, amount=550, reason="duplicate"),
        "failed": refund_create(charge=mobile, amount=1000, metadata={"sandbox_refund": "fail"}),
        "pending": refund_create(
            charge=mobile, amount=2000, metadata={"sandbox_refund": "pending"}
        ),
    }


def test_list_filters_and_search(staff, refunds):
    page = staff.get(LIST).content.decode()
    assert all(refund.id in page for refund in refunds.values())
    assert "5,50 USD" in page and "20,00 CDF" in page

    failed = staff.get(LIST, {"status": "failed"}).content.decode()
    assert refunds["failed"].id in failed and refunds["card"].id not in failed
    duplicate = staff.get(LIST, {"reason": "duplicate"}).content.decode()
    assert refunds["card"].id in duplicate and refunds["pending"].id not in duplicate
    assert refunds["card"].id not in staff.get(LIST, {"livemode__exact": "1"}).content.decode()

    by_charge = staff.get(LIST, {"q": refunds["card"].charge_id}).content.decode()
    assert refunds["card"].id in by_charge and refunds["failed"].id not in by_charge
    by_id = staff.get(LIST, {"q": refunds["failed"].id}).content.decode()
    assert refunds["failed"].id in by_id and refunds["pending"].id not in by_id


def test_detail_is_read_only(staff, refunds):
    refund = refunds["failed"]
    response = staff.get(admin_url(refund))
    assert response.status_code == 200
    page = response.content.decode()
    assert refund.charge_id in page and "provider_error" in page and "sandbox_refund" in page
    assert f'href="{admin_url(refund.charge)}"' in page  # the id quoted as the admin reads it
    assert 'name="amount"' not in page and 'name="_save"' not in page
    assert staff.get(f"{LIST}add/").status_code == 403
    assert staff.get(admin_url(refund, "delete")).status_code == 403
    posted = staff.post(admin_url(refund), {"status": "succeeded"})
    assert posted.status_code == 403
    refund.refresh_from_db()
    assert refund.status == "failed"


def test_staff_can_ask_the_provider_about_pending_refunds(staff, refunds, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    pending = refunds["pending"]
    response = staff.post(
        LIST,
        {
            "action": "check_with_provider",
            "index": 0,
            "_selected_action": [pending.id, refunds["card"].id],
        },
        follow=True,
    )
    assert response.status_code == 200
    assert f"Remboursement {pending.id} : réussi." in response.content.decode()
    pending.refresh_from_db()
    assert pending.status == "succeeded"


def test_the_charge_page_lists_its_refunds(staff, refunds):
    charge = refunds["pending"].charge
    page = staff.get(admin_url(charge)).content.decode()
    assert refunds["pending"].id in page and refunds["failed"].id in page
    assert refunds["card"].id not in page  # another charge's refund


def resolve(client, action: str, refund_ids: list[str], **extra):
    data = {"action": action, "index": 0, "_selected_action": refund_ids, **extra}
    return client.post(LIST, data, follow=True)


def test_staff_record_what_the_operator_confirmed_after_a_confirmation_page(
    staff, refunds, merchant
):
    from payments.models import Charge, Refund
    from webhooks.models import Event

    pending = refunds["pending"]
    assert pending.provider_requested_at is not None
    charge_id = pending.charge_id
    before = Charge.objects.get(pk=charge_id).amount_refunded

    page = resolve(staff, "mark_failed", [pending.id, refunds["card"].id]).content.decode()
    assert "ne <strong>pas</strong> avoir reversé" in page and pending.id in page
    assert "20,00 CDF" in page
    assert refunds["card"].id not in page  # already succeeded: nothing to settle
    assert Refund.objects.get(pk=pending.id).status == "pending"  # nothing happens before "yes"

    done = resolve(staff, "mark_failed", [pending.id], confirm="yes").content.decode()
    assert f"Remboursement {pending.id} : échoué." in done
    refund = Refund.objects.get(pk=pending.id)
    assert (refund.status, refund.failure_code) == ("failed", "provider_error")
    assert refund.provider_raw[-1] == {**refund.provider_raw[-1], "staff": "staff"}
    assert Charge.objects.get(pk=charge_id).amount_refunded == before - pending.amount
    types = [e.type for e in Event.objects.all() if e.data["object"]["id"] == pending.id]
    assert types == ["refund.failed"]

    again = resolve(staff, "mark_succeeded", [pending.id], confirm="yes").content.decode()
    assert "Aucun des remboursements sélectionnés n’est en attente chez son prestataire." in again
    assert Refund.objects.get(pk=pending.id).status == "failed"  # a final status never changes


def test_confirmed_payback_and_who_may_record_it(staff, refunds, client, django_user_model):
    from django.contrib.auth.models import Permission

    from payments.models import Refund
    from webhooks.models import Event

    charge = refunds["pending"].charge
    second = refund_create(charge=charge, amount=3000, metadata={"sandbox_refund": "pending"})
    viewer = with_totp(
        django_user_model.objects.create_user("viewer", password="pw-123-long", is_staff=True)
    )
    viewer.user_permissions.add(Permission.objects.get(codename="view_refund"))
    client.force_login(viewer)
    assert "mark_succeeded" not in client.get(LIST).content.decode()
    resolve(client, "mark_succeeded", [second.id], confirm="yes")
    assert Refund.objects.get(pk=second.id).status == "pending"

    staff.force_login(django_user_model.objects.get(username="staff"))
    assert "mark_succeeded" in staff.get(LIST).content.decode()
    done = resolve(staff, "mark_succeeded", [second.id], confirm="yes").content.decode()
    assert f"Remboursement {second.id} : réussi." in done
    assert Refund.objects.get(pk=second.id).status == "succeeded"
    types = [e.type for e in Event.objects.all() if e.data["object"]["id"] == second.id]
    assert types == ["refund.succeeded"]
