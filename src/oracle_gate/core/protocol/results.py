"""The results protocol: what the sandbox recorder writes and the gate reads (the one definition).

The recorder writes `extra-output/oracle-gate/results.json` in the test sandbox; Pants collects
`extra-output/`, so the gate reads `RESULTS_RELPATH` from the process's extra output. The file
holds facts only (outcomes, signatures, markers, example counts, executed code, fixture digests,
module-level names bound to what their module did not define there, whether the session finished);
every judgement is the gate's.

A signature hashes what `exception` holds: the exception type name of a failure or an error, or
the kind `skip` (skipped) or `xfail` (xfailed, xpassed) for skip-like outcomes.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .signature import SIGNATURE_RE

SCHEMA = "oracle-gate/results"
VERSION = 3
RESULTS_RELPATH = "oracle-gate/results.json"
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
PHASES = ("setup", "call", "teardown", "collect")
MARKERS = ("skip", "skipif", "xfail", "importorskip", "pytest.skip", "pytest.xfail", "deselected", "unittest")
TAIL_LINES = 15
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")

# An executed code object: (sandbox-relative path, co_firstlineno, co_name).
Code = Tuple[str, int, str]


class ResultsError(ValueError):
    """A results file or record that breaks the protocol; the message is one line."""


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ResultsError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _opt(value: object, kind: type) -> bool:
    return value is None or isinstance(value, kind)


def _strings(values: Iterable[object], where: str) -> Tuple[str, ...]:
    _check(not isinstance(values, (str, bytes)), f"{where} must be a list of strings")
    values = tuple(values)
    _check(all(isinstance(v, str) for v in values), f"{where} must hold strings only")
    return values


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)  # normalising a frozen dataclass in __post_init__


@dataclass(frozen=True)
class TestRecord:
    """One collected test (or a collection-level report) as pytest reported it."""

    __test__ = False  # not a pytest test class

    nodeid: str
    file: str  # the test file, relative to the sandbox root (the build root)
    outcome: str  # one of OUTCOMES
    phase: str  # one of PHASES: where the outcome was decided
    signature: Optional[str] = None  # core/protocol/signature.py failure_signature; None when passed
    exception: Optional[str] = None  # what the signature hashes (see the module docstring)
    marker: Optional[str] = None  # one of MARKERS: what caused a skip, xfail or xpass
    reason: Optional[str] = None  # the skip or xfail reason
    examples: Optional[int] = None  # Hypothesis examples run; None for other tests
    exhausted: Optional[bool] = None  # Hypothesis stopped because nothing was left to try
    tail: Tuple[str, ...] = ()  # the last TAIL_LINES lines of the failure text

    def __post_init__(self) -> None:
        where = f"test {self.nodeid!r}"
        _check(isinstance(self.nodeid, str) and bool(self.nodeid), "a test's nodeid must be a non-empty string")
        _check(isinstance(self.file, str), f"{where}: `file` must be a string")
        _check(self.outcome in OUTCOMES, f"{where}: `outcome` {self.outcome!r} is not one of {', '.join(OUTCOMES)}")
        _check(self.phase in PHASES, f"{where}: `phase` {self.phase!r} is not one of {', '.join(PHASES)}")
        _check(self.signature is None or (isinstance(self.signature, str) and bool(SIGNATURE_RE.match(self.signature))),
               f"{where}: `signature` must be 16 lowercase hex characters or null, got {self.signature!r}")
        for name in ("exception", "reason"):
            _check(_opt(getattr(self, name), str), f"{where}: `{name}` must be a string or null")
        _check(self.marker is None or self.marker in MARKERS,
               f"{where}: `marker` {self.marker!r} is not one of {', '.join(MARKERS)}")
        _check(self.examples is None or (_is_int(self.examples) and self.examples >= 0),
               f"{where}: `examples` must be a non-negative integer or null, got {self.examples!r}")
        _check(_opt(self.exhausted, bool), f"{where}: `exhausted` must be true, false or null")
        _check((self.examples is None) == (self.exhausted is None),
               f"{where}: `examples` and `exhausted` are both null (not a Hypothesis test) or both set")
        _check(isinstance(self.tail, (list, tuple)), f"{where}: `tail` must be a list of lines")
        _set(self, "tail", _strings(self.tail, f"{where}: `tail`"))


@dataclass(frozen=True)
class FileRecord:
    """One test file: what it collected, the sandbox code it executed, its fixtures' digests."""

    path: str  # relative to the sandbox root
    address: Optional[str] = None  # the Pants address, from the setup hook's config
    collected: Tuple[str, ...] = ()  # nodeids, deselected ones included
    collection_error: Optional[str] = None
    executed: Tuple[Code, ...] = ()
    fixtures: Tuple[Tuple[str, Optional[str]], ...] = ()  # (path, sha256 after the session; None: missing)

    def __post_init__(self) -> None:
        where = f"file {self.path!r}"
        _check(isinstance(self.path, str) and bool(self.path), "a file's path must be a non-empty string")
        _check(_opt(self.address, str), f"{where}: `address` must be a string or null")
        _check(_opt(self.collection_error, str), f"{where}: `collection_error` must be a string or null")
        _set(self, "collected", tuple(sorted(set(_strings(self.collected, f"{where}: `collected`")))))
        executed = set()
        for code in self.executed:
            _check(isinstance(code, (list, tuple)) and len(code) == 3 and isinstance(code[0], str)
                   and _is_int(code[1]) and isinstance(code[2], str),
                   f"{where}: `executed` entries must be [path, firstlineno, name], got {code!r}")
            executed.add((code[0], code[1], code[2]))
        _set(self, "executed", tuple(sorted(executed)))
        fixtures: Dict[str, Optional[str]] = {}
        for pair in self.fixtures:
            _check(isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)
                   and (pair[1] is None or (isinstance(pair[1], str) and bool(SHA256_RE.match(pair[1])))),
                   f"{where}: `fixtures` maps a path to a sha256 (64 lowercase hex) or null, got {pair!r}")
            _check(pair[0] not in fixtures, f"{where}: fixture {pair[0]!r} listed twice")
            fixtures[pair[0]] = pair[1]
        _set(self, "fixtures", tuple(sorted(fixtures.items())))


