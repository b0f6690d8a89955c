"""Laws of the clean room's protocol: the canonical encoding is a fixed point of its own JSON, a
watch list, the base's sources and a results file round-trip, a result read in any order does not
depend on the order its lists came in and lists them by their canonical JSON, a difference is exactly a variant
that ran and did something else than the call did under its test, and widening a call's arguments
is deterministic, leaves them as they were, and always changes them; a list is encoded as its items
are, in order; an outcome is short and equal where the encodings are."""
import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_gate.core.protocol import cleanroom as CR

# Timing is no law here: a loaded machine (2 cores, suites in parallel) must not fail a deadline.
load_tolerant = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12)
outcomes = st.sampled_from(["1", "[1,2]", "raised builtins.ValueError", CR.RAISED, CR.NOT_RUN + "cannot rebuild"])
calls = st.builds(CR.Call, path=st.just("src/m.py"), line=st.integers(1, 99), name=st.sampled_from(["f", "g"]),
                  input=st.text(max_size=10), expected=outcomes,
                  results=st.lists(st.tuples(st.sampled_from([v for v, _, _ in CR.VARIANTS] + [CR.AGAIN]), outcomes),
                                   max_size=5).map(tuple))
results = st.builds(CR.CleanroomResults, calls=st.lists(calls, max_size=4).map(tuple),
                    unreplayed=st.lists(st.builds(CR.Unreplayed, path=st.just("src/m.py"), line=st.integers(1, 99),
                                                  name=st.just("h"), calls=st.integers(0, 500),
                                                  why=st.text(max_size=20)), max_size=2).map(tuple),
                    errors=st.lists(st.text(max_size=20), max_size=2).map(tuple))


@load_tolerant
@given(json_values)
def test_the_canonical_encoding_is_a_fixed_point_of_its_own_json(value):
    once = CR.canonical(value)
    assert CR.canonical(json.loads(once)) == once


@load_tolerant
@given(st.lists(st.builds(CR.Watch, path=st.sampled_from(["a.py", "b/c.py"]), name=st.sampled_from(["f", "g"]),
                          first=st.integers(1, 50), last=st.integers(1, 50), pure=st.booleans(),
                          unordered=st.booleans()), max_size=5))
def test_a_watch_list_round_trips_whatever_its_order(watches):
    """A watch list is a set: it round-trips as one, each watch once (two changed functions nested
    in one are watched through it once)."""
    decoded = CR.decode_watch(CR.encode_watch(watches))
    assert set(decoded) == set(watches) and len(decoded) == len(set(watches))
    assert CR.encode_watch(reversed(watches)) == CR.encode_watch(watches)


@load_tolerant
@given(st.lists(json_values, max_size=6), st.randoms(use_true_random=False))
def test_a_result_read_in_any_order_is_the_same_whatever_order_its_lists_came_in_and_a_fixed_point(items, rnd):
    def shuffled(value):
        if isinstance(value, list):
            value = [shuffled(v) for v in value]
            rnd.shuffle(value)
        elif isinstance(value, dict):
            value = {k: shuffled(v) for k, v in value.items()}
        return value

    once = CR.in_any_order(items)
    assert CR.canonical(CR.in_any_order(shuffled(copy.deepcopy(items)))) == CR.canonical(once)
    assert CR.canonical(CR.in_any_order(once)) == CR.canonical(once)


@load_tolerant
@given(st.lists(json_values | st.integers() | st.text(), max_size=8))
def test_a_list_read_in_any_order_lists_its_items_by_their_canonical_json(items):
    """Whatever key makes it quick, the order is the canonical texts' (ints and texts included,
    whose texts do not sort as the values do: 10 before 9, quoted text before numbers)."""
    assert [CR.canonical(v) for v in CR.in_any_order(items)] == sorted(CR.canonical(CR.in_any_order(v)) for v in items)


@load_tolerant
@given(results)
def test_a_results_file_round_trips(found):
    assert CR.loads(CR.dumps(found)) == found


