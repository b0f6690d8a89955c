"""The write-set: what changed since the merge base, read from git without a sandbox.

Plain functions rather than rules: git state is not cacheable, and the goal calls this once.
Every doubt (no work tree, unknown ref, shallow clone without the merge base) is a GitDiffError,
which the goal turns into exit 2.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from oracle_gate.core.lanes import PathChange

DEFAULT_BASES = ("origin/main", "main", "origin/master", "master")


class GitDiffError(Exception):
    pass


@dataclass(frozen=True)
class GitDiff:
    base_ref: str
    base_commit: str
    head_commit: str
    changes: Tuple[PathChange, ...]


def _git(worktree: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["git", *args], cwd=worktree, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    if check and proc.returncode != 0:
        raise GitDiffError(f"`git {' '.join(args)}` failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc


def _out(worktree: str, *args: str) -> str:
    return _git(worktree, *args).stdout.decode(errors="replace").strip()


def _ref_exists(worktree: str, ref: str) -> bool:
    return _git(worktree, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).returncode == 0


def resolve_base(worktree: str, base: Optional[str]) -> Tuple[str, str]:
    """(ref, merge-base commit) of HEAD and the base ref."""
    if not _ref_exists(worktree, "HEAD"):
        raise GitDiffError("the repository has no commits yet (HEAD does not resolve)")
    if base:
        if not _ref_exists(worktree, base):
            raise GitDiffError(f"base ref {base!r} does not exist (fetch it, or pass --oracle-gate-base=<ref>)")
        ref = base
    else:
        found = [r for r in DEFAULT_BASES if _ref_exists(worktree, r)]
        if not found:
            raise GitDiffError(
                f"no base ref given and none of {', '.join(DEFAULT_BASES)} exists; pass --oracle-gate-base=<ref>"
            )
        ref = found[0]
    proc = _git(worktree, "merge-base", "HEAD", ref, check=False)
    if proc.returncode != 0:
        shallow = _out(worktree, "rev-parse", "--is-shallow-repository") == "true"
        if shallow:
            raise GitDiffError(
                f"shallow clone: the merge base of HEAD and {ref} is not in the local history "
                f"(run `git fetch --unshallow` or fetch with more depth)"
            )
        raise GitDiffError(f"HEAD and {ref} have no common ancestor")
    return ref, proc.stdout.decode().strip()


def _parse_patch(patch: str) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """(added lines, removed lines) per path of a `git diff -U0` patch (new path for renames)."""
    added: Dict[str, List[str]] = {}
    removed: Dict[str, List[str]] = {}
    old: Optional[str] = None
    current: Optional[str] = None
    for line in patch.splitlines():
        if line.startswith("--- "):
            old = line[6:] if line.startswith("--- a/") else None
        elif line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else old
            if current is not None:
                added.setdefault(current, [])
                removed.setdefault(current, [])
        elif current is not None and line.startswith("+"):
            added[current].append(line[1:])
        elif current is not None and line.startswith("-"):
            removed[current].append(line[1:])
    return added, removed


def find_worktree(buildroot: str) -> str:
    proc = _git(buildroot, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode != 0:
        raise GitDiffError(f"{buildroot} is not inside a git work tree")
    return proc.stdout.decode().strip()


def read_diff(buildroot: str, base: Optional[str], ignored_dirs: Sequence[str] = ()) -> GitDiff:
    """`ignored_dirs` (absolute) are Pants' own output directories: untracked files there are
    build products, not part of the patch."""
    worktree = find_worktree(buildroot)
    ref, merge_base = resolve_base(worktree, base)
    head = _out(worktree, "rev-parse", "HEAD")
    # The merge base against the working tree: committed, staged and unstaged changes alike.
    raw = _git(worktree, "diff", "--name-status", "-M", "-z", "--no-color", merge_base).stdout.decode(errors="replace")
    fields = raw.split("\0")
    entries: List[Tuple[str, str, Optional[str]]] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i][0]
        if status in ("R", "C"):
            old, new = fields[i + 1], fields[i + 2]
            entries.append((status if status == "R" else "A", new, old if status == "R" else None))
            i += 3
        else:
            entries.append((status if status in "AMD" else "M", fields[i + 1], None))
            i += 2
    patch = _git(worktree, "diff", "-U0", "-M", "--no-color", "--no-ext-diff", merge_base).stdout.decode(errors="replace")
    added, removed = _parse_patch(patch)
    ignored = tuple(os.path.relpath(d, worktree).replace(os.sep, "/") + "/" for d in ignored_dirs)
    untracked = [
        p for p in _out(worktree, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
        if p and not p.startswith(ignored)
    ]
    for path in untracked:
        try:
            with open(os.path.join(worktree, path), encoding="utf-8", errors="replace") as f:
                added[path] = f.read().splitlines()
        except OSError:
            added[path] = []
        entries.append(("A", path, None))

    rel = os.path.relpath(buildroot, worktree)
    prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"

    def to_build_root(path: str) -> str:
        # Paths outside the build root keep a `../` prefix: nothing owns them, so they fail closed.
        if prefix and not path.startswith(prefix):
            return "../" + path
        return path[len(prefix):]

    changes = tuple(
        PathChange(
            path=to_build_root(path),
            status=status,
            old_path=to_build_root(old) if old else None,
            added_lines=tuple(added.get(path, ())),
            removed_lines=tuple(removed.get(path, ())),
        )
        for status, path, old in sorted(entries, key=lambda e: e[1])
    )
    return GitDiff(ref, merge_base, head, changes)


