"""The client libraries' generators, one module per library (`python.py`, `node.py`, `php.py`),
each found here when its file exists.

A generator module has:

- `OWNED`: the paths under clients/ (files or directories) that it writes and nothing else
  does; a directory is compared file by file, both ways, so a file no longer generated fails
  the check too;
- `generate(document, out)`: writes those paths under `out` (an empty temporary directory laid
  out as clients/) from the OpenAPI document (a dict). It may read the hand-written files of its
  library from `CLIENTS`.

Every generator names operations alike through `gen.operations.operations(document)` (the
JavaScript and PHP ones through `gen.layout`, which reads them from there)."""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

CLIENTS = Path(__file__).resolve().parent.parent
ROOT = CLIENTS.parent
DOCUMENT = "openapi.json"
LANGUAGES = ("python", "node", "php")


def generators() -> dict[str, ModuleType]:
    """The generator of each library whose module exists, by name."""
    here = Path(__file__).parent
    return {
        name: importlib.import_module(f".{name}", __name__)
        for name in LANGUAGES
        if (here / f"{name}.py").exists()
    }


def export_openapi() -> dict:
    """The service's OpenAPI document as /v1/openapi.json serves it (in English), made by Django's
    `spectacular` command in a process of its own, with the settings of the embedded set-up."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DEBUG": "true",
            "VAR_DIR": tmp,
            "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
            "REDIS_URL": "",
        }
        out = Path(tmp) / DOCUMENT
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "spectacular", "--format", "openapi-json",
             "--lang", "en", "--fail-on-warn", "--file", str(out)],
            cwd=ROOT, env=env, check=True, capture_output=True,
        )  # fmt: skip
        return json.loads(out.read_text(encoding="utf-8"))


def document_text(document: dict) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def generate_into(document: dict, out: Path) -> list[str]:
    """Every generated path under `out`: the document itself, then each library's files. The
    owned paths, relative to clients/."""
    (out / DOCUMENT).write_text(document_text(document), encoding="utf-8")
    owned = [DOCUMENT]
    for module in generators().values():
        module.generate(document, out)
        owned.extend(module.OWNED)
    return owned


def files(base: Path, owned: str) -> dict[str, bytes]:
    """The files of one owned path (a file or a directory) under `base`, by path."""
    path = base / owned
    if path.is_file():
        return {owned: path.read_bytes()}
    if not path.is_dir():
        return {}
    return {
        str(found.relative_to(base)): found.read_bytes()
        for found in sorted(path.rglob("*"))
        if found.is_file() and "__pycache__" not in found.parts
    }


def differences(fresh: Path, owned: list[str]) -> list[str]:
    """The generated files whose committed copy under clients/ differs from `fresh`, is missing,
    or is no longer generated."""
    found = []
    for path in owned:
        new, old = files(fresh, path), files(CLIENTS, path)
        found += sorted(name for name in new.keys() | old.keys() if new.get(name) != old.get(name))
    return found


def install(fresh: Path, owned: list[str]) -> None:
    """Replace each owned path under clients/ by its fresh generation."""
    for path in owned:
        target, source = CLIENTS / path, fresh / path
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copyfile(source, target)
