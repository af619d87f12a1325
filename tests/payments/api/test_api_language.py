"""/v1 answers in one language per request: English unless Accept-Language prefers French, DRF's
own messages included; the hosted pages keep French as their default."""

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from tests.factories import make_charge, make_session, record_event

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
CARD = {"amount": 1999, "currency": "USD", "payment_method": "card"}
SESSION = {
    "amount": 250000,
    "currency": "CDF",
    "success_url": "https://shop.example.cd/ok",
    "cancel_url": "https://shop.example.cd/ko",
}


def representative_errors(api: APIClient, anon: APIClient, merchant, **headers) -> dict[str, dict]:
    """code → error object for one request of each kind, all sent with `headers`."""
    pending = make_charge(merchant)
    event = record_event(merchant)

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
        "parameter_unknown": error(
            api.post("/v1/charges", {**MM, "colour": "red"}, format="json", **headers), 400
        ),
        "card_data_forbidden": error(
            api.post(
                "/v1/charges", {**MM, "card_number": "4242424242424242"}, format="json", **headers
            ),
            400,
        ),
        "invalid_json": error(
            api.post("/v1/charges", "{", content_type="application/json", **headers), 400
        ),
        "request_too_large": error(
            api.post("/v1/charges", MM, format="json", CONTENT_LENGTH=str(10**8), **headers), 413
        ),
        "nul_in_url": error(api.get("/v1/charges", {"status": "\x00"}, **headers), 400),
        "limit_not_an_integer": error(api.get("/v1/charges", {"limit": "ten"}, **headers), 400),
        "limit_out_of_range": error(api.get("/v1/charges", {"limit": 500}, **headers), 400),
        "date_invalid": error(api.get("/v1/charges", {"date_from": "yesterday"}, **headers), 400),
        "starting_after_unknown": error(
            api.get("/v1/charges", {"starting_after": "ch_nothing"}, **headers), 400
        ),
        "url_refused": error(
            api.post(
                "/v1/charges",
                {**MM, "callback_url": "http://169.254.169.254/hooks"},
                format="json",
                **headers,
            ),
            400,
        ),
        "idempotency_key_invalid": error(
            api.post("/v1/charges", MM, format="json", HTTP_IDEMPOTENCY_KEY="", **headers), 400
        ),
        "charge_not_refundable": error(
            api.post(f"/v1/charges/{pending.id}/refunds", {}, format="json", **headers), 400
        ),
        "balance_insufficient": error(
            api.post("/v1/payouts", {**MM, "amount": 5000}, format="json", **headers), 400
        ),
        "expires_in_invalid": error(
            api.post(
                "/v1/checkout/sessions", {**SESSION, "expires_in": 5}, format="json", **headers
            ),
            400,
        ),
        "session_amount_invalid": error(
            api.post(
                "/v1/checkout/sessions", {**SESSION, "amount": 250050}, format="json", **headers
            ),
            400,
        ),
        "webhook_url_missing": error(api.post(f"/v1/events/{event.id}/resend", **headers), 400),
    }


# Words that only an English message contains (identifiers such as `amount` excepted).
ENGLISH = re.compile(
    r"\b(missing|required|invalid|is not|not a valid|choice|must|between|no such|unrecognized|"
    r"method|allowed|provided|send it|this field|belongs|unsupported|only|absolute|unknown|"
    r"never|larger|contain|available|already|nowhere|expected|expecting|cannot)\b",
    re.IGNORECASE,
)
FRENCH = re.compile(
    r"(obligatoire|invalide|n’est pas|n'est pas|introuvable|inconnue|doit|compris|fournie|"
    r"autorisée|choix|clé|appartient|prise en charge|uniquement|inconnu|jamais|dépasse|"
    r"contenir|disponible|déjà|aucune destination|attendu|ne peuvent|seuls)",
    re.IGNORECASE,
)


@pytest.mark.parametrize(
    "headers", [{}, {"HTTP_ACCEPT_LANGUAGE": "en"}, {"HTTP_ACCEPT_LANGUAGE": "de, en-GB;q=0.5"}]
)
def test_api_errors_are_english_without_a_french_preference(api, anon, merchant, headers):
    errors = representative_errors(api, anon, merchant, **headers)
    for code, error in errors.items():
        assert not FRENCH.search(error["message"]), (code, error["message"])
        assert ENGLISH.search(error["message"]), (code, error["message"])
    assert errors["parameter_missing"]["message"] == "Missing required param: currency."
    assert (
        errors["parameter_invalid"]["message"] == 'Invalid status: "bogus" is not a valid choice.'
    )
    assert errors["parameter_invalid"]["code"] == "parameter_invalid"
    assert errors["url_refused"]["message"] == (
        "Webhooks cannot be sent there: 169.254.169.254 is a cloud metadata address."
    )
    assert errors["invalid_json"]["message"] == (
        "The request body must be a JSON object (Expecting property name enclosed in double "
        "quotes at line 1 column 2)."
    )


