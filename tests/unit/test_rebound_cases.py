"""Rebinding judged by what it leaves behind, in one real pytest session (known cases): the recorder
notes what each production name spelled `def` holds when the session ends; the gate keeps those a
module binds with one undecorated def and nothing else (core/ladder/testaware.py rebound_findings)."""

import pytest

from oracle_gate.core.ladder.testaware import rebound_findings
from oracle_gate.core.protocol import results as R
from unit.recorded_session import run_recorded

TAX = '''\
import functools


def tax(cents, rate_bp):
    return cents * rate_bp // 10_000


def amount_due(cents, rate_bp):
    return cents + tax(cents, rate_bp)


def patched_by_a_test(n):
    return n


def mocked_for_good(n):
    return n


@functools.lru_cache()
def cached(n):
    return n


class Rates:
    def rate(self):
        return 7

    @staticmethod
    def kept():
        return 1
'''

MONEY = '''\
import tax as _tax
from tax import tax as rate_of  # an alias: another name for the same function

_ONE = (lambda m: (setattr(m, "amount_due", max), 1)[1])(_tax)  # the rebinding, through an argument
vars(_tax)["tax"] = lambda cents, rate_bp: 0
(lambda c: setattr(c, "rate", lambda self: 6))(_tax.Rates)  # a method, the same way


def split(total, parts):
    return [total // parts] * parts
'''

TESTS = '''\
from unittest import mock

import money
import tax

tax.mocked_for_good = mock.Mock(return_value=1)  # left in place: the test's doing


def test_split():
    assert money.split(4, 2) == [2, 2]


def test_patched(monkeypatch):
    monkeypatch.setattr(tax, "patched_by_a_test", lambda n: n + 1)  # undone by the session's end
    assert tax.patched_by_a_test(1) == 2
'''


@pytest.fixture(scope="module")
def rebound(tmp_path_factory):
    root = tmp_path_factory.mktemp("rebound")
    for name, text in (("tax.py", TAX), ("money.py", MONEY), ("test_money.py", TESTS)):
        (root / name).write_text(text)
    results = R.loads((run_recorded(root, "test_money.py") / R.RESULTS_RELPATH).read_bytes())
    assert results.recorder_errors == ()
    return results.rebound


def test_the_recorder_notes_what_each_def_name_holds_at_the_end(rebound):
    held = {(r.path, r.name): (r.origin, r.what) for r in rebound}
    assert held[("tax.py", "amount_due")] == ("", "builtin max")
    assert held[("tax.py", "tax")][0] == "money.py" and held[("tax.py", "tax")][1].startswith("<lambda> at money.py:5")
    assert held[("tax.py", "mocked_for_good")] == ("", R.MOCK)
    assert held[("tax.py", "cached")] == ("", "functools._lru_cache_wrapper object")
    assert held[("tax.py", "Rates.rate")][1].startswith("<lambda> at money.py:6")
    assert ("tax.py", "Rates.kept") not in held  # a static method, its own def
    assert ("tax.py", "patched_by_a_test") not in held  # monkeypatch undid it
    assert not any(path == "money.py" for path, _ in held)  # its names are its own defs, or not spelled `def`


def test_the_gate_judges_only_undecorated_defs_rebound_by_production(rebound):
    seen = [(r.path, r.name, r.origin, r.what, "tests:money") for r in rebound]
    found = rebound_findings(seen, {"tax.py": TAX}, {"tax.py", "money.py"}, R.MOCK)
    assert [(f.path, f.line, f.what.split("`")[1]) for f in found] == [
        ("tax.py", 4, "tax"), ("tax.py", 8, "amount_due"), ("tax.py", 26, "Rates.rate")]
    assert rebound_findings(seen, {"tax.py": TAX}, {"tax.py"}, R.MOCK)[0].what.startswith("`amount_due`")
