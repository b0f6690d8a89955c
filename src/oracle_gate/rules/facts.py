"""One rule per fact the gate and the sandbox hook need: fixture digests, ledgers, oracle classes."""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Optional, Tuple

from pants.backend.python.target_types import PythonTestSourceField
from pants.engine.fs import Digest, DigestContents, DigestEntries, FileEntry, PathGlobs
from pants.engine.internals.native_engine import Address
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import AllTargets, Target, TransitiveTargets, TransitiveTargetsRequest
from pants.util.logging import LogLevel

from oracle_gate.core.classes import OracleClass
from oracle_gate.core.digests import drift_line
from oracle_gate.core.ledger import Ledger, LedgerError, ledger_problems, parse_ledger
from oracle_gate.target_types import (
    FreezeLedgerSourceField,
    GovernsField,
    LockedFixtureSourceField,
    MinExamplesField,
    Sha256Field,
)


class OracleGateError(Exception):
    """A build-time refusal (drifted fixture, bad ledger); the message is the whole story."""


# -- locked fixtures ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FixtureDigestRequest:
    target: Target


@dataclass(frozen=True)
class FixtureDigest:
    address: Address
    path: str
    expected: str
    actual: Optional[str]  # None when the file is gone

    @property
    def drift(self) -> Optional[str]:
        return drift_line(self.address.spec, self.expected, self.actual)


@rule(desc="Verify a locked fixture's digest", level=LogLevel.DEBUG)
async def fixture_digest(request: FixtureDigestRequest) -> FixtureDigest:
    field = request.target[LockedFixtureSourceField]
    path = field.file_path
    digest = await Get(Digest, PathGlobs([path]))
    entries = await Get(DigestEntries, Digest, digest)
    files = [e for e in entries if isinstance(e, FileEntry) and e.path == path]
    actual = files[0].file_digest.fingerprint if files else None
    return FixtureDigest(request.target.address, path, request.target[Sha256Field].value, actual)


@dataclass(frozen=True)
class FixtureDigestsRequest:
    targets: Tuple[Target, ...]


@dataclass(frozen=True)
class FixtureDigests:
    digests: Tuple[FixtureDigest, ...]

    @property
    def drift(self) -> Tuple[str, ...]:
        return tuple(d.drift for d in self.digests if d.drift)


@rule(level=LogLevel.DEBUG)
async def fixture_digests(request: FixtureDigestsRequest) -> FixtureDigests:
    digests = await MultiGet(
        Get(FixtureDigest, FixtureDigestRequest(t))
        for t in request.targets
        if t.has_field(LockedFixtureSourceField)
    )
    return FixtureDigests(tuple(sorted(digests, key=lambda d: d.address)))


# -- freeze ledgers ----------------------------------------------------------------------------
def _governs(prefixes: Tuple[str, ...], path: str) -> bool:
    for prefix in prefixes:
        prefix = prefix.strip("/")
        if not prefix or path == prefix or path.startswith(prefix + "/"):
            return True
    return False


@dataclass(frozen=True)
class ParsedLedgerRequest:
    target: Target


@dataclass(frozen=True)
class ParsedLedger:
    address: Address
    path: str
    text: str
    ledger: Optional[Ledger]
    error: Optional[str]
    governs: Tuple[str, ...]
    suite_size: int  # test files it governs, the build-time size for the capacity cap

    def problems(self, today: datetime.date) -> Tuple[str, ...]:
        if self.error:
            return (f"LEDGER_INVALID {self.error}",)
        assert self.ledger is not None
        return tuple(p.line for p in ledger_problems([self.ledger], today, self.suite_size))


@rule(desc="Validate a freeze ledger", level=LogLevel.DEBUG)
async def parsed_ledger(request: ParsedLedgerRequest, all_targets: AllTargets) -> ParsedLedger:
    field = request.target[FreezeLedgerSourceField]
    path = field.file_path
    digest = await Get(Digest, PathGlobs([path]))
    contents = await Get(DigestContents, Digest, digest)
    governs = request.target[GovernsField].value or ("",)
    suite = sum(
        1 for t in all_targets
        if t.has_field(PythonTestSourceField) and _governs(governs, t[PythonTestSourceField].file_path)
    )
    if not contents:
        return ParsedLedger(request.target.address, path, "", None, f"{path}: the ledger file is missing", governs, suite)
    text = contents[0].content.decode("utf-8", errors="replace")
    try:
        return ParsedLedger(request.target.address, path, text, parse_ledger(text, path), None, governs, suite)
    except LedgerError as e:
        return ParsedLedger(request.target.address, path, text, None, str(e), governs, suite)


@dataclass(frozen=True)
class GoverningLedgersRequest:
    path: str  # a test file's path


@dataclass(frozen=True)
class GoverningLedgers:
    ledgers: Tuple[ParsedLedger, ...]


@rule(level=LogLevel.DEBUG)
async def governing_ledgers(request: GoverningLedgersRequest, all_targets: AllTargets) -> GoverningLedgers:
    candidates = [t for t in all_targets if t.has_field(FreezeLedgerSourceField)]
    parsed = await MultiGet(Get(ParsedLedger, ParsedLedgerRequest(t)) for t in candidates)
    return GoverningLedgers(tuple(p for p in parsed if _governs(p.governs, request.path)))


# -- oracle classes ----------------------------------------------------------------------------
@dataclass(frozen=True)
class OracleClassRequest:
    target: Target


@dataclass(frozen=True)
class OracleClassification:
    address: Address
    oracle_class: OracleClass
    fixtures: Tuple[Target, ...]  # locked fixtures in its closure


@rule(level=LogLevel.DEBUG)
async def classify_oracle(request: OracleClassRequest) -> OracleClassification:
    """P for `oracle_properties`; L for a test whose closure holds a `locked_fixture`; else E."""
    closure = await Get(TransitiveTargets, TransitiveTargetsRequest([request.target.address]))
    fixtures = tuple(t for t in closure.dependencies if t.has_field(LockedFixtureSourceField))
    if request.target.has_field(MinExamplesField):
        cls = OracleClass.PROPERTY
    elif fixtures:
        cls = OracleClass.LOCKED
    else:
        cls = OracleClass.EQUALITY
    return OracleClassification(request.target.address, cls, fixtures)


def rules():
    return collect_rules()
