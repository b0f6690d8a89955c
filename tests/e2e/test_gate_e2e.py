"""The merge gate end to end: a real repository, base and head commits, the real goal, and what each
rendering of the verdict says (console, JSON report, JUnit, GitHub annotations, dry run)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from e2e.harness import Repo, new_repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    repo = new_repo(tmp_path_factory.mktemp("gate"), pantsd=True)
    yield repo
    repo.stop_pantsd()


@pytest.fixture
def patch(repo: Repo):
    """A fresh branch off main for one scenario; the work tree is clean again afterwards."""
    yield from repo.scenarios()


def test_a_fresh_clone_audits_every_region_and_climbs_the_whole_ladder(repo: Repo):
    run = repo.gate()
    assert run.exit_code == 0, run.output
    assert run.report["mode"] == "audit" and run.report["lane"] == "agent"
    regions = {r["path"]: (r["kind"], r["need"], r["have"]) for r in run.report["regions"]}
    assert regions == {
        "src/billing/tax.py": ("pure", "P", "P"), "src/billing/money.py": ("pure", "P", "P"),
        "src/billing/store.py": ("state", "L", "L"), "src/billing/invoice_io.py": ("io", "L", "P"),
        "src/billing/worker.py": ("concurrent", "P", "P"), "src/billing/schema.py": ("schema", "P", "P"),
    }  # the requirement (//:hypothesis) is no region: a bump is judged through the code that uses it
    ranks = {r["rank"]: (r["status"], r["checked"]) for r in run.report["ranks"]}
    # An audit changes no symbol, so no call is replayed and no mutant runs (both judge diffs), and
    # the example's ledger has no row: those ranks say they had nothing to check, never pass.
    assert ranks == {"R1_lock": ("pass", 6), "R1_replay": ("pass", 2), "R2_properties": ("pass", 5),
                     "R2_cleanroom": ("nothing_to_check", 0),
                     "R3_probes": ("pass", 2), "R3_numbness": ("nothing_to_check", 0),
                     "R4_freeze": ("nothing_to_check", 0)}, run.report["ranks"]
    assert "R4_freeze=nothing_to_check" in run.output and "R2_properties=pass (5 checked)" in run.output
    roles = {o["address"]: o["role"] for o in run.report["oracles"]}
    assert roles["oracle/drafts/test_store_drafts.py"] == "draft"
    assert roles["oracle/probes:decode"] == "probes"
    assert not next(o for o in run.report["oracles"] if o["address"] == "oracle/drafts/test_store_drafts.py")["voted"]


def test_a_refactor_merges_on_evidence_and_reuses_the_base_facts(patch):
    repo = patch("refactor")
    repo.replace("src/billing/money.py", "base, remainder = divmod(total_cents, parts)",
                 "base, remainder = total_cents // parts, total_cents % parts")
    repo.commit("refactor split")
    first = repo.gate()
    assert first.exit_code == 0, first.output
    (region,) = first.report["regions"]
    assert (region["path"], region["status"], region["need"], region["have"]) == ("src/billing/money.py", "changed", "P", "P")
    (symbol,) = region["symbols"]
    assert symbol["symbol"] == "split" and "oracle/properties/test_money_props.py" in symbol["ran"]
    statuses = {m["status"] for m in first.report["mutants"]}
    assert first.report["mutants"] and "killed" in statuses, first.report["mutants"]
    # The property's calls into the changed function replayed the same in the clean room.
    (check,) = first.report["cleanroom"]
    assert (check["symbol"], check["oracle"], check["differences"]) == (
        "split", "oracle/properties/test_money_props.py", []) and check["replayed"] > 0, check
    second = repo.gate()
    assert "base facts for" in second.stderr and "reused" in second.stderr, second.stderr
    assert second.exit_code == 0
    # A rerun executes no test process and no mutant again.
    assert all(o["source"] != "ran" for o in second.report["oracles"] if o["source"]), second.report["oracles"]


def test_the_dry_run_shows_lanes_demotions_predictions_and_the_plan(patch):
    repo = patch("dry")
    repo.replace("src/billing/tax.py", "+ 5_000) // 10_000", "+ 9_999) // 10_000")
    repo.replace("tests/test_money_examples.py", "assert split(10, 3) == [4, 3, 3]", "assert split(10, 3) == [4, 3, 3]\n    assert split(1, 1) == [1]")
    repo.replace("oracle/properties/test_tax_props.py", "<= 5_000", "<= 10_000")
    repo.commit("round up, loosen, touch an example")
    run = repo.pants("oracle-gate", "--oracle-gate-base=main", "--oracle-gate-dry-run", "::")
    assert run.exit_code == 0, run.output
    out = run.stdout
    assert "LANE src/billing/tax.py production" in out
    assert "LANE oracle/properties/test_tax_props.py oracle" in out
    assert "DEMOTED tests/test_money_examples.py" in out
    assert "PREDICTED WRITESET oracle oracle/properties/test_tax_props.py changed with production src/billing/tax.py" in out
    assert "PLAN no oracle runs" in out and "DRY RUN:" in out


def test_ci_renderings_junit_and_github(patch, tmp_path):
    repo = patch("ci")
    repo.replace("src/billing/money.py", "[base + (1 if i < remainder else 0) for i in range(parts)]",
                 "[base for i in range(parts)]")
    repo.commit("lose the remainder")
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    run = repo.gate("--oracle-gate-junit=oracle-gate.xml", env=env)
    assert run.exit_code == 1, run.output
    junit = ET.parse(repo.path("dist/oracle-gate.xml")).getroot()
    cases = junit.findall(".//testcase")
    assert {c.get("classname") for c in cases} >= {"oracle-gate.regions", "oracle-gate.oracles"}
    failed = [c for c in cases if c.find("failure") is not None]
    assert any(c.get("name") == "oracle/properties/test_money_props.py" for c in failed)
    annotations = [l for l in run.stdout.splitlines() if l.startswith("::error file=")]
    assert any(l.startswith("::error file=oracle/properties/test_money_props.py,title=FAIL::FAIL ") for l in annotations), annotations
    assert summary.read_text().startswith("## oracle-gate: product failure (exit 1)")
    # The per-test XML of every oracle run is kept under dist/, like `pants test` does.
    assert list(repo.path("dist/oracle-gate/test-reports").rglob("*.xml")), "no per-test XML under dist/"


def test_a_broken_head_graph_is_a_graph_error_not_a_traceback(patch):
    repo = patch("graph")
    repo.write("src/billing/BUILD", repo.read("src/billing/BUILD") + "\npython_sources(name='dup', sources=['nope/*.py'], oracle_region='bogus')\n")
    repo.commit("a BUILD file Pants rejects")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert run.codes() == ["GRAPH_ERROR"], run.reasons
    assert "Traceback" not in run.stdout


def test_a_base_pants_cannot_evaluate_is_its_own_reason_naming_the_way_out(patch):
    repo = patch("broken-base")
    good = repo.git("rev-parse", "HEAD")
    repo.write("src/billing/BUILD", repo.read("src/billing/BUILD") + "\npython_sources(name='dup', sources=['nope/*.py'], oracle_region='bogus')\n")
    broken = repo.commit("upstream breaks a BUILD file")
    repo.write("src/billing/BUILD", repo.read("src/billing/BUILD").replace(
        "\npython_sources(name='dup', sources=['nope/*.py'], oracle_region='bogus')\n", ""))
    repo.commit("the fix")
    run = repo.gate(base=broken)
    # Deterministic, so a policy verdict (exit 2: the launcher does not rerun it), not INFRA_ERROR.
    assert run.exit_code == 2, run.output
    assert run.codes() == ["BASE_UNEVALUABLE"], run.reasons
    assert f"--oracle-gate-base={good[:12]}" in run.reasons[0], run.reasons
    # The way out works: gated against the commit it names, the fix is judged.
    assert repo.gate(base=good).codes() != ["BASE_UNEVALUABLE"]


def test_bad_input_is_one_line_and_exit_2(repo: Repo):
    run = repo.pants("oracle-gate", "--oracle-gate-base=no-such-ref", "::")
    assert run.exit_code == 2
    assert "oracle-gate: error: base ref 'no-such-ref' does not exist" in run.stderr
    assert "Traceback" not in run.output
