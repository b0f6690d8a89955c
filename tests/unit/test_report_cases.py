import json
from pathlib import Path

from oracle_gate.core.report import report_json
from oracle_gate.core.verdict import GateFacts, evaluate

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "report-schema-v1.json").read_text())


def test_an_empty_audit_report_has_exactly_the_locked_keys():
    facts = GateFacts(mode="audit", changes=(), regions=(), oracles=(), runs=())
    report = report_json(facts, evaluate(facts), "main", "abc", "def")
    assert sorted(report) == sorted(SCHEMA["required"])
    assert sorted(report["lanes"]) == sorted(SCHEMA["lanes"])
    assert [r["rank"] for r in report["ranks"]] == SCHEMA["ranks"]
    assert report["verdict"] == SCHEMA["verdicts"]["0"]
    json.dumps(report)
