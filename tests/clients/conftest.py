"""The client libraries' tests run against the service as `make run` starts it (gunicorn, a
Celery worker and beat, the embedded database and broker), started once for the three libraries
(once per test process): each test makes its own objects and finds them by id or by its own
order number, so they share it as merchants' programs share the service.

The Python library is imported from its source (clients/python/src), as `pip install -e` would
make it importable: the suite's environment is the service's, and the library needs nothing
from it."""

import sys
from pathlib import Path

import pytest

from tests.helpers import embedded_service

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"
sys.path.insert(0, str(CLIENT_SRC))


@pytest.fixture(scope="package")
def service(tmp_path_factory):
    with embedded_service(tmp_path_factory.mktemp("service")) as running:
        yield running
