"""Laws of the verdict over recorded runs: the exit code follows the documented precedence, a run
with an unfrozen failure never votes, a freeze needs a live row matching signature, test and
exception, a skip is a policy failure unless frozen or in the baseline, MIN_EXAMPLES spares an
exhausted search, more evidence never turns a merge into a failure, UNEXERCISED and NUMB mean
exactly what they say, the rank ladder stops at its first failure, and missing evidence
(INFRA_ERROR, or a run a static policy failure stopped) is not reported as a floor or an empty
vote."""
import dataclasses
import datetime
import itertools

from hypothesis import given
from hypothesis import strategies as st

from facts_strategies import SIGNATURES, SYMBOLS, TODAY, gate_inputs  # pants: no-infer-dep
from oracle_gate.core.classes import OracleClass, at_least, best_vote
from oracle_gate.core.judge.verdict import (EXIT_EMPTY_VOTE, EXIT_INFRA, EXIT_MERGE, EXIT_POLICY, EXIT_PRODUCT,
                                            RANK_STATUSES, RANKS, VERDICTS, Case, GateInput, OracleRun, Severity,
                                            MutantResult, evaluate, judge_run, mutant_unit, unit_settled)
from oracle_gate.core.ladder.ledger import FreezeEntry, Ledger
from oracle_gate.core.lanes.compare import Comparison, Finding, RegionPlan

PRECEDENCE = ((Severity.POLICY, EXIT_POLICY), (Severity.INFRA, EXIT_INFRA), (Severity.PRODUCT, EXIT_PRODUCT),
              (Severity.EMPTY_VOTE, EXIT_EMPTY_VOTE), (Severity.FLOOR, EXIT_POLICY))


def blocking(verdict):
    return {r.severity for r in verdict.reasons if r.severity is not Severity.INFO}


def lines(verdict, code=None):
    return {r.line for r in verdict.reasons if code is None or r.code == code}


def judge(case, ledgers=(), baseline_skips=frozenset(), min_examples=0, voting=True, extra=(), exit_code=1):
    run = OracleRun("tests/t.py", "tests/t.py", exit_code, True, (case,) + tuple(extra))
    return judge_run(run, ledgers, TODAY, baseline_skips, min_examples, {}, voting)


# -- exit codes --------------------------------------------------------------------------------------

@given(gate_inputs())
def test_the_exit_code_is_the_first_severity_in_the_documented_order(gi):
    v = evaluate(gi)
    present = blocking(v)
    expected = next((code for severity, code in PRECEDENCE if severity in present), EXIT_MERGE)
    assert v.exit_code == expected and v.name == VERDICTS[v.exit_code]
    assert v.merge == (not present)


def _mechanisms(policy, infra, product, empty, floor):
    region = RegionPlan("src/m.py", "src/m.py", "changed", "pure" if floor else None, "pure", "P" if floor else None,
                        ("tests/p.py",), ())
    runs = []
    if product:  # a voting oracle left no complete record
        runs.append(OracleRun("tests/p.py", "tests/p.py", 1, False, problem="interrupted"))
    if not empty:  # some test executed (a draft's pass: it never votes, but the vote is not empty)
        runs.append(OracleRun("tests/d.py", "tests/d.py", 0, True, (Case("tests/d.py::test_d", "passed"),), kind="draft"))
    comp = Comparison((), (region,), (), (), (), (), (Finding("WRITESET", "WRITESET oracle x changed with production y"),)
                      if policy else (), (("tests/p.py", "P"),))
    return GateInput("diff", comp, tuple(runs), infra_errors=("INFRA_ERROR sandbox",) if infra else (), today=TODAY)


def test_exit_code_precedence_policy_infra_product_empty_vote_floor():
    order = (("policy", EXIT_POLICY), ("infra", EXIT_INFRA), ("product", EXIT_PRODUCT), ("empty", EXIT_EMPTY_VOTE),
             ("floor", EXIT_POLICY))
    for flags in itertools.product((False, True), repeat=5):
        on = dict(zip([name for name, _ in order], flags))
        v = evaluate(_mechanisms(**on))
        expected = next((code for name, code in order if on[name]), EXIT_MERGE)
        assert v.exit_code == expected, (on, [r.line for r in v.reasons])
        codes = {r.code for r in v.reasons}
        assert ("FLOOR" in codes) == (on["floor"] and not on["infra"])
        assert ("EMPTY_VOTE" in codes) == (on["empty"] and not on["infra"])


