"""Third-party dependencies: which pinned projects a lockfile change touches.

A requirement or a lockfile is never a region of its own. When one changes, what changes is the
behaviour of the production code that depends on the affected requirements, so that code is judged
at its own floor by its own oracles (core/lanes/compare.py). This module says which projects a lockfile
change affects: those whose pin (version, artifacts, dependencies) changed, and every project that
requires one of them, directly or not, in either version of the lock. Pure and stdlib only.

Formats read: Pex/Pants lockfiles (JSON after `//` comment lines) and pinned requirement files
(`name==version` lines, as pip-compile writes them). Anything else is unknown (`None`): then every
requirement counts as affected, which judges more, never less.
"""
from __future__ import annotations

import json
import re
from typing import Dict, FrozenSet, Mapping, Optional, Set, Tuple

_SEPARATORS = re.compile(r"[-_.]+")
_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*===?\s*([^\s;#\\]+)")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

# project -> (what pins it, the projects it requires)
Pins = Dict[str, Tuple[str, FrozenSet[str]]]


def normalize_project(name: str) -> str:
    """PEP 503: case-insensitive, runs of `-`, `_`, `.` are one `-`."""
    return _SEPARATORS.sub("-", name).lower()


def _requirement_name(spec: str) -> Optional[str]:
    m = _NAME.match(spec)
    return normalize_project(m.group(1)) if m else None


def _pex_pins(text: str) -> Optional[Pins]:
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("locked_resolves"), list):
        return None
    pins: Dict[str, Tuple[str, Set[str]]] = {}
    for resolve in data["locked_resolves"]:
        for req in (resolve or {}).get("locked_requirements", ()) if isinstance(resolve, dict) else ():
            if not isinstance(req, dict) or not isinstance(req.get("project_name"), str):
                return None
            name = normalize_project(req["project_name"])
            requires = {n for n in (_requirement_name(str(d)) for d in req.get("requires_dists", ()) or ()) if n}
            pin = json.dumps({k: req.get(k) for k in ("version", "artifacts", "requires_python")}, sort_keys=True)
            old_pin, old_requires = pins.get(name, ("", set()))
            # One project pinned per platform in several resolves: all of its pins together.
            pins[name] = (old_pin + pin, old_requires | requires)
    return {name: (pin, frozenset(requires)) for name, (pin, requires) in pins.items()}


def _pinned_requirements(text: str) -> Optional[Pins]:
    pins: Pins = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue  # options such as --index-url or -r: they pin nothing themselves
        m = _PIN.match(line)
        if m is None:
            if line.startswith("--hash") or line.endswith("\\"):
                continue
            return None
        pins[normalize_project(m.group(1))] = (m.group(2), frozenset())
    return pins


def lock_pins(text: str) -> Optional[Pins]:
    """What a lockfile pins, per normalized project; None when the format is not one we read."""
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("//"):
        return _pex_pins(text)
    return _pinned_requirements(text)


def changed_projects(base: Optional[str], head: Optional[str]) -> Optional[FrozenSet[str]]:
    """The projects a lockfile change affects (None: unknown, so every requirement is affected).

    `base`/`head` are the lockfile's texts (None where the file does not exist). A project is
    affected when its pin differs (added, removed, new version or artifacts) or when it requires
    an affected project in either version of the lock."""
    before = lock_pins(base) if base is not None else {}
    after = lock_pins(head) if head is not None else {}
    if before is None or after is None:
        return None
    affected: Set[str] = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    dependents: Dict[str, Set[str]] = {}
    for pins in (before, after):
        for project, (_, requires) in pins.items():
            for r in requires:
                dependents.setdefault(r, set()).add(project)
    todo = list(affected)
    while todo:
        for up in dependents.get(todo.pop(), ()):
            if up not in affected:
                affected.add(up)
                todo.append(up)
    return frozenset(affected)


def resolve_lockfiles(options: Mapping[str, object]) -> Dict[str, str]:
    """Lockfile path (from the build root) -> what it locks, from the effective options:
    `[python].resolves` (the repository's requirements), and the tools whose scopes the facts
    record (pytest and coverage run every judge): their `lockfile`, or the resolve they are
    installed from (`install_from_resolve`), is a tool's."""
    out: Dict[str, str] = {}
    tools: Dict[str, str] = {}
    for key, value in options.items():
        scope, _, option = key.partition(".")
        if option == "lockfile" and isinstance(value, str) and value and not value.startswith("<"):
            out[_relative(value)] = f"tool:{scope}"
        if option == "install_from_resolve" and isinstance(value, str) and value:
            tools[value] = scope
    resolves = options.get("python.resolves")
    if isinstance(resolves, dict):
        for name, path in resolves.items():
            if isinstance(path, str) and path:
                out.setdefault(_relative(path), f"tool:{tools[name]}" if name in tools else f"resolve:{name}")
    return dict(sorted(out.items()))


def _relative(path: str) -> str:
    for prefix in ("%(buildroot)s/", "./"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    return path
