from hypothesis import given
from hypothesis import strategies as st

from billing.tax import amount_due, tax

cents = st.integers(0, 10**9)
rates = st.integers(0, 10_000)


@given(cents, cents, rates)
def test_tax_is_monotone_in_the_amount(a, b, rate):
    lo, hi = sorted((a, b))
    assert tax(lo, rate) <= tax(hi, rate)


@given(cents, rates)
def test_amount_due_is_the_amount_plus_its_tax(c, rate):
    assert amount_due(c, rate) == c + tax(c, rate) >= c


@given(cents, rates)
def test_tax_is_within_half_a_cent_of_the_exact_value(c, rate):
    assert abs(tax(c, rate) * 10_000 - c * rate) <= 5_000
