"""The PHP library (clients/php) against the real service, as `make run` starts it: a charge to
success, a partial refund, a list walked over several pages, a real webhook delivery verified by
a receiver that PHP's own server runs (and a tampered one refused), an answer lost by a proxy and
the POST retried with exactly one charge made, refusals retried or not as they say. Each scenario
is a script of tests/clients/php/ that loads the library with its own autoload.php (no Composer),
run by Debian's `php` (php-cli, php-curl, php-mbstring).

Also: the library's own tests (the Standard Webhooks test vectors), and that every file is PHP 8.1.
That the generated classes are what the service's OpenAPI document makes is
tests/clients/test_generation.py's check."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.clients import node_php

PACKAGE = node_php.BASE / "clients" / "php"
SCRIPTS = Path(__file__).parent / "php"


class Php(node_php.Library):
    name = "php"

    def __init__(self, php: str, shop: Path):
        self.php = php
        self.shop = shop  # a merchant's project, the library copied in as congopay-php/

    def command(self, script, *args):
        return [self.php, str(SCRIPTS / f"{script}.php"), *args]

    def receiver(self, port, env):
        return subprocess.Popen(
            [self.php, "-S", f"127.0.0.1:{port}", str(SCRIPTS / "receiver.php")],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def serves(self, example):
        return "php://input" in example

    def example(self, example, number):
        script = self.shop / f"example-{number}.php"
        script.write_text(example)
        return [self.php, str(script)]

    def serve(self, example, number, port, env, log):
        script = self.shop / f"example-{number}.php"
        script.write_text(example)
        return subprocess.Popen(
            [self.php, "-S", f"127.0.0.1:{port}", str(script)],
            env={**os.environ, **env},
            stdout=log,
            stderr=log,
        )


@pytest.fixture(scope="module")
def php():
    found = node_php.runtime("php", "php-cli")
    modules = subprocess.run([found, "-m"], capture_output=True, text=True, check=True).stdout
    for extension in ("curl", "json", "hash"):
        assert extension in modules.split(), f"PHP lacks ext-{extension}"
    return found


@pytest.fixture(scope="module")
def library(php, tmp_path_factory):
    shop = tmp_path_factory.mktemp("shop")
    (shop / "congopay-php").symlink_to(PACKAGE)
    return Php(php, shop)


@pytest.fixture(scope="module")
def service(library, service):
    """The package's service, started only once the library can run (else skipped before)."""
    return service


def test_a_charge_to_success(library, service):
    out = node_php.check_first_payment(library, service)
    assert out["class"] == "Congopay\\Model\\Charge"


def test_a_partial_refund(library, service):
    node_php.check_partial_refund(library, service)


def test_a_list_walked_over_several_pages(library, service):
    node_php.check_list_walks_every_page(library, service)


def test_a_real_delivery_verified_and_a_tampered_one_refused(library, service, tmp_path):
    node_php.check_webhook_delivery(library, service, tmp_path)
    # The event's object is of the class its `object` names.
    received = node_php.received(tmp_path / "php-received.jsonl")
    assert {line["class"] for line in received if "class" in line} == {"Congopay\\Model\\Charge"}


def test_a_lost_answer_is_retried_with_one_charge_made(library, service):
    node_php.check_lost_answer_is_retried_once_charged(library, service)


def test_refusals_are_retried_as_they_say(library, service):
    node_php.check_refusals_retried_as_they_say(library, service)


def test_the_guides_examples_run_as_written(library, service, tmp_path):
    """docs/guides/libraries.md, its PHP part: the first payment, a refund found by walking the
    list, the webhook endpoint verifying a real delivery, an error and its fields."""
    first, refund, webhook, error = node_php.check_guide_examples(
        library, service, tmp_path, "PHP", "php"
    )
    assert first.split() == [first.split()[0], "pending", "succeeded"], first
    assert first.startswith("ch_")
    assert re.fullmatch(r"re_\w+ succeeded 100000\n", refund), refund
    assert re.search(r"paid: ch_\w+", webhook), webhook
    assert re.match(
        r"400 invalid_request_error phone_network_mismatch phone req_\w+\n"
        r"The number \+243812345678 belongs to VODACOM_MPESA, not AIRTEL_MONEY\.\n$",
        error,
    ), error


def test_the_librarys_own_tests(php):
    """Its webhook tests run the Standard Webhooks reference libraries' test vectors."""
    done = subprocess.run(
        [php, "tests/run.php"], cwd=PACKAGE, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "not ok" not in done.stdout and "ok 1 - " in done.stdout


def test_every_file_is_php_81(php):
    """Nothing newer than PHP 8.1 is needed: every file parses, and none uses what 8.2 added
    (readonly classes, DNF types, true/false/null as standalone types)."""
    for path in sorted(PACKAGE.rglob("*.php")):
        done = subprocess.run([php, "-l", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        text = path.read_text(encoding="utf-8")
        assert "readonly class" not in text and "readonly final class" not in text, path
    assert json.loads((PACKAGE / "composer.json").read_text())["require"]["php"] == ">=8.1"
