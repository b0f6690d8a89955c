"""Base versus head: what the diff changed, in the terms the judge cares about.

Pure functions of (Facts(base), Facts(head), the changed paths, the policy). The lane of a change
is decided by what the changed thing WAS at the base (its role and oracle class there), and by
evaluated values (fields, options, owners), never by directory names or BUILD text:

- production: a base or head production target whose file, evaluated fields or ownership changed;
  and an input without a region of its own that production code reads (a requirement, a lockfile
  pin, a data file): it is judged through its readers, each at its own floor ("dependency" regions);
- oracle: a base P/L oracle, a locked file (fixture, ledger, baseline, trace, probe set) or test
  plumbing in a P/L oracle's closure that changed, was lost or lost class; a NEW oracle is an
  oracle change too, but an additive one;
- flake_control: configuration whose effective value can weaken a judge (Pants options, pytest
  sections), flake markers added to an existing test;
- test: class-E tests (changed ones are demoted and never vote in the agent lane; in the human lane
  they vote with their head class), and their plumbing;
- draft: drafts (never vote); other: documentation and configuration that changes nothing judged;
- unmapped: owned by nothing, at base or head, and not documentation: fails closed.
"""
from __future__ import annotations

import dataclasses
import enum
import fnmatch
import json
import posixpath
import re
from dataclasses import dataclass
from typing import AbstractSet, Any, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from ..classes import OracleClass, RegionKind, at_least, best_vote
from ..ladder.ledger import DEFAULT_MAX_FREEZE_DAYS
from . import facts as F
from .facts import Facts, TargetFact

# -- inputs --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """One changed path as git reports it, relative to the build root (`../` when outside it)."""

    path: str
    status: str  # A, M, D, R (renamed: old_path set) or T (type change)
    old_path: Optional[str] = None
    link: Optional[str] = None  # the head path is a symlink to this build-root-relative path
    link_outside: bool = False  # ... which resolves outside the build root
    copied_from: Optional[str] = None  # an added file git finds is a copy of this base file (it stays)


PRODUCTION = "production"
ORACLE = "oracle"
FLAKE_CONTROL = "flake_control"
TEST = "test"
DRAFT = "draft"
OTHER = "other"
UNMAPPED = "unmapped"
LANES = (PRODUCTION, ORACLE, FLAKE_CONTROL, TEST, DRAFT, OTHER, UNMAPPED)

AGENT = "agent"
HUMAN = "human"

CONFIG_BASENAMES = frozenset({
    "pants.toml", ".pants.rc", ".pantsignore", ".gitignore", "pytest.ini", "tox.ini", "setup.cfg",
    "pyproject.toml", ".coveragerc", "conftest.py",
    "oracle-regions.json",  # `[oracle-gate].regions`: its effective change is a CONFIG_CHANGE
})
PYTEST_CONFIGS = frozenset({"pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", ".coveragerc"})
# Documentation and tooling outside the build. Not `*.txt`: a text file beside production code can
# be read by it at run time, and is not in any test's sandbox.
DEFAULT_OTHER_GLOBS = ("*.md", "*.rst", "docs/*", "LICENSE*", "NOTICE*", "AUTHORS*", "CHANGELOG*",
                       ".gitignore", ".pantsignore", ".github/*", ".editorconfig")
# Options whose value cannot change what a test run means (reports, help, tailoring).
HARMLESS_OPTIONS = frozenset({
    "oracle-gate.report", "oracle-gate.junit", "oracle-gate.print_signatures", "oracle-gate.dry_run_format",
    "test.open_coverage", "test.report", "test.report_dir", "test.output", "test.xml_dir",
    "python.tailor_source_targets", "python.tailor_test_targets", "python.tailor_pex_binary_targets",
    "python.tailor_ignore_empty_init_files", "python.tailor_requirements_targets", "python.tailor_ignore_solitary_init_files",
    "python.tailor_pex_binary_targets", "python.macos_big_sur_compatibility", "python.run_against_entire_lockfile",
    "GLOBAL.pants_version",
})


class Lane(enum.Enum):
    """Who stands behind a diff: an agent (production and its judges never change together) or a
    person who reviewed an intended contract change."""

    AGENT = AGENT
    HUMAN = HUMAN


@dataclass(frozen=True)
class Policy:
    """What the judge is allowed to accept, typed: from the command line or the base configuration
    only (rules/gate.effective_policy), never the head's. The one policy every phase reads."""

    lane: str = AGENT  # a Lane's value
    accept_tautology: bool = False
    other_globs: Tuple[str, ...] = DEFAULT_OTHER_GLOBS
    exclude_tags: Tuple[str, ...] = ()
    exclude_globs: Tuple[str, ...] = ()  # test files excluded by path: no BUILD edit, survives deletions
    max_freeze_days: int = DEFAULT_MAX_FREEZE_DAYS
    min_rank_required: str = "R2_properties"
    mutants_per_symbol: int = 4
    mutation_budget: int = 24
    mutation_timeout: int = 60
    compare_base: bool = True  # the clean room's base-against-head comparison (UNJUDGED_CHANGE)
    dry_run: bool = False
    run_all: bool = False
    jail: bool = True
    require_jail: bool = False
    report: Optional[str] = None
    junit: Optional[str] = None
    print_signatures: bool = False
    base: Optional[str] = None

    def excludes(self, test: TargetFact) -> bool:
        """An environment-bound test: it never runs in the gate and never votes."""
        return bool(set(test.tags) & set(self.exclude_tags)) or any(matches(p, self.exclude_globs) for p in test.paths)

    @classmethod
    def from_options(cls, values: Mapping[str, Any], ranks: Sequence[str]) -> "Policy":
        """A policy from option values (lists become tuples); a value out of its type or range is a
        one-line ValueError naming the option."""
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown policy option(s) {', '.join(unknown)}")
        out: Dict[str, Any] = {}
        for key, value in values.items():
            default = known[key].default
            if isinstance(value, list):
                value = tuple(value)
            if isinstance(default, bool) and not isinstance(value, bool):
                raise ValueError(f"{key} must be true or false, got {value!r}")
            if isinstance(default, int) and not isinstance(default, bool):
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"{key} must be a non-negative integer, got {value!r}")
            if isinstance(default, tuple) and not (isinstance(value, tuple) and all(isinstance(v, str) for v in value)):
                raise ValueError(f"{key} must be a list of strings, got {value!r}")
            out[key] = value
        if out.get("lane", AGENT) not in {l.value for l in Lane}:
            raise ValueError(f"--oracle-gate-lane must be `agent` or `human`, got {out['lane']!r}")
        if out.get("min_rank_required", cls.min_rank_required) not in ranks:
            raise ValueError(f"min_rank_required must be one of {', '.join(ranks)}, got {out['min_rank_required']!r}")
        policy = cls(**out)
        if policy.accept_tautology and policy.lane != HUMAN:
            raise ValueError("--oracle-gate-accept-tautology is for the human lane only (--oracle-gate-lane=human)")
        return policy


# -- outputs -------------------------------------------------------------------------------------

def subject_of(line: str) -> str:
    """What a reason line names: every line is `CODE <subject> ...`, the subject an address, a path,
    `path:symbol`, `path:line`, a test id or a configuration key (one definition for every reader)."""
    parts = line.split(" ", 2)
    return parts[1] if len(parts) > 1 else ""


