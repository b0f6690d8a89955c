"""The oracle target types and the human lane's goals under real `./pants` runs: `test`, `lint`,
`tailor`, `oracle-lock`, `oracle-record`, `oracle-promote`, and cache sharing with the gate."""
from __future__ import annotations

import json
import re
import uuid

import pytest

from e2e.harness import Repo, fixture_sha, new_repo

TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    repo = new_repo(tmp_path_factory.mktemp("targets"), pantsd=True)
    yield repo
    repo.stop_pantsd()


@pytest.fixture
def scratch(repo: Repo):
    yield repo
    repo.reset_to_main()


def test_help_teaches_the_target_types(repo: Repo):
    for alias, words in (("oracle_properties", ("min_examples", "class P")), ("locked_fixture", ("FIXTURE_DRIFT", "sha256")),
                         ("oracle_replay", ("R1", "entry_point")), ("oracle_probes", ("PROBE_NUMB",)),
                         ("oracle_drafts", ("diagnostics", "oracle-promote")), ("oracle_baseline", ("ratchet",))):
        run = repo.pants("help", alias)
        assert run.exit_code == 0, run.output
        assert all(w in run.stdout for w in words), (alias, run.stdout)


def test_every_oracle_kind_runs_under_pants_test_and_the_gate_shares_its_cache(scratch: Repo):
    # Batched like `pants test` batches them: the gate cuts the same batches, so the same processes.
    scratch.branch("batched")
    scratch.replace("oracle/properties/BUILD", "oracle_properties(min_examples=100)",
                    'oracle_properties(min_examples=100, batch_compatibility_tag="props")')
    scratch.commit("batch the properties")
    first = scratch.pants("test", "--test-batch-size=3", "::")
    assert first.exit_code == 0, first.output
    for name in ("oracle/traces:decode", "oracle/probes:split", "oracle/drafts/test_store_drafts.py"):
        assert f"{name} succeeded" in first.stderr, first.stderr
    assert re.search(r"oracle/properties/\S+ and \d+ other files? succeeded", first.stderr), first.stderr  # batched
    # Unjailed, the gate's processes are the very processes `pants test` ran (a jailed run is another
    # process: it never reuses a result the jail did not produce).
    gate = scratch.gate("--test-batch-size=3", "--no-oracle-gate-jail", base="HEAD")
    assert gate.exit_code == 0, gate.output
    sources = {o["address"]: o["source"] for o in gate.report["oracles"] if o["source"]}
    assert sources and set(sources.values()) <= {"hit_locally", "memoized"}, sources


def test_a_replay_compares_outputs_and_oracle_record_rerecords_them(scratch: Repo):
    scratch.replace("src/billing/invoice_io.py", 'return {"id": str(doc["id"]), "lines": lines}',
                    'return {"id": str(doc["id"]).upper(), "lines": lines}')
    run = scratch.pants("test", "oracle/traces:decode")
    assert run.exit_code != 0 and "replay mismatch" in run.output, run.output
    record = scratch.pants("oracle-record", "oracle/traces:decode")
    assert record.exit_code == 0, record.output
    assert re.search(r"RECORDED oracle/traces:decode lines=4 sha256=[0-9a-f]{12} \(lock updated in oracle/traces/BUILD\)", record.stdout), record.output
    assert '"INV-1"' in scratch.read("oracle/traces/decode.jsonl")
    assert fixture_sha(scratch, "oracle/traces/decode.jsonl") in scratch.read("oracle/traces/BUILD")
    assert scratch.pants("test", "oracle/traces:decode").exit_code == 0


def test_a_probe_that_is_accepted_fails(scratch: Repo):
    scratch.replace("src/billing/money.py", "if parts <= 0:", "if parts < 0:")
    run = scratch.pants("test", "oracle/probes:split")
    assert run.exit_code != 0 and "zero-parts" in run.output, run.output


def test_oracle_promote_moves_a_draft_into_the_properties(scratch: Repo):
    run = scratch.pants("oracle-promote", "oracle/drafts/test_store_drafts.py")
    assert run.exit_code == 0, run.output
    assert "PROMOTED oracle/drafts/test_store_drafts.py -> oracle/properties/test_store_drafts.py" in run.stdout
    assert scratch.path("oracle/properties/test_store_drafts.py").exists()
    peek = scratch.pants("peek", "oracle/properties/test_store_drafts.py")
    assert '"target_type": "oracle_property"' in peek.stdout, peek.output


def test_tailor_never_tailors_a_plain_test_inside_an_oracle_directory(scratch: Repo):
    scratch.write("oracle/properties/invoices/test_more_invoice_props.py", "def test_nothing_yet():\n    assert 1 + 1 == 2\n")
    run = scratch.pants("tailor", "--check", "::")
    assert "python_tests" not in run.stdout, run.output
    peek = scratch.pants("peek", "oracle/properties/invoices/test_more_invoice_props.py")
    assert '"target_type": "oracle_property"' in peek.stdout, peek.output


def test_lock_rerun_and_drift_in_lint(scratch: Repo):
    assert scratch.pants("test", "tests/test_store.py").exit_code == 0
    # Bytes no earlier run has seen (Pants caches by content, across repositories and runs).
    scratch.write("oracle/fixtures/store_seed.json",
                  json.dumps({"balances": {"globex": 500, "acme": 1000}, "nonce": uuid.uuid4().hex}) + "\n")
    lint = scratch.pants("lint", "oracle/fixtures::")
    assert lint.exit_code != 0 and re.search(r"FIXTURE_DRIFT oracle/fixtures:store_seed expected=\w{12} actual=\w{12}", lint.output), lint.output
    lock = scratch.pants("oracle-lock", "oracle/fixtures:store_seed")
    assert lock.exit_code == 0 and re.search(r"LOCKED oracle/fixtures:store_seed old=\w{12} new=\w{12}", lock.stdout), lock.output
    rerun = scratch.pants("test", "tests/test_store.py")
    assert rerun.exit_code == 0, rerun.output
    line = next(l for l in rerun.stderr.splitlines() if l.startswith("✓"))
    assert "cached" not in line and "memoized" not in line, line
    assert scratch.pants("oracle-lock", "oracle/fixtures:store_seed").stdout.startswith("UNCHANGED")
    assert scratch.pants("lint", "oracle/fixtures::").exit_code == 0


@pytest.mark.parametrize(
    "build, message",
    [
        ('python_sources(oracle_region="puree")', "oracle_region"),
        ('python_sources(oracle_region="pure")\nlocked_fixture(name="x", source="tax.py", sha256="abc123")',
         "sha256 must be 64 hex characters"),
        ('python_sources(oracle_region="pure")\noracle_replay(name="r", source="x.jsonl", entry_point="not an entry point", sha256="' + "0" * 64 + '")',
         "must look like `package.module:function`"),
    ],
    ids=["unknown-region", "short-sha", "bad-entry-point"],
)
def test_bad_fields_are_clear_errors(scratch: Repo, build: str, message: str):
    scratch.write("src/billing/BUILD", build)
    scratch.write("src/billing/x.jsonl", "")
    run = scratch.pants("list", "::")
    assert run.exit_code != 0
    assert message in run.output, run.output
    assert TRACEBACK not in run.output
