from billing.schema import problems


def test_missing_lines():
    assert problems({"id": "x"}) == ["missing lines"]
