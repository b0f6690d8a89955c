"""Known verdicts over recorded runs: each reason line and exit code pinned on the smallest input
that produces it."""
import dataclasses
import datetime

from oracle_gate.core.judge.verdict import (BASE_JUDGE, Case, ChangedSymbolEvidence, CleanroomCheck, GateInput, MutantResult,
                                            OracleRun, evaluate)
from oracle_gate.core.ladder.ledger import FreezeEntry, Ledger
from oracle_gate.core.lanes.compare import Comparison, Finding, RegionPlan

TODAY = datetime.date(2026, 11, 30)
TAX = "src/billing/tax.py"
PROPS = "oracle/properties/test_tax_props.py"
EXAMPLES = "tests/test_tax_examples.py"
SIG = "7fbaaf45ec8237ed"


def gate(runs=(), classes=((PROPS, "P"), (EXAMPLES, "E")), kind="pure", candidates=(PROPS, EXAMPLES), demoted=(),
         status="changed", **kw):
    required = {"pure": "P", "state": "L"}[kind]
    region = RegionPlan(TAX, TAX, status, kind, kind, required, candidates, ())
    comp = Comparison((), (region,), (), demoted, (), (), kw.pop("findings", ()), classes)
    return GateInput(kw.pop("mode", "diff"), comp, tuple(runs), today=TODAY, **kw)


def run(address, *cases, exit_code=0, complete=True, executed=((TAX, "rate"),), **kw):
    return OracleRun(address, address, exit_code, complete, tuple(cases), frozenset(executed), **kw)


def passed(address, name="test_rate", **kw):
    return Case(f"{address}::{name}", "passed", **kw)


def failed(address, name="test_rate", signature=SIG, exception="TimeoutError"):
    return Case(f"{address}::{name}", "failed", signature, exception)


def row(test="test_rate", exception="TimeoutError", signature=SIG, added=TODAY - datetime.timedelta(days=3), days=14):
    return Ledger("oracle/freeze-ledger.json", (FreezeEntry(signature, test, exception, "slow CI", "billing", added,
                                                            added + datetime.timedelta(days=days)),))


def lines(verdict):
    return [r.line for r in verdict.reasons]


def test_a_pure_region_judged_only_by_an_example_test_misses_its_floor():
    v = evaluate(gate([run(EXAMPLES, passed(EXAMPLES))], candidates=(EXAMPLES,)))
    assert (v.exit_code, lines(v)) == (2, ["FLOOR src/billing/tax.py kind=pure need=P have=E"])


def test_a_passing_property_that_executed_the_changed_function_merges():
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols))
    assert (v.exit_code, v.name, v.voters, lines(v)) == (0, "merge", (PROPS,), [])
    # pass only where something was checked: one property ran; no lock, replay, probe or ledger row exists
    assert v.ranks == (("R1_lock", "nothing_to_check", 0), ("R1_replay", "nothing_to_check", 0),
                       ("R2_properties", "pass", 1), ("R2_cleanroom", "not_run", 0), ("R3_probes", "nothing_to_check", 0),
                       ("R3_numbness", "not_run", 0),
                       ("R4_freeze", "nothing_to_check", 0))


def test_a_property_that_never_executed_the_changed_function_leaves_it_unexercised():
    # a spurious import made the property a candidate; evidence decides
    symbols = (ChangedSymbolEvidence(TAX, "surcharge", "function", "added", "surcharge"),)
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols))
    assert (v.exit_code, lines(v)) == (2, [
        "UNEXERCISED src/billing/tax.py:surcharge kind=function need=P ran=oracle/properties/test_tax_props.py "
        "(no voting oracle at the floor executed it)"])


def test_an_interrupted_session_is_no_results_with_the_tests_own_last_lines():
    r = run(PROPS, passed(PROPS), complete=False, problem="the session was interrupted (pytest.exit)",
            output_tail="collected 3 items | Exit: done early")
    v = evaluate(gate([r], classes=((PROPS, "P"),), candidates=(PROPS,)))
    assert v.exit_code == 1 and v.voters == ()
    assert lines(v)[0] == ("NO_RESULTS oracle/properties/test_tax_props.py exit=0: the session was interrupted "
                           "(pytest.exit): collected 3 items | Exit: done early")


def test_nothing_executed_is_an_empty_vote_which_outranks_the_floor():
    v = evaluate(gate([]))
    assert (v.exit_code, v.name) == (3, "empty_vote")
    assert lines(v) == ["EMPTY_VOTE 1 production target(s) changed and no oracle test executed",
                        "FLOOR src/billing/tax.py kind=pure need=P have=none"]


def test_missing_infrastructure_is_reported_as_itself_not_as_a_floor_or_an_empty_vote():
    v = evaluate(gate([OracleRun(PROPS, PROPS, None, False, infra_error="could not resolve hypothesis")]))
    assert (v.exit_code, v.name) == (4, "infra_error")
    assert lines(v) == ["INFRA_ERROR oracle/properties/test_tax_props.py: could not resolve hypothesis"]


