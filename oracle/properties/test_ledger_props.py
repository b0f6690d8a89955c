"""Laws of the freeze ledger: serialisation round-trips, bad input is always a LedgerError (never
a traceback), the cap is a monotone brake, and expiry only grows with time."""
import datetime
import json
import math

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.ledger import (
    REQUIRED_KEYS,
    FreezeEntry,
    Ledger,
    LedgerError,
    capacity,
    ledger_problems,
    parse_ledger,
)

dates = st.dates(min_value=datetime.date(2020, 1, 1), max_value=datetime.date(2030, 12, 31))
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20).filter(str.strip)


@st.composite
def entries(draw, signature=None):
    added = draw(dates)
    return FreezeEntry(
        signature=signature or draw(st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
        test=draw(text), exception=draw(text), reason=draw(text), owner=draw(text),
        added=added, expires=added + datetime.timedelta(days=draw(st.integers(0, 400))),
    )


@st.composite
def ledgers(draw):
    sigs = draw(st.lists(st.from_regex(r"[0-9a-f]{16}", fullmatch=True), unique=True, max_size=8))
    return Ledger(path="oracle/ledger.json", entries=tuple(draw(entries(s)) for s in sigs))


@given(ledgers())
def test_a_valid_ledger_round_trips(ledger):
    assert parse_ledger(json.dumps(ledger.to_json()), ledger.path) == ledger


@given(ledgers(), st.data())
def test_a_duplicated_signature_is_always_rejected(ledger, data):
    if not ledger.entries:
        ledger = Ledger(ledger.path, (data.draw(entries()),))
    raw = ledger.to_json()
    raw["entries"].append(dict(data.draw(st.sampled_from(raw["entries"]))))
    try:
        parse_ledger(json.dumps(raw), ledger.path)
    except LedgerError as e:
        assert "duplicate signature" in str(e)
    else:
        raise AssertionError("a duplicate signature was accepted")


@given(ledgers(), st.data())
def test_dropping_a_required_key_is_always_a_clear_error(ledger, data):
    if not ledger.entries:
        ledger = Ledger(ledger.path, (data.draw(entries()),))
    raw = ledger.to_json()
    key = data.draw(st.sampled_from(REQUIRED_KEYS))
    index = data.draw(st.integers(0, len(raw["entries"]) - 1))
    del raw["entries"][index][key]
    try:
        parse_ledger(json.dumps(raw), ledger.path)
    except LedgerError as e:
        assert key in str(e) and f"entry {index}" in str(e) and ledger.path in str(e)
    else:
        raise AssertionError("an entry without a required key was accepted")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=12,
)


@given(st.one_of(st.text(max_size=60), json_values.map(json.dumps)))
def test_any_input_parses_or_raises_ledger_error(blob):
    try:
        parse_ledger(blob, "x.json")
    except LedgerError as e:
        assert str(e).startswith("x.json")


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_capacity_is_a_monotone_floor_of_three(a, b):
    lo, hi = sorted((a, b))
    assert 3 <= capacity(lo) <= capacity(hi)
    assert capacity(lo) >= math.ceil(0.015 * lo)


@given(ledgers(), dates, dates)
def test_expiry_only_grows_with_time(ledger, d1, d2):
    early, late = sorted((d1, d2))
    expired = lambda day: {p.line for p in ledger_problems([ledger], day, None)}  # noqa: E731
    assert expired(early) <= expired(late)


@given(ledgers(), st.integers(0, 2000))
def test_the_cap_fires_exactly_when_entries_exceed_it(ledger, suite):
    problems = ledger_problems([ledger], datetime.date(2000, 1, 1), suite)
    assert any(p.code == "FREEZE_CAP" for p in problems) == (len(ledger.entries) > capacity(suite))
