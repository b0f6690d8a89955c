from billing.tax import amount_due, tax


def test_known_rates():
    assert tax(10_000, 825) == 825
    assert amount_due(10_000, 825) == 10_825
