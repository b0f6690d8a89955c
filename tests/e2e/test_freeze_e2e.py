"""Freezes by failure signature, judged by the gate from what the sandbox recorded.

The sandbox never changes an outcome: a frozen flake still fails under `pants test`. The gate
matches a row by its signature, its test and its exception, only while it is unexpired, and only
after the human lane saw the failure happen.
"""
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
    repo = new_repo(tmp_path_factory.mktemp("freeze"), {"tests/test_flaky_rates.py": FLAKY}, pantsd=True)
    yield repo
    repo.stop_pantsd()


def _row(repo: Repo) -> dict:
    run = repo.gate("--oracle-gate-print-signatures", base="HEAD")
    assert run.exit_code == 1, run.output
    assert any(l.startswith("FAIL tests/test_flaky_rates.py tests/test_flaky_rates.py::test_remote_rate TimeoutError")
               for l in run.reasons), run.reasons
    line = next(l for l in run.stdout.splitlines() if l.startswith("SIGNATURE tests/test_flaky_rates.py::test_remote_rate "))
    row = json.loads(line.split(" ", 2)[2])
    assert row["exception"] == "TimeoutError" and row["test"] == "test_remote_rate"
    return dict(row, reason="rate service times out on CI boxes", owner="billing-team")


@pytest.fixture(scope="module")
def frozen(repo: Repo) -> dict:
    """The human lane: print the failure's signature, review it, land the row (it was observed)."""
    row = _row(repo)
    repo.branch("freeze")
    repo.write("oracle/freeze-ledger.json", json.dumps({"version": 1, "entries": [row]}, indent=2))
    repo.commit("freeze the rate-service timeout")
    run = repo.gate("--oracle-gate-lane=human", base="main")
    assert run.exit_code == 0, run.output
    assert run.report["lane"] == "human"
    in_agent_lane = repo.gate(base="main")
    assert in_agent_lane.exit_code == 2 and "ORACLE_CHANGE" in in_agent_lane.codes(), in_agent_lane.reasons
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "freeze")
    return row


@pytest.fixture
def scratch(repo: Repo, frozen: dict):
    yield repo
    repo.reset_to_main()


def test_a_frozen_flake_neither_fails_nor_votes_and_pants_test_still_reports_it(scratch: Repo, frozen: dict):
    scratch.branch("tax-change")
    scratch.replace("src/billing/tax.py", "return cents + tax(cents, rate_bp)", "due = cents + tax(cents, rate_bp)\n    return due")
    scratch.commit("refactor amount_due")
    run = scratch.gate()
    assert run.exit_code == 0, run.output
    flaky = run.oracle("tests/test_flaky_rates.py")
    assert not flaky["voted"]
    assert flaky["tests"][0]["outcome"] == "failed" and flaky["tests"][0]["signature"] == frozen["signature"]
    # The recorder never changes an outcome: plain `pants test` still shows the flake.
    test = scratch.pants("test", "tests/test_flaky_rates.py")
    assert test.exit_code != 0, test.output


def test_a_row_for_another_test_or_exception_freezes_nothing(scratch: Repo, frozen: dict):
    scratch.branch("mislabel")
    doc = json.loads(scratch.read("oracle/freeze-ledger.json"))
    doc["entries"][0]["exception"] = "ConnectionError"
    scratch.write("oracle/freeze-ledger.json", json.dumps(doc, indent=2))
    scratch.commit("relabel the row")
    run = scratch.gate("--oracle-gate-lane=human", base="main")
    assert run.exit_code != 0, run.output
    assert "FAIL" in run.codes() and "FREEZE_UNOBSERVED" in run.codes(), run.reasons


def test_an_expired_row_fails_and_a_long_row_is_invalid(scratch: Repo, frozen: dict):
    today = datetime.date.today()
    scratch.branch("expired")
    doc = json.loads(scratch.read("oracle/freeze-ledger.json"))
    doc["entries"][0].update(added=(today - datetime.timedelta(days=20)).isoformat(),
                             expires=(today - datetime.timedelta(days=6)).isoformat())
    scratch.write("oracle/freeze-ledger.json", json.dumps(doc, indent=2))
    scratch.commit("an expired row")
    run = scratch.gate("--oracle-gate-lane=human", base="main")
    assert run.exit_code == 2 and "FREEZE_EXPIRED" in run.codes(), run.reasons
    doc["entries"][0].update(added=today.isoformat(), expires=(today + datetime.timedelta(days=15)).isoformat())
    scratch.write("oracle/freeze-ledger.json", json.dumps(doc, indent=2))
    scratch.commit("a row for 15 days")
    run = scratch.gate("--oracle-gate-lane=human", base="main")
    assert run.exit_code == 2 and "LEDGER_INVALID" in run.codes(), run.reasons
    assert any("at most 14 days" in l for l in run.reasons), run.reasons


def test_lint_reports_ledger_and_lock_problems(scratch: Repo, frozen: dict):
    assert scratch.pants("lint", "::").exit_code == 0
    scratch.write("oracle/fixtures/store_seed.json", '{"balances": {"acme": 1}}\n')
    run = scratch.pants("lint", "::")
    assert run.exit_code != 0
    assert "FIXTURE_DRIFT oracle/fixtures:store_seed" in run.output, run.output


def test_lint_and_the_gate_share_the_repositorys_max_freeze_days(scratch: Repo, frozen: dict):
    today = datetime.date.today()
    doc = json.loads(scratch.read("oracle/freeze-ledger.json"))
    doc["entries"][0].update(added=today.isoformat(), expires=(today + datetime.timedelta(days=15)).isoformat())
    scratch.write("oracle/freeze-ledger.json", json.dumps(doc, indent=2))
    run = scratch.pants("lint", "oracle::")
    assert run.exit_code != 0 and "LEDGER_INVALID" in run.output and "at most 14 days" in run.output, run.output
    run = scratch.pants("--oracle-gate-max-freeze-days=20", "lint", "oracle::")
    assert run.exit_code == 0 and "LEDGER_INVALID" not in run.output, run.output