@load_tolerant
@given(results)
def test_a_difference_is_exactly_a_variant_that_ran_and_did_something_else(found):
    expected = {(id(c), v) for c in found.calls for v, got in c.results
                if not got.startswith(CR.NOT_RUN) and got != c.expected
                and not (c.expected == CR.RAISED and got.startswith("raised "))}
    assert {(id(c), v) for c, v, _ in found.differences()} == expected


@load_tolerant
@given(outcomes)
def test_a_call_is_the_same_as_itself(outcome):
    assert CR.same(outcome, outcome)


@load_tolerant
@given(st.dictionaries(st.sampled_from(["a.py", "src/b/c.py", "d/__init__.py"]), st.text(max_size=200), max_size=3))
def test_the_base_sources_round_trip(sources):
    assert CR.decode_base(CR.encode_base(sources)) == sources


arguments = st.tuples(st.lists(json_values | st.binary(max_size=8) | st.tuples(st.integers(), st.text(max_size=4)),
                               max_size=3).map(tuple),
                      st.dictionaries(st.sampled_from(["rate", "note"]), json_values, max_size=2))


@load_tolerant
@given(arguments)
def test_widening_is_deterministic_leaves_the_arguments_as_they_were_and_always_changes_them(call):
    args, kwargs = call
    before = CR.canonical([list(args), kwargs])
    widened = CR.widenings(args, kwargs)
    assert CR.canonical([list(args), kwargs]) == before  # nothing it was given changed
    again = CR.widenings(*copy.deepcopy(call))  # an equal copy, as a clean interpreter unpickles it
    assert [(n, CR.canonical([list(a), k])) for n, a, k in again] == [(n, CR.canonical([list(a), k])) for n, a, k in widened]
    for name, a, k in widened:
        assert CR.canonical([list(a), k]) != before, name  # a widening that changes nothing is not listed
        assert len(a) == len(args) and set(k) == set(kwargs)  # the same call: its positions and names kept
    assert len({n for n, _, _ in widened}) == len(widened)  # each named once


@load_tolerant
@given(arguments)
def test_an_argument_whose_type_is_kept_keeps_it_through_every_widening(call):
    args, kwargs = call
    for name, a, k in CR.widenings(args, kwargs, kept=[*range(len(args)), *kwargs]):
        assert [type(v) for v in a] == [type(v) for v in args], name
        assert {n: type(v) for n, v in k.items()} == {n: type(v) for n, v in kwargs.items()}, name


@load_tolerant
@given(json_values, json_values, st.integers(0, 3))
def test_an_outcome_is_short_and_tells_two_results_apart_as_their_encodings_do(a, b, times):
    """However long a result (a list widened to thousands of items), what a call did is at most
    MAX_OUTCOME_CHARS and a little more, and two outcomes are equal exactly where the results'
    canonical encodings are."""
    a, b = [a] * (CR.MAX_OUTCOME_CHARS * times // 4 + 1), [b] * (CR.MAX_OUTCOME_CHARS * times // 4 + 1)
    assert len(CR.outcome_of(a)) <= CR.MAX_OUTCOME_CHARS + 100
    encoded = [CR.ADDRESS.sub("0x?", CR.canonical(v)) for v in (a, b)]  # (an address is no part of one)
    assert (CR.outcome_of(a) == CR.outcome_of(b)) == (encoded[0] == encoded[1])


# Items of every kind a list can hold, leaves (kept as they are) and not (a tuple, a float, bytes,
# an int's subclass): a list's encoding is its items' encodings, in order, whichever way
# `_jsonable` reads it, and where `folded` finds a tuple in it does not depend on that either.
class _Flag(int):
    pass


list_items = json_values | st.tuples(st.integers(), st.text(max_size=3)) | st.binary(max_size=4) | st.integers().map(_Flag)


@load_tolerant
@given(st.lists(list_items, max_size=8), st.booleans())
def test_a_list_is_encoded_as_its_items_are_in_order(items, as_tuple):
    value = tuple(items) if as_tuple else items
    assert CR.canonical(value) == "[" + ",".join(CR.canonical(item) for item in items) + "]"
    assert CR.folded(value) == ([("", "tuple")] if as_tuple else []) + [
        (f"[{i}]{where}", kind) for i, item in enumerate(items) for where, kind in CR.folded(item)][:CR.MAX_FOLDED - as_tuple]
