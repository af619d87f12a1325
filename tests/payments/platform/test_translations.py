"""French on the staff pages: every model the admin shows, each of its fields and each column or
label the admin adds has a French name (the words French writes the same are left unmarked).
That each committed .mo says what its .po says: tests/payments/api/test_api_language.py."""

from django.apps import apps
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
    "SWIFT/BIC",
}


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
