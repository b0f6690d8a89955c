"""`pants oracle-gate`: judge the head against facts of the merge base, on recorded evidence.

The goal orchestrates and prints. Facts come from rules (`TreeFacts`, for the head here and for
the base in one nested run per base commit, reused from disk); the judgement is the core's
(`core.compare`, `core.verdict`); the oracles and mutants run through Pants' own pytest runner
(`rules.runs`). Policy is read from the command line (or the environment) and the base's
configuration only: the head's files are evidence, never configuration of their judge.
"""
from __future__ import annotations

import ast
import dataclasses
import datetime
import os
import re
import time
from dataclasses import dataclass
from typing import AbstractSet, Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from pants.base.build_root import BuildRoot
from pants.core.util_rules.distdir import DistDir
from pants.engine.addresses import Addresses, UnparsedAddressInputs
from pants.engine.console import Console
from pants.engine.env_vars import CompleteEnvironmentVars
from pants.engine.fs import AddPrefix, CreateDigest, Digest, DigestContents, FileContent, MergeDigests, PathGlobs, Workspace
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.internals.session import RunId
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule
from pants.base.specs import Specs
from pants.engine.target import FilteredTargets, Targets
from pants.option.global_options import GlobalOptions
from pants.source.source_root import SourceRoot, SourceRootRequest
from pants.option.option_types import BoolOption, DictOption, IntOption, StrListOption, StrOption
from pants.util.strutil import help_text

from oracle_gate.core import cleanroom as CR
from oracle_gate.core import compare as C
from oracle_gate.core import facts as F
from oracle_gate.core import report as REPORT
from oracle_gate.core import verdict as V
from oracle_gate.core.baseline import Baseline, BaselineError
from oracle_gate.core.compare import Policy
from oracle_gate.core.ledger import Ledger, LedgerError, check_ledger, governed, parse_ledger, suite_size
from oracle_gate.core.markers import added_markers, judge_config_change, judges_a_test
from oracle_gate.core.mutant_payload import MutantTooLarge, encode_mutant_env
from oracle_gate.core.mutants import (FileToMutate, MutationUnsupported, changed_lines, line_mutants, moved_in,
                                     removed_lines)
from oracle_gate.core.symbols import (MODULE, READABLE_ENCODINGS, SourceError, changed_symbols, copied_code,
                                      declared_encoding, defined_names, names_used, rebinding_imports, short_name,
                                      symbol_for_code)
from oracle_gate.core.symbols import symbols as all_symbols
from oracle_gate.core.tautology import tautology_findings
from oracle_gate.core.testaware import test_aware_findings
from oracle_gate.rules.base_facts import (BaseFactsError, BaseFactsRequest, BaseFactsRun, BaseUnevaluable, LastEvaluable,
                                          LastEvaluableRequest, base_facts_request, facts_of)
from oracle_gate.rules.facts import TreeFacts, TreeFactsRequest
from oracle_gate.core.dependencies import changed_projects, resolve_lockfiles
from oracle_gate.core.unowned import holds_no_code
from oracle_gate.rules.git_diff import (GitDiff, GitDiffError, base_files_defining, base_texts, ignored_by_gitignore,
                                        read_diff)
from oracle_gate.rules.runs import (
    CleanroomRun,
    CleanroomRunRequest,
    Jail,
    MutantRun,
    MutantRunRequest,
    OracleRuns,
    OracleRunsRequest,
    TargetRecord,
)

# Option defaults are the typed policy's own (core/compare.Policy): one definition.
CLI_ONLY = frozenset({"base", "lane", "accept_tautology"})


class OracleGateSubsystem(GoalSubsystem):
    name = "oracle-gate"
    help = help_text(
        """
        Decide whether a diff may merge. The merge base is the judge: its facts (targets, regions,
        covering oracles, classes, locks, ledgers, configuration) are built once per base commit
        and reused; the head is judged against them. Every changed symbol of a changed production
        region must be executed by a voting oracle at the region's floor (P for pure, concurrent
        and schema; L for state and io; the baseline's class during adoption), and the diff must
        not change, shrink or re-classify the oracles that judge it. Exit codes: 0 merge,
        1 product failure, 2 policy failure, 3 empty vote, 4 infrastructure failure.

        Every option here is taken from the command line (or the environment) or from the base
        commit's configuration; the head's configuration is evidence, and an effective difference
        is itself a policy failure (CONFIG_CHANGE).
        """
    )

    base = StrOption(default=None, help="The git ref to diff against (its merge base with HEAD). Default: the first of origin/main, main, origin/master, master. Command line only.")
    lane = StrOption(
        default=Policy.lane,
        help=help_text(
            """
            `agent` (default): production and its judges never change together; oracle edits fail.
            `human`: an intended contract change reviewed by a person: production and oracles may
            change together, the changed oracles judge and must pass. Command line only.
            """
        ),
    )
    accept_tautology = BoolOption(default=False, advanced=True, help="Human lane only: accept TAUTOLOGY findings on changed oracles after review. Command line only.")
    report = StrOption(default=None, help="Write the versioned JSON report here (under dist/ when relative).")
    junit = StrOption(default=None, help="Write a JUnit XML report here (under dist/ when relative): one test case per region and per oracle.")
    print_signatures = BoolOption(default=False, help="Print a freeze-ledger row template for every failure and unlisted skip.")
    dry_run = BoolOption(default=False, help="Print lanes, regions, demotions, predicted reasons and the run plan; run nothing; exit 0.")
    run_all = BoolOption(default=False, advanced=True, help="Run the oracles even when the verdict is already a policy failure.")
    jail = BoolOption(
        default=Policy.jail,
        advanced=True,
        help=help_text(
            """
            Run every test process of the gate (oracles, the diff's tests, drafts, mutants) in a jail:
            Linux mount, network and PID namespaces; the file system read-only except its sandbox and
            Pants' named caches, no network beyond loopback, no process outliving it. Where
            namespaces are unavailable the report says so (NOTE). Jailed runs do not share cache
            entries with plain `pants test`; `false` makes them the very processes `pants test` runs.
            """
        ),
    )
    require_jail = BoolOption(default=False, help="Where test processes cannot be jailed, run none and fail with INFRA_ERROR (recommended for CI).")
    exclude_tags = StrListOption(default=[], help="Tests with any of these tags (e.g. needs-docker) never run and never vote; listed as EXCLUDED.")
    exclude_globs = StrListOption(default=[], help="Test files matching these globs (e.g. tests/integration/*) never run and never vote, like exclude_tags; no BUILD edit, so deleting or renaming a test never breaks the build.")
    other_globs = StrListOption(default=list(Policy.other_globs), advanced=True, help="Globs of unowned paths that are documentation. Any other unowned path fails closed (UNMAPPED).")
    regions = DictOption[str](
        default={},
        help=help_text(
            """
            Region kinds for code without an `oracle_region` of its own: keys are a file path from
            the build root or a directory tree (`src/app/**`, `**` for all), values a kind; the
            file's entry wins, else the nearest tree. `oracle-regions --write` writes them to
            `oracle-regions.json` and sets `regions = "@oracle-regions.json"`, which survives
            deleted and renamed files and never edits a BUILD file.
            """
        ),
    )
    max_freeze_days = IntOption(default=Policy.max_freeze_days, advanced=True, help="The longest a freeze-ledger row may last (expires - added).")
    min_rank_required = StrOption(default=Policy.min_rank_required, advanced=True, help=f"The ladder rank that must have run and passed: one of {', '.join(V.RANKS)}.")
    mutants_per_symbol = IntOption(default=Policy.mutants_per_symbol, advanced=True, help="Mutants generated per changed symbol (0 turns numbness checks off).")
    mutation_budget = IntOption(default=Policy.mutation_budget, advanced=True, help="At most this many mutants per gate run.")
    mutation_timeout = IntOption(default=Policy.mutation_timeout, advanced=True, help="Seconds a mutant run may take before it counts as killed.")


