"""The merge verdict: one predicate over facts the build graph and the sandbox produced.

Exit codes: 0 merge, 1 product failure, 2 policy failure, 3 empty vote. When several apply, a
policy failure about the write-set or the oracles themselves wins (the evidence is not trusted),
then a product failure, then an empty vote (no oracle test executed at all), then a floor miss.
"""
from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .classes import OracleClass, RegionKind, best_vote, meets_floor
from .lanes import Lane
from .ledger import Ledger, ledger_problems

EXIT_MERGE = 0
EXIT_PRODUCT = 1
EXIT_POLICY = 2
EXIT_EMPTY_VOTE = 3

PASSED = "passed"
FAILED = "failed"
FROZEN = "frozen"
# Outcomes the sandbox plugin reports as policy breaches, not product failures.
POLICY_OUTCOMES = {"unlisted_skip": "UNLISTED_SKIP", "freeze_expired": "FREEZE_EXPIRED", "min_examples": "MIN_EXAMPLES"}


class Severity(enum.Enum):
    POLICY = "policy"
    PRODUCT = "product"
    EMPTY_VOTE = "empty_vote"
    FLOOR = "floor"
    INFO = "info"


@dataclass(frozen=True)
class Reason:
    code: str
    severity: Severity
    line: str


@dataclass(frozen=True)
class ChangedPath:
    path: str
    lanes: Tuple[Lane, ...]
    status: str = "M"


@dataclass(frozen=True)
class Oracle:
    address: str
    oracle_class: OracleClass
    demoted: bool = False  # changed by this diff: a diagnostic, never a vote


@dataclass(frozen=True)
class Region:
    """A changed (or audited) production target and the oracles that cover it."""

    address: str
    path: str
    kind: Optional[RegionKind]
    oracles: Tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseResult:
    nodeid: str
    outcome: str  # passed, failed, frozen, unlisted_skip, freeze_expired, min_examples
    signature: Optional[str] = None
    detail: str = ""
    exception: Optional[str] = None


@dataclass(frozen=True)
class OracleRun:
    """What one oracle's sandboxed pytest run left behind.

    `complete` is true only when the sandbox plugin wrote its results file at session end; an
    exit status or stdout alone is never trusted.
    """

    address: str
    exit_code: Optional[int]
    complete: bool
    cases: Tuple[CaseResult, ...] = ()
    source: str = "ran"

    @property
    def failed_cases(self) -> Tuple[CaseResult, ...]:
        return tuple(c for c in self.cases if c.outcome == FAILED)

    @property
    def broken(self) -> bool:
        """Failed, crashed or left no trustworthy results."""
        return not self.complete or self.exit_code != 0 or bool(self.failed_cases)

    @property
    def passed(self) -> bool:
        return (
            self.exit_code == 0
            and self.complete
            and any(c.outcome == PASSED for c in self.cases)
            and all(c.outcome in (PASSED, FROZEN) for c in self.cases)
        )


@dataclass(frozen=True)
class GateFacts:
    mode: str  # "diff" or "audit"
    changes: Tuple[ChangedPath, ...]
    regions: Tuple[Region, ...]
    oracles: Tuple[Oracle, ...]
    runs: Tuple[OracleRun, ...]
    fixture_drift: Tuple[str, ...] = ()
    ledger_errors: Tuple[str, ...] = ()
    engine_errors: Tuple[str, ...] = ()  # the engine could not build the facts (GRAPH_ERROR lines)
    ledgers: Tuple[Ledger, ...] = ()
    today: datetime.date = field(default_factory=datetime.date.today)
    allow_oracle_changes: bool = False


@dataclass(frozen=True)
class RegionVerdict:
    region: Region
    need: Optional[OracleClass]
    have: Optional[OracleClass]
    voters: Tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    exit_code: int
    reasons: Tuple[Reason, ...]
    regions: Tuple[RegionVerdict, ...]
    ranks: Tuple[Tuple[str, str, int], ...]  # (rank, pass|fail|not_run, checked)
    voters: Tuple[str, ...]
    suite_size: int

    @property
    def merge(self) -> bool:
        return self.exit_code == EXIT_MERGE


