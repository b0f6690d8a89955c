"""The Pants shell against a real engine: target types and fields, the facts of a tree, fixture
digests, entry-point inference, the sandbox hook, `oracle-facts` and `oracle-lock`."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from pants.backend.project_info import register as project_info
from pants.backend.python import register as python
from pants.backend.python.goals.pytest_runner import PytestPluginSetup
from pants.core import register as core
from pants.engine.addresses import Address, Addresses
from pants.engine.fs import Digest, DigestContents, Snapshot
from pants.engine.internals.scheduler import ExecutionError
from pants.engine.rules import QueryRule
from pants.engine.target import DependenciesRequest
from pants.testutil.rule_runner import RuleRunner

from oracle_gate import register
from oracle_gate.core.classes import OracleClass
from oracle_gate.core.ladder.ledger import parse_ledger
from oracle_gate.core.lanes import facts as F
from oracle_gate.rules.facts import FixtureDigest, FixtureDigestRequest, OracleFacts, TreeFacts, TreeFactsRequest
from oracle_gate.rules.lock import OracleLock
from oracle_gate.rules.sandbox_setup import OracleSandboxSetupRequest
from oracle_gate.target_types import MinExamplesField, OracleLockedDependenciesField, OracleRegionField

LEDGERS = Path(__file__).resolve().parents[2] / "fixtures" / "ledgers"
OPTIONS = ["--python-infer-use-rust-parser", "--source-root-patterns=['/src', '/tests', '/oracle']",
           "--python-interpreter-constraints=['CPython==3.9.*']"]


@pytest.fixture
def rule_runner() -> RuleRunner:
    runner = RuleRunner(
        rules=[
            *core.rules(), *python.rules(), *project_info.rules(), *register.rules(),
            QueryRule(FixtureDigest, [FixtureDigestRequest]),
            QueryRule(TreeFacts, [TreeFactsRequest]),
            QueryRule(PytestPluginSetup, [OracleSandboxSetupRequest]),
            QueryRule(Snapshot, [Digest]),
            QueryRule(DigestContents, [Digest]),
            QueryRule(Addresses, [DependenciesRequest]),
        ],
        target_types=[*core.target_types(), *python.target_types(), *register.target_types()],
    )
    runner.set_options(OPTIONS, env_inherit={"PATH", "PYENV_ROOT", "HOME"})
    return runner


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


LOCKED_SEED = '{"a": 1}\n'
DRIFTED_SEED = '{"a": 2}\n'
TRACE = '{"input": [1, 2], "output": 3}\n'


def write_repo(runner: RuleRunner, seed: str = LOCKED_SEED, ledger: str = '{"version": 1, "entries": []}') -> None:
    runner.write_files({
        "src/calc/BUILD": 'python_sources(oracle_region="pure", overrides={"store.py": {"oracle_region": "state"}})',
        "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
        "src/calc/store.py": "import json\n",
        "oracle/BUILD": f'locked_fixture(name="seed", source="seed.json", sha256="{sha(LOCKED_SEED)}")\n'
                        'freeze_ledger(name="ledger", source="ledger.json")\n'
                        f'oracle_replay(name="adds", source="adds.jsonl", entry_point="calc.ops:add", sha256="{sha(TRACE)}")\n',
        "oracle/seed.json": seed,
        "oracle/ledger.json": ledger,
        "oracle/adds.jsonl": TRACE,
        "tests/BUILD": 'python_tests(name="t", sources=["test_store.py"], dependencies=["oracle:seed"])\n'
                       'oracle_properties(name="props", sources=["props_*.py"], min_examples=250)\n'
                       'python_tests(name="plain", sources=["plain_test.py"])\n'
                       'oracle_drafts(name="drafts", sources=["draft_*.py"])\n',
        "tests/test_store.py": "from calc.store import json\n",
        "tests/props_ops.py": "from calc.ops import add\n",
        "tests/plain_test.py": "from calc.ops import add\n",
        "tests/draft_ops.py": "from calc.ops import add\n",
    })


def target(runner: RuleRunner, spec_path: str, name: str, relative_file_path: str | None = None):
    return runner.get_target(Address(spec_path, target_name=name, relative_file_path=relative_file_path))


def test_fields_and_overrides(rule_runner: RuleRunner):
    write_repo(rule_runner)
    assert target(rule_runner, "src/calc", "calc", "ops.py")[OracleRegionField].value == "pure"
    assert target(rule_runner, "src/calc", "calc", "store.py")[OracleRegionField].value == "state"
    prop = target(rule_runner, "tests", "props", "props_ops.py")
    assert prop.alias == "oracle_property" and prop[MinExamplesField].value == 250


def test_bad_field_values_are_clear_errors(rule_runner: RuleRunner):
    rule_runner.write_files({"x/BUILD": 'locked_fixture(name="f", source="f.json", sha256="abc")', "x/f.json": "{}"})
    with pytest.raises(ExecutionError) as e:
        rule_runner.get_target(Address("x", target_name="f"))
    assert "sha256 must be 64 hex characters, got 3" in str(e.value)
    rule_runner.write_files({"y/BUILD": 'python_sources(oracle_region="puree")', "y/a.py": ""})
    with pytest.raises(ExecutionError) as e:
        rule_runner.get_target(Address("y", relative_file_path="a.py"))
    assert "oracle_region" in str(e.value) and "puree" in str(e.value)


def test_the_facts_of_a_tree_come_from_the_evaluated_graph(rule_runner: RuleRunner):
    write_repo(rule_runner)
    tree = rule_runner.request(TreeFacts, [TreeFactsRequest()])
    facts = tree.facts
    by = facts.by_address
    assert by["src/calc/ops.py"].role == F.PRODUCTION and by["src/calc/ops.py"].region == "pure"
    assert by["src/calc/store.py"].region == "state"
    assert facts.oracle_class("tests/props_ops.py:props") is OracleClass.PROPERTY
    assert facts.oracle_class("tests/test_store.py:t") is OracleClass.LOCKED
    assert facts.oracle_class("tests/plain_test.py:plain") is OracleClass.EQUALITY
    assert facts.oracle_class("tests/draft_ops.py:drafts") is OracleClass.DRAFT
    assert facts.oracle_class("oracle:adds") is OracleClass.LOCKED  # a replay is class L
    covering = {t.address for t in facts.covering_tests("src/calc/ops.py")}
    assert covering == {"tests/props_ops.py:props", "tests/plain_test.py:plain", "tests/draft_ops.py:drafts", "oracle:adds"}
    # Locked digests are the sha256 of the bytes; ledgers are kept as text.
    assert facts.text_map["sha256:oracle/seed.json"] == sha(LOCKED_SEED)
    assert facts.text_map["oracle/ledger.json"] == '{"version": 1, "entries": []}'
    # Options that can weaken a judge are recorded with where they came from.
    ranks = dict(tree.option_ranks)
    assert "oracle-gate.exclude_tags" in facts.option_map and ranks["oracle-gate.exclude_tags"] == "HARDCODED"
    assert ranks["python.interpreter_constraints"] == "FLAG"
    # A comment in a BUILD file changes no evaluated field.
    rule_runner.write_files({"tests/BUILD": "# only a comment\n" + Path(rule_runner.build_root, "tests/BUILD").read_text()})
    again = rule_runner.request(TreeFacts, [TreeFactsRequest()]).facts
    assert again.by_address["tests/plain_test.py:plain"].fields == by["tests/plain_test.py:plain"].fields


def test_a_replay_depends_on_its_entry_point(rule_runner: RuleRunner):
    write_repo(rule_runner)
    replay = target(rule_runner, "oracle", "adds")
    deps = rule_runner.request(Addresses, [DependenciesRequest(replay[OracleLockedDependenciesField])])
    assert Address("src/calc", target_name="calc", relative_file_path="ops.py") in deps


def test_fixture_digests_match_sha256sum_and_report_drift(rule_runner: RuleRunner):
    write_repo(rule_runner)
    seed = target(rule_runner, "oracle", "seed")
    ok = rule_runner.request(FixtureDigest, [FixtureDigestRequest(seed)])
    assert ok.actual == ok.expected == sha(LOCKED_SEED) and ok.drift is None
    rule_runner.write_files({"oracle/seed.json": DRIFTED_SEED})
    drifted = rule_runner.request(FixtureDigest, [FixtureDigestRequest(seed)])
    assert drifted.drift == f"FIXTURE_DRIFT oracle:seed expected={sha(LOCKED_SEED)[:12]} actual={sha(DRIFTED_SEED)[:12]}"


def test_the_sandbox_hook_ships_the_recorder_and_never_refuses(rule_runner: RuleRunner):
    write_repo(rule_runner, ledger=(LEDGERS / "valid.json").read_text())
    test_store = target(rule_runner, "tests", "t", "test_store.py")
    setup = rule_runner.request(PytestPluginSetup, [OracleSandboxSetupRequest(test_store)])
    files = set(rule_runner.request(Snapshot, [setup.digest]).files)
    runtime = "tests/_oracle_gate_boot/runtime/_oracle_gate_sandbox"
    assert {f"{runtime}/sandbox/plugin.py", f"{runtime}/sandbox/replay.py", f"{runtime}/core/protocol/results.py",
            "tests/_oracle_gate_boot/plugin.py", "tests/_oracle_gate_boot/replay.py", "tests/_oracle_gate_boot/runtime_path.py",
            "tests/oracle_gate_sandbox-1.0.dist-info/entry_points.txt", "oracle/ledger.json"} <= files, files
    # No __init__.py where coverage.py would walk into the recorder from the source root.
    assert not any(f.startswith("tests/_oracle_gate_boot/") and f.count("/") == 2 and f.endswith("__init__.py") for f in files)
    contents = {fc.path: fc.content for fc in rule_runner.request(DigestContents, [setup.digest])}
    assert contents["tests/oracle_gate_sandbox-1.0.dist-info/entry_points.txt"] == (
        b"[pytest11]\noracle_gate = _oracle_gate_boot.plugin\noracle_gate_replay = _oracle_gate_boot.replay\n")
    config = json.loads(contents[".oracle-gate/config/tests.test_store.py.t.json"])
    assert config == {"address": "tests/test_store.py:t", "source": "tests/test_store.py",
                      "fixtures": ["oracle/seed.json"], "kind": "test"}
    # The sandbox records; the gate judges: a drifted fixture or an invalid ledger starts the test anyway.
    rule_runner.write_files({"oracle/seed.json": "{}\n", "oracle/ledger.json": "{not json"})
    again = rule_runner.request(PytestPluginSetup, [OracleSandboxSetupRequest(test_store)])
    shipped = {fc.path: fc.content for fc in rule_runner.request(DigestContents, [again.digest])}
    assert {"tests/_oracle_gate_boot/plugin.py", f"{runtime}/sandbox/plugin.py"} <= set(shipped), sorted(shipped)
    assert shipped["oracle/ledger.json"] == b"{not json"  # shipped as it is: the gate, not the sandbox, rejects it


def test_oracle_facts_writes_what_the_gate_reads(rule_runner: RuleRunner):
    write_repo(rule_runner)
    out = Path(rule_runner.build_root, "facts.json")
    result = rule_runner.run_goal_rule(OracleFacts, args=[f"--oracle-facts-output={out}"], global_args=OPTIONS)
    assert result.exit_code == 0, result.stderr
    facts = F.Facts.loads(out.read_text())
    assert facts.oracle_class("tests/test_store.py:t") is OracleClass.LOCKED and facts.pants_version


def test_oracle_lock_rewrites_only_the_drifted_fixture(rule_runner: RuleRunner):
    write_repo(rule_runner, seed='{"a": 3}\n')
    result = rule_runner.run_goal_rule(OracleLock, args=["oracle:seed"], global_args=OPTIONS)
    assert result.exit_code == 0
    assert result.stdout.startswith("LOCKED oracle:seed old=")
    build = Path(rule_runner.build_root, "oracle/BUILD").read_text()
    assert sha('{"a": 3}\n') in build and sha(TRACE) in build
    again = rule_runner.run_goal_rule(OracleLock, args=["oracle:seed"], global_args=OPTIONS)
    assert again.stdout.startswith("UNCHANGED oracle:seed")


def test_a_valid_ledger_fixture_parses(rule_runner: RuleRunner):
    ledger = parse_ledger((LEDGERS / "valid.json").read_text(), "valid.json")
    assert len(ledger.entries) == 1 and ledger.entries[0].test == "test_rate"
