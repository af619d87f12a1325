"""End to end with a real Celery worker and its beat on Redis: a payment succeeds, the beat job
mails its notice to the owner who chose it through a real SMTP server; three more payments
right after it are one notice, not three (NOTIFY_GROUP_SECONDS shortened to a few seconds)."""

import pytest

from dashboard.models import Notice, NotificationPreference
from tests.dashboard.conftest import make_member
from tests.factories import settled_charge
from tests.helpers import wait_for
from tests.links import smtp

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_payment_notices_by_the_beat_job(shop, celery_worker_process):
    owner = make_member(shop, "owner")
    NotificationPreference.objects.create(membership=owner, payment_email=True, summary_email=False)
    with smtp.serving() as sink:
        celery_worker_process(beat=True, EMAIL_URL=sink.url, NOTIFY_GROUP_SECONDS="5")
        settled_charge(shop, amount=250000)
        (first,) = wait_for(lambda: sink.messages)
        assert first["To"] == owner.user.email
        assert "2 500,00 CDF" in smtp.parts(first)["text/plain"].replace("\xa0", " ")

        for _ in range(3):
            settled_charge(shop, amount=10000)
        wait_for(lambda: not Notice.objects.filter(sent_at__isnull=True).exists())
        messages = wait_for(lambda: len(sink.messages) >= 2 and sink.messages)
        assert len(messages) == 2  # the three payments in one notice
        assert "3 paiements reçus" in smtp.parts(messages[1])["text/plain"]
