"""The clean interpreter's program (core/protocol/cleanroom.py says what the clean room is).

The recorder copies this file as `main.py`, and core/protocol/cleanroom.py as `cleanroom_protocol.py`,
to a directory outside the test's sandbox and runs `python -s -B main.py spec.json out.json` there with
a minimal environment: it moves the clocks, refuses to import a test runner, puts the test's
sys.path in place, rebuilds each sampled call from its pickled arguments, calls it (twice, with the
first result mutated in between, when the spec says `again`) and writes what each call did.
"""
from __future__ import annotations

import base64
import copy
import importlib
import importlib.machinery
import inspect
import itertools
import json
import operator
import os
import pickle
import pwd
import resource
import signal
import sys
import time
import types
import weakref
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

try:
    from ..core.protocol.cleanroom import (CPU_BACKSTOP_SECONDS, FINISHED, begun, done, twin_entry,
                                           GENERATED_ITEMS, GROWN, IMPORTED, KEPT, LATER_LINESEP, LATER_PLATFORM,
                                           LATER_PLATFORM_CALLS, LATER_RELEASE, LATER_VERSION, LATER_SYSTEM, LEFT,
                                           NOT_RUN, ON_SUBCLASS, OTHER_WORLD_PID, PAST_PATIENCE,
                                           PATIENT_SECONDS, PATIENT_TRIES, READ_ENVIRONMENT, SCALED,
                                           SCALED_ITEMS, TWICE, WIDENED_CALL_SECONDS, WIDENED_MEMORY_BYTES,
                                           CACHED, GROWTH, SLOWER_SECONDS, TIMED_RUNS, PAST_INDEX, past_index,
                                           OUT_OF_TIME, OUT_OF_TIME_BEFORE, VARIANT_CALL_SECONDS, VARIANT_STILL_RUNNING,
                                           AFTER_CHANGED, CHANGED_MARK, NOT_ASKED, OBJECT, LOOK_ALIKE,
                                           WRITTEN_CHARS, WROTE, YIELDED,
                                           canonical, later_moment, in_any_order, outcome_of, scaled, shown, widenings)
    from .jail import CLONE_NEWNS, CLONE_NEWPID, MS_BIND, MS_PRIVATE, MS_RDONLY, MS_REC, MS_REMOUNT, die_with_parent, mount, unshare
except ImportError:  # run as the clean interpreter's script, beside copies of the protocol and the jail
    from cleanroom_protocol import (KEPT, LATER_LINESEP, NOT_RUN, OTHER_WORLD_PID, READ_ENVIRONMENT,  # type: ignore[no-redef]  # pants: no-infer-dep
                                    GENERATED_ITEMS, GROWN, IMPORTED, LEFT, ON_SUBCLASS, TWICE, YIELDED,  # pants: no-infer-dep
                                    WRITTEN_CHARS, WROTE, LATER_PLATFORM, LATER_SYSTEM,  # pants: no-infer-dep
                                    LATER_PLATFORM_CALLS, LATER_RELEASE, LATER_VERSION,  # pants: no-infer-dep
                                    PAST_PATIENCE, PATIENT_SECONDS, PATIENT_TRIES, SCALED, SCALED_ITEMS, scaled,  # pants: no-infer-dep
                                    WIDENED_CALL_SECONDS, CPU_BACKSTOP_SECONDS, FINISHED, begun, done, twin_entry,  # pants: no-infer-dep
                                    WIDENED_MEMORY_BYTES, canonical, in_any_order, outcome_of, shown,  # pants: no-infer-dep
                                    OUT_OF_TIME, OUT_OF_TIME_BEFORE, VARIANT_CALL_SECONDS, VARIANT_STILL_RUNNING,  # pants: no-infer-dep
                                    CACHED, GROWTH, SLOWER_SECONDS, TIMED_RUNS, PAST_INDEX, past_index,  # pants: no-infer-dep
                                    AFTER_CHANGED, CHANGED_MARK, NOT_ASKED, OBJECT, LOOK_ALIKE,  # pants: no-infer-dep
                                    later_moment, widenings)  # pants: no-infer-dep
    from cleanroom_jail import (CLONE_NEWNS, CLONE_NEWPID, MS_BIND, MS_PRIVATE, MS_RDONLY, MS_REC,  # type: ignore[no-redef]  # pants: no-infer-dep
                                MS_REMOUNT, die_with_parent, mount, unshare)  # pants: no-infer-dep


def _waited(pid: int) -> int:
    """Wait for `pid` and return an exit code that says how it ended."""
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def _writable_home(home: str) -> None:
    """The home directory itself writable (a tmpfs over it), everything in it as it was (each entry
    bound back from the original, read-only where it was): writing a new file there works, the jail's
    read-only files stay read-only, and an interpreter installed under the home still starts."""
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    entries = sorted(os.listdir(fd))
    mount("tmpfs", home, "tmpfs", 0, "mode=0755")
    for name in entries:
        source, target = f"/proc/self/fd/{fd}/{name}", os.path.join(home, name)
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
            continue
        if os.path.isdir(source):
            os.mkdir(target)
        else:
            open(target, "w").close()
        mount(source, target, None, MS_BIND | MS_REC)
        if os.statvfs(source).f_flag & os.ST_RDONLY:
            mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
    os.close(fd)


def other_world() -> Optional[str]:
    """Leave the world the test's jail fixes: this process continues as a process whose ID, and its
    parent's, is above OTHER_WORLD_PID (in a PID namespace of its own) with a writable, empty home directory (a tmpfs
    over the user's home, in a mount namespace of its own). Returns why it could not (the variant
    then says it did not run); its ancestors only wait and pass its exit code on."""
    try:
        unshare(CLONE_NEWNS | CLONE_NEWPID)
    except OSError as e:
        return f"namespaces are unavailable here ({e})"
    pid = os.fork()
    if pid:  # outside the new PID namespace: wait for it
        os._exit(_waited(pid))
    # PID 1 of the new namespace: its own /proc, the next PID set high, then the caller goes on as its child.
    die_with_parent()
    try:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        mount("proc", "/proc", "proc", 0)
        with open("/proc/sys/kernel/pid_max") as f:
            high = min(OTHER_WORLD_PID, int(f.read()) - 1000)  # a host with a smaller pid_max: as high as it goes
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(high))
        home = pwd.getpwuid(os.getuid()).pw_dir
        if os.path.isdir(home):
            _writable_home(home)
    except (OSError, KeyError, ValueError) as e:
        return f"the other world could not be set up ({e})"
    # Two more generations, so the caller's parent has a high PID too (getppid() tells as much as getpid()).
    for _ in range(2):
        child = os.fork()
        if child:
            os._exit(_waited(child))
        die_with_parent()
    return None

