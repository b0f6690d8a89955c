"""Known renderings of a verdict: the JSON report (schema oracle-gate/report, version 2), grouped
console lines, GitHub annotations, JUnit XML, the step summary, ledger row templates and the
dry-run plan."""
import datetime
import json
import xml.etree.ElementTree as ET

from oracle_gate.core.judge.report import (console_lines, dry_run_lines, github_annotations, grouped_lines, junit_xml,
                                           ledger_row_templates, report_json, step_summary)
from oracle_gate.core.judge.verdict import RANKS, Case, GateInput, OracleRun, Reason, Severity, Verdict, evaluate
from oracle_gate.core.lanes.compare import LANES, ChangedPath, Comparison, RegionPlan

TAX = "src/billing/tax.py"
EXAMPLES = "tests/test_tax_examples.py"
TODAY = datetime.date(2026, 11, 30)


def floor_gate(runs=None):
    region = RegionPlan(TAX, TAX, "changed", "pure", "pure", "P", (EXAMPLES,), ())
    comp = Comparison((ChangedPath(TAX, "M", ("production",)),), (region,), (), (), (), (), (), ((EXAMPLES, "E"),))
    if runs is None:
        runs = (OracleRun(EXAMPLES, EXAMPLES, 0, True, (Case(f"{EXAMPLES}::test_rate", "passed"),)),)
    return GateInput("diff", comp, runs, today=TODAY)


def test_an_empty_audit_report_has_exactly_the_version_4_keys():
    gi = GateInput("audit", Comparison((), (), (), (), (), (), (), ()), today=TODAY)
    report = report_json(gi, evaluate(gi), "main", "abc", "def", "agent", {})
    assert report == {
        "schema": "oracle-gate/report", "version": 4, "mode": "audit", "lane": "agent",
        "base": {"ref": "main", "commit": "abc"}, "head": {"commit": "def"},
        "lanes": {lane: [] for lane in LANES}, "changes": [], "regions": [], "oracles": [], "oracle_changes": [],
        "mutants": [], "cleanroom": [], "reasons": [],
        "ranks": [{"rank": r, "status": "not_run" if r in ("R2_cleanroom", "R3_numbness") else "nothing_to_check",
                   "checked": 0}
                  for r in RANKS],
        "stopped_at": None, "min_rank_required": "R2_properties", "verdict": "merge", "exit_code": 0,
    }
    assert sorted(report["lanes"]) == sorted(["production", "oracle", "flake_control", "test", "draft", "other",
                                              "unmapped"])
    json.dumps(report)


def test_a_floor_miss_report_names_the_region_its_voters_and_the_reason():
    gi = floor_gate()
    report = report_json(gi, evaluate(gi), "main", "a" * 40, "b" * 40, "agent", {EXAMPLES: "hit_locally"})
    assert report["regions"] == [{"address": TAX, "path": TAX, "status": "changed", "kind": "pure", "need": "P",
                                  "have": "E", "candidates": [EXAMPLES], "voters": [EXAMPLES], "symbols": []}]
    assert report["oracles"] == [{"address": EXAMPLES, "class": "E", "role": "voter", "outcome": "pass", "voted": True,
                                  "source": "hit_locally", "tests": [{"nodeid": f"{EXAMPLES}::test_rate",
                                                                      "outcome": "passed", "signature": None,
                                                                      "marker": None, "examples": None}]}]
    assert report["reasons"] == [{"code": "FLOOR", "severity": "floor", "path": TAX,
                                  "line": "FLOOR src/billing/tax.py kind=pure need=P have=E"}]
    assert (report["verdict"], report["exit_code"], report["lanes"]["production"]) == ("policy_failure", 2, [TAX])


def test_many_reasons_are_grouped_by_code_and_directory_with_counts():
    rs = [Reason("FLOOR", Severity.FLOOR, f"FLOOR src/a/m{i}.py kind=pure need=P have=none", f"src/a/m{i}.py")
          for i in range(30)]
    rs += [Reason("FLOOR", Severity.FLOOR, f"FLOOR src/b/m{i}.py kind=pure need=P have=none", f"src/b/m{i}.py")
           for i in range(15)]
    rs += [Reason("WRITESET", Severity.POLICY, "WRITESET oracle oracle/p.py changed with production src/a/m0.py",
                  "oracle/p.py")]
    assert grouped_lines(rs) == [
        "46 reason lines, grouped (the report keeps every line):",
        "FLOOR x45: src/a 30, src/b 15",
        "  FLOOR src/a/m0.py kind=pure need=P have=none",
        "  FLOOR src/a/m1.py kind=pure need=P have=none",
        "  FLOOR src/a/m2.py kind=pure need=P have=none",
        "  ... and 42 more FLOOR",
        "WRITESET x1: oracle 1",
        "  WRITESET oracle oracle/p.py changed with production src/a/m0.py",
    ]
    assert grouped_lines(rs[:40]) == [r.line for r in rs[:40]]


