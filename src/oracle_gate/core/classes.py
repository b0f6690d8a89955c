"""Oracle classes, region kinds and the floor each kind requires."""
from __future__ import annotations

import enum
from typing import Iterable, Optional


class OracleClass(enum.Enum):
    PROPERTY = "P"  # oracle_properties: laws over generated inputs
    LOCKED = "L"  # a test reading a locked fixture, or a recorded-trace replay
    EQUALITY = "E"  # a plain example test
    FREEZE = "F"  # a freeze ledger: keeps known noise from blocking, never votes
    DRAFT = "D"  # an agent-written draft: runs as a diagnostic, never votes
    PROBE = "R"  # must-fail probes (rank R3): judged on their own, never votes for a floor

    @property
    def rank(self) -> int:
        return _RANK[self]

    @property
    def votes(self) -> bool:
        """Only P, L and E can satisfy a requirement; F, D and R never do."""
        return self in _VOTING

    @classmethod
    def parse(cls, text: str) -> "OracleClass":
        for member in cls:
            if text in (member.value, member.name.lower()):
                return member
        raise ValueError(f"unknown oracle class {text!r}; expected one of {', '.join(m.value for m in cls)}")


_RANK = {
    OracleClass.PROPERTY: 3,
    OracleClass.LOCKED: 2,
    OracleClass.EQUALITY: 1,
    OracleClass.FREEZE: 0,
    OracleClass.DRAFT: 0,
    OracleClass.PROBE: 0,
}
_VOTING = frozenset({OracleClass.PROPERTY, OracleClass.LOCKED, OracleClass.EQUALITY})


class RegionKind(enum.Enum):
    PURE = "pure"
    STATE = "state"
    IO = "io"
    CONCURRENT = "concurrent"
    SCHEMA = "schema"

    @property
    def floor(self) -> OracleClass:
        return _FLOOR[self]


_FLOOR = {
    RegionKind.PURE: OracleClass.PROPERTY,
    RegionKind.CONCURRENT: OracleClass.PROPERTY,
    RegionKind.SCHEMA: OracleClass.PROPERTY,
    RegionKind.STATE: OracleClass.LOCKED,
    RegionKind.IO: OracleClass.LOCKED,
}

REGION_KINDS = tuple(kind.value for kind in RegionKind)


def best_vote(classes: Iterable[OracleClass]) -> Optional[OracleClass]:
    """The strongest voting class among `classes`, or None when nothing votes."""
    voting = [c for c in classes if c.votes]
    return max(voting, key=lambda c: c.rank) if voting else None


def at_least(have: Optional[OracleClass], need: Optional[OracleClass]) -> bool:
    """`have` satisfies `need` (no requirement is always met; nothing never meets one)."""
    if need is None:
        return True
    return have is not None and have.votes and have.rank >= need.rank


def meets_floor(kind: RegionKind, have: Optional[OracleClass]) -> bool:
    return at_least(have, kind.floor)


def stronger(a: Optional[OracleClass], b: Optional[OracleClass]) -> Optional[OracleClass]:
    """The higher-ranked of two requirements (None is no requirement)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if a.rank >= b.rank else b