@dataclass(frozen=True)
class Finding:
    """A reason the comparison can already state, before anything runs."""

    code: str
    line: str
    path: Optional[str] = None  # for annotations: the file it points at
    lineno: Optional[int] = None
    reviewed: bool = False  # in the human lane a person's call: reported, not blocked


@dataclass(frozen=True)
class ChangedPath:
    path: str
    status: str
    lanes: Tuple[str, ...]
    why: str = ""


@dataclass(frozen=True)
class OracleChange:
    path: str  # the test or locked file (its address when it owns no file)
    what: str  # changed | deleted | added | class_drop | fields | lost | plumbing | relocked
    base_class: Optional[str]
    head_class: Optional[str]
    additive: bool = False


@dataclass(frozen=True)
class RegionPlan:
    """A changed (or audited) production region and what must judge it."""

    address: str  # head address (base address when it is gone at head)
    path: str
    status: str  # changed | added | deleted | reclassified | dependency (an input it reads changed) | audited
    kind: Optional[str]  # the kind that sets the floor (the base's, for existing regions)
    head_kind: Optional[str]
    required: Optional[str]  # the class required (P, L, E) or None (nothing required)
    candidates: Tuple[str, ...]  # test addresses at head that may vote for it
    base_oracles: Tuple[str, ...]  # P/L oracle paths that covered it at base
    old_path: Optional[str] = None
    trigger: Optional[str] = None  # a dependency region: the changed input it reads
    base_best: Optional[str] = None  # a dependency region: the best class that reached it at the base
    copied_from: Optional[str] = None  # an added region that is a copy of this base production file

    @property
    def before_path(self) -> Optional[str]:
        """The base file this region's code is compared with (None: it is new)."""
        if self.status == "added":
            return self.copied_from
        return self.old_path or self.path


@dataclass(frozen=True)
class Comparison:
    changes: Tuple[ChangedPath, ...]
    regions: Tuple[RegionPlan, ...]
    oracle_changes: Tuple[OracleChange, ...]
    demoted: Tuple[str, ...]  # test addresses that run as diagnostics only
    new_tests: Tuple[str, ...]  # tests that did not exist at base: they never vote on this diff
    excluded: Tuple[str, ...]  # tests excluded by tag
    findings: Tuple[Finding, ...]
    classes: Tuple[Tuple[str, str], ...]  # test address -> class it votes with on this diff
    # New P/L oracles (address, class), and in the human lane new class-E tests: they judge only code
    # that is new in this diff (added regions, added symbols); existing code is judged by the oracles
    # that judged it at the base.
    newcomers: Tuple[Tuple[str, str], ...] = ()

    @property
    def class_of(self) -> Dict[str, OracleClass]:
        return {a: OracleClass(c) for a, c in self.classes}

    @property
    def newcomer_classes(self) -> Dict[str, OracleClass]:
        return {a: OracleClass(c) for a, c in self.newcomers}

    @property
    def judge_classes(self) -> Dict[str, OracleClass]:
        """The class of every test that may judge something on this diff: voters and new oracles."""
        return {**self.newcomer_classes, **self.class_of}

    def lane_paths(self, lane: str) -> List[str]:
        return sorted(c.path for c in self.changes if lane in c.lanes)

    @property
    def production_changed(self) -> bool:
        return any(r.status != "audited" for r in self.regions)


# -- helpers ---------------------------------------------------------------------------------------

def _floor(kind: Optional[str]) -> Optional[OracleClass]:
    return RegionKind(kind).floor if kind else None


def _rank(cls: Optional[OracleClass]) -> int:
    return cls.rank if cls is not None else -1


def one_owner(targets: Iterable[TargetFact], roles: Iterable[str]) -> Optional[TargetFact]:
    roles = set(roles)
    found = [t for t in targets if t.role in roles]
    return found[0] if found else None


def matches(path: str, globs: Iterable[str]) -> bool:
    """`path` matches a glob of `other_globs` (the whole path, or its base name)."""
    base = posixpath.basename(path)
    return any(fnmatch.fnmatchcase(path, g) or fnmatch.fnmatchcase(base, g) for g in globs)


DOCUMENTATION_SUFFIXES = (".md", ".markdown", ".rst", ".adoc", ".rdoc")


def documentation_only(changes: Sequence[Change], head: Facts, other_globs: Iterable[str]) -> bool:
    """A diff whose every path is documentation the base's facts cannot differ on: added or
    modified (never deleted, renamed, copied or a link), a documentation file by its suffix, in no
    hidden directory (ignore files and CI configuration are hidden), no build file or configuration,
    named by no option Pants evaluates, owned by no head target and listed by `other_globs`. BUILD
    files, configuration, ignores and Python are the base's, so Pants sees the same targets, options
    and dependencies at base and head: the head's facts answer every question the comparison asks of
    the base's."""
    globs, named = tuple(other_globs), paths_named_by_options(head.option_map)
    return documentation_paths(changes) and all(
        not _named(c.path, named) and not head.owners(c.path) and matches(c.path, globs) for c in changes)


def _option_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from _option_strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _option_strings(v)


def paths_named_by_options(options: Mapping[str, Any]) -> Tuple[str, ...]:
    """Every path, name or glob an option Pants evaluates holds (BUILD file patterns and preludes,
    source-root marker files, lockfiles, constraints files, configuration files). The gate's own
    path lists (`[oracle-gate]`) name nothing Pants reads."""
    return tuple(sorted({s for key, value in options.items() if not key.startswith("oracle-gate.")
                         for s in (raw.strip().lstrip("/") for raw in _option_strings(value)) if s}))


def _named(path: str, named: Sequence[str]) -> bool:
    """`path` is one of `named`: by path, name or glob (`matches`), or as an absolute path's end (a
    lockfile under `%(buildroot)s`)."""
    return matches(path, named) or any(s.endswith("/" + path) for s in named)


def documentation_paths(changes: Sequence[Change]) -> bool:
    """What `documentation_only` asks of the paths alone (before any facts are known)."""
    return bool(changes) and all(
        c.status in ("A", "M") and not (c.old_path or c.link or c.copied_from)
        and c.path.lower().endswith(DOCUMENTATION_SUFFIXES)
        and not any(part.startswith(".") for part in c.path.split("/"))
        and not judged_as_configuration(c.path)
        for c in changes)


def judged_as_configuration(path: str) -> bool:
    """BUILD files and configuration: never unowned, judged by what their evaluation changes."""
    return _is_build_file(path) or _is_pants_config(path) or posixpath.basename(path) in CONFIG_BASENAMES


def _is_build_file(path: str) -> bool:
    base = posixpath.basename(path)
    return base == "BUILD" or base.startswith("BUILD.")


def _is_pants_config(path: str) -> bool:
    return is_pants_config(path) or posixpath.basename(path) == ".pantsignore"


def voting_class(facts: Facts, address: str) -> Optional[OracleClass]:
    cls = facts.oracle_class(address)
    return cls if cls is not None and cls.votes else None


# Option scopes whose values can change what a test run means or which targets exist. Lint,
# format and packaging scopes are absent on purpose: changing them cannot weaken a judge.
JUDGE_SCOPES = ("source", "python", "python-infer", "pytest", "test", "subprocess-environment",
                "oracle-gate", "filter", "environments-preview", "python-bootstrap", "pex", "pex-cli",
                "python-repos", "coverage-py")
