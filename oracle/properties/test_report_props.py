"""Laws of the renderings of one verdict: the JSON report is serialisable, keeps its documented
keys and says what the verdict said; the console keeps the count of every reason when it groups
them and prints every line when there are few; a GitHub annotation is one line whatever the text
(so it can never inject a second workflow command) and decodes back to the reason; the JUnit XML
parses, with one test case per region and per oracle and as many failures as failing cases; the
ledger rows it proposes are valid rows once a person fills them in."""
import dataclasses
import datetime
import json
import re
import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from facts_strategies import gate_inputs  # pants: no-infer-dep
from oracle_gate.core.judge.report import (console_lines, github_annotations, grouped_lines, junit_xml,
                                           ledger_row_templates, report_json, step_summary)
from oracle_gate.core.judge.verdict import RANKS, VERDICTS, Reason, Severity, Verdict, evaluate
from oracle_gate.core.ladder.ledger import parse_ledger
from oracle_gate.core.lanes.compare import LANES, ChangedPath

REPORT_KEYS = {"schema", "version", "mode", "lane", "base", "head", "lanes", "changes", "regions", "oracles",
               "oracle_changes", "mutants", "cleanroom", "reasons", "ranks", "stopped_at", "min_rank_required", "verdict",
               "exit_code"}
REGION_KEYS = {"address", "path", "status", "kind", "need", "have", "candidates", "voters", "symbols"}
ORACLE_KEYS = {"address", "class", "role", "outcome", "voted", "source", "tests"}

changed_paths = st.lists(st.builds(ChangedPath, path=st.from_regex(r"[a-z]{1,4}/[a-z]{1,4}\.py", fullmatch=True),
                                   status=st.sampled_from("AMDRE"),
                                   lanes=st.lists(st.sampled_from(LANES), min_size=1, max_size=2, unique=True)
                                   .map(lambda ls: tuple(sorted(ls)))),
                         max_size=5, unique_by=lambda c: c.path).map(tuple)


@st.composite
def judged(draw, text=st.just("")):
    gi = draw(gate_inputs(text=text))
    gi = dataclasses.replace(gi, comparison=dataclasses.replace(gi.comparison, changes=draw(changed_paths)))
    return gi, evaluate(gi)


@given(judged(), st.sampled_from(["agent", "human"]), st.dictionaries(st.from_regex(r"tests/t[0-4]\.py", fullmatch=True),
                                                                      st.sampled_from(["ran", "hit_locally", "memoized"])))
def test_the_report_is_json_with_its_documented_keys_and_says_what_the_verdict_said(gv, lane, sources):
    gi, verdict = gv
    report = report_json(gi, verdict, "main", "a" * 40, "b" * 40, lane, sources)
    assert json.loads(json.dumps(report)) == report
    assert set(report) == REPORT_KEYS
    assert (report["schema"], report["version"], report["lane"]) == ("oracle-gate/report", 4, lane)
    assert [r["line"] for r in report["reasons"]] == [r.line for r in verdict.reasons]
    assert report["exit_code"] == verdict.exit_code and report["verdict"] == VERDICTS[verdict.exit_code]
    assert [r["rank"] for r in report["ranks"]] == list(RANKS)
    assert all(set(r) == REGION_KEYS for r in report["regions"]) and len(report["regions"]) == len(verdict.regions)
    assert all(set(o) == ORACLE_KEYS for o in report["oracles"])
    assert {o["address"] for o in report["oracles"] if o["voted"]} == set(verdict.voters)
    # every changed path is listed under each of its lanes, and nowhere else
    assert set(report["lanes"]) == set(LANES)
    for c in gi.comparison.changes:
        assert all(c.path in report["lanes"][lane_] for lane_ in c.lanes)
    assert sum(len(v) for v in report["lanes"].values()) == sum(len(c.lanes) for c in gi.comparison.changes)


codes = st.sampled_from(["FLOOR", "UNEXERCISED", "FAIL", "WRITESET", "UNMAPPED"])
paths = st.one_of(st.none(), st.sampled_from(["src/a/x.py", "src/a/y.py", "src/b/z.py", "top.py", "../out.py"]))


@st.composite
def reasons(draw, text=st.text(max_size=12)):
    code = draw(codes)
    path = draw(paths)
    line = f"{code} {path or draw(text)} {draw(text)}"
    return Reason(code, draw(st.sampled_from(list(Severity))), line, path,
                  draw(st.one_of(st.none(), st.integers(1, 999))))


