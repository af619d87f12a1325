"""How the operations of the service's OpenAPI document become resources and methods of the
JavaScript and PHP libraries, by one rule over the paths, so that a new endpoint lands in its place
without a list to keep:

- `/v1/charges` GET is `charges.list` (a page of objects) and POST `charges.create`;
  `/v1/charges/{charge_id}` GET is `charges.retrieve(id)` and POST `…update(id)`;
- a path of several words before any id is a nested resource (`/v1/checkout/sessions` is
  `checkout.sessions`), unless its first words are themselves a path of the document: then its last
  word is an action of that resource (`/v1/networks/predict` is `networks.predict`,
  `/v1/webhook_endpoint/rotate_secret` `webhookEndpoint.rotateSecret`);
- a word after an id is an action (`/v1/checkout/sessions/{id}/expire` is
  `checkout.sessions.expire(id)`), or a list (`/v1/events/{id}/deliveries` is
  `events.listDeliveries(id)`), unless the word is a resource of its own: then the path is that
  resource's method with the parent's id first (`/v1/charges/{id}/refunds` POST is
  `refunds.create(chargeId, …)`, and its GET `refunds.list(chargeId)` beside `refunds.list()`);
- a path without an id that is no list and has no ids below it is a single object:
  GET `retrieve`, POST `update` (`/v1/webhook_endpoint`, `/v1/balance`, `/v1/pricing`);
- DELETE of an id is `delete(id)`.

A path this rule cannot place stops the generation: the rule is then extended on purpose."""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "/v1/"
IDEMPOTENCY_HEADER = "Idempotency-Key"


class LayoutError(ValueError):
    """An operation of the document that the rule cannot place."""


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict
    required: bool
    description: str


@dataclass
class Operation:
    operation_id: str
    http_method: str  # "GET", "POST" or "DELETE"
    path: str  # "/v1/charges/{charge_id}"
    resource: tuple[str, ...]  # ("checkout", "sessions")
    method: str  # in snake case: "list", "rotate_secret", "list_deliveries"
    path_params: list[Param]  # in the order of the path
    query: list[Param]
    body: dict | None  # the JSON request body's schema
    body_required: bool
    response: dict | None  # the JSON answer's schema (None: a text answer, or none)
    response_text: bool  # the answer is text (a CSV statement)
    item: dict | None  # a list's item schema: the method walks every page
    keyset: bool  # pages follow `starting_after` (else `offset`)
    summary: str
    description: str

    @property
    def paginated(self) -> bool:
        return self.item is not None


def resolve(spec: dict, schema: dict) -> dict:
    """The schema a `$ref` points at (itself when it is none)."""
    while "$ref" in schema:
        name = schema["$ref"].rpartition("/")[2]
        schema = spec["components"]["schemas"][name]
    return schema


def ref_name(schema: dict) -> str | None:
    ref = schema.get("$ref")
    return ref.rpartition("/")[2] if ref else None


