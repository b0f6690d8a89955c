"""Clean-room differential replay: the protocol, the canonical encoding, and the clean interpreter.

A `pure` or `schema` region promises that a function's result depends on its arguments only. The
recorder (sandbox/plugin.py), asked through `ENV`, keeps a bounded, deterministic sample of the
calls a voting oracle made into the watched (changed) functions while its tests ran: the arguments
(pickled as they were when the call began) and the result (`canonical`) or the exception type.
After the session it re-executes each sampled call in fresh interpreters that never imported
pytest, Hypothesis or the recorder: another working directory, a minimal environment, another
PYTHONHASHSEED, the clock moved, another thread, another locale (VARIANTS), and once twice in a row
in one process with the first result mutated in between (a pure result is not shared state). It
writes what each variant returned to `RESULTS_RELPATH`; the gate compares, so any difference is
`IMPURE`, whatever the channel (the capture class of sys.stdout, the working directory, the date,
the environment).

Base against head: where the gate also hands over the base's sources of the diff's changed files
(`BASE_ENV`), each sampled call, and each of its widenings (`widenings`: the same arguments
negated, past 2**32, 2**53 and 10**30, plus 1,500 (past the recursion limit), with a trailing 5, as
fractions, all 1, all 0, as decimal text, as Decimals, negated as text, upper-cased, with a
non-ASCII letter, in full-width letters, padded with spaces, with a decomposed letter or with an
invalid UTF-8 byte, a JSON object's first key repeated, repeated past 300 items (also each record a
list holds), emptied records, a key dropped, a dict's values null, emptied, also inside JSON text
and one argument at a time; one integer negated; an integer argument, or every integer a list
holds, replaced by a constant the code names; every text replaced by, prefixed or suffixed with a
word the diff wrote), runs in clean interpreters alike but for the code, under an ASCII locale
(LOCALE_ENV): the head's and the base's (an import hook serves the base's files). What a call
returned, raised and left in its arguments there is compared (the `BASE` variant); the head's side
runs twice, with other hash seeds, and a call whose head side differs from itself (in a pure
region, `IMPURE`: the `HASH_SEED` variant), runs out of time or memory, or cannot import the base is
not compared. Outside a mutant's session both sides run once more later and elsewhere: the clock 30
years ahead, each word the diff wrote that can name an environment variable set to "1" and every
word it wrote on the program's command line (`later_arguments`), a third hash seed
(`later_environment`), on another machine (LATER_MACHINE: `python -O`, one CPU, Windows'
line separator); a difference there, where the first world showed none and the head's code did
something else than in the first world, is one too.
A difference is a change in behaviour the diff makes that no voting oracle failed on:
`UNJUDGED_CHANGE`. A watch whose region does not promise purity (`io`, `state`, `concurrent`) is
compared this way only; a concurrent one (`Watch.unordered`) where a call returns on both sides,
every list in its result read in any order (`in_any_order`).

The clean interpreter's program is sandbox/clean_interpreter.py; the recorder copies it and this
module (which therefore imports the standard library only) to a temporary directory and runs it as
a script, so nothing the clean interpreter imports names the gate.
"""
from __future__ import annotations

import base64
import binascii
import copy
import dataclasses
import decimal
import enum
import hashlib
import itertools
import json
import math
import re
import sys
import zlib
from dataclasses import dataclass
from typing import AbstractSet, Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

ENV = "ORACLE_GATE_CLEANROOM"
RESULTS_RELPATH = "oracle-gate/cleanroom.json"
SCHEMA = "oracle-gate/cleanroom"
VERSION = 1
DAY = 86400
# (name, clock offset in seconds, PYTHONHASHSEED); the first also runs every call twice.
VARIANTS: Tuple[Tuple[str, int, int], ...] = (
    ("clean", 0, 1), ("clock+1d", DAY, 2), ("clock+400d", 400 * DAY, 3), ("clock+10y", 3653 * DAY, 4),
    ("other-world", 0, 5), ("clock+30y", 10958 * DAY, 8), ("thread", 0, 9), ("locale", 0, 10))
# The clock 30 years ahead is past 2038-01-19, where a 32-bit time_t (`struct.pack("<i", ...)`,
# C's `time_t` on old ABIs) overflows. `thread`: each call is made from a thread other than the one
# that imported its module (`threading.local()` state set at import is not there). `locale`: a
# locale whose preferred encoding is ASCII (LOCALE_ENV), so code that takes its encoding from the
# machine (`locale.getpreferredencoding()`, `open()` without an encoding) reads differently.
IN_THREAD = frozenset({"thread"})
OTHER_LOCALE = frozenset({"locale"})
# C's locale, with neither of CPython's rescues from it (PEP 538's coercion to C.UTF-8, PEP 540's
# UTF-8 mode): the preferred encoding is then ASCII. The twins run under it too, so the head's and
# the base's code are compared where the machine's encoding is not UTF-8.
LOCALE_ENV = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
# Variants that also leave the world the test's jail fixes (clean_interpreter.other_world): process
# IDs like a long-running host's (the caller's parent gets OTHER_WORLD_PID + 1, the caller the next;
# in the middle of Linux's default range, far above the jail's, whose PID namespace starts at 1) and
# a writable home directory. Both worlds otherwise share the jail, so a function keyed on what the
# jail fixes would look pure there.
OTHER_WORLD = frozenset({"other-world"})
OTHER_WORLD_PID = 23_000
AGAIN = "again"  # the second call in one process, after the first result was mutated
BASE = "base"  # the base's code on the same (or a widened) input, beside the head's in a twin interpreter
HASH_SEED = "hash-seed"  # the head's code on a widened input in a twin with another PYTHONHASHSEED (pure only)
# A pure region's calls and widenings also run in MORE_HASH_SEEDS twins of the head's code with
# seeds of `hash_seeds`: two strings' order in a set agrees under a fixed pair of seeds as often as
# not (and a diff can pick strings that agree under seeds it knows), so the seeds come from the
# head's sources, which the diff cannot change without changing them.
MORE_HASH_SEEDS = 4
# The twins' second world: the clocks about 30 years ahead (past a date bomb, and 2038), in a time
# zone 14 hours east of UTC (LATER_TZ, a POSIX rule: no tz database needed), and every word the
# diff's code names that could name an environment variable set to "1" (a knob the diff reads,
# unset wherever the tests and the first twins run). The clocks read one of four moments at the start
# of each input (LATER_MOMENTS, by the input's place among its call's: `later_moment`), each a
# calendar's edge no day of a test run is sure to reach:
# - a leap day while UTC's date is the day before (a month of 29 days, where `date(year, month,
#   31)` or a "last day of the month" rolls over, a year on where February 29 is not; code that
#   mixes the local and the UTC date tells them apart);
# - the last half-minute of a 31st before a month of 29 days (a day, hour or minute moved on by
#   `replace` is out of range; the same day of the next month is not a date);
# - the last half-minute of a year (the month after December is not month 13: `date(year,
#   month + 1, 1)` for the first of the next month raises only in December);
# - the last half-minute of a leap day in UTC (code that reads UTC's clock, `datetime.now(
#   timezone.utc)`, meets a leap day, an hour 23 and a minute 59 there, which the moments above,
#   all in the morning in UTC, never show it; the sixteenth outside round's d02 and d11).
# The head's and the base's code run there alike; a difference shows only what the diff changes,
# whatever the world.
LATER_MOMENTS = ((2_718_964_800, "2056-02-29 at 02:00, UTC+14 (2056-02-28 in UTC)"),  # 2056-02-28T12:00:00Z
                 (2_716_538_370, "2056-01-31 at 23:59:30, UTC+14"),  # 2056-01-31T09:59:30Z
                 (2_745_482_370, "2056-12-31 at 23:59:30, UTC+14"),  # 2056-12-31T09:59:30Z
                 (2_719_094_370, "2056-03-01 at 13:59:30, UTC+14 (2056-02-29 at 23:59:30 in UTC)"))  # 2056-02-29T23:59:30Z
