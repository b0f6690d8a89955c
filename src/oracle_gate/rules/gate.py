"""`pants oracle-gate`: judge the head against facts of the merge base, on recorded evidence.

The goal orchestrates and prints. Facts come from rules (`TreeFacts`, for the head here and for
the base in one nested run per base commit, reused from Pants' cache); the judgement is the core's
(`core.lanes.compare`, `core.judge.verdict`); the oracles and mutants run through Pants' own pytest runner
(`rules.runs`). Policy is read from the command line (or the environment) and the base's
configuration only: the head's files are evidence, never configuration of their judge.
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import time
from dataclasses import dataclass
from typing import FrozenSet, List, Mapping, Sequence, Set, Tuple, Union

from pants.base.build_root import BuildRoot
from pants.base.specs import Specs
from pants.core.util_rules.distdir import DistDir
from pants.engine.console import Console
from pants.engine.env_vars import CompleteEnvironmentVars
from pants.engine.fs import Workspace
from pants.engine.internals.session import RunId
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule
from pants.engine.target import FilteredTargets
from pants.option.global_options import GlobalOptions

from oracle_gate.core.judge import report as REPORT
from oracle_gate.core.judge import verdict as V
from oracle_gate.core.ladder import testaware as TA
from oracle_gate.core.ladder.ledger import governed
from oracle_gate.core.lanes import compare as C
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.baseline import Baseline
from oracle_gate.core.lanes.compare import Policy
from oracle_gate.core.lanes.unowned import holds_no_code
from oracle_gate.core.protocol import results as R
from oracle_gate.core.source.symbols import (MODULE, SourceError, changed_symbols, names_used, short_name,
                                             symbol_for_code)
from oracle_gate.rules.base_facts import (BaseFactsError, BaseFactsRequest, BaseFactsRun, BaseUnevaluable,
                                          LastEvaluable, LastEvaluableRequest, base_facts_request, facts_of)
from oracle_gate.rules.facts import TreeFacts, TreeFactsRequest
from oracle_gate.rules.gate_options import OracleGate, OracleGateSubsystem, effective_policy
from oracle_gate.rules.gate_report import fail_early, render, summary
from oracle_gate.rules.git_diff import GitDiff, GitDiffError, base_texts, read_diff
from oracle_gate.rules.ladder_runs import cleanroom_checks, mutation, targets_of
from oracle_gate.rules.runs import Jail, OracleRuns, OracleRunsRequest, TargetRecord
from oracle_gate.rules.static_checks import (JUDGE_COMMIT_ENV, Sources, base_baseline, config_findings, cosmetic,
                                             empty_files, head_texts, is_py, judged_config_findings,
                                             judged_under_base_hint, ledgers_of, lock_changes, locked_expected,
                                             data_reads, marker_paths, min_examples, moved_code, production_sources,
                                             stale_file,
                                             stale_ignores, static_findings, test_aware_finding,
                                             vetted_copies)


def run_set(head: F.Facts, comp: C.Comparison) -> FrozenSet[str]:
    """Every test target that runs: the candidates of each region (and the base oracles of a
    deleted one), demoted tests, drafts and changed oracles as themselves, the users of a changed
    locked file, and the governed tests of a changed ledger."""
    out: Set[str] = set()
    for region in comp.regions:
        out.update(region.candidates)
        if region.status == "deleted":
            for p in region.base_oracles:
                t = C.one_owner(head.owners(p), F.TEST_ROLES)
                if t is not None:
                    out.add(t.address)
    out.update(comp.demoted)
    for p in comp.lane_paths(C.ORACLE) + comp.lane_paths(C.DRAFT) + comp.lane_paths(C.TEST):
        for t in head.owners(p):
            if t.is_test:
                out.add(t.address)
            elif t.role in (F.LOCKED_FIXTURE, F.TEST_UTIL):
                out.update(a for a in head.transitive_dependents([t.address]) if head.is_test(a))
            elif t.role == F.FREEZE_LEDGER:
                out.update(x.address for x in head.targets
                           if x.is_test and x.paths and governed(t.governs or ("",), x.paths[0]))
    excluded = set(comp.excluded)
    return frozenset(a for a in out if a in head.by_address and a not in excluded and not head.by_address[a].skip)


def _changed_symbols(comp: C.Comparison, src: Sources) -> Tuple[V.ChangedSymbolEvidence, ...]:
    out: List[V.ChangedSymbolEvidence] = []
    # Added code that new oracles may judge: nothing existing uses it and nothing was deleted (a
    # move or a rename is a deletion and an addition, so the base's judges keep that code).
    moved = any(r.status in ("deleted", "reclassified") or r.old_path for r in comp.regions)
    used: Set[str] = set()
    for region in comp.regions:
        if region.status in ("audited", "deleted", "dependency") or not is_py(region.path):
            continue
        before = src.base.get(region.before_path) if region.before_path else None
        after = src.head.get(region.path)
        try:
            found = changed_symbols(before, after)
            if region.copied_from:  # what the copy leaves out stays in its source
                found = tuple(s for s in found if s.change != "deleted")
            existing = [s.qualname for s in found if s.change == "changed"]
            used |= names_used(after, existing) if after is not None and existing else set()
        except SourceError:
            found = ()
        moved = moved or any(s.change == "deleted" for s in found)
        if region.old_path and not found:
            out.append(V.ChangedSymbolEvidence(region.path, MODULE, "module", "changed", MODULE))
        for s in found:
            needs = s.qualname if s.change != "deleted" else MODULE
            if s.kind == "class" and s.change != "deleted":
                needs = s.qualname
            out.append(V.ChangedSymbolEvidence(region.path, s.qualname, s.kind, s.change, needs,
                                               renamed_from=s.renamed_from or ""))
    return tuple(dataclasses.replace(s, newly_judgeable=not moved and short_name(s.qualname) not in used)
                 if s.change == "added" else s for s in out)


def oracle_runs(records: Sequence[TargetRecord], head: F.Facts, comp: C.Comparison, src: Sources,
                 run_id: RunId) -> Tuple[V.OracleRun, ...]:
    region_paths = {r.path for r in comp.regions if is_py(r.path)}
    out = []
    for rec in records:
        t = head.by_address.get(rec.address)
        kind = {F.REPLAY: "replay", F.PROBES: "probes", F.DRAFT: "draft"}.get(t.role if t else "", "oracle")
        source = rec.metadata.source(run_id).value if rec.metadata is not None else "ran"
        if rec.infra:
            out.append(V.OracleRun(rec.address, rec.path, None, False, infra_error=rec.error, source=source, kind=kind))
            continue
        session = rec.session
        if session is None:
            out.append(V.OracleRun(rec.address, rec.path, rec.exit_code, False, problem=rec.error,
                                   output_tail=rec.output_tail, source=source, kind=kind))
            continue
        file = session.file(rec.path)
        cases = tuple(
            V.Case(t.nodeid, t.outcome, t.signature, t.exception, t.marker, t.reason or "", t.examples, t.exhausted,
                   " | ".join(t.tail[-3:]))
            for t in session.tests if t.file == rec.path
        )
        problem = ""
        if session.interrupted:
            problem = f"the session was interrupted ({session.interrupted})"
        elif file is not None and file.collection_error:
            problem = f"collection error: {file.collection_error.splitlines()[-1] if file.collection_error.strip() else ''}"
        elif file is None:
            problem = "the recorder saw no test file"
        else:
            missing = sorted(set(file.collected) - {c.nodeid for c in cases})
            if missing:
                problem = f"{len(missing)} collected test(s) never reported an outcome (first: {missing[0]})"
        complete = session.complete and not problem
        exit_code = rec.exit_code
        if exit_code == 1 and not any(c.outcome in V.FAILED_OUTCOMES for c in cases) and any(
                t.outcome in V.FAILED_OUTCOMES for t in session.tests if t.file != rec.path):
            exit_code = 0  # a batch shares one exit code: another file's recorded failure explains it
        executed: Set[Tuple[str, str]] = set()
        for path, firstlineno, name in (file.executed if file is not None else ()):
            if path in region_paths and src.head.get(path) is not None:
                try:
                    q = symbol_for_code(src.head[path], firstlineno, name)
                except SourceError:
                    q = None
                if q:
                    executed.add((path, q))
        out.append(V.OracleRun(
            rec.address, rec.path, exit_code, complete, cases, frozenset(executed),
            tuple((p, s or "missing") for p, s in (file.fixtures if file is not None else ())),
            problem, session.recorder_errors, "", rec.output_tail if not complete or exit_code else "", source, kind,
        ))
    return tuple(out)


# -- the goal's facts -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Trees:
    """The two trees the gate judges between: the head's facts from this run, the base's from the
    nested run (the head's when nothing Pants evaluates changed), and the targets an audit judges."""
    base: F.Facts
    head: F.Facts
    head_ranks: Mapping[str, str]
    audit: Tuple[str, ...]


@dataclass(frozen=True)
class Unbuilt:
    """Why the facts could not be built: the head's graph or the base (engine_error), or the
    machinery (infra_error)."""
    engine_error: str = ""
    infra_error: str = ""


def _diff_and_judge(console: Console, gate: OracleGateSubsystem, build_root: BuildRoot, global_options: GlobalOptions,
                    env: Mapping[str, str]) -> Union[Tuple[GitDiff, str], OracleGate]:
    """The diff against the merge base, and the base commit whose configuration judges (set by the
    launcher's judge mode; empty outside it); an exit when either is unusable."""
    try:
        base_ref = gate.base if gate.options.get_rank("base").name in ("FLAG", "ENVIRONMENT") else None
        diff = read_diff(build_root.path, base_ref, ignored_dirs=(
            global_options.pants_workdir, global_options.pants_distdir, global_options.pants_subprocessdir))
    except GitDiffError as e:
        console.print_stderr(f"oracle-gate: error: {e}")
        return OracleGate(exit_code=V.EXIT_POLICY)
    judge_commit = env.get(JUDGE_COMMIT_ENV, "")
    if judge_commit and judge_commit != diff.base_commit:
        console.print_stderr(f"oracle-gate: error: the launcher loaded the configuration of {judge_commit[:12]}, "
                             f"but the merge base is {diff.base_commit[:12]}; run the gate through the launcher again")
        return OracleGate(exit_code=V.EXIT_POLICY)
    console.print_stderr(
        f"oracle-gate: judged under the base's configuration and plugin ({judge_commit[:12]})" if judge_commit else
        "oracle-gate: judged under the head's configuration and plugin (the `./pants` launcher judges under the base's)")
    return diff, judge_commit


async def _trees(console: Console, gate: OracleGateSubsystem, specs: Specs, env: Mapping[str, str], diff: GitDiff,
                 judge_commit: str) -> Union[Trees, Unbuilt]:
    """The head's facts and the base's. The base's evaluation needs nothing of the head's: unless
    the diff may be documentation only (which the head's facts decide, and which needs no base
    run), both are evaluated at once."""
    base_request = base_facts_request(diff, dict(env)) if diff.changes else None
    at_once = base_request is not None and not C.documentation_paths(diff.changes)
    started = time.monotonic()
    try:
        # Resolved here, not as a goal parameter, so a head whose BUILD files Pants rejects gets a
        # verdict (GRAPH_ERROR) instead of an engine traceback.
        if at_once:
            head_tree, base_run = await MultiGet(Get(TreeFacts, TreeFactsRequest()),
                                                 Get(BaseFactsRun, BaseFactsRequest, base_request))
        else:
            head_tree = await Get(TreeFacts, TreeFactsRequest())
        specified = await Get(FilteredTargets, Specs, specs) if not diff.changes else FilteredTargets(())
    except Exception as e:  # the head's graph is broken (say, an unowned conftest.py breaks inference)
        return Unbuilt(engine_error=f"GRAPH_ERROR Pants could not evaluate the head: {summary(e)}"
                                    f"{judged_under_base_hint(diff, judge_commit)}")
    head = head_tree.facts
    audit = tuple(t.address.spec for t in specified)
    try:
        documentation = C.documentation_only(diff.changes, head, effective_policy(gate, head).other_globs)
    except ValueError:
        documentation = False  # a bad option: said later, from the base's facts
    if base_request is None or documentation:
        # An empty diff, or documentation only (nothing Pants evaluates changed): the head's facts
        # are the base's.
        if documentation:
            console.print_stderr(f"oracle-gate: base facts for {diff.base_commit[:12]} not needed: every changed path "
                                 f"is documentation no target owns, and nothing Pants evaluates changed")
        return Trees(head, head, dict(head_tree.option_ranks), audit)
    if not at_once:
        started = time.monotonic()
        base_run = await Get(BaseFactsRun, BaseFactsRequest, base_request)
    seconds = time.monotonic() - started
    try:
        built = facts_of(base_run, diff.base_commit)
    except BaseUnevaluable as e:
        way_out = (await Get(LastEvaluable, LastEvaluableRequest(base_request))).commit
        hint = (f"gate against the last commit before it that evaluates: --oracle-gate-base={way_out[:12]}"
                if way_out else "no earlier commit evaluates either; gate against one that does with --oracle-gate-base=<ref>")
        return Unbuilt(engine_error=f"BASE_UNEVALUABLE {e}; {hint}")
    except BaseFactsError as e:
        return Unbuilt(infra_error=f"INFRA_ERROR base facts: {e}")
    console.print_stderr(f"oracle-gate: base facts for {diff.base_commit[:12]} "
                         f"{'reused' if built.reused else 'built'} in {seconds:.1f}s"
                         f"{' (' + built.source + ')' if built.reused else ''}")
    return Trees(built.facts, head, dict(head_tree.option_ranks), audit)


async def _comparison(diff: GitDiff, trees: Trees, src: Sources, changed_py: Sequence[str], policy: Policy,
                      baseline: Union[Baseline, str, None], build_root: str, judge_commit: str) -> C.Comparison:
    """The core's comparison of base and head, with every input the gate read for it."""
    base, head = trees.base, trees.head
    return C.compare(base, head, vetted_copies(diff.changes, src), policy, trees.head_ranks,
                     baseline=baseline.regions_map() if isinstance(baseline, Baseline) else None,
                     adopted=tuple((r.address, r.path, r.kind) for r in baseline.regions) if isinstance(baseline, Baseline) else (),
                     marker_added=marker_paths(base, diff.changes, src),
                     config_findings=config_findings(diff.changes, src, base, head) + (
                         judged_config_findings(diff, build_root) if judge_commit else []),
                     audit=trees.audit,
                     cosmetic=cosmetic(diff.changes, src),
                     lock_changes=await lock_changes(diff, base, head),
                     inert=frozenset(p for p in changed_py if is_py(p) and holds_no_code(src.base.get(p))
                                     and holds_no_code(src.head.get(p))) | empty_files(diff, build_root),
                     moved_code=moved_code(diff, base, head, src))


# -- the goal --------------------------------------------------------------------------------------
@goal_rule
async def run_oracle_gate(
    console: Console,
    gate: OracleGateSubsystem,
    build_root: BuildRoot,
    specs: Specs,
    run_id: RunId,
    global_options: GlobalOptions,
    workspace: Workspace,
    dist_dir: DistDir,
) -> OracleGate:
    today = datetime.date.today()
    env = await Get(CompleteEnvironmentVars)
    read = _diff_and_judge(console, gate, build_root, global_options, env)
    if isinstance(read, OracleGate):
        return read
    diff, judge_commit = read
    trees = await _trees(console, gate, specs, env, diff, judge_commit)
    if isinstance(trees, Unbuilt):
        return await fail_early(console, workspace, dist_dir, build_root, env, gate, diff, run_id,
                                engine_error=trees.engine_error, infra_error=trees.infra_error)
    base, head = trees.base, trees.head
    try:
        policy = effective_policy(gate, base)
    except ValueError as e:
        console.print_stderr(f"oracle-gate: error: {e}")
        return OracleGate(exit_code=V.EXIT_POLICY)

    # Sources of the changed Python files (and pytest configuration files), at base and head.
    changed_py = sorted({p for c in diff.changes for p in (c.path, c.old_path, c.copied_from)
                         if p and (is_py(p) or os.path.basename(p) in C.PYTEST_CONFIGS)})
    src = Sources(base_texts(diff, changed_py), await head_texts(changed_py))
    stale = stale_file(build_root.path, src.head) or stale_ignores(build_root.path, diff, head)
    if stale:
        return await fail_early(console, workspace, dist_dir, build_root, env, gate, diff, run_id,
                                infra_error=f"INFRA_ERROR the engine has not seen the latest edit of {stale} "
                                            f"(pantsd's file watcher lagged behind the edit); run again")

    baseline = base_baseline(base)
    mode = "diff" if diff.changes else "audit"
    comp = await _comparison(diff, trees, src, changed_py, policy, baseline, build_root.path, judge_commit)

    symbols = _changed_symbols(comp, src)
    findings = static_findings(base, head, comp, src, policy, symbols, baseline,
                                await production_sources(head, comp), await data_reads(base, head, comp, src))
    ledgers, ledger_errors, new_rows = ledgers_of(base, head, comp, policy, today)

    static_fail = V.static_policy_failure([*comp.findings, *findings]) or bool(ledger_errors)
    planned = run_set(head, comp)
    if policy.dry_run:
        for line in REPORT.dry_run_lines(comp, findings, planned, static_fail and not policy.run_all):
            console.print_stdout(line)
        return OracleGate(exit_code=0)

    records: Tuple[TargetRecord, ...] = ()
    batches: Tuple = ()
    jail = Jail(bool(policy.jail or policy.require_jail), bool(policy.require_jail),
                (str(global_options.named_caches_dir),))
    ran = not static_fail or bool(policy.run_all)
    if ran and planned:
        targets = await targets_of(planned)
        runs = await Get(OracleRuns, OracleRunsRequest(tuple(targets), written_by_diff(head, comp), jail))
        records, batches = runs.records, runs.batches
    jail_findings, jail_errors = _jail_outcome(records, policy, jail)
    production = _production_paths(base, head)
    rebound = rebound_seen(records, production)
    rebound_texts = await head_texts(sorted({s[0] for s in rebound}))
    runs_judged = oracle_runs(records, head, comp, src, run_id)
    gi = V.GateInput(
        mode=mode, comparison=comp, runs=runs_judged, symbols=symbols, ledgers=ledgers,
        new_ledger_rows=new_rows, ledger_errors=ledger_errors,
        baseline_skips=baseline.skips if isinstance(baseline, Baseline) else frozenset(),
        baseline_exercised=tuple(sorted(baseline.exercised_map().items())) if isinstance(baseline, Baseline) else (),
        min_examples=min_examples(base, head, comp), locked_expected=locked_expected(head),
        findings=(*findings, *jail_findings, *rebound_findings(rebound, rebound_texts, production)),
        infra_errors=jail_errors, min_rank_required=policy.min_rank_required, today=today, ran_oracles=ran,
        lane=policy.lane,
    )
    # The clean room (R2_cleanroom), then numbness (R3), each only when every rank below it held (the
    # ladder stops at the first failure). (Awaited here: Pants finds a rule's Gets in its body and
    # the helpers it awaits directly, not deeper.)
    verdict = V.evaluate(gi)
    if ran and verdict.stopped_at is None:
        checks = await cleanroom_checks(comp, symbols, verdict, runs_judged, src, batches, jail, policy.compare_base)
        gi = dataclasses.replace(gi, cleanroom=checks, cleanroom_ran=True)
        verdict = V.evaluate(gi)
    if ran and verdict.stopped_at is None and policy.mutants_per_symbol > 0 and policy.mutation_budget > 0:
        mutant_results, not_mutated = await mutation(comp, symbols, verdict, runs_judged, src, batches, policy, head, jail,
                                                     gi.cleanroom)
        gi = dataclasses.replace(gi, mutants=mutant_results, not_mutated=not_mutated, mutation_ran=True)
        verdict = V.evaluate(gi)
    return await render(console, workspace, dist_dir, build_root, env, policy, gi, verdict, diff, records, run_id)


def _jail_outcome(records: Sequence[TargetRecord], policy: Policy,
                  jail: Jail) -> Tuple[Tuple[C.Finding, ...], Tuple[str, ...]]:
    """One line when the test processes ran without the jail asked for (a failure when it was
    required); one per run that left processes behind or tried to reach the network, saying what
    the jail did about it."""
    unjailed = min((r.jail for r in records if r.jail), default="")
    if unjailed and policy.require_jail:
        return (), (f"INFRA_ERROR jail: {unjailed} (--oracle-gate-require-jail: no test may run unjailed)",)
    notes = [f"NOTE the gate's test processes ran without a jail ({unjailed})"] if unjailed else []
    for batch, r in sorted({rec.batch or (rec.address,): rec for rec in records}.items()):
        who = f"the tests of {', '.join(batch)}"
        if r.stopped:
            notes.append(f"NOTE the jail stopped {r.stopped} process(es) {who} left running when they ended "
                         f"(nothing a test starts outlives its run)")
        reached = r.session.connections if r.session is not None else ()
        if reached:
            how = ("blocked (a jailed run reaches only its own loopback)" if jail.enabled and not r.jail else
                   f"not blocked ({r.jail or 'the jail is off: --no-oracle-gate-jail'})")
            notes.append(f"NOTE {who} tried to reach {', '.join(reached)}: {how}")
    return tuple(C.Finding("NOTE", n) for n in notes), ()


def rebound_seen(records: Sequence[TargetRecord], production: FrozenSet[str]) -> Tuple[TA.Seen, ...]:
    """The production module names the recorder found bound to another callable at a session's end."""
    return tuple(sorted({(r.path, r.name, r.origin, r.what, rec.address) for rec in records if rec.session is not None
                         for r in rec.session.rebound if r.path in production}))


def rebound_findings(seen: Sequence[TA.Seen], texts: Mapping[str, str],
                     production: FrozenSet[str]) -> Tuple[C.Finding, ...]:
    return tuple(test_aware_finding(f) for f in TA.rebound_findings(seen, dict(texts), production, R.MOCK))


def _production_paths(base: F.Facts, head: F.Facts) -> FrozenSet[str]:
    """The head's production files, but for what the base declares test tooling (a pytest plugin)."""
    tooling = {p for t in base.targets if t.test_tooling for p in t.paths}
    return frozenset(p for t in head.targets if t.role == F.PRODUCTION for p in t.paths if p not in tooling)


def written_by_diff(head: F.Facts, comp: C.Comparison) -> FrozenSet[str]:
    """Tests whose code the diff may have written: new and demoted tests and every draft. They never
    share a pytest process with a voter."""
    drafts = {t.address for t in head.targets if t.role == F.DRAFT}
    return frozenset({*comp.demoted, *comp.new_tests, *drafts})


def rules():
    return collect_rules()
