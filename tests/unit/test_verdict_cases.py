import datetime

from oracle_gate.core.classes import OracleClass, RegionKind
from oracle_gate.core.lanes import Lane
from oracle_gate.core.verdict import CaseResult, ChangedPath, GateFacts, Oracle, OracleRun, Region, evaluate


def facts(**kw):
    base = dict(mode="diff", changes=(ChangedPath("src/billing/tax.py", (Lane.PRODUCTION,)),),
                regions=(Region("src/billing/tax.py", "src/billing/tax.py", RegionKind.PURE, ("tests/test_tax.py",)),),
                oracles=(Oracle("tests/test_tax.py", OracleClass.EQUALITY),),
                runs=(OracleRun("tests/test_tax.py", 0, True, (CaseResult("tests/test_tax.py::test_x", "passed"),)),),
                today=datetime.date(2026, 11, 30))
    base.update(kw)
    return GateFacts(**base)


def test_a_pure_region_with_only_an_equality_test_misses_its_floor():
    v = evaluate(facts())
    assert v.exit_code == 2
    assert [r.line for r in v.reasons] == ["FLOOR src/billing/tax.py kind=pure need=P have=E"]


def test_os_exit_zero_without_results_is_not_a_pass():
    v = evaluate(facts(runs=(OracleRun("tests/test_tax.py", 0, False, ()),)))
    assert v.exit_code == 1
    assert any(r.code == "NO_RESULTS" for r in v.reasons)


def test_nothing_executed_is_an_empty_vote():
    v = evaluate(facts(runs=()))
    assert v.exit_code == 3
    assert {r.code for r in v.reasons} == {"FLOOR", "EMPTY_VOTE"}


def test_a_frozen_only_run_does_not_vote():
    runs = (OracleRun("tests/test_tax.py", 0, True, (CaseResult("tests/test_tax.py::test_x", "frozen"),)),)
    v = evaluate(facts(runs=runs, oracles=(Oracle("tests/test_tax.py", OracleClass.PROPERTY),)))
    assert v.voters == () and v.exit_code == 2
