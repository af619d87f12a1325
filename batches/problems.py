"""What keeps a row of a payout batch from being paid, said in every language of the service.

A problem is kept with its row (PayoutBatchItem.problems) as written when the row was checked,
in each language of settings.LANGUAGES, so that the preview shows it in the reader's language
whatever language the file was read in."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import translation

# The columns of a row, in the order its problems are told.
COLUMNS = ("phone", "amount", "currency", "network", "reference", "description")


@dataclass(frozen=True)
class Problem:
    column: str | None  # None: the row as a whole (its number of cells)
    code: str  # the API's error code (phone_invalid, amount_invalid, …)
    messages: dict[str, str] = field(compare=False)  # by language code

    @property
    def message(self) -> str:
        """In the active language (English when it has none)."""
        language = (translation.get_language() or "en")[:2]
        return self.messages.get(language) or self.messages.get("en") or ""

    def as_json(self) -> dict:
        return {"column": self.column, "code": self.code, "messages": self.messages}

    @classmethod
    def from_json(cls, data: dict) -> "Problem":
        return cls(column=data["column"], code=data["code"], messages=data["messages"])


def problem(column: str | None, code: str, words: Callable[[], str]) -> Problem:
    """A problem whose message `words()` says (with gettext) in each language."""
    messages = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            messages[language] = str(words())
    return Problem(column=column, code=code, messages=messages)


def column_order(item: Problem) -> int:
    return COLUMNS.index(item.column) if item.column in COLUMNS else -1