LATER_TZ = "<+14>-14"
LATER_VALUE = "1"
# The later world's machine, for the head and the base alike: the interpreter runs under `-O`
# (`assert` statements and `__debug__` blocks are gone, as in a deployment that runs it so), the
# process may use one CPU (`os.sched_getaffinity`, and `os.cpu_count()` says 1) and `os.linesep`
# is Windows' "\r\n". Code that sizes, checks or ends its output by the machine shows it there.
LATER_MACHINE = "under python -O, on one CPU, with os.linesep '\\r\\n' and the code's own files told they run on Windows"
# What the code's own files (under the repository's root, not an installed package's) read on the
# later machine where they ask which platform they run on: Windows' answers, from each of the
# standard library's ways to ask (the attributes `os.name` and `sys.platform`; the calls
# `platform.system()`, `.platform()`, `.release()`, `.version()`, `.uname()`, `.win32_ver()`,
# `os.uname()` and `sysconfig.get_platform()`). The library code they call sees the machine's own,
# so `pathlib` and `subprocess` work as they do here; code that reads the platform through a
# branch, a dict lookup or a comparison alike shows what it does on another platform.
LATER_PLATFORM = (("os", "name", "nt"), ("sys", "platform", "win32"))
LATER_SYSTEM = "Windows"
LATER_RELEASE, LATER_VERSION = "10", "10.0.19045"
LATER_PLATFORM_CALLS = (("platform", "system", LATER_SYSTEM),
                        ("platform", "platform", f"{LATER_SYSTEM}-{LATER_RELEASE}-{LATER_VERSION}-SP0"),
                        ("platform", "release", LATER_RELEASE), ("platform", "version", LATER_VERSION),
                        ("platform", "win32_ver", (LATER_RELEASE, LATER_VERSION, "SP0", "Multiprocessor Free")),
                        ("sysconfig", "get_platform", "win-amd64"))
LATER_LINESEP = "\r\n"
WIDENING_WORDS = 4  # of a module's fresh words, those its calls' text is widened with
WORLD_WORDS = 32  # of them, those set in the later world's environment
# Names the twins set themselves, and prefixes that change the interpreter or the loader.
_OWN_NAMES = frozenset({"PATH", "HOME", "TMPDIR", "PYTHONHASHSEED", "TZ", *("LC_ALL", "PYTHONUTF8", "PYTHONCOERCECLOCALE")})
_INTERPRETER_PREFIXES = ("PYTHON", "LD_", "DYLD_", "MALLOC")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


def hash_seeds(sources: Iterable[str]) -> Tuple[int, ...]:
    """MORE_HASH_SEEDS values of PYTHONHASHSEED (11 to 4,000,000,010), a function of the sources."""
    digest = hashlib.sha256("\0".join(sources).encode("utf-8", "surrogatepass")).digest()
    return tuple(11 + int.from_bytes(digest[4 * i:4 * i + 4], "big") % 4_000_000_000 for i in range(MORE_HASH_SEEDS))


def later_environment(words: Iterable[str]) -> Dict[str, str]:
    """The later world's environment variables: each word that can name one (at most WORLD_WORDS)."""
    names = [w for w in dict.fromkeys(words) if _ENV_NAME.match(w) and w.upper() not in _OWN_NAMES
             and not w.upper().startswith(_INTERPRETER_PREFIXES)]
    return {name: LATER_VALUE for name in sorted(names)[:WORLD_WORDS]}


def later_arguments(words: Iterable[str]) -> List[str]:
    """The later world's command line after the program's name (`sys.argv[1:]`): each word the
    diff wrote (at most WORLD_WORDS; a flag the code reads there, `--dry-run`, given)."""
    return sorted(dict.fromkeys(words))[:WORLD_WORDS]


def later_moment(k: int) -> Tuple[int, str]:
    """The moment (seconds since the epoch, and how it is named) the later world's clocks read at
    the start of its call's `k`-th input: the head's and the base's alike."""
    return LATER_MOMENTS[k % len(LATER_MOMENTS)]


def later_shown(environment: Mapping[str, str], k: int, arguments: Sequence[str] = ()) -> str:
    """How the `k`-th input of a call in the later world is named in a verdict."""
    names = ", ".join(f"{name}={value}" for name, value in sorted(environment.items()))
    line = " ".join(arguments)
    return (f"[on {later_moment(k)[1]}, {LATER_MACHINE}{'; ' + names[:160] if names else ''}"
            f"{'; its command line ' + repr(line[:120]) if line else ''}]")


def clipped(shown: str, chars: int) -> str:
    """A call as a verdict shows it: its first `chars` characters, and the later world it ran in
    (`later_shown`, at its end) whole, since that world is what told the head from the base."""
    call, mark, world = max((shown.rpartition(f" [on {date}, ") for _, date in LATER_MOMENTS), key=lambda p: (bool(p[1]), len(p[0])))
    if not mark:
        return shown[:chars]
    return f"{call[:chars]}{mark}{world}"


BASE_ENV = "ORACLE_GATE_CLEANROOM_BASE"
MAX_BASE_ENV_CHARS = 100 * 1024
WIDENED_CALL_SECONDS = 0.5  # per call, base and head alike; a call that runs longer is not compared
# ... unless it answers when given PATIENT_SECONDS: in the first world's head and base twins, the
# first PATIENT_TRIES calls of each function that run out of time (and every SCALED one, below)
# are run once more for that long (a widening past a cap of `1 << 17` items takes more than 0.5 s
# on a loaded machine). What answered only then carries PATIENT beside its outcome in the twin's
# results; what ran out of that time too is PAST_PATIENCE. One side answering within
# WIDENED_CALL_SECONDS where the other ran past PATIENT_SECONDS is a difference (`outlasted`).
PATIENT_SECONDS = 3.0
PATIENT_TRIES = 2
PATIENT = "answered only when given more time"
# What a loop costs as its input grows: in the same two twins, the input of each call that was
# answered at the greatest length (the call as made or a widening: where the code did the most, a
# problem listed for each line) is run once more with its lists (or where it has none, its dicts)
# repeated to SCALED_ITEMS items (SCALED, after every other input: the twins that do not make it have fewer inputs, and
# inputs pair by position; a base that grew another input is not compared), and each input's
# processor time is kept beside its outcome, and on that input the time it took with its lists and
# dicts a quarter as long. A head that does what the base did on that input but takes SLOWER_FACTOR
# times its time, at least SLOWER_SECONDS, and GROWTH times its own time on the quarter (a cost
# that grows faster than the input: four times the items, a linear loop takes about four times as
# long and a quadratic one sixteen) differs from it (`slower`): a list built by `out = out + [...]`,
# not a thread pool that spends more per item than a loop of threads. (Timed there only: it runs
# after a function's other calls, so what it imports when first called, an honest lazy import, is
# not timed; and processor time, so a loaded machine does not slow one side alone.) Where the
# first pair of runs grew GROWTH times and took SLOWER_SECONDS, each size is run TIMED_RUNS times
# in all, by turns, and its least time kept: a thread pool's processor time swings with the
# machine's load (a linear pool measured 2 to 10 times on four times the items beside two busy
# gates, 3.7 to 4.1 times by the least of three). A repeat CACHED times faster than the first run
# of the same input is a cache's answer, and that size keeps its first time.
SCALED = "every list (or dict) repeated to 16,384 items, to time it"  # then " (from <the input grown>)"
SCALED_ITEMS = 1 << 14
SLOWER_FACTOR = 20
SLOWER_SECONDS = 0.1
GROWTH = 8
TIMED_RUNS = 3
CACHED = 8
WIDENED_MEMORY_BYTES = 2 << 30  # the address space a twin's calls may take beyond its imports
SAMPLES_PER_FUNCTION = 8  # kept per function: the calls whose pickled arguments hash lowest
CALLS_CONSIDERED = 400  # per function; later calls are counted, not sampled
MAX_ARGS_BYTES = 16384
# Builtins that compute an integer from constants alone: a constant written through one (`ord("字")`,
# `len("....")`, `max(1 << 10, 3)`) is a constant of the code all the same (the recorder folds them;
# the mutation planner reads an expression of them, `chr` and `pow` too, as a constant).
CONSTANT_CALLS: Dict[str, Callable[..., Any]] = {"ord": ord, "len": len, "abs": abs, "int": int, "min": min,
                                                 "max": max, "round": round}
