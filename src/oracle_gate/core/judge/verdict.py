"""The merge verdict: one predicate over the comparison (base vs head) and the recorded evidence.

Exit codes: 0 merge, 1 product failure, 2 policy failure, 3 empty vote, 4 infrastructure failure.
When several apply: a policy failure about the write-set, the oracles or the configuration wins
(the evidence is not trusted), then an infrastructure failure (the evidence is missing: floors and
empty votes it causes are not reported as such), then a product failure, then an empty vote, then
a floor or evidence miss.

The sandbox only records; everything judged from a record is judged here: failures, freezes,
skips, example counts, tampered fixtures, and which changed symbol an oracle actually executed.
"""
from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ..classes import REGION_KINDS, OracleClass, RegionKind, at_least, best_vote
from ..ladder.ledger import FreezeEntry, Ledger, matching_entry
from ..lanes.compare import Comparison, Finding, RegionPlan
from ..protocol.cleanroom import clipped
from ..protocol.signature import normalize_name
from ..source.symbols import enclosing

EXIT_MERGE = 0
EXIT_PRODUCT = 1
EXIT_POLICY = 2
EXIT_EMPTY_VOTE = 3
EXIT_INFRA = 4
VERDICTS = {0: "merge", 1: "product_failure", 2: "policy_failure", 3: "empty_vote", 4: "infra_error"}

RANKS = ("R1_lock", "R1_replay", "R2_properties", "R2_cleanroom", "R3_probes", "R3_numbness", "R4_freeze")
# pass: ran and checked at least one thing; nothing_to_check: ran, and had nothing to check.
RANK_STATUSES = ("pass", "fail", "not_run", "nothing_to_check")

PASSED = "passed"
FAILED_OUTCOMES = frozenset({"failed", "error"})
SKIP_OUTCOMES = frozenset({"skipped", "xfailed", "xpassed", "deselected"})


class Severity(enum.Enum):
    POLICY = "policy"
    INFRA = "infra"
    PRODUCT = "product"
    EMPTY_VOTE = "empty_vote"
    FLOOR = "floor"
    INFO = "info"


@dataclass(frozen=True)
class Reason:
    code: str
    severity: Severity
    line: str
    path: Optional[str] = None  # the file it points at, for annotations
    lineno: Optional[int] = None


@dataclass(frozen=True)
class Case:
    """One test as the recorder saw it."""

    nodeid: str
    outcome: str  # passed failed error skipped xfailed xpassed deselected
    signature: Optional[str] = None
    exception: Optional[str] = None
    marker: Optional[str] = None  # what caused a skip/xfail (skipif, importorskip, ...)
    reason: str = ""
    examples: Optional[int] = None
    exhausted: Optional[bool] = None
    detail: str = ""


@dataclass(frozen=True)
class OracleRun:
    """What one test target's sandboxed run left behind (a mutant run has `mutant` set)."""

    address: str
    path: str
    exit_code: Optional[int]
    complete: bool
    cases: Tuple[Case, ...] = ()
    executed: FrozenSet[Tuple[str, str]] = frozenset()  # (production path, qualname)
    fixtures_after: Tuple[Tuple[str, str], ...] = ()  # (path, sha256 after the session)
    problem: str = ""  # why the record is incomplete (interrupted, collection error, ...)
    recorder_errors: Tuple[str, ...] = ()
    infra_error: str = ""  # the run never happened (resolve, download, sandbox)
    output_tail: str = ""
    source: str = "ran"
    kind: str = "oracle"  # oracle | replay | probes | draft


@dataclass(frozen=True)
class ChangedSymbolEvidence:
    """A changed symbol of a changed region: what must be executed for it to count as judged."""

    path: str
    qualname: str
    kind: str  # function | method | class | module
    change: str  # added | changed | deleted
    needs: str  # the qualname an oracle must have executed (`<module>` for module-level and deletions)
    # An added symbol new oracles may judge: no existing code of the diff uses it, and the diff
    # deletes no symbol (a move or rename is a deletion and an addition: the base's judges keep it).
    newly_judgeable: bool = True
    renamed_from: str = ""  # an added symbol that is a deleted one renamed, code unchanged


@dataclass(frozen=True)
class CleanroomCheck:
    """A changed function of a P-floor region, its voter's calls replayed in clean interpreters
    (core/protocol/cleanroom.py): how many were replayed, and every (input, variant, under test, clean) that differs."""

    path: str
    symbol: str
    address: str  # the voter whose calls were replayed
    replayed: int
    differences: Tuple[Tuple[str, str, str, str], ...] = ()
    why_not: str = ""  # why no call was replayed (when none was)
    kind: str = "pure"  # the region's kind
    compared: int = 0  # calls (as recorded or widened) run by the head's code and the base's alike
    not_compared: str = ""  # why none was, where the base's code was to judge it
    lost: str = ""  # why a twin or a clean variant left calls unrun that it was to run (cleanroom.LOST), where one did


# What each clean variant changed, as the reason line says it.
VARIANT_TEXT = {
    "clean": "in a clean interpreter (no pytest, another working directory and environment)",
    "clock+1d": "with the clock 1 day ahead", "clock+400d": "with the clock 400 days ahead",
    "clock+10y": "with the clock 10 years ahead", "clock+30y": "with the clock 30 years ahead (past 2038-01-19)",
    "thread": "called from a thread other than the one that imported its module",
    "locale": "under a locale whose preferred encoding is ASCII (LC_ALL=C, no UTF-8 mode)",
    "again": "when called again in one process after its first result was mutated (a shared result)",
    "hash-seed": "on this widened input in a twin interpreter with another PYTHONHASHSEED",
}

MUTANT_JUDGED = ("killed", "survived")  # the statuses that say what the oracles made of a mutant
# Among a killed mutant's oracles: no voter noticed it, and the base's code told it apart on the
# voters' calls and their widenings, where the head's code does what the base's did (a refactor's
# line is judged by the code it replaces).
BASE_JUDGE = "the base's code"


