"""The pytest setup hook: ships the recorder into every test sandbox, with what it must record.

It never refuses to run a test and never changes an outcome: with the backend enabled, `pants
test` reports what it reports without it. Everything written here joins the pytest process's input
digest, so the recorder's code, the test's locked fixtures and the bytes of every ledger that
governs it are part of its cache key (ledger dates are judged by the gate, not here).
"""
from __future__ import annotations

import json
import pkgutil
from dataclasses import dataclass
from pathlib import PurePath

from pants.backend.python.goals.pytest_runner import PytestPluginSetup, PytestPluginSetupRequest
from pants.backend.python.target_types import PythonTestSourceField
from pants.engine.fs import CreateDigest, Digest, FileContent, MergeDigests, PathGlobs
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import AllTargets
from pants.engine.unions import UnionRule
from pants.source.source_root import SourceRoot, SourceRootRequest
from pants.util.logging import LogLevel

from oracle_gate.core.ladder.ledger import governed
from oracle_gate.rules.facts import OracleGateError, TestClosure, TestClosureRequest
from oracle_gate.target_types import (EntryPointField, FreezeLedgerSourceField, GovernsField, ProbesSourceField,
                                      ReplaySourceField)

SANDBOX_PACKAGE = "_oracle_gate_sandbox"
# What the sandbox holds under the test's source root: a directory without `__init__.py`, so
# coverage.py's search for unexecuted files (`--cov=<source root>`) never enters it. Its two shims
# run only while pytest loads plugins, before coverage starts; they import the recorder from a
# private copy outside the sandbox, so coverage never measures or reports a recorder file and
# `pants test` with `use_coverage` reports exactly what it reports without the backend.
BOOT_PACKAGE = "_oracle_gate_boot"
CONFIG_DIR = ".oracle-gate/config"
LEDGER_DIR = ".oracle-gate/ledgers"
# The core modules the recorder imports (relatively), shipped beside it: the protocol package,
# paths under core/ without `.py`.
CORE_MODULES = ("__init__", "protocol/__init__", "protocol/results", "protocol/signature", "protocol/cleanroom",
                "protocol/mutant_payload")
SANDBOX_MODULES = ("__init__", "plugin", "replay", "clean_interpreter", "jail")
DIST_INFO = "oracle_gate_sandbox-1.0.dist-info"
PLUGINS = {"oracle_gate": "plugin", "oracle_gate_replay": "replay"}  # pytest11 entry point -> module

# Executed once, at import: copies the recorder out of the sandbox and puts the copy on sys.path.
# (Templates with `{package}` and `{module}`: build-support/recorder-matrix reads them too.)
# The copy sits in a directory named site-packages: tools that tell local code from installed code
# treat it as installed (Hypothesis draws examples from the constants of local modules only).
BOOT_RUNTIME = """\
import atexit, os, shutil, sys, tempfile
_root = tempfile.mkdtemp(prefix="oracle-gate-recorder-")
atexit.register(shutil.rmtree, _root, True)
_copy = os.path.join(_root, "site-packages")
shutil.copytree(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime", "{package}"),
                os.path.join(_copy, "{package}"))
sys.path.append(_copy)
"""
# A pytest11 entry point: the recorder's module takes the shim's place, so pytest registers it.
BOOT_SHIM = """\
import importlib, sys
from . import runtime_path  # noqa: F401
sys.modules[__name__] = importlib.import_module("{package}.sandbox.{module}")
"""


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
    """The recorder plugin, the core modules it needs, its boot shims and a dist-info so pytest
    autoloads it."""
    root = PurePath(request.root)
    boot = root / BOOT_PACKAGE
    pkg = boot / "runtime" / SANDBOX_PACKAGE
    entry_points = "".join(f"{name} = {BOOT_PACKAGE}.{module}\n" for name, module in PLUGINS.items())
    files = [
        FileContent(str(boot / "runtime_path.py"), BOOT_RUNTIME.format(package=SANDBOX_PACKAGE).encode()),
        *(FileContent(str(boot / f"{module}.py"), BOOT_SHIM.format(package=SANDBOX_PACKAGE, module=module).encode())
          for module in PLUGINS.values()),
        FileContent(str(pkg / "__init__.py"), b""),
        *(FileContent(str(pkg / "sandbox" / f"{m}.py"), _source("oracle_gate.sandbox", m)) for m in SANDBOX_MODULES),
        *(FileContent(str(pkg / "core" / f"{m}.py"), _source("oracle_gate.core", m)) for m in CORE_MODULES),
        FileContent(str(root / DIST_INFO / "METADATA"),
                    b"Metadata-Version: 2.1\nName: oracle-gate-sandbox\nVersion: 1.0\n"),
        FileContent(str(root / DIST_INFO / "entry_points.txt"), f"[pytest11]\n{entry_points}".encode()),
    ]
    return SandboxRuntime(await Get(Digest, CreateDigest(files)))


@dataclass(frozen=True)
class OracleSandboxSetupRequest(PytestPluginSetupRequest):
    @classmethod
    def is_applicable(cls, target) -> bool:
        return target.has_field(PythonTestSourceField)


@rule(desc="Prepare the oracle-gate recorder", level=LogLevel.DEBUG)
async def setup_oracle_sandbox(request: OracleSandboxSetupRequest, all_targets: AllTargets) -> PytestPluginSetup:
    target = request.target
    source = target[PythonTestSourceField].file_path
    closure, source_root = await MultiGet(
        Get(TestClosure, TestClosureRequest(target)),
        Get(SourceRoot, SourceRootRequest, SourceRootRequest.for_file(source)),
    )
    ledgers = sorted(
        t[FreezeLedgerSourceField].file_path for t in all_targets
        if t.has_field(FreezeLedgerSourceField) and governed(t[GovernsField].value or ("",), source)
    )
    kind = "replay" if target.has_field(ReplaySourceField) else ("probes" if target.has_field(ProbesSourceField) else "test")
    config = {"address": target.address.spec, "source": source, "fixtures": list(closure.fixtures), "kind": kind}
    if target.has_field(EntryPointField):
        config["entry_point"] = target[EntryPointField].value
    config_file = FileContent(f"{CONFIG_DIR}/{target.address.path_safe_spec}.json",
                              json.dumps(config, sort_keys=True, indent=1).encode())
    runtime, config_digest, ledger_digest = await MultiGet(
        Get(SandboxRuntime, SandboxRuntimeRequest(source_root.path)),
        Get(Digest, CreateDigest([config_file])),
        Get(Digest, PathGlobs(ledgers)),
    )
    merged = await Get(Digest, MergeDigests([runtime.digest, config_digest, ledger_digest]))
    return PytestPluginSetup(merged)


def rules():
    return [*collect_rules(), UnionRule(PytestPluginSetupRequest, OracleSandboxSetupRequest)]