def _other_machine(own: str) -> None:
    """The later world's machine (cleanroom.LATER_MACHINE; `-O` is the caller's flag), before any
    code under judgement is imported: one CPU to run on, and `os.cpu_count()` saying so; Windows'
    line separator; and to the code's own files (under `own`), Windows' platform names
    (cleanroom.LATER_PLATFORM and LATER_PLATFORM_CALLS, `platform.uname()`, `os.uname()`)."""
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError, ValueError):
        pass
    os.cpu_count = lambda: 1  # type: ignore[assignment]
    os.linesep = LATER_LINESEP
    if not own:
        return
    import platform

    is_own = _OwnCode(own)
    for module_name, attribute, value in LATER_PLATFORM:
        module = sys.modules[module_name]
        module.__class__ = _seen_by_own_code(module, attribute, value, is_own)
    for module_name, attribute, value in LATER_PLATFORM_CALLS:
        _told_to_own_code(importlib.import_module(module_name), attribute, lambda _, value=value: value, is_own)
    # (`platform.uname().system`, the sixteenth outside round's d05b, and os.uname()'s sysname)
    _told_to_own_code(platform, "uname", lambda real: real()._replace(
        system=LATER_SYSTEM, release=LATER_RELEASE, version=LATER_VERSION), is_own)
    _told_to_own_code(os, "uname", lambda real: os.uname_result(  # type: ignore[attr-defined]
        (LATER_SYSTEM, *real()[1:2], LATER_RELEASE, LATER_VERSION, *real()[4:])), is_own)


def _told_to_own_code(module: types.ModuleType, name: str, told: Callable[[Callable[[], Any]], Any],
                      is_own: Any) -> None:
    """`module.name()` answers `told(the real function)` where the code's own files call it, and
    as before anywhere else."""
    real = getattr(module, name)
    setattr(module, name, lambda *args, **kwargs: told(real) if is_own(sys._getframe(1)) else real(*args, **kwargs))


class _OwnCode:
    """Whether a frame runs the code's own files: under `own` (the repository's root), not an
    installed package's (cached per code object)."""

    def __init__(self, own: str) -> None:
        self.roots = tuple({os.path.join(own, ""), os.path.join(os.path.realpath(own), "")})
        self.known: Dict[Any, bool] = {}

    def __call__(self, frame: Any) -> bool:
        code = frame.f_code
        if code not in self.known:
            name = code.co_filename
            self.known[code] = name.startswith(self.roots) and not any(
                part in name for part in ("site-packages", "dist-packages"))
        return self.known[code]


def _seen_by_own_code(module: types.ModuleType, attribute: str, value: str, is_own: Any) -> type:
    """A module type whose `attribute` reads `value` from the code's own files and the module's own
    value from anywhere else (assigning it works as before)."""
    def read(self: types.ModuleType) -> Any:
        return value if is_own(sys._getframe(1)) else self.__dict__[attribute]

    def write(self: types.ModuleType, new: Any) -> None:
        self.__dict__[attribute] = new

    return type(f"{module.__name__}_on_the_later_machine", (type(module),), {attribute: property(read, write)})


_SHIFT = [0.0]  # seconds the clocks that tell the date are moved by (`_move_clock`, `_clock_at`)
_REAL_TIME = time.time


def _clock_at(moment: int) -> None:
    """The moved clocks read `moment` now (the later world's twin, at the start of each input):
    to the microsecond, not a second before it."""
    _SHIFT[0] = moment - _REAL_TIME()


def _move_clock(offset: float) -> None:
    """Move the Python-level clocks by `offset` seconds before any code under judgement imports them
    (by what `_SHIFT` says when they are read: `_clock_at` moves them again)."""
    if not offset:
        return
    _SHIFT[0] = offset
    import datetime as dt

    real_time, real_ns = time.time, time.time_ns
    time.time = lambda: real_time() + _SHIFT[0]  # type: ignore[assignment]
    time.time_ns = lambda: real_ns() + int(_SHIFT[0] * 1_000_000_000)  # type: ignore[assignment]
    for name in ("localtime", "gmtime", "ctime"):
        real = getattr(time, name)
        setattr(time, name, (lambda real: lambda secs=None: real(time.time() if secs is None else secs))(real))
    real_clock, real_clock_ns = time.clock_gettime, time.clock_gettime_ns
    # Every clock that tells the date moves (realtime, its coarse reading, TAI). The clocks that
    # count from boot tell no date but how long the machine has been up: they read `offset` more,
    # once (a duration measured on them is what it was; code that waits for an uptime, as the
    # sixteenth outside round's d06 waits for 30 days, meets it). The process's own clocks stay.
    dated = {time.CLOCK_REALTIME, getattr(time, "CLOCK_TAI", 11), 5}  # 5: CLOCK_REALTIME_COARSE
    booted = {time.CLOCK_MONOTONIC, getattr(time, "CLOCK_MONOTONIC_RAW", 4), getattr(time, "CLOCK_BOOTTIME", 7),
              6}  # 6: CLOCK_MONOTONIC_COARSE
    up, up_ns = offset, int(offset * 1_000_000_000)
    for name, shift in (("monotonic", up), ("perf_counter", up), ("monotonic_ns", up_ns), ("perf_counter_ns", up_ns)):
        setattr(time, name, (lambda real, shift: lambda: real() + shift)(getattr(time, name), shift))

    def clock_gettime(clock: int) -> float:
        return real_clock(clock) + (_SHIFT[0] if clock in dated else up if clock in booted else 0)

    def clock_gettime_ns(clock: int) -> int:
        return real_clock_ns(clock) + (int(_SHIFT[0] * 1_000_000_000) if clock in dated else up_ns if clock in booted else 0)

    time.clock_gettime, time.clock_gettime_ns = clock_gettime, clock_gettime_ns  # type: ignore[assignment]
    real_strftime = time.strftime
    time.strftime = lambda fmt, t=None: real_strftime(fmt, time.localtime() if t is None else t)  # type: ignore

    class date(dt.date):
        __slots__ = ()

        @classmethod
        def today(cls):  # type: ignore[override]
            return cls.fromtimestamp(time.time())

    class datetime(dt.datetime):
        __slots__ = ()

        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return cls.fromtimestamp(time.time(), tz)

        @classmethod
        def utcnow(cls):  # type: ignore[override]
            return cls.utcfromtimestamp(time.time())

        @classmethod
        def today(cls):  # type: ignore[override]
            return cls.fromtimestamp(time.time())

    for cls in (date, datetime):
        cls.__module__ = "datetime"
    dt.date, dt.datetime = date, datetime  # type: ignore[misc]


