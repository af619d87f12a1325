"""/v1/openapi.json is made once per process and language and answered from memory afterwards:
making it costs a few tenths of a second of CPU on an address anyone may ask for, and
drf-spectacular cannot make it in two threads at once."""

import threading
import urllib.request

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from core.api.docs import ApiSchemaView


@pytest.fixture
def made(monkeypatch):
    """A process that has not made the description yet; how many times it is made."""
    monkeypatch.setattr(ApiSchemaView, "_made", {})
    calls = []
    real = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    return calls


def test_made_once_per_language_and_answered_alike(made):
    client = Client()
    first = client.get("/v1/openapi.json")
    again = client.get("/v1/openapi.json")
    assert first.status_code == again.status_code == 200
    assert first.content == again.content and first.json()["paths"]
    assert first["Content-Disposition"] == again["Content-Disposition"]
    assert first["Content-Type"] == again["Content-Type"] == "application/vnd.oai.openapi+json"
    assert len(made) == 1

    client.get("/v1/openapi.json", HTTP_ACCEPT_LANGUAGE="fr")
    client.get("/v1/openapi.json?lang=fr")
    assert len(made) == 2  # French once
    for junk in ("xx", "zz-ZZ", "a" * 200):  # an unknown language is the default one
        assert client.get(f"/v1/openapi.json?lang={junk}").status_code == 200
    assert len(made) == 2


def test_many_first_requests_at_once_are_all_answered(server):
    """A worker that has just started, asked by several clients at once (a docs page opened by
    a team, a client generator): every one gets the description, none a 500."""
    answers = []
    barrier = threading.Barrier(6)

    def get():
        barrier.wait(timeout=30)
        try:
            with urllib.request.urlopen(server.base + "/v1/openapi.json", timeout=60) as response:
                answers.append((response.status, response.read()))
        except urllib.error.HTTPError as error:
            answers.append((error.code, error.read()))

    threads = [threading.Thread(target=get) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert [status for status, _ in answers] == [200] * 6
    assert len({body for _, body in answers}) == 1
    assert "Traceback" not in server.log.read_text()
