"""The merge base's facts: built once per base commit by the same rules, then reused from disk.

The base is checked out into a private directory (a private git index, so the repository's own
index, work tree and worktree list are untouched) and evaluated by one nested Pants run of
`oracle-facts` under the base's own configuration: the judge's configuration is the base's. The
result is kept under the Pants workdir, keyed by the base commit, the facts format, the plugin's
code and the Pants version, so every diff against the same base reuses it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from oracle_gate.core.facts import FACTS_VERSION, Facts, FactsError
from oracle_gate.rules.git_diff import GitDiff, GitDiffError, ancestors, export_tree

NESTED_TIMEOUT_SECONDS = 3600


class BaseFactsError(Exception):
    """The base's facts could not be built; the message names the cause."""


class BaseUnevaluable(BaseFactsError):
    """Pants rejects the base commit itself (a broken BUILD file, an unknown option): deterministic,
    so it is a policy verdict with a way out, never an infrastructure failure to retry."""


@dataclass(frozen=True)
class BaseFacts:
    facts: Facts
    reused: bool
    seconds: float
    path: str


def plugin_fingerprint() -> str:
    """A digest of the running plugin's code: new code, new base facts."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _trusted_env_digest(env: Mapping[str, str]) -> str:
    """Environment options apply to the base run too, so they are part of its key."""
    items = sorted((k, v) for k, v in env.items() if k.startswith("PANTS_") and k not in _PER_RUN_ENV)
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]


# Variables that only say where this run happens; they never change the base's facts.
_PER_RUN_ENV = frozenset({"PANTS_BUILDROOT_OVERRIDE", "PANTS_PANTSD", "PANTS_DYNAMIC_UI", "PANTS_LEVEL"})


def cache_path(workdir: str, base_commit: str, pants_version: str, env: Mapping[str, str]) -> str:
    key = hashlib.sha256(json.dumps(
        [FACTS_VERSION, base_commit, plugin_fingerprint(), pants_version, _trusted_env_digest(env)]
    ).encode()).hexdigest()[:16]
    return os.path.join(workdir, "oracle-gate", "base-facts", f"{base_commit[:12]}-{key}.json")


def load_or_build(diff: GitDiff, workdir: str, pants_version: str, env: Mapping[str, str]) -> BaseFacts:
    start = time.monotonic()
    path = cache_path(workdir, diff.base_commit, pants_version, env)
    if os.path.exists(path):
        try:
            facts = Facts.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, FactsError):
            facts = None  # a damaged cache entry is rebuilt, never trusted
        if facts is not None and facts.commit == diff.base_commit:
            return BaseFacts(facts, True, time.monotonic() - start, path)
    facts = _build(diff, env)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    Path(tmp).write_text(facts.dumps(), encoding="utf-8")
    os.replace(tmp, path)
    return BaseFacts(facts, False, time.monotonic() - start, path)


def _build(diff: GitDiff, env: Mapping[str, str]) -> Facts:
    scratch = tempfile.mkdtemp(prefix="oracle-gate-base-")
    try:
        try:
            root = export_tree(diff, os.path.join(scratch, "tree"))
        except GitDiffError as e:
            raise BaseFactsError(f"could not check out the base commit {diff.base_commit[:12]}: {e}") from None
        if not os.path.isfile(os.path.join(root, "pants.toml")):
            raise BaseFactsError(f"the base commit {diff.base_commit[:12]} has no pants.toml at {diff.prefix or '.'}")
        out = os.path.join(scratch, "facts.json")
        run_env = {k: v for k, v in env.items() if k not in _PER_RUN_ENV}
        run_env["PANTS_BUILDROOT_OVERRIDE"] = root
        argv = [sys.executable, "-m", "pants", "--no-pantsd", "--no-dynamic-ui", "--no-watch-filesystem",
                f"--pants-workdir={os.path.join(scratch, 'workdir')}",
                "oracle-facts", f"--oracle-facts-output={out}"]
        causes = []
        for _attempt in range(2):
            try:
                proc = subprocess.run(argv, cwd=root, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      timeout=NESTED_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                raise BaseFactsError(f"evaluating the base commit took longer than {NESTED_TIMEOUT_SECONDS}s") from None
            if proc.returncode == 0 and os.path.exists(out):
                break
            causes.append(f"(exit {proc.returncode}): {_cause(proc.stderr.decode(errors='replace'))}")
        else:
            # Evaluating a tree reads its files (and the base's plugins, which may need the
            # network): failing twice the same way is the tree's doing, not the machine's.
            error = BaseUnevaluable if causes[0] == causes[1] else BaseFactsError
            raise error(f"Pants could not evaluate the base commit {diff.base_commit[:12]} under its own "
                        f"configuration {causes[-1]}")
        try:
            facts = Facts.loads(Path(out).read_text(encoding="utf-8"))
        except FactsError as e:
            raise BaseFactsError(f"the base commit's facts are unreadable: {e}") from None
        return Facts(facts.targets, facts.dependents, facts.options, facts.texts, diff.base_commit, facts.pants_version)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def last_evaluable_ancestor(diff: GitDiff, workdir: str, pants_version: str, env: Mapping[str, str],
                            probes: int = 2, limit: int = 500) -> Optional[str]:
    """The nearest ancestor of an unevaluable base that Pants evaluates: one whose facts this
    machine built before (file names only are read), else the first of up to `probes` first-parent
    ancestors that evaluates now (its facts are kept for the next gate). None when neither."""
    store = os.path.join(workdir, "oracle-gate", "base-facts")
    try:
        built = {name.split("-", 1)[0] for name in os.listdir(store) if name.endswith(".json")}
    except OSError:
        built = set()
    try:
        nearest = ancestors(diff.worktree, diff.base_commit, limit)
        first_parents = ancestors(diff.worktree, diff.base_commit, probes, first_parent=True)
    except GitDiffError:
        return None
    known = next((c for c in nearest if c[:12] in built), None)
    if known is not None:
        return known
    for commit in first_parents:
        try:
            load_or_build(dataclasses.replace(diff, base_commit=commit), workdir, pants_version, env)
            return commit
        except BaseFactsError:
            continue
    return None


def _cause(stderr: str) -> str:
    """The most telling line of a failed Pants run's stderr."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for marker in ("Exception:", "Error:", "error:", "Failed", "failed"):
        for line in reversed(lines):
            if marker in line:
                return line[:400]
    return (lines[-1] if lines else "no output")[:400]