class OracleGate(Goal):
    subsystem_cls = OracleGateSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


def effective_policy(gate: OracleGateSubsystem, base: F.Facts) -> Policy:
    """Each option from the command line or environment, else the base's configuration, else the
    default. The head's configuration never decides. A bad value raises ValueError (one line)."""
    out: Dict[str, Any] = {}
    for f in dataclasses.fields(Policy):
        rank = gate.options.get_rank(f.name).name
        if rank in ("FLAG", "ENVIRONMENT"):
            out[f.name] = getattr(gate, f.name)
        elif f.name not in CLI_ONLY:
            out[f.name] = base.option(f"oracle-gate.{f.name}", f.default)
    return Policy.from_options(out, V.RANKS)


# -- sources -------------------------------------------------------------------------------------------
async def _lock_changes(diff: GitDiff, base: F.Facts, head: F.Facts) -> Dict[str, Tuple[str, Optional[FrozenSet[str]]]]:
    """The lockfiles (of the base's or the head's configuration) this diff changed, with the
    projects each change affects."""
    locks = {**resolve_lockfiles(head.option_map), **resolve_lockfiles(base.option_map)}
    changed = sorted({p for c in diff.changes for p in (c.path, c.old_path) if p in locks})
    if not changed:
        return {}
    before, after = base_texts(diff, changed), await _head_texts(changed)
    return {p: (locks[p], changed_projects(before.get(p), after.get(p))) for p in changed}


async def _head_texts(paths: Sequence[str]) -> Dict[str, str]:
    wanted = sorted({p for p in paths if not p.startswith("../")})
    if not wanted:
        return {}
    contents = await Get(DigestContents, PathGlobs(wanted))
    return {fc.path: fc.content.decode("utf-8", errors="replace") for fc in contents}


def _stale_ignores(build_root: str, diff: GitDiff, head: F.Facts) -> Optional[str]:
    """`.gitignore` when the diff changed it and the engine still sees a file its rules now hide: a
    daemon restarts on a .gitignore change only once its watcher has seen it."""
    if not head.option("GLOBAL.pants_ignore_use_gitignore", True):
        return None
    if not any(os.path.basename(p) == ".gitignore" for c in diff.changes for p in (c.path, c.old_path) if p):
        return None
    try:
        hidden = ignored_by_gitignore(build_root, [p for t in head.targets for p in t.paths])
    except GitDiffError:
        return None
    return ".gitignore" if hidden else None


def _stale(build_root: str, engine_view: Mapping[str, Optional[str]]) -> Optional[str]:
    """The first changed file whose content on disk differs from what the engine read, if any: a
    daemon whose file watcher has not caught up would judge the old content."""
    for path, text in sorted(engine_view.items()):
        try:
            with open(os.path.join(build_root, path), encoding="utf-8", errors="replace") as f:
                on_disk = f.read()
        except OSError:
            on_disk = None
        if text is not None and on_disk != text:
            return path
    return None


def _is_py(path: str) -> bool:
    return path.endswith(".py")


@dataclass(frozen=True)
class Sources:
    base: Mapping[str, Optional[str]]
    head: Mapping[str, Optional[str]]


# -- static analysis -------------------------------------------------------------------------------
def _marker_paths(base: F.Facts, changes: Sequence[C.Change], src: Sources) -> FrozenSet[str]:
    out = set()
    for c in changes:
        b_text, h_text = src.base.get(c.old_path or c.path), src.head.get(c.path)
        owners = base.owners(c.old_path or c.path)
        if not _is_py(c.path) or b_text is None or h_text is None:
            continue
        if not any(t.is_test or t.role == F.TEST_UTIL for t in owners):
            continue
        try:
            if added_markers(b_text, h_text):
                out.add(c.path)
        except SourceError:
            out.add(c.path)  # unparsable test code cannot be judged: fail closed
    return frozenset(out)


def _cosmetic(changes: Sequence[C.Change], src: Sources) -> FrozenSet[str]:
    """Modified Python files whose code is the same at base and head (comments, formatting and
    docstrings only): judged by what they change, which is nothing."""
    out = set()
    for c in changes:
        if c.status != "M" or c.link is not None or not _is_py(c.path) or os.path.basename(c.path) == "conftest.py":
            continue
        before, after = src.base.get(c.path), src.head.get(c.path)
        if before is None or after is None:
            continue
        try:
            if not changed_symbols(before, after) and not added_markers(before, after):
                out.add(c.path)
        except SourceError:
            continue
    return frozenset(out)


