"""The write-set and the base tree, read from git without a sandbox.

Plain functions rather than rules: git state is not cacheable, and the goal calls this once. Every
doubt (no work tree, unknown ref, shallow clone without the merge base) is a GitDiffError, which
the goal turns into exit 2. Output is always read with `-z`, so any path survives.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from oracle_gate.core.lanes.compare import Change

DEFAULT_BASES = ("origin/main", "main", "origin/master", "master")


class GitDiffError(Exception):
    pass


@dataclass(frozen=True)
class GitDiff:
    base_ref: str
    base_commit: str
    head_commit: str
    worktree: str  # the git top level
    prefix: str  # the build root's path inside the work tree ("" or "sub/dir/")
    changes: Tuple[Change, ...]


def _git(worktree: str, *args: str, check: bool = True, env: Optional[Dict[str, str]] = None,
         stdin: Optional[bytes] = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", *args], cwd=worktree, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env={**os.environ, **(env or {})})
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
        if _out(worktree, "rev-parse", "--is-shallow-repository") == "true":
            raise GitDiffError(
                f"shallow clone: the merge base of HEAD and {ref} is not in the local history "
                f"(run `git fetch --unshallow` or fetch with more depth)"
            )
        raise GitDiffError(f"HEAD and {ref} have no common ancestor")
    return ref, proc.stdout.decode().strip()


def find_worktree(buildroot: str) -> str:
    proc = _git(buildroot, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode != 0:
        raise GitDiffError(f"{buildroot} is not inside a git work tree")
    return proc.stdout.decode().strip()


def ancestors(worktree: str, commit: str, limit: int, first_parent: bool = False) -> List[str]:
    """Up to `limit` proper ancestors of `commit`, nearest first."""
    return _out(worktree, "rev-list", *(["--first-parent"] if first_parent else []), f"--max-count={limit}",
                f"{commit}^").split()


def ignored_by_gitignore(buildroot: str, paths: Iterable[str]) -> List[str]:
    """The build-root-relative `paths` that the work tree's .gitignore rules match now, tracked or
    not (Pants' `pants_ignore_use_gitignore` reads the patterns, not the index)."""
    wanted = sorted(set(paths))
    if not wanted:
        return []
    proc = _git(buildroot, "check-ignore", "--no-index", "-z", "--stdin", check=False,
                stdin=b"\0".join(p.encode() for p in wanted))
    if proc.returncode not in (0, 1):  # 1: none matches
        raise GitDiffError(f"`git check-ignore` failed: {proc.stderr.decode(errors='replace').strip()}")
    return sorted(p for p in proc.stdout.decode(errors="surrogateescape").split("\0") if p)


def tracked_files(buildroot: str) -> List[str]:
    """The files git tracks under the build root, relative to it."""
    out = _git(buildroot, "ls-files", "-z", "--", ".").stdout.decode(errors="surrogateescape")
    return sorted(p for p in out.split("\0") if p)


def _name_status(raw: str) -> List[Tuple[str, str, Optional[str], Optional[str]]]:
    """(status, path, old path, copied from) from `git diff --name-status -z`; a copy is an addition."""
    fields = raw.split("\0")
    entries: List[Tuple[str, str, Optional[str], Optional[str]]] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i][0]
        if status in ("R", "C"):
            old, new = fields[i + 1], fields[i + 2]
            # A copy is an added file; the base file it copies stays where it was.
            entries.append(("R", new, old, None) if status == "R" else ("A", new, None, old))
            i += 3
        else:
            entries.append((status if status in "AMDT" else "M", fields[i + 1], None, None))
            i += 2
    return entries