@dataclass(frozen=True)
class Versions:
    python: str
    pytest: str
    hypothesis: Optional[str] = None  # None: not installed

    def __post_init__(self) -> None:
        _check(isinstance(self.python, str) and isinstance(self.pytest, str) and _opt(self.hypothesis, str),
               "`versions` holds python and pytest strings and a hypothesis string or null")


@dataclass(frozen=True)
class Mutant:
    """The mutant this session ran (ORACLE_GATE_MUTANT); `served` is False if its module never loaded."""

    id: str
    path: str
    served: bool

    def __post_init__(self) -> None:
        _check(isinstance(self.id, str) and isinstance(self.path, str) and isinstance(self.served, bool),
               "`mutant` holds an id and a path (strings) and served (a boolean)")


CONNECTIONS_KEPT = 20
MOCK = "a mock"  # Rebound.what for a unittest.mock object


@dataclass(frozen=True)
class Rebound:
    """A module-level name of a sandbox module that, when the session ended, held a callable not
    defined under that name in that module's file (an import, an alias, or a rebinding: the gate
    tells them apart from the module's source). Recorded only for names the file spells as `def`."""

    path: str  # the module's file, relative to the sandbox root
    name: str
    origin: str  # the file of the callable's code, relative to the sandbox root; "" outside it or none
    what: str  # what it is: `<name> at <origin>:<line>`, `builtin <name>`, MOCK, `<type> object`

    def __post_init__(self) -> None:
        _check(all(isinstance(v, str) for v in (self.path, self.name, self.origin, self.what))
               and bool(self.path) and bool(self.name), "a rebound name holds a path, a name, an origin "
               "and what it is bound to (strings; path and name non-empty)")