# pytest reads these words; a change our parser does not attribute to a pytest section but whose
# text mentions them is one we cannot vouch for (pytest's own ini reader is more lenient).
_PYTEST_WORDS = ("pytest", "hypothesis", "addopts", "testpaths", "python_files", "python_functions", "-p ")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _config_findings(changes: Sequence[C.Change], src: Sources, base: F.Facts, head: F.Facts) -> List[C.Finding]:
    """Changes to files pytest reads as configuration, judged by the sections pytest reads; and,
    failing closed, any change we cannot attribute for sure. A file above no test that existed at
    the base and remains at head (a removed package's own pytest section; a new package's, above
    only the tests the diff adds, which are new oracles judged with the settings they arrive with)
    judges nothing. A test the diff moved is the test it was."""
    out = []
    existed = {t.paths[0] for t in base.targets if t.is_test and t.paths}
    moved_from = {c.path: c.old_path for c in changes if c.old_path}
    remaining = [t.paths[0] for t in head.targets if t.is_test and t.paths
                 and (t.paths[0] in existed or moved_from.get(t.paths[0]) in existed)]
    for c in changes:
        name = os.path.basename(c.path)
        if name not in C.PYTEST_CONFIGS or not judges_a_test(c.path, remaining):
            continue
        # A renamed file is compared with what it was: settings that move with their tests are unchanged.
        before, after = src.base.get(c.old_path or c.path), src.head.get(c.path)
        try:
            found = judge_config_change(c.path, before, after)
        except ValueError as e:
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {c.path} cannot be read: {e}", c.path))
            continue
        out += [C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {f.line}", c.path) for f in found]
        if found:
            continue
        changed = set((after or "").splitlines()) ^ set((before or "").splitlines())
        if name == "pytest.ini" or _CONTROL.search(after or "") or any(
                w in line.lower() for line in changed for w in _PYTEST_WORDS):
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {c.path}: changed text pytest may read "
                                                  f"(cannot be attributed to a section it ignores)", c.path))
    return out


# Set by the `./pants` launcher when it runs the gate under the merge base's configuration files and
# plugin (its judge mode): the base commit it resolved.
JUDGE_COMMIT_ENV = "ORACLE_GATE_JUDGE_COMMIT"


def _judged_under_base_hint(diff: GitDiff, judge_commit: str) -> str:
    """Why a head may not evaluate under the base's configuration, and the way out."""
    changed = sorted({c.path for c in diff.changes if C.is_pants_config(c.path)})
    if not judge_commit or not changed:
        return ""
    return (f" (evaluated under the base's configuration; the head changes {', '.join(changed)}: land the "
            f"configuration change first, alone, then what needs it)")


def _judged_config_findings(diff: GitDiff, build_root: str) -> List[C.Finding]:
    """Under the base's configuration the head's Pants configuration files are evidence only: what
    they set differently is read from their text (with the TOML reader Pants itself uses)."""
    # Pants' own configuration reader, always next to Pants (no target of ours owns it).
    import toml  # pants: no-infer-dep

    paths = sorted({p for c in diff.changes for p in (c.path, c.old_path)
                    if p and not p.startswith("../") and C.is_pants_config(p)})
    before = base_texts(diff, paths)
    out: List[C.Finding] = []
    for path in paths:
        try:
            with open(os.path.join(build_root, path), encoding="utf-8") as f:
                after: Optional[str] = f.read()
        except FileNotFoundError:
            after = None
        except (OSError, UnicodeDecodeError) as e:
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {path} cannot be read: {e}", path))
            continue
        try:
            parsed = [toml.loads(t) if t is not None else None for t in (before.get(path), after)]
        except (toml.TomlDecodeError, TypeError, ValueError) as e:
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {path} cannot be read as TOML: {e}", path))
            continue
        out += C.config_file_changes(path, parsed[0], parsed[1])
    return out


def _test_aware(base: F.Facts, comp: C.Comparison, src: Sources, oracle_paths: Sequence[str]) -> List[C.Finding]:
    out = []
    for region in comp.regions:
        if region.status in ("audited", "dependency") or not _is_py(region.path):
            continue  # its code did not change
        declared = base.by_address.get(region.address)
        if declared is not None and declared.test_tooling:
            continue  # the base says this is test tooling (a pytest plugin, a harness)
        head = src.head.get(region.path)
        if head is None:
            continue
        try:
            found = test_aware_findings(region.path, src.base.get(region.before_path or region.path), head, oracle_paths)
        except SourceError as e:
            out.append(C.Finding("TEST_AWARE_CODE", f"TEST_AWARE_CODE {region.path}: cannot be parsed ({e})", region.path))
            continue
        for f in found:
            out.append(C.Finding("TEST_AWARE_CODE", f"TEST_AWARE_CODE {f.path}:{f.line} {f.what}", f.path, f.line))
    return out


def _tautologies(comp: C.Comparison, head: F.Facts, src: Sources, production: Mapping[str, str],
                 policy: Policy, diff_code: FrozenSet[str]) -> List[C.Finding]:
    out = []
    for oc in comp.oracle_changes:
        if oc.what in ("deleted", "lost") or not _is_py(oc.path):
            continue
        owner = C.one_owner(head.owners(oc.path), [F.PROPERTY, F.TEST])
        text = src.head.get(oc.path)
        if owner is None or text is None or head.oracle_class(owner.address) is None:
            continue
        try:
            found = tautology_findings(text, production, diff_code)
        except SourceError as e:
            found = ()
            out.append(C.Finding("TAUTOLOGY", f"TAUTOLOGY {oc.path} cannot be parsed ({e})", oc.path))
        for f in found:
            if policy.lane == C.HUMAN and policy.accept_tautology:
                out.append(C.Finding("NOTE", f"NOTE tautology accepted on review: {oc.path}::{f.test} {f.why}", oc.path))
            else:
                out.append(C.Finding("TAUTOLOGY", f"TAUTOLOGY {oc.path}::{f.test} {f.why}", oc.path))
    return out


def _drift(head: F.Facts) -> List[C.Finding]:
    out = []
    for t in head.targets:
        if t.sha256 is None or not t.paths:
            continue
        actual = head.text_map.get(f"sha256:{t.paths[0]}")
        if actual != t.sha256:
            code = "BASELINE_DRIFT" if t.role == F.BASELINE else "FIXTURE_DRIFT"
            out.append(C.Finding(code, f"{code} {t.address} expected={t.sha256[:12]} actual={(actual or 'missing')[:12]}",
                                 t.paths[0]))
    return out