# -- who votes ------------------------------------------------------------------------------------------

@given(gate_inputs())
def test_a_run_with_a_failed_case_never_votes(gi):
    gi = dataclasses.replace(gi, ledgers=())  # no freezes: every failure counts
    v = evaluate(gi)
    for run in gi.runs:
        if any(c.outcome in ("failed", "error") for c in run.cases) or not run.complete or run.infra_error:
            assert run.address not in v.voters
    comp = gi.comparison
    assert set(v.voters) <= set(comp.class_of) - set(comp.demoted) - set(comp.new_tests)
    for rv in v.regions:
        assert set(rv.voters) <= set(v.voters) and set(rv.voters) <= set(rv.region.candidates)


nodeids = st.sampled_from(["tests/t.py::test_x", "tests/t.py::test_x_v2", "tests/t.py::TestC::test_x[1-a]"])


@given(nodeids, st.sampled_from(SIGNATURES), st.sampled_from(["AssertionError", "TimeoutError"]),
       st.sampled_from(SIGNATURES), st.sampled_from(["test_x", "test_y"]), st.sampled_from(["AssertionError", "TimeoutError"]),
       st.integers(-3, 3))
def test_a_failure_is_frozen_only_by_a_live_row_matching_signature_test_and_exception(
        nodeid, sig, exc, row_sig, row_test, row_exc, expires_in):
    added = TODAY - datetime.timedelta(days=5)
    row = FreezeEntry(row_sig, row_test, row_exc, "flaky", "team", added, TODAY + datetime.timedelta(days=expires_in))
    case = Case(nodeid, "failed", sig, exc)
    ok = Case("tests/t.py::test_ok", "passed")
    j = judge(case, (Ledger("l.json", (row,)),), extra=(ok,))
    matches = (row_sig, row_test, row_exc) == (sig, "test_x", exc)
    frozen = matches and expires_in >= 0
    assert (nodeid in j.frozen) == frozen
    codes = [r.code for r in j.reasons]
    assert ("FAIL" in codes) == (not frozen)
    assert ("FREEZE_EXPIRED" in codes) == (matches and expires_in < 0)
    assert j.passed == frozen  # the rest of the target votes only when the failure is frozen


SKIP_KIND = {"skipped": "skip", "deselected": "skip", "xfailed": "xfail", "xpassed": "xfail"}  # the results protocol


@given(st.sampled_from(sorted(SKIP_KIND)), st.sampled_from(["skipif", "importorskip", None]),
       st.one_of(st.none(), st.sampled_from(SIGNATURES)), st.sampled_from(SIGNATURES),
       st.sampled_from(["test_x", "test_y"]), st.sampled_from(["skip", "xfail", "skipif"]), st.booleans(),
       st.sets(st.sampled_from(SIGNATURES), max_size=1))
def test_a_skip_is_unlisted_unless_frozen_or_in_the_baseline(outcome, marker, sig, row_sig, row_test, row_exc, expired,
                                                              baseline):
    added = TODAY - datetime.timedelta(days=5)
    row = FreezeEntry(row_sig, row_test, row_exc, "flaky", "team", added,
                      TODAY - datetime.timedelta(days=1) if expired else TODAY)
    case = Case("tests/t.py::test_x", outcome, sig, SKIP_KIND[outcome], marker=marker)
    j = judge(case, (Ledger("l.json", (row,)),), frozenset(baseline))
    frozen = sig is not None and (row_sig, row_test, row_exc) == (sig, "test_x", SKIP_KIND[outcome]) and not expired
    listed = frozen or (sig is not None and sig in baseline)
    assert ("UNLISTED_SKIP" in {r.code for r in j.reasons}) == (not listed)
    assert ("tests/t.py::test_x" in j.frozen) == frozen