def test_a_failure_frozen_by_its_own_row_does_not_block_and_the_rest_of_the_target_votes():
    r = run(PROPS, failed(PROPS, "test_remote_rate_v2"), passed(PROPS), exit_code=1)
    v = evaluate(gate([r], ledgers=(row("test_remote_rate"),)))
    assert (v.exit_code, lines(v), v.voters) == (0, [], (PROPS,))


def test_a_row_for_another_test_or_exception_freezes_nothing():
    r = run(PROPS, failed(PROPS), passed(PROPS, "test_other"), exit_code=1)
    for ledger in (row("test_something_else"), row(exception="ValueError")):
        v = evaluate(gate([r], ledgers=(ledger,)))
        assert v.exit_code == 1
        assert lines(v)[0] == (f"FAIL {PROPS} {PROPS}::test_rate TimeoutError signature={SIG}")


def test_an_expired_row_is_a_policy_failure_and_the_failure_counts():
    r = run(PROPS, failed(PROPS), exit_code=1)
    v = evaluate(gate([r], ledgers=(row(added=TODAY - datetime.timedelta(days=20), days=14),)))
    assert v.exit_code == 2
    assert lines(v)[:2] == [
        f"FREEZE_EXPIRED {PROPS}::test_rate signature={SIG} expired 2026-11-24 owner=billing",
        f"FAIL {PROPS} {PROPS}::test_rate TimeoutError signature={SIG}",
    ]


def test_a_skip_no_ledger_or_baseline_covers_is_unlisted():
    skip = Case(f"{EXAMPLES}::test_remote", "skipped", SIG, "skip", marker="skipif", reason="no network")
    r = run(EXAMPLES, skip, passed(EXAMPLES))
    v = evaluate(gate([r], candidates=(EXAMPLES,)))
    assert lines(v)[0] == (f"UNLISTED_SKIP {EXAMPLES}::test_remote skipped by skipif: no network signature={SIG} "
                           "(in no freeze ledger and not in the baseline)")
    assert "UNLISTED_SKIP" not in {r.code for r in evaluate(gate([r], candidates=(EXAMPLES,),
                                                                 baseline_skips=frozenset({SIG}))).reasons}
    # a freeze row for a skip names the kind the recorder gives it (`skip`), as the row template does
    frozen = evaluate(gate([r], candidates=(EXAMPLES,), ledgers=(row("test_remote", "skip"),)))
    assert "UNLISTED_SKIP" not in {r.code for r in frozen.reasons}
    assert "UNLISTED_SKIP" in {r.code for r in evaluate(gate([r], candidates=(EXAMPLES,),
                                                             ledgers=(row("test_remote", "skipif"),))).reasons}


def test_min_examples_fails_a_narrowed_property_but_not_an_exhausted_domain():
    narrowed = run(PROPS, passed(PROPS, examples=1, exhausted=False))
    v = evaluate(gate([narrowed], min_examples=((PROPS, 100),)))
    assert lines(v)[0] == (f"MIN_EXAMPLES {PROPS}::test_rate ran 1 example(s), min_examples=100 "
                           "(the search space was not exhausted)")
    assert PROPS not in v.voters
    finite = run(PROPS, passed(PROPS, examples=12, exhausted=True))
    v = evaluate(gate([finite], min_examples=((PROPS, 100),)))
    assert (v.exit_code, v.voters) == (0, (PROPS,))


def test_a_test_listed_in_a_ledger_never_votes_even_when_it_passes():
    v = evaluate(gate([run(PROPS, passed(PROPS))], classes=((PROPS, "P"),), candidates=(PROPS,), ledgers=(row(),)))
    assert v.voters == () and "FLOOR src/billing/tax.py kind=pure need=P have=none" in lines(v)


def test_a_freeze_on_a_diff_without_production_is_a_policy_failure():
    r = run(PROPS, failed(PROPS), passed(PROPS, "test_other"), exit_code=1)
    v = evaluate(gate([r], status="audited", ledgers=(row(),)))
    assert lines(v) == [f"FREEZE_HIT_ON_EMPTY_DIFF 1 frozen test(s) while no production target changed: {PROPS}::test_rate"]


def test_a_new_ledger_row_must_be_observed_failing_in_the_same_run_with_its_test_and_exception():
    # a freeze lands alone: the diff adds ledger rows and changes no production (every region audited)
    new = row().entries[0]
    v = evaluate(gate([run(PROPS, passed(PROPS))], status="audited", new_ledger_rows=(new,)))
    assert lines(v) == [f"FREEZE_UNOBSERVED signature={SIG} test=test_rate exception=TimeoutError: no governed test "
                        "failed that way in this run; a freeze is for an observed failure"]
    # observed: the same signature, test and exception failed in this run (and the row freezes it)
    seen = run(PROPS, failed(PROPS), passed(PROPS, "test_other"), exit_code=1)
    assert lines(evaluate(gate([seen], status="audited", new_ledger_rows=(new,), ledgers=(row(),)))) == []
    # a row relabelled onto another test is not observed by that failure
    other = row(test="test_refund").entries[0]
    codes = [r.code for r in evaluate(gate([seen], status="audited", new_ledger_rows=(other,))).reasons]
    assert codes[0] == "FREEZE_UNOBSERVED" and "FAIL" in codes  # and the unfrozen failure still fails


