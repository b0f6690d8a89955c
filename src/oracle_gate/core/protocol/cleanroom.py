"""Clean-room differential replay: the protocol, the canonical encoding, and the clean interpreter.

A `pure` or `schema` region promises that a function's result depends on its arguments only. The
recorder (sandbox/plugin.py), asked through `ENV`, keeps a bounded, deterministic sample of the
calls a voting oracle made into the watched (changed) functions while its tests ran: the arguments
(pickled as they were when the call began) and the result (`canonical`) or the exception type.
After the session it re-executes each sampled call in fresh interpreters that never imported
pytest, Hypothesis or the recorder: another working directory, a minimal environment, another
PYTHONHASHSEED, the clock moved (VARIANTS), and once twice in a row in one process with the first
result mutated in between (a pure result is not shared state). It writes what each variant
returned to `RESULTS_RELPATH`; the gate compares, so any difference is `IMPURE`, whatever the
channel (the capture class of sys.stdout, the working directory, the date, the environment).

The clean interpreter's program is sandbox/clean_interpreter.py; the recorder copies it and this
module (which therefore imports the standard library only) to a temporary directory and runs it as
a script, so nothing the clean interpreter imports names the gate.
"""
from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Tuple

ENV = "ORACLE_GATE_CLEANROOM"
RESULTS_RELPATH = "oracle-gate/cleanroom.json"
SCHEMA = "oracle-gate/cleanroom"
VERSION = 1
DAY = 86400
# (name, clock offset in seconds, PYTHONHASHSEED); the first also runs every call twice.
VARIANTS: Tuple[Tuple[str, int, int], ...] = (
    ("clean", 0, 1), ("clock+1d", DAY, 2), ("clock+400d", 400 * DAY, 3), ("clock+10y", 3653 * DAY, 4),
    ("other-world", 0, 5))
# Variants that also leave the world the test's jail fixes (clean_interpreter.other_world): process
# IDs like a long-running host's (the caller's parent gets OTHER_WORLD_PID + 1, the caller the next;
# in the middle of Linux's default range, far above the jail's, whose PID namespace starts at 1) and
# a writable home directory. Both worlds otherwise share the jail, so a function keyed on what the
# jail fixes would look pure there.
OTHER_WORLD = frozenset({"other-world"})
OTHER_WORLD_PID = 23_000
AGAIN = "again"  # the second call in one process, after the first result was mutated
SAMPLES_PER_FUNCTION = 8  # kept per function: the calls whose pickled arguments hash lowest
CALLS_CONSIDERED = 400  # per function; later calls are counted, not sampled
MAX_ARGS_BYTES = 16384
CHILD_TIMEOUT = 120


# -- the canonical encoding (replays, probes and the clean room compare through it) -------------
def canonical(value: Any) -> str:
    """Canonical JSON of a value, read through its type and public protocol, never `__eq__`."""
    return json.dumps(_jsonable(value, 0), sort_keys=True, separators=(",", ":"), allow_nan=True)