def _paths(changes: Sequence[ChangedPath], lane: Lane) -> List[str]:
    return sorted(c.path for c in changes if lane in c.lanes)


def _writeset_reasons(facts: GateFacts) -> List[Reason]:
    production = _paths(facts.changes, Lane.PRODUCTION)
    guarded = [(lane, p) for lane in (Lane.ORACLE, Lane.FLAKE_CONTROL) for p in _paths(facts.changes, lane)]
    reasons = []
    if production:
        more = f" (+{len(production) - 1} more)" if len(production) > 1 else ""
        for lane, path in guarded:
            reasons.append(
                Reason("WRITESET", Severity.POLICY,
                       f"WRITESET {lane.value} {path} changed with production {production[0]}{more}")
            )
    elif guarded and not facts.allow_oracle_changes:
        for lane, path in guarded:
            reasons.append(
                Reason("ORACLE_CHANGE", Severity.POLICY,
                       f"ORACLE_CHANGE {lane.value} {path}: oracle edits are the human lane "
                       f"(re-run with --allow-oracle-changes after review)")
            )
    for path in _paths(facts.changes, Lane.UNMAPPED):
        where = "is outside the build root" if path.startswith("../") else "is owned by no target"
        reasons.append(Reason("UNMAPPED", Severity.POLICY, f"UNMAPPED {path} {where}"))
    return reasons


def _run_reasons(facts: GateFacts, classes: Dict[str, Oracle]) -> List[Reason]:
    """What the sandboxed runs say: policy breaches first, then product failures and diagnostics."""
    policy: List[Reason] = []
    product: List[Reason] = []
    for run in sorted(facts.runs, key=lambda r: r.address):
        oracle = classes.get(run.address)
        if oracle is not None and oracle.demoted:
            if not run.passed:
                what = "did not pass" if run.complete else "left no results"
                product.append(Reason("DIAGNOSTIC", Severity.INFO,
                                      f"DIAGNOSTIC {run.address} (demoted, not voting) {what}"))
            continue
        for case in run.cases:
            code = POLICY_OUTCOMES.get(case.outcome)
            if code:
                policy.append(Reason(code, Severity.POLICY, f"{code} {case.nodeid} {case.detail}".rstrip()))
        for case in run.failed_cases:
            product.append(Reason("FAIL", Severity.PRODUCT, f"FAIL {run.address} {case.nodeid} {case.detail}".rstrip()))
        if not run.complete:
            product.append(Reason("NO_RESULTS", Severity.PRODUCT,
                                  f"NO_RESULTS {run.address} exit={run.exit_code}: the sandbox left no complete "
                                  f"results file (crash, timeout, os._exit or collection error)"))
        elif run.exit_code != 0 and not run.failed_cases and not any(
            c.outcome in POLICY_OUTCOMES for c in run.cases
        ):
            product.append(Reason("ORACLE_ERROR", Severity.PRODUCT,
                                  f"ORACLE_ERROR {run.address} exit={run.exit_code} with no failing test recorded"))
    return policy + product