GLOBAL_JUDGE_KEYS = ("pants_ignore", "pants_ignore_use_gitignore", "build_ignore", "build_patterns",
                     "build_file_prelude_globs", "pythonpath", "plugins", "backend_packages", "tag",
                     "unmatched_build_file_globs", "pants_version")


def is_pants_config(path: str) -> bool:
    """A file Pants reads as configuration when named: `pants*.toml`, `.pants.rc`."""
    base = posixpath.basename(path)
    return base == ".pants.rc" or (base.startswith("pants") and base.endswith(".toml"))


def _judge_keys(data: Mapping[str, object]) -> Dict[str, object]:
    """The judge-relevant "scope.key" entries a parsed Pants config file sets, as written. A
    `[DEFAULT]` entry applies to every scope, so every one of them counts."""
    out: Dict[str, object] = {}
    for scope, table in data.items():
        if not isinstance(table, dict):
            out[f"?.{scope}"] = table  # a key outside any section: Pants rejects it; never ignored
            continue
        for key, value in table.items():
            name = "GLOBAL" if scope in ("GLOBAL", "") else scope
            if name == "DEFAULT" or (name == "GLOBAL" and key in GLOBAL_JUDGE_KEYS) or name in JUDGE_SCOPES:
                out[f"{name}.{key}"] = value
    return out


def _only_pants_backends_added(base: object, head: object) -> bool:
    """A backend list that only gains Pants' own backends (`pants.backend.*`): no judge changes."""
    if not (isinstance(base, list) and isinstance(head, list)):
        return False
    return all(x in head for x in base) and all(str(x).startswith("pants.backend.") for x in head if x not in base)


def config_file_changes(path: str, base: Optional[Mapping[str, object]],
                        head: Optional[Mapping[str, object]]) -> Tuple[Finding, ...]:
    """A Pants configuration file the head changed, while the gate itself runs under the base's
    configuration (the launcher's judge mode): the head's file is evidence only, and every
    judge-relevant entry it sets differently (added, removed or changed, as written; `None` for a
    file that is absent) is a CONFIG_CHANGE. Written values, not effective ones: a move of an entry
    between files or sections is reported too, a reviewer's call."""
    b, h = _judge_keys(base or {}), _judge_keys(head or {})
    out = []
    for key in sorted(set(b) | set(h)):
        if key in HARMLESS_OPTIONS or b.get(key) == h.get(key):
            continue
        if key == "GLOBAL.backend_packages" and _only_pants_backends_added(b.get(key, []), h.get(key)):
            continue
        scope, _, name = key.partition(".")
        out.append(Finding("CONFIG_CHANGE",
                           f"CONFIG_CHANGE {path} [{scope}].{name} base={json.dumps(b.get(key), sort_keys=True)} "
                           f"head={json.dumps(h.get(key), sort_keys=True)}: set by the head's configuration "
                           f"(the gate ran under the base's)", path))
    return tuple(out)


def option_changes(base: Facts, head: Facts, head_ranks: Mapping[str, str]) -> Tuple[Finding, ...]:
    """Options set by the head's configuration files to a value the base did not have.

    Values from the command line or the environment (ranks FLAG, ENVIRONMENT) are the caller's, not
    the patch's; a harmless option or a new `pants.backend.*` backend changes no judge.
    """
    out = []
    for key in sorted(set(base.option_map) | set(head.option_map)):
        if key in HARMLESS_OPTIONS or head_ranks.get(key) in ("FLAG", "ENVIRONMENT"):
            continue
        b, h = base.option_map.get(key), head.option_map.get(key)
        if b == h:
            continue
        if key == "GLOBAL.backend_packages" and _only_pants_backends_added(b, h):
            continue
        scope, _, name = key.partition(".")
        out.append(Finding("CONFIG_CHANGE",
                           f"CONFIG_CHANGE [{scope}].{name} base={json.dumps(b, sort_keys=True)} "
                           f"head={json.dumps(h, sort_keys=True)}: set by the head's configuration"))
    return tuple(out)


# -- the comparison --------------------------------------------------------------------------------

Mark = Tuple[str, str, str]  # (path, lane, why): one reason a changed path is in a lane
# A changed input without a region of its own: (path or address, what it is, the production code
# reading it, the targets that carry it).
Input = Tuple[str, str, Tuple[str, ...], Tuple[str, ...]]


@dataclass(frozen=True)
class _Diff:
    """What every phase of the comparison reads: the two trees, the diff and the policy."""

    base: Facts
    head: Facts
    policy: Policy
    changed_paths: FrozenSet[str]
    deleted: FrozenSet[str]
    renamed_to: Mapping[str, str]
    copied_from: Mapping[str, str]  # an added path -> the base file git finds it is a copy of
    inert: FrozenSet[str]  # changed files with nothing to run at the base nor at head
    moved_code: Mapping[str, Tuple[str, ...]]  # an added path -> the base files all its code comes from
    excluded: FrozenSet[str]  # tests the policy excludes (at head)
    paths: Tuple[str, ...]  # every file a non-generator target owns, at base or head, sorted

    @property
    def demoted_note(self) -> str:
        # In the human lane a person reviewed the changed tests: they vote with their head class,
        # as changed oracles do there; in the agent lane they run as diagnostics only.
        return "it votes with its head class (human lane)" if self.policy.lane == HUMAN else "demoted, it does not vote"

    def production_readers(self, addresses: Iterable[str]) -> Tuple[str, ...]:
        """Production targets at head that depend on `addresses` (at base or at head)."""
        addresses = tuple(addresses)
        base, head = self.base, self.head
        found = base.transitive_dependents(addresses) | head.transitive_dependents(addresses)
        return tuple(sorted(a for a in found if a in head.by_address and head.by_address[a].role == F.PRODUCTION
                            and (head.by_address[a].paths or head.by_address[a].region)))

    def candidates(self, address: str) -> Tuple[str, ...]:
        return _candidates(self.head, address, self.excluded)


@dataclass(frozen=True)
class _Part:
    """What one phase found: lane marks, findings, oracle changes, regions, demotions, inputs."""

    marks: Tuple[Mark, ...] = ()
    findings: Tuple[Finding, ...] = ()
    oracle_changes: Tuple[OracleChange, ...] = ()
    regions: Tuple[RegionPlan, ...] = ()
    demoted: FrozenSet[str] = frozenset()
    inputs: Tuple[Input, ...] = ()


@dataclass(frozen=True)
class _Judges:
    """The judges phase: tests, locked files and plumbing, and the classes tests vote with."""

    part: _Part
    base_class: Mapping[str, Optional[OracleClass]]  # path -> its test's class at the base
    vote_class: Mapping[str, OracleClass]  # unchanged tests -> the class they vote with
    new_tests: FrozenSet[str]


def _fields_changed(b: TargetFact, h: TargetFact) -> bool:
    return b.address != h.address or b.fields != h.fields or b.role != h.role or b.region != h.region


