from billing.money import split


def test_split_ten_three_ways():
    assert split(10, 3) == [4, 3, 3]
