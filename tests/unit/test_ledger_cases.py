import datetime
import json

import pytest

from oracle_gate.core.ledger import LedgerError, capacity, ledger_problems, parse_ledger

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
