"""Laws of classes and floors: rank order is the floor order, a class that never votes (a freeze,
a draft, a probe set) never satisfies a floor, the best vote dominates every voting member, and
`stronger` picks the higher requirement. The class and kind domains are finite, so those laws are
checked exhaustively; lists of classes are sampled."""
import itertools

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.classes import OracleClass, RegionKind, at_least, best_vote, meets_floor, stronger

CLASSES = list(OracleClass)
KINDS = list(RegionKind)


def test_meeting_a_floor_is_monotone_in_rank():
    for kind, a, b in itertools.product(KINDS, CLASSES, CLASSES):
        if a.rank <= b.rank and meets_floor(kind, a):
            assert meets_floor(kind, b), (kind, a, b)


def test_a_class_that_never_votes_or_nothing_never_meets_a_floor_and_the_floor_itself_does():
    silent = [c for c in CLASSES if not c.votes]
    assert set(silent) == {OracleClass.FREEZE, OracleClass.DRAFT, OracleClass.PROBE}
    for kind in KINDS:
        assert not any(meets_floor(kind, c) for c in silent)
        assert not meets_floor(kind, None)
        assert meets_floor(kind, kind.floor)


def test_no_requirement_is_always_met_and_stronger_is_the_higher_requirement():
    for a, b in itertools.product(CLASSES + [None], repeat=2):
        assert at_least(a, None)
        s = stronger(a, b)
        assert s in (a, b) and stronger(b, a) in (a, b)
        if a is not None and b is not None:
            assert s.rank == max(a.rank, b.rank)
        for have in CLASSES:  # meeting the stronger requirement meets both
            if at_least(have, s):
                assert at_least(have, a) and at_least(have, b)


def test_class_parse_round_trips():
    for c in CLASSES:
        assert OracleClass.parse(c.value) is c
        assert OracleClass.parse(c.name.lower()) is c


@given(st.lists(st.sampled_from(CLASSES), max_size=12))
def test_best_vote_dominates_and_ignores_freezes(cs):
    best = best_vote(cs)
    voting = [c for c in cs if c.votes]
    assert (best is None) == (not voting)
    assert all(best.rank >= c.rank for c in voting) if best else True
    assert best_vote(cs + [OracleClass.FREEZE, OracleClass.DRAFT, OracleClass.PROBE]) == best
