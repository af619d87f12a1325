"""/v1 answers in one language per request: English unless Accept-Language prefers French, DRF's
own messages included; the hosted pages keep French as their default."""

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import make_session

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
CARD = {"amount": 1999, "currency": "USD", "payment_method": "card"}


def representative_errors(api: APIClient, anon: APIClient, **headers) -> dict[str, dict]:
    """code → error object for one request of each kind, all sent with `headers`."""

    def error(response, status):
        assert response.status_code == status, response.content
        return response.json()["error"]

    missing = {k: v for k, v in MM.items() if k != "currency"}
    return {
        "parameter_missing": error(api.post("/v1/charges", missing, format="json", **headers), 400),
        "parameter_invalid": error(api.get("/v1/charges", {"status": "bogus"}, **headers), 400),
        "amount_invalid": error(
            api.post("/v1/charges", {**MM, "amount": 0}, format="json", **headers), 400
        ),
        "phone_invalid": error(
            api.post("/v1/charges", {**MM, "phone": "+24312"}, format="json", **headers), 400
        ),
        "phone_network_mismatch": error(
            api.post("/v1/charges", {**MM, "network": "AIRTEL_MONEY"}, format="json", **headers),
            400,
        ),
        "currency_not_supported": error(
            api.post("/v1/charges", {**MM, "currency": "EUR"}, format="json", **headers), 400
        ),
        "card_currency": error(
            api.post("/v1/charges", {**CARD, "currency": "CDF"}, format="json", **headers), 400
        ),
        "url_invalid": error(
            api.post("/v1/charges", {**MM, "callback_url": "nope"}, format="json", **headers), 400
        ),
        "resource_missing": error(
            api.get("/v1/charges/ch_nothing0here000000000000", **headers), 404
        ),
        "unknown_url": error(api.get("/v1/nothing/here", **headers), 404),
        "missing_api_key": error(anon.get("/v1/charges", **headers), 401),
        "invalid_api_key": error(
            anon.get("/v1/charges", HTTP_AUTHORIZATION="Bearer sk_test_nope", **headers), 401
        ),
        "method_not_allowed": error(api.delete("/v1/webhook_endpoint", **headers), 405),
    }


# Words that only an English message contains (identifiers such as `amount` excepted).
ENGLISH = re.compile(
    r"\b(missing|required|invalid|is not|not a valid|choice|must|between|no such|unrecognized|"
    r"method|allowed|provided|send it|this field|belongs|unsupported|only|absolute)\b",
    re.IGNORECASE,
)
FRENCH = re.compile(
    r"(obligatoire|invalide|n’est pas|n'est pas|introuvable|inconnue|doit|compris|fournie|"
    r"autorisée|choix|clé|appartient|prise en charge|uniquement)",
    re.IGNORECASE,
)


@pytest.mark.parametrize(
    "headers", [{}, {"HTTP_ACCEPT_LANGUAGE": "en"}, {"HTTP_ACCEPT_LANGUAGE": "de, en-GB;q=0.5"}]
)
def test_api_errors_are_english_without_a_french_preference(api, anon, headers):
    errors = representative_errors(api, anon, **headers)
    for code, error in errors.items():
        assert not FRENCH.search(error["message"]), (code, error["message"])
        assert ENGLISH.search(error["message"]), (code, error["message"])
    assert errors["parameter_missing"]["message"] == "Missing required param: currency."
    assert (
        errors["parameter_invalid"]["message"] == 'Invalid status: "bogus" is not a valid choice.'
    )
    assert errors["parameter_invalid"]["code"] == "parameter_invalid"


@pytest.mark.parametrize("language", ["fr", "fr-FR", "fr-CD,en;q=0.8", "en;q=0.3, fr;q=0.9"])
def test_api_errors_are_wholly_french_when_accept_language_prefers_it(api, anon, language):
    errors = representative_errors(api, anon, HTTP_ACCEPT_LANGUAGE=language)
    for code, error in errors.items():
        assert FRENCH.search(error["message"]), (code, error["message"])
        assert not ENGLISH.search(error["message"]), (code, error["message"])
    assert errors["parameter_missing"]["message"] == "Paramètre obligatoire manquant : currency."
    assert errors["parameter_invalid"]["message"] == (
        "status invalide : «\xa0bogus\xa0» n'est pas un choix valide."
    )
    # Codes, types and params never change with the language.
    assert errors["parameter_missing"]["code"] == "parameter_missing"
    assert errors["amount_invalid"]["param"] == "amount"


def test_a_french_api_request_leaves_the_next_one_english(api, anon):
    representative_errors(api, anon, HTTP_ACCEPT_LANGUAGE="fr")
    response = api.get("/v1/charges", {"status": "bogus"})
    assert response.json()["error"]["message"] == 'Invalid status: "bogus" is not a valid choice.'
    assert response["Content-Language"] == "en"


def test_checkout_pages_stay_french_by_default(merchant):
    session = make_session(merchant)
    page = Client().get(f"/pay/{session.id}")
    assert '<html lang="fr">' in page.text and "Montant à payer" in page.text