def compare(
    base: Facts,
    head: Facts,
    changes: Sequence[Change],
    policy: Policy,
    head_ranks: Mapping[str, str] = {},  # noqa: B006 (read only)
    baseline: Optional[Mapping[str, Optional[str]]] = None,
    marker_added: FrozenSet[str] = frozenset(),
    config_findings: Sequence[Finding] = (),
    audit: Sequence[str] = (),
    cosmetic: FrozenSet[str] = frozenset(),
    lock_changes: Mapping[str, Tuple[str, Optional[FrozenSet[str]]]] = {},  # noqa: B006 (read only)
    inert: FrozenSet[str] = frozenset(),
    moved_code: Mapping[str, Tuple[str, ...]] = {},  # noqa: B006 (read only)
    adopted: Sequence[Tuple[str, str, Optional[str]]] = (),
) -> Comparison:
    """`marker_added`: paths of existing tests where the diff added a flake marker (from syntax).
    `config_findings`: CONFIG_CHANGE findings for pytest configuration files the diff changed.
    `baseline`: region address -> best class that voted when the baseline was written (base's).
    `audit`: on an empty diff, the production addresses to audit (regions with status audited).
    `cosmetic`: modified files whose code did not change (comments, formatting, docstrings): they
    change no judge and no region.
    `lock_changes`: changed lockfiles -> (what they lock: `resolve:<name>` or `tool:<scope>`, the
    projects the change affects or None when unknown), from `dependencies.changed_projects`.
    `inert`: changed files that hold nothing to run at the base nor at head: Python files with no
    code (empty package markers), other files that are empty.
    `moved_code`: added Python files whose every def, class and statement is a base file's
    (`symbols.copied_code`): the base files it came from.
    `adopted`: the baseline's regions as (address, path, kind), those gone since included: where
    code of each kind stood at adoption (the human lane's standard for new modules).

    The phases, each a function returning what it found: the judges (tests, locks, plumbing), the
    production regions, file-less targets and lockfiles (inputs), inputs judged through their
    readers, oracles lost by changed regions and by unchanged ones, unowned paths; then the classes
    each test votes with and the lane rule.
    """
    touched: Set[str] = {p for c in changes for p in (c.path, c.old_path) if p}
    diff = _Diff(
        base, head, policy,
        changed_paths=frozenset(touched - set(cosmetic)),
        deleted=frozenset({c.path for c in changes if c.status == "D"} | {c.old_path for c in changes if c.old_path}),
        renamed_to={c.old_path: c.path for c in changes if c.old_path},
        copied_from={c.path: c.copied_from for c in changes if c.copied_from},
        inert=inert,
        moved_code=moved_code,
        excluded=frozenset(t.address for t in head.targets if t.is_test and policy.excludes(t)),
        paths=tuple(sorted(set(base.by_path) | set(head.by_path))),
    )
    judges = _judges(diff, marker_added)
    production = _production_regions(diff, baseline, adopted)
    fileless = _fileless_inputs(diff)
    locks = _lockfile_inputs(diff, lock_changes)
    regions = production.regions + fileless.regions
    readers = _inputs_through_readers(diff, judges.part.inputs + fileless.inputs + locks.inputs,
                                      {r.address for r in regions}, baseline)
    regions += readers.regions
    parts = (judges.part, production, fileless, locks, readers)
    lost = _Part(findings=_oracles_lost(diff, regions, judges.base_class)
                 + tuple(judges_lost_elsewhere(base, head, policy, {r.address for r in regions})))
    marked = {p for part in parts for p, _, _ in part.marks}
    unowned = _unowned_paths(diff, changes, marked, inert)
    parts += (lost, unowned)

    findings = list(option_changes(base, head, head_ranks)) + list(config_findings)
    findings += [f for part in parts for f in part.findings]
    oracle_changes = [o for part in parts for o in part.oracle_changes]
    demoted = set().union(*(part.demoted for part in parts))
    lanes_of: Dict[str, Set[str]] = {p: set() for p in diff.changed_paths}
    whys: Dict[str, List[str]] = {p: [] for p in diff.changed_paths}
    for part in parts:
        for path, lane, why in part.marks:
            lanes_of.setdefault(path, set()).add(lane)
            if why:
                whys.setdefault(path, []).append(why)
    config_changed = [f for f in findings if f.code == "CONFIG_CHANGE"]
    for f in config_changed:
        if f.path:
            lanes_of.setdefault(f.path, set()).add(FLAKE_CONTROL)

    classes = _vote_classes(diff, judges.vote_class)
    if policy.lane == HUMAN:
        demoted = set()  # reviewed by a person: changed tests vote
    regions += _audited(diff, audit, {r.address for r in regions}, baseline)

    changed = _changed_paths(diff, changes, lanes_of, whys, config_changed)
    findings.extend(_lane_findings(changed, oracle_changes, policy))
    return Comparison(
        changes=changed,
        regions=tuple(sorted(regions, key=lambda r: r.address)),
        oracle_changes=tuple(sorted(oracle_changes, key=lambda o: o.path)),
        demoted=tuple(sorted(demoted)),
        new_tests=tuple(sorted(judges.new_tests)),
        excluded=tuple(sorted(diff.excluded)),
        findings=tuple(findings),
        classes=tuple(sorted((a, c.value) for a, c in classes.items())),
        # New judges of new code: new P/L oracles; in the human lane, where changed class-E tests
        # vote, new ones too (a person's new module arrives with its tests).
        newcomers=tuple(sorted((a, c.value) for a in judges.new_tests if a not in diff.excluded
                               and head.by_address[a].role != F.DRAFT
                               for c in [voting_class(head, a)] if c in (OracleClass.PROPERTY, OracleClass.LOCKED)
                               or (c == OracleClass.EQUALITY and diff.policy.lane == HUMAN))),
    )


def _vote_classes(diff: _Diff, vote_class: Mapping[str, OracleClass]) -> Dict[str, OracleClass]:
    """The class each test votes with on this diff: its base class (a demoted test none); in the
    human lane, reviewed by a person, changed and new oracles and changed class-E tests with their
    head class. Excluded tests never vote."""
    classes: Dict[str, OracleClass] = dict(vote_class)
    if diff.policy.lane == HUMAN:
        for t in diff.head.targets:
            cls = voting_class(diff.head, t.address)
            if t.is_test and cls is not None:
                classes.setdefault(t.address, cls)
    return {a: c for a, c in classes.items() if a not in diff.excluded}


def _audited(diff: _Diff, audit: Sequence[str], judged: Set[str],
             baseline: Optional[Mapping[str, Optional[str]]]) -> Tuple[RegionPlan, ...]:
    """On an empty diff every production target in the specs is a region, audited (a requirement
    without a region is judged when it changes, not audited)."""
    out = []
    for a in audit:
        t = diff.head.by_address.get(a)
        if t is None or a in judged or t.role != F.PRODUCTION or not (t.paths or t.region):
            continue
        out.append(RegionPlan(a, t.paths[0] if t.paths else a, "audited", t.region, t.region,
                              _cls(_required(diff.base, a, t.region, baseline)), diff.candidates(a), ()))
    return tuple(out)


def _changed_paths(diff: _Diff, changes: Sequence[Change], lanes_of: Mapping[str, Set[str]],
                   whys: Mapping[str, List[str]], config_changed: Sequence[Finding]) -> Tuple[ChangedPath, ...]:
    """Paths the diff touched, and paths whose evaluated meaning changed without their bytes
    changing (a BUILD edit, a configuration file, a dropped edge: status "E", evaluated), each with
    its lanes and why. Configuration changes are flake control even when no single path carries them."""
    changed = tuple(
        ChangedPath(p, next((c.status for c in changes if p in (c.path, c.old_path)), "E"),
                    tuple(sorted(lanes_of.get(p) or {OTHER})), "; ".join(dict.fromkeys(whys.get(p, []))))
        for p in sorted(diff.changed_paths | {p for p, lanes in lanes_of.items() if lanes})
    )
    if config_changed and not any(FLAKE_CONTROL in c.lanes for c in changed):
        changed = changed + tuple(
            ChangedPath(subject_of(f.line), "M", (FLAKE_CONTROL,), "effective configuration changed")
            for f in config_changed
        )
    return changed