def snake_to_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def snake_to_pascal(name: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[_.]", name) if word)


def _list_item(spec: dict, response: dict | None) -> dict | None:
    """The item schema of a page (`{"object": "list", "data": [...], "has_more": …}`)."""
    if response is None:
        return None
    properties = resolve(spec, response).get("properties", {})
    data = properties.get("data")
    if data and data.get("type") == "array" and "has_more" in properties:
        return data["items"]
    return None


def _answer(spec: dict, operation: dict) -> tuple[dict | None, bool]:
    for status, answer in sorted(operation.get("responses", {}).items()):
        if not status.startswith("2"):
            continue
        content = answer.get("content") or {}
        if "application/json" in content:
            return content["application/json"]["schema"], False
        if content:
            return None, True
        return None, False
    return None, False


def _params(spec: dict, operation: dict, where: str) -> list[Param]:
    found = []
    for param in operation.get("parameters", []):
        param = resolve(spec, param) if "$ref" in param else param
        if param["in"] != where or param["name"] == IDEMPOTENCY_HEADER:
            continue
        found.append(
            Param(
                name=param["name"],
                schema=param.get("schema", {}),
                required=bool(param.get("required")),
                description=param.get("description", ""),
            )
        )
    return found


def _place(path: str, verb: str, paginated: bool, paths: set[str]) -> tuple[tuple[str, ...], str]:
    """(resource, method) of one operation, by the rule of this module's docstring."""
    if not path.startswith(PREFIX):
        raise LayoutError(f"{verb} {path}: not under {PREFIX}")
    words = path[len(PREFIX) :].split("/")
    ids = [index for index, word in enumerate(words) if word.startswith("{")]
    if not ids:
        parent = PREFIX + "/".join(words[:-1])
        if len(words) > 1 and parent in paths:  # an action of the resource above
            return tuple(words[:-1]), words[-1]
        if paginated:
            return tuple(words), "list"
        if verb == "DELETE":
            return tuple(words), "delete"
        if verb == "GET":
            return tuple(words), "retrieve"
        collection = any(other.startswith(path + "/{") for other in paths)
        return tuple(words), "create" if collection else "update"
    first = ids[0]
    resource, tail = tuple(words[:first]), words[first + 1 :]
    if not resource or len(ids) > 1 or len(tail) > 1:
        raise LayoutError(f"{verb} {path}: no place for it in the libraries' layout")
    if not tail:
        return resource, {"GET": "retrieve", "POST": "update", "DELETE": "delete"}[verb]
    word = tail[0]
    if PREFIX + word in paths:  # a resource of its own, under its parent's id
        if verb == "DELETE":
            raise LayoutError(f"{verb} {path}: no place for it in the libraries' layout")
        if verb == "POST":
            return (word,), "create"
        return (word,), "list" if paginated else "retrieve"
    if verb != "GET":
        return resource, word
    return resource, f"list_{word}" if paginated else word


def operations(spec: dict) -> list[Operation]:
    """Every operation of the document, placed."""
    paths = set(spec["paths"])
    found = []
    for path, item in spec["paths"].items():
        for verb, operation in item.items():
            if verb not in ("get", "post", "delete"):
                if verb in ("put", "patch"):
                    raise LayoutError(
                        f"{verb.upper()} {path}: the libraries speak GET, POST, DELETE"
                    )
                continue
            response, text = _answer(spec, operation)
            item_schema = _list_item(spec, response)
            query = _params(spec, operation, "query")
            resource, method = _place(path, verb.upper(), item_schema is not None, paths)
            body = None
            body_required = False
            content = (operation.get("requestBody") or {}).get("content") or {}
            if content:
                if "application/json" not in content:
                    raise LayoutError(f"{verb.upper()} {path}: a body that is not JSON")
                body = content["application/json"]["schema"]
                body_required = bool(operation["requestBody"].get("required"))
            found.append(
                Operation(
                    operation_id=operation["operationId"],
                    http_method=verb.upper(),
                    path=path,
                    resource=resource,
                    method=method,
                    path_params=_path_params(spec, operation, path),
                    query=query,
                    body=body,
                    body_required=body_required,
                    response=response,
                    response_text=text,
                    item=item_schema,
                    keyset=_keyset(spec, item_schema, query),
                    summary=operation.get("summary", ""),
                    description=operation.get("description", ""),
                )
            )
    return found


def _keyset(spec: dict, item: dict | None, query: list[Param]) -> bool:
    """Pages follow the last item's id when the list takes `starting_after` and its items have
    ids: a page then never repeats or skips an item that arrived meanwhile."""
    if item is None or not any(param.name == "starting_after" for param in query):
        return False
    return "id" in resolve(spec, item).get("properties", {})


def _path_params(spec: dict, operation: dict, path: str) -> list[Param]:
    declared = {param.name: param for param in _params(spec, operation, "path")}
    ordered = []
    for name in re.findall(r"\{(\w+)\}", path):
        ordered.append(declared.get(name) or Param(name, {"type": "string"}, True, ""))
    return ordered


def resources(spec: dict) -> dict[tuple[str, ...], dict[str, list[Operation]]]:
    """resource → method → its operations: one, or two when a resource's list or create also
    exists under a parent's id (`refunds.list()` and `refunds.list(chargeId)`), the one without
    the id first. Sorted, so that a generation is the same from the same document."""
    tree: dict[tuple[str, ...], dict[str, list[Operation]]] = {}
    for operation in operations(spec):
        tree.setdefault(operation.resource, {}).setdefault(operation.method, []).append(operation)
    for resource, methods in tree.items():
        for method, variants in methods.items():
            variants.sort(key=lambda operation: len(operation.path_params))
            counts = [len(operation.path_params) for operation in variants]
            if len(variants) > 2 or (len(variants) == 2 and (counts[0] != 0 or counts[1] == 0)):
                names = ", ".join(f"{o.http_method} {o.path}" for o in variants)
                raise LayoutError(f"{'.'.join(resource)}.{method}: {names} collide")
    return {resource: dict(sorted(tree[resource].items())) for resource in sorted(tree)}


def groups(tree: dict[tuple[str, ...], dict]) -> list[tuple[str, ...]]:
    """Every resource and every group above a nested one (("checkout",) for checkout.sessions),
    sorted."""
    names = set(tree)
    for resource in tree:
        for end in range(1, len(resource)):
            names.add(resource[:end])
    return sorted(names)
