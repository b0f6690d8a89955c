"""Laws of the adoption baseline: it round-trips through its text, the text is canonical (input
order never matters), and a malformed document is always a BaselineError, never a crash."""
import json

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.lanes.baseline import Baseline, BaselineError, BaselineRegion, BaselineSkip, make_baseline

names = st.from_regex(r"[a-z][a-z0-9_/]{0,12}\.py", fullmatch=True)
regions = st.builds(BaselineRegion, names, names, st.sampled_from([None, "pure", "state", "io", "concurrent", "schema"]),
                    st.sampled_from([None, "P", "L", "E"]),
                    st.one_of(st.none(), st.sets(st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,10}|<module>", fullmatch=True),
                                                 max_size=4).map(lambda q: tuple(sorted(q)))))
skips = st.builds(BaselineSkip, st.from_regex(r"[0-9a-f]{16}", fullmatch=True), st.text(max_size=8),
                  st.sampled_from(["skip", "xfail"]), st.text(max_size=8))
baselines = st.builds(lambda rs, ss: make_baseline("c0ffee", "2026-11-30", {r.address: r for r in rs}.values(), ss),
                      st.lists(regions, max_size=6), st.lists(skips, max_size=6))


@given(baselines)
def test_a_baseline_round_trips_through_its_text(b):
    assert Baseline.loads(b.dumps()) == b


@given(st.lists(regions, max_size=6, unique_by=lambda r: r.address), st.lists(skips, max_size=6), st.randoms())
def test_the_text_is_canonical_whatever_the_input_order(rs, ss, rnd):
    shuffled_r, shuffled_s = list(rs), list(ss)
    rnd.shuffle(shuffled_r)
    rnd.shuffle(shuffled_s)
    assert make_baseline("c", "d", rs, ss).dumps() == make_baseline("c", "d", shuffled_r, shuffled_s).dumps()


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=8)


@given(st.dictionaries(st.sampled_from(["format", "version", "regions", "skips", "commit"]), json_values))
def test_any_document_loads_or_is_a_baseline_error(doc):
    doc.setdefault("format", "oracle-gate/baseline")
    try:
        Baseline.loads(json.dumps(doc))
    except BaselineError as e:
        assert str(e) and "\n" not in str(e)
