"""Request bodies: JSON objects only, read by one safe loader.

`loads` is the only way a request body becomes data, under /v1 (the DRF parser) and in the
operators' callbacks alike. Whatever the body, it answers data or raises `InvalidJson`: never a
RecursionError (nesting is measured before parsing, iteratively), never a 500 later on (NaN and
Infinity, NUL characters and lone surrogates, which no column can store, are refused here, and
so is an object that names a field twice).
"""

import json
import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.errors import TranslatableError

MAX_JSON_DEPTH = 32  # our own bodies need 2 levels, the operators' callbacks fewer than 10

# Python's wording of what is wrong in a JSON text, as the catalogue has it; wordings that name
# the offending character are said without it, any other as "Invalid JSON".
JSON_PROBLEMS = {
    "Expecting value": gettext_noop("Expecting value"),
    "Expecting property name": gettext_noop("Expecting property name enclosed in double quotes"),
    "Expecting ':'": gettext_noop("Expecting ':' delimiter"),
    "Expecting ','": gettext_noop("Expecting ',' delimiter"),
    "Extra data": gettext_noop("Extra data"),
    "Unterminated string": gettext_noop("Unterminated string"),
    "Invalid control character": gettext_noop("Invalid control character in a string"),
    "Invalid \\": gettext_noop("Invalid escape in a string"),
    "Illegal trailing comma": gettext_noop("Trailing comma"),
}

# A JSON string (skipped whole, so brackets inside it do not count) or one bracket.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class InvalidJson(TranslatableError, ValueError):
    """A body that is not JSON this service accepts; the message says why (in English for the log
    line and the operators, `localized()` for an API answer)."""


def _too_deep(text: str) -> bool:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif token in "]}":
            depth -= 1
    return False


def _no_constants(name: str):
    raise InvalidJson(gettext_noop("%(name)s is not a JSON number"), name=name)


def _object(pairs: list) -> dict:
    """A JSON object whose names are all different. A name given twice (`{"amount": 100,
    "amount": 250000}`) is read differently by different readers, the first or the last one
    winning: a proxy, a log or the merchant's own check could see another amount than the one
    we take. Refused, never guessed."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set = set()
        twice = next(name for name, _ in pairs if name in seen or seen.add(name))
        raise InvalidJson(
            gettext_noop("the name %(name)s appears twice in one object"),
            name=json.dumps(twice[:40]),
        )
    return value


def _check_strings(value) -> None:
    """Every string (keys too) must be storable text: no NUL, no lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            if "\x00" in item:
                raise InvalidJson(gettext_noop("a string contains a NUL character"))
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidJson(gettext_noop("a string contains a lone surrogate")) from None


def _json_problem(message: str) -> str:
    for start, problem in JSON_PROBLEMS.items():
        if message.startswith(start):
            return problem
    return gettext_noop("Invalid JSON")


def loads(raw: bytes | str):
    """The JSON value of `raw` (UTF-8), or InvalidJson."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidJson(gettext_noop("the body is not UTF-8")) from None
    if _too_deep(raw):
        raise InvalidJson(gettext_noop("nested deeper than %(depth)s levels"), depth=MAX_JSON_DEPTH)
    try:
        value = json.loads(raw, parse_constant=_no_constants, object_pairs_hook=_object)
    except InvalidJson:
        raise
    except json.JSONDecodeError as exc:
        raise InvalidJson(
            gettext_noop("%(problem)s at line %(line)s column %(column)s"),
            problem=_json_problem(exc.msg),
            line=exc.lineno,
            column=exc.colno,
        ) from None
    except ValueError:  # an integer of more digits than Python converts
        raise InvalidJson(gettext_noop("a number has too many digits")) from None
    _check_strings(value)
    return value


def loads_object(raw: bytes | str) -> dict:
    """A body that must be a JSON object."""
    value = loads(raw)
    if not isinstance(value, dict):
        raise InvalidJson(gettext_noop("the body is not a JSON object"))
    return value


class JsonObjectParser(JSONParser):
    """DRF hands over `request.body`, which Django reads up to DATA_UPLOAD_MAX_MEMORY_SIZE
    (= MAX_REQUEST_BODY) only, whether or not the client announced the length."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return loads_object(stream.read() if stream is not None else b"")
        except InvalidJson as exc:
            raise ParseError(
                _("The request body must be a JSON object (%(reason)s).")
                % {"reason": exc.localized()}
            ) from None
