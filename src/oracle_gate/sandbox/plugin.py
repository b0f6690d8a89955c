"""The pytest plugin Pants ships into every test sandbox: it records, it never judges.

Per test it records the outcome pytest reported, the failure or skip signature, the marker behind
a skip or xfail, and Hypothesis' example count and whether the search space was exhausted. Per
test file it records the sandbox code the file's collection and tests executed and the locked
fixtures' sha256 after the session; per session, whether every collected test finished, and the
module-level names of sandbox modules that hold, when it ends, a callable their module did not
define under that name (`rebound`). The format is core/protocol/results.py; the gate judges from it.

It never changes an outcome, a report or the exit status, loads no Hypothesis settings, and
catches its own exceptions (kept as `recorder_errors`). Pants copies it with the core modules it
imports into the sandbox as the package `_oracle_gate_sandbox`, registered as a pytest11 plugin
(loaded from a private copy outside the sandbox: rules/sandbox_setup.py says why).
The setup hook tells it, per test file, in `.oracle-gate/config/*.json`: `source` (the test file,
relative to the build root), `address` and `fixtures` (locked fixture paths to re-hash).
"""
from __future__ import annotations

import ast
import base64
import dis
import functools
import glob
import hashlib
import importlib.machinery
import inspect
import ipaddress
import json
import math
import os
import platform
import pickle
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

import pytest  # pants: no-infer-dep

from ..core.protocol import cleanroom as CR
from ..core.protocol.results import (
    RESULTS_RELPATH,
    TAIL_LINES,
    FileRecord,
    MOCK,
    Mutant,
    Rebound,
    ResultsError,
    SessionResults,
    TestRecord,
    Versions,
    dumps,
)
from ..core.protocol.mutant_payload import ENV_VAR as MUTANT_PAYLOAD_ENV, SERVED_RELPATH as MUTANT_SERVED_RELPATH, \
    decode_mutant_env
from ..core.protocol.signature import Frame, failure_signature, parameter_shape

EXTRA_OUTPUT = "extra-output"  # Pants collects this directory of the sandbox
CONFIG_GLOB = os.path.join(".oracle-gate", "config", "*.json")
# Code under these directories is machinery (installed packages, caches, this recorder), not evidence.
EXCLUDED_DIRS = frozenset({"site-packages", "dist-packages", ".cache", ".oracle-gate", "_oracle_gate_sandbox",
                           "_oracle_gate_boot"})
# sys.monitoring tool ids we may take: 1 is coverage.py's, 3 Hypothesis' explain phase.
MONITORING_TOOLS = (4, 2, 5, 0)
FAILED = ("failed", "error")
SETTLED_PHASES = ("shrink", "explain")  # Hypothesis' phases after a failing example is found
ADDRESS_RE = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


# -- mutants ---------------------------------------------------------------------------------------

class _MutantLoader(importlib.machinery.SourceFileLoader):
    """Loads the mutated source under the original file name; never reads or writes bytecode."""

    def __init__(self, fullname: str, path: str, mutant: "_MutantFinder") -> None:
        super().__init__(fullname, path)
        self.mutant = mutant

    def get_source(self, fullname: str) -> str:
        return self.mutant.source

    def get_code(self, fullname: str) -> types.CodeType:
        if not self.mutant.served:  # said before the mutated code runs (MUTANT_SERVED_RELPATH)
            self.mutant.served = True
            try:
                _write_extra_output(self.mutant.root, MUTANT_SERVED_RELPATH, self.mutant.id.encode("utf-8"))
            except OSError:
                pass  # not said: a session that then leaves no results stays an error
        return compile(self.mutant.source, self.path, "exec", dont_inherit=True)


def _write_extra_output(root: str, relpath: str, data: bytes) -> None:
    """`data` at `relpath` (slash-separated) in the sandbox's extra output, whole or not at all."""
    path = os.path.join(root, EXTRA_OUTPUT, *relpath.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


class _MutantFinder:
    """First on sys.meta_path: asks the other finders, and swaps in the mutant's loader for the one
    module whose origin is the mutated file. Every other import resolves exactly as before."""

    def __init__(self, mutant_id: str, path: str, source: str, root: str) -> None:
        self.id, self.path, self.source, self.root = mutant_id, path, source, root
        self.target = os.path.realpath(os.path.join(root, path))
        self.served = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        for finder in sys.meta_path:
            if finder is self:
                continue
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                return None  # a legacy finder: let the import system search as it always does
            spec = find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        origin = getattr(spec, "origin", None)
        if origin and spec.loader is not None and os.path.realpath(origin) == self.target:
            spec.loader = _MutantLoader(fullname, origin, self)
        return spec


_MUTANT: Optional[_MutantFinder] = None
_MUTANT_ERROR: Optional[str] = None


def _install_mutant(root: str) -> None:
    global _MUTANT, _MUTANT_ERROR
    raw = os.environ.get(MUTANT_PAYLOAD_ENV)
    if not raw or _MUTANT is not None or _MUTANT_ERROR is not None:
        return
    try:
        spec = decode_mutant_env(raw)
        _MUTANT = _MutantFinder(spec["id"], spec["path"], spec["source"], root)
    except Exception as e:
        _MUTANT_ERROR = f"{MUTANT_PAYLOAD_ENV}: cannot decode the mutant: {type(e).__name__}: {e}"
        return
    sys.meta_path.insert(0, _MUTANT)


# -- executed code ---------------------------------------------------------------------------------

def _thread_profile() -> Any:
    getter = getattr(threading, "getprofile", None)  # Python >= 3.10
    return getter() if getter is not None else getattr(threading, "_profile_hook", None)


# Code a test module's import ran is kept apart: a function called at import time (a module's
# self-check, a strategy built from a call) was not called by a test, so it is no evidence.
IMPORT_SUFFIX = "\x00import"


def _is_body(code: types.CodeType) -> bool:
    """A module or class body (run by an import), not a function, lambda or comprehension."""
    return not code.co_flags & inspect.CO_NEWLOCALS


class _Evidence:
    """The code objects that started running, per attribution target (a test file).

    Python >= 3.12: sys.monitoring PY_START, disabled per code object once seen and restarted when
    the target changes (near-free). Before: a profile hook noting 'call' events, installed only
    while a test module is collected (imported) or a test runs, because every Python and C call
    pays for it; pytest's own machinery in between is not evidence anyway."""

    def __init__(self) -> None:
        self.codes: Dict[str, Set[types.CodeType]] = {}
        self.target: Optional[str] = None
        self.problem: Optional[str] = None
        self._sink: List[Set[types.CodeType]] = [set()]
        self._tool: Optional[int] = None
        self._profile: Any = None
        self._previous: Tuple[Any, Any] = (None, None)
        self._running = self._recording = False

    def start(self, extra: Optional[Callable[[types.FrameType, str, Any], None]] = None) -> None:
        """`extra`: a profile function that also sees every event while recording (the sampler)."""
        sink = self._sink
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            tool = next((t for t in MONITORING_TOOLS if monitoring.get_tool(t) is None), None)
            if tool is None:
                raise RuntimeError("no free sys.monitoring tool id")
            disable = monitoring.DISABLE

            def on_start(code: types.CodeType, offset: int) -> Any:
                sink[0].add(code)
                return disable  # once per code object until restart_events()

            monitoring.use_tool_id(tool, "oracle-gate")
            monitoring.register_callback(tool, monitoring.events.PY_START, on_start)
            monitoring.set_events(tool, monitoring.events.PY_START)
            self._tool = tool
        calls = self._tool is None  # before 3.12 the profile hook records the code that starts
        if calls or extra is not None:
            previous = sys.getprofile()
            if previous is not None and not callable(previous):
                raise RuntimeError("another profiler holds the profile hook")

            def profile(frame: types.FrameType, event: str, arg: Any) -> None:
                if calls and event == "call":
                    sink[0].add(frame.f_code)
                if extra is not None:
                    extra(frame, event, arg)
                if previous is not None:
                    previous(frame, event, arg)

            self._previous = (previous, _thread_profile())
            self._profile = profile
        if self._profile is not None:
            threading.setprofile(self._profile)  # threads a test starts
        self._running = True

    @property
    def profiling(self) -> bool:
        return self._running and self._profile is not None

    def record(self, target: str, importing: bool = False) -> None:
        """Attribute what runs from now on to `target` (a test file). `importing`: a module is
        being collected (imported); of that, only module and class bodies will count (`bodies`)."""
        if not self._running:
            return
        key = target + IMPORT_SUFFIX if importing else target
        if key != self.target:
            self.target = key
            self._sink[0] = self.codes.setdefault(key, set())
            if self._tool is not None:
                sys.monitoring.restart_events()
        self.resume()

    def resume(self) -> None:
        if self.profiling and not self._recording:
            sys.setprofile(self._profile)
            self._recording = True

    def pause(self) -> None:
        """Stop recording until the next `record` (the profile hook only: monitoring stays on)."""
        if self._profile is None or not self._recording:
            return
        self._recording = False
        current = sys.getprofile()
        # None: the interpreter dropped the hook because a call into it raised (a test that hits the
        # recursion limit on purpose); the next test re-arms it. Evidence lost that way can only
        # leave a symbol unexercised, never make one exercised. Another callable is another tool.
        if current is not None and current is not self._profile and self.problem is None:
            self.problem = "another tool replaced the profile hook: executed-code evidence is incomplete"
        sys.setprofile(self._previous[0])

    def stop(self) -> None:
        if not self._running:
            return
        self.pause()
        self._running = False
        self._sink[0] = set()  # late events (other threads) are dropped
        if self._tool is not None:
            monitoring = sys.monitoring
            monitoring.set_events(self._tool, 0)
            monitoring.register_callback(self._tool, monitoring.events.PY_START, None)
            monitoring.free_tool_id(self._tool)
        if self._profile is not None:
            threading.setprofile(self._previous[1])


# -- what module-level names hold at the end ---------------------------------------------------------
_DEF_RE = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M)


