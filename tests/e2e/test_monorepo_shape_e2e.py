"""The generated backend.ai-shaped repository behaves as its docstring says under a real
`./pants test ::`: passes, environment skips, one xfail, one missing-service failure, nothing else;
and enabling the oracle-gate backend changes no outcome of `pants test` (the recorder records, it
never judges): the same run with and without it gives every test the same outcome.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Dict

from e2e.monorepo import EXPECTED, SHAPES, new_monorepo


def junit_outcomes(report_dir) -> Dict[str, str]:
    out = {}
    for xml in sorted(report_dir.rglob("*.xml")):
        for case in ET.parse(xml).getroot().iter("testcase"):
            nodeid = case.get("classname").replace(".", "/") + ".py::" + case.get("name")
            kids = {child.tag: child for child in case}
            if "failure" in kids:
                outcome = "failed"
            elif "error" in kids:
                outcome = "error"
            elif "skipped" in kids:
                outcome = "xfailed" if kids["skipped"].get("type") == "pytest.xfail" else "skipped"
            else:
                outcome = "passed"
            out[nodeid] = outcome
    return out


def test_pants_test_gives_the_expected_mixture_with_and_without_the_backend(tmp_path):
    repo = new_monorepo(tmp_path)
    assert repo.git("log", "--oneline").count("\n") == 0 and repo.git("branch", "--show-current") == "main"
    assert all(repo.path(p).is_file() for p in SHAPES)

    without = repo.pants("--backend-packages=-['oracle_gate']", "test", "--test-report",
                         "--test-report-dir=dist/without", "::")
    run = repo.pants("test", "--test-report", "::")
    assert run.exit_code == without.exit_code
    assert junit_outcomes(repo.path("dist/without")) == junit_outcomes(repo.path("dist/test/reports"))

    assert run.exit_code == 1, run.output[-3000:]
    plain = re.sub(r"\x1b\[[0-9;]*m", "", run.stderr)
    targets = {t: sigil for sigil, t in re.findall(r"([✓✕]) (tests/\S+) (?:succeeded|failed)", plain)}
    assert {t for t, sigil in targets.items() if sigil == "✕"} == {"tests/client/test_http.py:tests"}, plain[-3000:]
    assert len(targets) == 8  # every test file ran: 2 common, 4 manager, 2 client

    outcomes = junit_outcomes(repo.path("dist/test/reports"))
    assert sorted(outcomes) == sorted(EXPECTED), run.stderr[-3000:]
    for nodeid, outcome in outcomes.items():
        assert outcome in EXPECTED[nodeid].split("|"), (nodeid, outcome)
    counts = {o: sum(1 for v in outcomes.values() if v == o) for o in ("passed", "skipped", "xfailed", "failed")}
    assert counts["passed"] >= 16 and counts["skipped"] >= 1 and counts["xfailed"] == 1 and counts["failed"] == 1
    assert "ConnectionRefusedError" in run.stderr or "Connection refused" in run.stderr