async def targets_of(addresses: Iterable[str]) -> Targets:
    parsed = await Get(Addresses, UnparsedAddressInputs(sorted(addresses), owning_address=None,
                                                         description_of_origin="the oracle-gate run plan"))
    return await Get(Targets, Addresses(parsed))


def _summary(e: BaseException) -> str:
    return f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"


EMPTY_COMPARISON = C.Comparison((), (), (), (), (), (), (), ())


async def _render(console: Console, workspace: Workspace, dist_dir: DistDir, build_root: BuildRoot,
                  env: Mapping[str, str], policy: Policy, gi: V.GateInput, verdict: V.Verdict,
                  diff: Optional[GitDiff], records: Sequence[TargetRecord], run_id: RunId) -> OracleGate:
    """One verdict, every rendering: console, JSON and JUnit under dist/, GitHub annotations."""
    sources = {r.address: r.source for r in gi.runs}
    report = REPORT.report_json(gi, verdict, diff.base_ref if diff else None, diff.base_commit if diff else None,
                                diff.head_commit if diff else None, policy.lane, sources)
    for line in REPORT.console_lines(gi, verdict):
        console.print_stdout(line)
    if policy.print_signatures:
        for line in REPORT.ledger_row_templates(gi, gi.today):
            console.print_stdout(line)
    await _write_reports(workspace, dist_dir, build_root, policy, report, gi, verdict, records)
    if env.get("GITHUB_ACTIONS") == "true":
        for line in REPORT.github_annotations(verdict):
            console.print_stdout(line)
        summary = env.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as f:
                f.write(REPORT.step_summary(gi, verdict))
    return OracleGate(exit_code=verdict.exit_code)


async def _fail_early(console: Console, workspace: Workspace, dist_dir: DistDir, build_root: BuildRoot,
                      env: Mapping[str, str], gate: OracleGateSubsystem, diff: GitDiff, run_id: RunId,
                      engine_error: str = "", infra_error: str = "") -> OracleGate:
    """The facts could not be built: say why, in every rendering, and fail closed."""
    try:
        policy = effective_policy(gate, F.make_facts(()))
    except ValueError:  # the options are bad too: the facts' error is the one to show
        policy = Policy()
    gi = V.GateInput(mode="diff" if diff.changes else "audit", comparison=EMPTY_COMPARISON,
                     engine_errors=(engine_error,) if engine_error else (),
                     infra_errors=(infra_error,) if infra_error else (), ran_oracles=False)
    return await _render(console, workspace, dist_dir, build_root, env, policy, gi, V.evaluate(gi), diff, (), run_id)


def _excluded(head: F.Facts, comp: C.Comparison, policy: Policy) -> List[C.Finding]:
    """Excluded tests that would have covered a judged region: listed, never voting."""
    excluded = set(comp.excluded)
    found = sorted({t.address for r in comp.regions if r.address in head.by_address
                    for t in head.covering_tests(r.address) if t.address in excluded})
    tags = set(policy.exclude_tags)

    def why(a: str) -> str:
        matched = sorted(set(head.by_address[a].tags) & tags)
        return f"tags: {', '.join(matched)}" if matched else "exclude_globs"

    return [C.Finding("EXCLUDED", f"EXCLUDED {a} ({why(a)}): never runs, never votes") for a in found]


def _baseline(base: F.Facts) -> Optional[object]:
    """The base's baseline (None when the repository has none; a string when it is unusable)."""
    owners = [t for t in base.targets if t.role == F.BASELINE]
    if not owners:
        return None
    t = owners[0]
    text = base.text_map.get(t.paths[0]) if t.paths else None
    if text is None or base.text_map.get(f"sha256:{t.paths[0]}") != t.sha256:
        return f"BASELINE_DRIFT {t.address}: the base's baseline does not match its sha256 lock"
    try:
        return Baseline.loads(text)
    except BaselineError as e:
        return f"BASELINE_DRIFT {t.address}: {e}"


def _ledgers(base: F.Facts, head: F.Facts, comp: C.Comparison, policy: Policy, today: datetime.date):
    """The ledgers that judge this run: the base's (the head's in the human lane), their problems,
    and the rows the diff adds."""
    judging = head if policy.lane == C.HUMAN else base
    test_paths = [t.paths[0] for t in base.targets if t.is_test and t.paths]
    ledgers: List[Ledger] = []
    errors: List[str] = []
    for t in judging.targets:
        if t.role != F.FREEZE_LEDGER or not t.paths:
            continue
        ledger, problems = check_ledger(judging.text_map.get(t.paths[0]), t.paths[0], int(policy.max_freeze_days),
                                        today, suite_size(t.governs, test_paths))
        errors += problems
        if ledger is not None:
            ledgers.append(ledger)
    base_rows = {(e.signature, e.test, e.exception) for t in base.targets if t.role == F.FREEZE_LEDGER and t.paths
                 for e in _safe_entries(base.text_map.get(t.paths[0]), t.paths[0])}
    new_rows = tuple(e for l in ledgers for e in l.entries if (e.signature, e.test, e.exception) not in base_rows)
    return tuple(ledgers), tuple(errors), new_rows if judging is head else ()


def _safe_entries(text: Optional[str], path: str):
    try:
        return parse_ledger(text or "", path, 10**6).entries
    except LedgerError:
        return ()


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


def _empty_files(diff: GitDiff, build_root: str) -> FrozenSet[str]:
    """Changed files other than Python that are empty (or absent) at the base and at head: there
    is nothing in them to run or to read."""
    paths = [c.path for c in diff.changes if not _is_py(c.path) and not c.old_path and c.link is None
             and not c.path.startswith("../")]
    if not paths:
        return frozenset()

    def empty_at_head(path: str) -> bool:
        full = os.path.join(build_root, path)
        return not os.path.lexists(full) or (os.path.isfile(full) and not os.path.islink(full)
                                             and os.path.getsize(full) == 0)

    at_head = [p for p in paths if empty_at_head(p)]
    return frozenset(p for p, text in base_texts(diff, at_head).items() if not text)


def _vetted_copies(changes: Sequence[C.Change], src: Sources) -> Tuple[C.Change, ...]:
    """Git's copies, less those whose imports bind a name under another name or over a builtin
    as their source's do not (`from decimal import Decimal as int`): that code does not do what
    its source did, and is new code."""
    out = []
    for c in changes:
        head, source = src.head.get(c.path), src.base.get(c.copied_from or "")
        if c.copied_from and _is_py(c.path) and head is not None and source is not None:
            try:
                rebound = rebinding_imports(head, [source])
            except SourceError:
                rebound = ("?",)
            if rebound:
                c = dataclasses.replace(c, copied_from=None)
        out.append(c)
    return tuple(out)


