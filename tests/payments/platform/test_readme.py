"""The shell examples of README.md run as written, in order, in one shell, against the service as
`make run` starts it: every request answers 2xx (curl fails the run otherwise), and no example
leaves a placeholder for the reader to fill in.

What the test changes, and only that: the service's address (a free port, not 8000), this
machine's virtualenv for `.venv/bin/`, the demo merchant file of the service's own VAR_DIR, a
local receiver for the example webhook URLs (so that nothing is sent out), a temporary directory
for the generated client. `createsuperuser`, which asks questions, is left out."""

import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.fakes import merchant as merchant_site
from tests.helpers import embedded_service

README = settings.BASE_DIR / "README.md"
BLOCK = re.compile(r"^ *```sh\n(.*?)^ *```", re.M | re.S)
# The examples that talk to a running service (the others: production, benchmarks).
RUNNABLE = ("127.0.0.1:8000/v1", "manage.py createmerchant", "openapi-python-client generate")


def runnable_blocks() -> list[str]:
    blocks = [
        block for block in BLOCK.findall(README.read_text()) if any(r in block for r in RUNNABLE)
    ]
    return [re.sub(r"^ {3}", "", block, flags=re.M) for block in blocks]  # list items' indent


def test_the_examples_leave_nothing_to_fill_in():
    blocks = runnable_blocks()
    assert len(blocks) >= 8
    text = "\n".join(blocks)
    assert "uuidgen" not in text
    for line in text.splitlines():
        command = line.split(" # ", 1)[0] if not line.lstrip().startswith("#") else ""
        assert "…" not in command and "<" not in command.replace("<<", ""), line


def test_the_readme_examples_run_as_written_against_make_run(tmp_path):
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    with (
        embedded_service(var_dir) as service,
        merchant_site.serving(service.demo["webhook_secret"]) as receiver,
    ):
        substitutions = {
            "http://127.0.0.1:8000": service.base,
            ".venv/bin/": f"{Path(sys.executable).parent}/",
            "var/demo-merchant.json": str(var_dir / "demo-merchant.json"),
            "https://shop.example.cd/hooks": receiver.url("/hooks"),
            "https://example.cd/hooks": receiver.url("/hooks"),
            "/tmp/payments_client": str(tmp_path / "payments_client"),
            "-o statement.csv": f"-o {tmp_path / 'statement.csv'}",  # not into the checkout
        }
        script = "\n".join(runnable_blocks())
        for written, here in substitutions.items():
            script = script.replace(written, here)
        script = expecting_errors(
            line for line in script.splitlines() if "manage.py createsuperuser" not in line
        )
        shell = subprocess.run(
            ["bash", "-c", PRELUDE + script],
            cwd=settings.BASE_DIR,
            env=service.env,
            capture_output=True,
            text=True,
            timeout=240,
        )
    output = shell.stdout + shell.stderr
    assert shell.returncode == 0, output[-6000:]
    assert '"status":"succeeded"' in output  # the charge, retrieved once final
    assert "n'est pas un choix valide" in output and "is not a valid choice" in output
    assert "Idempotent-Replayed: true" in output
    assert (tmp_path / "payments_client" / "api" / "charges" / "charges_create.py").exists()
    assert (tmp_path / "statement.csv").read_text(encoding="utf-8-sig").startswith("id,created_at,")


def expecting_errors(lines) -> str:
    """The script, where a curl the README shows answering an error (its next line is a comment
    `# → 400 …`) must answer that status instead of 2xx."""
    lines = list(lines)
    for index, line in enumerate(lines[:-1]):
        expected = re.match(r"# → (4\d\d) ", lines[index + 1])
        if expected and line.startswith("curl "):
            lines[index] = f"EXPECT_STATUS={expected.group(1)} {line}"
    return "\n".join(lines)


# Stop at the first failing command. curl fails on an HTTP error (and still shows the body), or
# on any other status than EXPECT_STATUS when that is set.
PRELUDE = r"""set -eu
curl() {
  if [ -n "${EXPECT_STATUS:-}" ]; then
    answer=$(command curl -sS --write-out '\n%{http_code}' "$@")
    echo "${answer%$'\n'*}"
    [ "${answer##*$'\n'}" = "$EXPECT_STATUS" ]
  else
    command curl -sS --fail-with-body "$@"
    echo
  fi
}
"""
