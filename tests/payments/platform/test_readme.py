"""The shell examples of README.md and of the documentation site (docs/**/*.md) run as written
against the service as `make run` starts it: every request answers 2xx (curl fails the run
otherwise), and no example leaves a placeholder for the reader to fill in.

Every ```sh (or bash, shell) block runs. A block is left out only when the line before it says so,
`<!-- not run: why -->` (production's commands, `make` itself); output is shown in ```text or
```console blocks, which are not run. Each page's blocks run in order in one shell of their own,
so that a page's examples stand on their own; one service serves every page.

The service has the documented default price plan, as `make run` has it (the rest of the suite
runs fee-free). What the test changes, and only that: the service's address (a free port, not
8000), this machine's virtualenv for `.venv/bin/`, the demo merchant file of the service's own
VAR_DIR, a local receiver for the example webhook URLs (so that nothing is sent out), a temporary
directory for the generated client and the statement. The shells are the reader's other shell, beside
`make run`: they have the service's database but neither the DEBUG that `make run` sets for itself
nor the test suite's secrets, so a page's `manage.py` commands say what environment they need. Every list an example shows has
something in it."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.test import Client

from tests.fakes import merchant as merchant_site
from tests.helpers import embedded_service

BASE = settings.BASE_DIR
README = BASE / "README.md"
PAGES = [README, *sorted((BASE / "docs").rglob("*.md"))]
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```", re.M | re.S
)
SHELL = {"sh", "bash", "shell"}
# What `make run` sets for itself (DEBUG) and tests/env.py for the suite, not in the reader's shell.
MAKE_RUNS = {"DEBUG", "SECRET_KEY", "SANDBOX_CARD_SECRET_KEY"}
NOT_RUN = re.compile(r"<!-- not run: (?P<why>[^>]+?) -->\s*$")


def blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """(language, body, why it is not run or None) of each fenced block of a page, in order, the
    indentation of a block inside a list item taken off."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        indent = match["indent"]
        body = re.sub(rf"^{indent}", "", match["body"], flags=re.M) if indent else match["body"]
        not_run = NOT_RUN.search(text[: match.start()].rstrip(" "))
        found.append((match["lang"].strip(), body, not_run["why"] if not_run else None))
    return found


def runnable(page: Path) -> list[str]:
    return [body for lang, body, why in blocks(page) if lang in SHELL and why is None]


def test_every_block_says_what_it_is_and_few_are_left_out():
    left_out = []
    for page in PAGES:
        for lang, body, why in blocks(page):
            assert lang, f"{page.relative_to(BASE)}: a block without a language:\n{body}"
            if why is not None:
                assert lang in SHELL, f"{page.relative_to(BASE)}: only shell blocks are run"
                left_out.append((page.relative_to(BASE), why))
    # Production's commands and `make` itself; everything that talks to a running service runs.
    assert all(why for _, why in left_out)
    assert len(left_out) <= 8, left_out


def test_the_examples_leave_nothing_to_fill_in():
    scripts = [block for page in PAGES for block in runnable(page)]
    assert len(scripts) >= 15
    text = "\n".join(scripts)
    assert "uuidgen" not in text
    for line in text.splitlines():
        command = line.split(" # ", 1)[0] if not line.lstrip().startswith("#") else ""
        assert "…" not in command and "<" not in command.replace("<<", ""), line


def test_the_readme_is_short_and_its_links_lead_somewhere():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)]*)?\)", text)
    assert len(links) >= 10
    for link in links:
        assert (BASE / link).is_file(), link
    assert "../shared" not in text
    for page in PAGES:
        assert "../shared" not in page.read_text(encoding="utf-8"), page