def _moved_code(diff: GitDiff, base: F.Facts, head: F.Facts, src: Sources) -> Dict[str, Tuple[str, ...]]:
    """Added production files whose code all comes from base production files (moved or copied
    out of them: core/symbols.copied_code), looked for in the base files that define one of their
    names (git grep)."""
    added: Dict[str, Tuple[str, FrozenSet[str]]] = {}
    for c in diff.changes:
        text = src.head.get(c.path)
        if c.status != "A" or c.copied_from or not _is_py(c.path) or text is None or base.owners(c.path) \
                or C.one_owner(head.owners(c.path), [F.PRODUCTION]) is None:
            continue
        try:
            names = defined_names(text)
        except SourceError:
            continue
        if names:
            added[c.path] = (text, names)
    if not added:
        return {}
    try:
        found = base_files_defining(diff, frozenset().union(*(names for _, names in added.values())))
    except GitDiffError:
        return {}  # no sources found: each owes its full floor
    texts = {p: t for p, t in base_texts(diff, [p for p in found if C.one_owner(base.owners(p), [F.PRODUCTION])]).items()
             if t is not None}
    out: Dict[str, Tuple[str, ...]] = {}
    for path, (text, _) in sorted(added.items()):
        try:
            sources = copied_code(text, texts)
        except SourceError:
            continue
        if sources:
            out[path] = sources
    return out


def _changed_symbols(comp: C.Comparison, src: Sources) -> Tuple[V.ChangedSymbolEvidence, ...]:
    out: List[V.ChangedSymbolEvidence] = []
    # Added code that new oracles may judge: nothing existing uses it and nothing was deleted (a
    # move or a rename is a deletion and an addition, so the base's judges keep that code).
    moved = any(r.status in ("deleted", "reclassified") or r.old_path for r in comp.regions)
    used: Set[str] = set()
    for region in comp.regions:
        if region.status in ("audited", "deleted", "dependency") or not _is_py(region.path):
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
    region_paths = {r.path for r in comp.regions if _is_py(r.path)}
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


async def _production_sources(head: F.Facts, comp: C.Comparison) -> Tuple[Dict[str, str], Dict[str, str]]:
    """Module name -> source of the production modules a changed oracle may call (for the
    tautology check), named through Pants' source roots; and path -> module name."""
    paths = sorted({p for t in head.targets if t.role == F.PRODUCTION for p in t.paths if _is_py(p)})
    if not any(_is_py(o.path) for o in comp.oracle_changes) or not paths:
        return {}, {}
    texts = await _head_texts(paths)
    roots = await MultiGet(Get(SourceRoot, SourceRootRequest, SourceRootRequest.for_file(p)) for p in paths)
    out, modules = {}, {}
    for path, root in zip(paths, roots):
        module, _ = F.module_of(path, root.path)
        if module and path in texts:
            out[module] = texts[path]
            modules[path] = module
    return out, modules


def _judges_of(comp: C.Comparison, verdict: V.Verdict, runs: Sequence[V.OracleRun], batches: Sequence,
               judged_at_e: AbstractSet[str] = frozenset(),
               ) -> Callable[[str, V.ChangedSymbolEvidence], Tuple[str, ...]]:
    """The P and L voters that executed a changed symbol, strongest first (and its class-E voters,
    in the files of `judged_at_e`): existing code is judged by the base's voters; code new in this
    diff by new oracles too."""
    batched = {a for addresses, _ in batches for a in addresses}
    executed = {r.address: r.executed for r in runs}
    classes = comp.judge_classes
    strong = (V.OracleClass.PROPERTY, V.OracleClass.LOCKED)

    def judges_of(path: str, sym: V.ChangedSymbolEvidence) -> Tuple[str, ...]:
        new_code = sym.change == "added" and sym.newly_judgeable
        judges = (*verdict.voters, *verdict.newcomers) if new_code else verdict.voters
        allowed = (*strong, V.OracleClass.EQUALITY) if path in judged_at_e else strong
        return tuple(sorted(
            (a for a in judges if (path, sym.needs) in executed.get(a, frozenset())
             and classes.get(a) in allowed and a in batched),
            key=lambda a: (-classes[a].rank, a)))

    return judges_of


P_FLOOR_KINDS = ("pure", "schema")


