"""docs/operations/configuration.md lists exactly the environment variables the service reads: every
`env(...)` read of the settings package (config/settings/) and of gunicorn's settings is in one of
its tables, and every variable in its tables is read by the service or by the one script, make
target or test module the page names."""

import ast
import re
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
PAGE = ROOT / "docs" / "operations" / "configuration.md"
NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")

# Read outside the service's Python, each where the page says: the web unit's stop step, and the
# test suite's runner and environment.
READ_ELSEWHERE = {
    "DRAIN_SECONDS": ROOT / "deploy" / "congopay-drain",
    "PYTEST_WORKERS": ROOT / "Makefile",
    "TEST_REDIS_DBS": ROOT / "tests" / "env.py",
}


def documented() -> set[str]:
    """The variables named in the first column of the page's tables."""
    names = set()
    for line in PAGE.read_text().splitlines():
        cells = line.strip().strip("|").split("|")
        if not line.startswith("|") or set(cells[0].strip()) <= set("-: "):
            continue  # not a table row, or the line under a header
        names.update(name for name in re.findall(r"`([^`]+)`", cells[0]) if NAME.fullmatch(name))
    return names


def first_argument(call: ast.Call, where: str) -> str:
    assert call.args and isinstance(call.args[0], ast.Constant), (
        f"{where}:{call.lineno}: the variable's name is not written out"
    )
    return call.args[0].value


def settings_reads() -> dict[str, str]:
    """Every variable the settings package reads through django-environ (`env(...)`,
    `env.str(...)`, `env.db(...)`, ...), with where."""
    reads = {}
    for module in sorted((ROOT / "config" / "settings").glob("*.py")):
        where = str(module.relative_to(ROOT))
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
                raise AssertionError(f"{where}:{node.lineno}: read the environment through env")
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "env") or (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "env"
            ):
                reads[first_argument(node, where)] = f"{where}:{node.lineno}"
    return reads


def gunicorn_reads() -> dict[str, str]:
    """Every `os.environ.get(...)` of config/gunicorn.py, with where."""
    module = ROOT / "config" / "gunicorn.py"
    reads = {}
    for node in ast.walk(ast.parse(module.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and ast.unparse(node.func.value) == "os.environ"
        ):
            reads[first_argument(node, "config/gunicorn.py")] = f"config/gunicorn.py:{node.lineno}"
    return reads


def test_the_settings_read_the_environment():
    reads = settings_reads()
    # The parsing finds the reads of every part (a guard against a test that finds nothing).
    assert {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "EMAIL_URL", "API_RATE_LIMIT"} <= set(reads)
    assert {"DASHBOARD_SESSION_AGE", "AIRTEL_CLIENT_ID", "NETWORK_LIMITS"} <= set(reads)
    assert {"GUNICORN_BIND", "THROTTLE_TRUSTED_PROXIES"} <= set(gunicorn_reads())


def test_every_variable_read_is_documented():
    reads = {**gunicorn_reads(), **settings_reads()}
    missing = {name: where for name, where in reads.items() if name not in documented()}
    assert not missing, f"read but not in docs/operations/configuration.md: {missing}"


def test_every_variable_documented_is_read():
    read = set(settings_reads()) | set(gunicorn_reads())
    for name, path in READ_ELSEWHERE.items():
        assert name in path.read_text(), f"{name} is no longer read by {path.relative_to(ROOT)}"
    unread = documented() - read - set(READ_ELSEWHERE)
    assert not unread, f"in docs/operations/configuration.md but read nowhere: {sorted(unread)}"
