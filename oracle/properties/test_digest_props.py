"""Laws of fixture locks: a digest validates and round-trips, drift is reported exactly when the
bytes differ, and the line always names both digests."""
from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.ladder.digests import drift_line, sha256_hex, validate_sha256


@given(st.binary(max_size=256))
def test_a_computed_digest_validates_unchanged(data):
    digest = sha256_hex(data)
    assert validate_sha256(digest) == digest
    assert validate_sha256(digest.upper()) == digest


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_drift_is_reported_exactly_when_bytes_differ(locked, current):
    expected, actual = sha256_hex(locked), sha256_hex(current)
    line = drift_line("fixtures:data", expected, actual)
    assert (line is None) == (locked == current)
    if line:
        assert line == f"FIXTURE_DRIFT fixtures:data expected={expected[:12]} actual={actual[:12]}"


@given(st.text(alphabet="0123456789abcdefg", max_size=70))
def test_only_64_hex_characters_validate(value):
    ok = len(value) == 64 and "g" not in value
    try:
        validate_sha256(value)
    except ValueError:
        assert not ok
    else:
        assert ok