def evaluate(facts: GateFacts) -> Verdict:
    oracles = {o.address: o for o in facts.oracles}
    runs = {r.address: r for r in facts.runs}
    reasons: List[Reason] = _writeset_reasons(facts)
    reasons += [Reason("FIXTURE_DRIFT", Severity.POLICY, line) for line in facts.fixture_drift]
    reasons += [Reason(line.split(" ", 1)[0], Severity.POLICY, line) for line in facts.ledger_errors]
    reasons += [Reason("GRAPH_ERROR", Severity.POLICY, line) for line in facts.engine_errors]

    voters = sorted(
        a for a, o in oracles.items()
        if not o.demoted and o.oracle_class.votes and a in runs and runs[a].passed
    )
    voter_set = set(voters)

    region_verdicts: List[RegionVerdict] = []
    floor_reasons: List[Reason] = []
    for region in sorted(facts.regions, key=lambda r: r.address):
        region_voters = tuple(a for a in region.oracles if a in voter_set)
        have = best_vote(oracles[a].oracle_class for a in region_voters)
        need = region.kind.floor if region.kind else None
        region_verdicts.append(RegionVerdict(region, need, have, region_voters))
        if region.kind is None:
            reasons.append(Reason("UNMAPPED", Severity.POLICY,
                                  f"UNMAPPED {region.path} owner={region.address} has no oracle_region"))
        elif not meets_floor(region.kind, have):
            floor_reasons.append(Reason(
                "FLOOR", Severity.FLOOR,
                f"FLOOR {region.address} kind={region.kind.value} need={need.value} "
                f"have={have.value if have else 'none'}",
            ))
    reasons += floor_reasons

    reasons += _run_reasons(facts, oracles)

    suite_size = sum(len(runs[a].cases) for a in voters)
    for problem in ledger_problems(facts.ledgers, facts.today, suite_size):
        reasons.append(Reason(problem.code, Severity.POLICY, problem.line))
    frozen_hits = [c for r in facts.runs for c in r.cases if c.outcome == FROZEN]
    production_changed = bool(facts.regions)
    if facts.mode == "diff" and frozen_hits and not production_changed:
        reasons.append(Reason("FREEZE_HIT_ON_EMPTY_DIFF", Severity.POLICY,
                              f"FREEZE_HIT_ON_EMPTY_DIFF {len(frozen_hits)} frozen test(s) while no "
                              f"production target changed: {frozen_hits[0].nodeid}"))
    # Nothing executed at all is an empty vote; demoted diagnostics that ran make it a floor miss.
    if production_changed and not voters and not any(r.cases for r in facts.runs):
        reasons.append(Reason("EMPTY_VOTE", Severity.EMPTY_VOTE,
                              f"EMPTY_VOTE {len(facts.regions)} production target(s) changed and no "
                              f"oracle test executed"))

    reasons = list({r.line: r for r in reasons}.values())  # build-time and run-time checks may agree
    ranks = _ranks(facts, oracles, reasons)
    return Verdict(
        exit_code=_exit_code(reasons),
        reasons=tuple(reasons),
        regions=tuple(region_verdicts),
        ranks=ranks,
        voters=tuple(voters),
        suite_size=suite_size,
    )


def _exit_code(reasons: Iterable[Reason]) -> int:
    severities = {r.severity for r in reasons}
    if Severity.POLICY in severities:
        return EXIT_POLICY
    if Severity.PRODUCT in severities:
        return EXIT_PRODUCT
    if Severity.EMPTY_VOTE in severities:
        return EXIT_EMPTY_VOTE
    if Severity.FLOOR in severities:
        return EXIT_POLICY
    return EXIT_MERGE


def _ranks(facts: GateFacts, oracles: Dict[str, Oracle], reasons: Sequence[Reason]) -> Tuple[Tuple[str, str, int], ...]:
    """The ladder locks -> properties -> freeze; a rank after a failing one is not_run."""
    def runs_of(cls: OracleClass) -> List[OracleRun]:
        return [r for r in facts.runs
                if r.address in oracles and oracles[r.address].oracle_class is cls
                and not oracles[r.address].demoted]

    lock_runs = runs_of(OracleClass.LOCKED)
    prop_runs = runs_of(OracleClass.PROPERTY)
    codes = {r.code for r in reasons}
    freeze_codes = {"LEDGER_INVALID", "FREEZE_EXPIRED", "FREEZE_CAP", "UNLISTED_SKIP", "FREEZE_HIT_ON_EMPTY_DIFF"}
    ladder = [
        ("locks", bool(facts.fixture_drift) or bool(facts.engine_errors) or any(r.broken for r in lock_runs),
         len(lock_runs) + len(facts.fixture_drift)),
        ("properties", any(r.broken for r in prop_runs) or "MIN_EXAMPLES" in codes, len(prop_runs)),
        ("freeze", bool(codes & freeze_codes), sum(len(l.entries) for l in facts.ledgers)),
    ]
    out = []
    failed_before = False
    for name, failed, checked in ladder:
        status = "not_run" if failed_before else ("fail" if failed else "pass")
        failed_before = failed_before or failed
        out.append((name, status, checked))
    return tuple(out)