def _bound_to(value: Any, name: str, path: str, source: Callable[[str], Optional[str]]) -> Optional[Tuple[str, str]]:
    """(origin, what) when `value`, the module-level `name` of the module at `path`, is a callable
    other than a function that file defines under that name (a decorator's wrapper is another
    callable: the gate knows which defs are decorated); None when it is that function, or a class, a
    module, a non-callable, or a library function imported under its own name."""
    if _is_mock(value):
        return "", MOCK
    if isinstance(value, (type, types.ModuleType)) or not callable(value):
        return None
    if isinstance(value, types.FunctionType):
        code = value.__code__
        origin = source(code.co_filename) or ""
        if code.co_name == name and (origin == path or not origin):
            return None  # its own def, or a library's function imported under its own name
        # (outside the sandbox, the file's name only: the same run gives the same results file)
        where = origin or os.path.basename(code.co_filename)
        return origin, f"{code.co_name} at {where}:{code.co_firstlineno}"
    if isinstance(value, types.BuiltinFunctionType):
        return None if value.__name__ == name else ("", f"builtin {value.__name__}")
    return "", f"{type(value).__module__}.{type(value).__qualname__} object"


# -- the clean room's sample -------------------------------------------------------------------------
_RETURNS = frozenset(dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST") if n in dis.opmap)
_NOT_A_CALL = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_YIELDS = frozenset(dis.opmap[n] for n in ("YIELD_VALUE", "YIELD_FROM", "SEND") if n in dis.opmap)
# Fixtures that patch the world a call sees: such a call's result is no statement about its arguments.
PATCHING_FIXTURES = frozenset({"monkeypatch", "mocker", "class_mocker", "module_mocker", "package_mocker",
                               "session_mocker"})
Key = Tuple[str, int, str]  # (sandbox-relative path, co_firstlineno, co_name)


def _returned(frame: types.FrameType) -> bool:
    """A profile 'return' event after a return instruction, not an exception unwinding the frame."""
    i = frame.f_lasti
    code = frame.f_code.co_code
    return 0 <= i < len(code) and code[i] in _RETURNS


@functools.lru_cache(maxsize=None)
def _first_yield(code: types.CodeType) -> int:
    """The offset of a generator's first yield (a `yield from`'s SEND on 3.11 on)."""
    return min((i.offset for i in dis.get_instructions(code) if i.opcode in _YIELDS), default=-1)


def _resumed(frame: types.FrameType) -> bool:
    """Whether a profile 'call' event is a generator taken up again after a yield, not its first
    run (where its locals are still its arguments): before any yield, `f_lasti` is -1 (to 3.10)
    or at the RESUME after RETURN_GENERATOR (3.11 on); 3.9's `yield from` resumes one instruction
    before its YIELD_FROM."""
    code = frame.f_code
    return bool(code.co_flags & inspect.CO_GENERATOR) and frame.f_lasti >= _first_yield(code) - 2


def _is_mock(value: Any) -> bool:
    mock = sys.modules.get("unittest.mock")
    return mock is not None and isinstance(value, mock.NonCallableMock)


def _target_of(obj: Any, code: types.CodeType) -> bool:
    for _ in range(10):  # decorators that keep `__wrapped__` (functools.wraps, lru_cache)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if getattr(obj, "__code__", None) is code:
            return True
        obj = getattr(obj, "__wrapped__", None)
        if obj is None:
            return False
    return False


def _locate(frame: types.FrameType) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """How a clean interpreter reaches the running function: its module and an attribute chain."""
    name = frame.f_globals.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) and name != "__main__" else None
    if module is None:
        return None
    code = frame.f_code
    namespace = dict(vars(module))
    for attr, obj in namespace.items():
        if _target_of(obj, code):
            return name, (attr,)
    for attr, obj in namespace.items():
        if isinstance(obj, type) and obj.__module__ == name:
            for member_name, member in list(vars(obj).items()):
                if _target_of(member, code):
                    return name, (attr, member_name)
    return None


def _outside(root: str) -> str:
    """A new directory outside the test's sandbox (Pants points TMPDIR into it): the clean room
    runs somewhere that looks like no test's directory."""
    for parent in ("/tmp", "/var/tmp", None):
        try:
            path = tempfile.mkdtemp(prefix="run-", dir=parent)
        except OSError:
            continue
        if not _under(os.path.realpath(path), os.path.realpath(root)) or parent is None:
            return path
        shutil.rmtree(path, ignore_errors=True)
    raise OSError("no temporary directory")


def _parsed(source: Optional[str]) -> List[ast.stmt]:
    """The top-level statements of `source` (none where there is none or it does not parse)."""
    try:
        return ast.parse(source).body if source else []
    except (SyntaxError, ValueError):
        return []


def _parameters(body: List[ast.stmt], chain: Sequence[str]) -> Optional[List[str]]:
    """The names of the positional parameters the function `chain` names has in the module `body`
    (the base's, `_parsed`), by which a caller may pass them (CR.BY_NAME); None where it has none
    there or takes positional-only parameters."""
    node: Optional[ast.AST] = None
    for name in chain:
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == name), None)
        if node is None:
            return None
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or getattr(node.args, "posonlyargs", None):
        return None
    return [a.arg for a in node.args.args]


SEED_SIDE = "seed-"  # a twin of the head's code under one of CR.hash_seeds


def _text_of(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, ValueError):
        return ""


def _side(twin: List[List[str]], k: int) -> str:
    """What one twin did on the k-th input; a twin that did not run says why on its only entry, and
    one that left the rest unrun (CR.LOST) on its last."""
    if k < len(twin):
        return twin[k][1]
    said = [e[1] for e in (twin[-1:] if twin and twin[-1][1].startswith(CR.LOST) else twin[:1])]
    return said[0] if said and said[0].startswith(CR.NOT_RUN) else f"{CR.NOT_RUN}no twin"


def stage_interpreter(work: str) -> str:
    """The clean interpreter's script in `work` (`main.py`), beside copies of the protocol and the
    jail it imports there: the script's path."""
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(work, "main.py")
    shutil.copyfile(os.path.join(here, "clean_interpreter.py"), script)
    shutil.copyfile(CR.__file__, os.path.join(work, "cleanroom_protocol.py"))
    shutil.copyfile(os.path.join(here, "jail.py"), os.path.join(work, "cleanroom_jail.py"))
    return script


def _unanswered(*twins: List[List[List[Any]]]) -> List[Tuple[int, int, str]]:
    """(call, input, how it is shown) for each input one of `twins` did not answer (CR.NOT_RUN)."""
    return sorted({(i, k, entry[0]) for twin in twins for i, entries in enumerate(twin)
                   for k, entry in enumerate(entries) if entry[1].startswith(CR.NOT_RUN)})


def _patient(twin: List[List[Any]], k: int) -> bool:
    """Whether one twin answered the k-th input only when given CR.PATIENT_SECONDS."""
    return k < len(twin) and CR.entry_patient(twin[k])


def _took(twin: List[List[Any]], k: int, on_a_quarter: bool = False) -> Optional[float]:
    """The processor time one twin's call took on the k-th input (on its lists a quarter as long)."""
    return CR.entry_took(twin[k], on_a_quarter) if k < len(twin) else None


_FOLDED = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.Pow: lambda a, b: a ** b if 0 <= b <= 128 and abs(a) < 1 << 16 else None,
           ast.LShift: lambda a, b: a << b if 0 <= b <= 128 else None}


