"""Facts about one tree (the merge base or the head), as the build graph evaluated them.

The same rules produce Facts for both trees, so base and head are compared value by value: a
target's evaluated fields, its role, its region, its dependents. Nothing here reads BUILD text.
Facts round-trip through JSON: the base's are kept on disk, keyed by the base commit.
"""
from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

from ..classes import OracleClass

FACTS_FORMAT = "oracle-gate/facts"
FACTS_VERSION = 3

# What a target is, as far as judging goes.
PRODUCTION = "production"  # carries (or may carry) an `oracle_region`
# A third-party requirement: never a region of its own; when it (or its lockfile pin) changes,
# the production code that depends on it is judged, at its own floor, by its own oracles.
DEPENDENCY = "dependency"
TEST = "test"  # a plain python_test: class E, or L when a locked fixture is in its closure
PROPERTY = "property"  # oracle_property: class P
DRAFT = "draft"  # oracle_draft: runs, never votes
REPLAY = "replay"  # oracle_replay: recorded traces, class L
PROBES = "probes"  # oracle_probes: must-fail inputs (rank R3), never votes for a floor
LOCKED_FIXTURE = "locked_fixture"
FREEZE_LEDGER = "freeze_ledger"
BASELINE = "baseline"
TEST_UTIL = "test_util"  # python_test_utils and conftest.py: test plumbing
GENERATOR = "generator"  # a target generator; its generated targets carry the facts
OTHER = "other"  # anything else (packaging, binaries, ...)

ROLES = (PRODUCTION, DEPENDENCY, TEST, PROPERTY, DRAFT, REPLAY, PROBES, LOCKED_FIXTURE, FREEZE_LEDGER, BASELINE,
         TEST_UTIL, GENERATOR, OTHER)
TEST_ROLES = frozenset({TEST, PROPERTY, DRAFT, REPLAY, PROBES})
# Files that hold an oracle's expectations; changing one is an oracle change whoever uses it.
LOCK_ROLES = frozenset({LOCKED_FIXTURE, FREEZE_LEDGER, BASELINE})


class FactsError(ValueError):
    """Facts that cannot be read; the message says why."""


