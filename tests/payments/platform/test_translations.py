"""French on the staff pages, and catalogues that are compiled: every model the admin shows, each
of its fields and each column or label the admin adds has a French name, and each committed .mo
file says what its .po source says (`msgfmt -o django.mo django.po` after editing a .po)."""

import ast
import gettext
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.utils import translation

OURS = ("payments", "checkout", "webhooks")
SAME_IN_FRENCH = {
    "ID",
    "URL",
    "mode",
    "Mode",
    "description",
    "type",
    "source",
    "Source",
    "Webhooks",
}
CATALOGUES = sorted(Path(settings.BASE_DIR).glob("*/locale/fr/LC_MESSAGES/django.po"))


def untranslated(names) -> list[str]:
    missing = []
    for name in names:
        with translation.override("en"):
            english = str(name)
        with translation.override("fr"):
            french = str(name)
        if french == english and english not in SAME_IN_FRENCH:
            missing.append(english)
    return missing


def test_every_model_and_field_the_admin_shows_has_a_french_name():
    names = [apps.get_app_config(label).verbose_name for label in OURS]
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in OURS:
            continue
        meta = model._meta
        names += [meta.verbose_name, meta.verbose_name_plural]
        names += [field.verbose_name for field in meta.get_fields() if field.concrete]
        shown = [*model_admin.list_display, *model_admin.get_readonly_fields(None)]
        for item in shown:
            column = item if callable(item) else getattr(model_admin, item, None)
            if hasattr(column, "short_description"):
                names.append(column.short_description)
    assert untranslated(names) == []


def po_entries(path: Path) -> dict[str, str]:
    """msgid → msgstr of a .po file (translated, single-form entries)."""
    entries, msgid, msgstr, part = {}, None, None, None
    for line in [*path.read_text().splitlines(), ""]:
        if line.startswith('"') and part == "id":
            msgid += ast.literal_eval(line)
        elif line.startswith('"') and part == "str":
            msgstr += ast.literal_eval(line)
        elif line.startswith("msgstr "):
            msgstr, part = ast.literal_eval(line[7:]), "str"
        else:  # the end of an entry: a blank line, a comment or the next msgid
            if msgid and msgstr:
                entries[msgid] = msgstr
            msgid, msgstr, part = None, None, None
            if line.startswith("msgid "):
                msgid, part = ast.literal_eval(line[6:]), "id"
    return entries


@pytest.mark.parametrize("source", CATALOGUES, ids=lambda path: path.parts[-5])
def test_compiled_catalogue_says_what_its_source_says(source):
    with open(source.with_suffix(".mo"), "rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    entries = po_entries(source)
    assert entries
    assert {k: catalogue.gettext(k) for k in entries} == entries