@dataclass(frozen=True)
class MutantResult:
    path: str
    symbol: str
    mutant_id: str
    description: str
    status: str  # killed | survived | not_run | error (a session left no results: neither)
    oracles: Tuple[str, ...] = ()
    coarse: bool = False  # a dropped statement or `return None` (see mutants.Mutant.coarse)
    line: int = 0  # the changed line it tests (0: not known)
    unit: str = ""  # the statement on that line it tests ("line:column"), where several share the line


def mutant_unit(m: MutantResult) -> Tuple[str, int, str, str]:
    """What a mutant judges: its changed line (its symbol where the line is not known) and, where
    several statements share the line, its statement. `_numbness` judges each unit on its own."""
    return m.path, m.line, "" if m.line else m.symbol, m.unit


def unit_settled(done: Sequence[MutantResult], planned: Sequence[MutantResult]) -> bool:
    """Whether no outcome of a unit's mutants not yet run could make it NUMB (`_numbness`): one of
    `done` was killed that is a value mutant, or is crash-like where `planned` (all of the unit's
    mutants) holds no value mutant."""
    killed = [m for m in done if m.status == "killed"]
    return any(not m.coarse for m in killed) or (bool(killed) and all(m.coarse for m in planned))


@dataclass(frozen=True)
class GateInput:
    mode: str  # diff | audit
    comparison: Comparison
    runs: Tuple[OracleRun, ...] = ()
    symbols: Tuple[ChangedSymbolEvidence, ...] = ()
    ledgers: Tuple[Ledger, ...] = ()  # the ledgers that judge this run (base's; head's in the human lane)
    new_ledger_rows: Tuple[FreezeEntry, ...] = ()  # rows the diff adds: each must be observed failing
    ledger_errors: Tuple[str, ...] = ()  # LEDGER_INVALID / FREEZE_EXPIRED / FREEZE_CAP lines
    baseline_skips: FrozenSet[str] = frozenset()  # skip signatures that are the base's contract
    # path -> symbols the baseline's voters executed when it was written (version-2 baselines): a
    # changed symbol of such a path that nobody exercised then is UNJUDGED, not UNEXERCISED.
    baseline_exercised: Tuple[Tuple[str, FrozenSet[str]], ...] = ()
    min_examples: Tuple[Tuple[str, int], ...] = ()  # property address -> floor (from the base)
    locked_expected: Tuple[Tuple[str, str], ...] = ()  # locked path -> sha256 it must have
    findings: Tuple[Finding, ...] = ()  # static findings beyond the comparison's (drift, test-aware...)
    engine_errors: Tuple[str, ...] = ()
    infra_errors: Tuple[str, ...] = ()
    mutants: Tuple[MutantResult, ...] = ()
    mutation_ran: bool = False
    # (path, line, symbol): changed lines that had a mutant to make and the budget never reached.
    not_mutated: Tuple[Tuple[str, int, str], ...] = ()
    lane: str = "agent"  # agent: every judged line must have been mutated; human: reported only
    min_rank_required: str = "R2_properties"
    cleanroom: Tuple[CleanroomCheck, ...] = ()
    cleanroom_ran: bool = False
    today: datetime.date = field(default_factory=datetime.date.today)
    ran_oracles: bool = True  # False when a static policy failure stopped the run


@dataclass(frozen=True)
class RegionVerdict:
    region: RegionPlan
    need: Optional[OracleClass]
    have: Optional[OracleClass]
    voters: Tuple[str, ...]
    symbols: Tuple[Tuple[str, Tuple[str, ...]], ...]  # changed symbol -> voters at need that executed it


@dataclass(frozen=True)
class OracleVerdict:
    address: str
    cls: Optional[OracleClass]
    role: str  # voter | demoted | new | draft | excluded | changed
    outcome: str  # pass | fail | no_vote | not_run
    voted: bool


@dataclass(frozen=True)
class Verdict:
    exit_code: int
    reasons: Tuple[Reason, ...]
    regions: Tuple[RegionVerdict, ...]
    oracles: Tuple[OracleVerdict, ...]
    ranks: Tuple[Tuple[str, str, int], ...]  # (rank, one of RANK_STATUSES, checked)
    stopped_at: Optional[str]
    voters: Tuple[str, ...]
    newcomers: Tuple[str, ...] = ()  # new oracles that passed (P/L; E too in the human lane): judges of code new in this diff

    @property
    def merge(self) -> bool:
        return self.exit_code == EXIT_MERGE

    @property
    def name(self) -> str:
        return VERDICTS[self.exit_code]


# -- judging one run ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunJudgement:
    passed: bool  # may vote: complete, no failure, at least one pass
    reasons: Tuple[Reason, ...]
    frozen: Tuple[str, ...]


