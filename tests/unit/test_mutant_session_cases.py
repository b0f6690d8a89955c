"""A mutant's own session, as the sandbox recorder runs it: what it does once the mutant is killed."""
from pathlib import Path

from oracle_gate.core.protocol import mutant_payload as MP
from oracle_gate.core.protocol import results as R
from unit.recorded_session import run_session

CUT = "def grow(n):\n    return n + 1\n"
TESTS = '''import os
from hypothesis import given, settings, strategies as st
from cut import grow


@settings(database=None, max_examples=200)
@given(st.integers(min_value=0, max_value=10**9))
def test_grows(n):
    if n >= 1000:
        with open("large-inputs", "a") as f:
            f.write(f"{n}\\n")
    assert grow(n) > n or n < 1000


def test_later():
    open("later-ran", "w").close()
    assert grow(1) == 2
'''


def _session(root: Path, mutant: str = "") -> R.SessionResults:
    (root / "cut.py").write_text(CUT)
    (root / "test_cut.py").write_text(TESTS)
    env = {MP.ENV_VAR: MP.encode_mutant_env("cut.py", mutant, "m1")} if mutant else {}
    proc = run_session(root, "test_cut.py", env)
    assert proc.returncode == (1 if mutant else 0), proc.stdout + proc.stderr
    return R.loads((root / "extra-output" / R.RESULTS_RELPATH).read_bytes())


def test_a_mutants_session_ends_at_its_first_failure_and_hypothesis_does_not_shrink_it(tmp_path):
    """The first failing test settles a mutant (killed): the session stops there, and the property
    that failed is neither shrunk nor explained (a killed mutant's session took 2-8x the oracle's
    own run doing both). The property fails only on inputs of 1,000 and more: shrinking would run
    it on many of them, walking down to 1,000; without it, the first one found and its replay."""
    results = _session(tmp_path, CUT.replace("n + 1", "n - 1"))
    outcomes = {t.nodeid.split("::")[-1]: t.outcome for t in results.tests}
    assert outcomes == {"test_grows": "failed"}, outcomes
    assert not results.complete and (results.interrupted or "").endswith("first failing test, test_cut.py::test_grows")
    assert results.mutant is not None and results.mutant.served
    assert not (tmp_path / "later-ran").exists()
    large = (tmp_path / "large-inputs").read_text().split()
    assert 1 <= len(large) <= 3 and len(set(large)) == 1, large


def test_a_session_without_a_mutant_runs_every_test_as_before(tmp_path):
    """The same file with no mutant: both tests run and pass, and the session is complete."""
    results = _session(tmp_path)
    assert {t.nodeid.split("::")[-1]: t.outcome for t in results.tests} == {"test_grows": "passed",
                                                                           "test_later": "passed"}
    assert results.complete and (tmp_path / "later-ran").exists()
