"""One rule per fact: the facts of the whole tree (for base and head alike), fixture digests, and a
test's closure (for the sandbox hook). Each rule returns a frozen dataclass; nothing here judges.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Mapping, Optional, Tuple

from pants.backend.project_info.dependents import AddressToDependents
from pants.backend.python.target_types import (PythonRequirementsField, PythonSourceField, PythonTestSourceField,
                                               PythonTestUtilsGeneratorTarget, SkipPythonTestsField)
from pants.base.build_root import BuildRoot
from pants.core.target_types import AssetSourceField
from pants.engine.addresses import Address
from pants.engine.console import Console
from pants.engine.fs import DigestContents, DigestEntries, FileEntry, PathGlobs
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule, rule
from pants.engine.target import (AllUnexpandedTargets, SingleSourceField, SourcesField, SourcesPaths,
                                 SourcesPathsRequest, Tags, Target, TargetGenerator, TransitiveTargets,
                                 TransitiveTargetsRequest)
from pants.option.option_types import StrOption
from pants.option.scope import Scope, ScopedOptions
from pants.util.logging import LogLevel
from pants.util.strutil import help_text
from pants.version import VERSION as _PANTS_VERSION

from oracle_gate.core.ladder.digests import drift_line
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes import regions as R
from oracle_gate.core.lanes.compare import GLOBAL_JUDGE_KEYS, JUDGE_SCOPES
from oracle_gate.core.lanes.dependencies import normalize_project
from oracle_gate.target_types import (BaselineSourceField, EntryPointField, FreezeLedgerSourceField, GovernsField,
                                      LockedFixtureSourceField, MinExamplesField, OracleDraftField, OracleRegionField,
                                      OracleTestToolingField, ProbesSourceField, ReplaySourceField, Sha256Field)


def pants_version() -> str:
    return str(_PANTS_VERSION)


class OracleGateError(Exception):
    """A build-time refusal; the message is the whole story."""


# -- fixture digests ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FixtureDigestRequest:
    target: Target


@dataclass(frozen=True)
class FixtureDigest:
    address: Address
    path: str
    expected: str
    actual: Optional[str]  # None when the file is gone

    @property
    def drift(self) -> Optional[str]:
        return drift_line(self.address.spec, self.expected, self.actual)


def _locked_path(target: Target) -> Optional[str]:
    for field_type in (LockedFixtureSourceField, BaselineSourceField, ReplaySourceField, ProbesSourceField):
        if target.has_field(field_type):
            return target[field_type].file_path
    return None


@rule(desc="Verify a locked file's digest", level=LogLevel.DEBUG)
async def fixture_digest(request: FixtureDigestRequest) -> FixtureDigest:
    path = _locked_path(request.target)
    assert path is not None, f"{request.target.address} has no locked file"
    entries = await Get(DigestEntries, PathGlobs([path]))
    files = [e for e in entries if isinstance(e, FileEntry) and e.path == path]
    actual = files[0].file_digest.fingerprint if files else None
    return FixtureDigest(request.target.address, path, request.target[Sha256Field].value, actual)


# -- a test's closure (for the sandbox hook) -----------------------------------------------------
@dataclass(frozen=True)
class TestClosureRequest:
    target: Target

    __test__ = False


@dataclass(frozen=True)
class TestClosure:
    address: Address
    fixtures: Tuple[str, ...]  # paths of the locked files in its closure (and its own, if locked)

    __test__ = False


@rule(level=LogLevel.DEBUG)
async def test_closure(request: TestClosureRequest) -> TestClosure:
    closure = await Get(TransitiveTargets, TransitiveTargetsRequest([request.target.address]))
    paths = {p for t in closure.closure for p in [_locked_path(t)] if p}
    return TestClosure(request.target.address, tuple(sorted(paths)))


# -- the facts of the whole tree ---------------------------------------------------------------



def _jsonable(value: Any, build_root: str) -> Any:
    if isinstance(value, Enum):
        return _jsonable(value.value, build_root)
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _jsonable(v, build_root) for k, v in sorted(dict(value).items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_jsonable(v, build_root) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, str):
        # The base is evaluated in another directory: keep paths comparable.
        return value.replace(build_root, "%(buildroot)s") if build_root else value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return repr(value)


def _is_default(field: Any) -> bool:
    try:
        return field.value == type(field).default and not getattr(type(field), "required", False)
    except Exception:  # a value that cannot be compared with its default is not a default
        return False


def _field_digest(value: Any) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


# A target's role by the field that makes it one, most specific first (an oracle_property is also
# a python_test; a draft is also a test).
_ROLE_BY_FIELD = (
    (OracleDraftField, F.DRAFT),
    (MinExamplesField, F.PROPERTY),
    (ReplaySourceField, F.REPLAY),
    (ProbesSourceField, F.PROBES),
    (LockedFixtureSourceField, F.LOCKED_FIXTURE),
    (FreezeLedgerSourceField, F.FREEZE_LEDGER),
    (BaselineSourceField, F.BASELINE),
    (PythonTestSourceField, F.TEST),
)


def _role(target: Target, test_util_generators: frozenset) -> str:
    path = target[SingleSourceField].file_path if target.has_field(SingleSourceField) else ""
    if isinstance(target, TargetGenerator):
        return F.GENERATOR
    if target.alias.startswith("_"):
        return F.OTHER  # a generator's internal helper (e.g. the file behind `python_requirements`)
    for field, role in _ROLE_BY_FIELD:
        if target.has_field(field):
            return role
    if target.has_field(PythonRequirementsField):
        return F.DEPENDENCY  # never a region, whatever `oracle_region` or `__defaults__` say
    generator = target.address.maybe_convert_to_target_generator()
    if os.path.basename(path) == "conftest.py" or (target.address.is_generated_target and generator in test_util_generators):
        return F.TEST_UTIL
    if target.has_field(OracleRegionField):
        # Code is production, region or not (without one it fails closed, UNMAPPED). A data file
        # without a region is judged by who uses it: production code, a judge, or only tests.
        if target[OracleRegionField].value is None and not target.has_field(PythonSourceField) \
                and target.has_field(SingleSourceField) and target.has_field(AssetSourceField):
            return F.OTHER
        return F.PRODUCTION
    return F.OTHER


def _region(target: Target, paths: Tuple[str, ...], table: Mapping[str, str]) -> Optional[str]:
    """The evaluated `oracle_region`; for code without one, the `[oracle-gate].regions` table's."""
    if not target.has_field(OracleRegionField):
        return None
    value = target[OracleRegionField].value
    if value is None and len(paths) == 1 and target.has_field(SingleSourceField) and not target.has_field(AssetSourceField):
        return R.table_region(table, paths[0])
    return value