def _judges(diff: _Diff, marker_added: FrozenSet[str]) -> _Judges:
    """Tests, locked files and plumbing: the judges, and what the diff did to each."""
    base, head = diff.base, diff.head
    marks: List[Mark] = []
    oracle_changes: List[OracleChange] = []
    demoted: Set[str] = set()
    inputs: List[Input] = []
    base_class: Dict[str, Optional[OracleClass]] = {}
    vote_class: Dict[str, OracleClass] = {}
    new_tests: Set[str] = set()
    closure_base, closure_head = base.oracle_closure(), head.oracle_closure()
    for p in diff.paths:
        b_owners, h_owners = base.owners(p), head.owners(p)
        touched = p in diff.changed_paths
        b_test = one_owner(b_owners, F.TEST_ROLES)
        h_test = one_owner(h_owners, F.TEST_ROLES)
        if b_test is None and h_test is not None and p in diff.copied_from and diff.policy.lane == HUMAN:
            # Reviewed by a person, a test copied from a base test is that test, changed (it votes
            # as changed tests do there); in the agent lane it is a new test.
            b_test = one_owner(base.owners(diff.copied_from[p]), F.TEST_ROLES)
        if b_test is not None:
            cb = base.oracle_class(b_test.address)
            ch = head.oracle_class(h_test.address) if h_test is not None else None
            base_class[p] = cb
            changed = touched or h_test is None or _fields_changed(b_test, h_test) or cb != ch \
                or (h_test is not None and h_test.skip != b_test.skip)
            lost = h_test is None or (h_test is not None and h_test.skip and not b_test.skip)
            is_judge = cb in (OracleClass.PROPERTY, OracleClass.LOCKED) or b_test.role in (F.REPLAY, F.PROBES)
            if h_test is not None and not changed:
                if ch is not None and ch.votes:
                    vote_class[h_test.address] = ch
            elif is_judge:
                what = "deleted" if p in diff.deleted and h_test is None else (
                    "lost" if lost else ("class_drop" if _rank(ch) < _rank(cb) else ("changed" if touched else "fields")))
                oracle_changes.append(OracleChange(p, what, cb.value if cb else None, ch.value if ch else None))
                marks.append((p, ORACLE, f"{b_test.address} is a class-{cb.value if cb else '?'} oracle at the base ({what})"))
            elif b_test.role == F.DRAFT:
                marks.append((p, DRAFT, ""))
            else:
                if h_test is not None:
                    demoted.add(h_test.address)
                marks.append((p, TEST, f"class-E test changed: {diff.demoted_note}" if h_test else "class-E test removed"))
            if p in marker_added and b_test.role != F.DRAFT:
                marks.append((p, FLAKE_CONTROL, "a flake marker (skip, xfail, rerun, timeout, ...) was added"))
        elif h_test is not None:
            ch = head.oracle_class(h_test.address)
            new_tests.add(h_test.address)
            if h_test.role == F.DRAFT:
                marks.append((p, DRAFT, ""))
            elif ch in (OracleClass.PROPERTY, OracleClass.LOCKED) or h_test.role in (F.REPLAY, F.PROBES):
                oracle_changes.append(OracleChange(p, "added", None, ch.value if ch else None, additive=True))
                marks.append((p, ORACLE, f"new class-{ch.value if ch else '?'} oracle"))
            else:
                marks.append((p, TEST, "new class-E test"))

        # Locked files: their bytes and their lock are the oracle's expectations.
        b_lock = one_owner(b_owners, F.LOCK_ROLES | {F.REPLAY, F.PROBES})
        h_lock = one_owner(h_owners, F.LOCK_ROLES | {F.REPLAY, F.PROBES})
        if b_lock is not None and b_lock.role in F.LOCK_ROLES:
            relocked = h_lock is not None and h_lock.sha256 != b_lock.sha256
            if touched or h_lock is None or relocked or _fields_changed(b_lock, h_lock):
                what = "deleted" if h_lock is None else ("relocked" if relocked else ("changed" if touched else "fields"))
                oracle_changes.append(OracleChange(p, what, None, None))
                marks.append((p, ORACLE, f"{b_lock.alias} {b_lock.address} ({what})"))
        elif h_lock is not None and h_lock.role in F.LOCK_ROLES and b_lock is None:
            # A new fixture judges nothing until a test reads it; a new ledger or baseline changes
            # what the next diff is judged by: that is never additive.
            additive = h_lock.role == F.LOCKED_FIXTURE
            oracle_changes.append(OracleChange(p, "added", None, None, additive=additive))
            marks.append((p, ORACLE, f"new {h_lock.alias}"))

        # Test plumbing (conftest.py, python_test_utils) and data files without a region: part of
        # a judge when a P/L oracle uses them, part of production when production code does.
        b_util = one_owner(b_owners, [F.TEST_UTIL, F.OTHER])
        h_util = one_owner(h_owners, [F.TEST_UTIL, F.OTHER])
        util = b_util or h_util
        if util is not None and util.alias.startswith("_") and util.generator:
            # A generator's own file (the requirements.txt behind `python_requirements`): the
            # targets it generates carry what it declares, and they are judged for it.
            if touched:
                marks.append((p, OTHER, f"declares the targets of {util.generator}: they are judged for what they declare"))
        elif util is not None and (touched or b_util is None or h_util is None or _fields_changed(b_util, h_util)):
            carriers = [t.address for t in (b_util, h_util) if t is not None]
            readers = diff.production_readers(carriers)
            if util.role == F.OTHER and readers:
                inputs.append((p, f"data file {util.address}", readers, (util.address,)))
            elif (b_util is not None and b_util.address in closure_base) or (
                    h_util is not None and h_util.address in closure_head):
                oracle_changes.append(OracleChange(p, "plumbing", None, None))
                marks.append((p, ORACLE, f"test plumbing {util.address} is used by a P/L oracle"))
            else:
                users = {a for facts_, t in ((base, b_util), (head, h_util)) if t is not None
                         for a in facts_.transitive_dependents([t.address]) if facts_.is_test(a)}
                demoted.update(a for a in users if head.is_test(a))
                marks.append((p, TEST, f"test plumbing or data of class-E tests changed: {diff.demoted_note}"))
    part = _Part(marks=tuple(marks), oracle_changes=tuple(oracle_changes), demoted=frozenset(demoted),
                 inputs=tuple(inputs))
    return _Judges(part, base_class, vote_class, frozenset(new_tests))