@pytest.mark.parametrize("language", ["fr", "fr-FR", "fr-CD,en;q=0.8", "en;q=0.3, fr;q=0.9"])
def test_api_errors_are_wholly_french_when_accept_language_prefers_it(
    api, anon, merchant, language
):
    errors = representative_errors(api, anon, merchant, HTTP_ACCEPT_LANGUAGE=language)
    for code, error in errors.items():
        assert FRENCH.search(error["message"]), (code, error["message"])
        assert not ENGLISH.search(error["message"]), (code, error["message"])
    assert errors["parameter_missing"]["message"] == "Paramètre obligatoire manquant : currency."
    assert errors["parameter_invalid"]["message"] == (
        "status invalide : «\xa0bogus\xa0» n'est pas un choix valide."
    )
    assert errors["url_refused"]["message"] == (
        "Les webhooks ne peuvent pas être envoyés à cette adresse : 169.254.169.254 est une "
        "adresse de métadonnées du cloud."
    )
    assert errors["invalid_json"]["message"] == (
        "Le corps de la requête doit être un objet JSON (nom de propriété entre guillemets "
        "doubles attendu à la ligne 1, colonne 2)."
    )
    # Codes, types and params never change with the language.
    assert errors["parameter_missing"]["code"] == "parameter_missing"
    assert errors["amount_invalid"]["param"] == "amount"


def test_a_french_api_request_leaves_the_next_one_english(api, anon, merchant):
    representative_errors(api, anon, merchant, HTTP_ACCEPT_LANGUAGE="fr")
    response = api.get("/v1/charges", {"status": "bogus"})
    assert response.json()["error"]["message"] == 'Invalid status: "bogus" is not a valid choice.'
    assert response["Content-Language"] == "en"
    # Refused before any view runs, in the same thread as the French request.
    api.get("/v1/charges", {"status": "bogus"}, HTTP_ACCEPT_LANGUAGE="fr")
    nul = api.get("/v1/charges", {"status": "\x00"})
    assert nul.json()["error"]["message"] == "The URL must not contain NUL characters."
    api.get("/v1/charges", {"status": "bogus"}, HTTP_ACCEPT_LANGUAGE="fr")
    large = api.post("/v1/charges", MM, format="json", CONTENT_LENGTH=str(10**8))
    assert large.json()["error"]["message"].startswith("The request body is larger than")


@pytest.mark.parametrize(
    ("headers", "provider", "network"),
    [
        ({}, "Vodacom M-Pesa is not available in test mode yet", "Airtel Money is unavailable"),
        (
            {"HTTP_ACCEPT_LANGUAGE": "fr"},
            "Vodacom M-Pesa n’est pas encore disponible en mode test",
            "Airtel Money est indisponible",
        ),
    ],
)
def test_unavailable_providers_and_networks_are_said_in_the_request_language(
    api, settings, headers, provider, network
):
    from payments.services.networks import network_set_closed

    providers = settings.PAYMENT_PROVIDERS
    settings.PAYMENT_PROVIDERS = {
        **providers,
        "test": {k: v for k, v in providers["test"].items() if k != "VODACOM_MPESA"},
    }
    unconnected = api.post("/v1/charges", MM, format="json", **headers)
    assert unconnected.status_code == 503
    assert unconnected.json()["error"]["code"] == "provider_unavailable"
    assert unconnected.json()["error"]["message"].startswith(provider)
    network_set_closed(network="AIRTEL_MONEY", livemode=False, closed=True)
    airtel = {**MM, "phone": "+243971234567", "network": "AIRTEL_MONEY"}
    closed = api.post("/v1/charges", airtel, format="json", **headers)
    assert closed.status_code == 503
    assert closed.json()["error"]["code"] == "network_unavailable"
    assert closed.json()["error"]["message"].startswith(network)


def test_checkout_pages_stay_french_by_default(merchant):
    session = make_session(merchant)
    page = Client().get(f"/pay/{session.id}")
    assert '<html lang="fr">' in page.text and "Montant à payer" in page.text


# --- The French catalogue ---------------------------------------------------------------------

TRANSLATED = {"_", "gettext", "gettext_lazy", "gettext_noop"}
IN_CONTEXT = {"pgettext", "pgettext_lazy"}  # (context, message)
PLURAL = {
    "ngettext",
    "ngettext_lazy",
}  # (singular, plural): kept as (PLURAL_MARK, "singular|plural")
SAME_IN_FRENCH = {  # French writes them alike
    "live",
    "test",
    "ID",
    "Transaction",
    "Type",
    "Mobile money",
    "Kinshasa (UTC+1)",
    "Lubumbashi (UTC+2)",
}


