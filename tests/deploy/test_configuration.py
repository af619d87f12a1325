"""The deployed configuration agrees with the service's settings: nginx's body limit is the
service's, gunicorn's settings are what nginx expects, and no source map is collected."""

import re
import runpy

from django.conf import settings

from tests.deploy.conftest import DEPLOY

SNIPPET = DEPLOY / "snippets" / "congopay.conf"


def directive(name: str) -> list[str]:
    """The values the deployed nginx configuration gives `name`."""
    text = (DEPLOY / "congopay.conf").read_text() + SNIPPET.read_text()
    return re.findall(rf"(?m)^\s*{name}\s+([^;]*);", text)


def test_nginx_refuses_the_bodies_the_service_refuses():
    limit, uploads = directive("client_max_body_size")
    assert int(limit) == settings.MAX_REQUEST_BODY
    assert f"larger than {settings.MAX_REQUEST_BODY} bytes." in SNIPPET.read_text()
    # The pages that take documents, each in a location of its own with the larger limit.
    assert int(uploads) == settings.MAX_UPLOAD_BODY
    (path,) = settings.UPLOAD_PATHS
    block = re.search(rf"(?s)location = {re.escape(path)} \{{(.*?)\}}", SNIPPET.read_text())
    assert block and f"client_max_body_size {uploads};" in block.group(1)


def test_nginx_buffers_both_ways_and_keeps_upstream_connections_alive():
    assert directive("proxy_request_buffering") == ["on"]
    assert directive("proxy_buffering") == ["on"]
    assert directive("proxy_http_version") == ["1.1"]
    assert directive("keepalive") == ["32"]
    assert 'Connection ""' in directive("proxy_set_header")
    for name in ("client_header_timeout", "client_body_timeout", "send_timeout"):
        assert directive(name), name


def gunicorn_settings(monkeypatch, **env) -> dict:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    return runpy.run_path(str(settings.BASE_DIR / "config" / "gunicorn.py"))


def test_gunicorn_runs_its_own_worker_and_outlives_nginxs_idle_connections(monkeypatch):
    config = gunicorn_settings(monkeypatch)
    assert config["worker_class"] == "gthread"
    assert config["reuse_port"] is True
    (upstream_idle,) = directive("keepalive_timeout")[:1]
    assert config["keepalive"] > int(upstream_idle.removesuffix("s"))


def test_gunicorn_believes_forwarded_headers_only_from_the_proxy_the_service_counts(monkeypatch):
    assert gunicorn_settings(monkeypatch, THROTTLE_TRUSTED_PROXIES="1")["forwarded_allow_ips"] == (
        "127.0.0.1,::1"
    )
    assert gunicorn_settings(monkeypatch, THROTTLE_TRUSTED_PROXIES="0")["forwarded_allow_ips"] == ""


def test_collectstatic_leaves_source_maps_out(static_root):
    assert not list(static_root.rglob("*.map*"))
    assert list(static_root.rglob("redoc.standalone.*.js"))