def _folded(node: ast.AST) -> Optional[int]:
    """The integer a constant expression of integer literals is (`10**12`, `-(2**15)`, `ord("字")`),
    or None."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CR.CONSTANT_CALLS \
            and node.args and not node.keywords:
        args = [a.value if isinstance(a, ast.Constant) and type(a.value) in (str, bytes) and len(a.value) < 4096
                else _folded(a) for a in node.args]
        try:
            value = None if None in args else CR.CONSTANT_CALLS[node.func.id](*args)
        except (TypeError, ValueError):
            return None
        return value if type(value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _folded(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDED:
        left, right = _folded(node.left), _folded(node.right)
        if left is None or right is None:
            return None
        try:
            return _FOLDED[type(node.op)](left, right)
        except ZeroDivisionError:
            return None
    return None


# A width or precision written in a format (`f"{name!s:.48}"`, `"{:>12}".format(x)`, `"%.40s" % x`):
# a length the code cuts or pads text to, a constant of the code all the same.
_FORMAT_FIELD = re.compile(r"\{[^{}:]*:([^{}]*)\}")
_FORMAT_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d+))?[a-zA-Z%]?\Z")
_PRINTF_FIELD = re.compile(r"%(?:\([^()]*\))?[-+ #0]*(\d*)(?:\.(\d+))?[hlL]?[diouxXeEfFgGcrsa]")


def _format_widths(node: ast.AST) -> List[int]:
    """The widths and precisions a format written at `node` names: an f-string's field (its spec's
    text), or a text constant's `str.format` and `%` fields."""
    if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):
        specs = ["".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant) and isinstance(v.value, str))]
        printf: List[Tuple[str, str]] = []
    elif isinstance(node, ast.Constant) and type(node.value) is str and len(node.value) < 4096:
        specs = _FORMAT_FIELD.findall(node.value)
        printf = _PRINTF_FIELD.findall(node.value)
    else:
        return []
    found = [m.groups() for m in map(_FORMAT_SPEC.match, specs) if m] + printf
    return [int(n) for pair in found for n in pair if n]


