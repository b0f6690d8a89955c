"""`pants oracle-gate`: map the write-set through the build graph, run the covering oracles
through Pants' own pytest runner, and hand every fact to `core.verdict`.

One Pants invocation asks the engine for everything: owners, dependents, fixture digests, ledgers
and the (cached) test results. Nothing here decides policy.
"""
from __future__ import annotations

import datetime
import json
import os
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from pants.backend.project_info.dependents import Dependents, DependentsRequest
from pants.backend.python.goals.pytest_runner import PyTestRequest
from pants.backend.python.subsystems.pytest import PythonTestFieldSet
from pants.backend.python.target_types import (
    PythonSourceField,
    PythonTestSourceField,
    PythonTestUtilsGeneratorTarget,
)
from pants.base.build_root import BuildRoot
from pants.core.goals.test import TestRequest, TestResult
from pants.core.util_rules.partitions import Partitions
from pants.engine.addresses import Addresses
from pants.engine.console import Console
from pants.engine.fs import Digest, DigestContents
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.internals.graph import Owners, OwnersRequest
from pants.engine.internals.native_engine import Address
from pants.engine.internals.session import RunId
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule, rule
from pants.engine.target import FilteredTargets, SingleSourceField, Target, Targets, UnexpandedTargets
from pants.option.global_options import GlobalOptions
from pants.option.option_types import BoolOption, StrListOption, StrOption
from pants.util.logging import LogLevel
from pants.util.strutil import help_text

from oracle_gate.core.classes import RegionKind
from oracle_gate.core.lanes import (
    DEFAULT_ORACLE_DIRS,
    DEFAULT_OTHER_GLOBS,
    Lane,
    OwnerRole,
    PathChange,
    classify,
)
from oracle_gate.core.report import console_lines, ledger_row_templates, report_json
from oracle_gate.core.verdict import (
    EXIT_POLICY,
    CaseResult,
    ChangedPath,
    GateFacts,
    Oracle,
    OracleRun,
    Region,
    evaluate,
)
from oracle_gate.rules.facts import (
    FixtureDigests,
    FixtureDigestsRequest,
    GoverningLedgers,
    GoverningLedgersRequest,
    OracleClassification,
    OracleClassRequest,
    ParsedLedger,
    ParsedLedgerRequest,
)
from oracle_gate.rules.git_diff import GitDiff, GitDiffError, read_diff
from oracle_gate.target_types import (
    FreezeLedgerSourceField,
    LockedFixtureSourceField,
    MinExamplesField,
    OracleRegionField,
)


class OracleGateSubsystem(GoalSubsystem):
    name = "oracle-gate"
    help = help_text(
        """
        Decide whether a diff may merge: every changed production target must be covered, through
        the dependency graph, by an oracle at its region's floor that ran and passed, and the diff
        must not also change the oracles that judge it. Exit codes: 0 merge, 1 product failure,
        2 policy failure, 3 empty vote.
        """
    )

    base = StrOption(
        default=None,
        help=help_text(
            f"""
            The git ref to diff against; the gate uses the merge base of HEAD and this ref.
            Without it, the first of {', '.join(('origin/main', 'main', 'origin/master', 'master'))}
            that exists. An empty diff audits every production target in the specs.
            """
        ),
    )
    report = StrOption(default=None, help="Write the versioned JSON report to this path (relative to the build root, or absolute).")
    allow_oracle_changes = BoolOption(
        default=False,
        help="Accept a diff that changes only oracles (the human lane), provided its oracles pass.",
    )
    oracle_dirs = StrListOption(
        default=list(DEFAULT_ORACLE_DIRS),
        help="Directories whose every file is an oracle, whatever target owns it.",
    )
    print_signatures = BoolOption(
        default=False,
        help="Print a freeze-ledger row template (signature, test, exception, dates) for every failure and unlisted skip.",
    )
    dry_run = BoolOption(
        default=False,
        help="Map the diff to regions and covering oracles and print the plan, without running any oracle or deciding.",
    )
    other_globs = StrListOption(
        default=list(DEFAULT_OTHER_GLOBS),
        help="Globs of unowned paths that are neither production nor oracle (documentation). Any other unowned path fails closed as UNMAPPED.",
    )


class OracleGate(Goal):
    subsystem_cls = OracleGateSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


# -- facts from the graph ----------------------------------------------------------------------
def _source_path(target: Target) -> str:
    """The file a (generated) target owns, for reason lines; its address when it has none."""
    for field_type in (PythonSourceField, SingleSourceField):
        if target.has_field(field_type):
            return target[field_type].file_path
    return target.address.spec