def test_a_new_ledger_row_beside_a_production_change_is_a_policy_failure_even_when_observed():
    seen = run(PROPS, failed(PROPS), passed(PROPS, "test_other"), exit_code=1)
    v = evaluate(gate([seen], new_ledger_rows=row().entries, ledgers=(row(),)))
    assert (v.exit_code, [r.code for r in v.reasons]) == (2, ["FREEZE_WITH_PRODUCTION"])


def test_a_changed_line_whose_every_mutant_survived_is_numb_whatever_other_lines_did():
    mutants = (MutantResult(TAX, "rate", "m1", "replaced + with - at line 7", "survived", (PROPS,), line=7),
               MutantResult(TAX, "rate", "m2", "returned 0 at line 7", "survived", (PROPS,), line=7),
               MutantResult(TAX, "rate", "m3", "too slow", "not_run", line=7),
               MutantResult(TAX, "rate", "m4", "`<` -> `<=` at line 5", "killed", (PROPS,), line=5))
    v = evaluate(gate([run(PROPS, passed(PROPS))], mutants=mutants, mutation_ran=True))
    assert (v.exit_code, lines(v)) == (1, ["NUMB src/billing/tax.py:7 survived=2/2 in rate (no voting oracle "
                                           "noticed: replaced + with - at line 7)"])
    assert [(r.path, r.lineno) for r in v.reasons] == [(TAX, 7)]
    killed = mutants[:1] + (MutantResult(TAX, "rate", "m2", "returned 0 at line 7", "killed", (PROPS,), line=7),)
    assert evaluate(gate([run(PROPS, passed(PROPS))], mutants=killed, mutation_ran=True)).exit_code == 0


def test_a_mutant_the_base_told_apart_judges_its_line_and_is_said():
    """An eighth outside round's honest refactors were NUMB (a `>=` only an exact half-cent tie
    tells from `>`). A mutant no voter noticed that the base's code told apart, where the head's
    does what the base's did, is killed by the base: the line is judged, and a note says by what."""
    told = (MutantResult(TAX, "tax", "m1", "`>=` -> `>` at line 8", "killed", (PROPS, BASE_JUDGE), line=8),
            MutantResult(TAX, "tax", "m2", "`10_000` -> `10001` at line 8", "killed", (PROPS,), line=8))
    v = evaluate(gate([run(PROPS, passed(PROPS))], mutants=told, mutation_ran=True))
    assert (v.exit_code, lines(v)) == (0, [
        "BASE_JUDGED src/billing/tax.py:8 in tax: no voter noticed `>=` -> `>` at line 8, and the base's code told "
        "it apart on the voters' calls and their widenings, where the head's does what the base's did: the line "
        "keeps the base's behaviour there (an oracle that draws such inputs judges it itself)"])
    assert dict((n, s) for n, s, _ in v.ranks)["R3_numbness"] == "pass"
    # the same mutant, not told apart: the line is numb
    alone = (dataclasses.replace(told[0], status="survived", oracles=(PROPS,)),)
    assert [r.code for r in evaluate(gate([run(PROPS, passed(PROPS))], mutants=alone, mutation_ran=True)).reasons] \
        == ["NUMB"]


def test_a_changed_line_the_budget_never_reached_fails_the_agent_lane_and_is_reported_in_the_human_lane():
    done = (MutantResult(TAX, "rate", "m1", "`<` -> `<=` at line 5", "killed", (PROPS,), line=5),)
    agent = evaluate(gate([run(PROPS, passed(PROPS))], mutants=done, mutation_ran=True, not_mutated=((TAX, 9, "rate"),)))
    line = ("NOT_MUTATED src/billing/tax.py:9 in rate: the mutation budget was spent before this changed line got a "
            "mutant, so nothing showed it is judged (a smaller diff, a larger mutation_budget, or the human lane)")
    assert (agent.exit_code, lines(agent)) == (2, [line])
    assert dict((n, s) for n, s, _ in agent.ranks)["R3_numbness"] == "fail"
    human = evaluate(gate([run(PROPS, passed(PROPS))], mutants=done, mutation_ran=True, not_mutated=((TAX, 9, "rate"),),
                          lane="human"))
    assert (human.exit_code, lines(human)) == (0, [line])
    assert dict((n, s) for n, s, _ in human.ranks)["R3_numbness"] == "fail"  # never pass for a line it did not check