def judge_run(
    run: OracleRun,
    ledgers: Sequence[Ledger],
    today: datetime.date,
    baseline_skips: FrozenSet[str],
    min_examples: int,
    locked_expected: Mapping[str, str],
    voting: bool,
) -> RunJudgement:
    """Apply the policy to one recorded run. A non-voting run (demoted, draft, new) only ever
    produces diagnostics."""
    policy: List[Reason] = []
    product: List[Reason] = []
    frozen: List[str] = []
    tail = f": {run.output_tail}" if run.output_tail else ""
    if run.infra_error:
        return RunJudgement(False, (Reason("INFRA_ERROR", Severity.INFRA, f"INFRA_ERROR {run.address}: {run.infra_error}"),), ())
    if run.recorder_errors:
        policy.append(Reason("RECORDER_ERROR", Severity.INFRA,
                             f"RECORDER_ERROR {run.address}: {run.recorder_errors[0]}"))
    if not run.complete:
        product.append(Reason("NO_RESULTS", Severity.PRODUCT,
                              f"NO_RESULTS {run.address} exit={run.exit_code}: "
                              f"{run.problem or 'the sandbox left no complete results file'}{tail}", run.path))
    for path, actual in run.fixtures_after:
        expected = locked_expected.get(path)
        if expected is not None and actual != expected:
            policy.append(Reason("FIXTURE_TAMPERED", Severity.POLICY,
                                 f"FIXTURE_TAMPERED {path} expected={expected[:12]} actual={actual[:12]} "
                                 f"after {run.address} ran: the code under test rewrote a locked fixture", path))
    failed_any = False
    passed_any = False
    for case in run.cases:
        if case.outcome == PASSED:
            if _listed_test(ledgers, case, today) is not None:
                frozen.append(case.nodeid)  # a test named in a ledger never counts as a pass
            else:
                passed_any = True
            examples_floor = min_examples
            if examples_floor and case.examples is not None and case.examples < examples_floor and not case.exhausted:
                policy.append(Reason("MIN_EXAMPLES", Severity.POLICY,
                                     f"MIN_EXAMPLES {case.nodeid} ran {case.examples} example(s), "
                                     f"min_examples={examples_floor} (the search space was not exhausted)", run.path))
            continue
        if case.outcome in FAILED_OUTCOMES:
            entry = matching_entry(ledgers, case.signature, case.nodeid, case.exception)
            if entry is not None and not entry.expired(today):
                frozen.append(case.nodeid)
                continue
            failed_any = True
            if entry is not None:
                policy.append(Reason("FREEZE_EXPIRED", Severity.POLICY,
                                     f"FREEZE_EXPIRED {case.nodeid} signature={case.signature} expired "
                                     f"{entry.expires} owner={entry.owner}", run.path))
            detail = f" {case.detail}" if case.detail else ""
            if run.kind == "probes":
                probe = case.nodeid.rsplit("::", 1)[-1]
                product.append(Reason("PROBE_NUMB", Severity.PRODUCT,
                                      f"PROBE_NUMB {probe} ({run.address}): the input it must reject was "
                                      f"accepted{detail}".rstrip(), run.path))
                continue
            product.append(Reason("FAIL", Severity.PRODUCT,
                                  f"FAIL {run.address} {case.nodeid} {case.exception or case.outcome} "
                                  f"signature={case.signature}{detail}".rstrip(), run.path))
            continue
        if case.outcome in SKIP_OUTCOMES:
            entry = matching_entry(ledgers, case.signature, case.nodeid, case.exception)
            if entry is not None and not entry.expired(today):
                frozen.append(case.nodeid)
                continue
            if case.signature and case.signature in baseline_skips:
                continue
            policy.append(Reason("UNLISTED_SKIP", Severity.POLICY,
                                 f"UNLISTED_SKIP {case.nodeid} {case.outcome} by {case.marker or 'unknown'}"
                                 f"{': ' + case.reason if case.reason else ''} signature={case.signature} "
                                 f"(in no freeze ledger and not in the baseline)", run.path))
    if run.complete and run.exit_code not in (0, None) and not failed_any and not policy and not frozen:
        product.append(Reason("ORACLE_ERROR", Severity.PRODUCT,
                              f"ORACLE_ERROR {run.address} exit={run.exit_code} with no failing test recorded{tail}",
                              run.path))
    passed = (run.complete and not run.recorder_errors and not failed_any and passed_any and not policy
              and not any(r.code == "NO_RESULTS" for r in product))
    if not voting:
        if not passed:
            what = "; ".join(r.line for r in (policy + product)[:2]) or "did not pass"
            return RunJudgement(False, (Reason("DIAGNOSTIC", Severity.INFO,
                                               f"DIAGNOSTIC {run.address} (does not vote) {what}"),), tuple(frozen))
        return RunJudgement(True, (), tuple(frozen))
    return RunJudgement(passed, tuple(policy + product), tuple(frozen))


def _listed_test(ledgers: Sequence[Ledger], case: Case, today: datetime.date) -> Optional[FreezeEntry]:
    """A test named in an unexpired ledger row never votes, even on a run where its flake stayed away."""
    name = normalize_name(case.nodeid)
    for ledger in ledgers:
        for entry in ledger.entries:
            if entry.test == name and not entry.expired(today):
                return entry
    return None


# -- the whole verdict ----------------------------------------------------------------------------------

def evaluate(gi: GateInput) -> Verdict:
    """The verdict, phase by phase: static findings, each run judged once, the regions' floors and
    evidence, mutation numbness, the freeze rules, the empty vote, then the ladder's ranks."""
    comp = gi.comparison
    class_of = comp.judge_classes
    votes = _votes(gi)
    region_reasons, region_verdicts = _region_verdicts(gi, votes)
    reasons: List[Reason] = [*_static_reasons(gi), *votes.reasons, *region_reasons, *_numbness(gi, votes.newcomers),
                             *_freeze_rules(gi, votes.judged), *_cleanroom(gi)]
    production_changed = comp.production_changed
    if production_changed and gi.ran_oracles and not votes.voters and not any(r.cases for r in gi.runs):
        changed = [r for r in comp.regions if r.status != "audited"]
        # Every changed region was grandfathered with no voter (UNJUDGED): nothing could have voted,
        # and the human lane is a person's review of exactly that; the agent lane still fails closed.
        reviewed = gi.lane == "human" and bool(changed) and all(
            not r.required or _new_below_floor(r) for r in changed)
        reasons.append(Reason("EMPTY_VOTE", Severity.INFO if reviewed else Severity.EMPTY_VOTE,
                              f"EMPTY_VOTE {len(changed)} production target(s) changed and no oracle test executed"
                              + ("; every one had no voter at its baseline (UNJUDGED) or is a new module held to the "
                                 "standard beside it: reviewed in the human lane" if reviewed else "")))

    reasons = list({r.line: r for r in reasons}.values())
    if any(r.severity is Severity.INFRA for r in reasons) or not gi.ran_oracles:
        # Missing evidence is not a floor miss: say what broke (or that a policy failure stopped
        # the run), not what it caused.
        reasons = [r for r in reasons if r.code not in ("FLOOR", "UNEXERCISED", "EMPTY_VOTE")]
    if not gi.ran_oracles and comp.regions:
        reasons.append(Reason("NOT_RUN", Severity.INFO,
                              "NOT_RUN no oracle ran: the verdict was already a policy failure "
                              "(--oracle-gate-run-all runs them anyway)"))
    ranks, stopped = _ranks(gi, reasons, votes.judged, class_of)
    required_idx = RANKS.index(gi.min_rank_required) if gi.min_rank_required in RANKS else 2
    for name, status, _ in ranks[: required_idx + 1]:
        if status == "not_run" and stopped is None and gi.ran_oracles:
            reasons.append(Reason("RANK_NOT_RUN", Severity.POLICY,
                                  f"RANK_NOT_RUN {name}: min_rank_required={gi.min_rank_required} and this rank did not run"))
    name, status, _ = ranks[required_idx]
    needed_by = rank_needed_by(name, region_verdicts)
    if status == "nothing_to_check" and needed_by is not None and stopped is None and gi.ran_oracles:
        reasons.append(Reason("RANK_UNCHECKED", Severity.POLICY,
                              f"RANK_UNCHECKED {name}: min_rank_required={gi.min_rank_required} and this rank checked "
                              f"nothing, while {needed_by[0]} ({needed_by[1]}) needs it", needed_by[0]))
    oracle_verdicts = _oracle_verdicts(gi, votes.judged, class_of, set(votes.voters) | set(votes.newcomers))
    return Verdict(
        exit_code=_exit_code(reasons),
        reasons=tuple(_ordered(reasons)),
        regions=tuple(region_verdicts),
        oracles=oracle_verdicts,
        ranks=ranks,
        stopped_at=stopped,
        voters=votes.voters,
        newcomers=votes.newcomers,
    )