def _role(target: Target, test_utils: FrozenSet[Address] = frozenset()) -> OwnerRole:
    if target.address in test_utils:
        return OwnerRole.TEST_UTIL
    if target.has_field(MinExamplesField):
        return OwnerRole.PROPERTY
    if target.has_field(LockedFixtureSourceField):
        return OwnerRole.LOCKED_FIXTURE
    if target.has_field(FreezeLedgerSourceField):
        return OwnerRole.FREEZE_LEDGER
    if target.has_field(PythonTestSourceField):
        return OwnerRole.TEST
    if target.has_field(PythonSourceField):
        return OwnerRole.PRODUCTION
    return OwnerRole.BUILD_INPUT


async def _test_utils(targets: Iterable[Target]) -> FrozenSet[Address]:
    """The targets generated by `python_test_utils`: test plumbing that looks like a python_source."""
    targets = list(targets)
    generators = sorted({t.address.maybe_convert_to_target_generator() for t in targets if t.address.is_generated_target})
    unexpanded = await Get(UnexpandedTargets, Addresses(generators))
    utils = {g.address for g in unexpanded if g.alias == PythonTestUtilsGeneratorTarget.alias}
    return frozenset(t.address for t in targets if t.address.maybe_convert_to_target_generator() in utils)


@dataclass(frozen=True)
class PathOwnersRequest:
    path: str


@dataclass(frozen=True)
class PathOwners:
    path: str
    targets: Tuple[Target, ...]  # generated targets; a deleted file maps to all of its generator's
    test_utils: FrozenSet[Address]  # those generated by `python_test_utils`


@rule(level=LogLevel.DEBUG)
async def path_owners(request: PathOwnersRequest) -> PathOwners:
    owners = await Get(
        Owners, OwnersRequest((request.path,), match_if_owning_build_file_included_in_sources=True)
    )
    targets = await Get(Targets, Addresses(sorted(owners)))
    return PathOwners(request.path, tuple(targets), await _test_utils(targets))


@dataclass(frozen=True)
class CoveringTestsRequest:
    address: Address


@dataclass(frozen=True)
class CoveringTests:
    targets: Tuple[Target, ...]


@rule(desc="Find the tests that cover a target", level=LogLevel.DEBUG)
async def covering_tests(request: CoveringTestsRequest) -> CoveringTests:
    dependents = await Get(Dependents, DependentsRequest([request.address], transitive=True, include_roots=False))
    # Unexpanded: a generator is a dependent of its own files, and expanding it would claim siblings.
    targets = await Get(UnexpandedTargets, Addresses(dependents))
    return CoveringTests(tuple(t for t in targets if t.has_field(PythonTestSourceField)))


# -- running oracles ---------------------------------------------------------------------------
def _parse_results(contents: DigestContents) -> Tuple[bool, List[dict]]:
    complete = False
    cases: List[dict] = []
    for fc in contents:
        if fc.path != "oracle-gate/results.json":
            continue
        try:
            payload = json.loads(fc.content)
        except ValueError:
            continue
        if payload.get("complete") is True and not payload.get("errors"):
            complete = True
        cases.extend(c for c in payload.get("cases", []) if isinstance(c, dict))
    return complete, cases


async def _run_oracles(targets: List[Target], run_id: RunId) -> List[OracleRun]:
    field_sets = [PythonTestFieldSet.create(t) for t in targets if PythonTestFieldSet.is_applicable(t)]
    if not field_sets:
        return []
    partitions = await Get(
        Partitions, TestRequest.PartitionRequest, PyTestRequest.PartitionRequest(tuple(field_sets))
    )
    results = await MultiGet(
        Get(TestResult, TestRequest.Batch, PyTestRequest.Batch(PyTestRequest.tool_name, p.elements, p.metadata))
        for p in partitions
    )
    contents = await MultiGet(Get(DigestContents, Digest, r.extra_output.digest) for r in results)
    source_of = {fs.address: fs.source.file_path for fs in field_sets}
    runs: List[OracleRun] = []
    for result, content in zip(results, contents):
        complete, cases = _parse_results(content)
        source = result.result_metadata.source(run_id).value if result.result_metadata else "unknown"
        for address in result.addresses:
            path = source_of.get(address, "")
            mine = tuple(
                CaseResult(c.get("nodeid", ""), c.get("outcome", "failed"), c.get("signature"),
                           c.get("detail", ""), c.get("exception"))
                for c in cases
                if str(c.get("nodeid", "")).split("::", 1)[0] == path
            )
            runs.append(OracleRun(address.spec, result.exit_code, complete, mine, source))
    return runs


