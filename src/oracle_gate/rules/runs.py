"""Running oracles and mutants through Pants' own pytest runner, one fact per rule.

Oracle runs are the processes `pants test` runs (same partitions, `[test].batch_size` batching,
environments), each started inside a jail (`sandbox/jail.py`: read-only file system but for its
sandbox and Pants' named caches, no network beyond loopback, nothing outlives it); with
`jail = false` they are the very processes of `pants test` and share its cache entries. A mutant run
is the same process with one more environment variable (the mutant), cached by that value: a
mutant's result depends only on the mutant and the oracle, never on the diff that asked for it.
A failure of the infrastructure (resolve, download, sandbox) is caught per batch and reported as
such, never as a test failure.
"""
from __future__ import annotations

import dataclasses
import json
import pkgutil
import sys
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Optional, Tuple

from pants.backend.python.goals.pytest_runner import PyTestRequest, TestMetadata, TestSetup, TestSetupRequest
from pants.backend.python.subsystems.pytest import PythonTestFieldSet
from pants.core.goals.test import TestRequest, TestSubsystem
from pants.core.util_rules.environments import ChosenLocalEnvironmentName, EnvironmentName, SingleEnvironmentNameRequest
from pants.core.util_rules.partitions import Partitions
from pants.engine.fs import (CreateDigest, Digest, DigestContents, DigestSubset, FileContent, MergeDigests, PathGlobs,
                             RemovePrefix)
from pants.engine.process import FallibleProcessResult, Process, ProcessCacheScope, ProcessResultMetadata
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import Target
from pants.util.collections import partition_sequentially
from pants.util.frozendict import FrozenDict
from pants.util.logging import LogLevel

from oracle_gate.core.protocol import cleanroom as CR
from oracle_gate.core.protocol import mutant_payload as MP
from oracle_gate.core.protocol import results as R

EXTRA_OUTPUT = "extra-output"

# -- the jail ------------------------------------------------------------------------------------------
JAIL_SCRIPT = ".oracle_gate_jail.py"
JAIL_STATUS = "oracle-gate-jail.json"  # written by the jail's wrapper into the extra output, last


@dataclass(frozen=True)
class Jail:
    enabled: bool
    require: bool  # where namespaces are unavailable, run nothing (an infrastructure error)
    writable: Tuple[str, ...]  # besides the sandbox: Pants' named caches (pex builds venvs there)


NO_JAIL = Jail(False, False, ())


@dataclass(frozen=True)
class JailRequest:
    process: Process
    jail: Jail


@dataclass(frozen=True)
class JailedProcess:
    process: Process


@rule(level=LogLevel.DEBUG)
async def jail_process(request: JailRequest) -> JailedProcess:
    if not request.jail.enabled:
        return JailedProcess(request.process)
    script = await Get(Digest, CreateDigest([FileContent(JAIL_SCRIPT, pkgutil.get_data("oracle_gate.sandbox", "jail.py") or b"")]))
    merged = await Get(Digest, MergeDigests([request.process.input_digest, script]))
    argv = (sys.executable, JAIL_SCRIPT, f"{EXTRA_OUTPUT}/{JAIL_STATUS}", "1" if request.jail.require else "0",
            *request.jail.writable, "--", *request.process.argv)
    return JailedProcess(dataclasses.replace(request.process, argv=argv, input_digest=merged))


def jail_state(contents: DigestContents, prefix: str, jail: Jail) -> Tuple[str, int]:
    """('' when the process was jailed (or no jail was asked for), else why it was not; how many
    processes the jail stopped because they were still running when the command ended)."""
    if not jail.enabled:
        return "", 0
    for fc in contents:
        if fc.path == f"{prefix}{JAIL_STATUS}":
            try:
                status = json.loads(fc.content)
                if status.get("jailed") is not True:
                    return f"not jailed: {status.get('why') or 'unknown'}", 0
                stopped = status.get("stopped")
                return "", stopped if isinstance(stopped, int) and not isinstance(stopped, bool) else 0
            except (ValueError, AttributeError):
                return "not jailed: the jail's status file is unreadable", 0
    return "not jailed: the jail left no status file", 0


