"""The Pants shell against a real engine: target types, fields, facts, the sandbox hook, oracle-lock."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pants.backend.project_info import register as project_info
from pants.backend.python import register as python
from pants.backend.python.goals.pytest_runner import PytestPluginSetup
from pants.core import register as core
from pants.engine.addresses import Address
from pants.engine.fs import Digest, Snapshot
from pants.engine.internals.scheduler import ExecutionError
from pants.engine.rules import QueryRule
from pants.testutil.rule_runner import RuleRunner

from oracle_gate import register
from oracle_gate.core.classes import OracleClass
from oracle_gate.rules.facts import (
    FixtureDigest,
    FixtureDigestRequest,
    OracleClassification,
    OracleClassRequest,
    ParsedLedger,
    ParsedLedgerRequest,
)
from oracle_gate.rules.lock import OracleLock
from oracle_gate.rules.sandbox_setup import OracleSandboxSetupRequest
from oracle_gate.target_types import MinExamplesField, OracleRegionField

LEDGERS = Path(__file__).resolve().parents[2] / "fixtures" / "ledgers"
OPTIONS = ["--python-infer-use-rust-parser", "--source-root-patterns=['/src', '/tests', '/oracle']",
           "--python-interpreter-constraints=['CPython==3.9.*']"]


@pytest.fixture
def rule_runner() -> RuleRunner:
    runner = RuleRunner(
        rules=[
            *core.rules(), *python.rules(), *project_info.rules(), *register.rules(),
            QueryRule(FixtureDigest, [FixtureDigestRequest]),
            QueryRule(ParsedLedger, [ParsedLedgerRequest]),
            QueryRule(OracleClassification, [OracleClassRequest]),
            QueryRule(PytestPluginSetup, [OracleSandboxSetupRequest]),
            QueryRule(Snapshot, [Digest]),
        ],
        target_types=[*core.target_types(), *python.target_types(), *register.target_types()],
    )
    runner.set_options(OPTIONS, env_inherit={"PATH", "PYENV_ROOT", "HOME"})
    return runner


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


LOCKED_SEED = '{"a": 1}\n'
DRIFTED_SEED = '{"a": 2}\n'


def write_repo(runner: RuleRunner, seed: str = LOCKED_SEED, ledger: str = '{"version": 1, "entries": []}') -> None:
    runner.write_files({
        "src/calc/BUILD": 'python_sources(oracle_region="pure", overrides={"store.py": {"oracle_region": "state"}})',
        "src/calc/ops.py": "def add(a, b):\n    return a + b\n",
        "src/calc/store.py": "import json\n",
        "oracle/BUILD": f'locked_fixture(name="seed", source="seed.json", sha256="{sha(LOCKED_SEED)}")\n'
                        'freeze_ledger(name="ledger", source="ledger.json")\n',
        "oracle/seed.json": seed,
        "oracle/ledger.json": ledger,
        "tests/BUILD": 'python_tests(name="t", sources=["test_store.py"], dependencies=["oracle:seed"])\n'
                       'oracle_properties(name="props", sources=["props_*.py"], min_examples=250)\n'
                       'python_tests(name="plain", sources=["plain_test.py"])\n',
        "tests/test_store.py": "from calc.store import json\n",
        "tests/props_ops.py": "from calc.ops import add\n",
        "tests/plain_test.py": "from calc.ops import add\n",
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


def test_oracle_classes_come_from_the_graph(rule_runner: RuleRunner):
    write_repo(rule_runner)
    classify = lambda t: rule_runner.request(OracleClassification, [OracleClassRequest(t)]).oracle_class  # noqa: E731
    assert classify(target(rule_runner, "tests", "props", "props_ops.py")) is OracleClass.PROPERTY
    assert classify(target(rule_runner, "tests", "t", "test_store.py")) is OracleClass.LOCKED
    assert classify(target(rule_runner, "tests", "plain", "plain_test.py")) is OracleClass.EQUALITY


def test_fixture_digests_match_sha256sum_and_report_drift(rule_runner: RuleRunner):
    write_repo(rule_runner)
    seed = target(rule_runner, "oracle", "seed")
    ok = rule_runner.request(FixtureDigest, [FixtureDigestRequest(seed)])
    assert ok.actual == ok.expected == sha(LOCKED_SEED) and ok.drift is None
    rule_runner.write_files({"oracle/seed.json": DRIFTED_SEED})
    drifted = rule_runner.request(FixtureDigest, [FixtureDigestRequest(seed)])
    assert drifted.drift == f"FIXTURE_DRIFT oracle:seed expected={sha(LOCKED_SEED)[:12]} actual={sha(DRIFTED_SEED)[:12]}"


def test_ledgers_are_parsed_and_sized_by_the_tests_they_govern(rule_runner: RuleRunner):
    write_repo(rule_runner, ledger=(LEDGERS / "valid.json").read_text())
    parsed = rule_runner.request(ParsedLedger, [ParsedLedgerRequest(target(rule_runner, "oracle", "ledger"))])
    assert parsed.error is None and parsed.suite_size == 3 and len(parsed.ledger.entries) == 1
    write_repo(rule_runner, ledger=(LEDGERS / "bad-date.json").read_text())
    bad = rule_runner.request(ParsedLedger, [ParsedLedgerRequest(target(rule_runner, "oracle", "ledger"))])
    assert bad.error == "oracle/ledger.json: entry 0: `added` is not a valid date (YYYY-MM-DD): '2026-13-40'"


def test_the_sandbox_hook_ships_the_recorder_and_refuses_drift(rule_runner: RuleRunner):
    write_repo(rule_runner)
    test_store = target(rule_runner, "tests", "t", "test_store.py")
    setup = rule_runner.request(PytestPluginSetup, [OracleSandboxSetupRequest(test_store)])
    files = set(rule_runner.request(Snapshot, [setup.digest]).files)
    assert "tests/_oracle_gate_sandbox/sandbox/plugin.py" in files
    assert "tests/oracle_gate_sandbox-1.0.dist-info/entry_points.txt" in files
    assert ".oracle-gate/config/tests.test_store.py.t.json" in files
    rule_runner.write_files({"oracle/seed.json": "{}\n"})
    with pytest.raises(ExecutionError) as e:
        rule_runner.request(PytestPluginSetup, [OracleSandboxSetupRequest(test_store)])
    assert "FIXTURE_DRIFT oracle:seed" in str(e.value)


def test_oracle_lock_rewrites_only_the_drifted_fixture(rule_runner: RuleRunner):
    write_repo(rule_runner, seed='{"a": 3}\n')
    result = rule_runner.run_goal_rule(OracleLock, args=["oracle:seed"], global_args=OPTIONS)
    assert result.exit_code == 0
    assert result.stdout.startswith("LOCKED oracle:seed old=")
    build = Path(rule_runner.build_root, "oracle/BUILD").read_text()
    assert sha('{"a": 3}\n') in build
    again = rule_runner.run_goal_rule(OracleLock, args=["oracle:seed"], global_args=OPTIONS)
    assert again.stdout.startswith("UNCHANGED oracle:seed")
