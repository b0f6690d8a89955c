"""The freeze ledger: its schema, its validation and its capacity cap.

A ledger is a dated, owned list of frozen failure signatures. Every rule here fails closed with
a message naming the file and the entry, because a malformed ledger is a silent skip list.
"""
from __future__ import annotations

import datetime
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..protocol.signature import SIGNATURE_RE, normalize_name

FORMAT_VERSION = 1
REQUIRED_KEYS = ("signature", "test", "exception", "reason", "owner", "added", "expires")
DEFAULT_MAX_FREEZE_DAYS = 14  # seed 000: a freeze is a short, dated loan
ALLOWED_TOP_KEYS = ("version", "entries")


class LedgerError(ValueError):
    """A ledger that cannot be trusted; the message is shown to the user as is."""


@dataclass(frozen=True)
class FreezeEntry:
    signature: str
    test: str
    exception: str
    reason: str
    owner: str
    added: datetime.date
    expires: datetime.date

    def expired(self, today: datetime.date) -> bool:
        return self.expires < today

    def to_json(self) -> Dict[str, str]:
        return {
            "signature": self.signature,
            "test": self.test,
            "exception": self.exception,
            "reason": self.reason,
            "owner": self.owner,
            "added": self.added.isoformat(),
            "expires": self.expires.isoformat(),
        }


@dataclass(frozen=True)
class Ledger:
    path: str
    entries: Tuple[FreezeEntry, ...]

    def by_signature(self) -> Dict[str, FreezeEntry]:
        return {e.signature: e for e in self.entries}

    def to_json(self) -> Dict[str, Any]:
        return {"version": FORMAT_VERSION, "entries": [e.to_json() for e in self.entries]}


def capacity(suite_size: int) -> int:
    """max(3, ceil(1.5% of the suite)): a brake on freezing, not a score."""
    if suite_size < 0:
        raise ValueError("suite size cannot be negative")
    return max(3, math.ceil(0.015 * suite_size))


def _date(value: Any, where: str, key: str) -> datetime.date:
    if not isinstance(value, str):
        raise LedgerError(f"{where}: `{key}` must be an ISO date string like 2026-01-31, got {value!r}")
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise LedgerError(f"{where}: `{key}` is not a valid date (YYYY-MM-DD): {value!r}") from None