@dataclass(frozen=True)
class TargetFact:
    address: str
    alias: str
    role: str
    paths: Tuple[str, ...] = ()  # the source files it owns, from the build root
    region: Optional[str] = None  # the evaluated `oracle_region`
    tags: Tuple[str, ...] = ()
    skip: bool = False  # `skip_tests`
    fields: Tuple[Tuple[str, str], ...] = ()  # (alias, digest of the evaluated value), sorted
    sha256: Optional[str] = None  # the lock of a locked file (fixture, replay, probes, baseline)
    min_examples: Optional[int] = None
    governs: Tuple[str, ...] = ()  # a ledger's governed directories
    entry_point: Optional[str] = None  # replay and probes
    test_tooling: bool = False  # `oracle_test_tooling`: exempt from the test-aware scan
    generator: Optional[str] = None  # the target generator that declared it
    requirements: Tuple[str, ...] = ()  # a dependency's project names, normalized (PEP 503)

    @property
    def path(self) -> Optional[str]:
        return self.paths[0] if len(self.paths) == 1 else None

    @property
    def is_test(self) -> bool:
        return self.role in TEST_ROLES

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"address": self.address, "alias": self.alias, "role": self.role}
        for key in ("paths", "tags", "governs", "requirements"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        if self.fields:
            out["fields"] = {k: v for k, v in self.fields}
        for key in ("region", "sha256", "min_examples", "entry_point"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.skip:
            out["skip"] = True
        if self.test_tooling:
            out["test_tooling"] = True
        if self.generator is not None:
            out["generator"] = self.generator
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "TargetFact":
        role = raw["role"]
        if role not in ROLES:
            raise FactsError(f"unknown role {role!r} for {raw.get('address')!r}")
        return cls(
            address=str(raw["address"]),
            alias=str(raw["alias"]),
            role=role,
            paths=tuple(raw.get("paths", ())),
            region=raw.get("region"),
            tags=tuple(raw.get("tags", ())),
            skip=bool(raw.get("skip", False)),
            fields=tuple(sorted((str(k), str(v)) for k, v in raw.get("fields", {}).items())),
            sha256=raw.get("sha256"),
            min_examples=raw.get("min_examples"),
            governs=tuple(raw.get("governs", ())),
            entry_point=raw.get("entry_point"),
            test_tooling=bool(raw.get("test_tooling", False)),
            generator=raw.get("generator"),
            requirements=tuple(raw.get("requirements", ())),
        )


@dataclass(frozen=True)
class Facts:
    """One tree's evaluated build graph and the policy its configuration sets."""

    targets: Tuple[TargetFact, ...]
    # address -> the addresses that depend on it directly (Pants' own dependents map, inference
    # and generators included), sorted.
    dependents: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    # "scope.option" -> JSON of the effective value, for the options that can weaken a judge.
    options: Tuple[Tuple[str, str], ...] = ()
    # path -> sha256 of the bytes of files whose content is itself policy (ledgers, baselines,
    # locked files) and the text of ledgers and baselines, read through the engine.
    texts: Tuple[Tuple[str, str], ...] = ()
    commit: Optional[str] = None
    pants_version: str = ""

    # -- indexes (derived, not serialised) ---------------------------------------------------
    @property
    def by_address(self) -> Dict[str, TargetFact]:
        return _memo(self, "_by_address", lambda: {t.address: t for t in self.targets})

    @property
    def by_path(self) -> Dict[str, Tuple[TargetFact, ...]]:
        def build() -> Dict[str, Tuple[TargetFact, ...]]:
            index: Dict[str, List[TargetFact]] = {}
            for t in self.targets:
                if t.role == GENERATOR:
                    continue
                for p in t.paths:
                    index.setdefault(p, []).append(t)
            return {p: tuple(sorted(ts, key=lambda t: t.address)) for p, ts in index.items()}

        return _memo(self, "_by_path", build)

    @property
    def dependents_map(self) -> Dict[str, Tuple[str, ...]]:
        return _memo(self, "_dependents", lambda: dict(self.dependents))

    @property
    def option_map(self) -> Dict[str, Any]:
        return _memo(self, "_options", lambda: {k: json.loads(v) for k, v in self.options})

    @property
    def text_map(self) -> Dict[str, str]:
        return _memo(self, "_texts", lambda: dict(self.texts))

    def owners(self, path: str) -> Tuple[TargetFact, ...]:
        return self.by_path.get(path, ())

    def option(self, key: str, default: Any = None) -> Any:
        return self.option_map.get(key, default)

    # -- the graph -----------------------------------------------------------------------------
    def transitive_dependents(self, addresses: Iterable[str]) -> FrozenSet[str]:
        """Everything that depends on `addresses`, directly or not (the roots excluded)."""
        return _transitive(self.dependents_map, addresses)

    def covering_tests(self, address: str) -> Tuple[TargetFact, ...]:
        """The test targets that reach `address` through the dependency graph."""
        found = self.transitive_dependents([address])
        by = self.by_address
        return tuple(sorted((by[a] for a in found if a in by and by[a].is_test), key=lambda t: t.address))

    def locked_tests(self) -> FrozenSet[str]:
        """Tests with a locked fixture in their transitive closure (class L, unless P)."""

        def build() -> FrozenSet[str]:
            fixtures = [t.address for t in self.targets if t.role == LOCKED_FIXTURE]
            return frozenset(a for a in self.transitive_dependents(fixtures) if self.is_test(a))

        return _memo(self, "_locked", build)

    def is_test(self, address: str) -> bool:
        t = self.by_address.get(address)
        return t is not None and t.is_test

    def oracle_class(self, address: str) -> Optional[OracleClass]:
        """The class a test target votes with (None for anything that is not a test)."""
        t = self.by_address.get(address)
        if t is None or not t.is_test:
            return None
        if t.role == PROPERTY:
            return OracleClass.PROPERTY
        if t.role == DRAFT:
            return OracleClass.DRAFT
        if t.role in (REPLAY,):
            return OracleClass.LOCKED
        if t.role == PROBES:
            return OracleClass.PROBE
        return OracleClass.LOCKED if address in self.locked_tests() else OracleClass.EQUALITY

    def forward(self) -> Dict[str, Tuple[str, ...]]:
        """address -> its direct dependencies (the dependents map inverted)."""

        def build() -> Dict[str, Tuple[str, ...]]:
            out: Dict[str, List[str]] = {}
            for dep, users in self.dependents:
                for user in users:
                    out.setdefault(user, []).append(dep)
            return {k: tuple(sorted(v)) for k, v in out.items()}

        return _memo(self, "_forward", build)

    def closure(self, roots: Iterable[str]) -> FrozenSet[str]:
        """Everything `roots` depend on, directly or not (the roots excluded)."""
        return _transitive(self.forward(), roots)

    def oracle_closure(self) -> FrozenSet[str]:
        """Addresses in the dependency closure of some P or L oracle: test plumbing there is part
        of a judge."""

        def build() -> FrozenSet[str]:
            voting = [a for a in self.by_address
                      if self.oracle_class(a) in (OracleClass.PROPERTY, OracleClass.LOCKED)]
            return self.closure(voting)

        return _memo(self, "_oracle_closure", build)

    # -- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> Dict[str, Any]:
        return {
            "format": FACTS_FORMAT,
            "version": FACTS_VERSION,
            "commit": self.commit,
            "pants_version": self.pants_version,
            "targets": [t.to_json() for t in sorted(self.targets, key=lambda t: t.address)],
            "dependents": {k: list(v) for k, v in self.dependents},
            "options": {k: json.loads(v) for k, v in self.options},
            "texts": dict(self.texts),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: Any) -> "Facts":
        if not isinstance(raw, dict) or raw.get("format") != FACTS_FORMAT:
            raise FactsError("not an oracle-gate facts document")
        if raw.get("version") != FACTS_VERSION:
            raise FactsError(f"facts version {raw.get('version')!r}; this plugin reads version {FACTS_VERSION}")
        try:
            for key, kind in (("targets", list), ("dependents", dict), ("options", dict), ("texts", dict)):
                if not isinstance(raw.get(key, kind()), kind):
                    raise FactsError(f"malformed facts document: `{key}` must be a {kind.__name__}")
            return make_facts(
                targets=[TargetFact.from_json(t) for t in raw["targets"]],
                dependents={str(k): tuple(str(a) for a in v) for k, v in raw.get("dependents", {}).items()},
                options=raw.get("options", {}),
                texts={str(k): str(v) for k, v in raw.get("texts", {}).items()},
                commit=raw.get("commit"),
                pants_version=str(raw.get("pants_version", "")),
            )
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            if isinstance(e, FactsError):
                raise
            raise FactsError(f"malformed facts document: {type(e).__name__}: {e}") from None

    @classmethod
    def loads(cls, text: str) -> "Facts":
        try:
            raw = json.loads(text)
        except ValueError as e:
            raise FactsError(f"facts are not valid JSON: {e}") from None
        return cls.from_json(raw)


def split_address(spec: str) -> Tuple[str, str]:
    """(directory, target name) of a target's address spec (`dir:name`, `dir`, `//:name`)."""
    if ":" in spec:
        directory, name = spec.split(":", 1)
        return ("" if directory in ("", "//") else directory), name
    return spec, spec.rsplit("/", 1)[-1]


def module_of(path: str, source_root: str) -> Tuple[Optional[str], bool]:
    """(dotted module name, is a package) of a Python file under a source root (`.` or "" is the
    build root); None when the file is not a `.py` under that root."""
    root = "" if source_root in ("", ".") else source_root.rstrip("/") + "/"
    if not path.endswith(".py") or not path.startswith(root):
        return None, False
    parts = path[len(root):-3].split("/")
    package = parts[-1] == "__init__"
    if package:
        parts = parts[:-1]
    return (".".join(parts) or None), package


def make_facts(
    targets: Iterable[TargetFact],
    dependents: Mapping[str, Iterable[str]] = (),  # type: ignore[assignment]
    options: Mapping[str, Any] = (),  # type: ignore[assignment]
    texts: Mapping[str, str] = (),  # type: ignore[assignment]
    commit: Optional[str] = None,
    pants_version: str = "",
) -> Facts:
    """Facts in canonical form (sorted), so equal trees give equal Facts."""
    deps = dict(dependents or {})
    return Facts(
        targets=tuple(sorted(targets, key=lambda t: t.address)),
        dependents=tuple(sorted((k, tuple(sorted(set(v)))) for k, v in deps.items() if v)),
        options=tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in dict(options or {}).items())),
        texts=tuple(sorted(dict(texts or {}).items())),
        commit=commit,
        pants_version=pants_version,
    )


def _transitive(graph: Mapping[str, Tuple[str, ...]], roots: Iterable[str]) -> FrozenSet[str]:
    roots = list(roots)
    seen: Set[str] = set()
    queue = deque(roots)
    while queue:
        node = queue.popleft()
        for nxt in graph.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return frozenset(seen - set(roots))


_MEMO_ATTR = "_oracle_gate_memo"


def _memo(obj: Any, key: str, build: Any) -> Any:
    """Per-instance memo on a frozen dataclass (derived indexes, never part of equality)."""
    memo = obj.__dict__.get(_MEMO_ATTR)
    if memo is None:
        memo = {}
        object.__setattr__(obj, _MEMO_ATTR, memo)
    if key not in memo:
        memo[key] = build()
    return memo[key]
