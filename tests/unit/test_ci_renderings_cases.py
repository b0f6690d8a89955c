"""The CI renderings of a verdict, checked against what CI systems accept: the JUnit XML against
the JUnit schema (fixtures/junit.xsd, validated by xmlschema), GitHub workflow commands and the
step summary byte for byte."""
from pathlib import Path

import xmlschema

from oracle_gate.core.judge.report import github_annotations, junit_xml, step_summary
from oracle_gate.core.judge.verdict import Case, GateInput, OracleRun, evaluate
from oracle_gate.core.lanes.compare import Comparison, Finding, RegionPlan

SCHEMA = xmlschema.XMLSchema(str(Path(__file__).resolve().parents[2] / "fixtures" / "junit.xsd"))


def sample() -> GateInput:
    region = RegionPlan("src/m.py", "src/m.py", "changed", "pure", "pure", "P",
                        ("oracle/t.py", "tests/e.py"), ("oracle/t.py",))
    comp = Comparison((), (region,), (), (), (), (), (Finding("UNMAPPED", "UNMAPPED docs/x,y:z.bin is owned by no target",
                                                             "docs/x,y:z.bin"),),
                      (("oracle/t.py", "P"), ("tests/e.py", "E")))
    runs = (
        OracleRun("oracle/t.py", "oracle/t.py", 1, True,
                  (Case("oracle/t.py::test_law", "failed", "0123456789abcdef", "AssertionError",
                        detail="E   assert 1 == 2 \x1b[31m<&>\x1b[0m"),)),
        OracleRun("tests/e.py", "tests/e.py", 0, True, (Case("tests/e.py::test_one", "passed"),)),
    )
    return GateInput("diff", comp, runs)


def test_the_junit_report_is_valid_against_the_junit_schema():
    gi = sample()
    text = junit_xml(gi, evaluate(gi))
    SCHEMA.validate(text)
    doc = SCHEMA.to_dict(text)
    cases = doc["testsuite"][0]["testcase"]
    assert {(c["@classname"], c["@name"]) for c in cases} >= {("oracle-gate.regions", "src/m.py"),
                                                              ("oracle-gate.oracles", "oracle/t.py")}


def test_github_annotations_are_one_command_each_and_escaped():
    gi = sample()
    lines = github_annotations(evaluate(gi))
    assert "::error file=docs/x%2Cy%3Az.bin,title=UNMAPPED::UNMAPPED docs/x,y:z.bin is owned by no target" in lines
    fail = next(l for l in lines if "title=FAIL" in l)
    assert fail.startswith("::error file=oracle/t.py,title=FAIL::FAIL oracle/t.py oracle/t.py::test_law AssertionError ")
    assert all("\n" not in l and "\r" not in l for l in lines)


def test_the_step_summary_is_markdown_with_the_verdict_first():
    gi = sample()
    text = step_summary(gi, evaluate(gi))
    assert text.splitlines()[0] == "## oracle-gate: policy failure (exit 2)"
    assert "| `src/m.py` | changed | pure | P | E | 1 |" in text
    assert "\x1b" not in text  # terminal colours from a test's output never reach the page
    assert "| UNMAPPED | `UNMAPPED docs/x,y:z.bin is owned by no target` |" in text