@dataclass(frozen=True)
class TargetRecord:
    """One test target's share of a run: Pants' facts about the process and the recorder's file."""

    address: str
    path: str
    exit_code: Optional[int]
    metadata: Optional[ProcessResultMetadata]  # Pants' cache status, relative to a run id
    session: Optional[R.SessionResults]
    error: str  # why there is no usable record (unreadable file, infrastructure failure)
    infra: bool  # the run itself could not happen
    output_tail: str
    xml: Optional[Digest] = None
    jail: str = ""  # why the process was not jailed, when a jail was asked for and not had
    stopped: int = 0  # processes the jail killed because they outlived the tests
    batch: Tuple[str, ...] = ()  # the addresses that ran in the same process (stopped and session are theirs)


def _tail(text: str, lines: int = 12) -> str:
    kept = [l.rstrip() for l in text.splitlines() if l.strip()][-lines:]
    return " | ".join(kept)[-1500:]


def _read_session(contents: DigestContents, prefix: str) -> Tuple[Optional[R.SessionResults], str]:
    wanted = f"{prefix}{R.RESULTS_RELPATH}"
    for fc in contents:
        if fc.path == wanted:
            try:
                return R.loads(fc.content), ""
            except R.ResultsError as e:
                return None, f"the results file is malformed: {e}"
    return None, "the sandbox left no results file (the session crashed, timed out or called os._exit)"


# What Pants' local runner appends to a process's output when it kills it at its timeout.
TIMEOUT_MARKER = "Exceeded timeout of"


def _first_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    for marker in ("There were", "Error:", "error:", "ERROR:"):
        if marker in text:
            text = text[text.index(marker):]
            break
    return f"{type(e).__name__}: {text[:400]}"


# -- oracle batches ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OracleBatchRequest:
    batch: PyTestRequest.Batch
    environment: EnvironmentName
    jail: Jail = NO_JAIL


@dataclass(frozen=True)
class OracleBatchOutcome:
    records: Tuple[TargetRecord, ...]


@rule(desc="Run an oracle batch", level=LogLevel.DEBUG)
async def run_oracle_batch(request: OracleBatchRequest, local_env: ChosenLocalEnvironmentName) -> OracleBatchOutcome:
    paths = {fs.address.spec: fs.source.file_path for fs in request.batch.elements}
    batch = request.batch
    # The jail wraps processes of this machine; a Docker or remote environment is another machine.
    local = request.environment == local_env.val
    jail = request.jail if local else NO_JAIL
    try:
        # As Pants' own `run_python_tests` runs a batch, with the process in the jail.
        setup = await Get(TestSetup, {TestSetupRequest(batch.elements, batch.partition_metadata, is_debug=False):
                                      TestSetupRequest, request.environment: EnvironmentName})
        jailed = await Get(JailedProcess, JailRequest(setup.process, jail))
        result = await Get(FallibleProcessResult, {jailed.process: Process, request.environment: EnvironmentName})
    except Exception as e:  # the engine raises for resolve/download/sandbox failures
        why = _first_line(e)
        return OracleBatchOutcome(tuple(TargetRecord(a, p, None, None, None, why, True, "") for a, p in sorted(paths.items())))
    extra = await Get(Digest, DigestSubset(result.output_digest, PathGlobs([f"{EXTRA_OUTPUT}/**"])))
    contents = await Get(DigestContents, Digest, await Get(Digest, RemovePrefix(extra, EXTRA_OUTPUT)))
    session, error = _read_session(contents, "")
    jail_why, stopped = jail_state(contents, "", jail) if local or not request.jail.enabled else \
        (f"not jailed: runs in the {request.environment.val} environment", 0)
    tail = _tail(result.stdout.decode(errors="replace") + "\n" + result.stderr.decode(errors="replace"))
    xml = (await Get(Digest, DigestSubset(result.output_digest, PathGlobs([setup.results_file_name])))
           if setup.results_file_name else None)
    return OracleBatchOutcome(tuple(
        TargetRecord(a, p, result.exit_code, result.metadata, session, error, False, tail, xml, jail_why, stopped,
                     tuple(sorted(paths)))
        for a, p in sorted(paths.items())
    ))


@dataclass(frozen=True)
class OracleRunsRequest:
    targets: Tuple[Target, ...]
    # Tests the diff may have written (new, demoted, drafts): each runs in a process of its own, so
    # its import-time code can never patch production or the recorder under a voter's batch.
    isolate: FrozenSet[str] = frozenset()
    jail: Jail = NO_JAIL