@dataclass(frozen=True)
class SessionResults:
    """One pytest session. `complete` is True only when the session finished normally and every
    collected test reported its end; otherwise the gate has no results for the target."""

    complete: bool
    exit_status: Optional[int]
    versions: Versions
    interrupted: Optional[str] = None  # why the session stopped early: pytest.exit, KeyboardInterrupt, ...
    tests: Tuple[TestRecord, ...] = ()
    files: Tuple[FileRecord, ...] = ()
    recorder_errors: Tuple[str, ...] = ()  # the recorder's own exceptions (caught; in order)
    mutant: Optional[Mutant] = None
    rebound: Tuple[Rebound, ...] = ()  # at the session's end
    # Network destinations (`host:port`) other than loopback the session's process tried to reach;
    # at most CONNECTIONS_KEPT of them, the first ones in sorted order.
    connections: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check(isinstance(self.complete, bool), "`complete` must be true or false")
        _check(self.exit_status is None or _is_int(self.exit_status), "`exit_status` must be an integer or null")
        _check(isinstance(self.versions, Versions), "`versions` must be a Versions record")
        _check(_opt(self.interrupted, str), "`interrupted` must be a string or null")
        _check(all(isinstance(t, TestRecord) for t in self.tests), "`tests` must hold test records")
        _check(all(isinstance(f, FileRecord) for f in self.files), "`files` must hold file records")
        _check(_opt(self.mutant, Mutant), "`mutant` must be a Mutant record or null")
        _set(self, "tests", _unique(self.tests, lambda t: t.nodeid, "test"))
        _set(self, "files", _unique(self.files, lambda f: f.path, "file"))
        _set(self, "recorder_errors", _strings(self.recorder_errors, "`recorder_errors`"))
        _check(all(isinstance(r, Rebound) for r in self.rebound), "`rebound` must hold rebound records")
        _set(self, "rebound", _unique(self.rebound, lambda r: (r.path, r.name), "rebound name"))
        _set(self, "connections", tuple(sorted(set(_strings(self.connections, "`connections`"))))[:CONNECTIONS_KEPT])

    def test(self, nodeid: str) -> Optional[TestRecord]:
        return next((t for t in self.tests if t.nodeid == nodeid), None)

    def file(self, path: str) -> Optional[FileRecord]:
        return next((f for f in self.files if f.path == path), None)

    def unrecorded(self) -> Tuple[str, ...]:
        """Collected nodeids without a test record (a complete session has none)."""
        recorded = {t.nodeid for t in self.tests}
        return tuple(sorted({n for f in self.files for n in f.collected} - recorded))


def _unique(items: Iterable[Any], key: Any, what: str) -> Tuple[Any, ...]:
    ordered = sorted(items, key=key)
    for a, b in zip(ordered, ordered[1:]):
        _check(key(a) != key(b), f"{what} {key(a)!r} is recorded twice")
    return tuple(ordered)


# -- JSON ------------------------------------------------------------------------------------------

_TEST_KEYS = ("nodeid", "file", "outcome", "phase", "signature", "exception", "marker", "reason",
              "examples", "exhausted", "tail")
_FILE_KEYS = ("path", "address", "collected", "collection_error", "executed", "fixtures")
_TOP_KEYS = ("schema", "version", "complete", "exit_status", "interrupted", "versions", "tests", "files",
             "recorder_errors", "mutant", "rebound", "connections")


def _test_json(t: TestRecord) -> Dict[str, Any]:
    return {k: list(getattr(t, k)) if k == "tail" else getattr(t, k) for k in _TEST_KEYS}


def _file_json(f: FileRecord) -> Dict[str, Any]:
    return {
        "path": f.path, "address": f.address, "collected": list(f.collected),
        "collection_error": f.collection_error, "executed": [list(c) for c in f.executed],
        "fixtures": dict(f.fixtures),
    }


