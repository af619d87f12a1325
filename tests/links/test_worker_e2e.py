"""End to end, with a real Celery worker (and beat) on Redis: a customer opens a payment link,
pays on the checkout page by sandbox mobile money, the merchant's receiver gets the signed
events of the link's session, and the receipt arrives at the mail server — after one refusal of
it, retried. Then two customers pay the last place of a link at the same moment: one is kept,
the other given back."""

import pytest
from django.test import Client

from checkout.models import CheckoutSession
from links.models import PaymentLink, Receipt
from payments.models import Charge, Refund
from tests.helpers import set_webhook_url, wait_for
from tests.links import smtp

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def open_link(link_url: str, **fields) -> str:
    """The customer on the link's page presses the button: the checkout page they land on."""
    client = Client()
    path = link_url.split("://", 1)[1].split("/", 1)[1]
    assert client.get(f"/{path}").status_code == 200
    response = client.post(f"/{path}", fields)
    assert response.status_code == 303, response.content
    return response["Location"]


def pay_by_mobile_money(checkout_url: str, phone: str) -> None:
    client = Client()
    path = "/" + checkout_url.split("://", 1)[1].split("/", 1)[1]
    assert client.get(path).status_code == 200
    response = client.post(f"{path}/mobile-money", {"phone": phone, "network": "auto"})
    assert response.status_code == 303, response.content


def test_link_page_checkout_payment_webhook_and_receipt(
    api, merchant, receiver, celery_worker_process
):
    set_webhook_url(merchant, receiver.url("/hooks"))
    with smtp.serving() as sink:
        sink.refuse = 1  # the mail server is busy the first time
        celery_worker_process(
            beat=True,
            SANDBOX_MOBILE_MONEY_DELAY="1",
            EMAIL_URL=sink.url,
            RECEIPT_RETRY_SCHEDULE="1,1,1",
        )
        link = api.post(
            "/v1/payment_links",
            {"amount": 250000, "currency": "CDF", "description": "Sac de riz 25 kg"},
            format="json",
        ).json()
        checkout_url = open_link(link["url"], email="client@example.cd")
        pay_by_mobile_money(checkout_url, "+243812345678")

        def completed():
            return [
                r.verified
                for r in receiver.verified()
                if r.verified["type"] == "checkout.session.completed"
            ]

        (event,) = wait_for(completed, timeout=60, interval=0.5)
        session = event["data"]["object"]
        assert session["payment_link"] == link["id"] and session["status"] == "complete"
        assert session["customer_email"] == "client@example.cd"
        (message,) = wait_for(lambda: sink.messages, timeout=60, interval=0.5)
        assert sink.refused == 1
    charge = Charge.objects.get(pk=session["charge"])
    text = smtp.parts(message)["text/plain"]
    assert message["To"] == "client@example.cd"
    assert charge.id in text and "2 500 CDF" in text and merchant.name in text
    receipt = Receipt.objects.get()
    assert receipt.sent_at is not None and receipt.attempts == 2
    assert api.get(f"/v1/payment_links/{link['id']}").json()["payments_count"] == 1


def test_two_customers_paying_the_last_place_at_once(api, celery_worker_process):
    celery_worker_process(beat=True, SANDBOX_MOBILE_MONEY_DELAY="2")
    link = api.post(
        "/v1/payment_links",
        {"amount": 500000, "currency": "CDF", "description": "Dernier billet", "max_payments": 1},
        format="json",
    ).json()
    pages = [open_link(link["url"]) for _ in range(2)]
    for page, phone in zip(pages, ("+243812345601", "+243972345602"), strict=True):
        pay_by_mobile_money(page, phone)
    sessions = CheckoutSession.objects.filter(payment_link_id=link["id"])
    wait_for(lambda: not sessions.filter(status="open").exists(), timeout=60, interval=0.5)
    assert sorted(sessions.values_list("status", flat=True)) == ["complete", "expired"]
    assert PaymentLink.objects.get(pk=link["id"]).payments_count == 1
    late = Charge.objects.get(
        checkout_session__status="expired", checkout_session__payment_link_id=link["id"]
    )
    assert late.status == "succeeded" and late.late_payment_at is not None
    refund = wait_for(lambda: Refund.objects.filter(charge=late, status="succeeded").first(), 30)
    assert (refund.reason, refund.amount) == ("late_payment", 500000)
    assert api.get(f"/v1/payment_links/{link['id']}").json()["payments_count"] == 1
    assert Client().get("/" + link["url"].split("/", 3)[3]).status_code == 410