def test_untested_new_code_in_a_region_judged_at_its_baseline_is_reported_in_the_human_lane_and_fails_the_agent_lane():
    region = RegionPlan(TAX, TAX, "changed", "pure", "pure", "E", (EXAMPLES,), ())  # adoption lowered it to E
    comp = Comparison((), (region,), (), (), (), (), (), ((PROPS, "P"), (EXAMPLES, "E")))
    symbols = (ChangedSymbolEvidence(TAX, "rate_v2", "function", "added", "rate_v2"),)
    runs = (run(EXAMPLES, passed(EXAMPLES)),)  # executed rate, never rate_v2
    agent = evaluate(GateInput("diff", comp, runs, symbols, today=TODAY))
    assert (agent.exit_code, [r.code for r in agent.reasons]) == (2, ["UNEXERCISED"])
    human = evaluate(GateInput("diff", comp, runs, symbols, today=TODAY, lane="human"))
    assert (human.exit_code, lines(human)) == (0, [
        "UNJUDGED src/billing/tax.py:rate_v2: no test executed this added code and its region is judged at its "
        "baseline (class E); reviewed in the human lane (an oracle that runs it ratchets it up)"])
    # at its floor (P), the human lane still needs the evidence
    at_floor = RegionPlan(TAX, TAX, "changed", "pure", "pure", "P", (PROPS,), ())
    comp = Comparison((), (at_floor,), (), (), (), (), (), ((PROPS, "P"),))
    props = (run(PROPS, passed(PROPS)),)
    assert [r.code for r in evaluate(GateInput("diff", comp, props, symbols, today=TODAY, lane="human")).reasons] == [
        "UNEXERCISED"]


def test_a_mutant_whose_session_left_no_results_is_an_infrastructure_error_not_a_kill():
    mutants = (MutantResult(TAX, "rate", "m1", "replaced + with -", "error", (PROPS,)),
               MutantResult(TAX, "rate", "m2", "returned 0", "killed", (PROPS,)))
    v = evaluate(gate([run(PROPS, passed(PROPS))], mutants=mutants, mutation_ran=True))
    assert (v.exit_code, lines(v)) == (4, ["INFRA_ERROR mutant m1 of src/billing/tax.py:rate (replaced + with -): the "
                                           "test session left no results, so it is neither killed nor survived"])
    assert dict((n, (s, c)) for n, s, c in v.ranks)["R3_numbness"] == ("pass", 1)  # only the killed one was checked


def test_a_required_rank_that_checked_nothing_while_a_changed_symbol_needs_it_is_rank_unchecked():
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, mutation_ran=True, cleanroom_ran=True,
                      min_rank_required="R3_numbness"))
    assert dict((n, s) for n, s, _ in v.ranks)["R3_numbness"] == "nothing_to_check"
    assert (v.exit_code, lines(v)) == (2, ["RANK_UNCHECKED R3_numbness: min_rank_required=R3_numbness and this rank "
                                           "checked nothing, while src/billing/tax.py (changed symbol rate) needs it"])
    # the same rank with one mutant checked, or a region no rank needs (no changed symbol), merges
    one = (MutantResult(TAX, "rate", "m1", "returned 0", "killed", (PROPS,)),)
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, mutants=one, mutation_ran=True,
                         cleanroom_ran=True, min_rank_required="R3_numbness")).exit_code == 0
    assert evaluate(gate([run(PROPS, passed(PROPS))], mutation_ran=True, cleanroom_ran=True,
                         min_rank_required="R3_numbness")).exit_code == 0


def test_nothing_to_check_below_the_required_rank_is_no_failure_when_no_region_needs_it():
    # R1_lock and R1_replay are below R2_properties and checked nothing: no region needs a lock or a replay
    v = evaluate(gate([run(PROPS, passed(PROPS))]))
    assert v.exit_code == 0 and dict((n, s) for n, s, _ in v.ranks)["R1_lock"] == "nothing_to_check"


def test_the_ladder_stops_at_a_failing_property_rank():
    v = evaluate(gate([run(PROPS, failed(PROPS), exit_code=1)]))
    assert v.stopped_at == "R2_properties"
    assert [(n, s) for n, s, _ in v.ranks] == [("R1_lock", "nothing_to_check"), ("R1_replay", "nothing_to_check"),
                                                ("R2_properties", "fail"), ("R2_cleanroom", "not_run"),
                                                ("R3_probes", "not_run"), ("R3_numbness", "not_run"),
                                                ("R4_freeze", "not_run")]


def test_a_static_policy_failure_that_stopped_the_run_says_so_instead_of_a_floor():
    finding = Finding("WRITESET", f"WRITESET oracle {PROPS} changed with production {TAX}", PROPS)
    v = evaluate(gate([], findings=(finding,), ran_oracles=False))
    assert (v.exit_code, v.stopped_at) == (2, None)
    assert lines(v) == [finding.line, "NOT_RUN no oracle ran: the verdict was already a policy failure "
                                      "(--oracle-gate-run-all runs them anyway)"]


def test_a_demoted_test_that_fails_is_a_diagnostic_and_never_votes():
    r = run(EXAMPLES, failed(EXAMPLES), exit_code=1)
    v = evaluate(gate([run(PROPS, passed(PROPS)), r], demoted=(EXAMPLES,)))
    assert (v.exit_code, v.voters) == (0, (PROPS,))
    assert lines(v) == [f"DIAGNOSTIC {EXAMPLES} (does not vote) FAIL {EXAMPLES} {EXAMPLES}::test_rate TimeoutError "
                        f"signature={SIG}"]


