"""Receipts: a completed session whose customer gave an e-mail address gets one mail, in the
language of their page, with the merchant, amount, date, charge id and operator reference; sent
once whatever retries or second workers do, and a mail server that refuses is tried again."""

import email.header
from datetime import timedelta

import pytest
from django.core import mail

from checkout import services as checkout
from links import services, tasks
from links.models import Receipt
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import make_session, with_support_contact
from tests.helpers import race
from tests.links import smtp
from tests.links.factories import make_link, pay_session

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sink(settings):
    with smtp.serving() as sink:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", sink.port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        settings.DEFAULT_FROM_EMAIL = "recus@pay.example.cd"
        yield sink


def paid_session(link, *, email: str = "client@example.cd", language: str = "fr", **outcome):
    """A customer of the link who paid by mobile money on a page in `language`."""
    session = services.link_open_session(link=link, customer_email=email, language=language)
    return pay_session(session, locale=language, **outcome)


def subject(message) -> str:
    return str(email.header.make_header(email.header.decode_header(message["Subject"])))


def test_a_paid_session_gets_one_receipt_in_french(merchant, sink, eager_tasks):
    with_support_contact(merchant, email="aide@boutique.cd", phone="+243 81 234 5678")
    link = make_link(merchant, amount=250000)
    charge = paid_session(link)
    assert charge.provider_reference
    (message,) = sink.messages
    assert message["To"] == "client@example.cd" and message["From"] == "recus@pay.example.cd"
    assert message["Reply-To"] == "aide@boutique.cd"
    assert subject(message) == f"Votre paiement à {merchant.name}"
    bodies = smtp.parts(message)
    assert set(bodies) == {"text/plain", "text/html"}
    for body in bodies.values():
        assert f"Reçu de votre paiement à {merchant.name}" in body
        assert "2 500 CDF" in body and charge.id in body
        assert charge.provider_reference in body and "Sac de riz 25 kg" in body
        assert "aide@boutique.cd" in body and "+243 81 234 5678" in body
        assert "Référence de l’opérateur" in body
        # The merchant's time, its zone named (Kinshasa: WAT), never UTC.
        assert " WAT" in body and " UTC" not in body
    assert '<html lang="fr">' in bodies["text/html"]
    receipt = Receipt.objects.get()
    assert receipt.sent_at is not None and receipt.attempts == 1


def test_the_receipt_is_in_the_language_of_the_customers_page(merchant, sink, eager_tasks):
    link = make_link(merchant, amount=1999, currency="USD")
    session = services.link_open_session(link=link, customer_email="c@example.com", language="en")
    charge = checkout.session_attempt_create(
        session_id=session.id, payment_method="card", locale="en"
    )
    charges.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(status="succeeded", provider_reference="CY9")
    )
    (message,) = sink.messages
    assert subject(message) == f"Your payment to {merchant.name}"
    text = smtp.parts(message)["text/plain"]
    assert "19.99 USD" in text and "Operator reference: CY9" in text


def test_no_address_no_receipt_and_a_refused_success_gets_none(merchant, sink, eager_tasks):
    link = make_link(merchant, max_payments=1)
    late = services.link_open_session(link=link, customer_email="late@example.cd")
    paid_session(link, email="")
    assert sink.messages == [] and not Receipt.objects.exists()
    # A success past max_payments is given back: no receipt for it.
    charge = pay_session(late)
    assert charge.late_payment_at is not None
    assert sink.messages == [] and not Receipt.objects.exists()


def test_sessions_without_a_link_get_receipts_too(merchant, sink, eager_tasks):
    pay_session(make_session(merchant, amount=500000, customer_email="client@example.cd"))
    (message,) = sink.messages
    assert "5 000 CDF" in smtp.parts(message)["text/plain"]


def test_a_receipt_is_sent_once_however_often_it_is_asked(merchant, sink):
    paid_session(make_link(merchant))
    receipt = Receipt.objects.get()
    results = race(lambda: services.receipt_send(receipt_id=receipt.pk), 4)
    assert sorted(results) == [False, False, False, True], results
    assert services.receipt_send(receipt_id=receipt.pk) is False
    assert len(sink.messages) == 1
    receipt.refresh_from_db()
    assert receipt.attempts == 1


def test_a_refusing_mail_server_is_recorded_and_the_payment_kept(merchant, sink):
    sink.refuse = 1
    charge = paid_session(make_link(merchant))
    assert charge.status == "succeeded"
    receipt = Receipt.objects.get()
    with pytest.raises(Exception, match="451"):
        services.receipt_send(receipt_id=receipt.pk)
    receipt.refresh_from_db()
    assert receipt.sent_at is None and receipt.attempts == 1 and "451" in receipt.last_error
    assert services.receipt_send(receipt_id=receipt.pk) is True
    receipt.refresh_from_db()
    assert receipt.sent_at is not None and receipt.attempts == 2 and receipt.last_error == ""
    assert len(sink.messages) == 1


def test_the_task_retries_on_the_schedule_then_gives_up(merchant, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.RECEIPT_RETRY_SCHEDULE = [30, 120]
    paid_session(make_link(merchant))
    receipt = Receipt.objects.get()
    # An address the mail server will never take, seen by the task as a refusal each time.
    Receipt.objects.filter(pk=receipt.pk).update(email="bad\naddress@example.cd")
    result = tasks.receipt_send.apply(args=[receipt.pk])  # retries run at once when applied
    assert result.state == "FAILURE"
    assert mail.outbox == []
    receipt.refresh_from_db()
    assert receipt.sent_at is None and receipt.attempts == 3 and receipt.last_error


def test_a_receipt_whose_task_was_lost_is_sent_by_the_sweep(merchant, sink, settings):
    from config.celery import app

    paid_session(make_link(merchant))  # its task waits in the broker, as if lost
    receipt = Receipt.objects.get()
    app.conf.task_always_eager = True
    try:
        assert services.receipts_enqueue_unsent() == 0  # too recent: its own task comes first
        Receipt.objects.filter(pk=receipt.pk).update(
            created_at=receipt.created_at - timedelta(minutes=10)
        )
        assert services.receipts_enqueue_unsent() == 1
        assert len(sink.messages) == 1
        assert services.receipts_enqueue_unsent() == 0
    finally:
        app.conf.task_always_eager = False
    assert len(sink.messages) == 1