def _resolve(module: str, chain: Sequence[str]) -> Any:
    obj: Any = importlib.import_module(module)
    for i, part in enumerate(chain):
        obj = vars(obj)[part] if i else getattr(obj, part)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
    return obj


def _classmethod_of(module: str, chain: Sequence[str], args: Sequence[Any]) -> Optional[type]:
    """The class whose classmethod `chain` names, where the call passes that class (cleanroom.ON_SUBCLASS)."""
    owner = _resolve(module, chain[:-1]) if len(chain) > 1 else None
    if not isinstance(owner, type) or not isinstance(vars(owner).get(chain[-1]), classmethod):
        return None
    return owner if args and args[0] is owner else None


def _mutate(value: Any, marker: Any) -> bool:
    """Adds `marker` to a list, dict (as key and value), set or bytearray (a 0 byte); False for
    anything else."""
    if isinstance(value, list):
        value.append(marker)
    elif isinstance(value, dict):
        value[marker] = marker
    elif isinstance(value, set):
        value.add(marker)
    elif isinstance(value, bytearray):
        value.append(0)
    else:
        return False
    return True


def _objects_made(result: Any, args: Any, call: Dict[str, Any]) -> str:
    """What a caller may do with the objects of a class the called function's module defines that
    the call returned or (a method) was called on (cleanroom.OBJECT); "" where there are none."""
    said = []
    for value in (result, *(args[:1] if len(call["chain"]) > 1 else ())):
        if type(value).__module__ != call["module"]:
            continue
        can = []
        for yes, no, act in (("hashable", "unhashable", hash), ("weakly referable", "not weakly referable", weakref.ref),
                             ("open to new attributes", "closed to new attributes", lambda v: v.__dict__),
                             ("equal to a copy", "unequal to a copy", lambda v: copy.copy(v) == v)):
            try:
                can.append(yes if act(value) is not False else no)
            except Exception:
                can.append(no)
        said.append(", ".join(can))
    return "; ".join(dict.fromkeys(said))


def _changed(value: Any) -> bool:
    """Adds CHANGED_MARK (`_mutate`) to `value`, or else to each value among its attributes; whether
    it added it anywhere."""
    if _mutate(value, CHANGED_MARK):
        return True
    attributes = getattr(value, "__dict__", None)
    return any([_mutate(v, CHANGED_MARK) for v in list(attributes.values())]) if isinstance(attributes, dict) else False


RUNNERS = ("pytest", "_pytest", "hypothesis", "_hypothesis_pytestplugin", "pluggy", "py")


class _Environ(type(os.environ)):  # type: ignore[misc]
    """os.environ (and os.environb), noting the names read while a sampled call runs: a pure
    function's result depends on its arguments only, and the environment is no argument (a value
    keyed on a variable neither the test nor the clean room sets looks the same in both)."""

    reads: List[str] = []
    watching = False

    def _note(self, key: Any) -> None:
        if _Environ.watching:
            _Environ.reads.append(key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key))

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return super().__getitem__(key)

    def __contains__(self, key: Any) -> bool:
        self._note(key)
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self._note("*")
        return super().__iter__()

    def __len__(self) -> int:
        self._note("*")
        return super().__len__()


def _watch_environment() -> None:
    for mapping in (os.environ, getattr(os, "environb", None)):
        if mapping is not None and type(mapping) is type(os.environ):
            mapping.__class__ = _Environ


def _read_environment(call: Any) -> Any:
    """Call `call()` noting environment reads; (result, raised, the names read)."""
    _Environ.reads, _Environ.watching = [], True
    try:
        result, raised = call(), None
    except BaseException as e:
        result, raised = None, e
    finally:
        _Environ.watching = False
    return result, raised, sorted(set(_Environ.reads))


class _NoRunners:
    """Refuses to import a test runner: arguments whose pickle needs a test module (which imports
    pytest) cannot be rebuilt here, rather than bring the runner into the clean interpreter."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name.split(".")[0] in RUNNERS:
            raise ImportError(f"{name} is not importable in the clean room")
        return None


class _BaseCode:
    """First on sys.meta_path in the base's twin interpreter: a module whose file the diff changed
    is loaded from the base's source under the same file name; every other import resolves as in
    the head's twin."""

    def __init__(self, sources: Dict[str, str]) -> None:
        self.sources = {os.path.realpath(p): text for p, text in sources.items()}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        origin = getattr(spec, "origin", None)
        if origin and spec.loader is not None and os.path.realpath(origin) in self.sources:
            spec.loader = _BaseLoader(fullname, origin, self.sources[os.path.realpath(origin)])
        return spec


class _BaseLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self.source = source

    def get_code(self, fullname: str) -> Any:
        return compile(self.source, self.path, "exec", dont_inherit=True)


class _TimedOut(BaseException):
    pass


# Whether a call's time is running (`_timed`, `_variant_call`): the alarm raises only then, and once.
# One that went off as the call ended, after its clocks were stopped but before its handler ran,
# must not end the interpreter in whatever code runs next (an escaped _TimedOut ended a twin with
# exit status 1 on an input timed near its limit under load: the seventeenth outside round's d42b).
_ARMED = [False]


def _alarm(signum: int, frame: Any) -> None:
    if _ARMED[0]:
        _ARMED[0] = False
        raise _TimedOut()


# What a twin interpreter says of a call it cannot compare (never a difference).
# A RecursionError is compared: CPython's recursion limit is the same for both (a recursion on a
# number, `split(7, 1503)`, fails where the loop it replaced did not).
UNCOMPARABLE = (MemoryError, ImportError, _TimedOut)
# A concurrent region is compared where a call returns, or raises from its own file: what a library
# raises depends on the machine's thread limits and the pool it uses (a pool refuses 0 workers where a
# loop of threads did nothing); what the code raises itself is its own (a cap on the items it takes).
CONCURRENT_RAISED = " (a concurrent region is compared where it returns or raises from its own file)"