def _static_reasons(gi: GateInput) -> Tuple[Reason, ...]:
    """What the comparison and the static checks found, before anything ran."""
    comp = gi.comparison
    reasons: List[Reason] = []
    for f in (*comp.findings, *gi.findings):
        if f.code == "CONFIG_CHANGE" and gi.lane == "human" and not comp.production_changed:
            # A reviewed configuration change landing on its own: nothing it could weaken is judged
            # by it in this diff (with production it stays a policy failure, like a write-set).
            reasons.append(Reason(f.code, Severity.INFO, f"{f.line} (reviewed in the human lane, landing alone)",
                                  f.path, f.lineno))
            continue
        if f.reviewed and gi.lane == "human":
            reasons.append(Reason(f.code, Severity.INFO, f"{f.line} (reviewed in the human lane)", f.path, f.lineno))
            continue
        reasons.append(Reason(f.code, _static_severity(f.code), f.line, f.path, f.lineno))
    reasons += [Reason(line.split(" ", 1)[0], Severity.POLICY, line) for line in gi.ledger_errors]
    # Graph errors name their code first: GRAPH_ERROR (the head) or BASE_UNEVALUABLE (the base).
    reasons += [Reason(line.split(" ", 1)[0], Severity.POLICY, line) for line in gi.engine_errors]
    reasons += [Reason("INFRA_ERROR", Severity.INFRA, line) for line in gi.infra_errors]
    return tuple(reasons)


@dataclass(frozen=True)
class _Votes:
    """Each run judged once; who votes on this diff, and who judges only new code."""

    judged: Mapping[str, RunJudgement]
    voters: Tuple[str, ...]
    newcomers: Tuple[str, ...]  # new oracles that passed (P/L; E too in the human lane): they judge added regions and symbols only
    reasons: Tuple[Reason, ...]


def _votes(gi: GateInput) -> _Votes:
    comp = gi.comparison
    classes = comp.class_of
    demoted = set(comp.demoted)
    new = set(comp.new_tests)
    min_examples = dict(gi.min_examples)
    locked_expected = dict(gi.locked_expected)
    reasons: List[Reason] = []
    # Each run judged once; only oracles that may vote on this diff can vote.
    judged: Dict[str, RunJudgement] = {}
    fresh = comp.newcomer_classes
    for run in sorted(gi.runs, key=lambda r: r.address):
        voting = (run.address in classes and run.address not in demoted and run.address not in new) or run.address in fresh
        j = judge_run(run, gi.ledgers, gi.today, gi.baseline_skips, min_examples.get(run.address, 0),
                      locked_expected, voting or run.kind in ("replay", "probes"))
        judged[run.address] = j
        reasons.extend(j.reasons)
    voters = sorted(a for a, j in judged.items() if j.passed and a in classes and a not in demoted and a not in new)
    voter_set = set(voters)
    # New code, new judges: a new P/L oracle that passed judges added regions and added symbols only.
    newcomers = sorted(a for a in fresh if a in judged and judged[a].passed and a not in voter_set)
    return _Votes(judged, tuple(voters), tuple(newcomers), tuple(reasons))


