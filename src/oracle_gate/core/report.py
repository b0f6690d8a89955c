"""The verdict as one versioned JSON document and as lines a person can act on."""
from __future__ import annotations

import datetime
import json
from typing import Any, Dict, List, Optional

from .lanes import Lane
from .signature import normalize_name
from .verdict import GateFacts, Verdict

SCHEMA = "oracle-gate/report"
SCHEMA_VERSION = 1
VERDICTS = {0: "merge", 1: "product_failure", 2: "policy_failure", 3: "empty_vote"}


def report_json(
    facts: GateFacts, verdict: Verdict, base_ref: Optional[str], base_commit: Optional[str],
    head_commit: Optional[str],
) -> Dict[str, Any]:
    runs = {r.address: r for r in facts.runs}
    lanes: Dict[str, List[str]] = {lane.value: [] for lane in Lane}
    for change in facts.changes:
        for lane in change.lanes:
            lanes[lane.value].append(change.path)
    oracles = []
    for o in sorted(facts.oracles, key=lambda o: o.address):
        run = runs.get(o.address)
        oracles.append({
            "address": o.address,
            "class": o.oracle_class.value,
            "demoted": o.demoted,
            "voted": o.address in verdict.voters,
            "outcome": ("not_run" if run is None else "pass" if run.passed else "fail" if run.broken else "no_vote"),
            "source": run.source if run else None,
            "tests": [{"nodeid": c.nodeid, "outcome": c.outcome, "signature": c.signature}
                      for c in (run.cases if run else ())],
        })
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "mode": facts.mode,
        "base": {"ref": base_ref, "commit": base_commit},
        "head": {"commit": head_commit},
        "lanes": {k: sorted(v) for k, v in lanes.items()},
        "targets": [
            {
                "address": rv.region.address,
                "path": rv.region.path,
                "kind": rv.region.kind.value if rv.region.kind else None,
                "need": rv.need.value if rv.need else None,
                "have": rv.have.value if rv.have else None,
                "oracles": list(rv.region.oracles),
                "voters": list(rv.voters),
            }
            for rv in verdict.regions
        ],
        "oracles": oracles,
        "reasons": [{"code": r.code, "severity": r.severity.value, "line": r.line} for r in verdict.reasons],
        "ranks": [{"rank": name, "status": status, "checked": checked} for name, status, checked in verdict.ranks],
        "suite_size": verdict.suite_size,
        "verdict": VERDICTS[verdict.exit_code],
        "exit_code": verdict.exit_code,
    }


def console_lines(facts: GateFacts, verdict: Verdict) -> List[str]:
    lines = [f"oracle-gate: {facts.mode} mode, {len(facts.changes)} changed path(s), "
             f"{len(verdict.regions)} production target(s), {len(facts.oracles)} covering oracle(s), "
             f"{len(verdict.voters)} voted"]
    for rv in verdict.regions:
        kind = rv.region.kind.value if rv.region.kind else "unmapped"
        need = rv.need.value if rv.need else "-"
        have = rv.have.value if rv.have else "none"
        lines.append(f"  {rv.region.address} kind={kind} need={need} have={have}")
    lines.append("  ranks: " + ", ".join(f"{n}={s}" for n, s, _ in verdict.ranks))
    for reason in verdict.reasons:
        lines.append(reason.line)
    lines.append(f"VERDICT {VERDICTS[verdict.exit_code]} exit={verdict.exit_code}")
    return lines


def ledger_row_templates(facts: GateFacts, ttl_days: int = 14) -> List[str]:
    """A ready-to-review ledger row for every failure or unlisted skip the runs recorded.

    Adding one is a deliberate edit in the oracle lane; `reason` and `owner` are left for a person.
    """
    rows = []
    seen = set()
    for run in sorted(facts.runs, key=lambda r: r.address):
        for case in run.cases:
            if case.outcome not in ("failed", "unlisted_skip", "freeze_expired") or not case.signature:
                continue
            if case.signature in seen:  # one row freezes every test failing the same way
                continue
            seen.add(case.signature)
            row = {
                "signature": case.signature,
                "test": normalize_name(case.nodeid),
                "exception": case.exception or "unknown",
                "reason": "<why this failure is noise, not a regression>",
                "owner": "<team or person>",
                "added": facts.today.isoformat(),
                "expires": (facts.today + datetime.timedelta(days=ttl_days)).isoformat(),
            }
            rows.append(f"SIGNATURE {case.nodeid} {json.dumps(row, sort_keys=True)}")
    return rows
