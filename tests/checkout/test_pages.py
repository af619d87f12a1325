"""The hosted page through Django's test client: hooks, languages, headers, attempts, redirects."""

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from checkout import services
from payments.models import Charge
from tests.factories import make_session, settle
from tests.helpers import query_params

pytestmark = pytest.mark.django_db


def forms(html: str) -> dict[str, str]:
    """data-method → the form's markup."""
    return dict(re.findall(r'<form[^>]*data-method="(\w+)"[^>]*>(.*?)</form>', html, re.S))


def test_usd_page_offers_both_methods_with_one_submit_button_each(client, merchant):
    session = make_session(merchant, currency="USD", amount=1999_00, customer_phone="+243971234567")
    response = client.get(f"/pay/{session.id}")
    assert response.status_code == 200
    html = response.text
    found = forms(html)
    assert set(found) == {"mobile_money", "card"}
    for markup in found.values():
        assert len(re.findall(r"<button[^>]*type=\"submit\"", markup)) == 1
        assert "csrfmiddlewaretoken" in markup
    assert 'value="+243971234567"' in found["mobile_money"]
    assert "Boutique Gombe" in html and "1 999 USD" in html
    cancel = re.search(r'<a href="([^"]+)" data-action="cancel"', html).group(1)
    assert query_params(cancel.replace("&amp;", "&")) == {
        "session_id": session.id,
        "status": "canceled",
    }


def test_cdf_page_offers_no_card_form(client, merchant):
    session = make_session(merchant)
    html = client.get(f"/pay/{session.id}").text
    assert set(forms(html)) == {"mobile_money"}
    assert 'data-method="card"' not in html
    assert "2 500 CDF" in html and "2 500,00" not in html


def test_usd_with_cents_offers_card_only(client, merchant):
    session = make_session(merchant, currency="USD", amount=1999)
    assert set(forms(client.get(f"/pay/{session.id}").text)) == {"card"}


def test_french_by_default_english_by_accept_language_and_by_the_switch(merchant):
    session = make_session(merchant)
    browser = Client()
    french = browser.get(f"/pay/{session.id}")
    assert '<html lang="fr">' in french.text and "Montant à payer" in french.text
    english = Client().get(f"/pay/{session.id}", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert '<html lang="en">' in english.text and "Amount to pay" in english.text
    assert "2,500 CDF" in english.text
    assert 'href="?lang=en"' in french.text
    switched = browser.get(f"/pay/{session.id}?lang=en")
    assert "Amount to pay" in switched.text
    # The choice sticks for the next pages, even against the browser's language.
    again = browser.get(f"/pay/{session.id}", HTTP_ACCEPT_LANGUAGE="fr")
    assert "Amount to pay" in again.text


def test_security_headers_and_page_weight(client, merchant):
    session = make_session(merchant, currency="USD", amount=2000)
    response = client.get(f"/pay/{session.id}")
    csp = response["Content-Security-Policy"]
    for directive in ("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"):
        assert directive in csp
    assert "unsafe-inline" not in csp
    assert response["X-Frame-Options"] == "DENY"
    assert "<script>" not in response.text and "style=" not in response.text
    static = sum(
        Path(finders.find(name)).stat().st_size for name in ("checkout.css", "checkout.js")
    )
    assert len(response.content) + static < 50_000


def test_forms_need_the_csrf_token(merchant):
    session = make_session(merchant)
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(f"/pay/{session.id}/mobile-money", {"phone": "0812345678"})
    assert response.status_code == 403
    assert not Charge.objects.exists()
    page = strict.get(f"/pay/{session.id}").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = strict.post(
        f"/pay/{session.id}/mobile-money",
        {"phone": "0812345678", "network": "auto", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 303
    assert Charge.objects.count() == 1


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"phone": ""}, "Saisissez votre numéro mobile money."),
        ({"phone": "12345"}, "Saisissez un numéro mobile de RD Congo"),
        ({"phone": "0812345678", "network": "AIRTEL_MONEY"}, "appartient à Vodacom M-Pesa"),
        ({"phone": "0912345678", "network": "auto"}, "Nous ne reconnaissons pas l&#x27;opérateur"),
    ],
)
def test_phone_errors_are_inline_in_the_customers_language(client, merchant, fields, message):
    session = make_session(merchant)
    response = client.post(f"/pay/{session.id}/mobile-money", fields)
    assert response.status_code == 400
    assert message in response.text
    assert 'aria-invalid="true"' in response.text
    assert not Charge.objects.exists()


