"""Laws of the verdict: more passing evidence never hurts, demoted tests never vote, a mixed
write-set never merges, exit codes stay in range, and the rank ladder never passes after a fail."""
import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.classes import OracleClass, RegionKind
from oracle_gate.core.lanes import Lane
from oracle_gate.core.verdict import (
    CaseResult,
    ChangedPath,
    GateFacts,
    Oracle,
    OracleRun,
    Region,
    evaluate,
)

names = st.from_regex(r"t[0-9]{1,2}", fullmatch=True)
outcomes = st.sampled_from(["passed", "passed", "failed", "frozen", "unlisted_skip", "min_examples"])


@st.composite
def facts(draw):
    oracle_names = draw(st.lists(names, unique=True, max_size=5))
    oracles = tuple(
        Oracle(f"tests/{n}.py", draw(st.sampled_from(list(OracleClass)[:3])), draw(st.booleans()))
        for n in oracle_names
    )
    runs = tuple(
        OracleRun(o.address, draw(st.sampled_from([0, 0, 1, None])), draw(st.booleans()),
                  tuple(CaseResult(f"{o.address}::test_{i}", draw(outcomes)) for i in range(draw(st.integers(0, 3)))))
        for o in oracles if draw(st.booleans())
    )
    regions = tuple(
        Region(f"src/m{i}.py", f"src/m{i}.py", draw(st.sampled_from(list(RegionKind) + [None])),
               tuple(sorted(draw(st.sets(st.sampled_from([o.address for o in oracles]))) if oracles else ())))
        for i in range(draw(st.integers(0, 3)))
    )
    lanes = st.lists(st.sampled_from(list(Lane)), min_size=1, max_size=2, unique=True).map(tuple)
    changes = tuple(ChangedPath(f"p{i}", draw(lanes)) for i in range(draw(st.integers(0, 4))))
    return GateFacts(mode=draw(st.sampled_from(["diff", "audit"])), changes=changes, regions=regions,
                     oracles=oracles, runs=runs, allow_oracle_changes=draw(st.booleans()))


@given(facts())
def test_exit_codes_are_the_documented_four_and_zero_means_no_reason(f):
    v = evaluate(f)
    assert v.exit_code in (0, 1, 2, 3)
    blocking = [r for r in v.reasons if r.severity.value != "info"]
    assert (v.exit_code == 0) == (not blocking)


@given(facts())
def test_a_rank_after_a_failing_rank_is_never_pass(f):
    statuses = [status for _, status, _ in evaluate(f).ranks]
    for i, status in enumerate(statuses):
        if status in ("fail", "not_run"):
            assert all(s == "not_run" for s in statuses[i + 1:])


@given(facts())
def test_demoted_oracles_never_vote(f):
    v = evaluate(f)
    demoted = {o.address for o in f.oracles if o.demoted}
    assert not demoted & set(v.voters)
    for rv in v.regions:
        assert not demoted & set(rv.voters)


@given(facts())
def test_demoting_an_oracle_never_raises_any_regions_have(f):
    before = {rv.region.address: rv.have for rv in evaluate(f).regions}
    demoted = dataclasses.replace(f, oracles=tuple(dataclasses.replace(o, demoted=True) for o in f.oracles))
    for rv in evaluate(demoted).regions:
        old = before[rv.region.address]
        assert rv.have is None or (old is not None and rv.have.rank <= old.rank)


@given(facts(), st.sampled_from([Lane.ORACLE, Lane.FLAKE_CONTROL]))
def test_production_with_an_oracle_or_flake_edit_never_merges(f, guarded):
    mixed = dataclasses.replace(
        f, changes=f.changes + (ChangedPath("src/x.py", (Lane.PRODUCTION,)), ChangedPath("oracle/y", (guarded,)))
    )
    v = evaluate(mixed)
    assert v.exit_code == 2 and any(r.code == "WRITESET" for r in v.reasons)


@given(facts(), st.sampled_from(list(RegionKind)))
def test_adding_a_passing_property_covering_every_region_only_helps(f, kind):
    f = dataclasses.replace(f, changes=(), regions=tuple(dataclasses.replace(r, kind=r.kind or kind) for r in f.regions))
    prop = Oracle("oracle/props.py", OracleClass.PROPERTY)
    run = OracleRun(prop.address, 0, True, (CaseResult("oracle/props.py::test_law", "passed"),))
    better = dataclasses.replace(
        f, oracles=f.oracles + (prop,), runs=f.runs + (run,),
        regions=tuple(dataclasses.replace(r, oracles=r.oracles + (prop.address,)) for r in f.regions),
    )
    before, after = evaluate(f), evaluate(better)
    assert not any(r.code == "FLOOR" for r in after.reasons)
    assert not any(r.code == "EMPTY_VOTE" for r in after.reasons)
    assert {r.line for r in after.reasons if r.code not in ("FREEZE_CAP",)} <= {r.line for r in before.reasons}
