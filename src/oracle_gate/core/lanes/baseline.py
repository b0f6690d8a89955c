"""The adoption baseline: per region, the best class that voted when it was written and the symbols
its voters executed then, and the skips that existed then. The gate requires max(baseline class,
floor once reached) of a changed region, and evidence for a changed symbol that was exercised then
(one nobody exercised then is UNJUDGED, like a region that had no voter), so a repository adopts
the gate without a flag day and can only move up.

Version 2 added `exercised`; a version-1 baseline is still read (no symbol is grandfathered).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, Optional, Tuple

from ..classes import OracleClass
from ..protocol.signature import SIGNATURE_RE

FORMAT = "oracle-gate/baseline"
VERSION = 2
READS = (1, 2)


class BaselineError(ValueError):
    """A baseline that cannot be trusted; the message is one line."""


@dataclass(frozen=True)
class BaselineRegion:
    address: str
    path: str
    kind: Optional[str]
    best: Optional[str]  # P, L, E or None: what voted for it when the baseline was written
    exercised: Optional[Tuple[str, ...]] = None  # qualnames its voters executed then (None: version 1)


@dataclass(frozen=True)
class BaselineSkip:
    signature: str
    test: str
    marker: str
    reason: str = ""


@dataclass(frozen=True)
class Baseline:
    commit: str
    written: str
    regions: Tuple[BaselineRegion, ...]
    skip_rows: Tuple[BaselineSkip, ...]

    @property
    def skips(self) -> FrozenSet[str]:
        return frozenset(s.signature for s in self.skip_rows)

    def regions_map(self) -> Dict[str, Optional[str]]:
        return {r.address: r.best for r in self.regions}

    def exercised_map(self) -> Dict[str, FrozenSet[str]]:
        """Path -> the symbols exercised when the baseline was written, for version-2 regions."""
        return {r.path: frozenset(r.exercised) for r in self.regions if r.exercised is not None}

    def to_json(self) -> Dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "commit": self.commit,
            "written": self.written,
            "regions": {r.address: {"path": r.path, "kind": r.kind, "best": r.best,
                                    **({"exercised": sorted(r.exercised)} if r.exercised is not None else {})}
                        for r in self.regions},
            "skips": [{"signature": s.signature, "test": s.test, "marker": s.marker, "reason": s.reason}
                      for s in self.skip_rows],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"

    @classmethod
    def loads(cls, text: str) -> "Baseline":
        try:
            raw = json.loads(text)
        except ValueError as e:
            raise BaselineError(f"the baseline is not valid JSON: {e}") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise BaselineError("not an oracle-gate baseline (format must be oracle-gate/baseline)")
        if raw.get("version") not in READS:
            raise BaselineError(f"baseline version {raw.get('version')!r}; this plugin reads versions "
                                f"{', '.join(map(str, READS))}")
        raw_regions = raw.get("regions") or {}
        raw_skips = raw.get("skips") or []
        if not isinstance(raw_regions, dict):
            raise BaselineError("`regions` must be an object of address -> {path, kind, best}")
        if not isinstance(raw_skips, list):
            raise BaselineError("`skips` must be a list")
        regions = []
        for address, r in sorted(raw_regions.items()):
            if not isinstance(r, dict):
                raise BaselineError(f"region {address}: must be an object")
            best = r.get("best")
            if best is not None and best not in (OracleClass.PROPERTY.value, OracleClass.LOCKED.value, OracleClass.EQUALITY.value):
                raise BaselineError(f"region {address}: best must be P, L, E or null, got {best!r}")
            kind = r.get("kind")
            if kind is not None and not isinstance(kind, str):
                raise BaselineError(f"region {address}: kind must be a string or null")
            exercised = r.get("exercised")
            if exercised is not None and (not isinstance(exercised, list) or not all(isinstance(q, str) for q in exercised)):
                raise BaselineError(f"region {address}: exercised must be a list of qualified names")
            regions.append(BaselineRegion(address, str(r.get("path", "")), kind, best,
                                          tuple(sorted(set(exercised))) if exercised is not None else None))
        skips = []
        for i, s in enumerate(raw_skips):
            if not isinstance(s, dict) or not isinstance(s.get("signature"), str) or not SIGNATURE_RE.match(s["signature"]):
                raise BaselineError(f"skip {i}: needs a 16-hex `signature`")
            skips.append(BaselineSkip(s["signature"], str(s.get("test", "")), str(s.get("marker", "")), str(s.get("reason", ""))))
        return cls(str(raw.get("commit", "")), str(raw.get("written", "")), tuple(regions),
                   tuple(sorted(skips, key=lambda s: (s.test, s.signature))))


def make_baseline(commit: str, written: str, regions: Iterable[BaselineRegion],
                  skips: Iterable[BaselineSkip]) -> Baseline:
    unique: Dict[str, BaselineSkip] = {}
    for s in sorted(skips, key=lambda s: (s.signature, s.test, s.marker, s.reason)):
        unique.setdefault(s.signature, s)  # one row per signature, the same one whatever the order
    return Baseline(commit, written, tuple(sorted(regions, key=lambda r: r.address)),
                    tuple(sorted(unique.values(), key=lambda s: (s.test, s.signature))))