def _look_alike(kind: type) -> bool:
    """Whether a class claims a module and name that hold another class (`type("ValueError",
    (ArithmeticError,), {"__module__": "builtins"})`: a caller's `except ValueError` misses it). Read
    through the namespaces alone (no attribute lookup runs code); a name that holds nothing there
    (a class made in a function) is no claim."""
    where: Any = sys.modules.get(str(getattr(kind, "__module__", "")))
    for part in str(getattr(kind, "__qualname__", "")).split("."):
        try:
            where = vars(where).get(part) if where is not None else None
        except TypeError:  # (an object without a namespace)
            return False
    return where is not None and where is not kind


def _outcome(result: Any, raised: Optional[BaseException]) -> str:
    """`outcome_of`, and where it raised a look-alike (`_look_alike`), LOOK_ALIKE."""
    return outcome_of(result, raised) + (LOOK_ALIKE if raised is not None and _look_alike(type(raised)) else "")


def _raised_by_own_code(raised: BaseException, fn: Any) -> bool:
    """Whether the innermost frame `raised` went through is in the file `fn` is defined in."""
    code = getattr(inspect.unwrap(getattr(fn, "__func__", fn)), "__code__", None)
    tb = raised.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return code is not None and tb is not None and tb.tb_frame.f_code.co_filename == code.co_filename


