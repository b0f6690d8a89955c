"""One verdict, several renderings: the versioned JSON report, console lines, JUnit XML, GitHub
annotations and step summary, the dry-run plan, ledger row templates."""
from __future__ import annotations

import datetime
import json
import posixpath
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence
from xml.sax.saxutils import escape, quoteattr

from ..lanes.compare import LANES, Comparison, Finding, subject_of
from ..protocol.signature import normalize_name
from .verdict import GateInput, Reason, Severity, Verdict

SCHEMA = "oracle-gate/report"
SCHEMA_VERSION = 4
CONSOLE_FULL_LIMIT = 40  # more reason lines than this are grouped by code and directory
GROUP_EXAMPLES = 3


def report_json(gi: GateInput, verdict: Verdict, base_ref: Optional[str], base_commit: Optional[str],
                head_commit: Optional[str], lane: str, sources: Mapping[str, str]) -> Dict[str, Any]:
    comp = gi.comparison
    runs = {r.address: r for r in gi.runs}
    lanes: Dict[str, List[str]] = {lane_: comp.lane_paths(lane_) for lane_ in LANES}
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "mode": gi.mode,
        "lane": lane,
        "base": {"ref": base_ref, "commit": base_commit},
        "head": {"commit": head_commit},
        "lanes": lanes,
        "changes": [{"path": c.path, "status": c.status, "lanes": list(c.lanes), "why": c.why} for c in comp.changes],
        "regions": [
            {
                "address": rv.region.address,
                "path": rv.region.path,
                "status": rv.region.status,
                "kind": rv.region.kind,
                "need": rv.need.value if rv.need else None,
                "have": rv.have.value if rv.have else None,
                "candidates": list(rv.region.candidates),
                "voters": list(rv.voters),
                "symbols": [{"symbol": s, "ran": list(ran)} for s, ran in rv.symbols],
            }
            for rv in verdict.regions
        ],
        "oracles": [
            {
                "address": o.address,
                "class": o.cls.value if o.cls else None,
                "role": o.role,
                "outcome": o.outcome,
                "voted": o.voted,
                "source": sources.get(o.address),
                "tests": [
                    {"nodeid": c.nodeid, "outcome": c.outcome, "signature": c.signature, "marker": c.marker,
                     "examples": c.examples}
                    for c in (runs[o.address].cases if o.address in runs else ())
                ],
            }
            for o in verdict.oracles
        ],
        "oracle_changes": [
            {"path": o.path, "what": o.what, "base_class": o.base_class, "head_class": o.head_class, "additive": o.additive}
            for o in comp.oracle_changes
        ],
        "mutants": [
            {"path": m.path, "symbol": m.symbol, "line": m.line, "id": m.mutant_id, "description": m.description,
             "status": m.status, "oracles": list(m.oracles)}
            for m in gi.mutants
        ],
        "cleanroom": [
            {"path": c.path, "symbol": c.symbol, "oracle": c.address, "replayed": c.replayed,
             "differences": [{"input": i, "variant": v, "under_test": e, "clean": g} for i, v, e, g in c.differences],
             "not_replayed_because": c.why_not or None}
            for c in gi.cleanroom
        ],
        "reasons": [{"code": r.code, "severity": r.severity.value, "line": r.line, "path": r.path} for r in verdict.reasons],
        "ranks": [{"rank": name, "status": status, "checked": checked} for name, status, checked in verdict.ranks],
        "stopped_at": verdict.stopped_at,
        "min_rank_required": gi.min_rank_required,
        "verdict": verdict.name,
        "exit_code": verdict.exit_code,
    }


