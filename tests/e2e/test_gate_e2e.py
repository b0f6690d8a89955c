"""The merge gate end to end: a real repository, a base commit, a patch commit, the real goal."""
from __future__ import annotations

import json
import uuid

import pytest

from e2e.harness import Repo, fixture_sha, new_repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    return new_repo(tmp_path_factory.mktemp("gate"))


@pytest.fixture
def patch(repo: Repo):
    """A fresh branch off main for one scenario; the work tree is clean again afterwards."""
    def start(name: str, base: str = "main") -> Repo:
        repo.branch(name, base)
        return repo

    yield start
    repo.git("checkout", "-q", "-f", "main")
    repo.git("clean", "-fdq", "-e", "dist", "-e", ".pants.d")


def test_a_fresh_clone_audits_every_production_target(repo: Repo):
    run = repo.gate()
    assert run.exit_code == 0, run.output
    assert run.report["mode"] == "audit"
    assert {t["path"] for t in run.report["targets"]} == {
        "src/billing/tax.py", "src/billing/money.py", "src/billing/store.py",
        "src/billing/invoice_io.py", "src/billing/worker.py", "src/billing/schema.py",
    }
    assert [r["status"] for r in run.report["ranks"]] == ["pass", "pass", "pass"]


def test_a_clean_production_patch_covered_at_its_floor_merges(patch):
    repo = patch("clean")
    repo.replace("src/billing/money.py", "base, remainder = divmod(total_cents, parts)",
                 "base, remainder = total_cents // parts, total_cents % parts")
    repo.commit("refactor split")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    (target,) = run.report["targets"]
    assert (target["kind"], target["need"], target["have"]) == ("pure", "P", "P")
    assert "oracle/properties/test_money_props.py" in target["voters"]
    assert "VERDICT merge exit=0" in run.stdout


def test_production_plus_a_property_edit_is_a_writeset_failure(patch):
    repo = patch("writeset-property")
    repo.replace("src/billing/tax.py", "+ 5_000) // 10_000", "+ 9_999) // 10_000")
    repo.replace("oracle/properties/test_tax_props.py", "<= 5_000", "<= 10_000")
    repo.commit("round up, and loosen the property")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert any(line.startswith("WRITESET oracle oracle/properties/test_tax_props.py changed with production src/billing/tax.py")
               for line in run.reasons), run.reasons


def test_editing_the_only_locked_test_of_a_state_region_demotes_it_below_the_floor(patch):
    repo = patch("demoted-lock")
    repo.replace("src/billing/store.py", "return self.balances[account]", "return self.balances[account] + 0")
    repo.replace("tests/test_store.py", "assert store.total() == 1_750", "assert store.total() >= 0")
    repo.commit("touch store and its test")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert "FLOOR src/billing/store.py kind=state need=L have=none" in run.reasons
    oracle = run.oracle("tests/test_store.py")
    assert oracle["demoted"] and not oracle["voted"]


def test_an_edited_example_test_does_not_vote_but_the_property_still_covers(patch):
    repo = patch("example-edit")
    repo.replace("src/billing/tax.py", '"""Tax on an amount', '"""Sales tax on an amount')
    repo.replace("tests/test_tax_examples.py", "assert tax(10_000, 825) == 825", "assert tax(10_000, 825) == 825\n    assert tax(0, 825) == 0")
    repo.commit("doc tweak with a new example")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    example = run.oracle("tests/test_tax_examples.py")
    assert example["demoted"] and not example["voted"]
    assert run.report["targets"][0]["have"] == "P"


def test_production_plus_a_ledger_row_is_a_writeset_failure(patch):
    repo = patch("writeset-ledger")
    repo.replace("src/billing/worker.py", "workers: int = 4", "workers: int = 2")
    repo.write("oracle/freeze-ledger.json", '{"version": 1, "entries": [{"signature": "0123456789abcdef", '
               '"test": "test_drain", "exception": "TimeoutError", "reason": "slow box", "owner": "agent", '
               '"added": "2026-11-01", "expires": "2099-01-01"}]}\n')
    repo.commit("fewer workers, freeze the symptom")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert any(l.startswith("WRITESET oracle oracle/freeze-ledger.json") for l in run.reasons), run.reasons


def test_a_pure_change_covered_only_by_an_equality_test_misses_its_floor(patch):
    repo = patch("base-discount")
    repo.write("src/billing/discount.py", "def discount(cents: int, pct: int) -> int:\n    return cents * pct // 100\n")
    repo.write("tests/test_discount_examples.py",
               "from billing.discount import discount\n\n\ndef test_ten_percent():\n    assert discount(1000, 10) == 100\n")
    repo.commit("discount with an example test")
    repo.branch("discount-change", "base-discount")
    repo.replace("src/billing/discount.py", "cents * pct // 100", "(cents * pct) // 100")
    repo.commit("touch discount")
    run = repo.gate(base="base-discount")
    assert run.exit_code == 2, run.output
    assert "FLOOR src/billing/discount.py kind=pure need=P have=E" in run.reasons