def _twin(spec: Dict[str, Any], emit: Callable[[str], None]) -> None:
    """Each call as recorded, then each of its widenings (and, in a patient twin, last, its SCALED
    input), each `emit`ted as it begins and as it ends (cleanroom.begun, cleanroom.done: an
    interpreter that ends in the middle of an input loses that input only), from the input
    `spec["resume"]` names on. A widening that ran out of time or memory for a function is not
    tried on its later calls."""
    signal.signal(signal.SIGALRM, _alarm)

    def at(k: int) -> None:
        if spec.get("later"):  # the later world's clocks read the k-th input's moment as it starts
            _clock_at(later_moment(k)[0])

    output = _StandardOutput()
    # inputs another twin's answers already leave uncompared (cleanroom.NOT_ASKED), and those not
    # given PATIENT_SECONDS: (call, input) -> how the input is shown, checked before it is skipped
    unasked = {(i, k): text for i, k, text in spec.get("unasked", ())}
    impatient = {(i, k): text for i, k, text in spec.get("impatient", ())}
    spent: Dict[Any, List[str]] = {}  # function -> the widenings that ran out of time or memory
    patience: Dict[Any, int] = {}  # function -> the calls it may still run for PATIENT_SECONDS
    from_call, from_input = spec.get("resume") or (0, 0)
    for i, call in enumerate(spec["calls"]):
        if i < from_call:
            continue
        first = from_input if i == from_call else 0  # the first input of this call to run here
        if call.get("skip"):  # a call this twin is not asked about (another seed's, for a pure region only)
            emit(done(i, 0, twin_entry("", NOT_ASKED)))
            continue
        emit(begun(i, -1, ""))
        at(0)  # for its imports and what `_kept` calls
        blob = base64.b64decode(call["args"])
        gave_up_key = (call["module"], tuple(call["chain"]))
        gave_up = spent.setdefault(gave_up_key, [])
        imported = ""
        try:
            before_import = _import_state() if call["module"] not in sys.modules else None
            fn = _resolve(call["module"], call["chain"])
            if before_import is not None:
                imported = "; ".join(_left(before_import, _import_state()))[:300]
            constants = [int(c) for c in call.get("constants", ())]
            words = [str(w) for w in call.get("words", ())]
            args, kwargs = pickle.loads(blob)
            owner = _classmethod_of(call["module"], call["chain"], args)
            inputs = [("", blob), (TWICE, blob), (GROWN, blob), (AFTER_CHANGED, blob),
                      *([(ON_SUBCLASS, blob)] if owner else []),
                      *((name, pickle.dumps((a, k), protocol=4)) for name, a, k in
                        widenings(args, kwargs, constants, _kept(fn, args, kwargs), words, bool(spec.get("shapes")),
                                  call.get("names")))]
        except BaseException as e:
            emit(done(i, 0, twin_entry("", f"{NOT_RUN}cannot rebuild the call ({type(e).__name__}: {str(e)[:200]})")))
            continue
        _limit_memory()  # after the imports a call needs: what the calls may take beyond them

        def run(k: int, name: str, data: bytes, said: str, quarter: Optional[Tuple[bytes, float]] = None) -> str:
            """The k-th input's run (once more for PATIENT_SECONDS where it may have them), shown as
            `said`, emitted; with `quarter` (its lists a quarter as long and the seconds they took),
            timed again where it grew (`_least`). Returns what it did."""
            if name in gave_up:
                emit(done(i, k, twin_entry(said, OUT_OF_TIME_BEFORE)))
                return NOT_RUN
            at(k)
            did, took, spent_all = _attempt(fn, name, data, owner, call, imported, output, WIDENED_CALL_SECONDS)
            patient = False
            timed = name.startswith(SCALED)  # (the input that is timed always has the time it may need)
            if did == OUT_OF_TIME and spec.get("patient") and (timed or patience.get(gave_up_key, PATIENT_TRIES) > 0) \
                    and (timed or impatient.get((i, k)) != said):
                if not timed:
                    patience[gave_up_key] = patience.get(gave_up_key, PATIENT_TRIES) - 1
                at(k)
                did, took, spent_all = _attempt(fn, name, data, owner, call, imported, output, PATIENT_SECONDS)
                did, patient = (PAST_PATIENCE, False) if did == OUT_OF_TIME else (did, True)
            if spent_all:
                gave_up.append(name)
            on_a_quarter = None if quarter is None else quarter[1]
            if on_a_quarter is not None and not did.startswith(NOT_RUN) and took >= SLOWER_SECONDS \
                    and took >= GROWTH * max(on_a_quarter, 0.001):
                took, on_a_quarter = _least(
                    lambda again: (at(k), _attempt(fn, name, again, owner, call, imported, output, PATIENT_SECONDS))[1],
                    (data, took), quarter)
            emit(done(i, k, twin_entry(said, did, took, patient, on_a_quarter)))
            return did

        answered = []  # (how long its answer was, where it was, name, data): what SCALED grows
        for k, (name, data) in enumerate(inputs):
            if k < first:
                continue
            said = _said(name, call["name"], *_rebuilt(name, data, owner))
            emit(begun(i, k, said))
            if unasked.get((i, k)) == said:
                emit(done(i, k, twin_entry(said, NOT_ASKED)))
                continue
            did = run(k, name, data, said)
            if name not in (TWICE, GROWN, AFTER_CHANGED, ON_SUBCLASS) and not did.startswith(NOT_RUN):
                answered.append((-len(did), len(answered), name, data))
        k = len(inputs)  # the SCALED input comes last
        for _, _, name, data in sorted(answered) if spec.get("patient") and k >= first else ():
            try:
                loaded = pickle.loads(data)
                grown = scaled(*loaded)  # the longest answer whose lists are shorter than SCALED_ITEMS
            except Exception as e:  # not a verdict on the code: this input is not timed
                emit(done(i, k, twin_entry(SCALED, f"{NOT_RUN}cannot grow the input ({type(e).__name__}: {str(e)[:200]})")))
                break
            if grown is None:
                continue
            name = f"{SCALED} (from {name or 'the call as made'})"
            said = _said(name, call["name"], *grown)
            emit(begun(i, k, said))
            # last, after the calls that import what a function imports when first called; timed
            # on a quarter as many items too, where its lists are shorter than that
            quarter = scaled(*loaded, SCALED_ITEMS // 4)
            quartered = pickle.dumps(quarter, protocol=4)
            at(k)
            small = _attempt(fn, name, quartered, owner, call, imported, output,
                             PATIENT_SECONDS) if quarter is not None else (NOT_RUN, 0.0, False)
            run(k, name, pickle.dumps(grown, protocol=4), said,
                None if small[0].startswith(NOT_RUN) else (quartered, small[1]))
            break


def _least(attempt: Callable[[bytes], Tuple[str, float, bool]], *timed: Tuple[bytes, float]) -> List[float]:
    """The processor seconds of each of `timed` (an input and what its first run took), each run
    TIMED_RUNS times in all, by turns: the least of its runs that answered, or its first where a
    repeat took less than a CACHED-th of it (a cache answered)."""
    again: List[List[float]] = [[] for _ in timed]
    for _ in range(TIMED_RUNS - 1):
        for runs, (data, _) in zip(again, timed):
            did, took, _ = attempt(data)
            if not did.startswith(NOT_RUN):
                runs.append(took)
    return [first if any(took * CACHED < first for took in runs) else min([first, *runs])
            for runs, (_, first) in zip(again, timed)]


def _said(name: str, function: str, args: Any, kwargs: Any) -> str:
    """How a widening is shown ("" for the call as recorded)."""
    return f"{name}: {function}({shown(args, kwargs, 200)})" if name else ""


def _rebuilt(name: str, data: bytes, owner: Any) -> Any:
    """The arguments afresh (a call may change its arguments); on a subclass where `name` asks."""
    args, kwargs = pickle.loads(data)
    if name == ON_SUBCLASS:
        args = (type(f"{owner.__name__}Subclass", (owner,), {"__module__": owner.__module__}), *args[1:])
    return args, kwargs


def _attempt(fn: Any, name: str, data: bytes, owner: Any, call: Dict[str, Any], imported: str,
             output: "_StandardOutput", seconds: float) -> Any:
    """One input's run within `seconds`: (what it did or NOT_RUN and why (OUT_OF_TIME where it ran
    out of time), the processor time the call took, whether it spent all the time or memory it may
    have)."""
    args, kwargs = _rebuilt(name, data, owner)
    unordered = bool(call.get("unordered"))
    if name in (TWICE, GROWN, AFTER_CHANGED):  # a sequence on the same objects: the first call, not compared
        first, raised = _timed(fn, args, kwargs, seconds)
        if raised is not None:
            return f"{NOT_RUN}its first call raised", 0.0, False
        if name == GROWN and not _grow(args, kwargs):
            return f"{NOT_RUN}no list or dict in its arguments to grow", 0.0, False
        if name == AFTER_CHANGED and not _changed(first):
            return f"{NOT_RUN}no list, dict or set in its first result to change", 0.0, False
    before, world, threads = _state(args, kwargs, unordered), _process_state(), _threads()
    since = output.size()
    started = time.process_time()
    result, raised = _timed(fn, args, kwargs, seconds)
    took = round(time.process_time() - started, 4)
    wrote = output.since(since)
    yielded = type(result) is _Yielded
    result = list(result) if yielded else result
    if isinstance(raised, UNCOMPARABLE) or (unordered and raised is not None and not _raised_by_own_code(raised, fn)):
        if isinstance(raised, _TimedOut):
            return OUT_OF_TIME, took, True
        return f"{NOT_RUN}raised {type(raised).__name__}{CONCURRENT_RAISED if unordered else ''}", took, \
            isinstance(raised, MemoryError)
    did = _outcome(_in_any_order(result) if unordered else result, raised) + (YIELDED if yielded else "") \
        + (PAST_INDEX if isinstance(raised, OverflowError) and past_index([args, kwargs]) else "")
    after = _state(args, kwargs, unordered)
    made = _objects_made(result, args, call) if raised is None else ""
    kept = _keeps(args, kwargs, result, unordered) if raised is None else ""
    running = _still_running(threads)
    moved = _left(world, _process_state()) + ([f"{running} more {THREADS}"] if running else [])
    return ((did if after == before else f"{did}, leaving its arguments {after[:300]}")
            + (f"{OBJECT}{made}" if made else "")
            + (f"{KEPT}{kept}" if kept else "") + (f"{LEFT}{'; '.join(moved)[:300]}" if moved else "")
            + (f"{WROTE}{wrote}" if wrote else "")
            + (f"{IMPORTED}{imported}" if imported and not name else "")), took, False


class _StandardOutput:
    """Standard output (file descriptor 1, and `sys.stdout` over it) pointed at a file of the twin's
    own for the rest of its life, so what each call writes there is read (cleanroom.WROTE): by
    `print`, `sys.stdout.write`, `os.write(1, ...)` or a child process alike."""

    def __init__(self) -> None:
        _flush_stdout()
        try:
            self.fd = os.memfd_create("oracle-gate-stdout")
        except (AttributeError, OSError):  # an older Python or kernel: a file no one else sees
            name = os.path.join(os.getcwd(), f".oracle-gate-stdout-{os.getpid()}")
            self.fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            os.unlink(name)
        os.dup2(self.fd, 1)

    def size(self) -> int:
        _flush_stdout()
        return os.fstat(self.fd).st_size

    def since(self, start: int) -> str:
        """What was written after `start`: how many bytes, and its first WRITTEN_CHARS characters."""
        end = self.size()
        if end <= start:
            return ""
        text = os.pread(self.fd, min(end - start, WRITTEN_CHARS * 4), start).decode("utf-8", "replace")
        return f"{end - start} bytes: {canonical(text[:WRITTEN_CHARS])}"


def _flush_stdout() -> None:
    """What `print` buffered, written (a call may have closed or replaced sys.stdout: then as it is)."""
    try:
        sys.stdout.flush()
    except Exception:
        pass


THREADS = "threads running"
# How long the threads a call started may take to end after it returned (a pool shut down without
# waiting); the threads that run past it are left running. Threads that end, its own or older
# ones, are never a difference: when they end is the scheduler's, not the code's.
THREADS_SETTLE_SECONDS = 0.05


def _threads() -> FrozenSet[Any]:
    import threading

    return frozenset(threading.enumerate())


def _still_running(before: FrozenSet[Any]) -> int:
    """How many threads a call started (not running before it) still run once it returned and
    THREADS_SETTLE_SECONDS passed."""
    import threading

    started = [t for t in threading.enumerate() if t not in before]
    deadline = time.monotonic() + THREADS_SETTLE_SECONDS
    for thread in started:
        thread.join(max(0.0, deadline - time.monotonic()))
    return sum(t.is_alive() for t in started)


def _process_state() -> Dict[str, Any]:
    """What a call can leave behind in the process beside its arguments (cleanroom.LEFT): each
    setting a process or thread keeps for every later caller (`_settings`), the standard modules'
    names bound to another object (`_bindings`: compared by identity), and the files in the twin's
    own directories (the threads it leaves running: `_still_running`)."""
    files = [f for top in dict.fromkeys([os.getcwd(), os.environ.get("TMPDIR", ""), os.environ.get("HOME", "")])
             if top for f in _files_in(top)]
    return {**_settings(), "files in its directories": ", ".join(sorted(files)[:50]) or "none", BOUND: _bindings()}


def _settings() -> Dict[str, str]:
    """The process's and the thread's settings, as text: the decimal context (not its flags), the
    recursion limit, the integer string conversion limit, the working directory, the environment,
    the import path, the umask, the default socket timeout, the thread stack size, the switch
    interval, the garbage collector, the locale, the warnings filters, the logging levels, tracing
    and the exit hooks."""
    import atexit
    import decimal
    import gc
    import locale
    import logging
    import socket
    import threading
    import warnings

    ctx = decimal.getcontext()
    umask = os.umask(0o022)
    os.umask(umask)
    levels = {name: (getattr(lg, "level", None), getattr(lg, "disabled", None), getattr(lg, "propagate", None))
              for name, lg in [("root", logging.root), *sorted(logging.root.manager.loggerDict.items())]
              if isinstance(lg, logging.Logger) and (name == "root" or lg.level or lg.disabled or not lg.propagate)}
    return {"the decimal context": f"prec={ctx.prec} rounding={ctx.rounding} Emin={ctx.Emin} Emax={ctx.Emax} "
                                   f"clamp={ctx.clamp} traps={sorted(t.__name__ for t, on in ctx.traps.items() if on)}",
            "the recursion limit": str(sys.getrecursionlimit()),
            # (3.9.14 on: 0 turns off the limit on digits an int and its text convert, CVE-2020-10735)
            "the integer string conversion limit": str(getattr(sys, "get_int_max_str_digits", lambda: None)()),
            "the working directory": os.getcwd(),
            "the environment": ", ".join(f"{k}={v}" for k, v in sorted(os.environ.items())),
            "the import path": ", ".join(sys.path), "the umask": oct(umask),
            "the default socket timeout": str(socket.getdefaulttimeout()),
            "the thread stack size": str(threading.stack_size()),
            "the switch interval": str(sys.getswitchinterval()),
            "the garbage collector": f"enabled={gc.isenabled()} thresholds={gc.get_threshold()}",
            "the locale": str(locale.setlocale(locale.LC_ALL)),
            "the warnings filters": repr(warnings.filters[:20])[:2000],
            "the logging levels": f"{levels} disabled below {logging.root.manager.disable}",
            "tracing": f"trace={sys.gettrace()!r} profile={sys.getprofile()!r}",
            "the exit hooks": str(getattr(atexit, "_ncallbacks", lambda: "?")())}


# What importing a module is not asked about (cleanroom.IMPORTED): what libraries do at import as
# a matter of course (`requests` adds a warnings filter, `multiprocessing` an exit hook).
NOT_ASKED_AT_IMPORT = ("the warnings filters", "the import path", "the exit hooks", "the logging levels")


def _import_state() -> Dict[str, Any]:
    """What importing a module may leave that every program importing it shares: `_settings` but
    NOT_ASKED_AT_IMPORT, the root logger's level and handlers (a module-level `logging.debug(...)`
    gives the root a handler, and the program's own `logging.basicConfig` then does nothing), and the
    standard modules' names (`_bindings`)."""
    import logging

    return {**{k: v for k, v in _settings().items() if k not in NOT_ASKED_AT_IMPORT},
            "the root logger": f"at level {logging.getLevelName(logging.root.level)} with "
                               f"{len(logging.root.handlers)} handler(s), disabled below {logging.root.manager.disable}",
            BOUND: _bindings()}


# The key of `_process_state` under which the standard modules' bindings are (compared by identity).
BOUND = "names in the standard library bound anew"
# Modules whose public names every caller shares; a call that binds one anew (`json.dumps = ...`,
# `sys.stdout = ...`) changes them for every caller after it. Only those already imported are read.
SHARED_MODULES = ("builtins", "sys", "os", "os.path", "io", "time", "datetime", "calendar", "decimal", "fractions",
                  "math", "random", "json", "json.encoder", "json.decoder", "re", "string", "locale", "codecs",
                  "logging", "warnings", "threading", "socket", "copy", "pickle", "functools", "operator",
                  "itertools", "collections", "struct", "hashlib", "uuid", "zoneinfo")


# (held from before any call: a call may bind `builtins.all` or `operator.is_` anew)
_ALL, _LIST, _MAP, _IS = all, list, map, operator.is_


def _bindings() -> Dict[str, Dict[str, Any]]:
    """Each shared module's namespace as it is (a copy, which holds every object it names: compared
    by identity, `_rebound`); a module a call set to None in `sys.modules` has none."""
    return {name: dict(vars(module)) for name in SHARED_MODULES
            for module in [sys.modules.get(name)] if module is not None}


def _rebound(old: Dict[str, Dict[str, Any]], new: Dict[str, Dict[str, Any]]) -> List[str]:
    """The shared modules' public names bound to another object from `old` to `new` (not modules:
    importing a submodule binds its name in its package). A namespace whose names and objects are
    all as they were is passed over whole (its objects compared by identity in C: a twin compares
    them twice per input)."""
    out = []
    for name, was in old.items():
        now = new.get(name)
        if now is None or (_LIST(was) == _LIST(now) and _ALL(_MAP(_IS, was.values(), now.values()))):
            continue
        out.extend(f"{name}.{attr}" for attr, value in was.items()
                   if not attr.startswith("_") and attr in now and now[attr] is not value
                   and not isinstance(value, types.ModuleType) and not isinstance(now[attr], types.ModuleType))
    return sorted(out)


def _left(before: Dict[str, Any], after: Dict[str, Any]) -> List[str]:
    """What changed between two `_process_state`s, readable."""
    moved = [f"{what} {after[what]}" for what in sorted(after) if what != BOUND and after[what] != before.get(what)]
    rebound = _rebound(before[BOUND], after[BOUND])
    return moved + ([f"{BOUND}: {', '.join(rebound)}"] if rebound else [])


MAX_ENTRIES_READ = 100  # per directory of the twin's, read in a fixed order: what lies past it is not seen


def _files_in(top: str) -> List[str]:
    """The files under `top` (relative paths), breadth first in name order, reading at most
    MAX_ENTRIES_READ entries (twice a call: a few directories' listings, about as cheap as the
    `os.walk` to 50 files it replaced)."""
    out: List[str] = []
    pending, read = [""], 0
    while pending and read < MAX_ENTRIES_READ:
        folder = pending.pop(0)
        try:
            with os.scandir(os.path.join(top, folder)) as it:
                entries = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in it)
        except OSError:
            continue
        for name, is_dir in entries[:MAX_ENTRIES_READ - read]:
            read += 1
            (pending if is_dir else out).append(f"{folder}{name}/" if is_dir else f"{folder}{name}")
    return out