@given(st.one_of(st.none(), st.integers(0, 300)), st.one_of(st.none(), st.booleans()), st.integers(0, 300), st.booleans())
def test_min_examples_applies_only_to_a_search_that_was_not_exhausted(examples, exhausted, floor, voting):
    j = judge(Case("tests/t.py::test_law", "passed", examples=examples, exhausted=exhausted), min_examples=floor,
              voting=voting, exit_code=0)
    short = bool(floor) and examples is not None and examples < floor and not exhausted
    if voting:
        assert ("MIN_EXAMPLES" in {r.code for r in j.reasons}) == short
        assert j.passed == (not short)
    else:  # a run that does not vote only ever says DIAGNOSTIC
        assert {r.code for r in j.reasons} <= {"DIAGNOSTIC"} and j.passed == (not short)


# -- evidence -----------------------------------------------------------------------------------------------

@given(gate_inputs(noise=30), st.data())
def test_more_executed_symbols_never_add_a_reason(gi, data):
    before = evaluate(gi)
    paths = sorted({r.path for r in gi.comparison.regions}) or ["src/m0.py"]
    more = tuple(dataclasses.replace(r, executed=r.executed | data.draw(st.frozensets(
        st.tuples(st.sampled_from(paths), st.sampled_from(SYMBOLS)), max_size=3))) for r in gi.runs)
    after = evaluate(dataclasses.replace(gi, runs=more))
    assert lines(after) <= lines(before)
    assert not before.merge or after.merge


@given(gate_inputs(noise=30), st.sampled_from("PLE"), st.data())
def test_another_passing_voter_never_makes_the_verdict_worse(gi, cls, data):
    before = evaluate(gi)
    comp = gi.comparison
    new = "tests/new.py"
    regions = tuple(dataclasses.replace(r, candidates=r.candidates + (new,)) if data.draw(st.booleans()) else r
                    for r in comp.regions)
    paths = sorted({r.path for r in regions}) or ["src/m0.py"]
    executed = data.draw(st.frozensets(st.tuples(st.sampled_from(paths), st.sampled_from(SYMBOLS)), max_size=4))
    run = OracleRun(new, new, 0, True, (Case(f"{new}::test_new", "passed"),), executed=executed)
    comp = dataclasses.replace(comp, regions=regions, classes=comp.classes + ((new, cls),))
    after = evaluate(dataclasses.replace(gi, comparison=comp, runs=gi.runs + (run,)))
    assert new in after.voters
    assert blocking(after) <= blocking(before)
    assert not before.merge or after.merge


@given(gate_inputs(noise=30))
def test_a_voter_below_every_floor_is_no_evidence_for_a_changed_symbol(gi):
    # every floor is L or P: a passing class-E test that executed everything changes no UNEXERCISED
    before = evaluate(gi)
    weak = "tests/weak.py"
    everything = frozenset((s.path, s.needs) for s in gi.symbols)
    comp = gi.comparison
    comp = dataclasses.replace(comp, classes=comp.classes + ((weak, "E"),), regions=tuple(
        dataclasses.replace(r, candidates=r.candidates + (weak,)) for r in comp.regions))
    run = OracleRun(weak, weak, 0, True, (Case(f"{weak}::test_all", "passed"),), executed=everything)
    after = evaluate(dataclasses.replace(gi, comparison=comp, runs=gi.runs + (run,)))
    assert lines(after, "UNEXERCISED") == lines(before, "UNEXERCISED")


@given(gate_inputs(noise=30))
def test_unexercised_means_no_voter_at_the_floor_executed_the_symbol(gi):
    v = evaluate(gi)
    classes = gi.comparison.class_of
    runs = {r.address: r for r in gi.runs}
    missing = any(r.severity is Severity.INFRA for r in v.reasons) or not gi.ran_oracles
    expected = set()
    for rv in v.regions:
        region = rv.region
        need = OracleClass(region.required) if region.required else None
        have = best_vote(classes[a] for a in rv.voters)
        assert rv.have == have and rv.need == need
        if need is None or region.kind is None or not at_least(have, need):
            assert rv.symbols == ()
            continue
        strong = [a for a in rv.voters if at_least(classes[a], need)]
        for sym in gi.symbols:
            if sym.path != region.path:
                continue
            ran = tuple(a for a in strong if (region.path, sym.needs) in runs[a].executed)
            assert (sym.qualname, ran) in rv.symbols
            if not ran:
                expected.add(f"{region.path}:{sym.qualname}")
    reported = {r.line.split(" ")[1] for r in v.reasons if r.code == "UNEXERCISED"}
    assert reported == (set() if missing else expected)