def _production_regions(diff: _Diff, baseline: Optional[Mapping[str, Optional[str]]],
                        adopted: Sequence[Tuple[str, str, Optional[str]]] = ()) -> _Part:
    """Production files the diff changed (or whose target changed): the regions and their floors."""
    base, head = diff.base, diff.head
    marks: List[Mark] = []
    findings: List[Finding] = []
    downgrades: List[Finding] = []
    regions: List[RegionPlan] = []
    renamed_from_production = {new for old, new in diff.renamed_to.items()
                               if one_owner(base.owners(old), [F.PRODUCTION])}
    neighbours: Dict[str, Optional[OracleClass]] = {}  # baselined address -> what it owes (the human lane's standard)
    for p in diff.paths:
        b_prod = one_owner(base.owners(p), [F.PRODUCTION])
        h_path = diff.renamed_to.get(p, p)
        h_prod = one_owner(head.owners(h_path), [F.PRODUCTION])
        if b_prod is None and h_prod is None:
            continue
        touched = p in diff.changed_paths or h_path in diff.changed_paths
        if b_prod is None:
            if p in renamed_from_production:
                continue  # judged as the rename of its base region
            if p in diff.inert and any(
                    x != p and x.rsplit("/", 1)[0] == p.rsplit("/", 1)[0] and x.endswith(".py")
                    and one_owner(head.owners(x), [F.PRODUCTION]) for x in head.by_path):
                # A package marker with no code, beside code of its package (which is judged): it
                # runs nothing.
                marks.append((p, PRODUCTION, "a package marker with no code"))
                continue
            # A copy of a base production file is judged as a change to that file (which stays):
            # the class its baseline holds it to, and only what differs from it is new code. Code
            # moved or copied from several base files owes what the strictest of them owes.
            copied = (diff.copied_from[p],) if p in diff.copied_from else diff.moved_code.get(p, ())
            sources = [one_owner(base.owners(x), [F.PRODUCTION]) for x in copied]
            required = _floor(h_prod.region)
            if copied and all(sources):
                owed = max((_required(base, x.address, h_prod.region, baseline) for x in sources if x), key=_rank)
                required = min(required, owed, key=_rank)
            else:
                copied = ()
            standard = _standard_beside(base, p, h_prod.region, baseline, adopted, neighbours) \
                if diff.policy.lane == HUMAN else None
            if standard is not None and _rank(standard[1]) < _rank(required):
                required = standard[1]
            marks.append((p, PRODUCTION, (f"{'copied' if p in diff.copied_from else 'its code moved or copied'} "
                          f"from {', '.join(copied)}" if copied else "new production region")
                          + (f" (human lane: it owes {standard[1].value if standard[1] else 'no class'}, the "
                             f"standard adoption found for the {h_prod.region} code in {standard[0] or 'the build root'}/)"
                             if standard is not None and required == standard[1] else "")))
            regions.append(RegionPlan(h_prod.address, p, "added", h_prod.region, h_prod.region,
                                      _cls(required), diff.candidates(h_prod.address), (),
                                      copied_from=copied[0] if copied and p in diff.copied_from else None))
            continue
        b_floor, h_floor = _floor(b_prod.region), _floor(h_prod.region if h_prod else None)
        # A test skipped at the base (`skip_tests`) never judged anything there.
        base_cov = [t for t in base.covering_tests(b_prod.address) if t.paths and not t.skip]
        base_oracles = tuple(sorted(t.paths[0] for t in base_cov
                                    if voting_class(base, t.address) in (OracleClass.PROPERTY, OracleClass.LOCKED)))
        static_best = _best_of(base, base_cov)
        if h_prod is None:
            gone = p in diff.deleted and not head.owners(p)
            if not gone:
                findings.append(Finding(
                    "REGION_DOWNGRADE",
                    f"REGION_DOWNGRADE {p} was a {b_prod.region or 'unmapped'} production target at the base "
                    f"({b_prod.address}) and is no longer production at head "
                    f"({', '.join(t.alias for t in head.owners(p)) or 'owned by nothing'})", p))
            marks.append((p, PRODUCTION, "base production target " + ("deleted" if gone else "reclassified")))
            # Deleted code is judged by the oracles it had: they must still be there and pass.
            required = static_best if gone and _rank(static_best) < _rank(b_floor) else b_floor
            regions.append(RegionPlan(b_prod.address, p, "deleted" if gone else "reclassified", b_prod.region, None,
                                      _cls(required), (), base_oracles))
            continue
        if not (touched or _fields_changed(b_prod, h_prod)):
            continue
        if b_floor is not None and _rank(h_floor) < _rank(b_floor):
            downgrades.append(Finding(
                "REGION_DOWNGRADE",
                f"REGION_DOWNGRADE {h_path} kind {b_prod.region} -> {h_prod.region or 'none'} "
                f"(floor {b_floor.value} -> {h_floor.value if h_floor else 'none'})", h_path))
        required = b_floor
        if baseline is not None and b_prod.address in baseline and not at_least(static_best, b_floor):
            # The ratchet: a region keeps what it had; once it reaches its floor it keeps that.
            required = _cls_or_none(baseline[b_prod.address])
        marks.append((h_path, PRODUCTION, ""))
        if h_path != p:
            marks.append((p, PRODUCTION, ""))
        regions.append(RegionPlan(h_prod.address, h_path, "changed", b_prod.region, h_prod.region, _cls(required),
                                  diff.candidates(h_prod.address), base_oracles, old_path=p if h_path != p else None))
    return _Part(marks=tuple(marks), findings=tuple(findings + downgrades), regions=tuple(regions))


def _fileless_inputs(diff: _Diff) -> _Part:
    """File-less targets whose evaluated fields changed (a requirement's version, a BUILD-only
    target): requirements are inputs judged through their readers; the rest are regions."""
    base, head = diff.base, diff.head
    regions: List[RegionPlan] = []
    inputs: List[Input] = []
    fileless = {t.address for f in (base, head) for t in f.targets if not t.paths and t.role != F.GENERATOR}
    for a in sorted(fileless):
        b, h = base.by_address.get(a), head.by_address.get(a)
        if b is not None and h is not None and not _fields_changed(b, h):
            continue
        if any(t is not None and t.role == F.DEPENDENCY for t in (b, h)):
            inputs.append((a, f"requirement {a} ({'added' if b is None else 'deleted' if h is None else 'changed'})",
                           diff.production_readers([a]), (a,)))
            continue
        judged = any(t is not None and t.role == F.PRODUCTION for t in (b, h)) or (
            h is not None and any(head.is_test(x) for x in head.transitive_dependents([a])))
        if not judged:
            continue  # nothing any test runs depends on it: it cannot change a verdict
        status = "added" if b is None else ("deleted" if h is None else "changed")
        kind = b.region if b is not None else (h.region if h is not None else None)
        regions.append(RegionPlan(a, a, status, kind, h.region if h else None, _cls(_floor(kind)),
                                  diff.candidates(a) if h is not None else (), ()))
    return _Part(regions=tuple(regions), inputs=tuple(inputs))


def _lockfile_inputs(diff: _Diff, lock_changes: Mapping[str, Tuple[str, Optional[FrozenSet[str]]]]) -> _Part:
    """Lockfiles: the requirements whose pinned projects changed (all of a resolve's when unknown)."""
    marks: List[Mark] = []
    inputs: List[Input] = []
    for path, (locks, affected) in sorted(lock_changes.items()):
        if locks.startswith("tool:"):
            marks.append((path, ORACLE, f"the lockfile of {locks[5:]}, which runs every judge"))
            continue
        hit = tuple(sorted({t.address for facts_ in (diff.base, diff.head) for t in facts_.targets
                            if t.role == F.DEPENDENCY and (affected is None or set(t.requirements) & affected)}))
        what = "every pin unknown" if affected is None else f"{len(affected)} project(s) re-pinned"
        inputs.append((path, f"lockfile of {locks} ({what})", diff.production_readers(hit), hit))
    return _Part(marks=tuple(marks), inputs=tuple(inputs))


