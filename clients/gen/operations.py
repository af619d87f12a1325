"""Every operation of the OpenAPI document under the name the libraries give it alike: a resource
(`("charges",)`, `("checkout", "sessions")`) and a method (`create`, `list`, `rotate_secret`), in
snake case; each library spells them its own way (`client.checkout.sessions.create`,
`client.checkout.sessions.create`, `$client->checkout->sessions->create`).

The names come from the document itself, so that a new operation of the service is picked up
without a change here. The resource is the longest run of a path's leading segments (after
/v1) that starts the operation's id, the segments joined by `_` (`checkout_sessions_expire` →
`("checkout", "sessions")` and `expire`; `payout_batches_items` → `("payout_batches",)` and
`items`); a singular form counts too (`charge_…` for `charges`). What is left of the id is the
method. An operation that fits no run takes its path's first segment and its whole id.

`RENAMED` holds the few names that read better otherwise; two operations may share a name (a
library then chooses by the path parameters given: `refunds.list(charge_id)` or
`refunds.list()`)."""

import re
from dataclasses import dataclass, field

API_PREFIX = "/v1/"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")

# operationId → (resource, method).
RENAMED = {
    # client.refunds.list(charge_id), beside client.refunds.list() for every refund.
    "charge_refunds_list": (("refunds",), "list"),
    "event_deliveries_list": (("events",), "list_deliveries"),
}


@dataclass(frozen=True)
class Operation:
    id: str  # operationId
    resource: tuple[str, ...]
    method: str
    http_method: str  # GET, POST, …
    path: str  # /v1/charges/{charge_id}
    path_params: tuple[str, ...]  # in the order of the path
    query: tuple[dict, ...]  # the OpenAPI parameter objects in the query
    body: dict | None  # the request body's JSON schema (a $ref or inline), if any
    body_required: bool
    status: int  # the success status
    response: dict | None  # the success answer's JSON schema, None when not JSON
    response_media: str | None  # its media type (application/json, text/csv, …)
    list_item: dict | None  # for a list (the list envelope): the schema of its items
    pagination: str | None  # "starting_after", "offset" or None (not a list)
    summary: str = ""
    description: str = ""
    idempotent_header: bool = False  # documents an Idempotency-Key header
    extra: dict = field(default_factory=dict, compare=False)  # the operation object itself


def resolve(document: dict, schema: dict | None) -> dict:
    """The schema a `$ref` (or an `allOf` of one schema, as drf-spectacular describes a field
    with its own description) points at, followed until it is neither; or the schema itself."""
    while schema and ("$ref" in schema or len(schema.get("allOf", ())) == 1):
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        else:
            schema = schema["allOf"][0]
    return schema or {}


def ref_name(schema: dict | None) -> str | None:
    return schema["$ref"].rsplit("/", 1)[-1] if schema and "$ref" in schema else None


def static_segments(path: str) -> list[str]:
    """The leading segments of a path after /v1, up to its first parameter."""
    segments = []
    for segment in path.removeprefix(API_PREFIX).split("/"):
        if segment.startswith("{"):
            break
        segments.append(segment)
    return segments


def resources(document: dict) -> list[tuple[str, ...]]:
    """Every run of leading segments of the document's paths, the longest (as joined) first."""
    found = set()
    for path in document["paths"]:
        segments = static_segments(path)
        found |= {tuple(segments[:length]) for length in range(1, len(segments) + 1)}
    return sorted(found, key=lambda run: (-len("_".join(run)), run))


def name(document: dict, operation_id: str, path: str) -> tuple[tuple[str, ...], str]:
    if operation_id in RENAMED:
        return RENAMED[operation_id]
    for run in resources(document):
        joined = "_".join(run)
        for prefix in (joined, joined.removesuffix("s")):
            if operation_id.startswith(f"{prefix}_"):
                return run, operation_id.removeprefix(f"{prefix}_")
    return (static_segments(path)[0],), operation_id


def is_list(document: dict, schema: dict | None) -> dict | None:
    """The item schema when `schema` is the list envelope (object "list", data, has_more)."""
    resolved = resolve(document, schema)
    properties = resolved.get("properties", {})
    kind = resolve(document, properties.get("object"))
    if kind.get("enum") == ["list"] and "data" in properties and "has_more" in properties:
        return properties["data"].get("items")
    return None


def operations(document: dict) -> list[Operation]:
    """The document's operations, in the document's order (paths, then methods)."""
    found = []
    for path, item in document["paths"].items():
        shared = item.get("parameters", [])
        for http_method in HTTP_METHODS:
            if http_method not in item:
                continue
            operation = item[http_method]
            parameters = [resolve(document, p) for p in [*shared, *operation.get("parameters", [])]]
            success = sorted(
                code for code in operation["responses"] if re.fullmatch(r"2\d\d", code)
            )
            status = int(success[0]) if success else 200
            content = operation["responses"].get(str(status), {}).get("content", {})
            media = next(iter(content), None)
            response = (
                content["application/json"].get("schema") if "application/json" in content else None
            )
            body_content = operation.get("requestBody", {}).get("content", {})
            body = body_content.get("application/json", {}).get("schema")
            list_item = is_list(document, response)
            query = tuple(p for p in parameters if p["in"] == "query")
            query_names = {p["name"] for p in query}
            pagination = None
            if list_item is not None:
                pagination = "starting_after" if "starting_after" in query_names else "offset"
            resource, method = name(document, operation["operationId"], path)
            found.append(
                Operation(
                    id=operation["operationId"],
                    resource=resource,
                    method=method,
                    http_method=http_method.upper(),
                    path=path,
                    path_params=tuple(re.findall(r"\{(\w+)\}", path)),
                    query=query,
                    body=body,
                    body_required=bool(operation.get("requestBody", {}).get("required")),
                    status=status,
                    response=response,
                    response_media=media,
                    list_item=list_item,
                    pagination=pagination,
                    summary=operation.get("summary", ""),
                    description=operation.get("description", ""),
                    idempotent_header=any(
                        p["in"] == "header" and p["name"].lower() == "idempotency-key"
                        for p in parameters
                    ),
                    extra=operation,
                )
            )
    return found