async def _cleanroom(comp: C.Comparison, symbols: Sequence[V.ChangedSymbolEvidence], verdict: V.Verdict,
                     runs: Sequence[V.OracleRun], src: Sources, batches: Sequence, jail: Jail,
                     ) -> Tuple[V.CleanroomCheck, ...]:
    """Every changed function of a pure or schema region that a P or L voter executed: the
    strongest such voter's calls into it, sampled and replayed in clean interpreters (core/cleanroom.py)."""
    metadata_of = {a: md for addresses, md in batches for a in addresses}
    judges_of = _judges_of(comp, verdict, runs, batches)
    kinds = {r.path: r.kind for r in comp.regions}
    wanted: Dict[str, List[Tuple[V.ChangedSymbolEvidence, CR.Watch]]] = {}
    derived: Set[Tuple[str, str]] = set()  # functions watched because module-level code changed
    tables: Dict[str, Dict[str, Tuple[str, Tuple[int, int]]]] = {}  # path -> its symbols, parsed once
    for sym in symbols:
        text = src.head.get(sym.path)
        if sym.change == "deleted" or kinds.get(sym.path) not in P_FLOOR_KINDS or text is None:
            continue
        if sym.path not in tables:
            try:
                tables[sym.path] = all_symbols(text)
            except (SourceError, SyntaxError, ValueError):
                tables[sym.path] = {}
        table = tables[sym.path]
        if sym.qualname == MODULE:
            # Module-level code can rebind or wrap any function of the module at import (say, only
            # where it is not under a test): every function of it a voter ran is replayed too.
            found = [V.ChangedSymbolEvidence(sym.path, q, kind, "changed", q) for q, (kind, _) in sorted(table.items())
                     if kind in ("function", "method") and not any(s.path == sym.path and s.qualname == q for s in symbols)]
            derived.update((f.path, f.qualname) for f in found)
        elif sym.kind in ("function", "method"):
            found = [sym]
        else:
            continue
        for f in found:
            voters = judges_of(f.path, f)
            if voters and f.qualname in table:
                first, last = table[f.qualname][1]
                wanted.setdefault(voters[0], []).append((f, CR.Watch(f.path, f.qualname.rsplit(".", 1)[-1], first, last)))
    if not wanted:
        return ()
    order = sorted(wanted)
    by_address = {t.address.spec: t for t in await targets_of(order)}
    done = await MultiGet(
        Get(CleanroomRun, CleanroomRunRequest(by_address[a], metadata_of[a], CR.encode_watch(w for _, w in wanted[a]), jail))
        for a in order)
    out = []
    for address, run in zip(order, done):
        for sym, _ in wanted[address]:
            text = src.head[sym.path]

            def mine(path: str, line: int, name: str) -> bool:
                return path == sym.path and symbol_for_code(text, line, name) == sym.qualname

            if run.results is None:
                out.append(V.CleanroomCheck(sym.path, sym.qualname, address, 0, why_not=run.error, kind=kinds[sym.path]))
                continue
            calls = [c for c in run.results.calls if mine(c.path, c.line, c.name)]
            replayed = [c for c in calls if any(not got.startswith(CR.NOT_RUN) for _, got in c.results)]
            if (sym.path, sym.qualname) in derived and not replayed:
                continue  # an unchanged function: judged where it can be replayed, never required to be
            why = "; ".join(
                [u.why for u in run.results.unreplayed if mine(u.path, u.line, u.name)]
                + [got[len(CR.NOT_RUN):] for c in calls[:1] for _, got in c.results[:1] if got.startswith(CR.NOT_RUN)]
            ) or "its voter made no call to it while a test ran"
            out.append(V.CleanroomCheck(
                sym.path, sym.qualname, address, len(replayed),
                tuple((c.input, v, c.expected, got) for c in replayed for v, got in c.results if not CR.same(c.expected, got)),
                why_not=why if not replayed else "", kind=kinds[sym.path]))
    return tuple(out)


async def _mutation(comp: C.Comparison, symbols: Sequence[V.ChangedSymbolEvidence], verdict: V.Verdict,
                    runs: Sequence[V.OracleRun], src: Sources, batches: Sequence, policy: Policy,
                    head: F.Facts, jail: Jail) -> Tuple[Tuple[V.MutantResult, ...], Tuple[Tuple[str, int, str], ...]]:
    """Mutants of every changed line of the changed symbols a voter (P or L) executed, each run
    against those voters; and the mutable changed lines the budget did not reach. In the agent lane a
    region judged at class E (its baseline: adoption found only example tests) is judged the same
    way by its class-E voters: every changed line there must be one they notice."""
    metadata_of = {a: md for addresses, md in batches for a in addresses}
    judged_at_e = frozenset(r.path for r in comp.regions if r.required == V.OracleClass.EQUALITY.value) \
        if policy.lane == C.AGENT else frozenset()
    voters_of = _judges_of(comp, verdict, runs, batches, judged_at_e)

    by_path: Dict[str, List[V.ChangedSymbolEvidence]] = {}
    for s in symbols:
        if s.change != "deleted":
            by_path.setdefault(s.path, []).append(s)
    files: List[FileToMutate] = []
    judges: Dict[Tuple[str, str], Tuple[str, ...]] = {}
    old_path = {r.path: r.before_path or r.path for r in comp.regions}
    removed = {p: removed_lines(text, src.head.get(p)) for p, text in src.base.items() if _is_py(p) and text}
    for path, syms in sorted(by_path.items()):
        text = src.head.get(path)
        if text is None:
            continue
        syms = [s for s in syms if voters_of(path, s)]  # a symbol no voter ran is UNEXERCISED, not numb
        judges.update({(path, s.qualname): voters_of(path, s) for s in syms})
        lines = _symbol_lines(text, [s.qualname for s in syms if s.qualname != MODULE])
        ranges = [(s.qualname, lines[s.qualname]) for s in syms if s.qualname in lines]
        if any(s.qualname == MODULE for s in syms):
            # Module-level code: only its changed top-level statements (a lambda bound to a name,
            # a constant), never the defs around them.
            ranges += [(MODULE, r) for r in _module_ranges(src.base.get(path), text)]
        if ranges:
            before = old_path.get(path, path)
            lines = changed_lines(src.base.get(before), text)
            elsewhere = frozenset().union(*(r for p, r in removed.items() if p != before))
            files.append(FileToMutate(path, text, tuple(ranges), lines - moved_in(text, lines, elsewhere)))
    try:
        plan = line_mutants(files, int(policy.mutation_budget), int(policy.mutants_per_symbol))
    except (MutationUnsupported, SourceError, SyntaxError, ValueError):  # ValueError: cannot parse it
        return (), ()
    planned: List[Tuple[V.MutantResult, str]] = []  # (the result if it survives, the env value)
    results: List[V.MutantResult] = []
    for path, m in plan.mutants:
        voters = judges[(path, m.symbol)]
        try:
            env_value = encode_mutant_env(path, m.source, m.id)
        except MutantTooLarge:
            results.append(V.MutantResult(path, m.symbol, m.id, m.description, "not_run", line=m.line, unit=m.unit))
            continue
        planned.append((V.MutantResult(path, m.symbol, m.id, m.description, "survived", voters, m.coarse, m.line, m.unit),
                        env_value))
    # Rounds: each mutant against its strongest remaining voter; only survivors go on to the next.
    pending = [(survivor, env_value, list(survivor.oracles)) for survivor, env_value in planned]
    outcomes: Dict[str, List[MutantRun]] = {}
    while pending:
        targets = await targets_of({voters[0] for _, _, voters in pending})
        by_address = {t.address.spec: t for t in targets}
        round_runs = await MultiGet(
            Get(MutantRun, MutantRunRequest(by_address[voters[0]], metadata_of[voters[0]], env_value,
                                            survivor.mutant_id, int(policy.mutation_timeout), jail))
            for survivor, env_value, voters in pending
        )
        next_round = []
        for (survivor, env_value, voters), run in zip(pending, round_runs):
            outcomes.setdefault(survivor.mutant_id, []).append(run)
            if not (run.served and run.killed) and len(voters) > 1:
                next_round.append((survivor, env_value, voters[1:]))
        pending = next_round
    for survivor, _ in planned:
        runs_of = outcomes.get(survivor.mutant_id, [])
        served = [o for o in runs_of if o.served]
        if any(o.killed for o in served):
            status = "killed"
        elif any(o.error for o in runs_of):
            status = "error"  # a voter's session left no results: neither killed nor survived
        else:
            status = "survived" if served else "not_run"
        results.append(dataclasses.replace(survivor, status=status))
    return tuple(results), plan.not_mutated