def _folded_text(node: ast.AST) -> Optional[str]:
    """The text a constant expression of text is (`"acme"`, `chr(0x2212)`, `chr(13) + chr(10)`), or None."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is str else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "chr" \
            and len(node.args) == 1 and not node.keywords:
        code = _folded(node.args[0])
        return chr(code) if code is not None and 0 <= code <= sys.maxunicode else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded_text(node.left), _folded_text(node.right)
        return left + right if left is not None and right is not None and len(left) + len(right) <= 64 else None
    return None


def _spelled(node: ast.AST) -> Optional[int]:
    """The integer a text or float constant spells (`"4096"`, `" 4_096"`, `4e3`), or None: a
    constant of the code whichever way it is written (`int("4096")`, `int(os.environ.get(..., "4096"))`)."""
    if not isinstance(node, ast.Constant) or type(node.value) not in (str, float):
        return None
    if type(node.value) is float:
        return int(node.value) if math.isfinite(node.value) and node.value.is_integer() else None
    text = node.value.strip()
    if not 0 < len(text) <= 20 or not text.lstrip("+-").replace("_", "").isdigit() or not text.isascii():
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class _Sampler:
    """Samples the calls a test makes into the watched functions (core/protocol/cleanroom.py): arguments as
    the call began, outcome as it ended; per function, the SAMPLES_PER_FUNCTION calls whose
    arguments hash lowest among the first CALLS_CONSIDERED. Fed by the evidence profile hook."""

    def __init__(self, watches: Sequence[CR.Watch], source: Callable[[str], Optional[str]],
                 base: Optional[Mapping[str, str]] = None) -> None:
        self.watches: Dict[str, List[CR.Watch]] = {}
        for w in watches:
            self.watches.setdefault(w.path, []).append(w)
        self.source = source
        self.base = dict(base or {})  # sandbox-relative path -> the base's source (CR.BASE_ENV)
        self._watch: Dict[Key, CR.Watch] = {}
        self._constants_of: Dict[str, Tuple[List[int], List[str]]] = {}  # path -> (`_constants`)
        self.active = False  # a test runs (not an import)
        self.patched = False  # the running test patches the world (a patching fixture, @mock.patch)
        self._keys: Dict[types.CodeType, Optional[Key]] = {}
        self._where: Dict[Key, Optional[Tuple[str, Tuple[str, ...]]]] = {}
        self._pending: List[Tuple[types.FrameType, Key, Optional[Tuple[bytes, str]]]] = []
        self.kept: Dict[Key, Dict[str, Tuple[bytes, str, str]]] = {}  # key -> sample key -> (args, input, outcome)
        self.seen: Dict[Key, int] = {}
        self.skipped: Dict[Key, Dict[str, int]] = {}
        self.errors: List[str] = []

    def _key(self, code: types.CodeType) -> Optional[Key]:
        if code not in self._keys:
            path = self.source(code.co_filename)
            found = next((w for w in self.watches.get(path or "", ())
                          if w.name == code.co_name and w.first <= code.co_firstlineno <= w.last), None)
            self._keys[code] = (path, code.co_firstlineno, code.co_name) if found and path else None
            if found and path:
                self._watch[(path, code.co_firstlineno, code.co_name)] = found
        return self._keys[code]

    def _skip(self, key: Key, why: str) -> None:
        counts = self.skipped.setdefault(key, {})
        counts[why] = counts.get(why, 0) + 1

    def event(self, frame: types.FrameType, event: str, arg: Any) -> None:
        # An exception out of a profile function would surface in the test: none ever leaves here
        # (a user's __repr__ or __reduce__ may raise).
        try:
            if event == "call":
                if self.active:
                    key = self._key(frame.f_code)
                    if key is not None and not _resumed(frame):
                        self._pending.append((frame, key, None))
                        self._pending[-1] = (frame, key, self._arguments(frame, key))
            elif event == "return" and self._pending and self._pending[-1][0] is frame:
                _, key, taken = self._pending.pop()
                if taken is not None:
                    self._keep(key, taken, frame, arg)
        except Exception as e:
            self.errors.append(f"{type(e).__name__}: {e}"[:200])

    def _arguments(self, frame: types.FrameType, key: Key) -> Optional[Tuple[bytes, str]]:
        seen = self.seen[key] = self.seen.get(key, 0) + 1
        code = frame.f_code
        if seen > CR.CALLS_CONSIDERED:
            return None
        if code.co_flags & _NOT_A_CALL:
            self._skip(key, "a coroutine")
            return None
        if self.patched:
            self._skip(key, "its test patches the world (monkeypatch, mock)")
            return None
        values = frame.f_locals
        names = code.co_varnames
        n = code.co_argcount + code.co_kwonlyargcount
        args = [values[a] for a in names[:code.co_argcount]]
        kwargs = {a: values[a] for a in names[code.co_argcount:n]}
        if code.co_flags & inspect.CO_VARARGS:
            args.extend(values[names[n]])
            n += 1
        if code.co_flags & inspect.CO_VARKEYWORDS:
            kwargs.update(values[names[n]])
        if any(_is_mock(v) for v in (*args, *kwargs.values())) or any(
                _is_mock(frame.f_globals.get(g)) for g in code.co_names):
            self._skip(key, "it sees a mock")
            return None
        try:
            blob = pickle.dumps((tuple(args), kwargs), protocol=4)
        except Exception as e:
            self._skip(key, f"its arguments cannot be pickled ({type(e).__name__})")
            return None
        if len(blob) > CR.MAX_ARGS_BYTES:
            self._skip(key, "its arguments are too large to keep")
            return None
        return blob, f"{code.co_name}({CR.shown(args, kwargs, 240)})"  # a __repr__ that raises: still replayable

    def _keep(self, key: Key, taken: Tuple[bytes, str], frame: types.FrameType, result: Any) -> None:
        if key not in self._where:
            self._where[key] = _locate(frame)
        if self._where[key] is None:
            self._skip(key, "no module attribute reaches it")
            return
        blob, shown = taken
        outcome = CR.GENERATOR if frame.f_code.co_flags & inspect.CO_GENERATOR else \
            CR.outcome_of(result) if _returned(frame) else CR.RAISED
        kept = self.kept.setdefault(key, {})
        kept.setdefault(CR.sample_key(blob), (blob, shown, outcome))
        if len(kept) > CR.SAMPLES_PER_FUNCTION:
            del kept[max(kept)]

    def replay(self, root: str) -> CR.CleanroomResults:
        """Re-execute every kept call in the clean variants (the module docstring of core/protocol/cleanroom.py)."""
        calls = [(key, entry) for key in sorted(self.kept) for _, entry in sorted(self.kept[key].items())]
        unreplayed = [CR.Unreplayed(*key, self.seen.get(key, 0), "; ".join(f"{why} x{n}" for why, n in sorted(w.items())))
                      for key, w in sorted(self.skipped.items()) if key not in self.kept]
        if not calls:
            return CR.CleanroomResults((), tuple(unreplayed), tuple(self.errors[:5]))
        work = _outside(root)
        errors: List[str] = self.errors[:5]
        try:
            script = stage_interpreter(work)
            sys_path = [os.path.abspath(os.path.join(root, p)) for p in sys.path
                        if p and "oracle-gate-recorder-" not in p]
            bases = {path: _parsed(self.base.get(path)) for path in {key[0] for key, _ in calls}}  # each read once
            spec_calls = [{"module": self._where[key][0], "chain": list(self._where[key][1]),  # type: ignore[index]
                           "name": key[2], "args": base64.b64encode(blob).decode("ascii"),
                           "constants": numbers, "words": words[:CR.WIDENING_WORDS],
                           "unordered": self._watch[key].unordered,
                           "names": _parameters(bases[key[0]], self._where[key][1])}  # type: ignore[index]
                          for key, (blob, _, _) in calls for numbers, words in [self._constants(key[0], root)]]
            pure = [j for j, (key, _) in enumerate(calls) if self._watch[key].pure]
            based = [j for j, (key, _) in enumerate(calls) if key[0] in self.base]  # a file new in the diff has none
            words = sorted({w for path in {calls[j][0][0] for j in based} for w in self._constants(path, root)[1]}) \
                if _MUTANT is None else []
            later, arguments = CR.later_environment(words), CR.later_arguments(words)
            pure_paths = sorted({calls[j][0][0] for j in based if self._watch[calls[j][0]].pure})
            seeds = CR.hash_seeds(_text_of(os.path.join(root, path)) for path in pure_paths) \
                if pure_paths and _MUTANT is None else ()
            twins = self._twins(work, script, sys_path, [spec_calls[j] for j in based], root, errors, later, arguments,
                                seeds, [self._watch[calls[j][0]].pure for j in based]) if based else None
            outcomes: Dict[str, List[List[str]]] = {}
            # In a mutant's session only the base judges (the purity of the head's code is judged
            # in its own session).
            for i, (variant, offset, seed) in enumerate(CR.VARIANTS if pure and _MUTANT is None else ()):
                env = {"PATH": os.environ.get("PATH", os.defpath), "PYTHONHASHSEED": str(seed),
                       **(CR.LOCALE_ENV if variant in CR.OTHER_LOCALE else {})}
                spec = {"offset": offset, "sys_path": sys_path, "again": i == 0,
                        "calls": [spec_calls[j] for j in pure], "other_world": variant in CR.OTHER_WORLD,
                        "thread": variant in CR.IN_THREAD}
                # a call's second run (`again`) is in the process of its first: started again at the next call
                ran = self._restarting(work, f"variant-{i}", f"the clean variant {variant}", spec, env, [], script,
                                       errors, CR.CHILD_TIMEOUT, next_call=True)
                outcomes[variant] = [[entry[1] for entry in entries] or [f"{CR.NOT_RUN}no result"] for entries in ran]
        finally:
            shutil.rmtree(work, ignore_errors=True)
        out_calls = []
        for i, j in enumerate(pure if outcomes else ()):
            key, (_, shown, expected) = calls[j]
            results = []
            for variant, _, _ in CR.VARIANTS:
                got = outcomes[variant][i]
                results.append((variant, got[0]))
                if len(got) > 1:
                    results.append((CR.AGAIN, got[1]))
            if expected == CR.GENERATOR:  # what it yields is not seen under the test: the first clean run's
                expected = next((got for _, got in results if not got.startswith((CR.NOT_RUN, CR.READ_ENVIRONMENT))),
                                expected)
            out_calls.append(CR.Call(key[0], key[1], key[2], shown, expected, tuple(results)))
        for i, j in enumerate(based if twins is not None else ()):
            key, (_, shown, _expected) = calls[j]
            head, again, base = (twins[side][i] for side in ("head", "again", "base"))  # type: ignore[index]
            if _MUTANT is not None:
                out_calls.extend(self._mutant_against_base(key, shown, head, again, base))
                continue
            seeded = [twins[side][i] for side in sorted(twins) if side.startswith(SEED_SIDE)]  # type: ignore[index]
            # a twin beside these two (another hash seed, the later world) that left this call's
            # inputs unrun: said once, as the head's and the base's own would be (CR.LOST)
            lost = next((e[1] for side in sorted(twins) if side not in ("head", "base")  # type: ignore[arg-type]
                         for e in twins[side][i] if e[1].startswith(CR.LOST)), None)  # type: ignore[index]
            if lost is not None:
                out_calls.append(CR.Call(key[0], key[1], key[2], shown, lost, ((CR.BASE, lost),)))
            for k, (input_shown, did, *_) in enumerate(head):
                then = _side(base, k)
                did, then = CR.outlasted(did, _patient(head, k), then, _patient(base, k)) or (did, then)
                # the head's code under each other hash seed: the first that did something else
                runs = [o for o in (_side(t, k) for t in (again, *seeded)) if not o.startswith(CR.NOT_RUN)]
                other = next((o for o in runs if o != did), did)
                results: List[Tuple[str, str]] = []
                unstable = CR.STABLE
                if did.startswith(CR.NOT_RUN):
                    then = did
                elif other != did:
                    if self._watch[key].pure:  # a pure result does not depend on the hash seed
                        results.append((CR.HASH_SEED, other))
                    # compared where it does the same each time (CR.UNSTABLE)
                    found = CR.unstable_positions([did, *runs])
                    if found is None:
                        then = f"{CR.NOT_RUN}the head's code did not do the same twice ({other[:120]})"
                    else:
                        unstable, did, then = found, CR.masked(did, found), CR.masked(then, found)
                if input_shown.startswith(CR.SCALED):  # grown from the input each side answered at length:
                    if k >= len(base) or base[k][0] != input_shown:  # another one at the base: not compared
                        then = f"{CR.NOT_RUN}the base grew another input"
                    elif not then.startswith(CR.NOT_RUN) and CR.same(did, then):  # alike, unless far slower
                        did += CR.slower(_took(head, k), _took(head, k, True), _took(base, k))
                out_calls.append(CR.Call(key[0], key[1], key[2], input_shown or shown, did,
                                         (*results, (CR.BASE, then))))
                if "later-head" in twins and not then.startswith(CR.NOT_RUN) and CR.same(did, then):  # type: ignore[operator]
                    # The same input later and elsewhere (CR.LATER_MOMENTS): shown only where it
                    # tells the head from the base, which the first world did not.
                    # The head's code must do something else there than here: a base that did
                    # something else later (a head that no longer depends on the world) is no
                    # difference the diff hides. (Head against head, so `!=`, not CR.same: the
                    # latter forgives a head that copies what the base kept, and both are the head.)
                    did_later, then_later = (CR.masked(_side(twins[side][i], k), unstable)  # type: ignore[index]
                                             for side in ("later-head", "later-base"))
                    if not did_later.startswith(CR.NOT_RUN) and not CR.same(did_later, then_later) \
                            and did_later != did:
                        out_calls.append(CR.Call(key[0], key[1], key[2], f"{input_shown or shown} {CR.later_shown(later, k, arguments)}",
                                                 did_later, ((CR.BASE, then_later),)))
        return CR.CleanroomResults(tuple(out_calls), tuple(unreplayed), tuple(errors))

    @staticmethod
    def _mutant_against_base(key: Key, shown: str, head: List[List[str]], mutant: List[List[str]],
                             base: List[List[str]]) -> List[CR.Call]:
        """A mutant's session: what the mutant's code did on each call and widening (`expected`)
        beside the base's (`BASE`), only where the head's code did what the base's did; elsewhere
        the base's side says it was not compared (a mutant that agrees with the head there shows
        nothing about the line)."""
        out = []
        for k, (input_shown, did, *_) in enumerate(head):
            mutated, then = _side(mutant, k), _side(base, k)
            if did.startswith(CR.NOT_RUN) or mutated.startswith(CR.NOT_RUN) or not CR.same(did, then):
                then = f"{CR.NOT_RUN}the head's code did not do what the base's did here"
            out.append(CR.Call(key[0], key[1], key[2], input_shown or shown, mutated, ((CR.BASE, then),)))
        return out

    def _constants(self, path: str, root: str) -> Tuple[List[int], List[str]]:
        """What a changed module names, for the twins' widenings (read once per path): the integers
        at the head and at the base, however written (`1 << 12`, `int("4096")`, `4e3`), each with its
        neighbours (at most 12, smallest first, then at most 6 more constants a list can be repeated
        past and 4 a text can, then the widths and precisions its formats name: `_format_widths`),
        and the words (text constants without whitespace, at most 32
        characters, no docstrings) the head names and the base does not (at most 4, in the order
        they appear)."""
        if path not in self._constants_of:
            head = _text_of(os.path.join(root, path))  # "" where it cannot be read: no constants
            numbers: Set[int] = set()
            written: Set[int] = set()  # the constants themselves, not their neighbours
            formats: Set[int] = set()  # widths and precisions its formats name (`_format_widths`)
            words: Dict[str, List[str]] = {}
            for side, text in (("base", self.base.get(path)), ("head", head)):
                try:
                    tree = ast.parse(text or "")
                except (SyntaxError, ValueError):
                    continue
                docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                              if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                              and n.body and isinstance(n.body[0], ast.Expr)}
                found = words.setdefault(side, [])
                todo: List[ast.AST] = [tree]
                while todo:
                    node = todo.pop(0)
                    value = _folded(node)
                    word = _folded_text(node) if id(node) not in docstrings else None
                    if word and len(word) <= 32 and not any(c.isspace() for c in word):
                        found.append(word)  # (a word built of characters too: `chr(0x2212)`)
                    if value is None:
                        value = _spelled(node)  # a number written as text or a float: `int("4096")`, `4e3`
                    formats.update(_format_widths(node))
                    if value is None:
                        todo.extend(ast.iter_child_nodes(node))
                    elif abs(value) <= 1 << 64:  # the whole expression, not its parts: `-(2**63)`, not 2 and 63
                        numbers.update({value - 1, value, value + 1, -value})
                        written.add(value)
            had = set(words.get("base", ()))
            fresh = list(dict.fromkeys(w for w in words.get("head", ()) if w not in had))
            ordered = sorted(numbers, key=lambda n: (abs(n), n))
            # and past those, the first caps a list may be repeated past (CR.REPEATED_PAST_AT_MOST):
            # constants the code wrote, each once (the twins repeat a list to one item more)
            rest = written - set(ordered[:12])
            caps = sorted(n for n in rest if CR.REPEATED_TO <= n < CR.REPEATED_PAST_AT_MOST)[:6]
            # and at most 4 a text can be repeated past that a list is repeated past anyway
            widths = sorted(n for n in rest if CR.TEXT_REPEATED_FROM <= n < CR.REPEATED_TO)[:4]
            # then those its formats name, where fewer constants did (`f"{name!s:.48}"` cuts a name)
            widths += sorted(n for n in formats - rest - set(ordered[:12])
                             if CR.TEXT_REPEATED_FROM <= n < CR.REPEATED_TO)[:4 - len(widths)]
            self._constants_of[path] = (ordered[:12] + caps + widths, fresh[:CR.WORLD_WORDS])
        return self._constants_of[path]

    def _twins(self, work: str, script: str, sys_path: List[str], spec_calls: List[Dict[str, Any]], root: str,
               errors: List[str], later: Dict[str, str], arguments: Sequence[str] = (), seeds: Sequence[int] = (),
               pure: Sequence[bool] = ()) -> Dict[str, List[List[List[str]]]]:
        """Every call and its widenings in clean interpreters alike but for the code: the head's
        twice (other hash seeds), the base's once (core/protocol/cleanroom.py), and, outside a
        mutant's session, the head's and the base's again later and elsewhere (CR.LATER_MOMENTS: the
        clocks at CR.LATER_MOMENTS by turns; `later`, from CR.later_environment, set in the environment,
        and `arguments`, from CR.later_arguments, on the command line; a third hash seed;
        CR.LATER_MACHINE: `-O`, one CPU, another line separator), and the head's once per hash seed
        of `seeds` on the calls `pure` marks (CR.MORE_HASH_SEEDS). In a mutant's session the second
        is the mutant's code, with the head's hash seed: what the base's code tells apart from it,
        where the head's does what the base's did. The head's twin runs first: the others skip what
        its answers leave uncompared (`_unanswered`)."""
        sources = {os.path.join(root, path): text for path, text in self.base.items()}
        again = (7, None) if _MUTANT is None else (6, {os.path.join(root, _MUTANT.path): _MUTANT.source})
        sides: List[Tuple[str, int, Any, bool, Dict[str, str]]] = [
            ("head", 6, None, False, {}), ("again", *again, False, {}), ("base", 6, sources, False, {})]
        if _MUTANT is None:
            sides += [("later-head", 8, None, True, later), ("later-base", 8, sources, True, later)]
        sides += [(f"{SEED_SIDE}{n}", n, None, False, {}) for n in seeds]
        out: Dict[str, List[List[List[str]]]] = {}
        unanswered_at_head: List[Tuple[int, int, str]] = []
        unanswered_by_both: List[Tuple[int, int, str]] = []
        for side, seed, served, in_later, world in sides:
            asked = spec_calls if not side.startswith(SEED_SIDE) else \
                [c if p else {**c, "skip": True} for c, p in zip(spec_calls, pure)]  # a pure region's calls only
            env = {**world, "PATH": os.environ.get("PATH", os.defpath), "PYTHONHASHSEED": str(seed),
                   **CR.LOCALE_ENV, **({"TZ": CR.LATER_TZ} if in_later else {})}
            # An input the head's twin did not answer (it ran out of time, its first call raised) is
            # compared nowhere (`replay`): no other twin runs it, but the base's in the head's
            # session (a head still running where the base answers is a difference, CR.outlasted),
            # which then gives it no more time. The later twins compare only where both answered.
            unanswered = unanswered_by_both if side.startswith("later-") else unanswered_at_head
            skipped = [] if side == "base" and _MUTANT is None else unanswered
            spec = {"twin": True, "sys_path": sys_path, "calls": asked, "served": served,
                    "patient": _MUTANT is None and side in ("head", "base"),
                    "shapes": _MUTANT is not None, "later": in_later,
                    "own": os.path.abspath(root), "unasked": skipped, "argv": list(arguments) if in_later else [],
                    "impatient": unanswered if side == "base" else []}
            out[side] = self._restarting(work, f"twin-{side}", f"the {side} twin", spec, env, ["-O"] if in_later else [],
                                         script, errors, CR.CHILD_TIMEOUT * 4)
            if side == "head":
                unanswered_at_head = _unanswered(out["head"])
            elif side == "base":
                unanswered_by_both = _unanswered(out["head"], out["base"])
        return out

    @staticmethod
    def _restarting(work: str, name: str, who: str, spec: Dict[str, Any], env: Dict[str, str], flags: List[str],
                    script: str, errors: List[str], seconds: int, next_call: bool = False) -> List[List[List[Any]]]:
        """The entries for each of `spec`'s calls of one clean interpreter (`who`: a twin, a clean
        variant; `flags`: the later world's machine, CR.LATER_MACHINE), read as CR.read_twin reads
        them: started again after an input it ended in (CR.ENDED), at most CR.TWIN_ENDS times, from
        the input after it (`next_call`: from the next call), all within `seconds`. What it leaves
        unrun is CR.LOST."""
        entries: Dict[int, List[List[Any]]] = {}
        resume: Optional[Tuple[int, int]] = (0, 0)
        ends: List[str] = []  # how its interpreter ended, each time it did in the middle of an input
        why = ""
        finished = False
        deadline = time.monotonic() + seconds
        while resume is not None and not finished and len(ends) <= CR.TWIN_ENDS:
            cwd = tempfile.mkdtemp(dir=work)
            spec_path, got = (os.path.join(work, f"{name}-{len(ends)}{tail}.json") for tail in ("", "-out"))
            with open(spec_path, "w", encoding="utf-8") as f:
                json.dump({**spec, "resume": list(resume)}, f)
            ended: Optional[str] = None
            try:
                proc = subprocess.run([sys.executable, *flags, "-s", "-B", script, spec_path, got], cwd=cwd,
                                      env={**env, "HOME": cwd, "TMPDIR": cwd}, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      timeout=max(1.0, deadline - time.monotonic()))
                ended = CR.ended_by(proc.returncode, signal.SIGPROF)
                last = (proc.stderr.decode(errors="replace").strip().splitlines() or [""])[-1][:300]
                why = f"{who} exited {proc.returncode} without results: {last}"
            except subprocess.TimeoutExpired:  # the time is spent: not started again
                why = f"{who} ran over {seconds}s"
            try:
                with open(got, encoding="utf-8") as f:
                    read = CR.read_twin(f, ended)
            except OSError:
                read = CR.TwinRead({}, False, None, None)
            for call, items in read.entries.items():
                entries.setdefault(call, []).extend(items)
            finished, resume = read.finished, read.resume
            if read.ended_in is None:
                if not finished:
                    errors.append(why)
                break
            ends.append(str(ended))
            if next_call:
                resume = (read.ended_in + 1, 0)
            why = f"{who}'s interpreter ended {len(ends)} times (it is started again at most {CR.TWIN_ENDS} times)"
        if ends:
            errors.append(f"{who} {ends[0]} in the middle of an input, {len(ends)} time(s) in all; started again "
                          f"after each, at most {CR.TWIN_ENDS} times")
        if finished:
            return [entries.get(i, []) for i in range(len(spec["calls"]))]
        # what it did not run: from the input it would have started again at, or the call it was in
        start = resume[0] if resume is not None else max(entries, default=0)
        return [entries.get(i, []) + ([["", f"{CR.LOST}{why}"]] if i >= start else []) for i in range(len(spec["calls"]))]


# -- tracebacks and skips --------------------------------------------------------------------------

def _frames(excinfo: Any) -> List[types.FrameType]:
    """The raw traceback's frames, outermost first: no pytest Traceback API (it changed in 7.4)."""
    frames = []
    tb = excinfo.tb if excinfo is not None else None
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _hidden(frame: types.FrameType, excinfo: Any) -> bool:
    """pytest's rule: `__tracebackhide__` in the frame's locals, else its globals (may be callable)."""
    for scope in (frame.f_locals, frame.f_globals):
        if "__tracebackhide__" in scope:
            hide = scope["__tracebackhide__"]
            return bool(hide(excinfo) if callable(hide) else hide)
    return False