def test_a_symbol_nobody_exercised_when_the_baseline_was_written_is_unjudged_not_unexercised():
    changed = (ChangedSymbolEvidence(TAX, "surcharge", "function", "changed", "surcharge"),)
    then = lambda *names: ((TAX, frozenset(names)),)
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=changed, baseline_exercised=then("rate")))
    assert (v.exit_code, [r.line for r in v.reasons]) == (0, [
        "UNJUDGED src/billing/tax.py:surcharge: no voter executed it when the baseline was written, so nothing "
        "judged this change (an oracle that runs it ratchets it up)"])
    # exercised then: evidence is required now (a region never drops below what it had)
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=changed, baseline_exercised=then("surcharge")))
    assert v.exit_code == 2 and lines(v)[0].startswith("UNEXERCISED src/billing/tax.py:surcharge ")
    # new code is never grandfathered; and a version-1 baseline (no symbols) grandfathers nothing
    added = (ChangedSymbolEvidence(TAX, "fee", "function", "added", "fee"),)
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=added, baseline_exercised=then())).exit_code == 2
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=changed)).exit_code == 2
    # a function nested in a grandfathered one is part of its body; in an exercised one it is new code
    nested = (ChangedSymbolEvidence(TAX, "surcharge.<locals>.cap", "function", "added", "surcharge.<locals>.cap"),)
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=nested, baseline_exercised=then("rate"))).exit_code == 0
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=nested, baseline_exercised=then("surcharge"))).exit_code == 2
    # a rename (the same code under a new name) is judged as the symbol it was
    renamed = (ChangedSymbolEvidence(TAX, "surcharge_for_user", "function", "added", "surcharge_for_user",
                                     renamed_from="surcharge"),)
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=renamed, baseline_exercised=then("rate"))).exit_code == 0
    assert evaluate(gate([run(PROPS, passed(PROPS))], symbols=renamed,
                         baseline_exercised=then("surcharge"))).exit_code == 2


def test_a_configuration_change_alone_is_reviewed_in_the_human_lane_and_with_production_it_is_not():
    change = Finding("CONFIG_CHANGE", 'CONFIG_CHANGE [python-bootstrap].search_path base=["<PYENV>"] head=["<PYENV_LOCAL>", '
                                      '"<PYENV>"]: set by the head\'s configuration')
    alone = Comparison((), (), (), (), (), (), (change,), ())
    assert evaluate(GateInput("diff", alone, today=TODAY)).exit_code == 2
    human = evaluate(GateInput("diff", alone, today=TODAY, lane="human"))
    assert (human.exit_code, lines(human)) == (0, [change.line + " (reviewed in the human lane, landing alone)"])
    with_production = evaluate(gate([run(PROPS, passed(PROPS))], findings=(change,), lane="human"))
    assert with_production.exit_code == 2 and "CONFIG_CHANGE" in [r.code for r in with_production.reasons]


def test_a_call_that_differs_in_the_clean_room_is_impure_with_its_input_and_both_results():
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    check = CleanroomCheck(TAX, "rate", PROPS, 8, (("rate(5)", "clock+400d", "5", "6"), ("rate(7)", "clock+10y", "7", "8"),
                                                   ("rate(7)", "clock+400d", "7", "8")))
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True))
    assert (v.exit_code, lines(v)) == (1, [
        "IMPURE src/billing/tax.py:rate with the clock 400 days ahead: rate(5) gave 5 under the test and 6 there (2 of 8 "
        "replayed call(s) of oracle/properties/test_tax_props.py differ); a pure region's result depends on its "
        "arguments only"])
    assert dict((n, (s, c)) for n, s, c in v.ranks)["R2_cleanroom"] == ("fail", 8)
    assert v.stopped_at == "R2_cleanroom"


def test_a_call_the_base_answers_otherwise_with_no_voter_failing_is_an_unjudged_change_in_the_agent_lane():
    """A seventh outside attacker's round (against eff33e1): 23 of 25 dishonest patches merged, most
    a bug on inputs no property draws (`cents & 0xFFFF_FFFF`). The base's code beside the head's, on
    the voters' calls and their widenings, tells them apart: a difference no voter failed on is a
    change no oracle judged."""
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    check = CleanroomCheck(TAX, "rate", PROPS, 48, (
        ("past 2**32 (argument 1): rate(4294968296, 825)", "base", "83", "354334884"),
        ("past 2**53: rate(9007199254741993, 9007199254741818)", "base", "1", "2")), compared=40)
    agent = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True))
    assert (agent.exit_code, lines(agent)) == (1, [
        "UNJUDGED_CHANGE src/billing/tax.py:rate past 2**32 (argument 1): rate(4294968296, 825) gives 83 at the head and "
        "354334884 at the base (2 of 40 call(s) compared differ: oracle/properties/test_tax_props.py's calls and their "
        "widenings), and no voting oracle failed: the diff changes what it does where no oracle looks; land an oracle "
        "that draws such inputs first, or take the change through the human lane"])
    assert dict((n, (s, c)) for n, s, c in agent.ranks)["R2_cleanroom"] == ("fail", 48)
    assert agent.stopped_at == "R2_cleanroom"  # no mutant runs after it
    human = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True,
                          lane="human"))
    assert human.exit_code == 0 and lines(human) == lines(agent)  # reported for the reviewer, not blocked
    # an impure call and a changed one are each reported; the impure count leaves the compared calls out
    both = dataclasses.replace(check, differences=(("rate(1, 2)", "clock+400d", "0", "1"), *check.differences))
    found = lines(evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(both,), cleanroom_ran=True)))
    assert [line.split()[0] for line in found] == ["IMPURE", "UNJUDGED_CHANGE"] and "(1 of 8 replayed" in found[0]


