from hypothesis import given
from hypothesis import strategies as st

from billing.worker import drain


@given(st.lists(st.integers(), max_size=200), st.integers(1, 8))
def test_drain_processes_each_item_exactly_once(items, workers):
    assert sorted(drain(items, workers)) == sorted(items)