@dataclass(frozen=True)
class OracleRuns:
    records: Tuple[TargetRecord, ...]
    batches: Tuple[Tuple[Tuple[str, ...], TestMetadata], ...]  # addresses per batch, and its metadata


@rule(desc="Run the oracles", level=LogLevel.DEBUG)
async def run_oracles(
    request: OracleRunsRequest, test_subsystem: TestSubsystem, local_env: ChosenLocalEnvironmentName
) -> OracleRuns:
    field_sets = [PythonTestFieldSet.create(t) for t in request.targets if PythonTestFieldSet.is_applicable(t)]
    if not field_sets:
        return OracleRuns((), ())
    partitions = await Get(
        Partitions,
        {PyTestRequest.PartitionRequest(tuple(field_sets)): TestRequest.PartitionRequest, local_env.val: EnvironmentName},
    )
    # Batches exactly as `pants test` cuts them, so the processes (and cache keys) are the same;
    # only a test the diff may have written is taken out of its batch and runs alone.
    batches = [
        PyTestRequest.Batch(PyTestRequest.tool_name, tuple(batch), partition.metadata)
        for partition in partitions
        for batch in [
            *partition_sequentially(
                [e for e in partition.elements if e.address.spec not in request.isolate],
                key=lambda x: str(x.address),
                size_target=test_subsystem.batch_size, size_max=2 * test_subsystem.batch_size,
            ),
            *([e] for e in partition.elements if e.address.spec in request.isolate),
        ]
    ]
    environments = await MultiGet(
        Get(EnvironmentName, SingleEnvironmentNameRequest,
            SingleEnvironmentNameRequest.from_field_sets(b.elements, b.description))
        for b in batches
    )
    outcomes = await MultiGet(Get(OracleBatchOutcome, OracleBatchRequest(b, e, request.jail))
                              for b, e in zip(batches, environments))
    return OracleRuns(
        tuple(r for o in outcomes for r in o.records),
        tuple((tuple(fs.address.spec for fs in b.elements), b.partition_metadata) for b in batches),
    )


# -- one oracle again, with one more environment variable (a mutant, the clean room) ---------------
@dataclass(frozen=True)
class OracleRerunRequest:
    target: Target
    metadata: TestMetadata
    env: FrozenDict[str, str]
    description: str
    timeout_seconds: Optional[int] = None  # None: the test's own
    cache_scope: Optional[ProcessCacheScope] = None  # None: the test's own
    jail: Jail = NO_JAIL


@dataclass(frozen=True)
class OracleRerun:
    result: Optional[FallibleProcessResult]
    error: str  # why it did not run


@rule(desc="Run an oracle again", level=LogLevel.DEBUG)
async def rerun_oracle(request: OracleRerunRequest, local_env: ChosenLocalEnvironmentName) -> OracleRerun:
    """The test process `pants test` runs for the target, with `env` added, in the jail."""
    field_set = PythonTestFieldSet.create(request.target)
    try:
        setup = await Get(TestSetup, {TestSetupRequest((field_set,), request.metadata, is_debug=False,
                                                       extra_env=request.env): TestSetupRequest,
                                      local_env.val: EnvironmentName})
        changes: Dict[str, Any] = {"description": request.description}
        if request.timeout_seconds is not None:
            changes["timeout_seconds"] = request.timeout_seconds
        if request.cache_scope is not None:
            changes["cache_scope"] = request.cache_scope
        jailed = await Get(JailedProcess, JailRequest(dataclasses.replace(setup.process, **changes), request.jail))
        result = await Get(FallibleProcessResult, {jailed.process: Process, local_env.val: EnvironmentName})
    except Exception as e:
        return OracleRerun(None, f"not run: {_first_line(e)}")
    return OracleRerun(result, "")


# -- mutants --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MutantRunRequest:
    target: Target
    metadata: TestMetadata
    env_value: str  # core/protocol/mutant_payload.ENV_VAR
    mutant_id: str
    timeout_seconds: int
    jail: Jail = NO_JAIL


@dataclass(frozen=True)
class MutantRun:
    mutant_id: str
    address: str
    killed: bool
    served: bool  # the mutant's module was actually loaded
    detail: str
    # The session left no (readable) results and did not time out: neither killed nor survived.
    error: bool = False


