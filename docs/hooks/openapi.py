"""The API reference of the site is the service's own OpenAPI document: at every build it is
exported by Django's `spectacular` command (what /v1/openapi.json serves, in English) and shown
by ReDoc from drf-spectacular-sidecar's files, as /v1/docs shows it. Nothing comes from a CDN:
the document is written into a script, so the page opens from the disk too.

Generated into the site: reference/openapi.json (to download), reference/openapi.js (the same,
for ReDoc), reference/redoc.html (the full-window reference), reference/redoc.standalone.js and
its licence."""

import json
import os
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REDOC = "static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference — Payments for the DR Congo</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="redoc"></div>
  <script src="redoc.standalone.js"></script>
  <script src="openapi.js"></script>
  <script>
    Redoc.init(window.OPENAPI, {hideDownloadButton: false, expandResponses: "200,201"},
               document.getElementById("redoc"));
  </script>
</body>
</html>
"""


def export_openapi() -> dict:
    """The document as `manage.py spectacular` makes it, in a process of its own (the settings of
    the embedded set-up; nothing is written but a temporary directory)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DEBUG": "true",
            "VAR_DIR": tmp,
            "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
            "REDIS_URL": "",
        }
        out = Path(tmp) / "openapi.json"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "spectacular",
                "--format",
                "openapi-json",
                "--lang",
                "en",
                "--fail-on-warn",
                "--file",
                str(out),
            ],
            cwd=ROOT,
            env=env,
            check=True,
        )
        return json.loads(out.read_text(encoding="utf-8"))


def on_files(files, config):
    from mkdocs.structure.files import File  # only here: the test imports export_openapi alone

    document = json.dumps(export_openapi(), ensure_ascii=False, indent=2)
    sidecar = resources.files("drf_spectacular_sidecar")
    generated = {
        "reference/openapi.json": document,
        "reference/openapi.js": f"window.OPENAPI = {document};\n",
        "reference/redoc.html": PAGE,
    }
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    for name in ("redoc.standalone.js", "redoc.standalone.js.LICENSE.txt"):
        path = sidecar / REDOC.replace("redoc.standalone.js", name)
        files.append(File.generated(config, f"reference/{name}", abs_src_path=str(path)))
    return files
