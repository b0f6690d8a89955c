from hypothesis import given
from hypothesis import strategies as st

from billing.money import split


@given(st.integers(0, 10**9), st.integers(1, 500))
def test_split_conserves_every_cent_and_is_fair(total, parts):
    shares = split(total, parts)
    assert sum(shares) == total
    assert len(shares) == parts
    assert max(shares) - min(shares) <= 1
