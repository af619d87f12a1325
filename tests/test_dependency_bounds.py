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


def test_no_django_release_without_the_fixes_the_service_counts_on_is_allowed():
    """The lower bound holds on the 5.2 line; the later line's releases from before the same
    fix (CVE-2026-33034: 5.2.13 and 6.0.4) are excluded one by one."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (django,) = [
        Requirement(line) for line in project["dependencies"] if line.startswith("django>=")
    ]
    allowed = [
        v
        for v in ("5.2.12", "5.2.13", "6.0", "6.0.3", "6.0.4", "6.1.3", "6.2")
        if django.specifier.contains(v)
    ]
    assert allowed == ["5.2.13", "6.0.4", "6.1.3"]
