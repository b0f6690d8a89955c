"""Every rendering of one verdict (console, JSON, JUnit, GitHub), and the verdict of a gate whose
facts could not be built."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from pants.base.build_root import BuildRoot
from pants.core.util_rules.distdir import DistDir
from pants.engine.console import Console
from pants.engine.fs import AddPrefix, CreateDigest, Digest, FileContent, MergeDigests, Workspace
from pants.engine.internals.session import RunId
from pants.engine.rules import Get

from oracle_gate.core.judge import report as REPORT
from oracle_gate.core.judge import verdict as V
from oracle_gate.core.lanes import compare as C
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.compare import Policy
from oracle_gate.rules.gate_options import OracleGate, OracleGateSubsystem, effective_policy
from oracle_gate.rules.git_diff import GitDiff
from oracle_gate.rules.runs import TargetRecord


def summary(e: BaseException) -> str:
    return f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"


EMPTY_COMPARISON = C.Comparison((), (), (), (), (), (), (), ())


async def render(console: Console, workspace: Workspace, dist_dir: DistDir, build_root: BuildRoot,
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


async def fail_early(console: Console, workspace: Workspace, dist_dir: DistDir, build_root: BuildRoot,
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
    return await render(console, workspace, dist_dir, build_root, env, policy, gi, V.evaluate(gi), diff, (), run_id)


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