def _module_ranges(base: Optional[str], head: str) -> List[Tuple[int, int]]:
    """Line ranges of the head's top-level statements (outside defs and classes, docstrings and
    imports aside) that the base does not have."""
    def top(source: Optional[str]) -> List[ast.stmt]:
        if source is None:
            return []
        try:
            return [n for n in ast.parse(source).body
                    if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))
                    and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        except SyntaxError:
            return []

    before = [ast.dump(n) for n in top(base)]
    out = []
    for node in top(head):
        dumped = ast.dump(node)
        if dumped in before:
            before.remove(dumped)
            continue
        out.append((node.lineno, getattr(node, "end_lineno", node.lineno)))
    return out


def _symbol_lines(text: str, qualnames: Sequence[str]) -> Dict[str, Tuple[int, int]]:
    table = all_symbols(text)
    return {q: table[q][1] for q in qualnames if q in table}


async def _write_reports(workspace: Workspace, dist_dir: DistDir, build_root: BuildRoot, policy: Policy,
                         report: Dict[str, Any], gi: V.GateInput, verdict: V.Verdict,
                         records: Sequence[TargetRecord]) -> None:
    """JSON and JUnit reports and the per-test XML of every oracle run, under dist/ (Pants'
    workspace conventions)."""
    files: List[FileContent] = []
    dist = os.path.relpath(str(dist_dir.relpath), ".") if dist_dir.relpath else "dist"
    absolute: List[Tuple[str, bytes]] = []

    def place(option: Optional[str], data: bytes) -> None:
        if not option:
            return
        if os.path.isabs(option):
            rel = os.path.relpath(option, build_root.path)
            if rel.startswith(".."):
                absolute.append((option, data))
                return
            files.append(FileContent(rel, data))
        else:
            files.append(FileContent(option if option.startswith(dist + "/") else os.path.join(dist, option), data))

    place(policy.report, REPORT.dumps(report).encode())
    place(policy.junit, REPORT.junit_xml(gi, verdict).encode())
    digests = [await Get(Digest, CreateDigest(files))] if files else []
    xml = [r.xml for r in records if r.xml is not None]
    if xml:
        merged = await Get(Digest, MergeDigests(xml))
        digests.append(await Get(Digest, AddPrefix(merged, os.path.join(dist, "oracle-gate", "test-reports"))))
    if digests:
        workspace.write_digest(await Get(Digest, MergeDigests(digests)))
    for path, data in absolute:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


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

    base_request = base_facts_request(diff, dict(env)) if diff.changes else None
    # The base's evaluation needs nothing of the head's: unless the diff may be documentation only
    # (which the head's facts decide, and which needs no base run), both run at once.
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
        return await _fail_early(console, workspace, dist_dir, build_root, env, gate, diff, run_id,
                                 engine_error=f"GRAPH_ERROR Pants could not evaluate the head: {_summary(e)}"
                                              f"{_judged_under_base_hint(diff, judge_commit)}")
    head = head_tree.facts
    head_ranks = dict(head_tree.option_ranks)
    try:
        documentation = C.documentation_only(diff.changes, head, effective_policy(gate, head).other_globs)
    except ValueError:
        documentation = False  # a bad option: said below, from the base's facts
    if base_request is not None and not documentation:
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
            return await _fail_early(console, workspace, dist_dir, build_root, env, gate, diff, run_id,
                                     engine_error=f"BASE_UNEVALUABLE {e}; {hint}")
        except BaseFactsError as e:
            return await _fail_early(console, workspace, dist_dir, build_root, env, gate, diff, run_id,
                                     infra_error=f"INFRA_ERROR base facts: {e}")
        base = built.facts
        console.print_stderr(f"oracle-gate: base facts for {diff.base_commit[:12]} "
                             f"{'reused' if built.reused else 'built'} in {seconds:.1f}s"
                             f"{' (' + built.source + ')' if built.reused else ''}")
    else:
        # An empty diff, or documentation only (nothing Pants evaluates changed): the head's facts
        # are the base's.
        base = head
        if documentation:
            console.print_stderr(f"oracle-gate: base facts for {diff.base_commit[:12]} not needed: every changed path "
                                 f"is documentation no target owns, and nothing Pants evaluates changed")
    try:
        policy = effective_policy(gate, base)
    except ValueError as e:
        console.print_stderr(f"oracle-gate: error: {e}")
        return OracleGate(exit_code=V.EXIT_POLICY)

    # Sources of the changed Python files, at base and head.
    changed_py = sorted({p for c in diff.changes for p in (c.path, c.old_path, c.copied_from) if p and (_is_py(p) or os.path.basename(p) in C.PYTEST_CONFIGS)})
    src = Sources(base_texts(diff, changed_py), await _head_texts(changed_py))
    stale = _stale(build_root.path, src.head) or _stale_ignores(build_root.path, diff, head)
    if stale:
        return await _fail_early(console, workspace, dist_dir, build_root, env, gate, diff, run_id,
                                 infra_error=f"INFRA_ERROR the engine has not seen the latest edit of {stale} "
                                             f"(pantsd's file watcher lagged behind the edit); run again")

    baseline = _baseline(base)
    mode = "diff" if diff.changes else "audit"
    audit = tuple(t.address.spec for t in specified) if mode == "audit" else ()
    comp = C.compare(base, head, _vetted_copies(diff.changes, src), policy, head_ranks,
                     baseline=baseline.regions_map() if isinstance(baseline, Baseline) else None,
                     adopted=tuple((r.address, r.path, r.kind) for r in baseline.regions) if isinstance(baseline, Baseline) else (),
                     marker_added=_marker_paths(base, diff.changes, src),
                     config_findings=_config_findings(diff.changes, src, base, head) + (
                         _judged_config_findings(diff, build_root.path) if judge_commit else []), audit=audit,
                     cosmetic=_cosmetic(diff.changes, src),
                     lock_changes=await _lock_changes(diff, base, head),
                     inert=frozenset(p for p in changed_py if _is_py(p) and holds_no_code(src.base.get(p))
                                     and holds_no_code(src.head.get(p))) | _empty_files(diff, build_root.path),
                     moved_code=_moved_code(diff, base, head, src))

    symbols = _changed_symbols(comp, src)
    findings = _static_findings(base, head, comp, src, policy, symbols, baseline,
                                await _production_sources(head, comp))
    ledgers, ledger_errors, new_rows = _ledgers(base, head, comp, policy, today)

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
    jail_findings, jail_errors = _jail_outcome(records, policy)
    runs_judged = oracle_runs(records, head, comp, src, run_id)
    gi = V.GateInput(
        mode=mode, comparison=comp, runs=runs_judged, symbols=symbols, ledgers=ledgers,
        new_ledger_rows=new_rows, ledger_errors=ledger_errors,
        baseline_skips=baseline.skips if isinstance(baseline, Baseline) else frozenset(),
        baseline_exercised=tuple(sorted(baseline.exercised_map().items())) if isinstance(baseline, Baseline) else (),
        min_examples=_min_examples(base, head, comp), locked_expected=_locked_expected(head),
        findings=(*findings, *jail_findings), infra_errors=jail_errors, min_rank_required=policy.min_rank_required,
        today=today, ran_oracles=ran, lane=policy.lane,
    )
    # The clean room (R2_cleanroom), then numbness (R3), each only when every rank below it held (the
    # ladder stops at the first failure). (Awaited here: Pants finds a rule's Gets in its body and
    # the helpers it awaits directly, not deeper.)
    verdict = V.evaluate(gi)
    if ran and verdict.stopped_at is None:
        checks = await _cleanroom(comp, symbols, verdict, runs_judged, src, batches, jail)
        gi = dataclasses.replace(gi, cleanroom=checks, cleanroom_ran=True)
        verdict = V.evaluate(gi)
    if ran and verdict.stopped_at is None and policy.mutants_per_symbol > 0 and policy.mutation_budget > 0:
        mutant_results, not_mutated = await _mutation(comp, symbols, verdict, runs_judged, src, batches, policy, head, jail)
        gi = dataclasses.replace(gi, mutants=mutant_results, not_mutated=not_mutated, mutation_ran=True)
        verdict = V.evaluate(gi)
    return await _render(console, workspace, dist_dir, build_root, env, policy, gi, verdict, diff, records, run_id)


