"""Laws of the clean room's protocol: the canonical encoding is a fixed point of its own JSON, a
watch list and a results file round-trip, and a difference is exactly a variant that ran and did
something else than the call did under its test."""
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
                          first=st.integers(1, 50), last=st.integers(1, 50)), max_size=5))
def test_a_watch_list_round_trips_whatever_its_order(watches):
    decoded = CR.decode_watch(CR.encode_watch(watches))
    assert sorted(decoded, key=repr) == sorted(watches, key=repr)
    assert CR.encode_watch(reversed(watches)) == CR.encode_watch(watches)


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
