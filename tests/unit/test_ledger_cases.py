import datetime
import json

import pytest

from oracle_gate.core.ladder.ledger import (Ledger, LedgerError, capacity, check_ledger, ledger_problems,
                                            matching_entry, parse_ledger, suite_size)

ROW = {"signature": "0123456789abcdef", "test": "test_x", "exception": "TimeoutError", "reason": "slow",
       "owner": "team", "added": "2026-11-01", "expires": "2026-11-15"}


def ledger(*rows, **top):
    return json.dumps({"version": 1, "entries": list(rows), **top})


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "oracle/l.json: not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        ("[]", "oracle/l.json: the ledger must be a JSON object with `version` and `entries`"),
        (json.dumps({"version": 2, "entries": []}), "oracle/l.json: `version` must be 1, got 2"),
        (ledger(ROW, extra=1), "oracle/l.json: unknown top-level key(s) extra"),
        (ledger({k: v for k, v in ROW.items() if k != "owner"}), "oracle/l.json: entry 0: missing required key(s) owner"),
        (ledger(dict(ROW, color="red")), "oracle/l.json: entry 0: unknown key(s) color; allowed: signature, test, exception, reason, owner, added, expires"),
        (ledger(dict(ROW, added="2026-13-40")), "oracle/l.json: entry 0: `added` is not a valid date (YYYY-MM-DD): '2026-13-40'"),
        (ledger(dict(ROW, expires="2026-10-01")), "oracle/l.json: entry 0: `expires` 2026-10-01 is before `added` 2026-11-01"),
        (ledger(dict(ROW, signature="XYZ")), "oracle/l.json: entry 0: `signature` must be 16 lowercase hex characters, got 'XYZ'"),
        (ledger(dict(ROW, owner="  ")), "oracle/l.json: entry 0: `owner` must be a non-empty string"),
        (ledger(ROW, ROW), "oracle/l.json: entry 1: duplicate signature 0123456789abcdef (also entry 0)"),
        (ledger(dict(ROW, expires="2026-11-16")), "oracle/l.json: entry 0: `expires` 2026-11-16 is 15 days after "
                                                  "`added` 2026-11-01; a freeze may last at most 14 days (max_freeze_days)"),
        (ledger(dict(ROW, expires="2999-11-01")), "oracle/l.json: entry 0: `expires` 2999-11-01 is 355381 days after "
                                                  "`added` 2026-11-01; a freeze may last at most 14 days (max_freeze_days)"),
    ],
)
def test_malformed_ledgers_name_the_file_and_entry(text, message):
    with pytest.raises(LedgerError) as e:
        parse_ledger(text, "oracle/l.json")
    assert str(e.value) == message


def test_expired_and_over_capacity():
    rows = [dict(ROW, signature=f"{i:016x}") for i in range(4)]
    parsed = parse_ledger(ledger(*rows), "l.json")
    problems = ledger_problems([parsed], datetime.date(2026, 11, 16), suite_size=100)
    assert [p.code for p in problems] == ["FREEZE_EXPIRED"] * 4 + ["FREEZE_CAP"]
    assert problems[-1].line == "FREEZE_CAP l.json entries=4 cap=3 suite=100"
    assert capacity(200) == 3 and capacity(201) == 4 and capacity(1000) == 15


def test_max_freeze_days_is_a_parameter_of_the_parse():
    text = ledger(dict(ROW, expires="2026-11-30"))
    assert parse_ledger(text, "l.json", max_days=29).entries[0].expires == datetime.date(2026, 11, 30)
    with pytest.raises(LedgerError, match="at most 28 days"):
        parse_ledger(text, "l.json", max_days=28)


def test_lint_and_the_gate_judge_a_ledger_file_with_one_rule():
    today = datetime.date(2026, 11, 10)
    text = ledger(dict(ROW, expires="2026-11-30"))  # 29 days
    found, problems = check_ledger(text, "l.json", 30, today, suite=100)
    assert found is not None and found.entries[0].expires == datetime.date(2026, 11, 30) and problems == ()
    # the repository's max_freeze_days decides, wherever the check runs
    assert check_ledger(text, "l.json", 28, today, suite=100) == (None, (
        "LEDGER_INVALID l.json: entry 0: `expires` 2026-11-30 is 29 days after `added` 2026-11-01; a freeze may "
        "last at most 28 days (max_freeze_days)",))
    assert check_ledger(None, "l.json", 28, today, suite=100) == (None, ("LEDGER_INVALID l.json: the ledger file is missing",))
    _, late = check_ledger(text, "l.json", 30, datetime.date(2026, 12, 1), suite=100)
    assert [line.split(" ")[0] for line in late] == ["FREEZE_EXPIRED"]


def test_a_row_freezes_only_its_own_signature_test_and_exception():
    parsed = parse_ledger(ledger(ROW), "l.json")
    row = parsed.entries[0]
    assert matching_entry([parsed], "0123456789abcdef", "tests/t.py::TestX::test_x_v2[3]", "TimeoutError") == row
    assert matching_entry([parsed], "0123456789abcdef", "tests/t.py::test_y", "TimeoutError") is None
    assert matching_entry([parsed], "0123456789abcdef", "tests/t.py::test_x", "ValueError") is None
    assert matching_entry([parsed], "fedcba9876543210", "tests/t.py::test_x", "TimeoutError") is None
    assert matching_entry([parsed], None, "tests/t.py::test_x", "TimeoutError") is None
    assert matching_entry([Ledger("empty.json", ()), parsed], "0123456789abcdef", "t.py::test_x", "TimeoutError") == row


def test_the_suite_size_counts_the_governed_test_files_whatever_the_diff():
    tests = [f"tests/unit/test_{i}.py" for i in range(200)] + [f"oracle/properties/test_{i}_props.py" for i in range(50)]
    tests += ["src/pkg/test_inline.py", "testsuite/test_other.py"]
    assert suite_size(["tests"], tests) == 200
    assert suite_size(["tests", "oracle/"], tests) == 250
    assert suite_size(["/tests/unit/"], tests + tests) == 200
    assert suite_size([], tests) == suite_size([""], tests) == 252
    # one definition for the cap: 250 governed files allow ceil(1.5% of 250) = 4 rows, however small the diff
    rows = [dict(ROW, signature=f"{i:016x}") for i in range(5)]
    today = datetime.date(2026, 11, 2)
    four, five = parse_ledger(ledger(*rows[:4]), "l.json"), parse_ledger(ledger(*rows), "l.json")
    size = suite_size(["tests", "oracle"], tests)
    assert ledger_problems([four], today, size) == ()
    assert [p.line for p in ledger_problems([five], today, size)] == ["FREEZE_CAP l.json entries=5 cap=4 suite=250"]