# -- the three phases, each filling in one record ----------------------------------------------
@dataclass
class WriteSet:
    changed_paths: List[ChangedPath] = field(default_factory=list)
    owners_of: Dict[str, Tuple[Target, ...]] = field(default_factory=dict)
    region_targets: Dict[Address, Tuple[Target, str]] = field(default_factory=dict)
    changed_tests: Set[Address] = field(default_factory=set)
    changed_targets: List[Target] = field(default_factory=list)  # owners of the changed paths

    @property
    def production_changed(self) -> bool:
        return any(Lane.PRODUCTION in c.lanes for c in self.changed_paths)


@dataclass
class Coverage:
    regions: List[Region] = field(default_factory=list)
    oracle_targets: Dict[Address, Target] = field(default_factory=dict)


@dataclass
class Evidence:
    oracles: List[Oracle] = field(default_factory=list)
    runs: List[OracleRun] = field(default_factory=list)
    drift: Tuple[str, ...] = ()
    ledgers: List[ParsedLedger] = field(default_factory=list)
    ledger_errors: Tuple[str, ...] = ()


async def _write_set(diff: GitDiff, gate: OracleGateSubsystem, ws: WriteSet) -> None:
    """Lanes per changed path, from the roles of the targets that own it (now or at the base)."""
    # Paths outside the build root (`../...`) belong to no target here: they stay unmapped.
    owner_paths = sorted({p for c in diff.changes for p in (c.path, c.old_path) if p and not p.startswith("../")})
    owners = await MultiGet(Get(PathOwners, PathOwnersRequest(p)) for p in owner_paths)
    ws.owners_of = {o.path: o.targets for o in owners}
    test_utils = frozenset(a for o in owners for a in o.test_utils)
    for change in diff.changes:
        ws.changed_targets.extend(ws.owners_of.get(change.path, ()))
        targets = ws.owners_of.get(change.path, ()) + (ws.owners_of.get(change.old_path, ()) if change.old_path else ())
        roles = {t.address: _role(t, test_utils) for t in targets}
        lanes = classify(change, frozenset(roles.values()), gate.oracle_dirs, gate.other_globs)
        ws.changed_paths.append(ChangedPath(change.path, tuple(sorted(lanes, key=lambda l: l.value)), change.status))
        for t in targets:
            role = roles[t.address]
            if Lane.PRODUCTION in lanes and role in (OwnerRole.PRODUCTION, OwnerRole.BUILD_INPUT):
                ws.region_targets.setdefault(t.address, (t, change.path))
            if role in (OwnerRole.TEST, OwnerRole.PROPERTY):
                ws.changed_tests.add(t.address)


async def _coverage(ws: WriteSet, specified: FilteredTargets, mode: str, cov: Coverage) -> None:
    """Each changed (or, on an empty diff, audited) production target and its covering oracles."""
    region_targets = dict(ws.region_targets)
    if mode == "audit":
        test_utils = await _test_utils(specified)
        for t in specified:
            role = _role(t, test_utils)
            audited = role is OwnerRole.PRODUCTION or (
                role is OwnerRole.BUILD_INPUT and t.has_field(OracleRegionField) and t[OracleRegionField].value
            )
            if audited:
                region_targets.setdefault(t.address, (t, _source_path(t)))
    ordered = sorted(region_targets)
    coverage = await MultiGet(Get(CoveringTests, CoveringTestsRequest(a)) for a in ordered)
    for address, covering in zip(ordered, coverage):
        target, path = region_targets[address]
        cov.oracle_targets.update((t.address, t) for t in covering.targets)
        kind_value = target.get(OracleRegionField).value if target.has_field(OracleRegionField) else None
        cov.regions.append(Region(address.spec, path, RegionKind(kind_value) if kind_value else None,
                                  tuple(sorted(t.address.spec for t in covering.targets))))
    if ws.production_changed:
        return
    # An oracle-only diff (the human lane) runs the oracles it changed and the users of its fixtures.
    changed_fixtures = sorted(t.address for t in ws.changed_targets if t.has_field(LockedFixtureSourceField))
    cov.oracle_targets.update((t.address, t) for t in ws.changed_targets if t.address in ws.changed_tests)
    fixture_users = await MultiGet(Get(CoveringTests, CoveringTestsRequest(a)) for a in changed_fixtures)
    for users in fixture_users:
        cov.oracle_targets.update((t.address, t) for t in users.targets)


