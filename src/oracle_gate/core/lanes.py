"""Write-set lanes: which side of the merge decision each changed path is on.

A patch may change production or the oracles that judge it, never both. Ordinary tests are their
own lane: allowed, but demoted from the vote.
"""
from __future__ import annotations

import enum
import fnmatch
import posixpath
import re
from dataclasses import dataclass
from typing import FrozenSet, Iterable, Optional, Tuple


class Lane(enum.Enum):
    PRODUCTION = "production"
    ORACLE = "oracle"
    FLAKE_CONTROL = "flake_control"
    TEST = "test"
    OTHER = "other"
    UNMAPPED = "unmapped"


class OwnerRole(enum.Enum):
    """What a target owning a changed path is, as far as the gate cares."""

    PRODUCTION = "production"  # python_source(s)
    PROPERTY = "property"  # oracle_properties
    LOCKED_FIXTURE = "locked_fixture"
    FREEZE_LEDGER = "freeze_ledger"
    TEST = "test"  # python_tests, class E or L
    TEST_UTIL = "test_util"  # python_test_utils: test plumbing, like conftest.py
    BUILD_INPUT = "build_input"  # any other target (files, resources, requirements...)


ORACLE_ROLES = frozenset({OwnerRole.PROPERTY, OwnerRole.LOCKED_FIXTURE, OwnerRole.FREEZE_LEDGER})

# Files whose every change can silence or reshape a test run.
FLAKE_CONFIG_FILES = frozenset(
    {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "pants.toml", ".coveragerc"}
)
# Added lines that widen what may fail silently.
FLAKE_MARKER_RE = re.compile(
    r"(\bskip|\bxfail|\brerun|\bflaky|\btimeout|\bdeselect|importorskip|"
    r"--lf\b|--last-failed|-p\s+no:|suppress_health_check|max_examples)",
    re.IGNORECASE,
)
BUILD_FILE_RE = re.compile(r"^BUILD(\..*)?$")
# A region's kind sets its floor, so changing one is a policy edit, never a production change.
REGION_FIELD_RE = re.compile(r"\boracle_region\b")

DEFAULT_ORACLE_DIRS = ("oracle",)
DEFAULT_OTHER_GLOBS = ("*.md", "*.rst", "docs/*", "LICENSE*", "NOTICE*", ".gitignore", "AUTHORS*")


@dataclass(frozen=True)
class PathChange:
    """One changed path as git reports it. `old_path` is set for renames."""

    path: str
    status: str  # A, M, D or R
    old_path: Optional[str] = None
    added_lines: Tuple[str, ...] = ()
    removed_lines: Tuple[str, ...] = ()


def is_build_file(path: str) -> bool:
    return bool(BUILD_FILE_RE.match(posixpath.basename(path)))


def _under(path: str, directory: str) -> bool:
    directory = directory.strip("/")
    return bool(directory) and (path == directory or path.startswith(directory + "/"))


def adds_flake_marker(lines: Iterable[str]) -> bool:
    return any(FLAKE_MARKER_RE.search(line) for line in lines)


def classify(
    change: PathChange,
    roles: FrozenSet[OwnerRole],
    oracle_dirs: Iterable[str] = DEFAULT_ORACLE_DIRS,
    other_globs: Iterable[str] = DEFAULT_OTHER_GLOBS,
) -> FrozenSet[Lane]:
    """The lanes of one changed path, given the roles of the targets that own it.

    A BUILD file belongs to every lane of the targets it declares. Unknown paths fail closed
    (UNMAPPED) unless they match the documentation globs.
    """
    path = change.path
    lanes = set()
    base = posixpath.basename(path)
    if roles & ORACLE_ROLES or any(_under(path, d) for d in oracle_dirs):
        lanes.add(Lane.ORACLE)
    if base in FLAKE_CONFIG_FILES:
        # conftest.py is owned by a python_source, but it is test plumbing, never production.
        return frozenset(lanes | {Lane.FLAKE_CONTROL})
    if is_build_file(path) and any(REGION_FIELD_RE.search(l) for l in change.added_lines + change.removed_lines):
        lanes.add(Lane.ORACLE)
    scanned = OwnerRole.TEST in roles or OwnerRole.PROPERTY in roles or is_build_file(path)
    if scanned and adds_flake_marker(change.added_lines):
        lanes.add(Lane.FLAKE_CONTROL)
    if OwnerRole.TEST_UTIL in roles:
        lanes.add(Lane.FLAKE_CONTROL)
    if OwnerRole.TEST in roles:
        lanes.add(Lane.TEST)
    if OwnerRole.PRODUCTION in roles or OwnerRole.BUILD_INPUT in roles:
        lanes.add(Lane.PRODUCTION)
    if lanes:
        return frozenset(lanes)
    if any(fnmatch.fnmatchcase(path, g) or fnmatch.fnmatchcase(base, g) for g in other_globs):
        return frozenset({Lane.OTHER})
    return frozenset({Lane.UNMAPPED})