CHILD_TIMEOUT = 120


# -- the canonical encoding (replays, probes and the clean room compare through it) -------------
def canonical(value: Any) -> str:
    """Canonical JSON of a value, read through its type and public protocol, never `__eq__`."""
    return json.dumps(_jsonable(value, 0), sort_keys=True, separators=(",", ":"), allow_nan=True)


# The types `_jsonable` gives back as they are (exactly these types, not their subclasses).
_LEAVES = frozenset({int, str, bool, type(None)})


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
        if depth < 50 and set(map(type, value)) <= _LEAVES:  # (each item is itself: read at C speed)
            return list(value)
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
        text = ADDRESS.sub("0x?", canonical(result))
    except Exception as e:  # a result whose own protocol raises
        return f"unencodable result ({type(e).__name__})"
    text += "".join(f", a {kind} at ${where}" for where, kind in folded(result))
    if len(text) <= MAX_OUTCOME_CHARS:
        return text
    # a long result (a widened input's): its start and a digest of the whole, equal iff the text is
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{text[:MAX_OUTCOME_CHARS // 2]}... ({len(text):,} characters, sha256 {digest})"


# After a raise's outcome in a clean interpreter: the class claims a module and name that hold
# another class (the sandbox's `_look_alike`).
LOOK_ALIKE = " (a look-alike: not the class its module binds to that name)"


MAX_OUTCOME_CHARS = 4096
MAX_FOLDED = 5


def folded(value: Any, where: str = "", depth: int = 0) -> List[Tuple[str, str]]:
    """Where in `value` the canonical JSON writes a list for a tuple, set or frozenset, or bytes for
    a bytearray (of the builtin types), at most MAX_FOLDED of them, outermost first: `[("",
    "tuple"), ("[0]", "set")]`. A caller that appends to the list a function gave, indexes the set,
    or hashes the bytes (or asks `isinstance(x, bytes)`), fails on the other."""
    if depth > 50:
        return []
    out: List[Tuple[str, str]] = []
    if type(value) in (tuple, set, frozenset, bytearray):
        out.append((where, type(value).__name__))
    if type(value) in (list, tuple) and set(map(type, value)) <= _LEAVES:
        children: Iterable[Tuple[str, Any]] = ()  # (none of them folds, nor holds anything)
    elif type(value) in (list, tuple):
        children = ((f"{where}[{i}]", v) for i, v in enumerate(value))
    elif type(value) is dict:
        children = ((f"{where}[{k!r}]", v) for k, v in value.items())
    else:
        children = ()
    for path, child in children:
        if len(out) >= MAX_FOLDED:
            break
        out.extend(folded(child, path, depth + 1)[:MAX_FOLDED - len(out)])
    return out


ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def shown(args: Any, kwargs: Any, limit: int) -> str:
    """A short, readable rendering of a call's arguments, the same in any process (object
    addresses masked); one whose `repr` raises is still named."""
    try:
        text = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    except Exception as e:
        return f"<arguments whose repr raised {type(e).__name__}>"
    return ADDRESS.sub("0x?", text)[:limit]


# -- what the gate asks for -----------------------------------------------------------------------
@dataclass(frozen=True)
class Watch:
    """A function to sample: its file (sandbox-relative), its code's name and the lines of its
    definition (a code object whose first line falls inside, decorators included); `pure`: its
    region promises purity (the clean variants judge it), else it is compared with the base only;
    `unordered`: its region is concurrent, compared where it returns or raises from its own file,
    its lists as multisets (`in_any_order`)."""

    path: str
    name: str
    first: int
    last: int
    pure: bool = True
    unordered: bool = False


def encode_watch(watches: Iterable[Watch]) -> str:
    return json.dumps(sorted({(w.path, w.name, w.first, w.last, int(w.pure), int(w.unordered)) for w in watches}),
                      separators=(",", ":"))


def decode_watch(value: str) -> Tuple[Watch, ...]:
    try:
        raw = json.loads(value)
        for w in raw:
            if not 4 <= len(w) <= 6:
                raise ValueError(f"an entry of {len(w)} items")
        return tuple(Watch(str(w[0]), str(w[1]), int(w[2]), int(w[3]), *(bool(flag) for flag in w[4:])) for w in raw)
    except (ValueError, TypeError, IndexError) as e:
        raise ValueError(f"{ENV} is not a list of [path, name, first, last, pure, unordered]: {e}") from None


def in_any_order(value: Any) -> Any:
    """`value` with every list and tuple in it sorted by its items' canonical JSON: what a
    concurrent function returns, read apart from the order its threads happened to finish in."""
    if type(value) in (list, tuple):  # a tuple stays one (`folded`)
        return type(value)(sorted((in_any_order(v) for v in value), key=order_key))
    if type(value) is dict:
        return {k: in_any_order(v) for k, v in value.items()}
    return value


def order_key(value: Any) -> str:
    """`canonical(value)`, the same text, made without the encoder's set-up for an int or a text:
    a widened input's list of 65,536 numbers is sorted in milliseconds, not in seconds."""
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is str:
        return json.encoder.encode_basestring_ascii(value)  # what json.dumps writes for a str
    return canonical(value)


def encode_base(sources: Mapping[str, str]) -> str:
    """The `BASE_ENV` value: base64 of zlib of JSON {sandbox-relative path: the base's source}.
    ValueError when it would be over MAX_BASE_ENV_CHARS (the comparison is then not made)."""
    payload = json.dumps(dict(sorted(sources.items())), separators=(",", ":")).encode("utf-8")
    value = base64.b64encode(zlib.compress(payload, 9)).decode("ascii")
    if len(value) > MAX_BASE_ENV_CHARS:
        raise ValueError(f"the base's sources of the changed files are {len(value)} characters encoded, over "
                         f"the {MAX_BASE_ENV_CHARS} an environment variable carries here")
    return value


def decode_base(value: str) -> Dict[str, str]:
    try:
        raw = json.loads(zlib.decompress(base64.b64decode(value.encode("ascii"), validate=True)).decode("utf-8"))
        if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
            raise ValueError("not a map of paths to sources")
        return dict(raw)
    except (ValueError, TypeError, UnicodeError, zlib.error, binascii.Error) as e:
        raise ValueError(f"{BASE_ENV} is not the base's sources: {type(e).__name__}: {e}") from None


# -- widened inputs ---------------------------------------------------------------------------------
def _number(leaf: Callable[[int], Any]) -> Callable[[Any], Any]:
    def widen(value: Any) -> Any:
        return leaf(value) if type(value) is int else _UNCHANGED
    return widen


def _text(leaf: Callable[[str], str], raw: Optional[Callable[[bytes], bytes]] = None) -> Callable[[Any], Any]:
    def widen(value: Any) -> Any:
        if type(value) is str:
            return leaf(value)
        if raw is not None and type(value) is bytes:
            return raw(value)
        return _UNCHANGED
    return widen


def _repeated_to(length: int, last_changed: bool = False) -> Callable[[Any], Any]:
    """A non-empty list or tuple repeated until it holds `length` items (one that holds as many is
    left as it is); with `last_changed`, its last item then another (`_changed`): the one item past
    a cap, where every item before it is one the code has seen."""
    def widen(value: Any) -> Any:
        if type(value) in (list, tuple) and value and len(value) < length:
            times = -(-length // len(value))
            items = (list(value) * times)[:length]
            if last_changed:
                items[-1] = _changed(items[-1])
            return type(value)(items)
        return _UNCHANGED
    return widen


def _text_repeated_to(length: int) -> Callable[[Any], Any]:
    """A non-empty str or bytes repeated until it holds `length` characters (or bytes)."""
    def widen(value: Any) -> Any:
        if type(value) in (str, bytes) and value and len(value) < length:
            return (value * -(-length // len(value)))[:length]
        return _UNCHANGED
    return widen


def _changed(item: Any) -> Any:
    """An item with its integers negated, or else emptied (or else as it is)."""
    got, changed = _widen(item, _negated, 1)
    if changed:
        return got
    emptied = _emptied(item)
    return item if emptied is _UNCHANGED else emptied


def _key_dropped(last: bool) -> Callable[[Any], Any]:
    def widen(value: Any) -> Any:
        if type(value) is dict and value:
            dropped = list(value)[-1 if last else 0]
            return {k: v for k, v in value.items() if k is not dropped}
        return _UNCHANGED
    return widen


def _values_only(leaf: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`leaf`, marked to leave every dict's keys as they are (field names, in JSON text: a widening
    of every name would only make each side miss its fields alike)."""
    leaf.values_only = True  # type: ignore[attr-defined]
    return leaf


def _keys_marked(inner: bool, mark: Callable[[str], str] = lambda k: f" {k} ") -> Callable[[Any], Any]:
    """A dict with its text keys padded with spaces (or otherwise `mark`ed), and those of every dict
    inside it; with `inner`, only those inside it (a document's field names stay, the names it maps
    keep their spaces: `{"balances": {" acme ": 1000}}`). A reader that strips names reads other keys."""
    def pad(value: Any, depth: int) -> Any:
        if type(value) is dict:
            return {(mark(k) if type(k) is str and (depth or not inner) else k): pad(v, depth + 1)
                    for k, v in value.items()}
        if type(value) in (list, tuple):
            return type(value)(pad(v, depth + 1) for v in value)
        return value

    def widen(value: Any) -> Any:
        if type(value) is not dict:
            return _UNCHANGED
        got = pad(value, 0)
        return got if got != value else _UNCHANGED
    return widen


def _raw_in_json(value: Any) -> Any:
    """Nothing outside JSON text; inside it (`in_json`), each text value marked, and the mark
    written as a raw control character (`_json_widened`), which strict JSON refuses."""
    return _UNCHANGED


_raw_in_json.in_json = _values_only(_text(lambda t: t + RAW_MARK))  # type: ignore[attr-defined]


def _nulled(value: Any) -> Any:
    """A dict with every value None (JSON's null): a field present and empty."""
    if type(value) is dict and any(v is not None for v in value.values()):
        return dict.fromkeys(value)
    return _UNCHANGED


def _emptied(value: Any) -> Any:
    return type(value)() if type(value) in (list, tuple, dict, set, str, bytes) and value else _UNCHANGED


def _key_repeated(text: str) -> Any:
    """JSON text of an object with its first key written again at the end, its value emptied (or
    null): a reader that keeps a repeated key's first value reads other text than one that keeps
    the last (json's, and most readers')."""
    try:
        doc = json.loads(text)
    except ValueError:
        return _UNCHANGED
    if type(doc) is not dict or not doc:
        return _UNCHANGED
    key, value = next(iter(doc.items()))
    other = _emptied(value)
    other = (None if value is not None else 0) if other is _UNCHANGED else other
    body = json.dumps(doc, ensure_ascii=False)
    return f"{body[:-1]}, {json.dumps(key, ensure_ascii=False)}: {json.dumps(other, ensure_ascii=False)}}}"


def _followed(text: str) -> Any:
    """JSON text of an object or array with a second copy of it after it (two uploads run
    together): a reader that stops after the first document reads other text than `json`, which
    refuses the rest."""
    stripped = text.strip()
    if not stripped[:1] in ("{", "["):
        return _UNCHANGED
    try:
        json.loads(stripped)
    except ValueError:
        return _UNCHANGED
    return f"{text}\n{stripped}"


def _key_added(value: Any) -> Any:
    """A dict of text keys with one more key, its value a copy of its first's (a field the code
    does not know: one that copies every field passes it on)."""
    if type(value) is not dict or not value or not all(type(k) is str for k in value):
        return _UNCHANGED
    out = dict(value)
    out[f"{next(iter(value))}_added"] = copy.deepcopy(next(iter(value.values())))
    return out


def _dict_repeated_to(length: int) -> Callable[[Any], Any]:
    """A non-empty dict of text keys with its entries repeated (keys numbered) until it holds
    `length` of them."""
    def widen(value: Any) -> Any:
        if type(value) is not dict or not value or len(value) >= length or not all(type(k) is str for k in value):
            return _UNCHANGED
        items, out, i = list(value.items()), dict(value), 0
        while len(out) < length:
            key, item = items[i % len(items)]
            out.setdefault(f"{key}~{i}", item)
            i += 1
        return out
    return widen


def _encoded(leaf: Callable[[str], Any], raw: bytes) -> Any:
    """`leaf` on UTF-8 bytes, as text, written back as UTF-8."""
    try:
        got = leaf(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return _UNCHANGED
    return got if got is _UNCHANGED else got.encode("utf-8")


def _in_sequences(constant: int) -> Callable[[Any], Any]:
    """Every integer a list or tuple holds replaced by `constant` (a value the code names: the one
    item a sentinel test waits for)."""
    def widen(value: Any) -> Any:
        if type(value) not in (list, tuple) or not any(type(v) is int and v != constant for v in value):
            return _UNCHANGED
        return type(value)(constant if type(v) is int else v for v in value)
    return widen


def _inner(leaf: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`leaf` applied to each sequence or dict held in a list or tuple, not to the one holding
    them: records of another shape (`[("tea", 450)]` with each pair repeated, or emptied)."""
    def widen(value: Any) -> Any:
        if type(value) not in (list, tuple) or not any(type(v) in (list, tuple, dict) for v in value):
            return _UNCHANGED
        parts = [leaf(v) if type(v) in (list, tuple, dict) else _UNCHANGED for v in value]
        return type(value)(v if p is _UNCHANGED else p for v, p in zip(value, parts))
    return widen


class _Nth:
    """Negates the n-th integer met (walk order; n = -1 counts them and changes none)."""

    def __init__(self, n: int) -> None:
        self.n, self.seen = n, 0

    def __call__(self, value: Any) -> Any:
        if type(value) is not int:
            return _UNCHANGED
        self.seen += 1
        return (-value if value else -1) if self.seen - 1 == self.n else _UNCHANGED


def _full_width(text: str) -> str:
    """ASCII letters, digits and signs as their full-width forms (`acme` -> `ａｃｍｅ`): the same
    text to anyone who folds Unicode compatibility forms (NFKC), other text to anyone who does not."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


_UNCHANGED = object()
_negated = _number(lambda n: -n if n else -1)
REPEATED_TO = 300
# A list is also repeated past each constant of the code up to this many items (a cap the code
# writes as a constant, `MAX = 1 << 12`, is past what `repeated` reaches); its other repeats (the
# last item changed, a dict's entries, text) up to SHAPES_REPEATED_PAST_AT_MOST: each such call
# encodes its arguments several times, so past 2**16 only the one that shows a cap is made.
REPEATED_PAST_AT_MOST = 1 << 20
SHAPES_REPEATED_PAST_AT_MOST = 1 << 16
# Text is repeated past each constant of the code from this many characters up (a key cut to a
# column's width, `account[:64]`, and two accounts that share their first 64 characters become one).
TEXT_REPEATED_FROM = 8
ASCII_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"  # string.punctuation
# Characters no reader sees (Unicode's format characters: zero-width spaces and joiners, direction
# marks, embeddings, overrides and isolates, the word joiner, the byte order mark, the soft hyphen;
# and the letters and marks that render as nothing: the Hangul fillers, the combining grapheme
# joiner, a variation selector, the braille blank; and the spaces that are not ASCII's: the
# no-break and the ideographic space): a name with one is another name to a dict and
# the same to a person, so a reader that strips them reads another key (the seventeenth outside
# round's d39, the eighteenth's d16, d28 and d31).
INVISIBLE = ("\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069"
             "\ufeff\u115f\u1160\u3164\uffa0\u034f\ufe0f\u2800\u00a0\u3000")
# The characters that break a line or a field without being seen as one (a tab, a carriage return
# and line feed, the vertical tab and form feed, the file, group, record and unit separators, the
# next-line and line and paragraph separators `str.splitlines` breaks on), and NUL: a reader that
# replaces or splits on one (`name.replace(chr(9), " ")`, `"\r\n"` made `"\n"`) reads another
# name (a nineteenth outside round's d03 and d04).
CONTROLS = "\t\r\n\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029\x00"
LONE_SURROGATE = "\udc80"
# A tab written raw inside a JSON text's strings (where JSON asks for `\t`): a reader that reads
# them (`json.loads(text, strict=False)`) takes a document the base refused (a nineteenth round's
# d23). RAW_MARK, a private-use character, stands where it goes until the text is written.
RAW_CONTROL, RAW_MARK = "\t", "\U0010fffd"
UNSEEN = INVISIBLE + CONTROLS + LONE_SURROGATE
BOM = "\ufeff"
MAX_WIDENINGS = 128  # per call, in the order below
# (name, what it does to a value: a new value, or _UNCHANGED; containers, and JSON text, are walked).
WIDENINGS: Tuple[Tuple[str, Callable[[Any], Any]], ...] = (
    ("negated", _negated),
    ("past 2**32", _number(lambda n: n + (1 << 32) if n >= 0 else n - (1 << 32))),
    ("past 2**53", _number(lambda n: n + (1 << 53) + 1 if n >= 0 else n - (1 << 53) - 1)),
    ("past 10**30", _number(lambda n: n + 10**30 if n >= 0 else n - 10**30)),  # past a Decimal's 28 digits
    # past CPython's default recursion limit (1,000), small enough to be cheap: a recursion on it
    # raises RecursionError where a loop does not
    ("plus 1,500", _number(lambda n: n + 1500 if n >= 0 else n - 1500)),
    ("with a trailing 5", _number(lambda n: n * 10 + (5 if n >= 0 else -5))),
    ("as a fraction", _number(lambda n: n + 0.5)),  # the one that changes a type: see `kept`
    # the same number as a float (`15.0`, which JSON writes for a float too): a check widened from
    # `int` to integral reals takes what the base refused (a twentieth outside round's d07)
    ("as an integral float", _number(lambda n: float(n) if abs(n) <= 1 << 53 else _UNCHANGED)),
    ("every integer 1", _number(lambda n: 1)),
    ("every integer 0", _number(lambda n: 0)),
    ("as decimal text", _number(lambda n: f"{n}.00")),  # a number on the wire as text: `"1570.00"`
    ("as a Decimal", _number(decimal.Decimal)),  # the exact number, of another type
    # JSON's non-standard constant, which `json.loads` reads by default (a reader given
    # `parse_constant=lambda _: 0` books it as 0 where the base refused it: a nineteenth round's d14)
    ("as NaN", _number(lambda n: math.nan)),
    ("negated, as text", _number(lambda n: str(-n if n else -1))),  # `"-450"`
    ("upper-cased", _text(str.upper, bytes.upper)),
    ("with a non-ASCII letter", _text(lambda t: t + "\u00e9", lambda b: b + "\u00e9".encode("utf-8"))),
    ("in full-width letters", _text(_full_width)),
    ("padded with spaces", _values_only(_text(lambda t: f" {t} ", lambda b: b" " + b + b" "))),
    ("with its keys padded with spaces", _keys_marked(False)),
    ("with the keys inside it padded with spaces", _keys_marked(True)),
    # a name that ends in punctuation (`"Acme Inc."`): a reader that strips it reads another key
    ("with the keys inside it ending in a full stop", _keys_marked(True, lambda k: f"{k}.")),
    # a name no reader sees the end of (`"acme\t"`, `"acme\u200b"`): a reader that strips or
    # translates those characters away books two names as one (a nineteenth round's d10)
    ("with its keys ending in characters no reader sees", _keys_marked(False, lambda k: k + UNSEEN)),
    ("with the keys inside it ending in characters no reader sees", _keys_marked(True, lambda k: k + UNSEEN)),
    # and starting with a byte order mark (what a file exported with one puts before its first
    # name): a reader that strips format characters from a name's start books it as the real one
    # (a twentieth outside round's d09c and d19)
    ("with a byte order mark before it", _values_only(_text(lambda t: BOM + t, lambda b: BOM.encode("utf-8") + b))),
    ("with its keys starting with a byte order mark", _keys_marked(False, lambda k: BOM + k)),
    ("with the keys inside it starting with a byte order mark", _keys_marked(True, lambda k: BOM + k)),
    # a letter and a combining accent, which NFC (and NFKC) fold into one: `e\u0301` -> `\u00e9`
    ("with a decomposed letter",
     _values_only(_text(lambda t: t + "e\u0301", lambda b: b + "e\u0301".encode("utf-8")))),
    ("with an invalid UTF-8 byte", _text(lambda t: t, lambda b: b + b"\xff")),
    # every ASCII punctuation mark after it (`"Acme Inc."` made `"Acme Inc"`, a "/" written
    # `\u002f`: the sixteenth outside round's d04 and d25)
    ("with ASCII punctuation after it",
     _values_only(_text(lambda t: t + ASCII_PUNCTUATION, lambda b: b + ASCII_PUNCTUATION.encode("ascii")))),
    ("with invisible characters after it",
     _values_only(_text(lambda t: t + INVISIBLE, lambda b: b + INVISIBLE.encode("utf-8")))),
    ("with control characters after it",
     _values_only(_text(lambda t: t + CONTROLS, lambda b: b + CONTROLS.encode("utf-8")))),
    ("with a raw tab inside its JSON strings", _raw_in_json),
    # a lone surrogate (what JSON's `"\udc80"` and a file name's undecodable byte, read with
    # `surrogateescape`, give): a reader that encodes and drops it (`encode("utf-8", "ignore")`)
    # reads another key (the eighteenth outside round's d08); bytes cannot hold one
    ("with a lone surrogate after it", _values_only(_text(lambda t: t + LONE_SURROGATE))),
    ("with its first key repeated", _text(_key_repeated, lambda b: _encoded(_key_repeated, b))),
    ("with a second document after it", _text(_followed, lambda b: _encoded(_followed, b))),
    ("with a key added", _key_added),
    ("repeated", _repeated_to(REPEATED_TO)),
    ("with each record repeated", _inner(_repeated_to(REPEATED_TO))),
    ("with each record emptied", _inner(_emptied)),
    ("with its first key dropped", _key_dropped(False)),
    ("with its last key dropped", _key_dropped(True)),
    ("with its values null", _nulled),
    ("emptied", _emptied),
)


TYPE_CHANGING = frozenset({"as a fraction", "as an integral float", "as decimal text", "as a Decimal", "as NaN", "negated, as text"})
# Records of another shape than a function is written for: a head that assumes the shape (an honest
# `[[n, c] for n, c in lines]` for `[list(l) for l in lines]`) differs from its base there, so they
# only widen a mutant's session, where an input counts only if the head did what the base did.
BY_NAME = "every argument passed by its parameter's name at the base"
# Two calls on the same objects, the second compared: made twice in a row, made again after
# each list or dict in its arguments (or their attributes) grew by a copy of an item. A result kept
# outside the objects (a module-level cache keyed on them, the last call remembered) shows there.
TWICE = "the same call made twice in a row"
GROWN = "made again after its arguments grew"
# And made again after CHANGED_MARK was added to its first result (a list, dict or set, or each such
# value among the result's attributes): a result the base builds afresh, where the head hands every
# caller the same object (a memo, a module-level default), shows the first caller's change.
AFTER_CHANGED = "made again after its first result was changed"
CHANGED_MARK = "oracle-gate: added to the first call's result"
# A classmethod called on a subclass of its class (made in the twin, named after it): a method that
# builds its own class by name (`Store(...)` for `cls(...)`) gives a subclass's callers the parent.
ON_SUBCLASS = "called on a subclass of its class"
OTHER_SHAPES = frozenset({"with each record repeated", "with each record emptied"})


def widenings(args: Tuple[Any, ...], kwargs: Dict[str, Any], constants: Iterable[int] = (),
              kept: Iterable[Any] = (), words: Iterable[str] = (), shapes: bool = False,
              names: Optional[List[str]] = None) -> List[Tuple[str, Tuple[Any, ...], Dict[str, Any]]]:
    """The widenings of a call's arguments, each (its name, args, kwargs), at most MAX_WIDENINGS, each
    changing them and no two alike: each of WIDENINGS applied to every value of its kind (walking
    lists, tuples, dicts and their keys, sets, plain objects' attribute values, and text that holds
    JSON); the first and the last integer alone negated; each integer argument, and every integer a
    list holds, replaced by each of `constants` (integers the code itself names); every text value
    replaced by, prefixed with and suffixed with each of `words` (text the diff's code names and
    the base's did not: the one name a new branch waits for, `name.startswith("refund")`); and last
    each of WIDENINGS applied to each argument alone where it changed more than one. A widening
    that changes a value's type (TYPE_CHANGING) never touches the arguments in `kept` (positions or keywords whose type it would leave: a parameter
    annotated `int`, or not annotated, where the calls are the only word on its type). Bools are no
    integers here; nothing given is changed (an object is copied). Deterministic: the same
    arguments widen the same way in any interpreter."""
    out: List[Tuple[str, Tuple[Any, ...], Dict[str, Any]]] = []
    seen = {canonical([list(args), kwargs])}

    def add(name: str, a: Tuple[Any, ...], k: Dict[str, Any]) -> None:
        try:
            key = canonical([list(a), k])
        except Exception:
            return
        if key not in seen and len(out) < MAX_WIDENINGS:
            seen.add(key)
            out.append((name, a, k))

    # The same arguments, each passed by its parameter's name at the base (`names`, its positional
    # parameters): a caller that names them is one every signature the base had accepts.
    if names and args and len(args) <= len(names) and not set(names[:len(args)]) & set(kwargs):
        add(BY_NAME, (), {**dict(zip(names, args)), **kwargs})
    slots: List[Any] = [*range(len(args)), *kwargs]
    each: List[Tuple[str, Tuple[Any, ...], Dict[str, Any]]] = []  # one argument at a time: added last
    for name, leaf in WIDENINGS:
        if name in OTHER_SHAPES and not shapes:
            continue
        fixed = frozenset(kept) if name in TYPE_CHANGING else frozenset()
        a, k, changed = _apply(args, kwargs, leaf, skip=fixed)
        if not changed:
            continue
        add(name, a, k)
        alone = [(slot, _apply(args, kwargs, leaf, slot)) for slot in slots if slot not in fixed]
        alone = [(slot, got) for slot, got in alone if got[2]]
        each.extend((f"{name} ({_slot(slot)})", a, k) for slot, (a, k, _) in (alone if len(alone) > 1 else ()))
    count = _Nth(-1)
    _apply(args, kwargs, count)
    for name, n in (("the first integer negated", 0), ("the last integer negated", count.seen - 1)):
        if count.seen > 1:
            a, k, _ = _apply(args, kwargs, _Nth(n))
            add(name, a, k)
    for slot in slots:
        value = args[slot] if isinstance(slot, int) else kwargs[slot]
        for c in constants if type(value) is int else ():
            a, k = list(args), dict(kwargs)
            if isinstance(slot, int):
                a[slot] = c
            else:
                k[slot] = c
            add(f"{_slot(slot)} = {c}, a constant of the code", tuple(a), k)
    for c in constants:
        a, k, changed = _apply(args, kwargs, _in_sequences(c))
        if changed:
            add(f"every integer in a list = {c}, a constant of the code", a, k)
    for n in sorted({c + 1 for c in constants if REPEATED_TO <= c < REPEATED_PAST_AT_MOST}):
        shapes_too = n <= SHAPES_REPEATED_PAST_AT_MOST
        for then, last in (("", False), *([(", the last changed", True)] if shapes_too else [])):
            a, k, changed = _apply(args, kwargs, _repeated_to(n, last))
            if changed:
                add(f"every list repeated to {n:,} items{then}, past a constant of the code", a, k)
        a, k, changed = _apply(args, kwargs, _dict_repeated_to(n)) if shapes_too else (args, kwargs, False)
        if changed:
            add(f"every dict repeated to {n:,} entries, past a constant of the code", a, k)
    for n in sorted({c + 1 for c in constants if TEXT_REPEATED_FROM <= c < SHAPES_REPEATED_PAST_AT_MOST}):
        a, k, changed = _apply(args, kwargs, _text_repeated_to(n))
        if changed:
            add(f"every text repeated to {n:,} characters, past a constant of the code", a, k)
        # and the values alone: a document's field names kept, so a reader still finds its fields
        # (an id cut to `ord('@')` characters: a nineteenth round's d21)
        a, k, changed = _apply(args, kwargs, _values_only(_text_repeated_to(n)))
        if changed:
            add(f"every text value repeated to {n:,} characters, past a constant of the code", a, k)
    for word in words:
        for how, leaf in (("replaced by", lambda t, w=word: w), ("prefixed with", lambda t, w=word: w + t),
                          ("suffixed with", lambda t, w=word: t + w)):
            a, k, changed = _apply(args, kwargs, _text(leaf))
            if changed:
                add(f"every text {how} {word!r}, a constant the diff wrote", a, k)
    for name, a, k in each:
        add(name, a, k)
    return out


def _slot(slot: Any) -> str:
    return f"argument {slot + 1}" if isinstance(slot, int) else f"{slot}="


def _apply(args: Tuple[Any, ...], kwargs: Dict[str, Any], leaf: Callable[[Any], Any], only: Any = None,
           skip: AbstractSet[Any] = frozenset()) -> Tuple[Tuple[Any, ...], Dict[str, Any], bool]:
    """args and kwargs with `leaf` applied through each value (or only the one in slot `only`: a
    position or a keyword; never those in `skip`), and whether anything changed."""
    changed = False
    a = []
    for i, v in enumerate(args):
        if (only is None or only == i) and i not in skip:
            v, c = _widen(v, leaf, 0)
            changed = changed or c
        a.append(v)
    k = {}
    for name, v in kwargs.items():
        if (only is None or only == name) and name not in skip:
            v, c = _widen(v, leaf, 0)
            changed = changed or c
        k[name] = v
    return tuple(a), k, changed


def _widen(value: Any, leaf: Callable[[Any], Any], depth: int) -> Tuple[Any, bool]:
    if depth > 20:
        return value, False
    kind = type(value)
    if kind in (str, bytes):
        structured = _json_widened(value, leaf, depth)
        if structured is not None:
            return structured, True
    got = leaf(value)
    if got is not _UNCHANGED and not (type(got) is kind and got == value):
        return got, True
    if kind in (list, tuple):
        parts = [_widen(v, leaf, depth + 1) for v in value]
        if any(c for _, c in parts):
            return kind(v for v, _ in parts), True
    elif kind is dict:
        keys = not getattr(leaf, "values_only", False)
        items = [(_widen(k, leaf, depth + 1) if keys else (k, False), _widen(v, leaf, depth + 1))
                 for k, v in value.items()]
        if any(kc or vc for (_, kc), (_, vc) in items):
            try:
                return {k: v for (k, _), (v, _) in items}, True
            except TypeError:  # a widened key that cannot be one
                return value, False
    elif kind in (set, frozenset):
        parts = [_widen(v, leaf, depth + 1) for v in value]
        if any(c for _, c in parts):
            try:
                return kind(v for v, _ in parts), True
            except TypeError:
                return value, False
    elif hasattr(value, "__dict__") and not isinstance(value, type) and type(vars(value)) is dict \
            and kind.__module__ not in ("builtins", "types"):
        attrs = {k: _widen(v, leaf, depth + 1) for k, v in vars(value).items()}  # its values, never its names
        if any(c for _, c in attrs.values()):
            try:
                other = copy.copy(value)
                vars(other).update({k: v for k, (v, _) in attrs.items()})
                return other, True
            except Exception:
                return value, False
    return value, False


def _json_widened(value: Any, leaf: Callable[[Any], Any], depth: int) -> Any:
    """Text (or UTF-8 bytes) holding a JSON object or array, widened inside and written back as
    JSON; None when it holds none or nothing inside changed."""
    try:
        text = value.decode("utf-8") if isinstance(value, bytes) else value
    except UnicodeDecodeError:
        return None
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    widened, changed = _widen(parsed, getattr(leaf, "in_json", leaf), depth + 1)
    if not changed:
        return None
    try:
        out = json.dumps(widened, ensure_ascii=False)  # a non-ASCII letter stays one, as on the wire
        out = out.replace(RAW_MARK, RAW_CONTROL) if hasattr(leaf, "in_json") else out
        # (a lone surrogate, which UTF-8 cannot hold, as JSON escapes it: `\udc80`)
        return (out.encode("utf-8") if _encodable(out) else json.dumps(widened).encode("ascii")) \
            if isinstance(value, bytes) else out
    except (TypeError, ValueError):
        return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
# What a twin says of an input still running after its WIDENED_CALL_SECONDS (its first try).
OUT_OF_TIME = f"{NOT_RUN}ran out of time"
PAST_PATIENCE = f"{NOT_RUN}ran out of time, also when given {PATIENT_SECONDS:g} s"
STILL_RUNNING = f"still running after {PATIENT_SECONDS:g} s"
# A clean variant gives each call it replays VARIANT_CALL_SECONDS (a call the test made and got an
# answer from: Hypothesis' deadline is 0.2 s); one still running then (a loop that waits out a
# date, or a lock only another thread would release) did something else than under the test:
# VARIANT_STILL_RUNNING, a difference. The variant goes on with the next call; the same
# function's later calls there are not run (`OUT_OF_TIME_BEFORE`).
VARIANT_CALL_SECONDS = 10.0
VARIANT_STILL_RUNNING = f"still running after {VARIANT_CALL_SECONDS:g} s"
OUT_OF_TIME_BEFORE = f"{NOT_RUN}ran out of time or memory on an earlier call"
# What a twin says of a call or an input it was not asked to run: another seed's call, or an input
# whose outcome could not be compared anyway (plugin's `_twins`: one the head's twin did not answer).
NOT_ASKED = f"{NOT_RUN}not asked here"
# What the clean interpreter says of a call that read the process environment (os.environ or
# os.environb) while it ran: never what a call did under the test, so always a difference.
READ_ENVIRONMENT = "read the environment ("
# Under the test, an exception's type is not seen (the profile hook only sees the frame unwind).
RAISED = "raised an exception"
# Under the test, a generator's items are not seen (its caller reads them after the call): the
# recorder keeps its arguments and this; the clean interpreter reads its first GENERATED_ITEMS items
# (a list, then YIELDED), and the clean variant of the call stands for what it did under the test.
GENERATOR = "a generator"
GENERATED_ITEMS = 1000
YIELDED = ", yielded by a generator"


# What a twin adds to a call's outcome where the call kept a list, dict or set argument (not a
# copy): changing it after the call changes the call's result or another argument (a store that
# keeps its caller's dict, whose later credits change the caller's opening balances).
KEPT = ", and keeps its caller's "
# What a twin adds to a call's outcome where it returned, or (a method) was called on, an object of
# a class its own module defines: what a caller may do with such an object (hash it, as a set or a
# dict's key does; refer to it weakly; give it new attributes; find it equal to a copy of itself).
# A declaration changes those without changing a value (`@dataclass` over a hand-written
# `__init__` makes instances unhashable and equal by value; `__slots__` takes weak references and
# new attributes away): compared head against base like the rest.
OBJECT = ", and an object of its module's class it returned or was called on is "


# What a twin adds to a call's outcome where the call left the process otherwise than it found it
# (a decimal context set for every later caller, threads left running, files left in its
# directories): compared head against base like the rest.
LEFT = ", and leaves "
# What a twin adds to the first call into a module where importing the module left the process
# otherwise than it found it (the root logger's level, the decimal context, the environment, a
# standard module's name bound anew): every program that imports it shares that. Compared head
# against base like the rest. What libraries do at import as a matter of course is not read there:
# warnings filters, the import path, exit hooks, files, the levels of loggers other than the root.
IMPORTED = ", and importing its module leaves "
# What a twin adds to a call's outcome where the call wrote to standard output (file descriptor 1:
# `print`, `sys.stdout.write`, `os.write(1, ...)`, a child process's output): a program's output is
# behaviour, compared head against base like the rest (its first WRITTEN_CHARS characters). Standard
# error is not read: warnings and log records go there, and an honest patch adds those.
WROTE = ", and writes to standard output "
WRITTEN_CHARS = 300


# -- a twin's results file (sandbox/clean_interpreter.py writes it, sandbox/plugin.py reads it) ----
# One JSON line per event, written as it happens, so an interpreter that ends in the middle of a
# call (a segmentation fault, `os._exit`, a signal) loses that one input, not the twin's batch:
# `begun(call, k, shown)` before the k-th input of a call (k = -1: before the call is rebuilt, its
# module imported), `done(call, k, entry)` after it, `FINISHED` at the end. An entry is
# `twin_entry(...)`: [shown, what it did], and where it answered, the processor seconds it took,
# PATIENT or "", and the seconds it took on its lists a quarter as long (where that was timed).
# The input during which the interpreter ended did ENDED, and how (an exit status, a signal): what
# a program calling it would see, compared head against base like the rest (a head that crashes
# the interpreter where the base answered). The recorder starts the twin again after that input,
# at most TWIN_ENDS times; what a twin then leaves unrun (or all a twin that ran past its time, or
# could not start, leaves) is LOST: nothing compared it, and the agent lane does not merge on that
# (verdict's TWIN_LOST). Each call is also bounded in processor time (twice its own limit and
# CPU_BACKSTOP_SECONDS more): code no signal handler interrupts until it returns, a C loop such as
# `sum(range(10 ** 12))`, ends there as STILL_RUNNING_IN_C.
ENDED = "ended the interpreter"
TWIN_ENDS = 32
LOST = f"{NOT_RUN}lost: "
FINISHED = "finished"
CPU_BACKSTOP_SECONDS = 1.0  # past twice its own limit (a call's threads may use both of two CPUs)
STILL_RUNNING_IN_C = "still running where no signal handler runs"


def begun(call: int, k: int, shown: str) -> str:
    return json.dumps([call, k, shown])


def done(call: int, k: int, entry: List[Any]) -> str:
    return json.dumps([call, k, entry])


def twin_entry(shown: str, did: str, took: Optional[float] = None, patient: bool = False,
               quarter: Optional[float] = None) -> List[Any]:
    """One input's result: what it did (NOT_RUN and why), and where it answered, how long it took."""
    if took is None or did.startswith(NOT_RUN):
        return [shown, did]
    return [shown, did, took, PATIENT if patient else "", *([] if quarter is None else [quarter])]


def entry_patient(entry: List[Any]) -> bool:
    """Whether an input was answered only when given PATIENT_SECONDS."""
    return len(entry) > 3 and entry[3] == PATIENT


def entry_took(entry: List[Any], on_a_quarter: bool = False) -> Optional[float]:
    """The processor seconds an answered input took (on its lists a quarter as long), or None."""
    at = 4 if on_a_quarter else 2
    return float(entry[at]) if len(entry) > at else None


def ended_by(returncode: int, cpu_signal: int) -> str:
    """How an interpreter ended, as ENDED says it: its exit status, or the signal that ended it
    (`cpu_signal`, SIGPROF, where its processor time ran past its backstop)."""
    if returncode >= 0:
        return f"{ENDED} (exit status {returncode})"
    return f"{ENDED} ({STILL_RUNNING_IN_C if -returncode == cpu_signal else f'signal {-returncode}'})"


class TwinRead(NamedTuple):
    entries: Dict[int, List[List[Any]]]  # call -> its entries, by position
    finished: bool
    ended_in: Optional[int]  # the call whose input the interpreter ended in, where `ended` said it did
    resume: Optional[Tuple[int, int]]  # then where to start again: (call, input)


def read_twin(lines: Iterable[str], ended: Optional[str]) -> TwinRead:
    """A twin's results file: each call's entries, whether it finished, and, where `ended` says how
    its interpreter ended before that, the input it ended in (its entry: `ended`) and where to start
    again: the input after it, or the next call where it ended rebuilding one."""
    entries: Dict[int, List[List[Any]]] = {}
    last: Optional[Tuple[int, int, str]] = None  # the input begun and not done
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:  # a line the end cut short
            break
        if event == FINISHED:
            return TwinRead(entries, True, None, None)
        call, k, item = event
        entries.setdefault(call, [])
        if isinstance(item, str):
            last = (call, k, item)
        else:
            entries[call].append(item)
            last = None
    if ended is None or last is None:
        return TwinRead(entries, False, None, None)
    call, k, shown = last
    if k >= 0 or not entries[call]:  # (rebuilding a call it had run inputs of: those after are lost)
        entries[call].append([shown, ended])
    return TwinRead(entries, False, call, (call + 1, 0) if k < 0 else (call, k + 1))


def outlasted(did: str, did_patient: bool, then: str, then_patient: bool) -> Optional[Tuple[str, str]]:
    """The head's and the base's outcomes of one input as compared where one side answered within
    WIDENED_CALL_SECONDS and the other had not answered after PATIENT_SECONDS: a head still running
    where the base answered at once (a loop made quadratic), or a head that raises at once where the
    base still works (a new cap on an input the base takes: it refuses what the base did not).
    A head that returns at once where the base still runs is faster, not different; so is one that
    gives up at once for want of room (`out_of_room`: a list of 10**30 items the base was still
    building one by one): None, as wherever no side ran out of that time."""
    if did == PAST_PATIENCE and not then.startswith(NOT_RUN) and not then_patient:
        return STILL_RUNNING, then
    if then == PAST_PATIENCE and did.startswith("raised ") and not out_of_room(did) and not did_patient:
        return did, STILL_RUNNING
    return None


# What a twin adds to an OverflowError raised on arguments that hold an integer past sys.maxsize:
# no list, string or range can be that long, so a base still running there could never answer
# either (a cap the head raises as OverflowError on a size a list can have is still a difference).
PAST_INDEX = " (an integer in its arguments is past sys.maxsize)"


def out_of_room(did: str) -> bool:
    """Whether an outcome is an OverflowError raised on a size no list can have (PAST_INDEX)."""
    return did.startswith("raised builtins.OverflowError") and PAST_INDEX in did


def past_index(value: Any, depth: int = 0) -> bool:
    """Whether `value` holds (in its lists, tuples, sets and dicts, to some depth) an integer whose
    magnitude is past sys.maxsize."""
    if type(value) is int:
        return abs(value) > sys.maxsize
    if depth > 20:
        return False
    if type(value) is dict:
        value = [*value.keys(), *value.values()]
    return type(value) in (list, tuple, set, frozenset) and \
        any(past_index(v, depth + 1) for v in itertools.islice(value, 4096))


def scaled(args: Tuple[Any, ...], kwargs: Dict[str, Any],
           items: int = SCALED_ITEMS) -> Optional[Tuple[Tuple[Any, ...], Dict[str, Any]]]:
    """The call's arguments with every non-empty list or tuple in them repeated to `items` items,
    or where they hold none, every dict of text keys to as many entries (not both: a dict's entries
    repeated would each hold a list as long); None where they hold neither."""
    a, k, changed = _apply(args, kwargs, _repeated_to(items))
    if not changed:
        a, k, changed = _apply(args, kwargs, _dict_repeated_to(items))
    return (a, k) if changed else None


def slower(head_seconds: Optional[float], head_on_a_quarter: Optional[float], base_seconds: Optional[float]) -> str:
    """What a head's outcome says where, on an input both answered alike, it took SLOWER_FACTOR
    times the base's processor time, at least SLOWER_SECONDS, and GROWTH times its own on the
    input a quarter as long; "" elsewhere."""
    if head_seconds is None or base_seconds is None or head_on_a_quarter is None or head_seconds < SLOWER_SECONDS \
            or head_seconds < SLOWER_FACTOR * max(base_seconds, 0.001) \
            or head_seconds < GROWTH * max(head_on_a_quarter, 0.001):
        return ""
    return (f", taking {head_seconds:.2f} s of processor time where the base takes {base_seconds:.3f} s "
            f"(and {head_on_a_quarter:.3f} s on a quarter as many items)")


def same(expected: str, got: str) -> bool:
    """Whether a clean variant did what the call did under the test (a variant that could not
    run says nothing either way); in a twin, whether the base's code did what the head's did,
    where a head that copies what the base kept (`KEPT`) does."""
    if got.startswith(NOT_RUN) or got == expected:
        return True
    if KEPT in got and KEPT not in expected and got.split(KEPT, 1)[0] == expected:
        return True
    return expected == RAISED and got.startswith("raised ")


# Where the head's code does not do the same on one input twice (a fresh id, the time, a set's
# order in a region that promises no purity), the tokens of its outcome that differ from run to run
# are masked, in its outcome and in the base's alike, and the rest is compared: code made to answer
# differently each time is still compared everywhere else (a credit that now raises `KeyError`,
# leaving a random transaction id behind, is not hidden by the id).
UNSTABLE = "<differs from run to run>"
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s\[\]{},:"]+|\s+|.', re.S)


def unstable_positions(outcomes: Iterable[str]) -> Optional[Tuple[int, FrozenSet[Tuple[int, str]]]]:
    """How many tokens the head's outcomes of one input have, and the positions at which they
    differ, each with the kind of value its tokens share there (`_kind`; "" where they do not);
    None where they do not line up (other shapes: a raise beside a return, lists of other
    lengths), which is not compared."""
    runs = [_TOKEN.findall(o) for o in outcomes]
    if len({len(r) for r in runs}) != 1:
        return None
    return len(runs[0]), frozenset((i, kinds.pop() if len(kinds) == 1 else "")
                                   for i, group in enumerate(zip(*runs)) if len(set(group)) > 1
                                   for kinds in [{_kind(t) for t in group}])


STABLE: Tuple[int, FrozenSet[Tuple[int, str]]] = (0, frozenset())
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def _kind(token: str) -> str:
    """What kind of JSON value a token is: text (empty or not), a number, or the token itself."""
    if token.startswith('"'):
        return "text" if len(token) > 2 else "empty text"
    return "number" if _NUMBER.match(token) else token


def masked(outcome: str, unstable: Tuple[int, FrozenSet[Tuple[int, str]]]) -> str:
    """`outcome` with its tokens at the unstable positions replaced by UNSTABLE, where it lines up
    with the head's (as many tokens) and its token there is of the kind the head's runs share (a
    fresh id where the base gave an empty one, `""`, is kept: the head made it differ); as it is
    otherwise (another shape differs anyway)."""
    count, positions = unstable
    if not positions or outcome.startswith(NOT_RUN):
        return outcome
    tokens = _TOKEN.findall(outcome)
    if len(tokens) != count:
        return outcome
    for i, kind in positions:
        if not kind or _kind(tokens[i]) == kind:
            tokens[i] = UNSTABLE
    return "".join(tokens)


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