def _entry(raw: Any, where: str, max_days: int) -> FreezeEntry:
    if not isinstance(raw, dict):
        raise LedgerError(f"{where}: an entry must be an object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(REQUIRED_KEYS))
    if unknown:
        raise LedgerError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(REQUIRED_KEYS)}")
    missing = [k for k in REQUIRED_KEYS if k not in raw]
    if missing:
        raise LedgerError(f"{where}: missing required key(s) {', '.join(missing)}")
    for key in ("signature", "test", "exception", "reason", "owner"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise LedgerError(f"{where}: `{key}` must be a non-empty string")
    if not SIGNATURE_RE.match(raw["signature"]):
        raise LedgerError(
            f"{where}: `signature` must be 16 lowercase hex characters, got {raw['signature']!r}"
        )
    added = _date(raw["added"], where, "added")
    expires = _date(raw["expires"], where, "expires")
    if expires < added:
        raise LedgerError(f"{where}: `expires` {expires} is before `added` {added}")
    if (expires - added).days > max_days:
        raise LedgerError(
            f"{where}: `expires` {expires} is {(expires - added).days} days after `added` {added}; "
            f"a freeze may last at most {max_days} days (max_freeze_days)"
        )
    return FreezeEntry(
        signature=raw["signature"],
        test=raw["test"],
        exception=raw["exception"],
        reason=raw["reason"],
        owner=raw["owner"],
        added=added,
        expires=expires,
    )


def parse_ledger(text: str, path: str, max_days: int = DEFAULT_MAX_FREEZE_DAYS) -> Ledger:
    """Parse and check the schema; date- and size-dependent rules live in `ledger_problems`."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise LedgerError(f"{path}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(raw, dict):
        raise LedgerError(f"{path}: the ledger must be a JSON object with `version` and `entries`")
    unknown = sorted(set(raw) - set(ALLOWED_TOP_KEYS))
    if unknown:
        raise LedgerError(f"{path}: unknown top-level key(s) {', '.join(unknown)}")
    if raw.get("version") != FORMAT_VERSION:
        raise LedgerError(f"{path}: `version` must be {FORMAT_VERSION}, got {raw.get('version')!r}")
    entries_raw = raw.get("entries")
    if not isinstance(entries_raw, list):
        raise LedgerError(f"{path}: `entries` must be a list")
    entries: List[FreezeEntry] = []
    seen: Dict[str, int] = {}
    for index, item in enumerate(entries_raw):
        where = f"{path}: entry {index}"
        entry = _entry(item, where, max_days)
        if entry.signature in seen:
            raise LedgerError(
                f"{where}: duplicate signature {entry.signature} (also entry {seen[entry.signature]})"
            )
        seen[entry.signature] = index
        entries.append(entry)
    return Ledger(path=path, entries=tuple(entries))


@dataclass(frozen=True)
class LedgerProblem:
    code: str  # FREEZE_EXPIRED or FREEZE_CAP
    line: str


def check_ledger(text: Optional[str], path: str, max_days: int, today: datetime.date,
                 suite: Optional[int]) -> Tuple[Optional[Ledger], Tuple[str, ...]]:
    """One ledger file judged as `pants lint` and the gate both judge it (one rule, so they never
    disagree): the parsed ledger (None when the file is missing or invalid) and its problem lines."""
    if text is None:
        return None, (f"LEDGER_INVALID {path}: the ledger file is missing",)
    try:
        ledger = parse_ledger(text, path, max_days)
    except LedgerError as e:
        return None, (f"LEDGER_INVALID {e}",)
    return ledger, tuple(p.line for p in ledger_problems([ledger], today, suite))


def ledger_problems(
    ledgers: Sequence[Ledger], today: datetime.date, suite_size: Optional[int]
) -> Tuple[LedgerProblem, ...]:
    """Expired entries, and more entries than the cap allows for `suite_size` tests."""
    problems: List[LedgerProblem] = []
    for ledger in ledgers:
        for index, entry in enumerate(ledger.entries):
            if entry.expired(today):
                problems.append(
                    LedgerProblem(
                        "FREEZE_EXPIRED",
                        f"FREEZE_EXPIRED {ledger.path} entry {index} signature={entry.signature} "
                        f"test={entry.test} expired={entry.expires} owner={entry.owner}",
                    )
                )
    if suite_size is not None:
        total = sum(len(l.entries) for l in ledgers)
        cap = capacity(suite_size)
        if total > cap:
            paths = ",".join(sorted(l.path for l in ledgers))
            problems.append(
                LedgerProblem(
                    "FREEZE_CAP",
                    f"FREEZE_CAP {paths} entries={total} cap={cap} suite={suite_size}",
                )
            )
    return tuple(problems)


def matching_entry(
    ledgers: Iterable[Ledger], signature: Optional[str], nodeid: str, exception: Optional[str]
) -> Optional[FreezeEntry]:
    """The row that freezes this failure: its signature, its test and its exception must all match.

    A row keyed by signature alone could be pre-loaded for a test that never failed."""
    if not signature:
        return None
    name = normalize_name(nodeid)
    for ledger in ledgers:
        for entry in ledger.entries:
            if entry.signature == signature and entry.test == name and entry.exception == (exception or ""):
                return entry
    return None


def governed(governs: Iterable[str], path: str) -> bool:
    for prefix in governs:
        prefix = prefix.strip("/")
        if not prefix or path == prefix or path.startswith(prefix + "/"):
            return True
    return False


def suite_size(governs: Iterable[str], test_paths: Iterable[str]) -> int:
    """The one definition of a ledger's suite size: the test files it governs."""
    governs = tuple(governs) or ("",)
    return sum(1 for p in set(test_paths) if governed(governs, p))


def merge_entries(ledgers: Iterable[Ledger]) -> Dict[str, FreezeEntry]:
    merged: Dict[str, FreezeEntry] = {}
    for ledger in ledgers:
        merged.update(ledger.by_signature())
    return merged