def _static_findings(base: F.Facts, head: F.Facts, comp: C.Comparison, src: Sources, policy: Policy,
                     symbols: Sequence[V.ChangedSymbolEvidence], baseline: Union[Baseline, str, None],
                     production: Tuple[Mapping[str, str], Mapping[str, str]]) -> List[C.Finding]:
    """What the gate finds before anything runs, beyond the comparison: locked-file drift,
    test-aware code, tautologies, baseline drift, exclusions."""
    production_sources, module_of_path = production
    oracle_paths = sorted({p for t in base.targets if (t.is_test and base.oracle_class(t.address) in (
        V.OracleClass.PROPERTY, V.OracleClass.LOCKED)) or t.role in F.LOCK_ROLES for p in t.paths})
    # Production code this diff adds or changes, by dotted name: no oracle may take its expected
    # values from it.
    diff_code = frozenset(f"{module_of_path[s.path]}.{s.qualname}" for s in symbols
                          if s.change in ("added", "changed") and s.qualname != MODULE and s.path in module_of_path)
    findings: List[C.Finding] = [*_drift(head), *_test_aware(base, comp, src, oracle_paths),
                                 *_tautologies(comp, head, src, production_sources, policy, diff_code)]
    if isinstance(baseline, str):
        findings.append(C.Finding("BASELINE_DRIFT", baseline))
    findings += _excluded(head, comp, policy)
    for path, text in sorted(src.head.items()):
        encoding = declared_encoding(text) if _is_py(path) and text is not None else None
        if encoding is not None and encoding not in READABLE_ENCODINGS:
            findings.append(C.Finding("SOURCE_ENCODING", f"SOURCE_ENCODING {path} declares its source encoding as "
                                      f"{encoding}: the gate reads Python source as UTF-8 and could not judge what "
                                      f"it runs (save it as UTF-8 and drop the declaration)", path))
    return findings


def _jail_outcome(records: Sequence[TargetRecord], policy: Policy) -> Tuple[Tuple[C.Finding, ...], Tuple[str, ...]]:
    """One line when the test processes ran without the jail asked for; a failure when it was required."""
    unjailed = min((r.jail for r in records if r.jail), default="")
    if unjailed and policy.require_jail:
        return (), (f"INFRA_ERROR jail: {unjailed} (--oracle-gate-require-jail: no test may run unjailed)",)
    if unjailed:
        return (C.Finding("NOTE", f"NOTE the gate's test processes ran without a jail ({unjailed})"),), ()
    return (), ()


def _locked_expected(head: F.Facts) -> Tuple[Tuple[str, str], ...]:
    """What each locked file held when the sandboxes started (the head's bytes; a mismatch with its
    lock is FIXTURE_DRIFT): a different digest after a run means the code under test rewrote it."""
    return tuple(sorted((t.paths[0], head.text_map[f"sha256:{t.paths[0]}"]) for t in head.targets
                        if t.sha256 and t.paths and f"sha256:{t.paths[0]}" in head.text_map))


def _min_examples(base: F.Facts, head: F.Facts, comp: C.Comparison) -> Tuple[Tuple[str, int], ...]:
    """The example floor is the base's (lowering `min_examples` is an oracle change); a new property
    judges new code: it meets the strictest floor the base's properties set."""
    floors = tuple(sorted((a, t.min_examples or 0) for a, t in base.by_address.items()
                          if t.role == F.PROPERTY and a in head.by_address))
    standard = max((n for _, n in floors), default=0)
    return floors + tuple((a, max(standard, head.by_address[a].min_examples or 0)) for a, _ in comp.newcomers
                          if head.by_address[a].role == F.PROPERTY)


def written_by_diff(head: F.Facts, comp: C.Comparison) -> FrozenSet[str]:
    """Tests whose code the diff may have written: new and demoted tests and every draft. They never
    share a pytest process with a voter."""
    drafts = {t.address for t in head.targets if t.role == F.DRAFT}
    return frozenset({*comp.demoted, *comp.new_tests, *drafts})


def rules():
    return collect_rules()