def _timed(fn: Any, args: Any, kwargs: Any, seconds: float = WIDENED_CALL_SECONDS) -> Any:
    """(result, None) or (None, the exception), within `seconds` (else _TimedOut). Code where no
    signal handler runs (a C loop) is ended, with the interpreter, by SIGPROF's default action after
    twice `seconds` and CPU_BACKSTOP_SECONDS of processor time (cleanroom.STILL_RUNNING_IN_C)."""
    _ARMED[0] = True
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        signal.setitimer(signal.ITIMER_PROF, 2 * seconds + CPU_BACKSTOP_SECONDS)
        try:
            return _drained(fn(*args, **kwargs)), None
        except _TimedOut:
            return None, _TimedOut()
        except BaseException as e:
            return None, e
        finally:
            _stop_clocks()
    except _TimedOut:  # the alarm went off as the call ended, while its clocks stopped: its time ran out
        _stop_clocks()
        return None, _TimedOut()


def _stop_clocks() -> None:
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    _ARMED[0] = False


class _Yielded(list):
    """What a generator a call returned yielded: its first GENERATED_ITEMS items."""


def _drained(result: Any) -> Any:
    """A generator read (the items its callers get, and what it raises on the way), else `result`."""
    return _Yielded(itertools.islice(result, GENERATED_ITEMS)) if isinstance(result, types.GeneratorType) else result