def _region_verdicts(gi: GateInput, votes: _Votes) -> Tuple[Tuple[Reason, ...], Tuple[RegionVerdict, ...]]:
    """Each region: its floor (or baseline class) against the best class that voted, and every
    changed symbol against the voters that executed it."""
    comp = gi.comparison
    class_of = comp.judge_classes
    demoted = set(comp.demoted)
    runs = {r.address: r for r in gi.runs}
    voters, newcomers = votes.voters, votes.newcomers
    voter_set = set(voters)
    reasons: List[Reason] = []
    # (a function whose nested function ran while a test ran, a decorator's wrapper, counts as run:
    # its code made what ran, and what the test saw of it came through that)
    executed: Dict[str, Set[Tuple[str, str]]] = {
        a: set(runs[a].executed) | {(path, enclosing(q)) for path, q in runs[a].executed}
        for a in (*voters, *newcomers)}
    symbols_by_path: Dict[str, List[ChangedSymbolEvidence]] = {}
    for s in gi.symbols:
        symbols_by_path.setdefault(s.path, []).append(s)

    grandfathered = dict(gi.baseline_exercised)
    region_verdicts: List[RegionVerdict] = []
    for region in sorted(comp.regions, key=lambda r: r.address):
        need = OracleClass(region.required) if region.required else None
        candidates = region.candidates
        if region.status == "deleted":
            candidates = tuple(a for a in voters if a in runs and runs[a].path in region.base_oracles)
        new_region = region.status == "added" and all(s.newly_judgeable for s in symbols_by_path.get(region.path, []))
        judges = voter_set | set(newcomers) if new_region else voter_set
        region_voters = tuple(a for a in candidates if a in judges)
        have = best_vote(class_of[a] for a in region_voters)
        sym_results: List[Tuple[str, Tuple[str, ...]]] = []
        if region.kind is None and region.head_kind is None and region.status != "deleted":
            reasons.append(Reason("UNMAPPED", Severity.POLICY,
                                  f"UNMAPPED {region.path} owner={region.address} has no oracle_region "
                                  f"(set one in its BUILD file, or for a tree with __defaults__; "
                                  f"`pants oracle-regions` suggests them)", region.path))
        elif need is None and region.status in ("changed", "added", "dependency"):
            reasons.append(Reason("UNJUDGED", Severity.INFO,
                                  f"UNJUDGED {region.path}: its baseline had no voting oracle, so nothing judged "
                                  f"this change{' to what it depends on' if region.status == 'dependency' else ''} "
                                  f"(an oracle for it ratchets it up)", region.path))
        elif need is not None and not at_least(have, need) and region.status == "dependency" \
                and gi.lane == "human" and not at_least(OracleClass(region.base_best) if region.base_best else None, need):
            # Re-judged only because an input it reads changed, and no voter at the class it needs
            # reached it at the base either: the gap is older than this diff (reported, a reviewer's call).
            reasons.append(Reason("UNJUDGED", Severity.INFO,
                                  f"UNJUDGED {region.path}: {region.trigger} changed what it reads, and no test of "
                                  f"class {need.value} reached it at the base either (have "
                                  f"{region.base_best or 'none'}); reviewed in the human lane", region.path))
        elif need is not None and have is None and gi.lane == "human" and _new_below_floor(region):
            # A new module held to the standard beside it (below its floor) that no test reaches:
            # nothing is lost, and untested code beside tested code is a reviewer's call there.
            reasons.append(Reason("UNJUDGED", Severity.INFO,
                                  f"UNJUDGED {region.path}: no voting test reached this new module at head, and it is "
                                  f"held to the standard beside it (class {need.value}, below its floor); reviewed "
                                  f"in the human lane (an oracle for it ratchets it up)", region.path))
        elif need is not None and not at_least(have, need):
            reasons.append(Reason("FLOOR", Severity.FLOOR,
                                  f"FLOOR {region.address} kind={region.kind} need={need.value} "
                                  f"have={have.value if have else 'none'}{_floor_why(region, demoted)}", region.path))
        elif need is not None:
            strong = [a for a in region_voters if at_least(class_of[a], need)]
            new_judges = [a for a in candidates if a in newcomers and at_least(class_of[a], need) and a not in strong]
            for sym in symbols_by_path.get(region.path, []):
                judges_of = strong + new_judges if sym.change == "added" and sym.newly_judgeable else strong
                ran = tuple(a for a in judges_of if (region.path, sym.needs) in executed[a])
                sym_results.append((sym.qualname, ran))
                then = grandfathered.get(region.before_path or region.path)
                # A function nested in another is part of its body: it is grandfathered with it.
                outer = enclosing(sym.needs)
                # A renamed symbol (same code, another name) is judged as the one it was.
                was = sym.renamed_from or (sym.needs if sym.change != "added" else "")
                if not ran and then is not None and (
                        (was and was not in then) or (outer != sym.needs and outer not in then)):
                    reasons.append(Reason(
                        "UNJUDGED", Severity.INFO,
                        f"UNJUDGED {region.path}:{sym.qualname}: no voter executed it when the baseline was "
                        f"written, so nothing judged this change (an oracle that runs it ratchets it up)",
                        region.path))
                elif not ran and gi.lane == "human" and _held_below_floor(region):
                    # A region judged only at its baseline (adoption lowered it below its floor):
                    # code no test runs is a reviewer's call in the human lane, said, not blocked.
                    reasons.append(Reason(
                        "UNJUDGED", Severity.INFO,
                        f"UNJUDGED {region.path}:{sym.qualname}: no test executed this {sym.change} code and its "
                        f"region is judged at its baseline (class {need.value}); reviewed in the human lane "
                        f"(an oracle that runs it ratchets it up)", region.path))
                elif not ran:
                    reasons.append(Reason(
                        "UNEXERCISED", Severity.FLOOR,
                        f"UNEXERCISED {region.path}:{sym.qualname} kind={sym.kind} need={need.value} "
                        f"ran={','.join(judges_of) or 'none'} (no voting oracle at the floor executed it)",
                        region.path))
        region_verdicts.append(RegionVerdict(region, need, have, region_voters, tuple(sym_results)))

    return tuple(reasons), tuple(region_verdicts)


