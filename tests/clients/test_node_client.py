"""The JavaScript/TypeScript library (clients/node) against the real service, as `make run` starts
it: a charge to success, a partial refund, a list walked over several pages, a real webhook
delivery verified (and a tampered one refused), an answer lost by a proxy and the POST retried
with exactly one charge made, refusals retried or not as they say. The package is installed from
the repository as npm installs a folder (packed, its "files" only), into a shop of its own; each
scenario is a script of tests/clients/node/ run by Debian's `node`.

Also: the library's own tests (the Standard Webhooks test vectors), the committed dist/ is what
its source compiles to, and the types catch a merchant's mistakes. That the generated source is
what the service's OpenAPI document makes is tests/clients/test_generation.py's check."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.clients import node_php

PACKAGE = node_php.BASE / "clients" / "node"
SCRIPTS = Path(__file__).parent / "node"
# The compiler that built dist/: the versions of the package's devDependencies.
DEV = json.loads((PACKAGE / "package.json").read_text())["devDependencies"]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "congopay-tests"


class Node(node_php.Library):
    name = "node"

    def __init__(self, node: str, shop: Path):
        self.node = node
        self.shop = shop

    def command(self, script, *args):
        return [self.node, str(self.shop / f"{script}.mjs"), *args]

    def receiver(self, port, env):
        return subprocess.Popen(
            [self.node, str(self.shop / "receiver.mjs")],
            env={**os.environ, **env, "PORT": str(port)},
        )

    def serves(self, example):
        return ".listen(4242" in example

    def example(self, example, number):
        script = self.shop / f"example-{number}.mjs"
        script.write_text(example)
        return [self.node, str(script)]

    def serve(self, example, number, port, env, log):
        script = self.shop / f"example-{number}.mjs"
        script.write_text(example.replace(".listen(4242", f".listen({port}"))
        return subprocess.Popen(
            [self.node, str(script)], env={**os.environ, **env}, stdout=log, stderr=log
        )


@pytest.fixture(scope="module")
def node():
    return node_php.runtime("node", "nodejs")


@pytest.fixture(scope="module")
def library(node, tmp_path_factory):
    """A merchant's project with the package installed from the repository, and the scripts."""
    shop = tmp_path_factory.mktemp("shop")
    npm = shutil.which("npm")
    if npm:
        subprocess.run(
            [npm, "install", "--install-links", "--offline", "--no-audit", "--no-fund",
             "--loglevel", "error", str(PACKAGE)],
            cwd=shop, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
    else:  # what npm does for a folder without --install-links
        (shop / "node_modules").mkdir()
        (shop / "node_modules" / "congopay").symlink_to(PACKAGE)
    for script in SCRIPTS.glob("*.mjs"):
        shutil.copy(script, shop)
    return Node(node, shop)


@pytest.fixture(scope="module")
def service(library, service):
    """The package's service, started only once the library can run (else skipped before)."""
    return service


def test_a_charge_to_success(library, service):
    node_php.check_first_payment(library, service)


def test_a_partial_refund(library, service):
    node_php.check_partial_refund(library, service)


def test_a_list_walked_over_several_pages(library, service):
    node_php.check_list_walks_every_page(library, service)


def test_a_real_delivery_verified_and_a_tampered_one_refused(library, service, tmp_path):
    node_php.check_webhook_delivery(library, service, tmp_path)


def test_a_lost_answer_is_retried_with_one_charge_made(library, service):
    node_php.check_lost_answer_is_retried_once_charged(library, service)


def test_refusals_are_retried_as_they_say(library, service):
    node_php.check_refusals_retried_as_they_say(library, service)


def test_the_guides_examples_run_as_written(library, service, tmp_path):
    """docs/guides/libraries.md, its JavaScript part: the first payment, a refund found by walking
    the list, the webhook endpoint verifying a real delivery, an error and its fields."""
    first, refund, webhook, error = node_php.check_guide_examples(
        library, service, tmp_path, "JavaScript / TypeScript", "js"
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


def test_the_librarys_own_tests(node):
    """Its webhook tests run the Standard Webhooks reference libraries' test vectors."""
    tests = json.loads((PACKAGE / "package.json").read_text())["scripts"]["test"].split()[2:]
    done = subprocess.run(
        [node, "--test", *tests], cwd=PACKAGE, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# fail 0" in done.stdout


@pytest.fixture(scope="module")
def typescript(node):
    """The package's devDependencies (TypeScript and Node's types), installed with npm once into a
    cache outside the repository."""
    versions = "-".join(f"{k}@{v}" for k, v in sorted(DEV.items())).replace("/", "+")
    target = CACHE / f"node-build-{versions}"
    tsc = target / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        npm = shutil.which("npm")
        if npm is None:
            node_php.runtime("npm", "npm")
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=CACHE))
        try:
            subprocess.run(
                [npm, "install", "--prefix", str(tmp), "--no-save", "--no-audit", "--no-fund",
                 "--loglevel", "error", *(f"{k}@{v}" for k, v in DEV.items())],
                check=True, capture_output=True, timeout=600,
            )  # fmt: skip
            os.replace(tmp, target)
        except OSError:
            if not tsc.exists():  # else another run installed it meanwhile
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target / "node_modules"


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_the_committed_dist_is_what_the_source_compiles_to(node, typescript, tmp_path):
    """dist/ is committed so that the package runs without a build step: it must be the build
    of src/ by the package's own build script and compiler."""
    copy = tmp_path / "node"
    copy.mkdir()
    for name in ("package.json", "tsconfig.json", "tsconfig.cjs.json"):
        shutil.copy(PACKAGE / name, copy)
    for folder in ("src", "scripts"):
        shutil.copytree(PACKAGE / folder, copy / folder)
    (copy / "node_modules").symlink_to(typescript)
    done = subprocess.run(
        [node, "scripts/build.mjs"], cwd=copy, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    built, committed = _tree(copy / "dist"), _tree(PACKAGE / "dist")
    assert sorted(built) == sorted(committed)
    stale = [name for name in built if built[name] != committed[name]]
    assert not stale, f"clients/node/dist is not the build of src/ (npm run build): {stale}"


def test_the_types_catch_a_merchants_mistakes(library, typescript, tmp_path):
    """typed.ts uses the installed package as a TypeScript merchant would; the compiler accepts
    it, and each of its @ts-expect-error lines is an error it reports."""
    shutil.copy(SCRIPTS / "typed.ts", library.shop)
    (library.shop / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "target": "ES2022",
                    "module": "NodeNext",
                    "moduleResolution": "NodeNext",
                    "strict": True,
                    "noEmit": True,
                    "types": ["node"],
                    "typeRoots": [str(typescript / "@types")],
                },
                "files": ["typed.ts"],
            }
        )
    )
    (library.shop / "package.json").write_text(
        json.dumps({**json.loads((library.shop / "package.json").read_text()), "type": "module"})
    )
    done = subprocess.run(
        [library.node, str(typescript / "typescript" / "bin" / "tsc"), "-p", "."],
        cwd=library.shop, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