async def _evidence(
    ws: WriteSet, cov: Coverage, run_id: RunId, today: datetime.date, dry_run: bool, ev: Evidence
) -> None:
    """Classes, fixture digests and ledgers first; the oracles run only if those hold."""
    targets = list(cov.oracle_targets.values())
    classes = await MultiGet(Get(OracleClassification, OracleClassRequest(t)) for t in targets)
    ledgers_of = await MultiGet(
        Get(GoverningLedgers, GoverningLedgersRequest(t[PythonTestSourceField].file_path)) for t in targets
    )
    fixture_targets = {f.address: f for c in classes for f in c.fixtures}
    fixture_targets.update((t.address, t) for t in ws.changed_targets if t.has_field(LockedFixtureSourceField))
    fixtures = await Get(FixtureDigests, FixtureDigestsRequest(tuple(fixture_targets.values())))
    changed_ledgers = await MultiGet(
        Get(ParsedLedger, ParsedLedgerRequest(t)) for t in ws.changed_targets if t.has_field(FreezeLedgerSourceField)
    )
    ev.drift = fixtures.drift
    ev.ledgers = list({l.path: l for l in [*changed_ledgers, *(l for g in ledgers_of for l in g.ledgers)]}.values())
    # Build-time ledger problems (invalid, expired, over the cap) would make every governed run
    # refuse to start, so they are reasons here and the runs are skipped.
    ev.ledger_errors = tuple(line for l in ev.ledgers for line in l.problems(today))
    ev.oracles = [
        Oracle(c.address.spec, c.oracle_class, demoted=ws.production_changed and c.address in ws.changed_tests)
        for c in classes
    ]
    if not ev.drift and not ev.ledger_errors and not dry_run:
        ev.runs = await _run_oracles(targets, run_id)


# -- the goal ----------------------------------------------------------------------------------
@goal_rule
async def run_oracle_gate(
    console: Console,
    gate: OracleGateSubsystem,
    build_root: BuildRoot,
    specified: FilteredTargets,
    run_id: RunId,
    global_options: GlobalOptions,
) -> OracleGate:
    try:
        diff = read_diff(
            build_root.path,
            gate.base,
            ignored_dirs=(global_options.pants_workdir, global_options.pants_distdir,
                          global_options.pants_subprocessdir),
        )
    except GitDiffError as e:
        console.print_stderr(f"oracle-gate: error: {e}")
        return OracleGate(exit_code=EXIT_POLICY)

    mode = "diff" if diff.changes else "audit"
    today = datetime.date.today()
    ws = WriteSet()
    cov = Coverage()
    ev = Evidence()
    engine_errors: List[str] = []
    # The engine raises when the graph itself is broken (say, an unowned conftest.py breaks
    # dependency inference); each phase fails closed with a reason instead of a traceback.
    phases = (
        lambda: _write_set(diff, gate, ws),
        lambda: _coverage(ws, specified, mode, cov),
        lambda: _evidence(ws, cov, run_id, today, gate.dry_run, ev),
    )
    for phase in phases:
        try:
            await phase()
        except Exception as e:
            summary = " ".join(str(e).split())[:400]
            engine_errors.append(f"GRAPH_ERROR Pants could not build the facts the gate needs: {type(e).__name__}: {summary}")
            break
    facts = GateFacts(
        mode=mode,
        changes=tuple(ws.changed_paths),
        regions=tuple(cov.regions),
        oracles=tuple(ev.oracles),
        runs=tuple(ev.runs),
        fixture_drift=ev.drift,
        ledger_errors=ev.ledger_errors,
        engine_errors=tuple(engine_errors),
        ledgers=tuple(l.ledger for l in ev.ledgers if l.ledger is not None),
        today=today,
        allow_oracle_changes=gate.allow_oracle_changes,
    )
    if gate.dry_run and not engine_errors:
        classes = {o.address: o.oracle_class.value for o in ev.oracles}
        for region in facts.regions:
            kind = region.kind.value if region.kind else "unmapped"
            covering = ",".join(f"{a}={classes.get(a, '?')}" for a in region.oracles) or "none"
            console.print_stdout(f"PLAN {region.address} kind={kind} oracles={covering}")
        console.print_stdout(f"DRY RUN: {len(facts.changes)} changed path(s), {len(facts.regions)} target(s), "
                             f"{len(facts.oracles)} oracle(s) would run; no verdict")
        return OracleGate(exit_code=0)
    verdict = evaluate(facts)
    for line in console_lines(facts, verdict):
        console.print_stdout(line)
    if gate.print_signatures:
        for line in ledger_row_templates(facts):
            console.print_stdout(line)
    if gate.report:
        path = gate.report if os.path.isabs(gate.report) else os.path.join(build_root.path, gate.report)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report_json(facts, verdict, diff.base_ref, diff.base_commit, diff.head_commit), f, indent=2)
            f.write("\n")
    return OracleGate(exit_code=verdict.exit_code)


def rules():
    return collect_rules()
