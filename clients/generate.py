"""The client libraries' generated code, from the service's own OpenAPI document.

    .venv/bin/python clients/generate.py          # writes clients/openapi.json and every
                                                  # library's generated files
    .venv/bin/python clients/generate.py --check  # fails when the committed ones differ from
                                                  # a fresh generation (CI)

The generators are clients/gen/<library>.py (see clients/gen/__init__.py)."""

import argparse
import sys
import tempfile
from pathlib import Path

import gen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with a fresh generation, change nothing"
    )
    args = parser.parse_args(argv)
    document = gen.export_openapi()
    with tempfile.TemporaryDirectory() as tmp:
        owned = gen.generate_into(document, Path(tmp))
        changed = gen.differences(Path(tmp), owned)
        if args.check:
            for path in changed:
                print(f"clients/{path} differs from a fresh generation", file=sys.stderr)
            if changed:
                print("run: .venv/bin/python clients/generate.py", file=sys.stderr)
            return 1 if changed else 0
        gen.install(Path(tmp), owned)
    for path in changed:
        print(f"clients/{path}")
    if any(path.startswith("node/") for path in changed):
        # dist/ is committed so that the package runs without a build step: compile it again.
        print("then: npm install --no-save && npm run build, in clients/node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
