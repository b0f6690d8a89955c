"""The merge base's facts: built by the same rules in a nested Pants run, kept by Pants itself.

The base is evaluated by one Pants process the gate starts (`base_facts_driver.py`: a private
checkout of the base commit, `pants oracle-facts` under the base's own configuration). Its output is
a process result in Pants' content-addressed cache, keyed by the base commit, the plugin's code, the
Pants version and the trusted environment, so every diff against the same base reuses it (and a
remote cache shares it between machines that check the repository out at the same path). Nothing
is read back from a file a test could have written.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Optional, Tuple

from pants.engine.environment import ChosenLocalEnvironmentName, EnvironmentName
from pants.engine.fs import CreateDigest, Digest, DigestContents, FileContent
from pants.engine.internals.session import RunId
from pants.engine.process import FallibleProcessResult, Process, ProcessCacheScope
from pants.engine.rules import Get, collect_rules, rule
from pants.util.logging import LogLevel

from oracle_gate.core.lanes.facts import FACTS_VERSION, Facts, FactsError
from oracle_gate.rules import base_facts_driver as DRIVER
from oracle_gate.rules.git_diff import GitDiff, GitDiffError, ancestors

NESTED_TIMEOUT_SECONDS = 3600


class BaseFactsError(Exception):
    """The base's facts could not be built; the message names the cause."""


class BaseUnevaluable(BaseFactsError):
    """Pants rejects the base commit itself (a broken BUILD file, an unknown option): deterministic,
    so it is a policy verdict with a way out, never an infrastructure failure to retry."""


@dataclass(frozen=True)
class BaseFacts:
    facts: Facts
    source: str  # Pants' cache status of the process: ran, hit_locally, hit_remotely, memoized

    @property
    def reused(self) -> bool:
        return self.source != "ran"


@functools.lru_cache(maxsize=None)
def plugin_fingerprint() -> str:
    """A digest of the running plugin's code: new code, new base facts (a new process, too: pantsd
    restarts when its plugins change)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# Variables that only say where this run happens; they never change the base's facts.
_PER_RUN_ENV = frozenset({"PANTS_BUILDROOT_OVERRIDE", "PANTS_PANTSD", "PANTS_DYNAMIC_UI", "PANTS_LEVEL"})
# What the nested Pants needs from the machine besides its own options.
_MACHINE_ENV = frozenset({"PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "XDG_CACHE_HOME",
                          "PYENV_ROOT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                          "PYTHONDONTWRITEBYTECODE",
                          # Benchmarks set a fresh value to measure a first evaluation of a base.
                          "ORACLE_GATE_BASE_FACTS_SALT"})


def nested_env(env: Mapping[str, str]) -> Tuple[Tuple[str, str], ...]:
    """The environment of the nested run: Pants options (they apply to the base too, so they are
    part of the key) and what the machine needs, nothing that only says where this run happens."""
    return tuple(sorted((k, v) for k, v in env.items()
                        if (k.startswith(("PANTS_", "PEX_", "PIP_")) and k not in _PER_RUN_ENV) or k in _MACHINE_ENV))


@dataclass(frozen=True)
class BaseFactsRequest:
    worktree: str
    prefix: str
    commit: str
    env: Tuple[Tuple[str, str], ...]


@dataclass(frozen=True)
class BaseFactsRun:
    exit_code: int
    facts_json: Optional[str]
    failure: str
    source: str


@rule(desc="Evaluate the merge base", level=LogLevel.DEBUG)
async def run_base_facts(request: BaseFactsRequest, run_id: RunId, local_env: ChosenLocalEnvironmentName) -> BaseFactsRun:
    driver = Path(DRIVER.__file__).read_bytes()
    sandbox = await Get(Digest, CreateDigest([FileContent("base_facts_driver.py", driver)]))
    process = Process(
        argv=(sys.executable, "base_facts_driver.py", request.worktree, request.commit, request.prefix, sys.executable),
        description=f"oracle-gate: evaluate the base commit {request.commit[:12]} under its own configuration",
        input_digest=sandbox,
        # The key: the commit (its tree), the driver, the plugin that evaluates it, the Pants version
        # (the interpreter's path) and the trusted environment.
        env={**dict(request.env), "ORACLE_GATE_FACTS_KEY": f"{FACTS_VERSION}-{plugin_fingerprint()}"},
        output_files=(DRIVER.FACTS, DRIVER.FAILURE),
        timeout_seconds=NESTED_TIMEOUT_SECONDS,
        cache_scope=ProcessCacheScope.SUCCESSFUL,
        level=LogLevel.DEBUG,
    )
    result = await Get(FallibleProcessResult, {process: Process, local_env.val: EnvironmentName})
    contents = {fc.path: fc.content.decode("utf-8", errors="replace")
                for fc in await Get(DigestContents, Digest, result.output_digest)}
    failure = contents.get(DRIVER.FAILURE, "")
    if result.exit_code != 0 and not failure:
        failure = (f"the process evaluating the base commit {request.commit[:12]} failed (exit {result.exit_code}): "
                   f"{DRIVER.cause(result.stderr.decode(errors='replace'))}")
    return BaseFactsRun(result.exit_code, contents.get(DRIVER.FACTS) if result.exit_code == 0 else None, failure,
                        result.metadata.source(run_id).value)


def base_facts_request(diff: GitDiff, env: Mapping[str, str], commit: Optional[str] = None) -> BaseFactsRequest:
    return BaseFactsRequest(diff.worktree, diff.prefix, commit or diff.base_commit, nested_env(env))


def facts_of(run: BaseFactsRun, commit: str) -> BaseFacts:
    """The base's facts from its run (raises BaseUnevaluable or BaseFactsError)."""
    if run.exit_code == DRIVER.EXIT_UNEVALUABLE:
        raise BaseUnevaluable(run.failure)
    if run.exit_code != 0 or run.facts_json is None:
        raise BaseFactsError(run.failure or f"no facts (exit {run.exit_code})")
    try:
        facts = Facts.loads(run.facts_json)
    except FactsError as e:
        raise BaseFactsError(f"the base commit's facts are unreadable: {e}") from None
    return BaseFacts(Facts(facts.targets, facts.dependents, facts.options, facts.texts, commit, facts.pants_version),
                     run.source)


@dataclass(frozen=True)
class LastEvaluableRequest:
    """The nearest of up to `probes` first-parent ancestors of an unevaluable base that Pants
    evaluates (its facts are kept for the next gate)."""

    base: BaseFactsRequest
    probes: int = 2


@dataclass(frozen=True)
class LastEvaluable:
    commit: Optional[str]


@rule(desc="Find the last evaluable commit before the base", level=LogLevel.DEBUG)
async def last_evaluable_ancestor(request: LastEvaluableRequest) -> LastEvaluable:
    try:
        first_parents: List[str] = ancestors(request.base.worktree, request.base.commit, request.probes,
                                             first_parent=True)
    except GitDiffError:
        return LastEvaluable(None)
    for commit in first_parents:
        run = await Get(BaseFactsRun, BaseFactsRequest, dataclasses.replace(request.base, commit=commit))
        if run.exit_code == 0:
            return LastEvaluable(commit)
    return LastEvaluable(None)


def rules():
    return collect_rules()