def _grow(args: Any, kwargs: Any) -> bool:
    """Each non-empty list or dict (of text keys) an argument is, or an argument's attribute holds,
    one item more: a copy of its last item, or of its first entry under a new key (cleanroom.GROWN).
    Whether any grew."""
    grew = False
    for value in [*args, *kwargs.values()]:
        held = vars(value).values() if type(getattr(value, "__dict__", None)) is dict and not isinstance(value, type) \
            else ()
        for target in [value, *held]:
            if type(target) is list and target:
                target.append(copy.deepcopy(target[-1]))
                grew = True
            elif type(target) is dict and target and all(type(k) is str for k in target):
                first = next(iter(target))
                target[f"{first}~grown"] = copy.deepcopy(target[first])
                grew = True
    return grew


def _keeps(args: Any, kwargs: Any, result: Any, unordered: bool) -> str:
    """Which list, dict or set argument the call kept rather than copied (cleanroom.KEPT): the
    first whose change after the call (an item added) changes the call's result or another
    argument; "" where none does."""
    slots = [*range(len(args)), *kwargs]

    def value(slot: Any) -> Any:
        return args[slot] if isinstance(slot, int) else kwargs[slot]

    for slot in slots:
        if type(value(slot)) not in (list, dict, set):
            continue
        rest = [result, *(value(s) for s in slots if s != slot)]
        before = _state(rest, {}, unordered)
        _mutate(value(slot), _POKED)
        if _state(rest, {}, unordered) != before:
            return f"argument {slot + 1}" if isinstance(slot, int) else f"{slot}="
    return ""


_POKED = "\x00added after the call"


def _limit_memory() -> None:
    """The address space this process has now plus WIDENED_MEMORY_BYTES, at most (a widened call
    that asks for more raises MemoryError and is not compared); raised as later imports grow it."""
    try:
        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * resource.getpagesize()
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = now + WIDENED_MEMORY_BYTES
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (OSError, ValueError, IndexError):
        pass


