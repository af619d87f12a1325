"""The operations of the service's OpenAPI document as the JavaScript and PHP generators read
them: named by the rule of `operations` (the one the Python library follows too), with their
parameters as `Param`s, and grouped by resource (`resources`, `groups`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import operations as named


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


def operations(spec: dict) -> list[Operation]:
    """Every operation of the document, named."""
    return [_operation(spec, operation) for operation in named.operations(spec)]


def _operation(spec: dict, operation: named.Operation) -> Operation:
    query = [_param(parameter) for parameter in operation.query]
    declared = {
        parameter["name"]: _param(parameter)
        for parameter in (resolve(spec, p) for p in operation.extra.get("parameters", []))
        if parameter["in"] == "path"
    }
    return Operation(
        operation_id=operation.id,
        http_method=operation.http_method,
        path=operation.path,
        resource=operation.resource,
        method=operation.method,
        path_params=[
            declared.get(name) or Param(name, {"type": "string"}, True, "")
            for name in operation.path_params
        ],
        query=query,
        body=operation.body,
        body_required=operation.body_required,
        response=operation.response,
        response_text=operation.response is None and operation.response_media is not None,
        item=operation.list_item,
        keyset=_keyset(spec, operation.list_item, query),
        summary=operation.summary,
        description=operation.description,
    )


def _param(parameter: dict) -> Param:
    return Param(
        name=parameter["name"],
        schema=parameter.get("schema", {}),
        required=bool(parameter.get("required")),
        description=parameter.get("description", ""),
    )


def _keyset(spec: dict, item: dict | None, query: list[Param]) -> bool:
    """Pages follow the last item's id when the list takes `starting_after` and its items have
    ids: a page then never repeats or skips an item that arrived meanwhile."""
    if item is None or not any(param.name == "starting_after" for param in query):
        return False
    return "id" in resolve(spec, item).get("properties", {})


def resources(spec: dict) -> dict[tuple[str, ...], dict[str, list[Operation]]]:
    """resource → method → its operations: one, or two when a resource's list or create also
    exists under a parent's id (`refunds.list()` and `refunds.list(chargeId)`), the one without
    the id first. Sorted, so that a generation is the same from the same document."""
    tree: dict[tuple[str, ...], dict[str, list[Operation]]] = {}
    for operation in operations(spec):
        tree.setdefault(operation.resource, {}).setdefault(operation.method, []).append(operation)
    for methods in tree.values():
        for variants in methods.values():
            variants.sort(key=lambda operation: len(operation.path_params))
    return {resource: dict(sorted(tree[resource].items())) for resource in sorted(tree)}


def groups(tree: dict[tuple[str, ...], dict]) -> list[tuple[str, ...]]:
    """Every resource and every group above a nested one (("checkout",) for checkout.sessions),
    sorted."""
    names = set(tree)
    for resource in tree:
        for end in range(1, len(resource)):
            names.add(resource[:end])
    return sorted(names)