def test_deleting_the_only_property_with_the_change_is_writeset_and_empty_vote(patch):
    repo = patch("delete-property")
    repo.replace("src/billing/worker.py", "workers: int = 4", "workers: int = 8")
    repo.git("rm", "-q", "oracle/properties/test_worker_props.py")
    repo.commit("more workers, drop the property")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    codes = run.codes()
    assert "WRITESET" in codes and "EMPTY_VOTE" in codes
    assert any(l.startswith("WRITESET oracle oracle/properties/test_worker_props.py") for l in run.reasons)


def test_rewritten_fixture_bytes_are_fixture_drift(patch):
    repo = patch("drift")
    repo.replace("src/billing/store.py", "self.balances = dict(balances)", "self.balances = {**balances}")
    repo.write("oracle/fixtures/store_seed.json", '{"balances": {"acme": 1000, "globex": 750}}\n')
    repo.commit("store tweak and a new seed")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    drift = [l for l in run.reasons if l.startswith("FIXTURE_DRIFT oracle/fixtures:store_seed expected=")]
    assert drift and "actual=" in drift[0]
    assert [r["status"] for r in run.report["ranks"]] == ["fail", "not_run", "not_run"]


def test_logic_moved_into_a_file_with_no_owner_is_unmapped(patch):
    repo = patch("unmapped")
    repo.write("src/billing_util/calc.py", "def tax(c, r):\n    return c * r // 10_000\n")
    repo.replace("src/billing/tax.py", "return (cents * rate_bp + 5_000) // 10_000",
                 "from billing_util.calc import tax as _t\n    return _t(cents, rate_bp)")
    repo.commit("move logic")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert "UNMAPPED src/billing_util/calc.py is owned by no target" in run.reasons


def test_a_property_that_now_fails_is_a_product_failure(patch):
    repo = patch("broken")
    repo.replace("src/billing/money.py", "[base + (1 if i < remainder else 0) for i in range(parts)]",
                 "[base for i in range(parts)]")
    repo.commit("lose the remainder")
    run = repo.gate()
    assert run.exit_code == 1, run.output
    assert any(l.startswith("FAIL oracle/properties/test_money_props.py") and "test_split_conserves_every_cent" in l
               for l in run.reasons), run.reasons


def test_a_conftest_that_deselects_oracles_never_merges(patch):
    repo = patch("conftest")
    repo.replace("src/billing/money.py", "if parts <= 0:", "if parts < 1:")
    repo.write("oracle/properties/conftest.py",
               "def pytest_collection_modifyitems(config, items):\n    items[:] = []\n")
    repo.write("conftest.py", "def pytest_collection_modifyitems(config, items):\n    items[:] = []\n")
    repo.commit("quiet the suite")
    run = repo.gate()
    assert run.exit_code != 0, run.output
    assert "WRITESET" in run.codes()


def test_an_oracle_only_patch_is_the_human_lane(patch):
    repo = patch("oracle-only")
    repo.append("oracle/properties/test_money_props.py",
                "\n\n@given(st.integers(0, 10**6))\ndef test_one_part_is_the_whole(total):\n    assert split(total, 1) == [total]\n")
    repo.commit("a new property")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert any(l.startswith("ORACLE_CHANGE oracle oracle/properties/test_money_props.py") for l in run.reasons)
    allowed = repo.gate("--oracle-gate-allow-oracle-changes")
    assert allowed.exit_code == 0, allowed.output
    assert allowed.oracle("oracle/properties/test_money_props.py")["outcome"] == "pass"


def test_a_second_run_executes_no_test_and_a_fixture_change_reruns_only_its_dependents(patch):
    repo = patch("cache")
    first = repo.gate()
    second = repo.gate()
    assert first.exit_code == second.exit_code == 0, second.output
    assert second.report["oracles"] and all(o["source"] != "ran" for o in second.report["oracles"]), second.report["oracles"]
    # The human lane re-locks a reformatted fixture; only its dependent test re-runs.
    # Bytes no earlier run has seen (Pants caches by content, across repositories and runs).
    repo.write("oracle/fixtures/store_seed.json", json.dumps({"balances": {"acme": 1000, "globex": 500},
                                                              "nonce": uuid.uuid4().hex}) + "\n")
    lock = repo.pants("oracle-lock", "oracle/fixtures:store_seed")
    assert lock.exit_code == 0 and "LOCKED oracle/fixtures:store_seed" in lock.stdout, lock.output
    assert fixture_sha(repo, "oracle/fixtures/store_seed.json")[:12] in lock.stdout
    repo.commit("re-lock the seed")
    third = repo.gate(base="HEAD")  # an empty diff: audit everything, as a fresh clone would
    assert third.exit_code == 0, third.output
    ran = {o["address"] for o in third.report["oracles"] if o["source"] == "ran"}
    assert ran == {"tests/test_store.py"}, third.report["oracles"]