def _kept(fn: Any, args: Any, kwargs: Any) -> List[Any]:
    """The arguments whose type a widening must keep: those of a parameter annotated `int` or not
    annotated at all (its calls are then the only word on its type); all of them where the
    signature cannot be read."""
    slots = [*range(len(args)), *kwargs]
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return slots
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p for p in params if p.kind == p.VAR_POSITIONAL), None)
    named = {p.name: p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    more = next((p for p in params if p.kind == p.VAR_KEYWORD), None)
    out = []
    for slot in slots:
        param = (positional[slot] if slot < len(positional) else rest) if isinstance(slot, int) \
            else named.get(slot, more)
        if param is None or param.annotation in (inspect.Parameter.empty, int, "int"):
            out.append(slot)
    return out


def _state(args: Any, kwargs: Any, unordered: bool = False) -> str:
    try:
        return canonical(_in_any_order([list(args), kwargs]) if unordered else [list(args), kwargs])
    except Exception as e:
        return f"unencodable ({type(e).__name__})"


def _in_any_order(value: Any) -> Any:
    try:
        return in_any_order(value)
    except Exception:  # an item whose own protocol raises: as it is
        return value


def _in_thread(call: Any) -> Any:
    """`_read_environment(call)`, made from a new thread (not the one that imported the module),
    within VARIANT_CALL_SECONDS (else raised _TimedOut; the thread is left to run)."""
    import threading

    done: List[Any] = []
    worker = threading.Thread(target=lambda: done.append(_read_environment(call)), daemon=True)
    worker.start()
    worker.join(VARIANT_CALL_SECONDS)
    return done[0] if done else (None, _TimedOut(), [])


def _variant_call(call: Any, thread: bool) -> Any:
    """`_read_environment(call)` within VARIANT_CALL_SECONDS (else it raised _TimedOut), made on
    this thread or (`thread`) a new one; a C loop, where no handler runs, ends the interpreter by
    SIGPROF's default action after twice that and CPU_BACKSTOP_SECONDS of processor time."""
    signal.setitimer(signal.ITIMER_PROF, 2 * VARIANT_CALL_SECONDS + CPU_BACKSTOP_SECONDS)
    try:
        if thread:
            return _in_thread(call)
        _ARMED[0] = True
        signal.setitimer(signal.ITIMER_REAL, VARIANT_CALL_SECONDS)
        try:
            return _read_environment(call)
        finally:
            _stop_clocks()
    except _TimedOut:  # as in `_timed`: the alarm went off as the call ended
        _stop_clocks()
        return None, _TimedOut(), []
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _child(spec_path: str, out_path: str) -> int:
    """Run the spec's calls, each input's result written as it goes (cleanroom.begun, cleanroom.done,
    then FINISHED) from `spec["resume"]` on: in a twin (`_twin`), or in a clean variant, where each
    call is made as it was under the test (twice in a row where `again`: input 1 is the second call,
    in the same process)."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    with open(out_path, "a", encoding="utf-8") as f:

        def emit(line: str) -> None:
            f.write(line + "\n")
            f.flush()  # in the kernel's hands: an interpreter that ends next loses nothing

        if spec.get("twin"):
            if spec.get("later"):
                _move_clock(later_moment(0)[0] - _REAL_TIME())
                _other_machine(str(spec.get("own", "")))
                sys.argv = [sys.argv[0], *map(str, spec.get("argv", ()))]
            sys.meta_path.insert(0, _NoRunners)  # type: ignore[arg-type]
            if spec.get("served"):  # the base's files (or a mutant's) in place of the head's
                sys.meta_path.insert(0, _BaseCode(spec["served"]))  # type: ignore[arg-type]
            sys.path[:] = list(spec["sys_path"])
            _twin(spec, emit)
        else:
            _variant(spec, emit)
        emit(json.dumps(FINISHED))
    return 0


def _variant(spec: Dict[str, Any], emit: Callable[[str], None]) -> None:
    """A clean variant: each call from `spec["resume"]`'s on, as it was made under the test."""
    from_call = int((spec.get("resume") or (0, 0))[0])
    signal.signal(signal.SIGALRM, _alarm)
    spent: Set[Any] = set()  # the functions a call of which ran out of time here
    unavailable = other_world() if spec.get("other_world") else None
    if unavailable is not None:
        for i in range(from_call, len(spec["calls"])):
            emit(done(i, 0, twin_entry("", f"{NOT_RUN}{unavailable}")))
        return
    _move_clock(int(spec["offset"]))
    _watch_environment()
    sys.meta_path.insert(0, _NoRunners)  # type: ignore[arg-type]
    sys.path[:] = list(spec["sys_path"])
    for i, call in enumerate(spec["calls"]):
        if i < from_call:
            continue
        if (call["module"], tuple(call["chain"])) in spent:
            emit(done(i, 0, twin_entry("", OUT_OF_TIME_BEFORE)))
            continue
        for attempt in range(2 if spec["again"] else 1):
            emit(begun(i, attempt, ""))
            try:
                fn = _resolve(call["module"], call["chain"])
                args, kwargs = pickle.loads(base64.b64decode(call["args"]))
            except BaseException as e:  # the call cannot be rebuilt here: not a verdict on the code
                emit(done(i, attempt, twin_entry("", f"{NOT_RUN}cannot rebuild the call ({type(e).__name__}: "
                                                     f"{str(e)[:200]})")))
                break
            call_it = (lambda: _drained(fn(*args, **kwargs)))  # noqa: E731
            result, raised, read = _variant_call(call_it, bool(spec.get("thread")))
            if isinstance(raised, _TimedOut):  # where the test got an answer
                spent.add((call["module"], tuple(call["chain"])))
                emit(done(i, attempt, twin_entry("", VARIANT_STILL_RUNNING)))
                break
            yielded = type(result) is _Yielded
            result = list(result) if yielded else result
            if read:  # what it did depends on more than its arguments, whatever it returned
                emit(done(i, attempt, twin_entry("", f"{READ_ENVIRONMENT}{', '.join(read)[:120]})")))
                break
            emit(done(i, attempt, twin_entry("", _outcome(result, raised) + (YIELDED if yielded else ""))))
            # (the result itself, not its attributes: an object that refers to a module's table, at
            # the base as at the head, is judged against the base by the twins, `_changed`)
            if attempt == 0 and (raised is not None or not _mutate(result, CHANGED_MARK)):
                break  # nothing shared to change: the second call would say nothing new


if __name__ == "__main__":
    status = _child(sys.argv[1], sys.argv[2])
    # The results are written: a thread a call left running (one blocked on a queue) must not keep
    # the interpreter from ending until the caller's time limit, losing every result with it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