def dumps(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


# -- console ------------------------------------------------------------------------------------------

def _directory(reason: Reason) -> str:
    path = (reason.path or subject_of(reason.line)).split(":", 1)[0]
    return posixpath.dirname(path) or "."


def grouped_lines(reasons: Sequence[Reason], limit: int = CONSOLE_FULL_LIMIT) -> List[str]:
    """Every reason line when there are few; grouped by code and directory with counts otherwise."""
    if len(reasons) <= limit:
        return [r.line for r in reasons]
    out: List[str] = [f"{len(reasons)} reason lines, grouped (the report keeps every line):"]
    by_code: Dict[str, List[Reason]] = {}
    for r in reasons:
        by_code.setdefault(r.code, []).append(r)
    for code, rs in by_code.items():
        dirs: Dict[str, int] = {}
        for r in rs:
            d = _directory(r)
            dirs[d] = dirs.get(d, 0) + 1
        top = sorted(dirs.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ", ".join(f"{d} {n}" for d, n in top[:6]) + (f", +{len(top) - 6} more directories" if len(top) > 6 else "")
        out.append(f"{code} x{len(rs)}: {shown}")
        out.extend(f"  {r.line}" for r in rs[:GROUP_EXAMPLES])
        if len(rs) > GROUP_EXAMPLES:
            out.append(f"  ... and {len(rs) - GROUP_EXAMPLES} more {code}")
    return out


def rank_text(status: str, checked: int) -> str:
    """A rank as a person reads it: `pass (3 checked)`, `fail`, `not_run`, `nothing_to_check`."""
    return f"{status} ({checked} checked)" if status == "pass" else status


def console_lines(gi: GateInput, verdict: Verdict) -> List[str]:
    comp = gi.comparison
    lines = [f"oracle-gate: {gi.mode} mode, {len(comp.changes)} changed path(s), {len(verdict.regions)} region(s), "
             f"{len(gi.runs)} oracle run(s), {len(verdict.voters)} voted"]
    regions = verdict.regions
    shown = regions if len(regions) <= CONSOLE_FULL_LIMIT else regions[:CONSOLE_FULL_LIMIT]
    for rv in shown:
        kind = rv.region.kind or "unmapped"
        lines.append(f"  {rv.region.address} [{rv.region.status}] kind={kind} need={rv.need.value if rv.need else '-'} "
                     f"have={rv.have.value if rv.have else 'none'}")
    if len(regions) > len(shown):
        lines.append(f"  ... and {len(regions) - len(shown)} more region(s) (see the report)")
    lines.append("  ranks: " + ", ".join(f"{n}={rank_text(s, c)}" for n, s, c in verdict.ranks)
                 + (f" (stopped at {verdict.stopped_at})" if verdict.stopped_at else ""))
    lines += grouped_lines(verdict.reasons)
    lines.append(f"VERDICT {verdict.name} exit={verdict.exit_code}")
    return lines


def dry_run_lines(comp: Comparison, findings: Sequence[Finding], run_set: Iterable[str], stopped: bool) -> List[str]:
    lines: List[str] = []
    for c in comp.changes:
        lines.append(f"LANE {c.path} {','.join(c.lanes)}{(' (' + c.why + ')') if c.why else ''}")
    for r in comp.regions:
        lines.append(f"REGION {r.address} [{r.status}] kind={r.kind or 'unmapped'} need={r.required or '-'} "
                     f"candidates={','.join(r.candidates) or 'none'}")
    for a in comp.demoted:
        lines.append(f"DEMOTED {a} (runs as a diagnostic, does not vote)")
    for a in comp.new_tests:
        lines.append(f"NEW {a} (does not vote on the diff that adds it)")
    predicted = [*comp.findings, *findings]
    lines += [f"PREDICTED {f.line}" for f in predicted]
    runs = sorted(run_set)
    if stopped:
        lines.append(f"PLAN no oracle runs: the verdict is already a policy failure ({len(runs)} would run with --oracle-gate-run-all)")
    else:
        lines += [f"PLAN run {a}" for a in runs]
    lines.append(f"DRY RUN: {len(comp.changes)} changed path(s), {len(comp.regions)} region(s), {len(runs)} oracle(s) "
                 f"planned, {len(predicted)} predicted reason(s); no verdict")
    return lines


def ledger_row_templates(gi: GateInput, today: datetime.date, ttl_days: int = 14) -> List[str]:
    """A ready-to-review ledger row for every failure or skip the runs recorded.

    Adding one is a deliberate edit in the human lane; `reason` and `owner` are left for a person.
    """
    rows = []
    seen = set()
    for run in sorted(gi.runs, key=lambda r: r.address):
        for case in run.cases:
            if case.outcome == "passed" or not case.signature or case.signature in seen:
                continue
            seen.add(case.signature)
            row = {
                "signature": case.signature,
                "test": normalize_name(case.nodeid),
                "exception": case.exception or case.marker or case.outcome,
                "reason": "<why this failure is noise, not a regression>",
                "owner": "<team or person>",
                "added": today.isoformat(),
                "expires": (today + datetime.timedelta(days=ttl_days)).isoformat(),
            }
            rows.append(f"SIGNATURE {case.nodeid} {json.dumps(row, sort_keys=True)}")
    return rows


# -- CI renderings -------------------------------------------------------------------------------------

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """Characters XML 1.0 forbids (terminal colours in a test's output) dropped, the rest escaped."""
    return escape(_XML_INVALID.sub("", text))


def _xml_attr(text: str) -> str:
    return quoteattr(_XML_INVALID.sub("", text))


def junit_xml(gi: GateInput, verdict: Verdict) -> str:
    """JUnit XML (the Jenkins/Ant dialect GitHub, GitLab and Jenkins read): one test case per
    region and per oracle; reason lines become failures of the case they name."""
    cases: List[str] = []
    failures = 0
    by_target: Dict[str, List[Reason]] = {}
    for r in verdict.reasons:
        key = subject_of(r.line).split(":", 1)[0]
        by_target.setdefault(key, []).append(r)
    claimed = set()

    def case(classname: str, name: str, keys: Sequence[str]) -> None:
        nonlocal failures
        mine = [r for k in keys for r in by_target.get(k, ()) if r.severity is not Severity.INFO]
        claimed.update(id(r) for k in keys for r in by_target.get(k, ()))
        body = ""
        if mine:
            failures += 1
            body = "".join(
                f"<failure message={_xml_attr(r.line[:500])} type={_xml_attr(r.code)}>{_xml_text(r.line)}</failure>"
                for r in mine[:1]
            ) + ("<system-out>" + _xml_text("\n".join(r.line for r in mine)) + "</system-out>" if len(mine) > 1 else "")
        cases.append(f'<testcase classname={_xml_attr(classname)} name={_xml_attr(name)} time="0">{body}</testcase>')

    for rv in verdict.regions:
        case("oracle-gate.regions", rv.region.path, [rv.region.path, rv.region.address])
    for o in verdict.oracles:
        path = next((r.path for r in gi.runs if r.address == o.address), o.address)
        case("oracle-gate.oracles", o.address, [o.address, path])
    rest = [r for r in verdict.reasons if id(r) not in claimed and r.severity is not Severity.INFO]
    if rest or not cases:
        body = "".join(f"<failure message={_xml_attr(r.line[:500])} type={_xml_attr(r.code)}>{_xml_text(r.line)}</failure>"
                       for r in rest[:1])
        if rest:
            failures += 1
            body += "<system-out>" + _xml_text("\n".join(r.line for r in rest)) + "</system-out>"
        cases.append(f'<testcase classname="oracle-gate" name="verdict" time="0">{body}</testcase>')
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="oracle-gate" tests="{len(cases)}" failures="{failures}" errors="0" time="0">\n'
        f'<testsuite name="oracle-gate" tests="{len(cases)}" failures="{failures}" errors="0" skipped="0" time="0">\n'
        + "\n".join(cases)
        + "\n</testsuite>\n</testsuites>\n"
    )


def _gh_escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github_annotations(verdict: Verdict) -> List[str]:
    """Workflow commands for reason lines that point at a file (errors) or inform (notices)."""
    out = []
    for r in verdict.reasons:
        if not r.path or r.path.startswith("../"):
            continue
        level = "notice" if r.severity is Severity.INFO else "error"
        props = f"file={_gh_escape(r.path, True)}" + (f",line={r.lineno}" if r.lineno else "") + f",title={_gh_escape(r.code, True)}"
        out.append(f"::{level} {props}::{_gh_escape(r.line)}")
    return out


def step_summary(gi: GateInput, verdict: Verdict) -> str:
    mark = "merge" if verdict.merge else verdict.name.replace("_", " ")
    lines = [f"## oracle-gate: {mark} (exit {verdict.exit_code})", "",
             f"{gi.mode} mode; ranks: " + ", ".join(f"{n} {rank_text(s, c)}" for n, s, c in verdict.ranks), ""]
    if verdict.regions:
        lines += ["| region | status | kind | need | have | voters |", "|---|---|---|---|---|---|"]
        for rv in verdict.regions[:100]:
            lines.append(f"| `{rv.region.path}` | {rv.region.status} | {rv.region.kind or 'unmapped'} | "
                         f"{rv.need.value if rv.need else '-'} | {rv.have.value if rv.have else 'none'} | {len(rv.voters)} |")
        lines.append("")
    if verdict.reasons:
        lines.append("| code | reason |")
        lines.append("|---|---|")
        for r in verdict.reasons[:200]:
            lines.append(f"| {r.code} | `{_XML_INVALID.sub('', r.line).replace('|', '/').replace('`', chr(39))}` |")
        lines.append("")
    return "\n".join(lines) + "\n"
