"""Oracle classes, region kinds and the floor each kind requires."""
from __future__ import annotations

import enum
from typing import Iterable, Optional


class OracleClass(enum.Enum):
    PROPERTY = "P"
    LOCKED = "L"
    EQUALITY = "E"
    FREEZE = "F"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @property
    def votes(self) -> bool:
        """A freeze only keeps known noise from blocking the run; it never satisfies a floor."""
        return self is not OracleClass.FREEZE

    @classmethod
    def parse(cls, text: str) -> "OracleClass":
        for member in cls:
            if text in (member.value, member.name.lower()):
                return member
        raise ValueError(f"unknown oracle class {text!r}; expected one of P, L, E, F")


_RANK = {
    OracleClass.PROPERTY: 3,
    OracleClass.LOCKED: 2,
    OracleClass.EQUALITY: 1,
    OracleClass.FREEZE: 0,
}


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


def meets_floor(kind: RegionKind, have: Optional[OracleClass]) -> bool:
    return have is not None and have.votes and have.rank >= kind.floor.rank
