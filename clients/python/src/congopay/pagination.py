"""A page of a list, and every page after it.

`client.charges.list(status="succeeded")` asks for the first page at once (so that a refused
filter raises there); iterating what it returns yields every object of every page, newest
first, asking for the next page only when the previous one is used up. Pages follow each other
by `starting_after` (the last id of the page), which no object created meanwhile can shift, or by
`offset` for the lists that take no `starting_after`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from .transport import Transport

T = TypeVar("T")


class Page(Generic[T]):
    def __init__(
        self, transport: Transport, path: str, params: dict[str, Any], pagination: str
    ) -> None:
        self._transport = transport
        self._path = path
        self._params = params
        self._pagination = pagination
        first = transport.request("GET", path, query=params)
        self.data: list[T] = first["data"]
        self.has_more: bool = first["has_more"]
        self.url: str = first.get("url", path)

    def __iter__(self) -> Iterator[T]:
        data, has_more, params = self.data, self.has_more, dict(self._params)
        while True:
            yield from data
            if not (has_more and data):
                return
            if self._pagination == "starting_after":
                params.pop("offset", None)
                params["starting_after"] = data[-1]["id"]  # type: ignore[index]
            else:
                params["offset"] = int(params.get("offset") or 0) + len(data)
            page = self._transport.request("GET", self._path, query=params)
            data, has_more = page["data"], page["has_more"]

    def __repr__(self) -> str:
        return f"<Page {self.url} of {len(self.data)} (has_more={self.has_more})>"
