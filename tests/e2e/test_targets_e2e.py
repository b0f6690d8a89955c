"""The three oracle target types under real `./pants` runs in a temporary git repository."""
from __future__ import annotations

import json
import re
import uuid

import pytest

from e2e.harness import Repo, new_repo

TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    return new_repo(tmp_path_factory.mktemp("targets"))


@pytest.fixture
def scratch(repo: Repo):
    yield repo
    repo.git("checkout", "-q", "-f", "main")
    repo.git("clean", "-fdq", "-e", "dist", "-e", ".pants.d")


def test_help_teaches_the_target_types(repo: Repo):
    run = repo.pants("help", "oracle_properties")
    assert run.exit_code == 0, run.output
    assert "min_examples" in run.stdout and "class P" in run.stdout
    run = repo.pants("help", "locked_fixture")
    assert "FIXTURE_DRIFT" in run.stdout and "sha256" in run.stdout


def test_oracles_run_under_pants_test_and_a_second_run_is_cached(repo: Repo):
    first = repo.pants("test", "::")
    assert first.exit_code == 0, first.output
    assert "oracle/properties/test_tax_props.py succeeded" in first.stderr
    second = repo.pants("test", "::")
    assert second.exit_code == 0, second.output
    verdicts = [l for l in second.stderr.splitlines() if l.startswith("✓")]
    assert len(verdicts) == 10 and all("cached" in l or "memoized" in l for l in verdicts), verdicts


def test_a_drifted_fixture_fails_every_consumer(scratch: Repo):
    scratch.write("oracle/fixtures/invoice_v1.json", '{"id": "inv-1", "lines": []}\n')
    run = scratch.pants("test", "tests/test_invoice_io.py")
    assert run.exit_code != 0
    assert re.search(r"FIXTURE_DRIFT oracle/fixtures:invoice_v1 expected=[0-9a-f]{12} actual=[0-9a-f]{12}", run.output), run.output
    assert TRACEBACK not in run.output


def test_changing_a_fixture_reruns_its_dependents(scratch: Repo):
    assert scratch.pants("test", "tests/test_store.py").exit_code == 0
    # Bytes no earlier run has seen (Pants caches by content, across repositories and runs).
    scratch.write("oracle/fixtures/store_seed.json",
                  json.dumps({"balances": {"globex": 500, "acme": 1000}, "nonce": uuid.uuid4().hex}) + "\n")
    lock = scratch.pants("oracle-lock", "oracle/fixtures:store_seed")
    assert lock.exit_code == 0 and re.search(r"LOCKED oracle/fixtures:store_seed old=\w{12} new=\w{12}", lock.stdout), lock.output
    rerun = scratch.pants("test", "tests/test_store.py")
    assert rerun.exit_code == 0, rerun.output
    line = next(l for l in rerun.stderr.splitlines() if l.startswith("✓"))
    assert "cached" not in line and "memoized" not in line, line
    assert scratch.pants("oracle-lock", "oracle/fixtures:store_seed").stdout.startswith("UNCHANGED")


@pytest.mark.parametrize(
    "ledger, message",
    [
        ("{not json", "not valid JSON"),
        ('{"version": 1, "entries": [{"signature": "0123456789abcdef", "test": "t", "exception": "E", '
         '"reason": "r", "owner": "o", "added": "2026-13-40", "expires": "2099-01-01"}]}', "`added` is not a valid date"),
        ('{"version": 1, "entries": [{"signature": "0123456789abcdef", "test": "t", "exception": "E", '
         '"reason": "r", "owner": "o", "added": "2020-01-01", "expires": "2020-02-01"}]}', "FREEZE_EXPIRED"),
        ('{"version": 1, "entries": [{"signature": "0123456789abcdef", "test": "t", "exception": "E", '
         '"reason": "r", "added": "2026-01-01", "expires": "2099-02-01"}]}', "missing required key(s) owner"),
    ],
    ids=["not-json", "bad-date", "expired", "no-owner"],
)
def test_a_bad_ledger_fails_the_build_with_a_clear_message(scratch: Repo, ledger: str, message: str):
    scratch.write("oracle/freeze-ledger.json", ledger)
    run = scratch.pants("test", "tests/test_tax_examples.py")
    assert run.exit_code != 0
    assert message in run.output and "oracle/freeze-ledger.json" in run.output, run.output
    assert TRACEBACK not in run.output


@pytest.mark.parametrize(
    "build, message",
    [
        ('python_sources(oracle_region="puree")', "oracle_region"),
        ('python_sources(oracle_region="pure")\nlocked_fixture(name="x", source="tax.py", sha256="abc123")',
         "sha256 must be 64 hex characters"),
    ],
    ids=["unknown-region", "short-sha"],
)
def test_bad_fields_are_clear_errors(scratch: Repo, build: str, message: str):
    scratch.write("src/billing/BUILD", build)
    run = scratch.pants("list", "::")
    assert run.exit_code != 0
    assert message in run.output, run.output
    assert TRACEBACK not in run.output
