"""The process definitions of deploy/: the systemd units (deploy/systemd/), the Procfile and the
example environment run what the project has, the same way, and systemd accepts the units."""

import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import get_commands

from config.celery import app
from tests.conftest import STRICT
from tests.helpers import procfile_commands

BASE = Path(settings.BASE_DIR)
UNITS = BASE / "deploy" / "systemd"
ENV_EXAMPLE = BASE / "deploy" / "congopay.env.example"
# The deployed paths, as a test on this machine substitutes them.
VENV_PYTHON = "/srv/congopay/.venv/bin/python"
CHECKOUT = "/srv/congopay"
ENV_FILE = "/etc/congopay/congopay.env"


def unit_files() -> list[Path]:
    return sorted(UNITS.glob("congopay-*.*"))


def directive(unit: Path, name: str) -> list[str]:
    """The values of `name=` in a unit file, in order."""
    return re.findall(rf"^{name}=(.*)$", unit.read_text(), flags=re.M)


def exec_start(unit: Path) -> list[str]:
    """The unit's command as the project runs it: the virtualenv's python as `python`, systemd's
    `%%` as `%`."""
    (line,) = directive(unit, "ExecStart")
    return [
        "python" if word == VENV_PYTHON else word.replace("%%", "%") for word in shlex.split(line)
    ]


def services() -> dict[str, list[str]]:
    return {unit.stem: exec_start(unit) for unit in unit_files() if unit.suffix == ".service"}


def celery_workers() -> dict[str, list[str]]:
    return {
        name: command for name, command in services().items() if command[1:3] == ["-m", "celery"]
    }


def option(command: list[str], name: str) -> str | None:
    return command[command.index(name) + 1] if name in command else None


def test_there_is_a_unit_for_each_kind_of_process():
    assert set(services()) == {
        "congopay-web",
        "congopay-worker",
        "congopay-periodic",
        "congopay-long-calls",
        "congopay-webhooks",
        "congopay-beat",
        "congopay-checkledger",
    }
    assert (UNITS / "congopay-checkledger.timer").is_file()


def test_every_command_runs_what_the_project_has():
    for name, command in services().items():
        assert command[0] == "python", name
        if command[1] == "-m":
            assert importlib.util.find_spec(command[2]), name
        else:
            assert command[1] == "manage.py", name
            assert command[2] in get_commands(), name
        if "-A" in command:
            assert option(command, "-A") == "config" and app.main == "config", name
    web = services()["congopay-web"]
    assert web[2:4] == ["gunicorn", "config.wsgi"]
    assert importlib.util.find_spec("config.wsgi")
    assert (BASE / option(web, "-c")).is_file()
    for name in directive(UNITS / "congopay-web.service", "ExecStop"):
        assert (BASE / shlex.split(name)[0].removeprefix(CHECKOUT + "/")).is_file()


def test_every_queue_the_service_sends_to_has_a_worker():
    """The default queue and every queue a setting names (`…_QUEUE`) are consumed by a worker
    unit, and the units consume no other; a thread-pool worker for the queues that wait."""
    queues = {app.conf.task_default_queue} | {
        getattr(settings, name) for name in dir(settings) if name.endswith("_QUEUE")
    }
    consumed = {}
    for name, command in celery_workers().items():
        if command[3:5] == ["-A", "config"] and "beat" in command:
            continue
        assert command[5] == "worker", name
        for queue in (option(command, "--queues") or app.conf.task_default_queue).split(","):
            assert queue not in consumed, f"{queue} is consumed by {consumed.get(queue)} and {name}"
            consumed[queue] = name
        assert option(command, "--hostname").endswith("@%h"), name
    assert set(consumed) == queues
    for queue in (settings.PAYMENTS_LONG_QUEUE, settings.WEBHOOKS_QUEUE):
        assert option(services()[consumed[queue]], "--pool") == "threads"
    beats = [name for name, command in celery_workers().items() if command[5] == "beat"]
    assert beats == ["congopay-beat"]
    assert not any("--beat" in command or "-B" in command for command in services().values())


def test_the_procfile_runs_the_units_commands():
    procfile = procfile_commands()
    units = {name.removeprefix("congopay-"): command for name, command in services().items()}
    del units["checkledger"]  # a timer's, not a process's
    assert procfile == units


def test_the_example_environment_names_every_variable():
    """Every variable config/ reads (as the configuration page's test finds them), the drain's
    DRAIN_SECONDS and every one a unit uses, each once, with placeholders for secrets."""
    read = set()
    for module in (BASE / "config").glob("*.py"):
        text = module.read_text(encoding="utf-8")
        read |= set(re.findall(r'\b(?:env|Env\(\))(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]+)"', text))
        read |= set(re.findall(r'(?:environ(?:\.get)?|getenv)\(\s*"([A-Z][A-Z0-9_]+)"', text))
    for unit in unit_files():
        read |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)\}", unit.read_text()))
    read |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)", (BASE / "deploy/congopay-drain").read_text()))
    listed = re.findall(r"^(?:# )?([A-Z][A-Z0-9_]+)=", ENV_EXAMPLE.read_text(), flags=re.M)
    assert len(listed) == len(set(listed))
    assert sorted(read - set(listed)) == []
    assert "DRAIN_SECONDS" in listed
    for line in ENV_EXAMPLE.read_text().splitlines():
        name, _, value = line.removeprefix("# ").partition("=")
        if re.search(r"SECRET|PASSWORD|_KEY$|PIN$|TOKEN", name):
            assert value == "" or value.startswith("change-me"), line


def test_systemd_accepts_the_units(tmp_path):
    """`systemd-analyze verify` on the units, their deployed paths replaced by this checkout's
    (it checks that each command is there and executable): no warning at all."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if STRICT:
            pytest.fail("required in CI: systemd-analyze (Debian's systemd)", pytrace=False)
        pytest.skip("needs systemd-analyze (Debian's systemd)")
    for unit in unit_files():
        text = (
            unit.read_text()
            .replace(VENV_PYTHON, sys.executable)
            .replace(ENV_FILE, str(ENV_EXAMPLE))
            .replace(CHECKOUT, str(BASE))
        )
        (tmp_path / unit.name).write_text(text)
    result = subprocess.run(
        [analyze, "verify", "--man=no", *(str(path) for path in sorted(tmp_path.iterdir()))],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
