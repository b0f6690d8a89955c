"""Laws of the freeze ledger: serialisation round-trips, bad input is always a LedgerError (never
a traceback), a row lasts at most `max_freeze_days`, a row freezes only its own signature, test
and exception, the cap is a monotone brake over one definition of the suite size, and expiry
only grows with time."""
import datetime
import json
import math

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.ladder.ledger import (DEFAULT_MAX_FREEZE_DAYS, REQUIRED_KEYS, FreezeEntry, Ledger, LedgerError,
                                            capacity, governed, ledger_problems, matching_entry, parse_ledger,
                                            suite_size)

dates = st.dates(min_value=datetime.date(2020, 1, 1), max_value=datetime.date(2030, 12, 31))
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20).filter(str.strip)


@st.composite
def entries(draw, signature=None, max_days=DEFAULT_MAX_FREEZE_DAYS):
    added = draw(dates)
    return FreezeEntry(
        signature=signature or draw(st.from_regex(r"[0-9a-f]{16}", fullmatch=True)),
        test=draw(text), exception=draw(text), reason=draw(text), owner=draw(text),
        added=added, expires=added + datetime.timedelta(days=draw(st.integers(0, max_days))),
    )


@st.composite
def ledgers(draw, max_days=DEFAULT_MAX_FREEZE_DAYS):
    sigs = draw(st.lists(st.from_regex(r"[0-9a-f]{16}", fullmatch=True), unique=True, max_size=8))
    return Ledger(path="oracle/ledger.json", entries=tuple(draw(entries(s, max_days)) for s in sigs))


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


@given(ledgers(max_days=40), st.integers(0, 30))
def test_a_row_may_last_at_most_max_freeze_days(ledger, max_days):
    longest = max(((e.expires - e.added).days for e in ledger.entries), default=0)
    try:
        parsed = parse_ledger(json.dumps(ledger.to_json()), ledger.path, max_days)
    except LedgerError as e:
        assert longest > max_days and "max_freeze_days" in str(e)
    else:
        assert longest <= max_days and parsed == ledger


names = st.sampled_from(["test_pay", "test_refund"])
nodeids = st.builds(lambda mod, cls, name, suffix, param: f"{mod}::{cls}{name}{suffix}{param}",
                    st.sampled_from(["tests/a.py", "oracle/b_props.py"]), st.sampled_from(["", "TestX::"]), names,
                    st.sampled_from(["", "_v2", "_agent1_retry2"]), st.sampled_from(["", "[1-x]"]))
excs = st.sampled_from(["TimeoutError", "AssertionError"])
sigs16 = st.sampled_from(["0123456789abcdef", "fedcba9876543210"])


@given(st.lists(st.tuples(sigs16, names, excs), unique_by=lambda r: r[0], max_size=2), sigs16, nodeids,
       st.one_of(st.none(), excs))
def test_a_row_matches_only_its_own_signature_test_and_exception(rows, sig, nodeid, exc):
    day = datetime.date(2026, 1, 1)
    ledger = Ledger("l.json", tuple(FreezeEntry(s, t, e, "r", "o", day, day) for s, t, e in rows))
    found = matching_entry([ledger], sig, nodeid, exc)
    leaf = nodeid.split("::")[-1]
    name = "test_pay" if leaf.startswith("test_pay") else "test_refund"
    expected = [e for e in ledger.entries if (e.signature, e.test, e.exception) == (sig, name, exc or "")]
    assert found == (expected[0] if expected else None)
    assert matching_entry([ledger], None, nodeid, exc) is None and matching_entry([], sig, nodeid, exc) is None


prefixes = st.sampled_from(["", "src", "tests", "tests/unit", "oracle/", "/tests", "te"])
test_paths = st.lists(st.sampled_from(["tests/a.py", "tests/unit/b.py", "oracle/c_props.py", "src/d_test.py",
                                       "testsx/e.py", "te"]), max_size=8)


@given(st.lists(prefixes, max_size=3), prefixes, test_paths, st.randoms(use_true_random=False))
def test_the_suite_size_is_the_number_of_distinct_governed_test_files(governs, extra, paths, rnd):
    n = suite_size(governs, paths)
    assert n == len({p for p in paths if governed(tuple(governs) or ("",), p)})
    assert n <= len(set(paths))
    if governs:  # (no directory at all means the whole repository)
        assert suite_size(governs + [extra], paths) >= n  # governing more never shrinks the suite
    shuffled = list(paths) * 2
    rnd.shuffle(shuffled)
    assert suite_size(list(reversed(governs)), shuffled) == n  # order and repeats are irrelevant
    assert suite_size((), paths) == suite_size(("",), paths) == len(set(paths))
    for p in paths:  # a prefix governs itself and what is below it, never a sibling that shares letters
        for g in governs:
            g = g.strip("/")
            if g and not (p == g or p.startswith(g + "/")):
                assert not governed((g,), p)