def _pytest_module(frame: types.FrameType) -> str:
    """`skipping`, `unittest`, `outcomes`, ... for a frame inside pytest itself, else ''."""
    parent, name = os.path.split(frame.f_code.co_filename)
    return name[:-3] if os.path.basename(parent) == "_pytest" and name.endswith(".py") else ""


def _origin(excinfo: Any) -> str:
    """Who raised a skip or xfail: the pytest module (`skipping` for markers, `unittest`) of the
    innermost frame outside pytest's outcome functions, or '' for the test's own code."""
    return next((m for m in map(_pytest_module, reversed(_frames(excinfo))) if m != "outcomes"), "")


def _skip_marker(item: Any, excinfo: Any, reason: Optional[str]) -> str:
    frames = _frames(excinfo)
    if any(_pytest_module(f) == "outcomes" and f.f_code.co_name == "importorskip" for f in frames):
        return "importorskip"
    origin = _origin(excinfo)
    if origin == "unittest":
        return "unittest"
    if origin != "skipping":
        return "pytest.skip"
    names = {m.name for m in item.iter_markers()} if item is not None else set()
    if "skipif" not in names:
        return "skip"
    if "skip" not in names:
        return "skipif"
    # Both: skipif markers are evaluated first, so a skip marker caused it only if its reason matches.
    for mark in item.iter_markers(name="skip"):
        if mark.kwargs.get("reason", mark.args[0] if mark.args else "unconditional skip") == reason:
            return "skip"
    return "skipif"