def _numbness(gi: GateInput, newcomers: Sequence[str]) -> Tuple[Reason, ...]:
    """Mutation numbness: a changed line whose every mutant survived its voters."""
    reasons: List[Reason] = []
    newcomer_set = set(newcomers)
    by_symbol: Dict[Tuple[str, str], List[MutantResult]] = {}
    for m in gi.mutants:
        by_symbol.setdefault((m.path, m.symbol), []).append(m)
    for m in gi.mutants:
        if m.status == "error":
            reasons.append(Reason("INFRA_ERROR", Severity.INFRA,
                                  f"INFRA_ERROR mutant {m.mutant_id} of {m.path}:{m.symbol} ({m.description}): the "
                                  f"test session left no results, so it is neither killed nor survived", m.path))
    # Every changed line is judged on its own: one killed mutant elsewhere in the symbol clears
    # nothing (a new branch for inputs the properties never draw is numb by itself).
    # (A mutant without a line, from an older caller, is judged with its symbol's.) A statement
    # packed beside another on one line (`a; b`, `if x: return y`) is judged on its own.
    by_line: Dict[Tuple[str, int, str, str], List[MutantResult]] = {}
    for m in gi.mutants:
        by_line.setdefault(mutant_unit(m), []).append(m)
    units_on: Dict[Tuple[str, int], int] = {}
    for path, line, _, _ in by_line:
        units_on[(path, line)] = units_on.get((path, line), 0) + 1
    # A line's values are judged when one of its value mutants dies: a killed crash-like mutant
    # (a dropped statement, `return None`) shows only that the line runs, so where value mutants
    # ran, they decide (a weak "smoke" oracle that checks types clears no line, however it landed).
    numb_symbols = set()
    for (path, line, symbol, unit), ms in sorted(by_line.items()):
        ran = [m for m in ms if m.status in MUTANT_JUDGED]
        judged = [m for m in ran if not m.coarse] or ran
        survived = [m for m in judged if m.status == "survived"]
        if judged and len(survived) == len(judged):
            where = f"{path}:{line}" if line else f"{path}:{symbol}"
            column = int(unit.split(":")[1]) if unit else 0
            if column < 0:  # no statement of the head's: code the diff removed, put back before this line
                where += " (code the diff removed before it)"
            elif unit.endswith(":operand"):
                where += f" (the condition the diff added at column {column + 1})"
            elif unit.endswith(":branch"):
                where += f" (the branch of a conditional expression at column {column + 1})"
            elif unit.endswith(":floor_division"):
                where += f" (the integer taken from a true division at column {column + 1})"
            elif unit.endswith(":term"):
                where += f" (the term the diff added at column {column + 1})"
            elif unit.endswith(":copy"):
                where += f" (the copy the diff removed at column {column + 1})"
            elif unit.endswith((":held_true", ":held_false")):
                held = unit.endswith(":held_true")
                where += f" (the truth value the diff wrote at column {column + 1}, held {held})"
            elif unit and units_on[(path, line)] > 1:
                where += f" (the statement at column {column + 1})"
            numb_symbols.update((path, m.symbol) for m in ran)
            noticed = ("its voters noticed only a crash-like mutant, no value mutant"
                       if any(m.status == "killed" for m in ran) else "no voting oracle noticed")
            reasons.append(Reason("NUMB", Severity.PRODUCT,
                                  f"NUMB {where} survived={len(survived)}/{len(judged)} in {ran[0].symbol} "
                                  f"({noticed}: {survived[0].description})", path, line or None))
    for m in gi.mutants:
        if m.status == "killed" and BASE_JUDGE in m.oracles:
            reasons.append(Reason(
                "BASE_JUDGED", Severity.INFO,
                f"BASE_JUDGED {m.path}:{m.line or m.symbol} in {m.symbol}: no voter noticed {m.description}, and the "
                f"base's code told it apart on the voters' calls and their widenings, where the head's does what the "
                f"base's did: the line keeps the base's behaviour there (an oracle that draws such inputs judges it "
                f"itself)", m.path, m.line or None))
    for path, line, symbol in gi.not_mutated:
        reasons.append(Reason(
            "NOT_MUTATED", Severity.POLICY if gi.lane == "agent" else Severity.INFO,
            f"NOT_MUTATED {path}:{line} in {symbol}: the mutation budget was spent before this changed line got "
            f"a mutant, so nothing showed it is judged (a smaller diff, a larger mutation_budget, or the human lane)",
            path, line))
    for (path, symbol), ms in sorted(by_symbol.items()):
        ran = [m for m in ms if m.status in MUTANT_JUDGED]
        if (path, symbol) in numb_symbols:
            continue
        # Code judged only by oracles new in this diff (written with it) must show its values are
        # judged: a kill of a crash-like mutant alone is no evidence.
        fine = [m for m in ran if not m.coarse]
        fine_survived = [m for m in fine if m.status == "survived"]
        only_new = bool(newcomer_set) and all(m.oracles and set(m.oracles) <= newcomer_set for m in ran)
        if only_new and fine and 2 * len(fine_survived) >= len(fine):
            reasons.append(Reason("NUMB", Severity.PRODUCT,
                                  f"NUMB {path}:{symbol} survived={len(fine_survived)}/{len(fine)} value mutant(s) "
                                  f"(code only its new oracles judge needs most of its value mutants killed: "
                                  f"e.g. {fine_survived[0].description})", path))

    return tuple(reasons)


BASE_VARIANT = "base"  # core/protocol/cleanroom.BASE: the base's code beside the head's


def apart(one: str, other: str, width: int) -> Tuple[str, str]:
    """Two long outcomes shown where they part: each at most `width` characters (and an ellipsis)
    from a little before the first character they differ in."""
    common = next((i for i, (a, b) in enumerate(zip(one, other)) if a != b), min(len(one), len(other)))
    start = max(0, min(common - 24, max(len(one), len(other)) - width)) if common > width // 2 else 0
    return tuple(("..." if start else "") + t[start:start + width] for t in (one, other))  # type: ignore[return-value]