def marked_messages() -> set[tuple[str | None, str]]:
    """Every message the code marks for translation (core, payments, checkout, links, webhooks,
    sandbox, batches), as (context, message): the context None when the message is marked without
    one."""
    messages = set()
    for app in ("core", "payments", "checkout", "links", "webhooks", "sandbox", "batches"):
        for path in (settings.BASE_DIR / app).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                args = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
                if node.func.id in TRANSLATED and args and isinstance(args[0], str):
                    messages.add((None, args[0]))
                elif (
                    node.func.id in PLURAL
                    and len(args) > 1
                    and all(isinstance(a, str) for a in args[:2])
                ):
                    messages.add((PLURAL_MARK, f"{args[0]}|{args[1]}"))
                elif (
                    node.func.id in IN_CONTEXT
                    and len(args) > 1
                    and all(isinstance(a, str) for a in args[:2])
                ):
                    messages.add((args[0], args[1]))
    return messages


PLURAL_MARK = "(plural)"


def translated(context: str | None, message: str) -> str:
    if context == PLURAL_MARK:  # both forms of an ngettext, as "singular|plural"
        singular, plural = message.split("|")
        return "|".join(translation.ngettext(singular, plural, n) for n in (1, 2))
    return (
        translation.gettext(message) if context is None else translation.pgettext(context, message)
    )


def catalogue(path: Path) -> dict[tuple[str | None, str], str]:
    """(msgctxt, msgid) → msgstr of a .po file (the header and plural forms left out)."""
    entries, current, key = {}, {}, None
    for line in [*path.read_text().splitlines(), ""]:
        if line.startswith("msg"):
            key, _, text = line.partition(" ")
            current[key] = ast.literal_eval(text)
        elif line.startswith('"') and key:
            current[key] += ast.literal_eval(line)
        elif not line.strip() and current:
            if current.get("msgid") and "msgstr" in current:
                entries[current.get("msgctxt"), current["msgid"]] = current["msgstr"]
            current, key = {}, None
    return entries


def test_every_message_marked_in_the_code_has_its_french_translation():
    messages = marked_messages()
    assert (None, "Missing required param: %(param)s.") in messages and len(messages) > 100
    assert ("status", "Succeeded") in messages
    assert (PLURAL_MARK, "Revoked %(count)d key.|Revoked %(count)d keys.") in messages
    with translation.override("fr"):
        untranslated = sorted(
            m for m in messages if translated(*m) == m[1] and m[1] not in SAME_IN_FRENCH
        )
    assert untranslated == []


TEMPLATE_MESSAGE = re.compile(r"""{% translate (?P<q>["'])(?P<message>.+?)(?P=q)""")
TEMPLATE_BLOCK = re.compile(
    r"{% blocktranslate(?P<options>[^%]*)%}(?P<message>.+?){% endblocktranslate %}", re.S
)
TEMPLATE_VARIABLE = re.compile(r"{{ *(\w+) *}}")


def _block_message(text: str, trimmed: bool) -> str:
    """A blocktranslate's message as Django looks it up: its variables as %(name)s, and, when
    trimmed, its lines joined by one space."""
    if trimmed:
        text = " ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return TEMPLATE_VARIABLE.sub(r"%(\1)s", text)


def template_messages() -> set[tuple[str | None, str]]:
    """The messages of the templates, as (None or PLURAL_MARK, message): each `{% translate "…"
    %}` and each `{% blocktranslate %}` (with `count`, its two forms)."""
    messages = set()
    for path in (settings.BASE_DIR / "templates").rglob("*.html"):
        text = path.read_text()
        messages |= {(None, match["message"]) for match in TEMPLATE_MESSAGE.finditer(text)}
        for match in TEMPLATE_BLOCK.finditer(text):
            trimmed = "trimmed" in match["options"].split()
            forms = [_block_message(f, trimmed) for f in match["message"].split("{% plural %}")]
            if " count " in f" {match['options']} ":
                messages.add((PLURAL_MARK, "|".join(forms)))
            else:
                messages.add((None, forms[0]))
    return messages


def test_every_message_of_the_templates_has_its_french_translation():
    messages = template_messages()
    assert (None, "Yes, the operator paid them") in messages
    assert any(m.startswith("<strong>Copy each key now") for _, m in messages)
    with translation.override("fr"):
        untranslated = sorted(
            m for m in messages if translated(*m) == m[1] and m[1] not in SAME_IN_FRENCH
        )
    assert untranslated == []


def test_the_compiled_catalogue_is_the_one_written():
    """The .mo files are committed: each says what its .po says (compilemessages was run)."""
    for app in ("core", "payments", "checkout", "links", "webhooks"):
        entries = catalogue(settings.BASE_DIR / app / "locale/fr/LC_MESSAGES/django.po")
        assert entries
        with translation.override("fr"):
            stale = {k: v for k, v in entries.items() if translated(*k) != v}
        assert stale == {}, app