@rule(desc="Run a mutant against an oracle", level=LogLevel.DEBUG)
async def run_mutant(request: MutantRunRequest) -> MutantRun:
    address = request.target.address.spec
    rerun = await Get(OracleRerun, OracleRerunRequest(
        request.target, request.metadata, FrozenDict({MP.ENV_VAR: request.env_value}),
        f"oracle-gate mutant {request.mutant_id} against {address}", request.timeout_seconds,
        # A mutant's outcome is a fact about two digests: keep it, killed or not.
        ProcessCacheScope.ALWAYS, request.jail))
    result = rerun.result
    if result is None:
        return MutantRun(request.mutant_id, address, False, False, rerun.error)
    subset = await Get(Digest, DigestSubset(result.output_digest, PathGlobs([f"{EXTRA_OUTPUT}/**"])))
    contents = await Get(DigestContents, Digest, subset)
    session, error = _read_session(contents, f"{EXTRA_OUTPUT}/")
    served = bool(session and session.mutant and session.mutant.served)
    if session is None:
        # A mutant that hangs past the timeout is killed (the oracles noticed it never returns), and
        # so is one whose process ended without results after it was served (MP.SERVED_RELPATH).
        # Any other missing results file says nothing about the mutant: an infrastructure error.
        if TIMEOUT_MARKER in result.stdout.decode(errors="replace") + result.stderr.decode(errors="replace"):
            return MutantRun(request.mutant_id, address, True, True, f"killed: exceeded {request.timeout_seconds}s")
        if any(fc.path == f"{EXTRA_OUTPUT}/{MP.SERVED_RELPATH}" and fc.content == request.mutant_id.encode()
               for fc in contents):
            return MutantRun(request.mutant_id, address, True, True,
                             f"killed: its process ended (exit {result.exit_code}) with the mutant loaded, leaving no results")
        return MutantRun(request.mutant_id, address, False, False, f"{error} (exit {result.exit_code})", error=True)
    failed = [t.nodeid for t in session.tests if t.outcome in ("failed", "error")]
    killed = bool(failed) or not session.complete or result.exit_code != 0
    detail = f"killed by {failed[0]}" if failed else ("killed: session incomplete" if killed else "survived")
    return MutantRun(request.mutant_id, address, killed, served, detail)


# -- the clean room --------------------------------------------------------------------------------
@dataclass(frozen=True)
class CleanroomRunRequest:
    target: Target
    metadata: TestMetadata
    watch: str  # ORACLE_GATE_CLEANROOM: the functions to sample (core/protocol/cleanroom.py)
    jail: Jail = NO_JAIL
    base: str = ""  # ORACLE_GATE_CLEANROOM_BASE: the base's sources of the changed files, or none
    # ORACLE_GATE_MUTANT: a mutant no voter noticed, run in the head's twins against the base's
    mutant: str = ""


@dataclass(frozen=True)
class CleanroomRun:
    address: str
    results: Optional[CR.CleanroomResults]
    error: str  # why there are no results


@rule(desc="Replay an oracle's calls in a clean room", level=LogLevel.DEBUG)
async def run_cleanroom(request: CleanroomRunRequest) -> CleanroomRun:
    """The oracle's own session again, its calls into the watched functions sampled, then replayed
    by the recorder in clean interpreters; cached by the watch list like any process input."""
    address = request.target.address.spec
    rerun = await Get(OracleRerun, OracleRerunRequest(
        request.target, request.metadata,
        FrozenDict({CR.ENV: request.watch, **({CR.BASE_ENV: request.base} if request.base else {}),
                    **({MP.ENV_VAR: request.mutant} if request.mutant else {})}),
        f"oracle-gate clean room for {address}" + (" against a mutant" if request.mutant else ""),
        jail=request.jail))
    result = rerun.result
    if result is None:
        return CleanroomRun(address, None, rerun.error)
    subset = await Get(Digest, DigestSubset(result.output_digest, PathGlobs([f"{EXTRA_OUTPUT}/{CR.RESULTS_RELPATH}"])))
    contents = await Get(DigestContents, Digest, subset)
    if not contents:
        tail = _tail(result.stdout.decode(errors="replace") + "\n" + result.stderr.decode(errors="replace"), 3)
        return CleanroomRun(address, None, f"the session left no clean-room results (exit {result.exit_code}): {tail}")
    try:
        return CleanroomRun(address, CR.loads(contents[0].content), "")
    except ValueError as e:
        return CleanroomRun(address, None, str(e))


def rules():
    return collect_rules()