@given(gate_inputs())
def test_numb_means_every_value_mutant_of_a_line_that_ran_survived(gi):
    """A line is numb when its value mutants that ran all survived, or, where only crash-like
    mutants (coarse) ran, when those all survived: a killed crash-like mutant never clears a line
    whose value mutants all survived. Each statement of a line is judged on its own."""
    v = evaluate(gi)
    groups = {}
    for m in gi.mutants:  # per changed statement; a mutant without a line is judged with its symbol
        groups.setdefault((f"{m.path}:{m.line or m.symbol}", m.unit), []).append(m)

    def numb(ms):
        ran = [m for m in ms if m.status in ("killed", "survived")]  # not_run and error judge nothing
        values = [m for m in ran if not m.coarse]
        return bool(ran) and all(m.status == "survived" for m in (values or ran))

    expected = {where for (where, _), ms in groups.items() if numb(ms)}
    assert {r.line.split(" ")[1] for r in v.reasons if r.code == "NUMB"} == expected


STATUSES = ("killed", "survived", "not_run", "error")


@given(gate_inputs(), st.lists(st.tuples(st.booleans(), st.sampled_from(STATUSES)), min_size=1, max_size=6), st.data())
def test_a_settled_unit_is_numb_by_no_outcome_of_its_mutants_not_yet_run(gi, shape, data):
    """What lets the gate stop running a unit's mutants (rules/ladder_runs.py, in waves): once
    `unit_settled` holds for the mutants run so far (a prefix of the unit's), the unit's line is not
    NUMB, whether the rest are left out or end in any status at all; and it holds as soon as a value
    mutant is killed."""
    unit = [MutantResult("src/m.py", "f", f"u{i}", f"mutant {i}", status, (), coarse, line=2, unit="1:4")
            for i, (coarse, status) in enumerate(shape)]
    done = unit[:data.draw(st.integers(0, len(unit)))]
    assert {mutant_unit(m) for m in unit} == {("src/m.py", 2, "", "1:4")}
    if not unit_settled(done, unit):
        assert not any(m.status == "killed" and not m.coarse for m in done)
        return
    rest = [dataclasses.replace(m, status=data.draw(st.sampled_from(STATUSES))) for m in unit[len(done):]]
    for mutants in (done, done + rest):
        v = evaluate(dataclasses.replace(gi, mutants=tuple(mutants)))
        assert not [r.line for r in v.reasons if r.code == "NUMB" and " value mutant(s) " not in r.line], mutants


@given(gate_inputs())
def test_a_mutant_without_results_is_never_a_kill_and_never_a_merge(gi):
    v = evaluate(gi)
    errors = [m for m in gi.mutants if m.status == "error"]
    assert bool(errors) <= (Severity.INFRA in blocking(v))
    assert bool(errors) <= (not v.merge)


# -- the ladder and missing evidence ------------------------------------------------------------------------

@given(gate_inputs())
def test_ranks_after_the_first_failing_rank_are_not_run(gi):
    v = evaluate(gi)
    names = [name for name, _, _ in v.ranks]
    statuses = [status for _, status, _ in v.ranks]
    assert names == list(RANKS)
    first = next((i for i, s in enumerate(statuses) if s == "fail"), None)
    assert v.stopped_at == (names[first] if first is not None else None)
    if first is not None:
        assert all(s == "not_run" for s in statuses[first + 1:])


@given(gate_inputs())
def test_a_rank_says_pass_only_when_it_checked_something(gi):
    for name, status, checked in evaluate(gi).ranks:
        assert status in RANK_STATUSES
        if status in ("pass", "nothing_to_check"):
            assert (status == "pass") == (checked > 0), (name, status, checked)


@given(gate_inputs())
def test_missing_evidence_suppresses_floor_unexercised_and_empty_vote(gi):
    # missing because the infrastructure failed, or because a static policy failure stopped the run
    v = evaluate(gi)
    if any(r.severity is Severity.INFRA for r in v.reasons) or not gi.ran_oracles:
        assert not {"FLOOR", "UNEXERCISED", "EMPTY_VOTE"} & {r.code for r in v.reasons}
        assert v.exit_code in (EXIT_POLICY, EXIT_INFRA)
