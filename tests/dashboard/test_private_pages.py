"""Private pages are not kept (docs/operations/security.md, "Private pages"): every answer under
/dashboard/, /accounts/ and /admin/ is no-store and private and carries the hosted pages'
Content-Security-Policy; every /v1 answer is no-store, its errors and 404s included."""

import pytest
from django.test import Client

from tests.dashboard.conftest import signed_in
from tests.factories import staff_client

pytestmark = pytest.mark.django_db


def assert_private_page(response):
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert {"no-store", "private"} <= directives, response["Cache-Control"]
    policy = response["Content-Security-Policy"]
    for directive in ("script-src 'self'", "frame-ancestors 'none'", "default-src 'none'"):
        assert directive in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_dashboard_pages_are_not_kept_and_carry_a_content_security_policy(owner):
    client = signed_in(owner.user)
    for path in (
        "/dashboard/",
        "/dashboard/test/",
        "/dashboard/test/payments/",
        "/dashboard/test/developers/",
        "/dashboard/settings/team/",
        "/dashboard/test/payments/ch_nothing/",  # a 404
        "/dashboard",  # the redirect to /dashboard/
    ):
        response = client.get(path)
        assert response.status_code in (200, 301, 302, 404), path
        assert_private_page(response)
    # signed out: the redirect to the sign-in page
    assert_private_page(Client().get("/dashboard/test/"))


def test_account_pages_are_not_kept_and_carry_a_content_security_policy(owner):
    for path in ("/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"):
        assert_private_page(Client().get(path))
    client = signed_in(owner.user)
    for path in ("/accounts/2fa/", "/accounts/email/", "/accounts/password/change/"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert_private_page(response)


def test_admin_pages_are_not_kept_and_carry_a_content_security_policy():
    staff = staff_client()
    for path in ("/admin/", "/admin/payments/charge/", "/admin/overview/"):
        response = staff.get(path)
        assert response.status_code == 200, path
        assert_private_page(response)
    assert_private_page(Client().get("/admin/"))  # to the sign-in


def test_every_v1_answer_is_no_store(api):
    answers = {
        "the webhook endpoint and its signing secret": api.get("/v1/webhook_endpoint"),
        "a list": api.get("/v1/charges"),
        "an unknown object": api.get("/v1/charges/ch_unknown"),
        "an unknown route": api.get("/v1/nothing/here"),
        "a refused body": api.post("/v1/charges", {"amount": "x"}, format="json"),
        "no key": Client().get("/v1/balance"),
        "a body too large": Client().post(
            "/v1/charges", data=b"{}", content_type="application/json", CONTENT_LENGTH="99999999"
        ),
        "the reference": Client().get("/v1/docs"),
    }
    assert answers["the webhook endpoint and its signing secret"].json()["secret"]
    assert {name: answer["Cache-Control"] for name, answer in answers.items()} == {
        name: "no-store" for name in answers
    }
    # The API reference keeps its own policy (its Redoc bundle styles itself at run time).
    assert "worker-src 'self' blob:" in answers["the reference"]["Content-Security-Policy"]


def test_the_hosted_and_public_pages_keep_their_own_caching():
    assert Client().get("/healthz").get("Cache-Control") is None
    assert "no-store" not in Client().get("/").get("Cache-Control", "")
