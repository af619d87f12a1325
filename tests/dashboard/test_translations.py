"""The dashboard in French: every message of its code and templates has its French text, and the
committed .mo says what the .po says (the same checks as the other apps',
tests/payments/api/test_api_language.py)."""

import ast

from django.conf import settings
from django.utils import translation

from tests.payments.api.test_api_language import (
    PLURAL_MARK,
    TEMPLATE_BLOCK,
    TEMPLATE_MESSAGE,
    _block_message,
    catalogue,
    translated,
)

APP = settings.BASE_DIR / "dashboard"
SAME_IN_FRENCH = {"Action", "Finance", "Test", "Mode", "Date", "Description", "Invitation",
                  "Actions", "E-mail", "action", "invitation", "invitations", "Net",
                  "Minimum", "Documents", "Type", "Id. Nat.", "Date (%(zone)s)",
                  "Notifications"}  # fmt: skip


def code_messages() -> set[tuple[str | None, str]]:
    found = set()
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in {"_", "gettext", "gettext_lazy"} and node.args:
                    if isinstance(node.args[0], ast.Constant) and isinstance(
                        node.args[0].value, str
                    ):
                        found.add((None, node.args[0].value))
    return found


def template_messages() -> set[tuple[str | None, str]]:
    found = set()
    for path in (APP / "templates").rglob("*.*"):
        text = path.read_text()
        found |= {(None, match["message"]) for match in TEMPLATE_MESSAGE.finditer(text)}
        for match in TEMPLATE_BLOCK.finditer(text):
            trimmed = "trimmed" in match["options"].split()
            forms = [_block_message(f, trimmed) for f in match["message"].split("{% plural %}")]
            if " count " in f" {match['options']} ":
                found.add((PLURAL_MARK, "|".join(forms)))
            else:
                found.add((None, forms[0]))
    return found


def test_every_message_has_its_french_text():
    messages = code_messages() | template_messages()
    assert (None, "A merchant always keeps one owner.") in messages
    assert (None, "Test mode: no real money moves.") in messages
    assert (PLURAL_MARK, "%(n)s payment|%(n)s payments") in messages
    with translation.override("fr"):
        missing = sorted(
            m for m in messages if translated(*m) == m[1] and m[1] not in SAME_IN_FRENCH
        )
    assert missing == []


# Field names another app's catalogue translates too, and first (it comes earlier in
# INSTALLED_APPS).
SHARED = {(None, "created at"), (None, "expires at"), (None, "updated at"), (None, "submitted at")}


def test_the_compiled_catalogue_is_the_one_written():
    entries = catalogue(APP / "locale/fr/LC_MESSAGES/django.po")
    entries = {k: v for k, v in entries.items() if k not in SHARED}
    assert len(entries) > 150
    with translation.override("fr"):
        stale = {k: v for k, v in entries.items() if translated(*k) != v}
    assert stale == {}