def test_a_function_the_base_could_not_run_beside_the_head_is_said_not_compared_and_blocks_nothing():
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    check = CleanroomCheck(TAX, "rate", PROPS, 8, not_compared="ran out of time")
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True))
    assert (v.exit_code, lines(v)) == (0, [
        "NOT_COMPARED src/billing/tax.py:rate: no call of oracle/properties/test_tax_props.py's was run in the base's "
        "code beside the head's (ran out of time), so nothing showed the diff keeps what it did"])
    assert dict((n, s) for n, s, _ in v.ranks)["R2_cleanroom"] == "pass"
    # nothing replayed at all in a pure region: NOT_REPLAYED says it, once
    none = dataclasses.replace(check, replayed=0, why_not="its arguments cannot be pickled (TypeError) x3")
    assert [line.split()[0] for line in lines(evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols,
                                                            cleanroom=(none,), cleanroom_ran=True)))] == ["NOT_REPLAYED"]


def test_calls_a_twin_left_unrun_fail_the_agent_lane_and_are_reported_in_the_human_lane():
    # a head whose every widening ends the interpreter spends the times a twin is started again: the
    # calls after that were compared by nothing, and an agent's change does not merge on that
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    check = CleanroomCheck(TAX, "rate", PROPS, 8, compared=40,
                           lost="the head twin's interpreter ended 32 times, the most it is started again")
    agent = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True))
    assert (agent.exit_code, lines(agent)) == (2, [
        "TWIN_LOST src/billing/tax.py:rate: some of oracle/properties/test_tax_props.py's calls were left unrun in the "
        "clean room (the head twin's interpreter ended 32 times, the most it is started again), so nothing "
        "compared them; in the agent lane nothing merges unjudged (a smaller or faster change, or the human lane)"])
    assert dict((n, s) for n, s, _ in agent.ranks)["R2_cleanroom"] == "fail"
    human = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True,
                          lane="human"))
    assert human.exit_code == 0 and [line.split()[0] for line in lines(human)] == ["TWIN_LOST"]
    # a difference the twins did show is the verdict: the product failure, not the lost calls
    changed = dataclasses.replace(check, differences=(("rate(1, 2)", "base", "0", "1"),))
    found = lines(evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(changed,), cleanroom_ran=True)))
    assert [line.split()[0] for line in found] == ["UNJUDGED_CHANGE"]


def test_calls_that_replay_the_same_pass_the_clean_room_rank_with_their_count():
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    v = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(CleanroomCheck(TAX, "rate", PROPS, 8),),
                      cleanroom_ran=True))
    assert (v.exit_code, lines(v), dict((n, (s, c)) for n, s, c in v.ranks)["R2_cleanroom"]) == (0, [], ("pass", 8))
    nothing = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom_ran=True))
    assert dict((n, s) for n, s, _ in nothing.ranks)["R2_cleanroom"] == "nothing_to_check"


def test_a_function_none_of_whose_calls_could_be_replayed_fails_the_agent_lane_and_is_reported_in_the_human_lane():
    symbols = (ChangedSymbolEvidence(TAX, "rate", "function", "changed", "rate"),)
    check = CleanroomCheck(TAX, "rate", PROPS, 0, why_not="its arguments cannot be pickled (TypeError) x30")
    agent = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True))
    assert (agent.exit_code, lines(agent)) == (2, [
        "NOT_REPLAYED src/billing/tax.py:rate: no call oracle/properties/test_tax_props.py made could be replayed in a "
        "clean interpreter (its arguments cannot be pickled (TypeError) x30), so nothing showed its result depends on "
        "its arguments only"])
    human = evaluate(gate([run(PROPS, passed(PROPS))], symbols=symbols, cleanroom=(check,), cleanroom_ran=True,
                          lane="human"))
    assert human.exit_code == 0 and lines(human)[0].endswith("; reviewed in the human lane")