@pytest.mark.parametrize(
    "fields, described",
    [
        ({"phone": "12345"}, {"id_phone": "phone-error phone-help"}),
        ({"phone": "0812345678", "network": "AIRTEL_MONEY"}, {"id_network": "network-error"}),
    ],
)
def test_a_field_in_error_is_described_by_its_message(client, merchant, fields, described):
    session = make_session(merchant)
    html = client.post(f"/pay/{session.id}/mobile-money", fields).text
    for field_id, ids in described.items():
        field = re.search(rf'<(?:input|select)[^>]*id="{field_id}"[^>]*>', html).group(0)
        assert 'aria-invalid="true"' in field
        assert f'aria-describedby="{ids}"' in field
        for one in ids.split():
            assert f'id="{one}"' in html
    other = "id_network" if "id_phone" in described else "id_phone"
    field = re.search(rf'<(?:input|select)[^>]*id="{other}"[^>]*>', html).group(0)
    assert "aria-invalid" not in field and "-error" not in field


def test_english_error(client, merchant):
    session = make_session(merchant)
    response = client.post(
        f"/pay/{session.id}/mobile-money?lang=en", {"phone": "12345", "network": "auto"}
    )
    assert "Enter a DR Congo mobile number" in response.text


def test_mobile_money_attempt_waits_then_succeeds_to_success_url(client, merchant):
    session = make_session(merchant, customer_phone="+243812345678")
    response = client.post(
        f"/pay/{session.id}/mobile-money", {"phone": "0812 345 678", "network": "auto"}
    )
    charge = Charge.objects.get()
    assert (charge.phone, charge.network, charge.status) == (
        "+243812345678",
        "VODACOM_MPESA",
        "pending",
    )
    assert response.status_code == 303
    waiting = client.get(response["Location"])
    assert "Validez le paiement sur votre téléphone" in waiting.text
    assert 'http-equiv="refresh"' in waiting.text and "data-poll-url" in waiting.text
    assert not forms(waiting.text)
    # A second tab cannot start another attempt while this one is pending.
    again = client.post(f"/pay/{session.id}/mobile-money", {"phone": "0971234567"})
    assert again.status_code == 303 and Charge.objects.count() == 1
    status = client.get(f"/pay/{session.id}/status?attempt={charge.id}").json()
    assert status == {"status": "pending", "next": None}
    settle(charge, "succeeded")
    status = client.get(f"/pay/{session.id}/status?attempt={charge.id}").json()
    assert status["status"] == "succeeded"
    assert query_params(status["next"]) == {
        "order": "42",
        "session_id": session.id,
        "transaction_id": charge.id,
        "status": "succeeded",
    }
    assert status["next"].startswith("https://shop.example.cd/merci?")
    final = client.get(response["Location"])
    assert final.status_code == 302 and final["Location"] == status["next"]
    done = client.get(f"/pay/{session.id}")
    assert "Paiement reçu" in done.text and not forms(done.text)


def test_declined_attempt_shows_the_error_and_allows_a_retry(client, merchant):
    session = make_session(merchant)
    client.post(f"/pay/{session.id}/mobile-money", {"phone": "0971234001", "network": "auto"})
    charge = Charge.objects.get()
    settle(charge, "declined", "insufficient_funds")
    status = client.get(f"/pay/{session.id}/status?attempt={charge.id}").json()
    assert status["next"] == f"/pay/{session.id}?attempt={charge.id}"
    page = client.get(status["next"]).text
    assert "Votre solde mobile money est insuffisant" in page
    assert "mobile_money" in forms(page)
    back = re.search(r'<a href="([^"]+)" data-action="return"', page).group(1)
    assert query_params(back.replace("&amp;", "&")) == {
        "session_id": session.id,
        "transaction_id": charge.id,
        "status": "declined",
    }
    retry = client.post(f"/pay/{session.id}/mobile-money", {"phone": "0971234567"})
    assert retry.status_code == 303 and Charge.objects.count() == 2


