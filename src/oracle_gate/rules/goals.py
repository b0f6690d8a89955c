"""The human lane's tools: write the adoption baseline, promote drafts, record traces.

Each one writes files a person then reviews and lands as its own change; none of them runs
implicitly, and the gate treats what they write as oracle changes.
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from pants.backend.python.goals.pytest_runner import TestMetadata, TestSetup, TestSetupRequest
from pants.backend.python.subsystems.pytest import PythonTestFieldSet
from pants.backend.python.target_types import PythonTestSourceField
from pants.base.build_root import BuildRoot
from pants.core.util_rules.environments import ChosenLocalEnvironmentName, EnvironmentName
from pants.engine.console import Console
from pants.engine.fs import Digest, DigestContents, DigestSubset, PathGlobs
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.internals.session import RunId
from pants.engine.process import FallibleProcessResult, Process
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule, rule
from pants.engine.target import FilteredTargets, Target
from pants.option.global_options import GlobalOptions
from pants.option.option_types import BoolOption, StrListOption, StrOption
from pants.source.source_root import SourceRoot, SourceRootRequest
from pants.util.frozendict import FrozenDict
from pants.util.logging import LogLevel
from pants.util.strutil import help_text

from oracle_gate.core.judge import verdict as V
from oracle_gate.core.ladder.digests import sha256_hex
from oracle_gate.core.lanes import compare as C
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes import regions as R
from oracle_gate.core.lanes.baseline import BaselineRegion, BaselineSkip, make_baseline
from oracle_gate.core.lanes.unowned import group_counts, unowned_globs
from oracle_gate.core.protocol.signature import normalize_name
from oracle_gate.rules.facts import TreeFacts, TreeFactsRequest
from oracle_gate.rules.gate import oracle_runs, run_set
from oracle_gate.rules.git_diff import GitDiffError, tracked_files
from oracle_gate.rules.ladder_runs import targets_of
from oracle_gate.rules.lock import rewrite_lock, write_adoption
from oracle_gate.rules.runs import Jail, OracleRuns, OracleRunsRequest
from oracle_gate.rules.static_checks import Sources
from oracle_gate.target_types import OracleDraftField, ReplaySourceField, Sha256Field

# -- oracle-ratchet (writes the baseline) ----------------------------------------------------------------------------------


class OracleRatchetSubsystem(GoalSubsystem):
    name = "oracle-ratchet"
    help = help_text(
        """
        Write the adoption baseline: run every covering test of every production target in the
        specs once, and record per region the best class that voted, and every skip and xfail
        that happened (by signature and marker). The gate then requires of a changed region
        max(baseline class, floor once reached), and only skips the diff adds are UNLISTED_SKIP.
        Writes the JSON and its `sha256` lock (an `oracle_baseline` target); land it in the human
        lane.
        """
    )
    output = StrOption(default="oracle/baseline.json", help="The baseline file, relative to the build root.")
    exclude_tags = StrListOption(default=[], help="Tests with these tags (environment-bound) neither run nor count.")


class OracleRatchet(Goal):
    subsystem_cls = OracleRatchetSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@goal_rule
async def write_oracle_baseline(console: Console, subsystem: OracleRatchetSubsystem, build_root: BuildRoot,
                                specified: FilteredTargets, run_id: RunId, global_options: GlobalOptions) -> OracleRatchet:
    tree = await Get(TreeFacts, TreeFactsRequest())
    facts = tree.facts
    # The exclusions the gate will use (the configuration's), and any given here.
    policy = C.Policy(exclude_tags=tuple(dict.fromkeys([*subsystem.exclude_tags, *(facts.option("oracle-gate.exclude_tags") or ())])),
                      exclude_globs=tuple(facts.option("oracle-gate.exclude_globs") or ()))
    audit = tuple(t.address.spec for t in specified)
    comp = C.compare(facts, facts, (), policy, audit=audit)
    planned = run_set(facts, comp)
    records = ()
    if planned:
        # Jailed as the gate will run them (the configuration's `jail`): a test that passes only
        # outside the jail never enters the baseline as a voter the gate cannot reproduce.
        jail = Jail(bool(facts.option("oracle-gate.jail", True)), False, (str(global_options.named_caches_dir),))
        runs = await Get(OracleRuns, OracleRunsRequest(tuple(await targets_of(planned)), jail=jail))
        records = runs.records
    # The regions' sources map each executed code object to its symbol: what was exercised then.
    py_regions = sorted({r.path for r in comp.regions if r.path.endswith(".py")})
    texts = await Get(DigestContents, PathGlobs(py_regions)) if py_regions else ()
    head = {fc.path: fc.content.decode("utf-8", "replace") for fc in texts}
    judged = oracle_runs(records, facts, comp, Sources({}, head), run_id)
    verdict = V.evaluate(V.GateInput(mode="audit", comparison=comp, runs=judged, ran_oracles=True))
    executed = {r.address: r.executed for r in judged}
    regions = [BaselineRegion(rv.region.address, rv.region.path, rv.region.kind, rv.have.value if rv.have else None,
                              tuple(sorted({q for a in rv.voters for p, q in executed.get(a, ()) if p == rv.region.path})))
               for rv in verdict.regions]
    skips = [BaselineSkip(c.signature, normalize_name(c.nodeid), c.marker or c.outcome, c.reason)
             for r in judged for c in r.cases if c.outcome in V.SKIP_OUTCOMES and c.signature]
    infra = [r for r in judged if r.infra_error]
    if infra:
        console.print_stderr(f"oracle-ratchet: {len(infra)} test target(s) could not run (infrastructure), e.g. "
                             f"{infra[0].address}: {infra[0].infra_error}; nothing written")
        return OracleRatchet(exit_code=4)
    baseline = make_baseline("", datetime.date.today().isoformat(), regions, skips)
    text = baseline.dumps()
    path = os.path.join(build_root.path, subsystem.output)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    new_sha = sha256_hex(text.encode())
    existing = [t for t in facts.targets if t.role == F.BASELINE and subsystem.output in t.paths]
    if existing:
        (target,) = await targets_of([existing[0].address])
        written = rewrite_lock(build_root.path, target.address, target[Sha256Field].value, new_sha)
        where = f"lock updated in {written}" if written else "its sha256 is unchanged"
    else:
        build = os.path.join(os.path.dirname(path), "BUILD")
        with open(build, "a", encoding="utf-8") as f:
            f.write(f'\n# The adoption ratchet (`pants oracle-ratchet`): changing it is a human-lane change.\n'
                    f'oracle_baseline(name="baseline", source="{os.path.basename(path)}", sha256="{new_sha}")\n')
        where = f"target added to {os.path.relpath(build, build_root.path)}"
    counts: Dict[str, int] = {}
    for r in regions:
        counts[r.best or "none"] = counts.get(r.best or "none", 0) + 1
    console.print_stdout(f"BASELINE {subsystem.output} regions={len(regions)} "
                         + " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
                         + f" skips={len(baseline.skip_rows)} sha256={new_sha[:12]} ({where})")
    return OracleRatchet(exit_code=0)


# -- oracle-regions -----------------------------------------------------------------------------------


class OracleRegionsSubsystem(GoalSubsystem):
    name = "oracle-regions"
    help = help_text(
        """
        Suggest a region for every production code target without one, from what it imports and
        what it is (database and cache clients: state; HTTP, sockets, files, subprocesses: io;
        asyncio, threads, processes: concurrent; contract files and models: schema; otherwise
        pure), as the smallest `[oracle-gate].regions` table (directory trees where one kind covers
        most files, single files for the exceptions). `--write` writes it to `oracle-regions.json`
        (entries already there are kept) and points `[oracle-gate].regions` at it in pants.toml.
        No BUILD file is edited, so deleting or renaming a file never breaks the build.
        Requirements and data files get no region: they are judged through the code that uses
        them. A region sets a floor, so landing them is a human-lane change.
        """
    )
    write = BoolOption(default=False, help="Write the table to oracle-regions.json and reference it from pants.toml.")


class OracleRegions(Goal):
    subsystem_cls = OracleRegionsSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@goal_rule
async def suggest_oracle_regions(console: Console, subsystem: OracleRegionsSubsystem, build_root: BuildRoot,
                                 specified: FilteredTargets) -> OracleRegions:
    tree = await Get(TreeFacts, TreeFactsRequest())
    facts = tree.facts
    wanted = {t.address.spec for t in specified}
    todo = [t for t in facts.targets if t.role == F.PRODUCTION and t.region is None and t.path and t.address in wanted]
    if not todo:
        console.print_stdout("oracle-regions: every production target in the specs has a region; nothing to suggest")
        return await _write_adoption(console, subsystem, build_root, facts, None)
    py = [t for t in todo if t.paths[0].endswith(".py")]
    contents = await Get(DigestContents, PathGlobs([t.paths[0] for t in py]))
    roots = await MultiGet(Get(SourceRoot, SourceRootRequest, SourceRootRequest.for_file(t.paths[0])) for t in py)
    texts = {fc.path: fc.content.decode("utf-8", errors="replace") for fc in contents}
    inputs = []
    for t in todo:
        imports = frozenset()
        if t in py:
            module, package = F.module_of(t.paths[0], roots[py.index(t)].path)
            try:
                imports = R.imports_of_source(texts.get(t.paths[0], ""), module, package)
            except ValueError as e:
                console.print_stderr(f"oracle-regions: {t.paths[0]}: {e}; suggesting from its name only")
        inputs.append(R.TargetFacts(t.address, t.paths[0], imports))
    suggestions = R.suggest_all(inputs)
    for s in suggestions:
        console.print_stdout(f"SUGGEST {s.path} {s.kind}: {s.reason}")
    table, added = _region_table(facts, suggestions)
    for key, kind in added.items():
        console.print_stdout(f"REGION {key} {kind}")
    counts = R.kind_counts(suggestions)
    console.print_stdout(f"oracle-regions: {len(suggestions)} target(s): "
                         + ", ".join(f"{k} {n}" for k, n in counts.items())
                         + f"; {len(added)} table entr{'y' if len(added) == 1 else 'ies'}")
    return await _write_adoption(console, subsystem, build_root, facts, table)



def _region_table(facts: F.Facts, suggestions: List[R.Suggestion]) -> Tuple[Dict[str, str], Dict[str, str]]:
    """The table with the suggestions added, and the entries it adds."""
    existing = dict(facts.option("oracle-gate.regions") or {})
    table = R.table_from_suggestions({s.path: s.kind for s in suggestions}, existing)
    return table, {k: v for k, v in sorted(table.items()) if k not in existing}


def _unowned(build_root: str, facts: F.Facts) -> List[str]:
    """Tracked paths no target owns that the policy does not list yet (BUILD and config files,
    which the gate judges by what they change, excepted)."""
    try:
        tracked = tracked_files(build_root)
    except GitDiffError:
        return []
    policy = tuple(facts.option("oracle-gate.other_globs") or C.DEFAULT_OTHER_GLOBS)
    return [p for p in tracked if not facts.owners(p) and not C.judged_as_configuration(p) and not C.matches(p, policy)]


async def _write_adoption(console: Console, subsystem: OracleRegionsSubsystem, build_root: BuildRoot,
                          facts: F.Facts, table: Optional[Dict[str, str]]) -> OracleRegions:
    """List the unowned paths as reviewed-policy globs and, with --write, write both policies."""
    unowned = _unowned(build_root.path, facts)
    globs = unowned_globs(tracked_files(build_root.path), unowned) if unowned else []
    for glob, n in group_counts(globs, unowned).items():
        console.print_stdout(f"UNOWNED {glob} ({n} path{'' if n == 1 else 's'} no target owns)")
    if unowned:
        console.print_stdout(f"oracle-regions: {len(unowned)} unowned tracked path(s) as {len(globs)} other_globs "
                             f"entr{'y' if len(globs) == 1 else 'ies'} (documentation, other build systems, "
                             f"test data: review them)")
    if not subsystem.write:
        return OracleRegions(exit_code=0)
    try:
        written = write_adoption(build_root.path, table, globs)
    except (OSError, ValueError) as e:
        console.print_stderr(f"oracle-regions: error: {e}")
        return OracleRegions(exit_code=2)
    console.print_stdout(f"oracle-regions: wrote {written or 'nothing (nothing to add)'}")
    return OracleRegions(exit_code=0)


# -- oracle-promote -----------------------------------------------------------------------------------


class OraclePromoteSubsystem(GoalSubsystem):
    name = "oracle-promote"
    help = help_text(
        """
        Promote drafts to property oracles (seed 000): move each given `oracle_draft` file into a
        directory owned by an `oracle_properties` target. A human-lane change: review, then land
        it on its own.
        """
    )
    to = StrOption(default="oracle/properties", help="The directory (with an `oracle_properties` target) that receives the files.")


class OraclePromote(Goal):
    subsystem_cls = OraclePromoteSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@goal_rule
async def promote_drafts(console: Console, subsystem: OraclePromoteSubsystem, build_root: BuildRoot,
                         targets: FilteredTargets) -> OraclePromote:
    drafts = [t for t in targets if t.has_field(OracleDraftField)]
    if not drafts:
        console.print_stderr("oracle-promote: no oracle_draft targets in the given specs")
        return OraclePromote(exit_code=2)
    dest = os.path.join(build_root.path, subsystem.to)
    if not os.path.isdir(dest) or not any(n == "BUILD" or n.startswith("BUILD.") for n in os.listdir(dest)):
        console.print_stderr(f"oracle-promote: {subsystem.to} has no BUILD file (it needs an `oracle_properties` target)")
        return OraclePromote(exit_code=2)
    exit_code = 0
    for t in drafts:
        source = t[PythonTestSourceField].file_path
        target_path = os.path.join(subsystem.to, os.path.basename(source))
        if os.path.exists(os.path.join(build_root.path, target_path)):
            console.print_stderr(f"oracle-promote: {target_path} exists; not overwriting")
            exit_code = 2
            continue
        shutil.move(os.path.join(build_root.path, source), os.path.join(build_root.path, target_path))
        console.print_stdout(f"PROMOTED {t.address} -> {target_path}")
    return OraclePromote(exit_code=exit_code)


# -- oracle-record --------------------------------------------------------------------------------------


class OracleRecordSubsystem(GoalSubsystem):
    name = "oracle-record"
    help = help_text(
        """
        Record characterization traces: feed the inputs of each given `oracle_replay` file to its
        entry point in the test sandbox, write what the current code returns as the outputs, and
        update the file's `sha256` lock. A human-lane change.
        """
    )


class OracleRecord(Goal):
    subsystem_cls = OracleRecordSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@dataclass(frozen=True)
class RecordRequest:
    target: Target
    metadata: TestMetadata


@dataclass(frozen=True)
class Recorded:
    address: str
    lines: Tuple[str, ...]  # JSON lines {"input", "kwargs", "output"}
    error: str


@rule(desc="Record traces", level=LogLevel.DEBUG)
async def record_traces(request: RecordRequest, local_env: ChosenLocalEnvironmentName) -> Recorded:
    field_set = PythonTestFieldSet.create(request.target)
    setup = await Get(
        TestSetup,
        {TestSetupRequest((field_set,), request.metadata, is_debug=False,
                          extra_env=FrozenDict({"ORACLE_GATE_RECORD": "1"})): TestSetupRequest,
         local_env.val: EnvironmentName},
    )
    result = await Get(FallibleProcessResult, {setup.process: Process, local_env.val: EnvironmentName})
    subset = await Get(Digest, DigestSubset(result.output_digest, PathGlobs(["extra-output/oracle-gate/recorded/*"])))
    contents = await Get(DigestContents, Digest, subset)
    lines = tuple(l for fc in contents for l in fc.content.decode("utf-8").splitlines() if l.strip())
    error = "" if result.exit_code == 0 else (result.stdout.decode(errors="replace")[-800:] or f"exit {result.exit_code}")
    return Recorded(request.target.address.spec, lines, error)


@goal_rule
async def record_oracle_traces(console: Console, build_root: BuildRoot, targets: FilteredTargets) -> OracleRecord:
    replays = [t for t in targets if t.has_field(ReplaySourceField)]
    if not replays:
        console.print_stderr("oracle-record: no oracle_replay targets in the given specs")
        return OracleRecord(exit_code=2)
    runs = await Get(OracleRuns, OracleRunsRequest(tuple(replays)))
    metadata = {a: md for addresses, md in runs.batches for a in addresses}
    recorded = await MultiGet(Get(Recorded, RecordRequest(t, metadata[t.address.spec])) for t in replays)
    exit_code = 0
    for t, rec in zip(replays, recorded):
        if rec.error or not rec.lines:
            console.print_stderr(f"oracle-record: {rec.address}: recording failed: {rec.error or 'no lines recorded'}")
            exit_code = 1
            continue
        rows = sorted((json.loads(l) for l in rec.lines), key=lambda r: r["line"])
        text = "".join(json.dumps({k: v for k, v in (("input", r["input"]), ("kwargs", r.get("kwargs")), ("output", r["output"]))
                                   if v is not None}, sort_keys=True) + "\n" for r in rows)
        path = t[ReplaySourceField].file_path
        with open(os.path.join(build_root.path, path), "w", encoding="utf-8") as f:
            f.write(text)
        new_sha = sha256_hex(text.encode())
        old_sha = t[Sha256Field].value
        written = rewrite_lock(build_root.path, t.address, old_sha, new_sha) if new_sha != old_sha else None
        console.print_stdout(f"RECORDED {rec.address} lines={len(rows)} sha256={new_sha[:12]}"
                             + (f" (lock updated in {written})" if written else " (unchanged)" if new_sha == old_sha else ""))
    return OracleRecord(exit_code=exit_code)


def rules():
    return collect_rules()
