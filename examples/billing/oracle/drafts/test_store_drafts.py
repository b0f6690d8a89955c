from hypothesis import given
from hypothesis import strategies as st

from billing.store import Store


@given(st.dictionaries(st.text(max_size=5), st.integers(0, 10**6), max_size=5), st.text(max_size=5), st.integers(1, 10**6))
def test_a_credit_raises_the_total_by_its_amount(balances, account, cents):
    store = Store(balances)
    before = store.total()
    store.apply_credit(account, cents)
    assert store.total() == before + cents