def test_the_examples_run_as_written_against_make_run(tmp_path):
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    outputs = {}
    with (
        embedded_service(
            var_dir, PRICING_DEFAULT=json.dumps(settings.PRICING_DEFAULT_PLAN)
        ) as service,
        merchant_site.serving(service.demo["webhook_secret"]) as receiver,
    ):
        substitutions = {
            "http://127.0.0.1:8000": service.base,
            ".venv/bin/": f"{Path(sys.executable).parent}/",
            "var/demo-merchant.json": str(var_dir / "demo-merchant.json"),
            "https://shop.example.cd/hooks": receiver.url("/hooks"),
            "https://example.cd/hooks": receiver.url("/hooks"),
            "/tmp/payments-client": str(tmp_path / "payments-client"),  # and its -venv
            "/tmp/congopay-venv": str(tmp_path / "congopay-venv"),
            "-o statement.csv": f"-o {tmp_path / 'statement.csv'}",  # not into the checkout
            "/tmp/day.csv": str(tmp_path / "day.csv"),
        }
        for page in PAGES:
            script = "\n".join(runnable(page))
            if not script:
                continue
            for written, here in substitutions.items():
                script = script.replace(written, here)
            shell = subprocess.run(
                ["bash", "-c", PRELUDE + expecting_errors(script.splitlines())],
                cwd=BASE,
                env={name: value for name, value in service.env.items() if name not in MAKE_RUNS},
                capture_output=True,
                text=True,
                timeout=180,
            )
            name = str(page.relative_to(BASE))
            outputs[name] = output = shell.stdout + shell.stderr
            assert shell.returncode == 0, f"{name}:\n{output[-6000:]}"

    # What the examples say they show.
    first = re.search(r'"id":"(ch_\w+)","object":"charge"', outputs["README.md"])
    assert first  # the first payment, as it was made
    # its ledger row, once paid, with the default plan's fee
    assert '"type":"charge","amount":250000,"fee":7500,"net":242500' in outputs["README.md"]
    assert f'"source":"{first[1]}"' in outputs["README.md"]
    assert '"status":"succeeded"' in outputs["docs/guides/charges.md"]
    assert '"object":"refund"' in outputs["docs/guides/refunds.md"]
    assert '"object":"payout"' in outputs["docs/guides/payouts.md"]
    assert '"failure_code":"insufficient_funds"' in outputs["docs/guides/sandbox.md"]
    assert '"status":"expired"' in outputs["docs/guides/checkout.md"]
    assert '"object":"event"' in outputs["docs/guides/webhooks.md"]
    assert "Idempotent-Replayed: true" in outputs["docs/guides/idempotency.md"]
    errors = outputs["docs/guides/errors.md"]
    assert "n'est pas un choix valide" in errors and "is not a valid choice" in errors
    assert '"network":"VODACOM_MPESA"' in outputs["docs/guides/networks.md"]
    assert "the books balance" in outputs["docs/guides/balance.md"]
    assert (tmp_path / "statement.csv").read_text(encoding="utf-8-sig").startswith("id,created_at,")
    assert not [name for name, output in outputs.items() if '"data":[]' in output]
    balance = outputs["docs/guides/balance.md"]
    assert '"object":"balance_transaction"' in balance and "the books balance" in balance
    statement = (tmp_path / "statement.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(statement) >= 2  # today's rows, not only the header
    assert '"data":[{"id":"po_' in outputs["docs/guides/payouts.md"]
    staff = outputs["docs/operations/staff.md"]
    assert "Superuser created successfully." in staff
    assert '"name": "Pharmacie Lumumba"' in staff and "Revoked sk_test_" in staff
    assert re.search(r"client: ch_\w+ \w+ 250000 CDF", outputs["docs/reference/api.md"])
    # The worked example of the fees guide shows the figures it states.
    fees = outputs["docs/guides/fees-and-balance.md"]
    assert '"rate_bp":300' in fees and '"amount":2500000' in fees
    assert '"fee":75000,"net":2425000' in fees  # the charge
    assert '"type": "refund", "amount": -500000, "fee": 0, "net": -500000' in fees
    assert '"type": "payout", "amount": -1000000, "fee": 15000, "net": -1015000' in fees
    assert '"type": "payout_failure", "amount": 500000, "fee": -7500, "net": 507500' in fees
    assert ", 910000 more" in fees
    assert "\npayout_failure 500000 -7500 507500 " in fees
    # The settlement of the getting-paid guide, paid by the sandbox's rail, fee reserved with it.
    paid = outputs["docs/guides/getting-paid.md"]
    assert '"amount":1000000,"fee":10000' in paid and '"status":"in_transit"' in paid
    assert '"type":"settlement","amount":-1000000,"fee":10000,"net":-1010000' in paid
    libraries = outputs["docs/guides/libraries.md"]
    assert re.search(r"python: ch_\w+ succeeded 250000 CDF", libraries)
    assert re.search(r"refund: re_\w+ succeeded 100000", libraries)
    assert "refused: 400 amount_invalid amount req_" in libraries
    assert re.search(r"Refund re_\w+ of 1250 CDF: succeeded", libraries)  # congopay trigger


def test_the_configuration_page_lists_every_variable_the_settings_read():
    read = set()
    for module in (BASE / "config").rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        read |= set(re.findall(r'\b(?:env|Env\(\))(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]+)"', text))
        read |= set(re.findall(r'(?:environ(?:\.get)?|getenv)\(\s*"([A-Z][A-Z0-9_]+)"', text))
    assert len(read) >= 80
    page = (BASE / "docs/operations/configuration.md").read_text(encoding="utf-8")
    assert sorted(name for name in read if f"`{name}`" not in page) == []


def test_the_sites_api_reference_is_what_the_service_serves():
    """docs/hooks/openapi.py exports the document the site's API reference shows with Django's
    `spectacular` command; it is the one /v1/openapi.json answers."""
    spec = importlib.util.spec_from_file_location("docs_openapi", BASE / "docs/hooks/openapi.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert hook.export_openapi() == Client().get("/v1/openapi.json").json()


def expecting_errors(lines) -> str:
    """The script, where a curl the page shows answering an error (its next line is a comment
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
