"""The code's shape that import-linter cannot see (docs/architecture/code-map.md): no two files
import each other, however indirectly, and imports sit at the top of their module, save the few
listed below with their reason. The contracts of pyproject.toml ([tool.importlinter]) say which
package may import which."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "core", "payments", "checkout", "links", "webhooks", "sandbox", "batches")
PACKAGES += ("dashboard", "messaging")
SKIPPED = {"migrations", "tests", "__pycache__"}

# (file, function, module imported) → why the import cannot be at the top of its module.
IMPORTS_INSIDE_FUNCTIONS = {
    # An app's ready(): its services, models and tasks need the app registry ready; the tasks are
    # imported so that Celery knows them in every process (they are enqueued by name).
    ("payments/apps.py", "ready", "payments"): "app registry; registers payments' tasks",
    ("payments/apps.py", "ready", "payments.api"): "app registry: the key cache's receivers",
    ("checkout/apps.py", "ready", "checkout.services"): "app registry: checkout's receivers",
    ("links/apps.py", "ready", "links"): "app registry; registers links' tasks",
    ("webhooks/apps.py", "ready", "webhooks"): "app registry; registers webhooks' tasks",
    ("batches/apps.py", "ready", "batches"): "app registry; registers batches' tasks",
    ("dashboard/apps.py", "ready", "dashboard"): "app registry: the dashboard's receivers",
    ("messaging/apps.py", "ready", "messaging"): "app registry; registers messaging's tasks",
    # config/wsgi.py imports the middleware before the settings are loaded, and core.api.errors
    # reads them as it is imported.
    ("core/api/middleware.py", "_body_timed_out", "core.api.errors"): "settings not loaded yet",
    ("core/api/middleware.py", "_refusal", "core.api.errors"): "settings not loaded yet",
    ("core/api/middleware.py", "process_exception", "core.api.errors"): "settings not loaded yet",
    # SQLAlchemy is installed for the embedded broker only.
    ("payments/broker.py", "prepare_embedded_broker", "sqlalchemy.exc"): "optional dependency",
}


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not SKIPPED & set(path.relative_to(ROOT).parts):
                yield path


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The modules an import statement names: `from a import b` names a.b when it is a module."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: from the statement's package
        base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base])
        base = base.strip(".")
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _imports_inside_functions():
    for path in _sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        seen = set()
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in seen:
                    seen.add(id(node))
                    name = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                    yield (str(path.relative_to(ROOT)), function.name, name)


def test_imports_inside_functions_are_the_listed_few():
    found = set(_imports_inside_functions())
    unlisted = sorted(found - set(IMPORTS_INSIDE_FUNCTIONS))
    assert not unlisted, (
        "Import at the top of the module (tasks import services, services enqueue through "
        f"their app's queues module), or list it here with its reason: {unlisted}"
    )
    assert len(IMPORTS_INSIDE_FUNCTIONS) <= 12  # a handful: more is a shape to mend


def _graph() -> dict[str, set[str]]:
    """Each project module → the project modules it imports (at the top or inside functions)."""
    paths = {_module(path): path for path in _sources()}
    graph = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= {name for name in _imported(node, package) if name in paths}
        edges.discard(module)
        # A package's __init__ importing its own modules is how a package is made, not a cycle.
        graph[module] = {
            name for name in edges if not (path.name == "__init__.py" and name.startswith(module))
        }
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_sees_a_cycle():
    assert _cycles({"a.services": {"a.queues"}, "a.queues": {"a.tasks"}, "a.tasks": {"a.services"}})
