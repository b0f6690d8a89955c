from hypothesis import given
from hypothesis import strategies as st

from billing.schema import REQUIRED, problems

lines = st.lists(st.tuples(st.text(max_size=8), st.integers(0, 10**6)), max_size=5)


@given(st.text(max_size=8), lines)
def test_a_well_formed_invoice_has_no_problems(ident, ls):
    assert problems({"id": ident, "lines": ls}) == []


@given(st.text(max_size=8), lines, st.sampled_from(REQUIRED))
def test_dropping_a_required_key_is_always_a_problem(ident, ls, key):
    doc = {"id": ident, "lines": ls}
    del doc[key]
    assert f"missing {key}" in problems(doc)