def _inputs_through_readers(diff: _Diff, inputs: Sequence[Input], judged: Set[str],
                            baseline: Optional[Mapping[str, Optional[str]]]) -> _Part:
    """Inputs without a region of their own are judged through the production code that reads
    them (`dependency` regions); one only tests use is part of their judges, like test plumbing."""
    base, head = diff.base, diff.head
    marks: List[Mark] = []
    oracle_changes: List[OracleChange] = []
    demoted: Set[str] = set()
    regions: List[RegionPlan] = []
    judged_now = set(judged)
    closures = (base.oracle_closure(), head.oracle_closure())
    for subject, what, readers, carriers in inputs:
        if not readers:
            users = {x for facts_ in (base, head) for x in facts_.transitive_dependents(carriers) if facts_.is_test(x)}
            if any(c in closure for c in carriers for closure in closures):
                oracle_changes.append(OracleChange(subject, "plumbing", None, None))
                marks.append((subject, ORACLE, f"{what}: a P/L oracle depends on it"))
            elif users:
                demoted.update(a for a in users if head.is_test(a))
                marks.append((subject, TEST, f"{what}: only class-E tests depend on it ({diff.demoted_note})"))
            else:
                marks.append((subject, OTHER, f"{what}: nothing any test runs depends on it"))
            continue
        more = f" (+{len(readers) - 1} more)" if len(readers) > 1 else ""
        marks.append((subject, PRODUCTION, f"{what}: judged through the production code that depends on it, "
                                           f"{readers[0]}{more}"))
        for a in readers:
            h = head.by_address[a]
            if a in judged_now or (h.paths and h.paths[0] in diff.inert):
                continue  # judged already, or a changed file that holds no code: it reads nothing
            judged_now.add(a)
            b = base.by_address.get(a)
            kind = b.region if b is not None and b.role == F.PRODUCTION else h.region
            covering = [t for t in base.covering_tests(a) if not t.skip]  # one walk for both
            reached = _best_of(base, (t for t in covering if t.address not in diff.excluded))
            regions.append(RegionPlan(a, h.paths[0] if h.paths else a, "dependency", kind, h.region,
                                      _cls(_required(base, a, kind, baseline, covering)), diff.candidates(a), (),
                                      trigger=subject, base_best=_cls(reached)))
    return _Part(marks=tuple(marks), oracle_changes=tuple(oracle_changes), regions=tuple(regions),
                 demoted=frozenset(demoted))


def _oracles_lost(diff: _Diff, regions: Sequence[RegionPlan],
                  base_class: Mapping[str, Optional[OracleClass]]) -> Tuple[Finding, ...]:
    """A P/L oracle that covered a changed region at the base must still cover it at head."""
    head = diff.head
    out: List[Finding] = []
    for region in regions:
        have_paths = {head.by_address[a].paths[0] for a in region.candidates
                      if a in head.by_address and head.by_address[a].paths}
        for path in region.base_oracles:
            h_test = one_owner(head.owners(path), F.TEST_ROLES)
            missing = h_test is None or h_test.skip or (region.status != "deleted" and path not in have_paths)
            if h_test is not None and h_test.address in diff.excluded:
                continue
            if missing:
                cls = base_class.get(path)
                out.append(Finding(
                    "ORACLE_LOST",
                    f"ORACLE_LOST {path} (class {cls.value if cls else '?'}) covered {region.path} at the base and "
                    f"{'is gone' if h_test is None else ('is skipped' if h_test.skip else 'no longer covers it')} at head",
                    path))
    return tuple(out)


# A file the interpreter imports by name from a directory on its path: source, bytecode, and
# extension modules (`tax.so`, `tax.abi3.so`, `tax.cpython-39-x86_64-linux-gnu.so`, `tax.pyd`),
# which CPython prefers to `tax.py` beside them.
_IMPORTABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.pyw?|\.pyc|(\.cpython-[A-Za-z0-9_-]+|\.abi3|\.cp[0-9]+-[A-Za-z0-9_]+)?\.(so|pyd))")


def importable(path: str) -> bool:
    """Whether a file is code the interpreter would import, by its name."""
    return _IMPORTABLE.fullmatch(posixpath.basename(path)) is not None


def _code_as_data(diff: _Diff, path: str) -> Optional[Finding]:
    """Python code that only a data target (a `file`, a `resource`) owns: production can import it
    (a `sitecustomize.py`, a compiled `tax.cpython-39-...so` CPython loads before `tax.py`, a
    module taken out of `python_sources`), yet no test sandbox holds it as code and no region judges
    it. Paths the policy lists (`other_globs`) are the base's call."""
    owners = diff.head.owners(path)
    if not owners or not importable(path) or matches(path, diff.policy.other_globs):
        return None
    if any(t.role != F.OTHER for t in owners):
        return None
    return Finding("UNMAPPED", f"UNMAPPED {path} is Python code (an importable module) owned only by "
                               f"{owners[0].address}, a data target no region judges: own it with a python_sources "
                               f"target that carries an oracle_region (or list it in other_globs)", path)


def _unowned_paths(diff: _Diff, changes: Sequence[Change], marked: Set[str], inert: FrozenSet[str]) -> _Part:
    """Changed paths no target owns (and symlinks of owned ones): listed, configuration, inert, or
    unmapped."""
    base, head, policy = diff.base, diff.head, diff.policy
    marks: List[Mark] = []
    findings: List[Finding] = []
    here: Set[str] = set()  # paths this phase has put in a lane

    def mark(path: str, lane: str, why: str = "") -> None:
        marks.append((path, lane, why))
        here.add(path)

    for c in changes:
        for p in filter(None, (c.path, c.old_path)):
            if p.startswith("../"):
                mark(p, UNMAPPED, "outside the build root")
                continue
            if base.owners(p) or head.owners(p):
                hidden = _code_as_data(diff, p) if p == c.path and c.status != "D" else None
                if hidden is not None:
                    findings.append(hidden)
                if c.link is not None and p == c.path:
                    target_owned = bool(c.link and not c.link_outside and head.owners(c.link))
                    if not target_owned:
                        findings.append(Finding(
                            "SYMLINK", f"SYMLINK {p} -> {c.link or '?'}: a judged path may not point at "
                                       f"{'a path outside the build root' if c.link_outside else 'an unowned file'}", p))
                continue
            if judged_as_configuration(p):
                if p not in marked and p not in here:
                    mark(p, OTHER, "configuration: judged by what it changes")
            elif matches(p, policy.other_globs):
                mark(p, OTHER)
            elif p == c.path and c.old_path and not (base.owners(c.old_path) or head.owners(c.old_path)) \
                    and matches(c.old_path, policy.other_globs) and (not p.endswith((".py", ".pyi")) or p in inert):
                # Data and other tools' files keep their policy when moved; Python code moved out
                # of a listed tree could be production a BUILD glob missed: it stays unmapped.
                mark(p, OTHER, f"renamed from {c.old_path}, which the policy lists as unowned")
            elif p in inert:
                mark(p, OTHER, "owned by no target and holds nothing to run (an empty file or package marker)")
            elif p not in marked and p not in here:
                mark(p, UNMAPPED, "owned by no target")
    return _Part(marks=tuple(marks), findings=tuple(findings))


