"""schemathesis against the running application (the WSGI app, every middleware): generated
requests to every operation, valid and not, for a merchant that has one object of each kind.
Every answer must be documented (status code and content type), match its schema, and never be a
server error."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from tests.factories import one_of_everything

CONFIG = {
    # Bounded: a few examples of each kind per operation keep the whole run within seconds.
    "generation": {"mode": "all", "max-examples": 5, "deterministic": True},
    "phases": {"stateful": {"enabled": False}},
    "checks": {
        "enabled": False,
        "not_a_server_error": {"enabled": True},
        "status_code_conformance": {"enabled": True},
        "content_type_conformance": {"enabled": True},
        "response_schema_conformance": {"enabled": True},
    },
}


def served_document() -> dict:
    """/v1/openapi.json as the application serves it (read when the tests are collected, before
    the test environment allows the test client's own host name)."""
    response = Client(HTTP_HOST="127.0.0.1").get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


schema = schemathesis.openapi.from_dict(
    served_document(), config=SchemathesisConfig.from_dict(CONFIG)
)


@pytest.fixture
def app(merchant_keys, settings):
    """The WSGI application inside the test's transaction: as Django's test client does, the
    database connection is not closed at the end of each request."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]  # schemathesis' WSGI host
    # Deliveries to an address that is always refused: attempts recorded at once, no network.
    one_of_everything(merchant_keys.merchant, webhook_url="http://169.254.169.254/hooks")
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_every_answer_is_documented_and_true_to_its_schema(case, app, merchant_keys):
    case.call_and_validate(
        app=app, headers={"Authorization": f"Bearer {merchant_keys.test_key.plaintext}"}
    )