def test_the_console_summarises_regions_ranks_reasons_and_the_verdict():
    gi = floor_gate()
    assert console_lines(gi, evaluate(gi)) == [
        "oracle-gate: diff mode, 1 changed path(s), 1 region(s), 1 oracle run(s), 1 voted",
        "  src/billing/tax.py [changed] kind=pure need=P have=E",
        "  ranks: R1_lock=nothing_to_check, R1_replay=nothing_to_check, R2_properties=nothing_to_check, "
        "R2_cleanroom=not_run, R3_probes=nothing_to_check, R3_numbness=not_run, R4_freeze=nothing_to_check",
        "FLOOR src/billing/tax.py kind=pure need=P have=E",
        "VERDICT policy_failure exit=2",
    ]


def test_github_annotations_escape_what_could_start_a_second_command():
    r = Reason("FAIL", Severity.PRODUCT, "FAIL t 100% broken\n::error::forged", "src/a,b:c.py", 7)
    info = Reason("DIAGNOSTIC", Severity.INFO, "DIAGNOSTIC x\r\ny", "tests/t.py")
    outside = Reason("UNMAPPED", Severity.POLICY, "UNMAPPED ../x.py is outside the build root", "../x.py")
    verdict = Verdict(2, (r, info, outside, Reason("EMPTY_VOTE", Severity.EMPTY_VOTE, "EMPTY_VOTE 1")), (), (), (), None, ())
    assert github_annotations(verdict) == [
        "::error file=src/a%2Cb%3Ac.py,line=7,title=FAIL::FAIL t 100%25 broken%0A::error::forged",
        "::notice file=tests/t.py,title=DIAGNOSTIC::DIAGNOSTIC x%0D%0Ay",
    ]


def test_junit_xml_has_a_failing_case_for_the_region_and_a_passing_one_for_the_oracle():
    gi = floor_gate()
    root = ET.fromstring(junit_xml(gi, evaluate(gi)))
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    region, oracle = root.find("testsuite").findall("testcase")
    assert (region.get("classname"), region.get("name")) == ("oracle-gate.regions", TAX)
    assert region.find("failure").get("message") == "FLOOR src/billing/tax.py kind=pure need=P have=E"
    assert (oracle.get("classname"), oracle.get("name"), oracle.find("failure")) == ("oracle-gate.oracles", EXAMPLES, None)


def test_junit_xml_parses_when_a_test_printed_terminal_colours():
    # the last lines of a crashed test's own output end up in NO_RESULTS; pytest colours them
    crashed = OracleRun(EXAMPLES, EXAMPLES, 1, False, problem="the session was interrupted (os._exit)",
                        output_tail="\x1b[31mE   AssertionError\x1b[0m | \x1b[1mFAILED\x1b[0m")
    gi = floor_gate((crashed,))
    verdict = evaluate(gi)
    assert verdict.reasons[0].code == "NO_RESULTS"
    root = ET.fromstring(junit_xml(gi, verdict))
    assert int(root.get("failures")) >= 1


def test_the_step_summary_is_a_markdown_table_whose_cells_cannot_be_split():
    r = Reason("FAIL", Severity.PRODUCT, "FAIL a | b")
    text = step_summary(floor_gate(), Verdict(1, (r,), (), (), (("R1_lock", "pass", 2),), None, ()))
    assert text == ("## oracle-gate: product failure (exit 1)\n\ndiff mode; ranks: R1_lock pass (2 checked)\n\n"
                    "| code | reason |\n|---|---|\n| FAIL | `FAIL a / b` |\n\n")


def test_a_ledger_row_template_per_failing_signature():
    case = Case("tests/test_rate.py::test_remote_rate_v2[slow]", "failed", "7fbaaf45ec8237ed", "TimeoutError")
    gi = floor_gate((OracleRun(EXAMPLES, EXAMPLES, 1, True, (case, case)),))
    assert ledger_row_templates(gi, TODAY) == [
        'SIGNATURE tests/test_rate.py::test_remote_rate_v2[slow] {"added": "2026-11-30", "exception": "TimeoutError", '
        '"expires": "2026-12-14", "owner": "<team or person>", "reason": "<why this failure is noise, not a regression>", '
        '"signature": "7fbaaf45ec8237ed", "test": "test_remote_rate"}'
    ]


def test_the_dry_run_plan_lists_lanes_regions_and_what_would_run():
    comp = floor_gate().comparison
    assert dry_run_lines(comp, (), {EXAMPLES}, stopped=False) == [
        "LANE src/billing/tax.py production",
        f"REGION {TAX} [changed] kind=pure need=P candidates={EXAMPLES}",
        f"PLAN run {EXAMPLES}",
        "DRY RUN: 1 changed path(s), 1 region(s), 1 oracle(s) planned, 0 predicted reason(s); no verdict",
    ]
