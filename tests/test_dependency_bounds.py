"""The lower bound of every direct dependency is a version the suite runs on: .ci/run installs
.ci/lowest-versions.txt into a second environment and runs the fast part of the suite there. This
keeps that list and pyproject.toml saying the same thing."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def lower_bounds() -> dict[str, Version]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bounds = {}
    for line in project["dependencies"]:
        requirement = Requirement(line)
        lowest = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(lowest) == 1, f"{line}: a direct dependency needs exactly one lower bound"
        bounds[canonicalize_name(requirement.name)] = Version(lowest[0])
    return bounds


def pinned() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / ".ci" / "lowest-versions.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(requirement.name)] = Version(spec.version)
    return pins


def test_every_lower_bound_is_the_version_installed_by_the_lowest_run():
    assert pinned() == lower_bounds()
