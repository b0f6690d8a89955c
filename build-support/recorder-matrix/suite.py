"""The recorder matrix's test suite: every outcome pytest can give, written out per run.

FILES are the suite's files (a production module, its tests, a locked fixture and the setup hook's
config); RUNS are the pytest sessions, one test file each as Pants runs them; EXPECTED is what the
recorder must record for each test, the same on every pytest and Hypothesis version.
"""
import textwrap

CALC = '''\
"""Production code the tests call."""


def add(a, b):
    return a + b


def divide(a, b):
    return a / b


def busy(n):
    total = 0
    for i in range(n):
        total = add(total, i)
    return total


def stop_session():
    import pytest

    pytest.exit("production code stopped the session", returncode=0)


def rewrite(path):
    with open(path, "w") as f:
        f.write('{"seed": 2}')


def never_called():
    return 42


def called_at_import():
    return 7


class Table:
    SIZE = called_at_import()  # a class body runs at import: it counts; the call does not


CHECKED_AT_IMPORT = called_at_import()
'''

OUTCOMES = '''\
import unittest

import pytest

import calc


def test_recursion_limit_on_purpose():
    # the interpreter drops a profile hook that raises (here: at the recursion limit); the
    # recorder re-arms it, so test_pass below still leaves its evidence
    def down(n):
        return down(n + 1)

    with pytest.raises(RecursionError):
        down(0)


def test_pass():
    assert calc.add(1, 2) == 3


def test_fail_assert():
    assert calc.add(1, 1) == 3


def test_fail_exception():
    calc.divide(1, 0)


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_error_in_fixture(broken):
    pass


@pytest.fixture
def bad_teardown():
    yield
    raise RuntimeError("teardown broke")


def test_error_in_teardown(bad_teardown):
    pass


@pytest.mark.skip(reason="marker skip")
def test_skip_marker():
    pass


@pytest.mark.skipif(True, reason="condition holds")
def test_skipif():
    pass


def test_skip_in_body():
    pytest.skip("skipped in the body")


def test_importorskip():
    pytest.importorskip("no_such_module_for_oracle_gate")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert calc.add(2, 2) == 5


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    assert calc.add(2, 2) == 4


@pytest.mark.xfail(reason="strict", strict=True)
def test_xpass_strict():
    assert calc.add(0, 0) == 0


def test_xfail_in_body():
    pytest.xfail("imperative xfail")


@pytest.mark.parametrize("a, b, total", [(1, 2, 3), (2, 2, 4), (2, 3, 6)])
def test_parametrized(a, b, total):
    assert calc.add(a, b) == total


def test_deselected():
    assert False


class TestUnit(unittest.TestCase):
    @unittest.skip("unittest skip")
    def test_skipped(self):
        pass

    def test_ok(self):
        self.assertEqual(calc.add(1, 1), 2)
'''

PROPS = '''\
from hypothesis import given, settings
from hypothesis import strategies as st

import calc


@given(st.integers(), st.integers())
def test_add_commutes(a, b):
    assert calc.add(a, b) == calc.add(b, a)


@given(st.integers(min_value=0))
def test_add_one_is_identity(a):
    assert calc.add(a, 1) == a


@given(st.booleans())
def test_booleans_are_exhausted(b):
    assert calc.add(int(b), 0) in (0, 1)


@settings(derandomize=True, database=None)
@given(st.integers())
def test_derandomized_examples_are_logged(n):
    with open("examples.log", "a") as f:
        f.write(f"{calc.add(n, 0)}\\n")
'''

EXIT = '''\
import calc


def test_before():
    assert calc.add(1, 1) == 2


def test_stops():
    calc.stop_session()


def test_after():
    assert True
'''

COLLECT_ERROR = '''\
import calc
import no_such_module_for_oracle_gate


def test_never():
    assert calc.add(1, 1) == 2
'''

FIXTURE = '''\
import json

import calc


def test_reads_seed():
    with open("data/seed.json") as f:
        assert json.load(f) == {"seed": 1}


def test_rewrites_seed():
    calc.rewrite("data/seed.json")
'''

MODULE_SKIP = '''\
import pytest

pytest.importorskip("no_such_module_for_oracle_gate")


def test_never():
    pass
'''

BUSY = '''\
import os

import calc

N = int(os.environ.get("ORACLE_GATE_BENCH_N", "1000"))


def test_busy():
    assert calc.busy(N) == N * (N - 1) // 2
'''

INTERNAL_CONFTEST = '''\
def pytest_runtest_logreport(report):
    if report.when == "call":
        raise RuntimeError("a plugin broke")
'''

INTERNAL = '''\
def test_one():
    assert True
'''

SEED = '{"seed": 1}'
FIXTURE_CONFIG = '{"address": "suite/test_fixture.py", "source": "test_fixture.py", "fixtures": ["data/seed.json"]}'

