"""Laws of classes and floors: rank order is the floor order, a freeze never satisfies a floor,
and the best vote dominates every voting member. The class and kind domains are finite, so those
laws are checked exhaustively; lists of classes are sampled."""
import itertools

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.classes import OracleClass, RegionKind, best_vote, meets_floor

CLASSES = list(OracleClass)
KINDS = list(RegionKind)


def test_meeting_a_floor_is_monotone_in_rank():
    for kind, a, b in itertools.product(KINDS, CLASSES, CLASSES):
        if a.rank <= b.rank and meets_floor(kind, a):
            assert meets_floor(kind, b), (kind, a, b)


def test_a_freeze_or_nothing_never_meets_a_floor_and_the_floor_itself_does():
    for kind in KINDS:
        assert not meets_floor(kind, OracleClass.FREEZE)
        assert not meets_floor(kind, None)
        assert meets_floor(kind, kind.floor)


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
    assert best_vote(cs + [OracleClass.FREEZE]) == best