def judges_lost_elsewhere(base: Facts, head: Facts, policy: Policy, judged: Set[str]) -> List[Finding]:
    """Regions whose own code did not change but whose judges this diff takes away: a dependency
    edge dropped in another BUILD file or import, a test deleted, skipped, excluded or left with a
    lower class. The best class among the tests that reach a region may not fall (the ratchet holds
    for class-E voters too). In the human lane a person's call: reported, not blocked."""

    def voters(facts: Facts) -> Dict[str, OracleClass]:
        return {t.address: c for t in facts.targets if t.is_test and not t.skip and not policy.excludes(t)
                for c in [voting_class(facts, t.address)] if c is not None}

    base_voters, head_voters = voters(base), voters(head)
    base_fwd, head_fwd = base.forward(), head.forward()
    rewired = {a for a in set(base_fwd) | set(head_fwd) if base_fwd.get(a, ()) != head_fwd.get(a, ())}
    suspects = {a for a, c in base_voters.items() if head_voters.get(a) != c}
    suspects |= {a for a in base.transitive_dependents(rewired) | rewired if a in base_voters}
    closures: Dict[str, FrozenSet[str]] = {}  # address -> what it depends on at the base

    def closure(a: str) -> FrozenSet[str]:
        if a not in closures:
            closures[a] = base.closure([a])
        return closures[a]

    subjects: Set[str] = set()
    for t in suspects:
        before = closure(t)
        subjects |= before - head.closure([t]) if head_voters.get(t) == base_voters[t] else before
    out: List[Finding] = []
    for a in sorted(subjects - judged):
        b, h = base.by_address.get(a), head.by_address.get(a)
        if b is None or h is None or b.role != F.PRODUCTION or h.role != F.PRODUCTION or not b.paths:
            continue  # deleted or reclassified production is a region of the diff, judged there
        before = {t: base_voters[t] for t in base.transitive_dependents([a]) if t in base_voters}
        after = {t: head_voters[t] for t in head.transitive_dependents([a]) if t in head_voters}
        had, has = best_vote(before.values()), best_vote(after.values())
        if _rank(has) >= _rank(had):
            continue
        test = min(t for t, c in before.items() if c == had and after.get(t) != c)
        owner = base.by_address[test]
        if test not in head.by_address:
            why = "is gone"
        elif head.by_address[test].skip:
            why = "is skipped"
        elif policy.excludes(head.by_address[test]):
            why = "is excluded"
        elif test in head_voters and head_voters[test] != had:
            why = f"is class {head_voters[test].value} at head"
        else:
            cut = sorted(n for n in rewired if (n == test or n in closure(test)) and a in closure(n))
            why = "no longer depends on it" + (f" (what {cut[0]} depends on changed)" if cut else "")
        out.append(Finding(
            "ORACLE_LOST",
            f"ORACLE_LOST {b.paths[0]} (best voter class {had.value if had else '?'} at the base, "
            f"{has.value if has else 'none'} at head): {owner.paths[0] if owner.paths else test} {why}; its code is "
            f"unchanged, so nothing else in this diff judges it", b.paths[0], reviewed=True))
    return out


def _best_of(facts: Facts, tests: Iterable[TargetFact]) -> Optional[OracleClass]:
    """The best class among `tests` that votes in `facts`."""
    return best_vote(c for c in (voting_class(facts, t.address) for t in tests) if c is not None)


def _required(base: Facts, address: str, kind: Optional[str], baseline: Optional[Mapping[str, Optional[str]]],
              covering: Optional[Sequence[TargetFact]] = None) -> Optional[OracleClass]:
    """The class a region must be judged at: its floor, or (the ratchet) what its baseline had
    while its oracles at the base (`covering`: its unskipped covering tests there) are still below
    the floor."""
    required = _floor(kind)
    if baseline is not None and address in baseline:
        if covering is None:
            covering = [x for x in base.covering_tests(address) if not x.skip]
        static_best = _best_of(base, covering)
        if not at_least(static_best, required):
            required = _cls_or_none(baseline[address])
    return required


def _standard_beside(base: Facts, path: str, kind: Optional[str], baseline: Optional[Mapping[str, Optional[str]]],
                     adopted: Sequence[Tuple[str, str, Optional[str]]] = (),
                     owed: Optional[Dict[str, Optional[OracleClass]]] = None,
                     ) -> Optional[Tuple[str, Optional[OracleClass]]]:
    """The human lane's standard for a new production file: the strongest class the ratchet holds
    the baselined regions of its kind to in the nearest directory enclosing it that has any (its
    package, else the tree around it). A person adding a module owes what the code beside it was
    adopted at, as a person adding a function to an existing module does; a region meeting its
    floor there raises it to the floor. A baselined region the base no longer has (code moved or
    removed since adoption) counts with the class it was adopted at. None without a baseline or
    such a neighbour. `owed` keeps what each neighbour owes across the new files of one diff (each
    costs a walk of the dependency graph)."""
    if baseline is None or kind is None:
        return None
    owed = {} if owed is None else owed
    near = {t.address: t.path for t in base.targets
            if t.role == F.PRODUCTION and t.region == kind and t.address in baseline and t.path}
    gone = {a: q for a, q, k in adopted if k == kind and a in baseline and a not in base.by_address}
    directory = posixpath.dirname(path)
    while True:
        inside = [a for a, q in {**gone, **near}.items() if directory == "" or q.startswith(directory + "/")]
        if inside:
            for a in inside:
                if a not in owed:
                    owed[a] = _required(base, a, kind, baseline) if a in near else _cls_or_none(baseline[a])
            return directory, max((owed[a] for a in inside), key=_rank)
        if directory == "":
            return None
        directory = posixpath.dirname(directory)


def _cls(c: Optional[OracleClass]) -> Optional[str]:
    return c.value if c is not None else None


def _cls_or_none(value: Optional[str]) -> Optional[OracleClass]:
    return OracleClass(value) if value else None


def _candidates(head: Facts, address: str, excluded: AbstractSet[str]) -> Tuple[str, ...]:
    return tuple(t.address for t in head.covering_tests(address) if t.address not in excluded and not t.skip)


def _lane_findings(changes: Sequence[ChangedPath], oracle_changes: Sequence[OracleChange], policy: Policy) -> List[Finding]:
    """The write-set rule: production and its judges never change together (agent lane)."""
    out: List[Finding] = []
    production = sorted(c.path for c in changes if PRODUCTION in c.lanes)
    additive = {o.path for o in oracle_changes if o.additive}
    guarded = [(lane, c.path) for c in changes for lane in (ORACLE, FLAKE_CONTROL) if lane in c.lanes]
    for c in changes:
        if UNMAPPED in c.lanes:
            where = "is outside the build root" if c.path.startswith("../") else "is owned by no target"
            out.append(Finding("UNMAPPED", f"UNMAPPED {c.path} {where}", c.path))
    if policy.lane == HUMAN:
        return out
    if production:
        more = f" (+{len(production) - 1} more)" if len(production) > 1 else ""
        for lane, path in guarded:
            if lane == ORACLE and path in additive and FLAKE_CONTROL not in next(c.lanes for c in changes if c.path == path):
                continue  # a new oracle weakens no judge: it may only judge code that is new here
            out.append(Finding("WRITESET", f"WRITESET {lane} {path} changed with production {production[0]}{more}", path))
    else:
        for lane, path in guarded:
            if lane == ORACLE and path in additive:
                continue  # a new oracle on its own strengthens the judge; it is checked when it runs
            out.append(Finding("ORACLE_CHANGE",
                               f"ORACLE_CHANGE {lane} {path}: changing a judge is the human lane "
                               f"(--oracle-gate-lane=human, after review)", path))
    return out