def test_a_line_whose_voters_notice_only_a_crash_like_mutant_is_numb_whoever_judges_it():
    # a base oracle that checks only that the result is an int (a "smoke" property, however it
    # landed) kills `return None` and no value mutant: the line's values are not judged
    def verdict(*statuses):
        mutants = tuple(MutantResult(TAX, "late_fee", f"m{i}", what, status, (PROPS,), coarse, line=12)
                        for i, (what, status, coarse) in enumerate(statuses))
        return evaluate(gate([run(PROPS, passed(PROPS))], mutants=mutants, mutation_ran=True))

    crash_only = verdict(("`return 6000 if ...` -> `return None`", "killed", True), ("`6000` -> `6001`", "survived", False),
                         ("`>` -> `>=`", "survived", False))
    assert (crash_only.exit_code, lines(crash_only)) == (1, [
        "NUMB src/billing/tax.py:12 survived=2/2 in late_fee (its voters noticed only a crash-like mutant, no value "
        "mutant: `6000` -> `6001`)"])
    # one value mutant killed: the line's values are judged
    assert verdict(("`return ...` -> `return None`", "killed", True), ("`6000` -> `6001`", "killed", False),
                   ("`>` -> `>=`", "survived", False)).exit_code == 0
    # only crash-like mutants ran (the line has no value to mutate): their kills are the evidence there is
    assert verdict(("drop `log(x)`", "killed", True)).exit_code == 0
    assert lines(verdict(("drop `log(x)`", "survived", True))) == [
        "NUMB src/billing/tax.py:12 survived=1/1 in late_fee (no voting oracle noticed: drop `log(x)`)"]


def test_each_statement_packed_onto_a_changed_line_is_judged_on_its_own():
    # `if parts > 1000: return [base] * parts`: the condition's mutant is killed, the branch no
    # property draws is not; `a; b` alike
    mutants = (MutantResult(TAX, "split", "m1", "`>` -> `>=`", "killed", (PROPS,), line=3, unit="3:4"),
               MutantResult(TAX, "split", "m2", "`*` -> `/`", "survived", (PROPS,), line=3, unit="3:21"),
               MutantResult(TAX, "split", "m3", "`return [base] * parts` -> `return None`", "survived", (PROPS,), True,
                            line=3, unit="3:21"))
    v = evaluate(gate([run(PROPS, passed(PROPS))], mutants=mutants, mutation_ran=True))
    assert (v.exit_code, lines(v)) == (1, [
        "NUMB src/billing/tax.py:3 (the statement at column 22) survived=1/1 in split (no voting oracle noticed: "
        "`*` -> `/`)"])
    killed = mutants[:2] + (dataclasses.replace(mutants[2], status="killed"),)
    assert [r.code for r in evaluate(gate([run(PROPS, passed(PROPS))], mutants=killed, mutation_ran=True)).reasons] == [
        "NUMB"]  # only a crash-like kill: the values of the branch are still not judged
    judged = (mutants[0], dataclasses.replace(mutants[1], status="killed"), mutants[2])
    assert evaluate(gate([run(PROPS, passed(PROPS))], mutants=judged, mutation_ran=True)).exit_code == 0


def test_a_removed_rejection_put_back_is_judged_apart_from_the_statement_in_its_place():
    mutants = (MutantResult(TAX, "credit", "m1", "`+` -> `-`", "killed", (PROPS,), line=7, unit="7:8"),
               MutantResult(TAX, "credit", "m2", "`raise ValueError('x')` (the diff removed it) put back at line 7",
                            "survived", (PROPS,), line=7, unit="7:-1"))
    v = evaluate(gate([run(PROPS, passed(PROPS))], mutants=mutants, mutation_ran=True))
    assert (v.exit_code, lines(v)) == (1, [
        "NUMB src/billing/tax.py:7 (code the diff removed before it) survived=1/1 in credit (no voting oracle "
        "noticed: `raise ValueError('x')` (the diff removed it) put back at line 7)"])


def test_a_condition_the_diff_added_is_judged_apart_from_its_statement():
    # `if cents <= 0 and account == "__never__":` the `and` -> `or` mutant dies; dropping the
    # added condition (the guard back) survives
    mutants = (MutantResult(TAX, "credit", "m1", "`and` -> `or`", "killed", (PROPS,), line=7, unit="7:4"),
               MutantResult(TAX, "credit", "m2", "`account == '__never__'` -> `True` (a condition the diff added, "
                            "dropped) at line 7", "survived", (PROPS,), line=7, unit="7:22:operand"))
    v = evaluate(gate([run(PROPS, passed(PROPS))], mutants=mutants, mutation_ran=True))
    assert (v.exit_code, lines(v)) == (1, [
        "NUMB src/billing/tax.py:7 (the condition the diff added at column 23) survived=1/1 in credit (no voting "
        "oracle noticed: `account == '__never__'` -> `True` (a condition the diff added, dropped) at line 7)"])
    noticed = mutants[:1] + (dataclasses.replace(mutants[1], status="killed"),)
    assert evaluate(gate([run(PROPS, passed(PROPS))], mutants=noticed, mutation_ran=True)).exit_code == 0