def _skip_reason(rep: Any) -> Optional[str]:
    longrepr = rep.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        message = str(longrepr[2])
        return message[len("Skipped: "):] if message.startswith("Skipped: ") else message
    return None


def _hypothesis_run(stats: Dict[str, Any]) -> Tuple[int, bool]:
    """(examples, exhausted) from Hypothesis' engine statistics (the same dict format in all 6.x)."""

    def cases(phase: str) -> List[Dict[str, Any]]:
        data = stats.get(phase + "-phase")
        return list(data.get("test-cases") or []) if isinstance(data, dict) else []

    ran = cases("reuse") + cases("generate")
    failing = any(c.get("status") == "interesting" for c in ran + cases("shrink"))
    examples = sum(1 for c in ran if c.get("status") in ("valid", "interesting"))
    exhausted = stats.get("stopped-because") == "nothing left to do" and bool(cases("generate")) and not failing
    return examples, exhausted


def _is_module(collector: Any) -> bool:
    return isinstance(collector, pytest.Module) and not isinstance(collector, pytest.Package)


def _is_hypothesis_test(item: Any) -> bool:
    return isinstance(item, pytest.Function) and bool(getattr(item.obj, "is_hypothesis_test", False))


def _versions() -> Versions:
    hypothesis = getattr(sys.modules.get("hypothesis"), "__version__", None)
    if hypothesis is None:  # installed but not imported (never import it just to ask)
        found = (glob.glob(os.path.join(p, "hypothesis-*.dist-info")) for p in sys.path if isinstance(p, str))
        dist = next((d for ds in found for d in ds), None)
        hypothesis = os.path.basename(dist)[len("hypothesis-"):-len(".dist-info")] if dist else None
    return Versions(python=platform.python_version(), pytest=str(pytest.__version__), hypothesis=hypothesis)


# -- the network -----------------------------------------------------------------------------------
_NET_EVENTS = frozenset(("socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo"))
_NET_KEPT = 1000


class _Network:
    """Where this process tried to reach beyond loopback, from Python's audit events (3.8 and
    later: a connect, a datagram sent, a name looked up), while the recorder records. An audit hook
    cannot be removed, so this one only stops adding; it never raises into the code it watches.
    Processes a test starts are not seen here."""

    def __init__(self) -> None:
        self.found: Set[str] = set()
        self.on = False
        self.local = {"", "localhost", "localhost.localdomain"}

    def start(self) -> None:
        if not hasattr(sys, "addaudithook"):
            return
        self.local.add(socket.gethostname().lower())
        self.on = True
        sys.addaudithook(self._hook)

    def stop(self) -> None:
        self.on = False

    def _hook(self, event: str, args: Tuple[Any, ...]) -> None:
        if event not in _NET_EVENTS or not self.on or len(self.found) >= _NET_KEPT:
            return
        try:
            if event == "socket.getaddrinfo":
                host, port = args[0], args[1]
            else:
                if getattr(args[0], "family", None) not in (socket.AF_INET, socket.AF_INET6) or not args[1]:
                    return
                host, port = args[1][0], args[1][1]
            if isinstance(host, bytes):
                host = host.decode("ascii", "replace")
            if isinstance(host, str) and self._beyond_loopback(host):
                where = f"[{host}]" if ":" in host else host
                self.found.add(where if port is None else f"{where}:{port}")
        except Exception:
            pass

    def _beyond_loopback(self, host: str) -> bool:
        name = host.lower().rstrip(".")
        if name in self.local or name.endswith(".localhost"):
            return False
        try:
            ip = ipaddress.ip_address(name.split("%")[0])
        except ValueError:
            return True  # a name to look up
        return not (ip.is_loopback or ip.is_unspecified)


# -- the recorder ----------------------------------------------------------------------------------