def read_diff(buildroot: str, base: Optional[str], ignored_dirs: Sequence[str] = ()) -> GitDiff:
    """The merge base against the working tree: committed, staged, unstaged and untracked changes.

    `ignored_dirs` (absolute) are Pants' own output directories: untracked files there are build
    products, not part of the patch.
    """
    worktree = find_worktree(buildroot)
    ref, merge_base = resolve_base(worktree, base)
    head = _out(worktree, "rev-parse", "HEAD")
    # -M -C --find-copies-harder: renames, and added files that copy any base file (git's own
    # similarity measure; past its rename limit git finds none and says so on stderr).
    raw = _git(worktree, "diff", "--name-status", "-M", "-C", "--find-copies-harder", "-z", "--no-color",
               "--no-ext-diff", merge_base).stdout
    entries = _name_status(raw.decode(errors="surrogateescape"))
    ignored = tuple(os.path.relpath(d, worktree).replace(os.sep, "/") + "/" for d in ignored_dirs)
    untracked = _git(worktree, "ls-files", "--others", "--exclude-standard", "-z").stdout.decode(errors="surrogateescape")
    entries += [("A", p, None, None) for p in untracked.split("\0") if p and not p.startswith(ignored)]

    rel = os.path.relpath(os.path.realpath(buildroot), os.path.realpath(worktree))
    prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"

    def to_build_root(path: str) -> str:
        # Paths outside the build root keep a `../` prefix: nothing owns them, so they fail closed.
        if prefix and not path.startswith(prefix):
            return "../" + path
        return path[len(prefix):]

    changes = []
    for status, path, old, copied in sorted(entries, key=lambda e: e[1]):
        link, outside = _link(worktree, path, prefix)
        changes.append(Change(to_build_root(path), status, to_build_root(old) if old else None, link, outside,
                              copied_from=to_build_root(copied) if copied else None))
    return GitDiff(ref, merge_base, head, worktree, prefix, tuple(changes))


def _link(worktree: str, path: str, prefix: str) -> Tuple[Optional[str], bool]:
    """Where a symlink at head points (build-root relative), and whether that is outside the root."""
    full = os.path.join(worktree, path)
    if not os.path.islink(full):
        return None, False
    root = os.path.realpath(os.path.join(worktree, prefix))
    target = os.path.realpath(full)
    rel = os.path.relpath(target, root)
    outside = rel == ".." or rel.startswith(".." + os.sep) or not os.path.exists(target)
    return rel.replace(os.sep, "/"), outside


def base_files_defining(diff: GitDiff, names: Iterable[str]) -> List[str]:
    """Build-root-relative Python files of the base commit with a `def` or `class` of one of
    `names` (identifiers), found with `git grep` in the commit's tree."""
    names = sorted(n for n in set(names) if n.isidentifier())
    found: Set[str] = set()
    for i in range(0, len(names), 200):
        pattern = ("^[[:space:]]*(async[[:space:]]+)?(def|class)[[:space:]]+(" + "|".join(names[i:i + 200])
                   + ")([^[:alnum:]_]|$)")
        proc = _git(diff.worktree, "grep", "-l", "-z", "-E", pattern, diff.base_commit, "--",
                    f"{diff.prefix}*.py", check=False)
        if proc.returncode not in (0, 1):  # 1: nothing matched
            raise GitDiffError(f"git grep failed: {proc.stderr.decode(errors='replace').strip()}")
        for hit in proc.stdout.decode(errors="surrogateescape").split("\0"):
            path = hit.split(":", 1)[1] if ":" in hit else ""  # <commit>:<path>
            if path and path.startswith(diff.prefix):
                found.add(path[len(diff.prefix):])
    return sorted(found)


def base_texts(diff: GitDiff, paths: Iterable[str]) -> Dict[str, Optional[str]]:
    """The base commit's text of build-root-relative `paths` (None where the base has no file)."""
    paths = sorted(set(p for p in paths if not p.startswith("../")))
    if not paths:
        return {}
    request = "".join(f"{diff.base_commit}:{diff.prefix}{p}\n" for p in paths).encode()
    out = _git(diff.worktree, "cat-file", "--batch", stdin=request).stdout
    texts: Dict[str, Optional[str]] = {}
    pos = 0
    for p in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode(errors="replace").split()
        pos = end + 1
        if len(header) < 3 or header[-1] == "missing":
            texts[p] = None
            continue
        size = int(header[2])
        texts[p] = out[pos:pos + size].decode("utf-8", errors="replace") if header[1] == "blob" else None
        pos += size + 1
    return texts