FILES = {
    "calc.py": CALC,
    "test_outcomes.py": OUTCOMES,
    "test_props.py": PROPS,
    "test_exit.py": EXIT,
    "test_collect_error.py": COLLECT_ERROR,
    "test_fixture.py": FIXTURE,
    "test_module_skip.py": MODULE_SKIP,
    "test_busy.py": BUSY,
    "internal/conftest.py": INTERNAL_CONFTEST,
    "internal/test_internal.py": INTERNAL,
    "data/seed.json": SEED,
    ".oracle-gate/config/suite.test_fixture.json": FIXTURE_CONFIG,
}

# One pytest session per test file (as Pants runs them), with extra arguments.
RUNS = {
    "test_outcomes.py": ["-k", "not test_deselected"],
    "test_props.py": [],
    "test_exit.py": [],
    "test_collect_error.py": [],
    "test_fixture.py": [],
    "test_module_skip.py": [],
    "test_busy.py": [],
    "internal/test_internal.py": [],
}

# nodeid -> (outcome, phase, marker, reason); a reason ending in "*" is a prefix.
EXPECTED = {
    "test_outcomes.py::test_recursion_limit_on_purpose": ("passed", "call", None, None),
    "test_outcomes.py::test_pass": ("passed", "call", None, None),
    "test_outcomes.py::test_fail_assert": ("failed", "call", None, None),
    "test_outcomes.py::test_fail_exception": ("failed", "call", None, None),
    "test_outcomes.py::test_error_in_fixture": ("error", "setup", None, None),
    "test_outcomes.py::test_error_in_teardown": ("error", "teardown", None, None),
    "test_outcomes.py::test_skip_marker": ("skipped", "setup", "skip", "marker skip"),
    "test_outcomes.py::test_skipif": ("skipped", "setup", "skipif", "condition holds"),
    "test_outcomes.py::test_skip_in_body": ("skipped", "call", "pytest.skip", "skipped in the body"),
    "test_outcomes.py::test_importorskip": ("skipped", "call", "importorskip", "could not import *"),
    "test_outcomes.py::test_xfail": ("xfailed", "call", "xfail", "known bug"),
    "test_outcomes.py::test_xpass": ("xpassed", "call", "xfail", "fixed already"),
    "test_outcomes.py::test_xpass_strict": ("failed", "call", "xfail", "strict"),
    "test_outcomes.py::test_xfail_in_body": ("xfailed", "call", "pytest.xfail", "imperative xfail"),
    "test_outcomes.py::test_parametrized[1-2-3]": ("passed", "call", None, None),
    "test_outcomes.py::test_parametrized[2-2-4]": ("passed", "call", None, None),
    "test_outcomes.py::test_parametrized[2-3-6]": ("failed", "call", None, None),
    "test_outcomes.py::test_deselected": ("skipped", "collect", "deselected", None),
    "test_outcomes.py::TestUnit::test_skipped": ("skipped", "call", "unittest", "unittest skip"),
    "test_outcomes.py::TestUnit::test_ok": ("passed", "call", None, None),
    "test_props.py::test_add_commutes": ("passed", "call", None, None),
    "test_props.py::test_add_one_is_identity": ("failed", "call", None, None),
    "test_props.py::test_booleans_are_exhausted": ("passed", "call", None, None),
    "test_props.py::test_derandomized_examples_are_logged": ("passed", "call", None, None),
    "test_exit.py::test_before": ("passed", "call", None, None),
    "test_collect_error.py": ("error", "collect", None, None),
    "test_fixture.py::test_reads_seed": ("passed", "call", None, None),
    "test_fixture.py::test_rewrites_seed": ("passed", "call", None, None),
    "test_module_skip.py": ("skipped", "collect", "importorskip", "could not import *"),
    "test_busy.py::test_busy": ("passed", "call", None, None),
}

# nodeid -> (exception, signature frames as (path, function)), for the failures whose signature is pinned.
FAILURES = {
    "test_outcomes.py::test_fail_assert": ("AssertionError", [("test_outcomes.py", "test_fail_assert")]),
    "test_outcomes.py::test_fail_exception": (
        "ZeroDivisionError", [("test_outcomes.py", "test_fail_exception"), ("calc.py", "divide")]),
    "test_outcomes.py::test_parametrized[2-3-6]": ("AssertionError", [("test_outcomes.py", "test_parametrized")]),
    "test_outcomes.py::test_error_in_fixture": ("RuntimeError", [("test_outcomes.py", "broken")]),
    "test_outcomes.py::test_error_in_teardown": ("RuntimeError", [("test_outcomes.py", "bad_teardown")]),
}

# nodeid -> (examples, exhausted); a failing property's count is only bounded below.
HYPOTHESIS = {
    "test_props.py::test_add_commutes": (100, False),
    "test_props.py::test_add_one_is_identity": (1, False),
    "test_props.py::test_booleans_are_exhausted": (2, True),
    "test_props.py::test_derandomized_examples_are_logged": (100, False),
}

# A mutant of calc.py that breaks commutativity: test_props.py must see it.
MUTANT_SOURCE = CALC.replace("return a + b", "return a + 2 * b")


def write(root):
    """Write the suite under `root` (a pathlib.Path)."""
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
