"""The service uses its libraries (Django, DRF, drf-spectacular, Celery, kombu, redis-py, requests,
gunicorn, ...) through their public API only, so that an upgrade of any of them cannot break it
by changing what it never promised: no underscored attribute or method of theirs is read, set or
called, no private name or module of theirs is imported.

Every module of the service (tests and migrations aside) is read with `ast`. An underscored name
(`x._name`, not a dunder) may follow:
- `self`, `cls` or `super()` when the service itself defines that name (a method or attribute of
  its own classes); and a class of the service never defines a name its library bases define
  privately (overriding a private hook is reaching into it too: checked on the classes
  themselves, imported);
- a module of the service imported by name, when the service defines that name;
- anything, for the few underscored names that are documented public API: `Model._meta`,
  `instance._state.adding` and namedtuple's `_replace`/`_asdict`/`_fields`/`_make`.
"""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = (
    "config",
    "core",
    "payments",
    "checkout",
    "webhooks",
    "sandbox",
    "batches",
    "links",
    "dashboard",
    "messaging",
)
# Documented public API despite the underscore.
PUBLIC = {"_meta", "_replace", "_asdict", "_fields", "_make"}
ATTRIBUTE_FUNCTIONS = {"getattr", "setattr", "hasattr", "delattr"}


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def ours(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in PACKAGES


def service_files() -> list[Path]:
    return sorted(
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if not {"tests", "migrations"} & set(path.relative_to(ROOT).parts)
        and not path.name.startswith("test")
    )


def defined_names(trees) -> set[str]:
    """Every underscored name the service defines: its functions, classes, variables, arguments,
    attributes it sets on its own objects."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
    return {name for name in names if private(name)}


def problems(tree: ast.AST, own: set[str]) -> list[str]:
    """What `tree` reaches of a library's private internals, one line each."""
    found = []
    own_modules = set()  # names bound to a module (or a name) of the service by an import
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if private_part(alias.name) and not ours(alias.name):
                    found.append(f"{node.lineno}: import {alias.name}")
                if ours(alias.name):
                    own_modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if ours(node.module) or node.level:
                own_modules.update(alias.asname or alias.name for alias in node.names)
                continue
            if private_part(node.module or ""):
                found.append(f"{node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if private(alias.name):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")

    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            if allowed(node, parents.get(node), own, own_modules):
                continue
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ATTRIBUTE_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
            and node.args[1].value not in own | PUBLIC
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def private_part(module: str) -> bool:
    return any(private(part) for part in module.split("."))


def allowed(node: ast.Attribute, parent, own: set[str], own_modules: set[str]) -> bool:
    if node.attr in PUBLIC:
        return True
    if node.attr == "_state":  # documented: instance._state.adding
        return isinstance(parent, ast.Attribute) and parent.attr == "adding"
    value = node.value
    if isinstance(value, ast.Name) and value.id in ("self", "cls"):
        return node.attr in own
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    ):
        return node.attr in own
    if isinstance(value, ast.Name) and value.id in own_modules:
        return node.attr in own
    return False


def test_the_service_reaches_into_no_librarys_private_internals():
    files = service_files()
    assert ROOT / "payments" / "api" / "principals.py" in files
    assert not any("migrations" in path.parts for path in files)
    trees = {path: ast.parse(path.read_text(), str(path)) for path in files}
    own = defined_names(trees.values())
    found = [
        f"{path.relative_to(ROOT)}:{problem}"
        for path, tree in trees.items()
        for problem in problems(tree, own)
    ]
    assert found == []


def class_body_names(node: ast.ClassDef) -> set[str]:
    """The underscored names a class statement defines in its body."""
    names = set()
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return set(filter(private, names))


def test_no_class_of_the_service_overrides_a_librarys_private_name():
    found = []
    for path in service_files():
        tree = ast.parse(path.read_text(), str(path))
        classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
        if not any(class_body_names(node) for node in classes):
            continue
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for node in classes:
            cls = getattr(module, node.name)
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}.{name} is private to "
                f"{base.__module__}.{base.__qualname__}"
                for name in sorted(class_body_names(node))
                for base in cls.__mro__[1:]
                if not ours(base.__module__) and name in vars(base)
            ]
    assert found == []


@pytest.mark.parametrize(
    "code",
    [
        "from django.db.models.base import _x",
        "from django.db.models._private import ModelState",
        "import requests._internal",
        "response._content = b''",
        "body = response._content",
        "class V(SpectacularAPIView):\n    def get(self, r):\n        return super()._get_schema_response(r)",
        "class S(AutoSchema):\n    def m(self):\n        return self._get_response_for_code(1, '200')",
        "clone._state = ModelState()",
        "instance._state.fields_cache['merchant'] = other",
        "getattr(response, '_content')",
        "requests.sessions._x",
        "clone._state.db = instance._state.db",
    ],
)
def test_the_rule_refuses(code):
    tree = ast.parse(code)
    assert problems(tree, defined_names([tree])) != []


@pytest.mark.parametrize(
    "code",
    [
        "class C:\n    def __init__(self):\n        self._lock = 1\n    def m(self):\n        return self._lock",
        "class C:\n    def _go(self):\n        pass\n    def m(self):\n        super()._go()",
        "opts = model._meta",
        "if obj is None or obj._state.adding:\n    pass",
        "parts._replace(query='')",
        "from payments import http\ndef _send():\n    pass\nhttp._send()",
        "x.__class__.__name__",
    ],
)
def test_the_rule_lets_through(code):
    tree = ast.parse(code)
    assert problems(tree, defined_names([tree])) == []