def _cleanroom(gi: GateInput) -> Tuple[Reason, ...]:
    """A pure function does what it did under the test whatever the interpreter, directory,
    environment and clock, and twice in a row: any difference is IMPURE. And a changed function
    does what the base's did on every input its voters drew and every widening of those, unless a
    voter failed: any difference is a change no oracle judged, UNJUDGED_CHANGE."""
    reasons: List[Reason] = []
    for c in gi.cleanroom:
        impure = [d for d in c.differences if d[1] != BASE_VARIANT]
        changed = [d for d in c.differences if d[1] == BASE_VARIANT]
        if impure:
            shown, variant, expected, got = impure[0]
            n = len({d[0] for d in impure})
            expected, got = apart(expected, got, 160)
            reasons.append(Reason(
                "IMPURE", Severity.PRODUCT,
                f"IMPURE {c.path}:{c.symbol} {VARIANT_TEXT.get(variant, variant)}: {shown} gave {expected} under "
                f"the test and {got} there ({n} of {c.replayed - c.compared} replayed call(s) of {c.address} "
                f"differ); a {c.kind} region's result depends on its arguments only", c.path))
        if changed:
            shown, _, head, base = changed[0]
            head, base = apart(head, base, 120)
            reasons.append(Reason(
                "UNJUDGED_CHANGE", Severity.PRODUCT if gi.lane == "agent" else Severity.INFO,
                f"UNJUDGED_CHANGE {c.path}:{c.symbol} {clipped(shown, 160)} gives {head} at the head and {base} "
                f"at the base ({len(changed)} of {c.compared} call(s) compared differ: {c.address}'s calls and their "
                f"widenings), and no voting oracle failed: the diff changes what it does where no oracle looks; land "
                f"an oracle that draws such inputs first, or take the change through the human lane", c.path))
        if impure or changed:
            continue
        if c.lost:
            reasons.append(Reason(
                "TWIN_LOST", Severity.POLICY if gi.lane == "agent" else Severity.INFO,
                f"TWIN_LOST {c.path}:{c.symbol}: some of {c.address}'s calls were left unrun in the clean room "
                f"({c.lost[:200]}), so nothing compared them; in the agent lane nothing merges unjudged (a smaller or "
                f"faster change, or the human lane)", c.path))
            continue
        if c.not_compared and (c.replayed or c.kind not in ("pure", "schema")):  # else NOT_REPLAYED says it
            reasons.append(Reason(
                "NOT_COMPARED", Severity.INFO,
                f"NOT_COMPARED {c.path}:{c.symbol}: no call of {c.address}'s was run in the base's code beside the "
                f"head's ({c.not_compared[:200]}), so nothing showed the diff keeps what it did", c.path))
        if not c.replayed and c.kind in ("pure", "schema"):
            reasons.append(Reason(
                "NOT_REPLAYED", Severity.POLICY if gi.lane == "agent" else Severity.INFO,
                f"NOT_REPLAYED {c.path}:{c.symbol}: no call {c.address} made could be replayed in a clean interpreter "
                f"({c.why_not}), so nothing showed its result depends on its arguments only"
                f"{'' if gi.lane == 'agent' else '; reviewed in the human lane'}", c.path))
    return tuple(reasons)


def _freeze_rules(gi: GateInput, judged: Mapping[str, RunJudgement]) -> Tuple[Reason, ...]:
    comp = gi.comparison
    """Freezes the diff adds must each be observed failing in this very run."""
    reasons: List[Reason] = []
    observed = {(c.signature, normalize_name(c.nodeid), c.exception)
                for r in gi.runs for c in r.cases if c.outcome in FAILED_OUTCOMES | SKIP_OUTCOMES}
    for row in gi.new_ledger_rows:
        if (row.signature, row.test, row.exception) not in observed:
            reasons.append(Reason("FREEZE_UNOBSERVED", Severity.POLICY,
                                  f"FREEZE_UNOBSERVED signature={row.signature} test={row.test} exception={row.exception}: "
                                  f"no governed test failed that way in this run; a freeze is for an observed failure"))
    if gi.new_ledger_rows and comp.production_changed:
        reasons.append(Reason("FREEZE_WITH_PRODUCTION", Severity.POLICY,
                              f"FREEZE_WITH_PRODUCTION {len(gi.new_ledger_rows)} new ledger row(s) in a diff that "
                              f"changes production: a freeze lands on its own, so the failure it freezes is seen "
                              f"without the change that could have caused it"))
    frozen_hits = [n for j in judged.values() for n in j.frozen]
    if gi.mode == "diff" and frozen_hits and not comp.production_changed and not gi.new_ledger_rows:
        reasons.append(Reason("FREEZE_HIT_ON_EMPTY_DIFF", Severity.POLICY,
                              f"FREEZE_HIT_ON_EMPTY_DIFF {len(frozen_hits)} frozen test(s) while no production "
                              f"target changed: {frozen_hits[0]}"))
    return tuple(reasons)


def _held_below_floor(region: RegionPlan) -> bool:
    """A region whose requirement is below its kind's floor: judged at its baseline, or (a new
    module) at the standard beside it or its source's baseline."""
    return region.kind in REGION_KINDS and region.required is not None \
        and not at_least(OracleClass(region.required), RegionKind(region.kind).floor)


def _new_below_floor(region: RegionPlan) -> bool:
    """A new module held below its kind's floor (the human lane's standard beside it, or the
    baseline of the code it copies)."""
    return region.status == "added" and _held_below_floor(region)


def _floor_why(region: RegionPlan, demoted: Set[str]) -> str:
    """What about this diff left a region below its floor, where the diff itself says so."""
    why = []
    if region.status == "dependency" and region.trigger:
        why.append(f"judged because {region.trigger} changed what it reads")
    lowered = [a for a in region.candidates if a in demoted]
    if lowered:
        more = f" (+{len(lowered) - 1} more)" if len(lowered) > 1 else ""
        why.append(f"demoted: the diff changes {lowered[0]}{more} or its test plumbing, which covered it")
    elif not region.candidates:
        why.append("no test depends on it at head")
    return f" ({'; '.join(why)})" if why else ""


_STATIC_POLICY = frozenset({
    "WRITESET", "ORACLE_CHANGE", "UNMAPPED", "REGION_DOWNGRADE", "ORACLE_LOST", "CONFIG_CHANGE", "SYMLINK",
    "FIXTURE_DRIFT", "TEST_AWARE_CODE", "TAUTOLOGY", "LEDGER_INVALID", "GRAPH_ERROR", "BASELINE_DRIFT",
    "BASE_UNEVALUABLE", "SOURCE_ENCODING", "FINALLY_EXIT", "ASSERT_EFFECT",
    "MESSAGE_EFFECT", "SHARED_RESULT", "LOCK_REMOVED", "LOCK_SPLIT", "MEMO_KEY", "CHECK_THEN_WAIT",
    "IMPORT_FALLBACK", "MACHINE_READ",
})


def _static_severity(code: str) -> Severity:
    if code == "INFRA_ERROR":
        return Severity.INFRA
    if code in ("FLOOR", "UNEXERCISED"):
        return Severity.FLOOR
    if code in ("EXCLUDED", "NOTE"):
        return Severity.INFO
    return Severity.POLICY