def test_card_attempt_renders_the_signed_form_to_the_provider(client, merchant, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"
    session = make_session(merchant, currency="USD", amount=1999)
    response = client.post(f"/pay/{session.id}/card?lang=en")
    assert response.status_code == 200
    charge = Charge.objects.get()
    assert charge.payment_method == "card" and charge.checkout_session_id == session.id
    html = response.text
    assert 'action="https://pay.example.cd/sandbox/card/pay"' in html
    for name, value in charge.next_action["params"].items():
        assert f'name="{name}" value="{value}"' in html
    assert charge.next_action["params"]["locale"] == "en-us"
    assert "form-action 'self' https://pay.example.cd" in response["Content-Security-Policy"]
    assert ">Continue</button>" in html


def test_card_return_redirects_by_outcome(client, merchant):
    session = make_session(merchant, currency="USD", amount=1999)
    client.post(f"/pay/{session.id}/card")
    charge = Charge.objects.get()
    pending = client.get(f"/pay/{session.id}/card-return?transaction_id={charge.id}")
    assert pending.status_code == 200 and "Paiement par carte en cours" in pending.text
    settle(charge, "declined", "card_declined")
    declined = client.get(f"/pay/{session.id}/card-return?transaction_id={charge.id}")
    assert declined.status_code == 302
    assert declined["Location"].startswith("https://shop.example.cd/panier?")
    assert query_params(declined["Location"]) == {
        "session_id": session.id,
        "transaction_id": charge.id,
        "status": "declined",
    }
    client.post(f"/pay/{session.id}/card")
    second = Charge.objects.exclude(pk=charge.pk).get()
    settle(second, "succeeded")
    ok = client.get(f"/pay/{session.id}/card-return?transaction_id={second.id}")
    assert query_params(ok["Location"])["status"] == "succeeded"
    missing = client.get(f"/pay/{session.id}/card-return?transaction_id=ch_nope")
    assert missing.status_code == 404


def test_closed_sessions_show_a_clear_page_and_take_no_attempt(client, merchant):
    session = make_session(merchant)
    services.session_expire(session=session)
    page = client.get(f"/pay/{session.id}")
    assert page.status_code == 410 and "Ce lien de paiement a expiré" in page.text
    assert not forms(page.text)
    response = client.post(f"/pay/{session.id}/mobile-money", {"phone": "0812345678"})
    assert response.status_code == 302 and not Charge.objects.exists()
    assert client.get("/pay/cs_doesnotexist").status_code == 404


def test_card_switched_off_after_creation_is_neither_shown_nor_taken(client, merchant, settings):
    session = make_session(merchant, currency="USD", amount=2000)
    settings.SANDBOX_CARD_ENABLED = False
    assert set(forms(client.get(f"/pay/{session.id}").text)) == {"mobile_money"}
    response = client.post(f"/pay/{session.id}/card")
    assert response.status_code == 400 and 'role="alert"' in response.text
    assert not Charge.objects.exists()


def test_the_missing_page_says_its_language(client):
    french = client.get("/pay/cs_doesnotexist")  # French by default
    english = client.get("/pay/cs_doesnotexist?lang=en")
    assert (english.status_code, french.status_code) == (404, 404)
    assert '<html lang="en">' in english.text
    assert '<html lang="fr">' in french.text


def test_after_a_decline_one_way_out_and_the_test_numbers(client, merchant):
    """A declined attempt leaves one link back to the merchant (not a "give up" and a "cancel"
    side by side); a test-mode page says which numbers approve or decline, as the sandbox
    decides them."""
    from sandbox.providers import MOBILE_MONEY_SUFFIXES

    session = make_session(merchant)
    first = client.get(f"/pay/{session.id}?lang=en").text
    assert first.count('data-action="cancel"') == 1
    assert "0812 345 678</span> — approves the payment" in first
    for suffix in ("001", "002"):
        assert MOBILE_MONEY_SUFFIXES[suffix][0] == "declined"
        assert f"0812 345 {suffix}</span> — declines it" in first
    client.post(f"/pay/{session.id}/mobile-money", {"phone": "0812345001", "network": "auto"})
    charge = Charge.objects.get()
    settle(charge, "declined", "insufficient_funds")
    page = client.get(f"/pay/{session.id}?attempt={charge.id}&lang=fr").text
    exits = re.findall(r'data-action="(return|cancel)"', page)
    assert exits == ["return"]
    assert "Mode test : aucun argent ne circule" in page


def test_a_live_page_shows_no_test_numbers(client, merchant, settings):
    merchant.live_approved = True
    merchant.save(update_fields=["live_approved"])
    sandbox = {"VODACOM_MPESA": "sandbox.providers.SandboxMobileMoney"}
    settings.PAYMENT_PROVIDERS = {**settings.PAYMENT_PROVIDERS, "live": sandbox}
    session = make_session(merchant, livemode=True)
    page = client.get(f"/pay/{session.id}?lang=en")
    assert page.status_code == 200 and 'data-method="mobile_money"' in page.text
    assert "data-test-numbers" not in page.text