def dumps(results: SessionResults) -> bytes:
    """Canonical bytes: sorted keys and lists, ASCII, so the same run gives the same file."""
    payload = {
        "schema": SCHEMA, "version": VERSION, "complete": results.complete,
        "exit_status": results.exit_status, "interrupted": results.interrupted,
        "versions": {"python": results.versions.python, "pytest": results.versions.pytest,
                     "hypothesis": results.versions.hypothesis},
        "tests": [_test_json(t) for t in results.tests],
        "files": [_file_json(f) for f in results.files],
        "recorder_errors": list(results.recorder_errors),
        "mutant": None if results.mutant is None else
        {"id": results.mutant.id, "path": results.mutant.path, "served": results.mutant.served},
        "rebound": [[r.path, r.name, r.origin, r.what] for r in results.rebound],
        "connections": list(results.connections),
    }
    return (json.dumps(payload, sort_keys=True, separators=(",", ":")) + "\n").encode("ascii")


def _object(raw: object, keys: Tuple[str, ...], where: str) -> Mapping[str, Any]:
    _check(isinstance(raw, dict), f"{where} must be a JSON object")
    assert isinstance(raw, dict)
    missing = [k for k in keys if k not in raw]
    unknown = sorted(k for k in raw if k not in keys)
    _check(not missing, f"{where}: missing key(s) {', '.join(missing)}")
    _check(not unknown, f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    return raw


def _list(raw: object, where: str) -> List[Any]:
    _check(isinstance(raw, list), f"{where} must be a JSON list")
    assert isinstance(raw, list)
    return raw


def loads(data: bytes) -> SessionResults:
    """Parse and validate a results file; anything off raises ResultsError with a one-line message."""
    try:
        raw = json.loads(data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data)
    except (UnicodeDecodeError, ValueError) as e:
        raise ResultsError(f"results: not valid JSON: {e}") from None
    _check(isinstance(raw, dict), "results: the file must be a JSON object")
    _check(raw.get("schema") == SCHEMA, f"results: `schema` must be {SCHEMA!r}, got {raw.get('schema')!r}")
    _check(raw.get("version") == VERSION,
           f"results: version {raw.get('version')!r} is not supported (this gate reads version {VERSION})")
    top = _object(raw, _TOP_KEYS, "results")
    versions = _object(top["versions"], ("python", "pytest", "hypothesis"), "results: `versions`")
    tests = []
    for i, t in enumerate(_list(top["tests"], "results: `tests`")):
        fields = dict(_object(t, _TEST_KEYS, f"results: tests[{i}]"))
        fields["tail"] = tuple(_list(fields["tail"], f"results: tests[{i}].tail"))
        tests.append(fields)
    files = []
    for i, f in enumerate(_list(top["files"], "results: `files`")):
        fields = dict(_object(f, _FILE_KEYS, f"results: files[{i}]"))
        _check(isinstance(fields["fixtures"], dict), f"results: files[{i}].fixtures must be a JSON object")
        fields["fixtures"] = tuple(fields["fixtures"].items())
        fields["collected"] = tuple(_list(fields["collected"], f"results: files[{i}].collected"))
        fields["executed"] = tuple(_list(fields["executed"], f"results: files[{i}].executed"))
        files.append(fields)
    mutant = top["mutant"]
    rebound = []
    for i, r in enumerate(_list(top["rebound"], "results: `rebound`")):
        _check(isinstance(r, list) and len(r) == 4, f"results: rebound[{i}] must be [path, name, origin, what]")
        rebound.append(r)
    try:
        return SessionResults(
            complete=top["complete"],
            exit_status=top["exit_status"],
            interrupted=top["interrupted"],
            versions=Versions(**versions),
            tests=tuple(TestRecord(**t) for t in tests),
            files=tuple(FileRecord(**f) for f in files),
            recorder_errors=tuple(_list(top["recorder_errors"], "results: `recorder_errors`")),
            mutant=None if mutant is None else Mutant(**_object(mutant, ("id", "path", "served"), "results: `mutant`")),
            rebound=tuple(Rebound(*r) for r in rebound),
            connections=tuple(_list(top["connections"], "results: `connections`")),
        )
    except ResultsError as e:
        raise ResultsError(f"results: {e}") from None