def static_policy_failure(findings: Iterable[Finding]) -> bool:
    """True when the verdict is already a policy failure before anything runs."""
    return any(_static_severity(f.code) is Severity.POLICY for f in findings)


_ORDER = {Severity.POLICY: 0, Severity.INFRA: 1, Severity.PRODUCT: 2, Severity.EMPTY_VOTE: 3, Severity.FLOOR: 4, Severity.INFO: 5}


def _ordered(reasons: Sequence[Reason]) -> List[Reason]:
    return sorted(reasons, key=lambda r: _ORDER[r.severity])


def _exit_code(reasons: Iterable[Reason]) -> int:
    severities = {r.severity for r in reasons}
    for severity, code in ((Severity.POLICY, EXIT_POLICY), (Severity.INFRA, EXIT_INFRA), (Severity.PRODUCT, EXIT_PRODUCT),
                           (Severity.EMPTY_VOTE, EXIT_EMPTY_VOTE), (Severity.FLOOR, EXIT_POLICY)):
        if severity in severities:
            return code
    return EXIT_MERGE


def _ranks(gi: GateInput, reasons: Sequence[Reason], judged: Mapping[str, RunJudgement],
           classes: Mapping[str, OracleClass]) -> Tuple[Tuple[Tuple[str, str, int], ...], Optional[str]]:
    """The ladder (seed 004): stop at the first failing rank; a rank after it is not_run. A rank
    that ran and had nothing to check says so (`nothing_to_check`), never `pass`."""
    codes = {r.code for r in reasons}
    runs = {r.address: r for r in gi.runs}

    def kind_runs(kind: str, cls: Optional[OracleClass] = None) -> List[str]:
        return [a for a in judged if runs[a].kind == kind and (cls is None or classes.get(a) == cls)]

    def broken(addresses: List[str]) -> bool:
        return any(not judged[a].passed for a in addresses)

    replays = kind_runs("replay")
    props = kind_runs("oracle", OracleClass.PROPERTY)
    probes = kind_runs("probes")
    lock_fail = bool(codes & {"FIXTURE_DRIFT", "FIXTURE_TAMPERED", "BASELINE_DRIFT"})
    ladder = [
        ("R1_lock", lock_fail, len(gi.locked_expected), True),
        ("R1_replay", broken(replays), len(replays), gi.ran_oracles),
        ("R2_properties", broken(props) or "MIN_EXAMPLES" in codes, len(props), gi.ran_oracles),
        ("R2_cleanroom", any(r.code == "IMPURE" or (r.code in ("NOT_REPLAYED", "UNJUDGED_CHANGE", "TWIN_LOST")
                                                    and r.severity is not Severity.INFO) for r in reasons),
         sum(c.replayed for c in gi.cleanroom), gi.cleanroom_ran),
        ("R3_probes", broken(probes) or "PROBE_NUMB" in codes, len(probes), gi.ran_oracles),
        # Lines the budget never reached were not checked: the rank fails in both lanes (the human
        # lane's verdict only reports them).
        ("R3_numbness", "NUMB" in codes or bool(gi.not_mutated),
         len([m for m in gi.mutants if m.status in MUTANT_JUDGED]), gi.mutation_ran),
        ("R4_freeze", bool(codes & {"LEDGER_INVALID", "FREEZE_EXPIRED", "FREEZE_CAP", "UNLISTED_SKIP",
                                     "FREEZE_UNOBSERVED", "FREEZE_HIT_ON_EMPTY_DIFF", "FREEZE_WITH_PRODUCTION"}),
         sum(len(l.entries) for l in gi.ledgers), gi.ran_oracles),
    ]
    out = []
    stopped: Optional[str] = None
    for name, failed, checked, ran in ladder:
        if stopped is not None or not ran:
            status = "not_run"
        elif failed:
            status = "fail"
        else:
            status = "pass" if checked else "nothing_to_check"  # pass means something was checked
        if status == "fail" and stopped is None:
            stopped = name
        out.append((name, status, checked))
    return tuple(out), stopped


def rank_needed_by(rank: str, regions: Sequence[RegionVerdict]) -> Optional[Tuple[str, str]]:
    """The path of a region that needs (and why) `rank` to have checked something, if any (README, "Evidence and the ladder"):
    R2_properties is needed by a region whose floor is P; R3_numbness by a changed symbol of a
    region with a floor. No region needs a lock, a replay, a probe or a ledger row to exist, so for
    those ranks `nothing_to_check` meets `min_rank_required`. Regions below their floor are left to
    FLOOR."""
    for rv in regions:
        if rv.region.status == "deleted" or rv.need is None or not at_least(rv.have, rv.need):
            continue  # a region below its floor is already a FLOOR line
        if rank == "R2_properties" and rv.need is OracleClass.PROPERTY:
            return rv.region.path, f"kind={rv.region.kind}, need=P"
        if rank == "R3_numbness" and rv.symbols:
            return rv.region.path, f"changed symbol {rv.symbols[0][0]}"
    return None


def _oracle_verdicts(gi: GateInput, judged: Mapping[str, RunJudgement], classes: Mapping[str, OracleClass],
                     voters: Set[str]) -> Tuple[OracleVerdict, ...]:
    """The tests that ran or could have judged a region, and what each did."""
    comp = gi.comparison
    kinds = {r.address: r.kind for r in gi.runs}
    addresses = set(judged) | set(comp.demoted) | set(comp.excluded)
    for r in comp.regions:
        addresses.update(r.candidates)
    out = []
    for a in sorted(addresses):
        if a in comp.excluded:
            role = "excluded"
        elif a in comp.demoted:
            role = "demoted"
        elif a in comp.new_tests:
            role = "new"
        elif kinds.get(a) in ("draft", "probes"):
            role = kinds[a]
        elif a in classes:
            role = "voter"
        else:
            role = "changed"  # an oracle the diff changed: it runs, it does not vote
        j = judged.get(a)
        outcome = "not_run" if j is None else ("pass" if j.passed else ("fail" if j.reasons else "no_vote"))
        out.append(OracleVerdict(a, classes.get(a), role, outcome, a in voters))
    return tuple(out)