def test_an_empty_vote_over_regions_grandfathered_with_no_voter_is_reviewed_in_the_human_lane_only():
    # a package with no tests at adoption, renamed: nothing could vote; a person reviewed it
    region = RegionPlan(TAX, TAX, "changed", "pure", "pure", None, (), ())
    comp = Comparison((), (region,), (), (), (), (), (), ())
    human = evaluate(GateInput("diff", comp, (), today=TODAY, lane="human"))
    assert (human.exit_code, lines(human)) == (0, [
        "UNJUDGED src/billing/tax.py: its baseline had no voting oracle, so nothing judged this change (an oracle "
        "for it ratchets it up)",
        "EMPTY_VOTE 1 production target(s) changed and no oracle test executed; every one had no voter at its "
        "baseline (UNJUDGED) or is a new module held to the standard beside it: reviewed in the human lane"])
    agent = evaluate(GateInput("diff", comp, (), today=TODAY))
    assert agent.exit_code == 3 and sorted(r.code for r in agent.reasons) == ["EMPTY_VOTE", "UNJUDGED"]
    # one changed region with a floor: the empty vote blocks in both lanes
    judged = RegionPlan("src/billing/money.py", "src/billing/money.py", "changed", "pure", "pure", "E", (EXAMPLES,), ())
    comp = Comparison((), (region, judged), (), (), (), (), (), ((EXAMPLES, "E"),))
    assert evaluate(GateInput("diff", comp, (), today=TODAY, lane="human")).exit_code == 3


def test_a_new_module_held_to_the_standard_beside_it_that_no_test_reaches_is_a_reviewers_call_in_the_human_lane():
    # The human lane held it to E (what adoption found beside it): with no test at head that is
    # reported, as untested code in a region judged at its baseline is; owing its floor it blocks.
    fresh = RegionPlan(TAX, TAX, "added", "pure", "pure", "E", (), ())
    comp = Comparison((), (fresh,), (), (), (), (), (), ())
    human = evaluate(GateInput("diff", comp, (), today=TODAY, lane="human"))
    assert (human.exit_code, lines(human)) == (0, [
        "UNJUDGED src/billing/tax.py: no voting test reached this new module at head, and it is held to the standard "
        "beside it (class E, below its floor); reviewed in the human lane (an oracle for it ratchets it up)",
        "EMPTY_VOTE 1 production target(s) changed and no oracle test executed; every one had no voter at its "
        "baseline (UNJUDGED) or is a new module held to the standard beside it: reviewed in the human lane"])
    agent = evaluate(GateInput("diff", comp, (), today=TODAY))
    assert agent.exit_code == 3 and sorted(r.code for r in agent.reasons) == ["EMPTY_VOTE", "FLOOR"]
    full = dataclasses.replace(fresh, required="P")
    assert evaluate(GateInput("diff", Comparison((), (full,), (), (), (), (), (), ()), (), today=TODAY,
                              lane="human")).exit_code == 3


def test_two_long_outcomes_are_shown_where_they_part():
    """A store that keeps its caller's dict differs from the base only at the end of a long
    outcome (its arguments' state, then `KEPT`): the reason line shows that end, not two equal starts."""
    from oracle_gate.core.judge.verdict import apart
    state = 'null, leaving its arguments [[{"__class__":"Store","balances":{"acme":1000,"globex":500}}],{}]'
    head, base = apart(state + ", and keeps its caller's argument 2", state, 60)
    assert head.endswith("and keeps its caller's argument 2") and head.startswith("...") and len(head) <= 63
    assert base.startswith("...") and state.endswith(base[3:])
    assert apart("abc", "abd", 60) == ("abc", "abd")  # short: as they are
    assert apart("x" * 100, "y" * 100, 60) == ("x" * 60, "y" * 60)  # parting at once: their starts


def test_a_decorator_whose_wrapper_ran_under_a_test_was_exercised():
    """A nineteenth outside round's honest h8 added a logging decorator: its body runs at import
    (which is no evidence), its wrapper under every test of the method it wraps; it was
    `UNEXERCISED`. A function whose nested function ran while a test ran counts as run: its code
    made what ran. A nested function that did not run is no evidence for the one it is in."""
    added = (ChangedSymbolEvidence(TAX, "_logged", "function", "added", "_logged"),)
    wrapped = run(PROPS, passed(PROPS), executed=((TAX, "rate"), (TAX, "_logged.<locals>.wrapper")))
    assert evaluate(gate([wrapped], symbols=added)).exit_code == 0
    alone = run(PROPS, passed(PROPS), executed=((TAX, "rate"),))
    v = evaluate(gate([alone], symbols=added))
    assert v.exit_code == 2 and lines(v)[0].startswith("UNEXERCISED src/billing/tax.py:_logged ")
    # (another module's function of that name is not it)
    elsewhere = run(PROPS, passed(PROPS), executed=((TAX, "rate"), ("src/billing/money.py", "_logged.<locals>.w")))
    assert evaluate(gate([elsewhere], symbols=added)).exit_code == 2
