"""Laws of the report: it survives a JSON round trip, says exactly what the verdict said, places
every changed path in its lanes, and the ledger rows it proposes are valid ledger entries."""
import datetime
import json

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.lanes import Lane
from oracle_gate.core.ledger import parse_ledger
from oracle_gate.core.report import VERDICTS, console_lines, ledger_row_templates, report_json
from oracle_gate.core.verdict import CaseResult, ChangedPath, GateFacts, OracleRun, evaluate

sigs = st.text(alphabet="0123456789abcdef", min_size=16, max_size=16)
cases = st.builds(CaseResult, nodeid=st.from_regex(r"tests/t[0-9]\.py::test_[a-z]{1,6}(_v[0-9])?", fullmatch=True),
                  outcome=st.sampled_from(["passed", "failed", "frozen", "unlisted_skip"]), signature=sigs,
                  exception=st.sampled_from(["TimeoutError", "skip", None]))
runs = st.lists(st.builds(OracleRun, address=st.from_regex(r"tests/t[0-9]\.py", fullmatch=True),
                          exit_code=st.sampled_from([0, 1]), complete=st.booleans(),
                          cases=st.lists(cases, max_size=4).map(tuple)), max_size=4).map(tuple)
changes = st.lists(st.builds(ChangedPath, path=st.from_regex(r"[a-z]{1,5}/[a-z]{1,5}\.py", fullmatch=True),
                             lanes=st.lists(st.sampled_from(list(Lane)), min_size=1, max_size=2, unique=True).map(tuple)),
                   max_size=5).map(tuple)
facts = st.builds(GateFacts, mode=st.sampled_from(["diff", "audit"]), changes=changes, regions=st.just(()),
                  oracles=st.just(()), runs=runs, today=st.dates(datetime.date(2024, 1, 1), datetime.date(2030, 1, 1)))


@given(facts)
def test_the_report_round_trips_and_says_what_the_verdict_said(f):
    verdict = evaluate(f)
    report = report_json(f, verdict, "main", "a" * 40, "b" * 40)
    assert json.loads(json.dumps(report)) == report
    assert [r["line"] for r in report["reasons"]] == [r.line for r in verdict.reasons]
    assert report["exit_code"] == verdict.exit_code and report["verdict"] == VERDICTS[verdict.exit_code]


@given(facts)
def test_every_changed_path_is_listed_under_each_of_its_lanes(f):
    report = report_json(f, evaluate(f), None, None, None)
    for change in f.changes:
        for lane in change.lanes:
            assert change.path in report["lanes"][lane.value]
    assert sum(len(v) for v in report["lanes"].values()) == sum(len(c.lanes) for c in f.changes)


@given(facts)
def test_the_console_ends_with_the_verdict_and_shows_every_reason(f):
    verdict = evaluate(f)
    lines = console_lines(f, verdict)
    assert lines[-1] == f"VERDICT {VERDICTS[verdict.exit_code]} exit={verdict.exit_code}"
    assert all(r.line in lines for r in verdict.reasons)


@given(facts)
def test_proposed_ledger_rows_are_valid_once_a_person_fills_them_in(f):
    rows = [json.loads(line.split(" ", 2)[2]) for line in ledger_row_templates(f)]
    filled = [dict(r, reason="reviewed", owner="team") for r in rows]
    ledger = parse_ledger(json.dumps({"version": 1, "entries": filled}), "l.json")
    assert {e.signature for e in ledger.entries} == {r["signature"] for r in rows}
    assert all(e.expires > e.added for e in ledger.entries)
