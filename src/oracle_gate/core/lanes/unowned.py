"""Tracked paths no Pants target owns: the reviewed policy adoption writes for them.

A path no target owns cannot reach any test sandbox, so it cannot change what an oracle sees; the
gate still fails closed on one it has not been told about (UNMAPPED), because a new unowned file
can be production code a BUILD glob missed. Adoption lists every unowned tracked path and turns
them into `[oracle-gate].other_globs` entries for a person to review: a directory tree whose
tracked files are all unowned (another build system's sources, test data, tooling) becomes
`dir/*`, any other path is listed by itself. Pure and stdlib only.
"""
from __future__ import annotations

import ast
import posixpath
from typing import Dict, Iterable, List, Optional, Set


def unowned_globs(tracked: Iterable[str], unowned: Iterable[str]) -> List[str]:
    """Globs (fnmatch, `*` crossing directories; a glob without `/` also matches a base name) that
    match every path of `unowned` and no tracked path outside it: the highest directory whose
    tracked files are all unowned; else, for a file that is not Python, its base name when every
    tracked file of that name is unowned (a `MANIFEST.in` per package: the next package's is the
    same kind of file); else the path itself. Sorted."""
    tracked_set = set(tracked)
    unowned_set = set(unowned) & tracked_set
    owned_names = {posixpath.basename(p) for p in tracked_set - unowned_set}
    mixed: Set[str] = set()  # directories holding at least one tracked path that is not unowned
    for path in tracked_set - unowned_set:
        d = posixpath.dirname(path)
        while d and d not in mixed:
            mixed.add(d)
            d = posixpath.dirname(d)
    out: Set[str] = set()
    for path in unowned_set:
        chosen = path
        chain: List[str] = []
        d = posixpath.dirname(path)
        while d:
            chain.append(d)
            d = posixpath.dirname(d)
        for d in reversed(chain):  # the highest directory first
            if d not in mixed:
                chosen = f"{d}/*"
                break
        name = posixpath.basename(path)
        if chosen == path and not path.endswith((".py", ".pyi")) and name not in owned_names:
            chosen = name
        out.add(chosen)
    return sorted(out)


def group_counts(globs: Iterable[str], unowned: Iterable[str]) -> Dict[str, int]:
    """How many unowned paths each glob stands for (for the adoption listing)."""
    counts = {g: 0 for g in globs}
    for path in unowned:
        for g in counts:
            if path == g or posixpath.basename(path) == g or (g.endswith("/*") and path.startswith(g[:-1])):
                counts[g] += 1
                break
    return counts


def holds_no_code(source: Optional[str]) -> bool:
    """True for an absent file or Python source with nothing but a docstring and comments (an
    empty package marker): it runs nothing, whoever owns it."""
    if source is None:
        return True
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return False
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
               for node in body[:1]) and len(body) <= 1
