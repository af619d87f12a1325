"""How every app writes the examples the API reference (/v1/docs) shows: a request, an answer,
and a page of a list as the API sends it. The examples themselves are each app's (payments/
examples.py, the other apps' api/schemas.py); a test checks each against its schema."""

from drf_spectacular.utils import OpenApiExample


def page(path: str, *objects: dict) -> dict:
    return {
        "object": "list",
        "url": path,
        "data": list(objects),
        "has_more": False,
        "limit": 10,
        "offset": 0,
    }


def answer(name: str, value: dict, status: int = 200, summary: str = "") -> OpenApiExample:
    return OpenApiExample(
        name, value=value, summary=summary, response_only=True, status_codes=[str(status)]
    )


def request(name: str, value: dict, summary: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, summary=summary, request_only=True)
