"""The pytest setup hook: checks the test's oracles, then ships the recorder plugin into its sandbox.

Everything written here joins the pytest process's input digest, so fixture bytes, governing
ledgers and the plugin's own code are all part of every test's cache key.
"""
from __future__ import annotations

import datetime
import json
import pkgutil
from dataclasses import dataclass
from pathlib import PurePath
from typing import Tuple

from pants.backend.python.goals.pytest_runner import PytestPluginSetup, PytestPluginSetupRequest
from pants.backend.python.target_types import PythonTestSourceField
from pants.engine.fs import CreateDigest, Digest, FileContent, MergeDigests
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.unions import UnionRule
from pants.source.source_root import SourceRoot, SourceRootRequest
from pants.util.logging import LogLevel

from oracle_gate.rules.facts import (
    FixtureDigests,
    FixtureDigestsRequest,
    GoverningLedgers,
    GoverningLedgersRequest,
    OracleClassification,
    OracleClassRequest,
    OracleGateError,
)
from oracle_gate.target_types import MinExamplesField

SANDBOX_PACKAGE = "_oracle_gate_sandbox"
CONFIG_DIR = ".oracle-gate/config"
CORE_MODULES = ("__init__", "ledger", "signature")
DIST_INFO = "oracle_gate_sandbox-1.0.dist-info"


@dataclass(frozen=True)
class SandboxRuntimeRequest:
    root: str  # the source root the runtime goes under, so it is on the test's sys.path


@dataclass(frozen=True)
class SandboxRuntime:
    digest: Digest


def _source(package: str, module: str) -> bytes:
    data = pkgutil.get_data(package, f"{module}.py")
    if data is None:
        raise OracleGateError(f"oracle-gate is installed without its {package}.{module} source")
    return data


@rule(level=LogLevel.DEBUG)
async def sandbox_runtime(request: SandboxRuntimeRequest) -> SandboxRuntime:
    """The recorder plugin, the policy core it needs, and a dist-info so pytest autoloads it."""
    root = PurePath(request.root)
    pkg = root / SANDBOX_PACKAGE
    files = [
        FileContent(str(pkg / "__init__.py"), b""),
        FileContent(str(pkg / "sandbox" / "__init__.py"), b""),
        FileContent(str(pkg / "sandbox" / "plugin.py"), _source("oracle_gate.sandbox", "plugin")),
        *(FileContent(str(pkg / "core" / f"{m}.py"), _source("oracle_gate.core", m)) for m in CORE_MODULES),
        FileContent(str(root / DIST_INFO / "METADATA"),
                    b"Metadata-Version: 2.1\nName: oracle-gate-sandbox\nVersion: 1.0\n"),
        FileContent(str(root / DIST_INFO / "entry_points.txt"),
                    f"[pytest11]\noracle_gate = {SANDBOX_PACKAGE}.sandbox.plugin\n".encode()),
    ]
    return SandboxRuntime(await Get(Digest, CreateDigest(files)))


@dataclass(frozen=True)
class OracleSandboxSetupRequest(PytestPluginSetupRequest):
    @classmethod
    def is_applicable(cls, target) -> bool:
        return target.has_field(PythonTestSourceField)


@rule(desc="Check oracles and prepare the oracle-gate sandbox", level=LogLevel.DEBUG)
async def setup_oracle_sandbox(request: OracleSandboxSetupRequest) -> PytestPluginSetup:
    target = request.target
    source = target[PythonTestSourceField].file_path
    classification, ledgers, source_root = await MultiGet(
        Get(OracleClassification, OracleClassRequest(target)),
        Get(GoverningLedgers, GoverningLedgersRequest(source)),
        Get(SourceRoot, SourceRootRequest, SourceRootRequest.for_file(source)),
    )
    fixtures = await Get(FixtureDigests, FixtureDigestsRequest(classification.fixtures))
    today = datetime.date.today()
    problems: Tuple[str, ...] = fixtures.drift + tuple(
        line for ledger in ledgers.ledgers for line in ledger.problems(today)
    )
    if problems:
        raise OracleGateError(f"{target.address} cannot run:\n" + "\n".join(problems))

    config = {
        "address": target.address.spec,
        "source": source,
        "class": classification.oracle_class.value,
        "min_examples": target[MinExamplesField].value if target.has_field(MinExamplesField) else 0,
        "ledgers": [{"path": l.path, "text": l.text} for l in ledgers.ledgers],
        # Expiry depends on the date, so a governed test's cache key does too.
        "today": today.isoformat() if any(l.ledger and l.ledger.entries for l in ledgers.ledgers) else None,
    }
    config_file = FileContent(
        f"{CONFIG_DIR}/{target.address.path_safe_spec}.json",
        json.dumps(config, sort_keys=True, indent=1).encode(),
    )
    runtime, config_digest = await MultiGet(
        Get(SandboxRuntime, SandboxRuntimeRequest(source_root.path)),
        Get(Digest, CreateDigest([config_file])),
    )
    merged = await Get(Digest, MergeDigests([runtime.digest, config_digest]))
    return PytestPluginSetup(merged)


def rules():
    return [*collect_rules(), UnionRule(PytestPluginSetupRequest, OracleSandboxSetupRequest)]
