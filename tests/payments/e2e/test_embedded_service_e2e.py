"""`make run` as it is on a fresh machine: the embedded set-up (SQLite database, SQLite broker,
a real Celery worker with beat and the long-calls worker, gunicorn) started by runservice on an
empty VAR_DIR settles a sandbox mobile money charge and delivers its event, with a clean log.

It brings its own database and broker, so it runs the same with or without PostgreSQL/Redis."""

from tests.fakes import merchant as merchant_site
from tests.helpers import embedded_service, wait_for

# Lines of the first start that the broker preparation and a clean shutdown rule out.
BAD_LOG = ("already exists", "Connection to broker lost", "Traceback", "CRITICAL")


def test_make_run_settles_a_sandbox_charge_on_the_embedded_broker(tmp_path):
    # The merchant's receiver checks each delivery's signature with the demo merchant's secret.
    with (
        embedded_service(tmp_path) as service,
        merchant_site.serving(service.demo["webhook_secret"]) as receiver,
    ):
        call = service.call
        call("POST", "/v1/webhook_endpoint", {"url": receiver.url("/hook")})
        charge = call(
            "POST",
            "/v1/charges",
            {"amount": 250000, "currency": "CDF", "phone": "+243812345678",
             "network": "VODACOM_MPESA"},
        )  # fmt: skip
        assert charge["status"] == "pending"
        settled = wait_for(
            lambda: (
                (body := call("GET", f"/v1/charges/{charge['id']}"))["status"] != "pending" and body
            ),
            120,  # generous: several test processes may share a loaded machine
        )
        assert settled["status"] == "succeeded", settled
        events = call("GET", "/v1/events")["data"]
        assert [e["type"] for e in events if e["data"]["object"]["id"] == charge["id"]] == [
            "charge.succeeded"
        ]
        delivered = wait_for(
            lambda: [
                r.verified
                for r in receiver.verified()
                if r.verified["data"]["object"]["id"] == charge["id"]
            ],
            120,
        )
        assert [e["type"] for e in delivered] == ["charge.succeeded"]
        assert len(receiver.received) == len(receiver.verified())  # every delivery signed
    output = service.log_path.read_text()
    assert service.returncode == 0, output
    assert "ready." in output, output
    assert not [line for line in output.splitlines() if any(bad in line for bad in BAD_LOG)]
