"""Every operation of the OpenAPI document under the name the three libraries give it alike: a
resource (`("charges",)`, `("checkout", "sessions")`) and a method (`create`, `list`,
`rotate_secret`), in snake case; each library spells them its own way
(`client.webhook_endpoint.rotate_secret()`, `client.webhookEndpoint.rotateSecret()`,
`$client->webhookEndpoint->rotateSecret()`).

The names come from the paths by one rule, so that a new endpoint lands in its place without a
list to keep:

- `/v1/charges` GET is `charges.list` (a page of objects) and POST `charges.create`;
  `/v1/charges/{charge_id}` GET is `charges.retrieve(id)` and POST `…update(id)`;
- a path of several words before any id is a nested resource (`/v1/checkout/sessions` is
  `checkout.sessions`), unless its first words are themselves a path of the document: then its last
  word is an action of that resource (`/v1/networks/predict` is `networks.predict`,
  `/v1/webhook_endpoint/rotate_secret` `webhook_endpoint.rotate_secret`);
- a word after an id is an action (`/v1/checkout/sessions/{id}/expire` is
  `checkout.sessions.expire(id)`), or a list (`/v1/events/{id}/deliveries` is
  `events.list_deliveries(id)`, `/v1/payout_batches/{id}/items` `payout_batches.list_items(id)`),
  unless the word is a resource of its own: then the path is that resource's method with the
  parent's id first (`/v1/charges/{id}/refunds` POST is `refunds.create(charge_id, …)`, and its GET
  `refunds.list(charge_id)` beside `refunds.list()`);
- a path without an id that is no list and has no ids below it is a single object:
  GET `retrieve`, POST `update` (`/v1/webhook_endpoint`, `/v1/balance`, `/v1/pricing`);
- DELETE of an id is `delete(id)`.

A path this rule cannot place stops the generation (`NamingError`): the rule is then extended on
purpose. Two operations share a name only as `refunds.list()` and `refunds.list(charge_id)` do;
a library then chooses by the path parameters given."""

import re
from dataclasses import dataclass, field

API_PREFIX = "/v1/"
# The verbs the libraries speak; the rule above has no name for a PUT or a PATCH.
HTTP_METHODS = ("get", "post", "delete")


class NamingError(ValueError):
    """An operation of the document that the rule cannot place."""


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


def name(
    http_method: str, path: str, paginated: bool, paths: set[str]
) -> tuple[tuple[str, ...], str]:
    """(resource, method) of one operation, by the rule of this module's docstring."""
    if not path.startswith(API_PREFIX):
        raise NamingError(f"{http_method} {path}: not under {API_PREFIX}")
    words = path.removeprefix(API_PREFIX).split("/")
    ids = [index for index, word in enumerate(words) if word.startswith("{")]
    if not ids:
        parent = API_PREFIX + "/".join(words[:-1])
        if len(words) > 1 and parent in paths:  # an action of the resource above
            return tuple(words[:-1]), words[-1]
        if paginated:
            return tuple(words), "list"
        if http_method == "DELETE":
            return tuple(words), "delete"
        if http_method == "GET":
            return tuple(words), "retrieve"
        collection = any(other.startswith(path + "/{") for other in paths)
        return tuple(words), "create" if collection else "update"
    first = ids[0]
    resource, tail = tuple(words[:first]), words[first + 1 :]
    if not resource or len(ids) > 1 or len(tail) > 1:
        raise NamingError(f"{http_method} {path}: no place for it in the libraries' layout")
    if not tail:
        return resource, {"GET": "retrieve", "POST": "update", "DELETE": "delete"}[http_method]
    word = tail[0]
    if API_PREFIX + word in paths:  # a resource of its own, under its parent's id
        if http_method == "DELETE":
            raise NamingError(f"{http_method} {path}: no place for it in the libraries' layout")
        if http_method == "POST":
            return (word,), "create"
        return (word,), "list" if paginated else "retrieve"
    if http_method != "GET":
        return resource, word
    return resource, f"list_{word}" if paginated else word


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
    paths = set(document["paths"])
    for path, item in document["paths"].items():
        shared = item.get("parameters", [])
        for verb in ("put", "patch"):
            if verb in item:
                raise NamingError(f"{verb.upper()} {path}: the libraries speak GET, POST, DELETE")
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
            if body_content and "application/json" not in body_content:
                raise NamingError(f"{http_method.upper()} {path}: a body that is not JSON")
            body = body_content.get("application/json", {}).get("schema")
            list_item = is_list(document, response)
            query = tuple(p for p in parameters if p["in"] == "query")
            query_names = {p["name"] for p in query}
            pagination = None
            if list_item is not None:
                pagination = "starting_after" if "starting_after" in query_names else "offset"
            resource, method = name(http_method.upper(), path, list_item is not None, paths)
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
    collisions(found)
    return found


def collisions(found: list[Operation]) -> None:
    """Two operations share a name only as a list or a creation beside the same under a
    parent's id (`refunds.list()`, `refunds.list(charge_id)`): a library tells them apart by the
    path parameters given."""
    named: dict[tuple[tuple[str, ...], str], list[Operation]] = {}
    for operation in found:
        named.setdefault((operation.resource, operation.method), []).append(operation)
    for (resource, method), variants in named.items():
        counts = sorted(len(operation.path_params) for operation in variants)
        if len(variants) > 2 or (len(variants) == 2 and (counts[0] != 0 or counts[1] == 0)):
            names = ", ".join(f"{o.http_method} {o.path}" for o in variants)
            raise NamingError(f"{'.'.join(resource)}.{method}: {names} collide")
