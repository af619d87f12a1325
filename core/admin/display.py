"""How the staff pages show values: JSON (metadata, providers' answers) as a readable block, short
values (amounts, times) on one line, modes and statuses in the staff's language."""

import json

from django.utils.html import format_html
from django.utils.translation import gettext


def json_block(value) -> str:
    """Indented JSON, wrapped to the page's width."""
    return format_html(
        "<pre class='wrapped'>{}</pre>",
        json.dumps(value, indent=2, ensure_ascii=False),
    )


def nowrap(text: str) -> str:
    """A short value (an amount, a time) kept on one line in a narrow column."""
    return format_html('<span class="nowrap">{}</span>', text)


def fieldset_fields(fieldsets) -> list[str]:
    """Every field a page's fieldsets show: a read-only page lists them all as read-only."""
    return [name for _title, group in fieldsets for name in group["fields"]]


def mode_name(livemode: bool) -> str:
    """A mode as staff read it: "live" or "test", in their language."""
    return gettext("live") if livemode else gettext("test")


def status_word(obj) -> str:
    """An object's status inside a sentence, in the staff's language ("Versement po_… : réussi.")."""
    return str(obj.get_status_display()).lower()