class Recorder:
    def __init__(self, config: Any) -> None:
        self.root = os.path.abspath(str(config.invocation_params.dir))  # the sandbox root (build root)
        self.rootdir = os.path.abspath(str(getattr(config, "rootpath", None) or config.rootdir))  # nodeids
        self.errors: List[str] = [_MUTANT_ERROR] if _MUTANT_ERROR else []
        self.unsupported: Optional[str] = None
        if getattr(config.option, "dist", "no") != "no":
            self.unsupported = "pytest-xdist runs the tests in workers this recorder does not see"
        self.configs: Dict[str, Dict[str, Any]] = {}
        self.cases: Dict[str, Dict[str, Any]] = {}
        self.hypothesis: Dict[str, List[Tuple[int, bool]]] = {}
        self.collected: Dict[str, Set[str]] = {}
        self.collection_errors: Dict[str, str] = {}
        self.referenced: Dict[str, Set[str]] = {}  # test file -> module files its namespace refers to
        self.expected: Set[str] = set()
        self.finished: Set[str] = set()
        self.interrupted: Optional[str] = None
        self.evidence = _Evidence()
        self.network = _Network()
        self._sources: Dict[str, Optional[str]] = {}
        self.sampler: Optional[_Sampler] = None
        self._guard(self.network.start)
        self._guard(self._load_configs)
        self._guard(self._start_sampler)
        self._guard(self.evidence.start, self.sampler.event if self.sampler is not None else None)
        # A mutant's own session (not the clean room's): its first failing test settles the mutant
        # (killed), so the session stops there and Hypothesis neither shrinks nor explains the
        # failing example. What a test does is unchanged; only the work after the verdict is.
        self.settle_early = _MUTANT is not None and self.sampler is None

    def _start_sampler(self) -> None:
        watch = os.environ.get(CR.ENV)
        if watch:
            base = os.environ.get(CR.BASE_ENV)
            self.sampler = _Sampler(CR.decode_watch(watch), self._source, CR.decode_base(base) if base else None)

    # -- plumbing ------------------------------------------------------------------------------
    def _guard(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a recorder step; its exception becomes a recorder error, never a pytest crash."""
        try:
            return fn(*args)
        except Exception as e:
            tb = e.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = f" ({os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno})" if tb else ""
            self.errors.append(f"{getattr(fn, '__name__', 'recorder')}: {type(e).__name__}: {e}{where}")
            return None

    def _rel(self, path: Any) -> str:
        return os.path.relpath(os.path.abspath(str(path)), self.root).replace(os.sep, "/")

    def _file_of(self, node: Any) -> str:
        path = getattr(node, "path", None)  # pytest >= 7; `fspath` before
        return self._rel(path if path is not None else node.fspath)

    def _source(self, filename: str) -> Optional[str]:
        """The sandbox-relative path of a code object's file, or None for machinery and non-files."""
        if filename not in self._sources:
            full = os.path.normpath(os.path.join(self.root, filename))
            rel = os.path.relpath(full, self.root)
            parts = rel.split(os.sep)
            ok = (filename.endswith(".py") and parts[0] != ".." and not EXCLUDED_DIRS.intersection(parts)
                  and os.path.isfile(full))
            self._sources[filename] = "/".join(parts) if ok else None
        return self._sources[filename]

    def _tail(self, text: str) -> Tuple[str, ...]:
        """The failure text's last lines, without the sandbox path or object addresses (they differ
        from run to run, and the same run should give the same file)."""
        text = ADDRESS_RE.sub("0x?", text.replace(self.root + os.sep, ""))
        return tuple(text.rstrip("\n").splitlines()[-TAIL_LINES:])

    def _load_configs(self) -> None:
        for path in sorted(glob.glob(os.path.join(self.root, CONFIG_GLOB))):
            self._guard(self._load_config, path)

    def _load_config(self, path: str) -> None:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        if not isinstance(config, dict) or not isinstance(config.get("source"), str):
            raise ValueError(f"{self._rel(path)} has no string `source`")
        self.configs[config["source"]] = config

    # -- collection ----------------------------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector: Any) -> Any:
        self._guard(self._collect_start, collector)
        outcome = yield
        if outcome.excinfo is None:
            self._guard(self._collect_end, collector, outcome.get_result())
        else:
            self._guard(self.evidence.pause)

    def _collect_start(self, collector: Any) -> None:
        # A module's collection imports it: that code counts for the module being collected.
        if _is_module(collector):
            self.evidence.record(self._file_of(collector), importing=True)

    def _collect_end(self, collector: Any, rep: Any) -> None:
        file = self._file_of(collector)
        if _is_module(collector):
            self.evidence.pause()
        if rep.passed and _is_module(collector):
            self.referenced[file] = self._referenced_modules(collector.obj)
            return
        if not (rep.failed or rep.skipped):
            return
        excinfo = getattr(rep.__dict__.get("call"), "excinfo", None)  # pytest keeps the CallInfo there
        nodeid = rep.nodeid or "<session>"
        self.collected.setdefault(file, set())
        if rep.failed:
            exception = excinfo.typename if excinfo is not None else "CollectError"
            tail = self._tail(rep.longreprtext)
            self.collection_errors[file] = "\n".join(tail)
            self.cases[nodeid] = dict(
                file=file, outcome="error", phase="collect", exception=exception, tail=tail,
                signature=failure_signature(nodeid, exception, self._signature_frames(excinfo, collector)))
        else:
            reason = _skip_reason(rep)
            self.cases[nodeid] = dict(
                file=file, outcome="skipped", phase="collect", exception="skip", reason=reason,
                marker=_skip_marker(None, excinfo, reason), signature=failure_signature(nodeid, "skip", []))

    def _referenced_modules(self, module: Any) -> Set[str]:
        """Files of the modules a test module's namespace refers to (modules, functions, classes):
        when Pants batches files, a module imported by an earlier file is not imported again."""
        files = set()
        for value in list(vars(module).values()):
            if isinstance(value, types.ModuleType):
                owner: Any = value
            elif isinstance(value, (types.FunctionType, type)):
                owner = sys.modules.get(vars(value).get("__module__") if isinstance(value, type) else value.__module__)
            else:
                continue
            filename = getattr(owner, "__file__", None)
            if isinstance(filename, str):
                files.add(filename)
        return files

    def pytest_deselected(self, items: List[Any]) -> None:
        self._guard(self._deselected, items)

    def _deselected(self, items: List[Any]) -> None:
        for item in items:
            file = self._file_of(item)
            self.collected.setdefault(file, set()).add(item.nodeid)
            self.cases.setdefault(item.nodeid, dict(
                file=file, outcome="skipped", phase="collect", marker="deselected", exception="skip",
                signature=failure_signature(item.nodeid, "skip", [], self._shape(item))))

    def pytest_collection_finish(self, session: Any) -> None:
        self._guard(self._collection_finish, session.items)

    def _collection_finish(self, items: List[Any]) -> None:
        for item in items:
            self.collected.setdefault(self._file_of(item), set()).add(item.nodeid)
            self.expected.add(item.nodeid)

    # -- running -------------------------------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: Any) -> Any:
        self._guard(lambda: self.evidence.record(self._file_of(item)))
        if self.sampler is not None:
            self.sampler.active = True
            self.sampler.patched = bool(PATCHING_FIXTURES.intersection(getattr(item, "fixturenames", ()) or ())
                                        or getattr(getattr(item, "obj", None), "patchings", None))
        yield
        self._guard(self.evidence.pause)
        if self.sampler is not None:
            self.sampler.active = False

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_call(self, item: Any) -> Any:
        # trylast: inside Hypothesis' own wrapper, whose statistics collector we chain to.
        undo = [self._guard(self._count_examples, item), self._guard(self._profile_bodies_only, item),
                self._guard(self._no_shrinking, item)]
        yield
        for restore in undo:
            if restore is not None:
                self._guard(restore)

    def _count_examples(self, item: Any) -> Optional[Callable[[], None]]:
        statistics = sys.modules.get("hypothesis.statistics")
        collector = getattr(statistics, "collector", None)
        if collector is None:
            return None
        runs = self.hypothesis.setdefault(item.nodeid, []) if _is_hypothesis_test(item) else []

        def note(stats: Any) -> Any:
            self._guard(lambda: runs.append(_hypothesis_run(stats)))
            if runs and item.nodeid not in self.hypothesis:
                self.hypothesis[item.nodeid] = runs  # e.g. a state machine run inside a plain test
            return previous(stats) if previous is not None else None

        previous = collector.value
        context = collector.with_value(note)
        context.__enter__()
        return lambda: context.__exit__(None, None, None)

    def _no_shrinking(self, item: Any) -> Optional[Callable[[], None]]:
        """In a mutant's session, the property's settings without the phases that follow a failure
        (shrink, explain): the first failing example kills the mutant as well as the smallest does."""
        hypothesis = sys.modules.get("hypothesis")
        if not self.settle_early or hypothesis is None or not _is_hypothesis_test(item):
            return None
        test = getattr(item.obj, "__func__", item.obj)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        phases = tuple(getattr(current, "phases", None) or ())
        kept = tuple(p for p in phases if getattr(p, "name", "") not in SETTLED_PHASES)
        if not phases or kept == phases:
            return None
        test._hypothesis_internal_use_settings = hypothesis.settings(current, phases=kept)
        return lambda: setattr(test, "_hypothesis_internal_use_settings", current)

    def _profile_bodies_only(self, item: Any) -> Optional[Callable[[], None]]:
        """With the profile hook, a property records inside its body only: Hypothesis' engine
        would pay for every call it makes (slow enough to trip its health checks)."""
        handle = getattr(item.obj, "hypothesis", None) if _is_hypothesis_test(item) else None
        inner = getattr(handle, "inner_test", None)
        if not self.evidence.profiling or inner is None or inspect.iscoroutinefunction(inner):
            return None  # (async bodies are wrapped by their own plugins, which look for a coroutine)
        evidence = self.evidence

        @functools.wraps(inner)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            evidence.resume()
            try:
                return inner(*args, **kwargs)
            finally:
                evidence.pause()

        # Hypothesis seeds derandomized runs and keys its database by a digest of this function's
        # source and signature: the wrapper must digest exactly as the body does.
        recorded.__signature__ = inspect.signature(inner)  # type: ignore[attr-defined]
        handle.inner_test = recorded
        evidence.pause()

        def restore() -> None:
            handle.inner_test = inner
            evidence.resume()

        return restore

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        # tryfirst: the outermost wrapper, so it sees the report every other plugin settled on.
        outcome = yield
        if outcome.excinfo is None:
            self._guard(self._report, item, call, outcome.get_result())

    def _shape(self, item: Any) -> Tuple[str, ...]:
        return parameter_shape(getattr(getattr(item, "callspec", None), "params", None) or {})

    def _signature_frames(self, excinfo: Any, node: Any) -> List[Frame]:
        """From the test file's first frame inward, hidden frames dropped (as pytest cuts them)."""
        frames = _frames(excinfo)
        own = os.path.normcase(os.path.abspath(str(getattr(node, "path", None) or node.fspath)))
        start = next((i for i, f in enumerate(frames)
                      if os.path.normcase(os.path.abspath(f.f_code.co_filename)) == own), 0)
        out = []
        for frame in frames[start:]:
            if self._guard(_hidden, frame, excinfo):
                continue
            path = frame.f_code.co_filename
            if os.path.isabs(path):
                path = os.path.relpath(path, self.rootdir)
            out.append(Frame(path=path.replace(os.sep, "/"), function=frame.f_code.co_name))
        return out

    def _report(self, item: Any, call: Any, rep: Any) -> None:
        previous = self.cases.get(item.nodeid)
        if previous is not None and previous["outcome"] in FAILED:
            return  # the first failure is the test's outcome; a later phase cannot hide it
        case = self._classify(item, call, rep)
        if case is not None:
            case["file"] = self._file_of(item)
            case["phase"] = rep.when
            self.cases[item.nodeid] = case
            if self.settle_early and case["outcome"] in FAILED:
                item.session.shouldfail = f"oracle-gate: a mutant's session ends at its first failing test, {item.nodeid}"

    def _classify(self, item: Any, call: Any, rep: Any) -> Optional[Dict[str, Any]]:
        nodeid, excinfo, shape = item.nodeid, call.excinfo, self._shape(item)
        xfail = hasattr(rep, "wasxfail")
        if rep.outcome == "passed":
            if xfail:
                return dict(outcome="xpassed", marker="xfail", reason=rep.wasxfail, exception="xfail",
                            signature=failure_signature(nodeid, "xfail", [], shape))
            return dict(outcome="passed") if rep.when == "call" else None
        if rep.outcome == "failed":
            tail = self._tail(rep.longreprtext)
            outcome = "failed" if rep.when == "call" else "error"
            if excinfo is None:  # a strict xfail that passed, or a plugin's own failure
                text = str(rep.longrepr)
                strict = text.startswith("[XPASS(strict)]")
                return dict(outcome=outcome, exception="Failed", tail=tail, marker="xfail" if strict else None,
                            reason=text[len("[XPASS(strict)]"):].strip() if strict else None,
                            signature=failure_signature(nodeid, "Failed", [], shape))
            return dict(outcome=outcome, exception=excinfo.typename, tail=tail,
                        signature=failure_signature(nodeid, excinfo.typename,
                                                    self._signature_frames(excinfo, item), shape))
        if rep.outcome != "skipped":
            return None  # e.g. pytest-rerunfailures' "rerun": the final report follows
        if xfail:
            imperative = (excinfo is not None and isinstance(excinfo.value, pytest.xfail.Exception)
                          and _origin(excinfo) != "skipping")
            reason = str(rep.wasxfail)
            if imperative and reason.startswith("reason: "):  # pytest < 8 prefixes pytest.xfail()'s reason
                reason = reason[len("reason: "):]
            return dict(outcome="xfailed", marker="pytest.xfail" if imperative else "xfail", reason=reason,
                        exception="xfail", tail=self._tail(rep.longreprtext),
                        signature=failure_signature(nodeid, "xfail", [], shape))
        reason = _skip_reason(rep)
        return dict(outcome="skipped", marker=_skip_marker(item, excinfo, reason), reason=reason,
                    exception="skip", signature=failure_signature(nodeid, "skip", [], shape))

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.finished.add(nodeid)

    # -- the end -------------------------------------------------------------------------------
    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        value = excinfo.value
        if isinstance(value, pytest.exit.Exception):
            reason = f"pytest.exit(returncode={value.returncode!r}): {value.msg}"
        else:  # KeyboardInterrupt, or pytest's Interrupted (e.g. "1 error during collection")
            reason = f"{type(value).__name__}: {value}" if str(value) else type(value).__name__
        self.interrupted = self.interrupted or reason

    def pytest_internalerror(self, excinfo: Any) -> None:
        message = str(excinfo.value).splitlines()[0] if str(excinfo.value) else ""
        self.interrupted = self.interrupted or f"internal error: {excinfo.typename}: {message}"

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: Any) -> Any:
        # tryfirst: the outermost wrapper, so the exit status is the one other plugins settled on.
        yield
        self._guard(self.evidence.stop)
        self.network.stop()
        results = self._guard(self._results, session)
        if results is None:  # only a recorder bug gets here; still leave a (incomplete) record
            results = SessionResults(complete=False, exit_status=int(session.exitstatus), versions=_versions(),
                                     recorder_errors=tuple(self.errors))
        self._guard(self._write, results)
        if self.sampler is not None:
            cleanroom = self._guard(self.sampler.replay, self.root)
            self._guard(self._write_file, CR.RESULTS_RELPATH, CR.dumps(
                cleanroom if cleanroom is not None else CR.CleanroomResults(errors=tuple(self.errors[-1:]))))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for error in self.errors:
            terminalreporter.write_line(f"oracle-gate recorder error: {error}")

    def pytest_unconfigure(self) -> None:
        self._guard(self.evidence.stop)

    def _results(self, session: Any) -> SessionResults:
        if self.evidence.problem:
            self.errors.append(self.evidence.problem)
        if self.unsupported:
            self.errors.append(self.unsupported)
        stop = getattr(session, "shouldfail", False) or getattr(session, "shouldstop", False)
        interrupted = self.interrupted or (str(stop) if stop else None)
        complete = (interrupted is None and self.expected <= self.finished and not self.collection_errors
                    and self.unsupported is None)
        tests = []
        for nodeid, case in self.cases.items():
            runs = self.hypothesis.get(nodeid)
            if runs is not None and case["outcome"] != "skipped":
                case = dict(case, examples=sum(n for n, _ in runs), exhausted=bool(runs) and all(e for _, e in runs))
            try:
                tests.append(TestRecord(nodeid=nodeid, **case))
            except ResultsError as e:
                self.errors.append(f"record: {e}")
        rebound = self._guard(self._rebound) or ()
        return SessionResults(
            complete=complete, exit_status=int(session.exitstatus), versions=_versions(), interrupted=interrupted,
            tests=tuple(tests), files=self._files(), recorder_errors=tuple(self.errors), rebound=rebound,
            connections=tuple(self.network.found),
            mutant=None if _MUTANT is None else Mutant(id=_MUTANT.id, path=_MUTANT.path, served=_MUTANT.served))

    def _files(self) -> Tuple[FileRecord, ...]:
        executed: Dict[str, Set[Tuple[str, int, str]]] = {}
        module_code: Dict[str, Optional[Tuple[str, int, str]]] = {}
        for key, codes in self.evidence.codes.items():
            target = key[: -len(IMPORT_SUFFIX)] if key.endswith(IMPORT_SUFFIX) else key
            found = executed.setdefault(target, set())
            for code in codes:
                if key != target and not _is_body(code):
                    continue  # called while importing, not while a test ran
                path = self._source(code.co_filename)
                if path is not None:
                    found.add((path, code.co_firstlineno, code.co_name))
                    if code.co_name == "<module>":
                        module_code[path] = (path, code.co_firstlineno, code.co_name)
        paths = set(self.collected) | set(self.collection_errors) | set(self.configs)
        paths |= set(executed)
        records = []
        for path in sorted(paths):
            found = executed.get(path, set())
            for filename in self.referenced.get(path, ()):
                module = self._source(filename)
                if module is not None and module not in module_code:  # imported before recording began
                    module_code[module] = self._module_code(module, filename)
                if module is not None and module_code[module] is not None:
                    found.add(module_code[module])
            config = self.configs.get(path, {})
            records.append(FileRecord(
                path=path, address=config.get("address"), collected=tuple(self.collected.get(path, ())),
                collection_error=self.collection_errors.get(path), executed=tuple(found),
                fixtures=tuple((f, self._sha256(f)) for f in config.get("fixtures") or ())))
        return tuple(records)

    def _rebound(self) -> Tuple[Rebound, ...]:
        """Every sandbox module's names its file spells as `def` that hold, now, a callable the
        module did not define under that name: an import or an alias the gate tells apart from a
        rebinding by reading the module (a test's monkeypatch is undone by now)."""
        out: Dict[Tuple[str, str], Rebound] = {}
        for module in list(sys.modules.values()):
            filename = getattr(module, "__file__", None) if isinstance(module, types.ModuleType) else None
            path = self._source(filename) if isinstance(filename, str) else None
            if path is None:
                continue
            try:
                with open(os.path.join(self.root, path), "rb") as f:
                    defined = {m.decode("ascii", "replace") for m in _DEF_RE.findall(f.read())}
            except OSError:
                continue
            try:
                names = self._names(module, defined)
            except Exception:  # a class whose attributes raise: its module is not judged
                continue
            for name, value in names:
                try:
                    bound = _bound_to(value, name.rpartition(".")[2], path, self._source)
                except Exception:  # an object whose attributes raise: what it is, by type
                    bound = ("", f"{type(value).__module__}.{type(value).__qualname__} object")
                if bound is not None:  # (a module under two names is one file)
                    out[path, name] = Rebound(path, name, *bound)
        return tuple(out.values())

    @staticmethod
    def _names(module: types.ModuleType, defined: Set[str]) -> List[Tuple[str, Any]]:
        """A module's names spelled `def`, and `Class.name` for those of the classes it defines."""
        out = []
        for name, value in list(vars(module).items()):
            if name in defined:
                out.append((name, value))
            elif isinstance(value, type) and value.__module__ == module.__name__ and value.__qualname__ == name:
                for attr, member in list(vars(value).items()):
                    if attr in defined:
                        out.append((f"{name}.{attr}", getattr(member, "__func__", member)
                                    if isinstance(member, (staticmethod, classmethod)) else member))
        return out

    def _module_code(self, path: str, filename: str) -> Optional[Tuple[str, int, str]]:
        try:
            with open(os.path.join(self.root, path), "rb") as f:
                return path, compile(f.read(), filename, "exec", dont_inherit=True).co_firstlineno, "<module>"
        except (OSError, SyntaxError, ValueError):
            return None

    def _sha256(self, path: str) -> Optional[str]:
        try:
            with open(os.path.join(self.root, path), "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        except OSError:
            return None

    def _write(self, results: SessionResults) -> None:
        self._write_file(RESULTS_RELPATH, dumps(results))

    def _write_file(self, relpath: str, data: bytes) -> None:
        _write_extra_output(self.root, relpath, data)


# -- registration ----------------------------------------------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: Any) -> None:
    # As early as a plugin can run, so a mutant is served even to modules conftest.py imports.
    try:
        _install_mutant(str(early_config.invocation_params.dir))
    except Exception as e:  # never let the recorder stop pytest
        sys.stderr.write(f"oracle-gate recorder error: {type(e).__name__}: {e}\n")


def pytest_configure(config: Any) -> None:
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: the controller's recorder marks the session incomplete
    try:
        _install_mutant(str(config.invocation_params.dir))
        config.pluginmanager.register(Recorder(config), "oracle-gate-recorder")
    except Exception as e:
        sys.stderr.write(f"oracle-gate recorder error: {type(e).__name__}: {e}\n")


def pytest_unconfigure() -> None:
    if _MUTANT is not None and _MUTANT in sys.meta_path:
        sys.meta_path.remove(_MUTANT)