def _jsonable(value: Any, depth: int) -> Any:
    if depth > 50:
        return "<too deep>"
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value else "NaN"
    if isinstance(value, (bytes, bytearray)):
        return {"__bytes__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, enum.Enum):
        return _jsonable(value.value, depth + 1)
    if type(value) is dict:
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [_jsonable(v, depth + 1) for v in value]
    if isinstance(value, (dict, list, tuple)):
        # A subclass can lie through its own methods (`__eq__`, `__getitem__`): its type is part of
        # the output, and its content is read through the public protocol the callers use.
        content = {str(k): _jsonable(value[k], depth + 1) for k in value} if isinstance(value, dict) \
            else [_jsonable(value[i], depth + 1) for i in range(len(value))]
        return {"__class__": type(value).__name__, "value": content}
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v, depth + 1) for v in value), key=repr)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _jsonable(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
        return {"__class__": type(value).__name__, **fields}
    if hasattr(value, "__dict__"):
        return {"__class__": type(value).__name__, **{k: _jsonable(v, depth + 1) for k, v in sorted(vars(value).items())}}
    return {"__repr__": repr(value)}


def outcome_of(result: Any = None, raised: Optional[BaseException] = None) -> str:
    """What a call did, as compared: its result's canonical JSON, or the exception's type."""
    if raised is not None:
        return f"raised {type(raised).__module__}.{type(raised).__qualname__}"
    try:
        # An object's address differs from process to process: it is no part of a result.
        return ADDRESS.sub("0x?", canonical(result))
    except Exception as e:  # a result whose own protocol raises
        return f"unencodable result ({type(e).__name__})"


ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


# -- what the gate asks for -----------------------------------------------------------------------
@dataclass(frozen=True)
class Watch:
    """A function to sample: its file (sandbox-relative), its code's name and the lines of its
    definition (a code object whose first line falls inside, decorators included)."""

    path: str
    name: str
    first: int
    last: int


def encode_watch(watches: Iterable[Watch]) -> str:
    return json.dumps(sorted([w.path, w.name, w.first, w.last] for w in watches), separators=(",", ":"))


def decode_watch(value: str) -> Tuple[Watch, ...]:
    try:
        raw = json.loads(value)
        return tuple(Watch(str(p), str(n), int(a), int(b)) for p, n, a, b in raw)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{ENV} is not a list of [path, name, first, last]: {e}") from None


# -- what the recorder writes ---------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One sampled call and what it did under the test, then in each clean variant."""

    path: str
    line: int  # the code object's first line
    name: str
    input: str  # a short, readable rendering of the arguments
    expected: str  # outcome_of under the test
    results: Tuple[Tuple[str, str], ...]  # (variant, outcome_of there); a variant that could not run says why


@dataclass(frozen=True)
class Unreplayed:
    path: str
    line: int
    name: str
    calls: int  # calls seen while tests ran
    why: str


@dataclass(frozen=True)
class CleanroomResults:
    calls: Tuple[Call, ...] = ()
    unreplayed: Tuple[Unreplayed, ...] = ()
    errors: Tuple[str, ...] = ()

    def differences(self) -> Tuple[Tuple[Call, str, str], ...]:
        """(call, variant, what it did there) for every variant whose outcome differs."""
        return tuple((c, v, got) for c in self.calls for v, got in c.results if not same(c.expected, got))


NOT_RUN = "not run: "
# What the clean interpreter says of a call that read the process environment (os.environ or
# os.environb) while it ran: never what a call did under the test, so always a difference.
READ_ENVIRONMENT = "read the environment ("
# Under the test, an exception's type is not seen (the profile hook only sees the frame unwind).
RAISED = "raised an exception"


def same(expected: str, got: str) -> bool:
    """Whether a clean variant did what the call did under the test (a variant that could not
    run says nothing either way)."""
    if got.startswith(NOT_RUN) or got == expected:
        return True
    return expected == RAISED and got.startswith("raised ")


def dumps(results: CleanroomResults) -> bytes:
    payload = {
        "schema": SCHEMA, "version": VERSION,
        "calls": [dataclasses.asdict(c) for c in results.calls],
        "unreplayed": [dataclasses.asdict(u) for u in results.unreplayed],
        "errors": list(results.errors),
    }
    return (json.dumps(payload, sort_keys=True, separators=(",", ":")) + "\n").encode("ascii")


def loads(data: bytes) -> CleanroomResults:
    """Parse a clean-room file; anything off raises ValueError with a one-line message."""
    try:
        raw = json.loads(data)
        if raw.get("schema") != SCHEMA or raw.get("version") != VERSION:
            raise ValueError(f"not a {SCHEMA} version {VERSION} file")
        calls = tuple(Call(str(c["path"]), int(c["line"]), str(c["name"]), str(c["input"]), str(c["expected"]),
                           tuple((str(v), str(g)) for v, g in c["results"])) for c in raw["calls"])
        unreplayed = tuple(Unreplayed(str(u["path"]), int(u["line"]), str(u["name"]), int(u["calls"]), str(u["why"]))
                           for u in raw["unreplayed"])
        return CleanroomResults(calls, unreplayed, tuple(str(e) for e in raw["errors"]))
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"clean-room results: {type(e).__name__}: {e}") from None


def sample_key(args_blob: bytes) -> str:
    """The order in which sampled calls are kept: by their arguments' digest, not by arrival."""
    return hashlib.sha256(args_blob).hexdigest()