def region_table(options: Mapping[str, Any]) -> Dict[str, str]:
    """`[oracle-gate].regions`, checked: a bad entry is an error naming it."""
    table = options.get("oracle-gate.regions") or {}
    problems = [p for k, v in sorted(table.items()) for p in [R.table_key_error(k, v)] if p]
    if problems:
        raise OracleGateError(f"[oracle-gate].regions: {problems[0]}" + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
    return dict(table)


def target_fact(target: Target, role: str, paths: Tuple[str, ...], table: Mapping[str, str] = {}) -> F.TargetFact:  # noqa: B006
    # Fields at their default are left out: a backend that registers a new field (a lint tool's
    # `skip_*`) changes no target's evaluated meaning.
    fields = tuple(sorted((f.alias, _field_digest(f.value)) for f in target.field_values.values()
                          if not _is_default(f)))
    return F.TargetFact(
        address=target.address.spec,
        alias=target.alias,
        role=role,
        paths=paths,
        region=_region(target, paths, table),
        tags=tuple(sorted(target.get(Tags).value or ())),
        skip=bool(target.has_field(SkipPythonTestsField) and target[SkipPythonTestsField].value),
        fields=fields,
        sha256=target[Sha256Field].value if target.has_field(Sha256Field) else None,
        min_examples=target[MinExamplesField].value if target.has_field(MinExamplesField) else None,
        governs=tuple(target[GovernsField].value or ("",)) if target.has_field(GovernsField) else (),
        entry_point=target[EntryPointField].value if target.has_field(EntryPointField) else None,
        test_tooling=bool(target.has_field(OracleTestToolingField) and target[OracleTestToolingField].value),
        generator=target.address.maybe_convert_to_target_generator().spec if target.address.is_generated_target else None,
        requirements=tuple(sorted({normalize_project(r.project_name) for r in target[PythonRequirementsField].value or ()}))
        if target.has_field(PythonRequirementsField) else (),
    )


@dataclass(frozen=True)
class TreeFactsRequest:
    pass


@dataclass(frozen=True)
class TreeFacts:
    facts: F.Facts
    option_ranks: Tuple[Tuple[str, str], ...]  # "scope.key" -> Pants' rank name (FLAG, CONFIG...)


async def _options(build_root: str) -> Tuple[Dict[str, Any], Dict[str, str]]:
    scoped = await MultiGet(Get(ScopedOptions, Scope(s)) for s in ("", *JUDGE_SCOPES))
    values: Dict[str, Any] = {}
    ranks: Dict[str, str] = {}
    for so in scoped:
        container = so.options
        available = set(container)
        keys = GLOBAL_JUDGE_KEYS if so.scope.scope == "" else tuple(container)
        for key in keys:
            if key not in available:
                continue
            name = f"{so.scope.scope or 'GLOBAL'}.{key}"
            values[name] = _jsonable(container.get(key), build_root)
            ranks[name] = container.get_rank(key).name
    return values, ranks


@rule(desc="Evaluate the facts of the tree", level=LogLevel.DEBUG)
async def tree_facts(_: TreeFactsRequest, all_targets: AllUnexpandedTargets, build_root: BuildRoot) -> TreeFacts:
    a2d = await Get(AddressToDependents)
    test_util_generators = frozenset(
        t.address for t in all_targets if t.alias == PythonTestUtilsGeneratorTarget.alias
    )
    # Single-file targets know their file; other targets with sources have them resolved.
    multi = [t for t in all_targets
             if t.has_field(SourcesField) and not t.has_field(SingleSourceField) and not isinstance(t, TargetGenerator)]
    multi_paths = await MultiGet(Get(SourcesPaths, SourcesPathsRequest(t[SourcesField])) for t in multi)
    paths_of = {t.address: tuple(sorted(p.files)) for t, p in zip(multi, multi_paths)}
    values, ranks = await _options(build_root.path)
    table = region_table(values)
    targets: List[F.TargetFact] = []
    for t in all_targets:
        if t.has_field(SingleSourceField):
            paths: Tuple[str, ...] = (t[SingleSourceField].file_path,)
        else:
            paths = paths_of.get(t.address, ())
        targets.append(target_fact(t, _role(t, test_util_generators), paths, table))

    # Locked files: their actual bytes; ledgers and baselines: their text too.
    locked = sorted({p for t in all_targets for p in [_locked_path(t)] if p})
    texts_wanted = sorted({t[FreezeLedgerSourceField].file_path for t in all_targets if t.has_field(FreezeLedgerSourceField)}
                          | {t[BaselineSourceField].file_path for t in all_targets if t.has_field(BaselineSourceField)})
    entries, contents = await MultiGet(
        Get(DigestEntries, PathGlobs(locked)),
        Get(DigestContents, PathGlobs(texts_wanted)),
    )
    texts = {f"sha256:{e.path}": e.file_digest.fingerprint for e in entries if isinstance(e, FileEntry)}
    texts.update({fc.path: fc.content.decode("utf-8", errors="replace") for fc in contents})

    facts = F.make_facts(
        targets=targets,
        dependents={a.spec: tuple(d.spec for d in ds) for a, ds in a2d.mapping.items()},
        options=values,
        texts=texts,
    )
    return TreeFacts(facts, tuple(sorted(ranks.items())))


class OracleFactsSubsystem(GoalSubsystem):
    name = "oracle-facts"
    help = help_text(
        """
        Write the facts the merge gate judges with (targets, roles, regions, evaluated fields,
        dependents, locked digests, ledgers, judge-relevant options) as JSON. `oracle-gate` runs
        it once per base commit, in a checkout of the base, and reuses the result.
        """
    )
    output = StrOption(default=None, advanced=True, help="Where to write the facts JSON (absolute, or relative to the build root).")


class OracleFacts(Goal):
    subsystem_cls = OracleFactsSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@goal_rule
async def write_oracle_facts(console: Console, subsystem: OracleFactsSubsystem, build_root: BuildRoot) -> OracleFacts:
    if not subsystem.output:
        console.print_stderr("oracle-facts: pass --oracle-facts-output=<path>")
        return OracleFacts(exit_code=2)
    tree = await Get(TreeFacts, TreeFactsRequest())
    facts = dataclasses.replace(tree.facts, pants_version=pants_version())
    path = subsystem.output if os.path.isabs(subsystem.output) else os.path.join(build_root.path, subsystem.output)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(facts.dumps())
    console.print_stderr(f"oracle-facts: {len(facts.targets)} targets written to {path}")
    return OracleFacts(exit_code=0)


def rules():
    return collect_rules()