@given(st.lists(reasons(st.from_regex(r"[a-z/]{0,8}", fullmatch=True)), max_size=90), st.integers(0, 60))
def test_grouping_keeps_the_count_of_every_reason_and_prints_every_line_when_few(rs, limit):
    out = grouped_lines(rs, limit)
    if len(rs) <= limit:
        assert out == [r.line for r in rs]
        return
    assert out[0].startswith(f"{len(rs)} reason lines, grouped")
    groups = [re.match(r"^(\S+) x(\d+): ", line) for line in out[1:] if not line.startswith("  ")]
    assert all(groups)
    counts = {m.group(1): int(m.group(2)) for m in groups}
    assert len(counts) == len(groups)  # one group per code
    assert sum(counts.values()) == len(rs)
    assert counts == {c: sum(1 for r in rs if r.code == c) for c in {r.code for r in rs}}


def _decode(value):
    return re.sub(r"%(25|0D|0A|3A|2C)", lambda m: chr(int(m.group(1), 16)), value)


@given(st.lists(reasons(st.text(max_size=12)), max_size=6), st.text(max_size=10), st.text(max_size=10))
def test_a_github_annotation_is_one_command_line_that_decodes_to_its_reason(rs, path_text, code_text):
    rs = rs + [Reason(code_text or "X", Severity.POLICY, f"X {path_text}", path_text or "p", 3)]
    verdict = Verdict(2, tuple(rs), (), (), (), None, ())
    out = github_annotations(verdict)
    annotated = [r for r in rs if r.path and not r.path.startswith("../")]
    assert len(out) == len(annotated)
    for line, r in zip(out, annotated):
        assert "\n" not in line and "\r" not in line
        m = re.match(r"^::(error|notice) ([^:]*)::(.*)$", line, re.S)
        assert m, line
        assert m.group(1) == ("notice" if r.severity is Severity.INFO else "error")
        props = dict(kv.split("=", 1) for kv in m.group(2).split(","))
        assert _decode(props["file"]) == r.path and _decode(props["title"]) == r.code
        assert props.get("line") == (str(r.lineno) if r.lineno else None)
        assert _decode(m.group(3)) == r.line


def _text(element):
    return "".join(element.itertext()) + "".join(f.get("message", "") for f in element.iter("failure"))


@given(judged(st.text(max_size=8)))
def test_junit_xml_parses_with_one_case_per_region_and_oracle_and_counts_its_failures(gv):
    gi, verdict = gv
    root = ET.fromstring(junit_xml(gi, verdict))
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    regions = [c for c in cases if c.get("classname") == "oracle-gate.regions"]
    oracles = [c for c in cases if c.get("classname") == "oracle-gate.oracles"]
    assert [c.get("name") for c in regions] == [rv.region.path for rv in verdict.regions]
    assert [c.get("name") for c in oracles] == [o.address for o in verdict.oracles]
    assert len(cases) - len(regions) - len(oracles) in (0, 1)
    failing = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures")) == int(root.get("failures")) == len(failing)
    assert int(suite.get("tests")) == len(cases)
    # nothing blocking is lost: every such reason line is in some case's failure or output (up
    # to the first character XML cannot carry as is)
    text = "\n".join(_text(c) for c in cases)
    for r in verdict.reasons:
        if r.severity is not Severity.INFO:
            assert re.match(r"[^\x00-\x1f\ufffe\uffff]*", r.line).group(0) in text


@given(judged())
def test_the_console_ends_with_the_verdict_and_shows_every_reason_when_few(gv):
    gi, verdict = gv
    out = console_lines(gi, verdict)
    assert out[-1] == f"VERDICT {verdict.name} exit={verdict.exit_code}"
    assert all(r.line in out for r in verdict.reasons)  # generated verdicts have fewer than 40 reasons
    assert sum(1 for line in out if line.startswith("  src/")) == len(verdict.regions)


@given(judged())
def test_the_step_summary_has_one_row_per_reason_and_no_stray_column(gv):
    gi, verdict = gv
    rows = [line for line in step_summary(gi, verdict).splitlines() if line.startswith("| ") and "`" in line]
    reason_rows = [row for row in rows if not row.startswith("| `")]
    assert len(reason_rows) == len(verdict.reasons)
    assert all(row.count("|") == 3 for row in reason_rows)


@given(judged(), st.dates(datetime.date(2024, 1, 1), datetime.date(2030, 1, 1)))
def test_proposed_ledger_rows_are_valid_rows_once_a_person_fills_them_in(gv, today):
    gi, _ = gv
    rows = [json.loads(line.split(" ", 2)[2]) for line in ledger_row_templates(gi, today)]
    filled = [dict(r, reason="reviewed", owner="team") for r in rows]
    ledger = parse_ledger(json.dumps({"version": 1, "entries": filled}), "l.json")
    failing = {c.signature for r in gi.runs for c in r.cases if c.outcome != "passed" and c.signature}
    assert {e.signature for e in ledger.entries} == failing
    assert all(e.added == today and not e.expired(today) for e in ledger.entries)
