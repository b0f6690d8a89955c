"""Freezes by failure signature, enforced inside real pytest sandboxes under real Pants."""
from __future__ import annotations

import datetime
import json

import pytest

from e2e.harness import Repo, new_repo

FLAKY = '''from billing.tax import tax


def fetch_rate():
    raise TimeoutError("rate service did not answer")


def test_remote_rate():
    assert tax(100, fetch_rate()) >= 0
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    repo = new_repo(tmp_path_factory.mktemp("freeze"), {"tests/test_flaky_rates.py": FLAKY})
    return repo


@pytest.fixture(scope="module")
def ledger_row(repo: Repo) -> dict:
    """The human lane: print the failure's signature, review it, commit the ledger row."""
    run = repo.gate("--oracle-gate-print-signatures")
    assert run.exit_code == 1, run.output
    assert any(l.startswith("FAIL tests/test_flaky_rates.py tests/test_flaky_rates.py::test_remote_rate TimeoutError")
               for l in run.reasons), run.reasons
    line = next(l for l in run.stdout.splitlines() if l.startswith("SIGNATURE tests/test_flaky_rates.py::test_remote_rate "))
    row = json.loads(line.split(" ", 2)[2])
    assert row["exception"] == "TimeoutError" and row["test"] == "test_remote_rate"
    row.update(reason="rate service times out on CI boxes", owner="billing-team")
    repo.write("oracle/freeze-ledger.json", json.dumps({"version": 1, "entries": [row]}, indent=2))
    repo.commit("freeze the rate-service timeout")
    return row


@pytest.fixture
def scratch(repo: Repo, ledger_row: dict):
    yield repo
    repo.git("checkout", "-q", "-f", "main")
    repo.git("clean", "-fdq", "-e", "dist", "-e", ".pants.d")


def test_a_frozen_flake_neither_fails_nor_votes(scratch: Repo, ledger_row: dict):
    run = scratch.gate()
    assert run.exit_code == 0, run.output
    flaky = run.oracle("tests/test_flaky_rates.py")
    assert flaky["tests"] == [{"nodeid": "tests/test_flaky_rates.py::test_remote_rate", "outcome": "frozen",
                               "signature": ledger_row["signature"]}]
    assert not flaky["voted"]
    test = scratch.pants("test", "tests/test_flaky_rates.py")
    assert test.exit_code == 0, test.output


def test_renaming_the_frozen_test_with_v2_does_not_escape_the_freeze(scratch: Repo, ledger_row: dict):
    scratch.replace("tests/test_flaky_rates.py", "def test_remote_rate():", "def test_remote_rate_v2():")
    run = scratch.gate(base="HEAD")  # the human lane's audit of the working tree
    flaky = run.oracle("tests/test_flaky_rates.py")
    assert flaky["tests"][0]["nodeid"].endswith("test_remote_rate_v2")
    assert flaky["tests"][0]["outcome"] == "frozen" and flaky["tests"][0]["signature"] == ledger_row["signature"]


def test_a_freeze_hit_with_no_production_change_is_flagged(scratch: Repo):
    scratch.branch("docs-only")
    scratch.replace("tests/test_flaky_rates.py", "def fetch_rate():", "def fetch_rate():  # the remote rate")
    scratch.commit("touch the flaky test only")
    run = scratch.gate()
    assert "FREEZE_HIT_ON_EMPTY_DIFF" in run.codes(), run.output
    assert run.exit_code == 2


def test_an_expired_freeze_fails(scratch: Repo, ledger_row: dict):
    past = dict(ledger_row, added="2020-01-01", expires="2020-01-15")
    scratch.write("oracle/freeze-ledger.json", json.dumps({"version": 1, "entries": [past]}))
    run = scratch.pants("test", "tests/test_flaky_rates.py")
    assert run.exit_code != 0 and "FREEZE_EXPIRED" in run.output, run.output
    gate = scratch.gate(base="HEAD")
    assert gate.exit_code == 2 and "FREEZE_EXPIRED" in gate.codes(), gate.output


def test_an_unlisted_skip_fails(scratch: Repo):
    scratch.replace("tests/test_tax_examples.py", "def test_known_rates():",
                    "import pytest\n\n\n@pytest.mark.skip(reason='flaky')\ndef test_known_rates():")
    run = scratch.pants("test", "tests/test_tax_examples.py")
    assert run.exit_code != 0 and "UNLISTED_SKIP" in run.output, run.output


def test_a_property_below_min_examples_fails(scratch: Repo):
    scratch.write("oracle/properties/BUILD", 'oracle_properties(min_examples=200)\n')
    scratch.replace("oracle/properties/test_money_props.py", "@given(st.integers(0, 10**9), st.integers(1, 500))",
                    "@settings(max_examples=10)\n@given(st.integers(0, 10**9), st.integers(1, 500))")
    scratch.replace("oracle/properties/test_money_props.py", "from hypothesis import given", "from hypothesis import given, settings")
    run = scratch.pants("test", "oracle/properties/test_money_props.py")
    assert run.exit_code != 0 and "MIN_EXAMPLES ran 10 example(s), min_examples=200" in run.output, run.output


def test_ledger_rows_expire_on_their_own_date(ledger_row: dict):
    added = datetime.date.fromisoformat(ledger_row["added"])
    assert datetime.date.fromisoformat(ledger_row["expires"]) - added == datetime.timedelta(days=14)


def test_a_frozen_test_that_happens_to_pass_still_does_not_vote(scratch: Repo):
    scratch.replace("tests/test_flaky_rates.py", 'raise TimeoutError("rate service did not answer")', "return 1")
    run = scratch.gate(base="HEAD")
    flaky = run.oracle("tests/test_flaky_rates.py")
    assert flaky["tests"][0]["outcome"] == "frozen" and not flaky["voted"], flaky
