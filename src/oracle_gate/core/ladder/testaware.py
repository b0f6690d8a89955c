"""Production code that can tell it is under test: what a production diff adds that behaves
differently when pytest or Hypothesis is loaded, reads the recorder's results, traces the
interpreter, writes the oracles that judge it, or rebinds what another module defines (a builtin,
another module's function: its callers' oracles never import the module that does it).

Read from the AST with names resolved through imports and aliases, and strings folded through
concatenation, f-strings, `join`, `format`, slicing and path joins, so `import pytest as p`,
`sys.modules.get("py" + "test")` and `Path("oracle") / "fixtures"` are all seen. A string that is
never used (a docstring, a lone constant statement) and a comment are never findings.
"""
from __future__ import annotations

import ast
import functools
import re
import string
from collections import Counter
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

from .mutants import message_parts
from ..source.stdlib import (MODULE_GENERATORS, REFLECTION, STATE_RESULTS, UNSEEDED, VERSION_NAMES, given_a_zone,
                             locale_formatted, machine_names, through_an_instance, under)
from ..source.symbols import (MODULE, Names, SourceError, argument, bounded, canonical, constant, dotted, is_noop,
                              module_data, parse, render, statement_expressions, subscript_index, walk_owned,
                              walk_scope)

# The read-only scans of one changed file (messages, asserts, finally exits, shared results, locks)
# parse each side once between them; none of them changes the tree.
_read = functools.lru_cache(maxsize=4)(parse)

TEST_MODULES = ("pytest", "_pytest", "hypothesis", "py.test")
# Containers that show whether (or how) a test runner is here.
GENERIC_MODULES_LOOKUP = "inspects the interpreter (a sys.modules lookup)"
INTROSPECTED = {"sys.modules": "sys.modules", "sys.argv": "sys.argv", "sys.orig_argv": "sys.argv",
                "os.environ": "os.environ", "os.environb": "os.environ", "os.getenv": "os.environ",
                "os.getenvb": "os.environ", "sys._getframe": "the call stack", "inspect.stack": "the call stack",
                "inspect.currentframe": "the call stack", "traceback.extract_stack": "the call stack",
                "pkgutil.iter_modules": "the installed modules"}
MENTIONS_RUNNER = re.compile(r"pytest|hypothesis|py\.test|oracle[-_]gate", re.IGNORECASE)
# The recorder's results and Pants' extra output; written without the literal words on purpose so
# that this module gives no finding on itself.
RESULTS_PATH = re.compile(r"extra[-]output|oracle[-]gate/results|\.oracle[-]gate")
TRACING = ("sys.settrace", "sys.setprofile", "sys.gettrace", "sys.getprofile", "sys.monitoring",
           "threading.settrace", "threading.setprofile", "threading.settrace_all_threads",
           "threading.setprofile_all_threads", "threading.gettrace", "threading.getprofile",
           "ctypes.pythonapi.PyEval_SetTrace", "ctypes.pythonapi.PyEval_SetProfile")
MODULE_LOADERS = frozenset({"importlib.import_module", "__import__"})
# Calls that answer whether (or which version of) a module or distribution is installed.
INSTALLED_PROBES = frozenset({"importlib.util.find_spec", "importlib.find_loader", "pkgutil.find_loader",
                              "pkgutil.get_loader", "importlib.metadata.version", "importlib.metadata.distribution",
                              "pkg_resources.get_distribution", "pkg_resources.require"})
IMPORTERS = MODULE_LOADERS | INSTALLED_PROBES
# Callables that write, replace or remove a path: the positions and keywords of those paths.
PATH_WRITERS: Dict[str, Tuple[Tuple[int, str], ...]] = {
    "shutil.copy": ((1, "dst"),), "shutil.copy2": ((1, "dst"),), "shutil.copyfile": ((1, "dst"),),
    "shutil.copytree": ((1, "dst"),), "shutil.copymode": ((1, "dst"),), "shutil.copystat": ((1, "dst"),),
    "shutil.move": ((0, "src"), (1, "dst")), "shutil.rmtree": ((0, "path"),),
    "os.replace": ((0, "src"), (1, "dst")), "os.rename": ((0, "src"), (1, "dst")),
    "os.renames": ((0, "old"), (1, "new")), "os.remove": ((0, "path"),), "os.unlink": ((0, "path"),),
    "os.rmdir": ((0, "path"),), "os.truncate": ((0, "path"),), "os.symlink": ((1, "dst"),),
    "os.link": ((1, "dst"),), "os.chmod": ((0, "path"),), "os.utime": ((0, "path"),),
    "pathlib.Path.write_text": ((0, "self"),), "pathlib.Path.write_bytes": ((0, "self"),),
}
PATH_METHODS = ("write_text", "write_bytes", "touch", "unlink", "rename", "replace", "rmdir", "symlink_to",
                "hardlink_to", "chmod")
PATH_RESULTS = ("parent", "with_name", "with_suffix", "with_stem", "joinpath", "resolve", "absolute", "expanduser")
# The interpreter's own state, which honest production code has no use for and code that wants to
# know whether it runs under a test runner (or to tamper with what the runner records) does:
# frames and the call stack, the garbage collector's object graph, trace and profile hooks,
# faulthandler (pytest enables it), the import machinery, exit hooks and hard exits.
INTERPRETER = ("sys._getframe", "sys._current_frames", "inspect.stack", "inspect.currentframe",
               "inspect.getouterframes", "inspect.getinnerframes", "inspect.trace", "traceback.walk_stack",
               "traceback.extract_stack", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
               "faulthandler", "threading._profile_hook", "threading._trace_hook", "atexit.register",
               "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "os._exit", "sys.addaudithook")
# A module's or an object's namespace, and what writes into one (`f.__globals__.update(...)`).
NAMESPACES = ("__dict__", "__globals__")
NAMESPACE_WRITERS = ("update", "setdefault", "__setitem__", "__delitem__", "pop", "popitem", "clear")
FRAME_ATTRIBUTES = ("tb_frame", "f_back", "f_globals", "f_locals", "f_builtins", "gi_frame", "cr_frame", "ag_frame")
# The process's own record in procfs (its parent, command line and environment: the test runner's).
OBSCURE = re.compile(r"/proc/sel[f]", re.IGNORECASE)
WRITE_MODE = re.compile(r"[wax+]")
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    what: str


def _runner_modules(strings: Iterable[str]) -> List[str]:
    out = []
    for s in strings:
        root = s.split(".")[0] if s != "py.test" else "pytest"
        if root in TEST_MODULES:
            out.append(root)
    return sorted(set(out))


def _is_under(path: str, oracle: str) -> bool:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    want = [p for p in oracle.replace("\\", "/").split("/") if p not in ("", ".")]
    if not want:
        return False
    anchored = not (path.startswith("/") or (parts and parts[0] in ("..", "*")) or "*" in parts)
    starts = [0] if anchored else range(len(parts))
    return any(parts[i: i + len(want)] == want for i in starts)


class _Scan:
    def __init__(self, source: str, oracle_paths: Tuple[str, ...]) -> None:
        tree = parse(source)
        self.names = Names(tree)
        self.parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        self.oracle_paths = oracle_paths
        self.found: List[Tuple[str, int, str]] = []  # (owner, line, what)

    def add(self, node: ast.AST, what: str) -> None:
        self.found.append((self.names.owner(node), getattr(node, "lineno", 0), what))

    def run(self) -> List[Tuple[str, int, str]]:
        for node, _owner in self.names.walk():
            if isinstance(node, ast.Import):
                for module in _runner_modules(a.name for a in node.names):
                    self.add(node, f"imports {module}")
            elif isinstance(node, ast.ImportFrom) and not node.level:
                for module in _runner_modules([node.module or ""]):
                    self.add(node, f"imports {module}")
                for alias in node.names:
                    self._tracing(node, {f"{node.module}.{alias.name}"})
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self._rebinds(node, node.value, node.attr if isinstance(node, ast.Attribute) else None)
            elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
                resolved = self.names.resolve(node)
                self._tracing(node, resolved)
                self._interpreter(node, resolved)
            if isinstance(node, ast.stmt) and not is_noop(node):
                self._statement(node)
        # The most specific word wins: a line that names the runner it looks up in sys.modules is
        # not also reported as an anonymous sys.modules lookup.
        named = {(owner, line) for owner, line, what in self.found
                 if what.startswith("looks up ") and what.endswith(" in sys.modules")}
        return [f for f in self.found if not (f[2] == GENERIC_MODULES_LOOKUP and (f[0], f[1]) in named)]

    def _tracing(self, node: ast.AST, names: Set[str]) -> None:
        for name in names:
            for hook in TRACING:
                if name == hook or name.startswith(hook + "."):
                    self.add(node, f"uses {hook}")

    def _interpreter(self, node: ast.AST, names: Set[str]) -> None:
        for name in names:
            for hook in INTERPRETER:
                if name == hook or name.startswith(hook + "."):
                    self.add(node, f"inspects the interpreter ({hook})")
            if name == "sys.modules" and self._queries_modules(node):
                self.add(node, GENERIC_MODULES_LOOKUP)
        if isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRIBUTES:
            self.add(node, f"inspects the interpreter (frame attribute {node.attr})")

    def _queries_modules(self, node: ast.AST) -> bool:
        """`x in sys.modules`, `sys.modules.get(...)`, iterating it, or `sys.modules[k]` for any key
        but `__name__` (the module's own entry, a common honest idiom)."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Compare):
            return True
        if isinstance(parent, ast.Attribute) and parent.attr in ("get", "keys", "items", "values", "copy", "__contains__"):
            return True
        if isinstance(parent, ast.Subscript) and parent.value is node:
            key = parent.slice.value if isinstance(parent.slice, ast.Index) else parent.slice  # type: ignore[attr-defined]
            return not (isinstance(key, ast.Name) and key.id == "__name__")
        return isinstance(parent, (ast.For, ast.comprehension, ast.Call)) and not isinstance(parent, ast.Attribute)

    def _foreign(self, node: ast.AST, depth: int = 0) -> Optional[str]:
        """The dotted name of what `node` is when another module defines it: a name bound only by
        imports (or the builtins), an attribute of one, a module an importer returns."""
        if depth > 8:
            return None
        if isinstance(node, ast.Name):
            bindings = self.names.bindings(node)
            if not bindings:
                return "builtins" if node.id == "__builtins__" else None
            if all(b[0] == "import" for b in bindings):
                return sorted(b[1] for b in bindings)[0]
            return None
        if isinstance(node, ast.Attribute):
            if node.attr in NAMESPACES:  # a function's module globals, an object's attributes
                return self._foreign(node.value, depth + 1)
            inner = self._foreign(node.value, depth + 1)
            return f"{inner}.{node.attr}" if inner else None
        if isinstance(node, ast.Call):
            funcs = self.names.resolve(node.func)
            if "vars" in funcs and node.args:
                return self._foreign(node.args[0], depth + 1)
            if funcs & IMPORTERS:
                return min(self.names.resolve(node), default="an imported module")
        if isinstance(node, ast.Subscript) and "sys.modules" in self.names.resolve(node.value):
            return min(self.names.resolve(node), default="a module in sys.modules")
        return None

    def _rebinds(self, node: ast.AST, obj: ast.AST, attr: Optional[str]) -> None:
        """Code that rebinds (or deletes) what another module defines, a builtin or a module's
        function: the code that calls it is judged by oracles that never import this module."""
        owner = self._foreign(obj)
        if owner is None:
            return
        if attr is None:  # a namespace's item: vars(m)[k], m.__dict__[k], __builtins__[k]
            keys = self.names.strings(subscript_index(node)) if isinstance(node, ast.Subscript) else set()
            attr = sorted(keys)[0] if keys else "?"
        self.add(node, f"rebinds {owner}.{attr}, defined outside this module (what uses it there is judged "
                       f"by oracles that never import this one)")

    def _call(self, call: ast.Call) -> None:
        funcs = self.names.resolve(call.func)
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in NAMESPACE_WRITERS and (
                (isinstance(func.value, ast.Attribute) and func.value.attr in NAMESPACES)
                or (isinstance(func.value, ast.Call) and "vars" in self.names.resolve(func.value.func))):
            keys = set().union(*(self.names.strings(k) for k in call.args[:1])) if call.args else set()
            keys |= {k.arg for k in call.keywords if k.arg}
            self._rebinds(call, func.value, ", ".join(sorted(keys)) or "?")
        if funcs & {"setattr", "delattr"} and call.args:
            name = argument(call, 1, "name")
            keys = self.names.strings(name) if name is not None else set()
            self._rebinds(call, call.args[0], sorted(keys)[0] if keys else "?")
        elif isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__"):
            # `m.__setattr__(name, v)`, or through the type: `object.__setattr__(m, name, v)`.
            target, rest = (func.value, call.args) if self._foreign(func.value) not in (None, "builtins.object") \
                else (call.args[0] if call.args else func.value, call.args[1:])
            keys = self.names.strings(rest[0]) if rest else set()
            self._rebinds(call, target, sorted(keys)[0] if keys else "?")
        if funcs & IMPORTERS and call.args:
            for module in _runner_modules(self.names.strings(call.args[0])):
                self.add(call, f"imports {module}")
        for target in self._written_paths(call, funcs):
            if target is None:
                continue
            for value in self.names.strings(target, wildcard=True):
                for oracle in self.oracle_paths:
                    if _is_under(value, oracle):
                        self.add(call, f"writes oracle path {value}")

    def _written_paths(self, call: ast.Call, funcs: Set[str]) -> Iterator[ast.AST]:
        if "open" in funcs:
            mode = argument(call, 1, "mode")
            modes = self.names.strings(mode) if mode is not None else {"r"}
            if not modes or any(WRITE_MODE.search(m) for m in modes):
                yield argument(call, 0, "file")  # type: ignore[misc]
        if "os.open" in funcs:
            flags = argument(call, 1, "flags")
            named = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in ast.walk(flags)} \
                if flags is not None else set()
            if named & set(WRITE_FLAGS) or (flags is not None and not constant(flags)[0] and not named):
                yield argument(call, 0, "path")  # type: ignore[misc]
        for func in funcs & set(PATH_WRITERS):
            for position, keyword in PATH_WRITERS[func]:
                target = argument(call, position, keyword)
                if target is not None:
                    yield target
        if isinstance(call.func, ast.Attribute) and not funcs & (set(PATH_WRITERS) | {"open", "os.open"}):
            method = call.func.attr
            if method in ("rename", "replace") and not self._path_like(call.func.value):
                return  # str.replace, not Path.replace
            if method in PATH_METHODS:
                yield call.func.value
                if method in ("rename", "replace", "symlink_to", "hardlink_to") and call.args:
                    yield call.args[0]
            elif method == "open":
                mode = argument(call, 0, "mode")
                if mode is not None and any(WRITE_MODE.search(m) for m in self.names.strings(mode) or {"w"}):
                    yield call.func.value

    def _path_like(self, node: ast.AST, depth: int = 0) -> bool:
        """A pathlib path: built by Path(...), `/`, or a path method, possibly through a name."""
        if depth > 8:
            return False
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return True
        if isinstance(node, ast.Call):
            if "pathlib.Path" in self.names.resolve(node.func):
                return True
            node = node.func
        if isinstance(node, ast.Attribute):
            return node.attr in PATH_RESULTS or self._path_like(node.value, depth + 1)
        if isinstance(node, ast.Name):
            return any(b[0] == "value" and b[1] is not None and self._path_like(b[1], depth + 1)
                       for b in self.names.bindings(node))
        return False

    def _statement(self, stmt: ast.stmt) -> None:
        """A statement's own expressions (not its nested blocks): a runner's name or variable
        looked up in sys.modules, argv or the environment; a results path."""
        nodes = statement_expressions(stmt)
        introspects = sorted({INTROSPECTED[hook] for n in nodes
                              if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))
                              for name in self.names.resolve(n) for hook in INTROSPECTED
                              if name == hook or name.startswith((hook + ".", hook + "[", hook + "("))})
        strings: Set[str] = set()
        for n in nodes:
            if isinstance(n, (ast.Name, ast.JoinedStr, ast.BinOp, ast.Call, ast.Subscript)) or constant(n)[0]:
                strings |= self.names.strings(n)
        mentions = sorted((s for s in strings if MENTIONS_RUNNER.search(s)), key=lambda s: (-len(s), s))
        if introspects and mentions:
            self.add(stmt, f"looks up {mentions[0]!r} in {introspects[0]}")
        for s in sorted(strings):
            match = RESULTS_PATH.search(s)
            if match:
                self.add(stmt, f"refers to the results path ({match.group(0)})")
                break
        for s in sorted(strings):
            match = OBSCURE.search(s)
            if match:
                self.add(stmt, f"inspects the interpreter ({match.group(0)})")
                break


def _findings(source: Optional[str], oracle_paths: Tuple[str, ...]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    seen: Set[Tuple[str, int, str]] = set()
    out = []
    for item in _Scan(source, oracle_paths).run():
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


@bounded
def test_aware_findings(path: str, base: Optional[str], head: Optional[str],
                        oracle_paths: Iterable[str] = ()) -> Tuple[Finding, ...]:
    """What `head` adds over `base` (None: absent) that lets production code behave differently
    under test. A finding the base already had in the same symbol is not reported again, so moving
    code or editing around it adds nothing. SourceError if either side does not parse."""
    paths = tuple(p for p in oracle_paths if p.strip("/."))
    return _added(path, _findings(base, paths), _findings(head, paths))


def _added(path: str, base: Iterable[Tuple[str, int, str]], head: Iterable[Tuple[str, int, str]]) -> Tuple[Finding, ...]:
    """The head's (owner, line, what) items the base did not have in the same symbol."""
    before = Counter((owner, what) for owner, _line, what in base)
    out = []
    for owner, line, what in head:
        if before[(owner, what)] > 0:
            before[(owner, what)] -= 1
            continue
        out.append(Finding(path, line, what))
    return tuple(sorted(out))


@bounded
def finally_exits(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The `return`, `break` and `continue` statements `head` adds over `base` that leave a
    `finally` block (PEP 765; Python 3.14 warns): one discards any exception in flight, so a
    guard's raise still stands in the code and never reaches a caller. SourceError if either side
    does not parse."""
    return _added(path, _exits(base), _exits(head))


@bounded
def assert_effects(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The `assert` statements `head` adds over `base` whose test acts (an assignment, a call that
    changes its receiver or acts on the world: `_action`): `python -O` skips the statement and
    its effect with it, so production runs other code than the tests did (an assert that only
    calls a function to check its result, a module's self-check, is not one). SourceError if
    either side does not parse."""
    return _added(path, _effects(base), _effects(head))


# Methods that change their receiver (containers, files, sockets, queues, locks) and calls that act
# on the world: in a message (a log, print, warnings call, a raise's arguments) they are an effect
# whose result no oracle compares, mutation or not.
MUTATORS = frozenset({"pop", "popitem", "clear", "update", "setdefault", "append", "appendleft", "extend",
                      "insert", "remove", "discard", "add", "sort", "reverse", "write", "writelines", "send",
                      "sendall", "sendto", "put", "put_nowait", "truncate", "unlink", "rmdir", "mkdir", "touch",
                      "rename", "kill", "terminate", "cancel", "acquire", "release", "__setitem__", "__delitem__",
                      "setattr", "delattr", "__setattr__", "__delattr__"})
ACTIONS = frozenset({"os.system", "os.popen", "os.remove", "os.unlink", "os.rename", "os.kill", "os.umask",
                     "os.chmod", "os.putenv", "os.unsetenv", "setattr", "delattr", "exec", "eval", "open"})
ACTION_PREFIXES = ("os.exec", "os.spawn", "subprocess.", "shutil.", "socket.", "urllib.request.", "http.client.")


@bounded
def message_effects(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The messages `head` adds over `base` (log, print and warnings calls on their own line, a
    raise's arguments) whose arguments act: call a method that changes its receiver (`pop`,
    `clear`, `append`, ...) or something that acts on the world (`os.system`, `subprocess`, `open`).
    What a message says is arid and never mutated; what it does is hidden behind it. SourceError if
    either side does not parse."""
    return _added(path, _acts(base), _acts(head))


def _action(parts: Iterable[Optional[ast.AST]]) -> Optional[str]:
    """The first thing these expressions do beyond computing a value: a call that changes its
    receiver or acts on the world (`pop(...)`, `os.system(...)`), or an assignment (`:=`)."""
    for node in (n for p in parts if p is not None for n in ast.walk(p)):
        if isinstance(node, ast.NamedExpr):
            return "an assignment (`:=`)"
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if method in MUTATORS or name in ACTIONS or name.startswith(ACTION_PREFIXES):
                return f"`{name or method}(...)`"
    return None


def _acts(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    out = []
    for node, owner in walk_owned(_read(source)):
        parts = message_parts(node) if isinstance(node, (ast.Expr, ast.Raise)) else None
        action = _action(parts) if parts else None
        if action is not None:
            out.append((owner, node.lineno, f"a message whose arguments act ({action})"))
    return out


def _effects(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    return [(owner, node.lineno, f"an `assert` whose test acts ({action}), which `python -O` skips")
            for node, owner in walk_owned(_read(source)) if isinstance(node, ast.Assert)
            for action in [_action([node.test])] if action is not None]


def _exits(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    found: Dict[int, Tuple[str, int, str]] = {}

    def visit(node: ast.AST, owner: str, in_loop: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return  # its own scope: a return there leaves that function, not the finally block
        if isinstance(node, ast.Return) or (isinstance(node, (ast.Break, ast.Continue)) and not in_loop):
            word = type(node).__name__.lower()
            found[id(node)] = (owner, node.lineno, f"`{word}` in a `finally` block discards any exception in flight")
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            for child in node.body:
                visit(child, owner, True)
            for child in node.orelse:  # a loop's `else` belongs to the loop around it
                visit(child, owner, in_loop)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, owner, in_loop)

    for node, owner in walk_owned(_read(source)):
        if isinstance(node, ast.Try):
            for stmt in node.finalbody:
                visit(stmt, owner, False)
    return sorted(found.values(), key=lambda item: item[1])


test_aware_findings.__test__ = False  # type: ignore[attr-defined]  # a name pytest would collect


# -- names rebound while the tests ran ---------------------------------------------------------------

class _Bindings(ast.NodeVisitor):
    """Which names a scope (a module, or a class body) binds at its own level, and how: `plain`
    holds those an undecorated `def` binds (-> its line), `other` counts every other binding there
    (an assignment, an import, a decorated def, a class, a loop, `with` or `except` target, a walrus,
    a `del`, a `global` declaration anywhere), `classes` the class statements, `stores` every
    `X.y` assigned or deleted anywhere in it."""

    def __init__(self) -> None:
        self.plain: Dict[str, int] = {}
        self.other: Counter = Counter()
        self.classes: Dict[str, List[ast.ClassDef]] = {}
        self.stores: Set[Tuple[str, str]] = set()
        self._depth = 0  # inside a function, lambda, class body or comprehension target

    def _nested(self, nodes: Iterable[ast.AST]) -> None:
        self._depth += 1
        for node in nodes:
            self.visit(node)
        self._depth -= 1

    def _function(self, node: ast.AST) -> None:
        if self._depth == 0:
            if node.decorator_list:  # type: ignore[attr-defined]
                self.other[node.name] += 1  # type: ignore[attr-defined]
            else:
                self.plain.setdefault(node.name, node.lineno)  # type: ignore[attr-defined]
        for part in (*node.decorator_list, node.args, node.returns):  # type: ignore[attr-defined]
            if part is not None:
                self.visit(part)  # evaluated where the def is
        self._nested(node.body)  # type: ignore[attr-defined]

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.args)
        self._nested([node.body])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if self._depth == 0:
            self.other[node.name] += 1
            self.classes.setdefault(node.name, []).append(node)
        for part in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(part)
        self._nested(node.body)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._nested([node.target])  # the comprehension's own scope (a walrus in it binds outside)
        for part in (node.iter, *node.ifs):
            self.visit(part)

    def visit_Global(self, node: ast.Global) -> None:
        self.other.update(node.names)

    def visit_Name(self, node: ast.Name) -> None:
        if self._depth == 0 and not isinstance(node.ctx, ast.Load):
            self.other[node.id] += 1

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
            self.stores.add((node.value.id, node.attr))
        self.visit(node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.other[node.target.id] += 1  # module scope unless inside a function (then `other` only widens)
        self.visit(node.value)

    def _import(self, node: ast.AST) -> None:
        if self._depth == 0:
            for alias in node.names:  # type: ignore[attr-defined]
                self.other[alias.asname or alias.name.split(".")[0]] += 1

    visit_Import = visit_ImportFrom = _import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if self._depth == 0 and node.name:
            self.other[node.name] += 1
        self.generic_visit(node)


def _bindings(body: Iterable[ast.stmt]) -> _Bindings:
    visitor = _Bindings()
    for stmt in body:
        visitor.visit(stmt)
    return visitor


@bounded
def plain_defs(source: str) -> Dict[str, int]:
    """The names a module binds at module level with undecorated `def` statements and nothing else,
    and `Class.method` for the methods a module-level class (bound by that one class statement)
    binds so in its body, neither assigned as an attribute anywhere in the module (-> the first
    such def's line): while the module is loaded, each must be that def. SourceError if it does not
    parse."""
    module = _bindings(parse(source).body)
    out = {name: line for name, line in module.plain.items() if not module.other[name]}
    for cls, nodes in module.classes.items():
        if len(nodes) != 1 or module.other[cls] != 1 or cls in module.plain:
            continue
        body = _bindings(nodes[0].body)
        out.update((f"{cls}.{name}", line) for name, line in body.plain.items()
                   if not body.other[name] and (cls, name) not in module.stores)
    return out


# One rebound name as the recorder saw it at a session's end: (module path, name, origin, what,
# the address whose session it was); see core/protocol/results.py Rebound.
Seen = Tuple[str, str, str, str, str]


def rebound_findings(seen: Iterable[Seen], sources: Dict[str, Optional[str]], production: Iterable[str],
                     mock: str) -> Tuple[Finding, ...]:
    """Production functions that were not their own def when a test session ended: something bound
    another callable to the name after the module ran, and left it there, whatever channel it used
    (an alias, a lambda's argument, `vars()`, `__globals__`). Skipped: names the module binds other
    than by one undecorated def (a decorator's wrapper, an import, a fallback), a mock and a
    callable a test file defines (the tests' own doing; the tests are judged as oracles).
    `sources`: path -> the module's text (None: not read)."""
    production = frozenset(production)
    defs: Dict[str, Dict[str, int]] = {}
    out: Dict[Tuple[str, str], Finding] = {}
    for path, name, origin, what, address in sorted(seen):
        if path not in production or what == mock or (origin and origin not in production):
            continue
        if path not in defs:
            try:
                defs[path] = plain_defs(sources[path]) if sources.get(path) is not None else {}
            except SourceError:
                defs[path] = {}  # a module that does not parse is a finding of its own
        line = defs[path].get(name)
        if line is not None and (path, name) not in out:
            out[path, name] = Finding(path, line, f"`{name}` is not its own def when the tests end: it is {what}, "
                                                  f"bound there after the module ran (in {address}'s session)")
    return tuple(sorted(out.values()))


# What a function returns is mutable where its annotation or a returned value says so.
MUTABLE_TYPES = frozenset({"dict", "list", "set", "bytearray", "Dict", "List", "Set", "DefaultDict", "OrderedDict",
                           "Counter", "Deque", "deque", "defaultdict", "MutableMapping", "MutableSequence",
                           "MutableSet"})
MEMOISERS = frozenset({"lru_cache", "cache", "cached", "memoize", "memoized"})


@bounded
def shared_results(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The functions `head` makes (over `base`) hand every caller one mutable object: memoised
    (`@functools.lru_cache`, `@cache`) while returning a dict, list or set, or returning an object
    it keeps in module-level state (`return _DECODED.setdefault(text, {...})`, `_CACHE[k] = doc;
    return doc`, a module-level list it fills and returns itself). One caller's change to the
    result is then every later caller's result: a law no oracle states, since each call alone
    returns the right value. A function that returns a
    copy, or an immutable value, is not one. SourceError if either side does not parse."""
    return _added(path, _shared(base), _shared(head))


def _mutable(node: Optional[ast.AST]) -> bool:
    """An annotation or a value that is a dict, list or set (a display, a comprehension, a call of
    the type)."""
    if node is None:
        return False
    if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
        return node.value.split("[")[0].rpartition(".")[2] in MUTABLE_TYPES
    return dotted(node).rpartition(".")[2] in MUTABLE_TYPES


def _shared(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    tree = _read(source)
    module_names = module_data(tree)
    containers = _containers(tree)
    out = []
    for node, owner, closure, own, local in _functions(tree):
        state = module_names | closure  # what outlives a call: the module's and its enclosing calls' names
        stores = {n.id for n in own if isinstance(n, ast.Name) and n.id in state and n.id not in local
                  and any(isinstance(p, ast.Subscript) and p.value is n and isinstance(p.ctx, ast.Store) for p in own)}
        kept: Set[str] = set()  # locals stored into module-level state: `_CACHE[k] = doc`
        for n in own:
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and any(
                    isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in stores
                    for t in n.targets):
                kept.add(n.value.id)
        returns = [n.value for n in own if isinstance(n, ast.Return) and n.value is not None]
        values = {n.targets[0].id: n.value for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], ast.Name)}
        mutable = _mutable(node.returns) or any(_mutable(r) or (isinstance(r, ast.Name) and _mutable(values.get(r.id)))
                                                for r in returns)
        memo = next((name for name in (dotted(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list)
                     if name.rpartition(".")[2] in MEMOISERS), None)
        if memo is not None and mutable:
            out.append((owner, node.lineno, f"`{node.name}` is memoised (`@{memo}`) and returns a mutable object: "
                                            f"every caller gets the same one"))
            continue
        for r in returns:
            held = None
            if isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and isinstance(r.func.value, ast.Name) \
                    and r.func.value.id in state and r.func.value.id not in local:
                if r.func.attr == "setdefault" and len(r.args) == 2 and (mutable or _mutable(r.args[1])):
                    held = r.func.value.id
                elif r.func.attr == "get" and r.func.value.id in stores and mutable:
                    held = r.func.value.id
            elif isinstance(r, ast.Subscript) and isinstance(r.value, ast.Name) and r.value.id in stores and mutable:
                held = r.value.id
            elif isinstance(r, ast.Name) and r.id in kept and (mutable or _mutable(values.get(r.id))):
                held = r.id
            elif isinstance(r, ast.Name):
                # the module's own container itself, or a local bound to it: `_DONE.clear(); ...;
                # return _DONE`, `done = _DONE; ...; return done`
                alias = values.get(r.id) if r.id in local else r
                name = alias.id if isinstance(alias, ast.Name) else ""
                if name in containers and name in module_names and name not in local:
                    held = name
            if held is not None:
                where = "module-level state" if held in module_names and held not in closure else \
                    "its enclosing function's state (a closure)"
                out.append((owner, r.lineno, f"`{node.name}` returns a mutable object it keeps in {where} "
                                             f"(`{held}`): every caller gets the same one"))
                break
    return out


@bounded
def shared_scratch(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The functions `head` makes (over `base`) work in a container the module keeps: empty it
    (`_done.clear()`, `del _done[:]`, `_done[:] = []`) and fill it again, by its name or a local bound
    to it, in the function or a def nested in it. Each call alone is right, and so is its copy of
    the result; two calls at once (threads, or a call made while one runs) empty and fill one
    object. A function that only empties it (a reset) or only fills it (a registry, a memo) is not
    one. SourceError if either side does not parse."""
    return _added(path, _scratch(base), _scratch(head))


_EMPTIES = frozenset({"clear"})
_FILLS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft"})


def _scratch(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    tree = _read(source)
    module_names = module_data(tree)
    containers = _containers(tree)
    out = []
    for node, owner, _closure, own, local in _functions(tree):
        # the module's containers by their names, and the locals bound to them (`done = _done`)
        names = {name: name for name in containers & module_names if name not in local}
        names.update({n.targets[0].id: n.value.id for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1
                      and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name) and n.value.id in names})

        def held(n: ast.AST) -> Optional[str]:
            return names.get(n.id) if isinstance(n, ast.Name) else None

        def whole(n: ast.AST) -> bool:
            return isinstance(n, ast.Subscript) and held(n.value) is not None and isinstance(n.slice, ast.Slice) \
                and n.slice.lower is None and n.slice.upper is None and n.slice.step is None

        emptied: Dict[str, int] = {}
        filled: Set[str] = set()
        for n in own:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and held(n.func.value):
                if n.func.attr in _EMPTIES:
                    emptied.setdefault(held(n.func.value), n.lineno)  # type: ignore[arg-type]
                elif n.func.attr in _FILLS:
                    filled.add(held(n.func.value))  # type: ignore[arg-type]
            elif isinstance(n, ast.Delete) or (isinstance(n, ast.Assign) and len(n.targets) == 1):
                for t in (n.targets if isinstance(n, ast.Delete) else n.targets):
                    if whole(t):
                        emptied.setdefault(held(t.value), n.lineno)  # type: ignore[arg-type,union-attr]
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and held(n.value) and not whole(n):
                filled.add(held(n.value))  # type: ignore[arg-type]
        for name in sorted(set(emptied) & filled):
            out.append((owner, emptied[name], f"`{node.name}` empties `{name}`, which the module keeps, and fills it "
                                              f"again"))
    return out


@bounded
def lossy_memos(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The memos `head` adds (over `base`) whose key is not the call's arguments: a function that
    keeps results in a mapping that outlives the call (the module's, or its enclosing function's),
    returns what it finds there, and looks it up by a key computed from its arguments
    (`hash((cents, rate)) & 0xFFFF_FFFF`, `name.lower()`, `str(amount)`, `f"{a}:{b}"`). Two calls
    whose keys collide get one result: each call alone is right, and so is every sample that holds
    no colliding pair. A key is the arguments where it is made of parameters, constants, names the
    function does not compute, their attributes, and tuples, frozensets, sorted copies, items and
    types of them. SourceError if either side does not parse."""
    return _added(path, _memos(base), _memos(head))


_FAITHFUL_CALLS = frozenset({"tuple", "frozenset", "sorted", "type"})
_LOOKUPS = frozenset({"get", "setdefault", "pop"})
_INDEX = getattr(ast, "Index", ())  # a subscript's wrapper before Python 3.9


def _faithful(key: ast.AST, params: Set[str], values: Dict[str, ast.AST], depth: int = 0) -> Optional[ast.AST]:
    """None if `key` determines the arguments it is made of; else the part of it that is computed."""
    if depth > 8:
        return None
    if isinstance(key, ast.Name):
        if key.id not in params and key.id in values:
            return _faithful(values[key.id], params, values, depth + 1)
        return None
    if isinstance(key, ast.Constant):
        return None
    if isinstance(key, ast.Starred):
        return _faithful(key.value, params, values, depth + 1)
    if isinstance(key, ast.Attribute):
        return _faithful(key.value, params, values, depth + 1)
    if isinstance(key, (ast.Tuple, ast.List)):
        parts = key.elts
    elif isinstance(key, ast.Call) and isinstance(key.func, ast.Name) and key.func.id in _FAITHFUL_CALLS \
            and not key.keywords:
        parts = key.args
    elif isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) and key.func.attr == "items" \
            and not key.args:
        parts = [key.func.value]
    else:
        return key
    return next((bad for bad in (_faithful(x, params, values, depth + 1) for x in parts) if bad is not None), None)


def _memos(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    tree = _read(source)
    module_names = module_data(tree)
    out = []
    for node, owner, closure, own, local in _functions(tree):
        state = module_names | closure
        params = _parameters(node.args)
        assigned = Counter(t.id for n in own if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                           for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name))
        values = {n.targets[0].id: n.value for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], ast.Name) and assigned[n.targets[0].id] == 1}

        def held(n: ast.AST) -> Optional[str]:
            return n.id if isinstance(n, ast.Name) and n.id in state and n.id not in local else None

        keys: Dict[str, List[ast.AST]] = {}
        written: Set[str] = set()
        reads: Dict[int, str] = {}  # id of an expression that reads a kept result -> the mapping
        for n in own:
            if isinstance(n, ast.Subscript) and held(n.value):
                name = held(n.value)
                keys.setdefault(name, []).append(n.slice.value if isinstance(n.slice, _INDEX) else n.slice)
                if isinstance(n.ctx, ast.Store):
                    written.add(name)
                else:
                    reads[id(n)] = name
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _LOOKUPS \
                    and held(n.func.value) and n.args:
                name = held(n.func.value)
                keys.setdefault(name, []).append(n.args[0])
                reads[id(n)] = name
                if n.func.attr == "setdefault":
                    written.add(name)
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)) \
                    and held(n.comparators[0]):
                keys.setdefault(held(n.comparators[0]), []).append(n.left)
        # what the function returns from a mapping: read there directly, or through a local bound to a read
        from_reads = {t.id: reads[id(n.value)] for n in own if isinstance(n, ast.Assign) and id(n.value) in reads
                      for t in n.targets if isinstance(t, ast.Name)}
        returned = {reads[id(x)] for r in own if isinstance(r, ast.Return) and r.value is not None
                    for x in ast.walk(r.value) if id(x) in reads}
        returned |= {from_reads[x.id] for r in own if isinstance(r, ast.Return) and r.value is not None
                     for x in ast.walk(r.value) if isinstance(x, ast.Name) and x.id in from_reads}
        for name in sorted(returned & written):
            bad = next((b for b in (_faithful(k, params, values) for k in keys[name]) if b is not None), None)
            if bad is not None:
                said = (ast.get_source_segment(source, bad) or ast.unparse(bad))[:80]
                out.append((owner, getattr(bad, "lineno", node.lineno),
                            f"`{node.name}` keeps its results in `{name}` under a key computed from its arguments "
                            f"(`{said}`), not the arguments themselves"))
    return out


def _functions(tree: ast.Module) -> Iterator[Tuple[Union[ast.FunctionDef, ast.AsyncFunctionDef], str,
                                                   FrozenSet[str], List[ast.AST], Set[str]]]:
    """Each def of `tree` with its owner, the names its enclosing defs bind (its closure), the nodes
    of its body (a nested def's too) and the names it binds (its parameters, and any it stores)."""
    enclosing = _enclosing_names(tree)
    for node, owner in walk_owned(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own = [n for stmt in node.body for n in ast.walk(stmt)]
            local = {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            yield node, owner, enclosing.get(id(node), frozenset()), own, local | _parameters(node.args)


def _containers(tree: ast.Module) -> Set[str]:
    """Module-level names bound to a dict, list or set: `_DONE: List[int] = []`."""
    return {t.id for stmt in tree.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
            and (_mutable(stmt.value) or (isinstance(stmt, ast.AnnAssign) and _mutable(stmt.annotation)))
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]) if isinstance(t, ast.Name)}


def _parameters(args: ast.arguments) -> Set[str]:
    """The names a def's or a lambda's parameters bind."""
    return {a.arg for a in [*getattr(args, "posonlyargs", []), *args.args, *args.kwonlyargs,
                            *([args.vararg] if args.vararg else []), *([args.kwarg] if args.kwarg else [])]}


def _enclosing_names(tree: ast.Module) -> Dict[int, FrozenSet[str]]:
    """id of each def nested in a def -> the names its enclosing defs bind (their parameters and
    assignments): state a call of the inner function shares with every other call of it (a
    hand-written memo's `seen = {}`)."""
    out: Dict[int, FrozenSet[str]] = {}

    def visit(node: ast.AST, outer: FrozenSet[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if outer:
                    out[id(child)] = outer
                bound = _parameters(child.args)
                body = child.body if isinstance(child.body, list) else [child.body]
                bound |= {n.id for stmt in body for n in ast.walk(stmt)
                          if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                visit(child, outer | frozenset(bound))
            elif isinstance(child, ast.ClassDef):
                visit(child, outer)  # a class body is no enclosing scope of its methods
            else:
                visit(child, outer)

    visit(tree, frozenset())
    return out


LOCK_TYPES = frozenset({"Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition"})


@bounded
def removed_locks(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """The locks a function held at the base (`with lock:`, `lock.acquire()`, on a name or
    attribute bound to `threading.Lock()`, `RLock()`, `Semaphore()`, `Condition()`, or named
    `*lock*`/`*mutex*`) that it holds no more at the head, each reported at its base line. What a
    lock kept out is a race, and a race is what oracles see least: every mutant of the unlocked
    code still dies in a run that happens to interleave well. SourceError if either side does not
    parse."""
    before, after = _locks(base), _locks(head)
    out = []
    for owner in dict.fromkeys(o for o, _line, _name, private in before if not private):
        held = [(line, name) for o, line, name, private in before if o == owner and not private]
        now = [name for o, _line, name, private in after if o == owner and not private]
        own = {name for o, _line, name, private in after if o == owner and private}
        if len(now) >= len(held):
            continue  # as many held as before (a lock renamed or swapped for another is still one)
        missing = [(line, name) for line, name in held if name not in now] or held[len(now):]
        out.extend(Finding(path, line, f"`{owner}` no longer holds `{name}`" + (
            f" (the `{name}` it holds now is made by each call for itself: no other thread can hold it, so it "
            f"excludes nothing)" if name in own else "")) for line, name in missing)
    return tuple(sorted(out))


@bounded
def split_sections(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """Critical sections the head splits in two (over `base`): a function that reads shared state
    under a lock (`item = pending[-1]` inside `with lock:`), lets the lock go, and under a later
    hold of the same lock, in the same block of statements, changes that state with what it read
    (`pending.pop()` beside a use of `item`). Another thread can change the state in between, so
    the second section acts on a stale read: a race, which no run that interleaves well shows.
    Shared state is a name the function does not bind (its enclosing function's, or the module's).
    SourceError if either side does not parse."""
    return _added(path, _split(base), _split(head))


def _split(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    tree = _read(source)
    locks = {name for _owner, _line, name, private in _locks(source) if not private}
    out = []
    for func, owner in walk_owned(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own = [n for n in walk_scope(func) if n is not func]
        bound = _parameters(func.args) | {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for block in (getattr(n, field) for n in [func, *own] for field in ("body", "orelse", "finalbody")
                      if isinstance(getattr(n, field, None), list)):
            held = [(s, dotted(s.items[0].context_expr)) for s in block if isinstance(s, (ast.With, ast.AsyncWith))
                    and len(s.items) == 1 and dotted(s.items[0].context_expr) in locks]
            for i, (first, lock) in enumerate(held):
                inside = [n for s in first.body for n in ast.walk(s)]
                read = {n.id for n in inside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                        and n.id not in bound}
                taken = {n.id for n in inside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                for second, again in held[i + 1:]:
                    if again != lock:
                        continue
                    later = [n for s in second.body for n in ast.walk(s)]
                    used = sorted({n.id for n in later if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                                  & taken)
                    changed = sorted(_changed_names(later) & read)
                    if used and changed:
                        out.append((owner, second.lineno,
                                    f"`{func.name}` reads `{changed[0]}` under `{lock}`, lets it go, and changes "
                                    f"`{changed[0]}` under a second hold of it with what it read (`{used[0]}`)"))
                        break
    return out


# A queue's answers about itself that hold only until another thread acts (Python's `queue` docs:
# "if empty() returns False it doesn't guarantee that a subsequent call to get() will not block").
QUEUE_CHECKS = frozenset({"empty", "full", "qsize"})


@bounded
def checks_then_waits(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """Blocking takes the head adds (over `base`) that rely on a check of the same queue made
    just before: a `get()` or `put()` that may wait forever (no `block=False`, no `timeout`) inside
    an `if` or `while` whose test asks that queue `empty()`, `full()` or `qsize()`. Another thread
    can take the last item (or fill the last slot) in between, and the loser waits forever: a
    deadlock no run that interleaves well shows. SourceError if either side does not parse."""
    return _added(path, _checked_waits(base), _checked_waits(head))


def _checked_waits(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    out = []
    for node, owner in walk_owned(_read(source)):
        if not isinstance(node, (ast.If, ast.While)):
            continue
        asked = {dotted(n.func.value): n.func.attr for n in ast.walk(node.test) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr in QUEUE_CHECKS and dotted(n.func.value)}
        for n in (n for s in (*node.body, *node.orelse) for n in ast.walk(s)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "put") \
                    and dotted(n.func.value) in asked and _blocks(n):
                queue = dotted(n.func.value)
                out.append((owner, n.lineno, f"`{owner}` asks `{queue}.{asked[queue]}()` and then waits in "
                                             f"`{queue}.{n.func.attr}()` with no timeout"))
    return out


@bounded
def import_fallbacks(path: str, base: Optional[str], head: Optional[str]) -> Tuple[Finding, ...]:
    """Imports the head adds (over `base`) that pick the code by what the machine has installed: a
    `try` whose body imports a name (an `import`, or `name = importlib.import_module("...")`) and
    whose handler catches `ImportError` (it, `ModuleNotFoundError`, a class it derives from,
    `Exception` or `BaseException`, or a bare `except`) binds the same name
    another way (`try: import ujson as json` / `except ImportError: import json`, or `numpy =
    None`); and a call that asks whether (or which version of) a module is installed
    (`importlib.util.find_spec`, `importlib.metadata.version`: INSTALLED_PROBES), whatever it then
    does with the answer. The oracles ran one of the two, the one the gate's sandbox has; a machine
    with the other runs code no oracle ran. SourceError if either side does not parse."""
    return _added(path, _fallbacks(base), _fallbacks(head))


# The handlers that catch a failed import: its own classes and those it derives from.
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _fallbacks(source: Optional[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    names = Names(_read(source))
    out = []
    for node, owner in names.walk():
        probes = names.resolve(node.func) & INSTALLED_PROBES if isinstance(node, ast.Call) else set()
        if probes:
            asked = render(node.args[0])[:60] if node.args else "a module"  # type: ignore[attr-defined]
            out.append((owner, node.lineno, f"`{owner}` asks whether {asked} is installed (`{min(probes)}`)"))
        if not isinstance(node, ast.Try):
            continue
        tried = _imported(node.body, names)
        for handler in node.handlers:
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            if handler.type is not None and not any(k is not None and canonical(dotted(k)) in IMPORT_ERRORS
                                                    for k in kinds):
                continue
            other = _imported(handler.body, names)
            other.update({t.id: render(s.value) for s in handler.body if isinstance(s, ast.Assign)
                          for t in s.targets if isinstance(t, ast.Name)})
            for name in sorted(set(tried) & set(other)):
                out.append((owner, node.lineno, f"`{owner}` binds `{name}` to `{tried[name]}` where it is installed "
                                                f"and to `{other[name][:60]}` where it is not"))
    return out


@bounded
def machine_reads(path: str, base: Optional[str], head: Optional[str],
                  allowed: FrozenSet[str] = frozenset()) -> Tuple[Finding, ...]:
    """The reads of the machine `head` adds over `base` (core/source/stdlib.py's
    `reads_the_machine`): each expression that refers, through its imports and assignments, to a
    name of the standard library that does not compute from its arguments alone (`sys.flags`,
    `os.cpu_count`, `platform.machine`, `datetime.date.today`, `time.localtime`) or to a reading
    builtin (`open`, `__file__`), outside a message (what a log line says is never judged), but
    for names under `allowed`. For a `pure` or `schema` region, whose result may depend on its
    arguments only (and a `concurrent` one's, on them and its threads: `allowed`): the oracles ran
    on one machine, at one time, and a result that reads another fact is judged on that one alone,
    whatever the channel. SourceError if either side does not parse."""
    return _added(path, _machine_reads(base, allowed), _machine_reads(head, allowed))


def _machine_reads(source: Optional[str], allowed: FrozenSet[str]) -> List[Tuple[str, int, str]]:
    if source is None:
        return []
    tree = _read(source)
    names = Names(tree)
    arid: Set[int] = set()
    loads: Dict[Tuple[str, str], List[ast.Name]] = {}
    stores: Dict[Tuple[str, str], List[ast.Assign]] = {}
    inner: Set[int] = set()  # a chain is read once, whole
    parents: Dict[int, ast.AST] = {}
    for node, owner in names.walk():
        parents.update((id(child), node) for child in ast.iter_child_nodes(node))
        parts = message_parts(node) if isinstance(node, (ast.Expr, ast.Raise)) else None
        arid.update(id(n) for part in parts or () if part is not None for n in ast.walk(part))
        # a logger asked whether a message is said, where that is all it decides (`if
        # log.isEnabledFor(DEBUG): log.debug(...)`; nothing in the condition assigns or acts), and an
        # annotation (no result reads it)
        if isinstance(node, ast.If) and _said_only(node) and _asks_a_logger(node.test, names):
            arid.update(id(n) for n in ast.walk(node.test))
        notes = [node.annotation] if isinstance(node, (ast.arg, ast.AnnAssign)) else \
            [node.returns] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        arid.update(id(n) for note in notes if note is not None for n in ast.walk(note))
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault((owner, node.id), []).append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            stores.setdefault((owner, node.targets[0].id), []).append(node)
    # and a function's local assigned once and read only in messages (`start = time.perf_counter()`
    # for a log line's duration): what its value is changes no result either (a module-level name is
    # read by any importer)
    for key, assigned in stores.items():
        if key[0] != MODULE and len(assigned) == 1 and all(id(n) in arid for n in loads.get(key, ())):
            arid.update(id(n) for n in ast.walk(assigned[0].value))
    out = []
    for node, owner in names.walk():
        directive = _locale_directive(node, names) if id(node) not in arid else ""
        if directive:
            out.append((owner, node.lineno, f"`{owner}` reads `the locale` (a format's `{directive}`)"))
        reached = _format_reflection(node) or _reflected(node, names) or (
            _module_generator(node, names, parents) if owner != MODULE else "") if id(node) not in arid else ""
        if reached:
            out.append((owner, node.lineno, f"`{owner}` reads `{reached}`"))
        if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Load) \
                or id(node) in inner or id(node) in arid:
            continue
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        resolved = names.resolve(node)
        if isinstance(root, ast.Name) and any(b[0] == "value" for b in names.bindings(root)):
            # a name the code assigned: its read is where it was assigned, but what is read of an
            # object of the process's state it holds (a logger's level) is read here
            resolved = frozenset(r for r in resolved if r.startswith(_STATE_OBJECTS) or through_an_instance(r))
        read = machine_names(resolved, allowed)
        call = parents.get(id(node))
        if isinstance(call, ast.Call) and call.func is node:  # given its zone
            read = frozenset(r for r in read if not given_a_zone(r, call))
        if read and all(under(r, VERSION_NAMES) for r in read) and _compared(node, parents):
            read = frozenset()  # a version a comparison asks, for a branch: judged branch by branch
        if isinstance(call, ast.Call) and call.func is node and not call.args and not call.keywords:
            read |= UNSEEDED & resolved  # seeded from the system's entropy
        if read:
            out.append((owner, node.lineno, f"`{owner}` reads `{min(read)}`"))
    return out


def _compared(node: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    """Whether an expression is part of a comparison (`sys.version_info[:2] >= (3, 10)`)."""
    up = parents.get(id(node))
    while isinstance(up, ast.expr) and not isinstance(up, ast.Compare):
        up = parents.get(id(up))
    return isinstance(up, ast.Compare)


def _reflected(node: ast.AST, names: Names) -> str:
    """The reflecting attribute (stdlib.REFLECTION) an attribute or `getattr(x, "...")` reaches on
    any object (`g.__globals__` of the module's own function too), or ""."""
    if isinstance(node, ast.Attribute) and node.attr in REFLECTION:
        return render(node)[:60]
    if isinstance(node, ast.Call) and len(node.args) > 1 and "getattr" in names.resolve(node.func):
        found = sorted(s for s in names.strings(node.args[1]) if s in REFLECTION)
        return f"getattr(..., {found[0]!r})" if found else ""
    return ""


def _module_generator(node: ast.AST, names: Names, parents: Dict[int, ast.AST]) -> str:
    """A method called on a random generator the module holds (`_JITTER = random.Random(5)` at
    module level, `_JITTER.random()` in a function): seeded or not, what it gives depends on how
    many draws the process made before; a generator a call makes for itself does not."""
    call = parents.get(id(node))
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and isinstance(call, ast.Call)
            and call.func is node and names.module_bound(node.value)):
        return ""
    made = [b[1] for b in names.bindings(node.value) if b[0] == "value" and isinstance(b[1], ast.Call)]
    if any(names.resolve(m.func) & MODULE_GENERATORS for m in made):
        return f"{node.value.id}.{node.attr}` (a generator the module holds, each draw moving its state: " \
            f"`random.Random"
    return ""


def _format_fields(node: ast.AST) -> List[Tuple[str, str]]:
    """The (field, spec) pairs of a literal's `.format(...)` or `.format_map(...)` call
    (`"{0.__globals__[sys]:>9}".format(f)`); [] for any other node, or a literal that is no format."""
    func = node.func if isinstance(node, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and func.attr in ("format", "format_map")
            and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)):
        return []
    try:
        return [(field or "", spec or "") for _, field, spec, _ in string.Formatter().parse(func.value.value)]
    except ValueError:
        return []


def _format_reflection(node: ast.AST) -> str:
    """The reflecting attribute (stdlib.REFLECTION) a literal's `.format(...)` or `.format_map(...)`
    field reaches (`"{0.__globals__[sys].executable}".format(f)`), or ""."""
    fields = [field for field, _ in _format_fields(node) if field]
    found = sorted({part for field in fields for part in re.split(r"[.\[\]]", field) if part in REFLECTION})
    return f"{found[0]}` (through a format's field `{fields[0][:40]}" if found else ""


def _locale_directive(node: ast.AST, names: Names) -> str:
    """The directive the locale fills in (stdlib.locale_formatted) of a format written in the code:
    an f-string's spec (`f"{total:n}"`, `f"{day:%A}"`), `format(value, spec)`, a literal's
    `.format(...)` fields, or `.strftime(...)`'s format on any date; "" for anything else."""
    specs: List[str] = [spec for _, spec in _format_fields(node) if spec]
    if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):
        specs = [v.value for v in node.format_spec.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    elif isinstance(node, ast.Call) and not specs:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "strftime" and node.args:
            specs = sorted(names.strings(node.args[0]))
        elif "format" in names.resolve(func) and len(node.args) > 1:
            specs = sorted(names.strings(node.args[1]))
    return next((d for d in map(locale_formatted, specs) if d), "")


_STATE_OBJECTS = tuple(sorted({f"{made}." for made in STATE_RESULTS.values()}))  # what is read of one


def _asks_a_logger(test: ast.expr, names: Names) -> bool:
    """Whether a condition asks an object of the process's state (a logger) something and does no
    more: no assignment, and every call in it one of such an object's."""
    nodes = list(ast.walk(test))
    calls = [n.func for n in nodes if isinstance(n, ast.Call)]
    return bool(calls) and not any(type(n).__name__ == "NamedExpr" for n in nodes) and all(
        (found := names.resolve(f)) and all(r.startswith(_STATE_OBJECTS) for r in found) for f in calls)


def _said_only(node: ast.If) -> bool:
    """Whether an `if` statement's branches only say something (log, print, warn; or pass)."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and message_parts(s) is not None)
               or (isinstance(s, ast.If) and _said_only(s)) for s in (*node.body, *node.orelse))


def _imported(body: Sequence[ast.stmt], names: Names) -> Dict[str, str]:
    """The names a block's own statements bind to a module they import: `import`, `from ... import`,
    and `name = importlib.import_module("...")` (or `__import__`), each to what it imports."""
    out: Dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, ast.Import):
            out.update({(a.asname or a.name).split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                        for a in stmt.names})
        elif isinstance(stmt, ast.ImportFrom):
            out.update({a.asname or a.name: f"{'.' * stmt.level}{stmt.module or ''}.{a.name}"
                        for a in stmt.names if a.name != "*"})
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and stmt.value.args \
                and names.resolve(stmt.value.func) & MODULE_LOADERS:
            out.update({t.id: render(stmt.value.args[0]) for t in stmt.targets if isinstance(t, ast.Name)})
    return out


def _blocks(call: ast.Call) -> bool:
    """Whether a queue's `get(block=True, timeout=None)` or `put(item, block=True, timeout=None)`
    call may wait forever: neither `block` false nor a `timeout` given (by position or keyword)."""
    flags = call.args[1 if call.func.attr == "put" else 0:]  # type: ignore[attr-defined]
    block = next((k.value for k in call.keywords if k.arg == "block"), flags[0] if flags else None)
    if any(k.arg == "timeout" for k in call.keywords) or len(flags) > 1 or any(k.arg is None for k in call.keywords):
        return False
    return block is None or (isinstance(block, ast.Constant) and bool(block.value))


def _changed_names(nodes: Sequence[ast.AST]) -> Set[str]:
    """Names whose object the nodes change: `x.pop()` (a method of MUTATORS), `x[k] = v`, `del x[k]`,
    `x[k] += v`."""
    out: Set[str] = set()
    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.attr in MUTATORS:
            out.add(n.func.value.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and isinstance(n.value, ast.Name):
            out.add(n.value.id)
    return out


def _locks(source: Optional[str]) -> List[Tuple[str, int, str, bool]]:
    """(owner, line, lock, private) for each lock a function holds; private where the function
    made it for itself (`_private_locks`)."""
    if source is None:
        return []
    tree = _read(source)
    made = {dotted(t) for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
            and isinstance(n.value, ast.Call) and dotted(n.value.func).rpartition(".")[2] in LOCK_TYPES
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])}

    def lock(node: ast.AST) -> Optional[str]:
        name = dotted(node)
        leaf = name.rpartition(".")[2].lower()
        return name if name and (name in made or "lock" in leaf or "mutex" in leaf) else None

    private = _private_locks(tree)
    out = []
    for node, owner in walk_owned(tree):
        held: List[ast.expr] = []
        if isinstance(node, (ast.With, ast.AsyncWith)):
            held = [item.context_expr for item in node.items]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "acquire":
            held = [node.func.value]
        out.extend((owner, node.lineno, name, id(expr) in private)
                   for expr, name in ((e, lock(e)) for e in held) if name)
    return out


def _private_locks(tree: ast.Module) -> Set[int]:
    """ids of the lock names held (`with lock:`, `lock.acquire()`) where the function holding it
    made the lock itself (`lock = threading.Lock()` in its own body) and hands it to nobody: no
    nested def or lambda reads it, no call is given it, nothing stores or returns it. Each call
    then holds a lock no other call can, which excludes nothing (not a lock held)."""
    out: Set[int] = set()
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own = [n for n in walk_scope(func) if n is not func]
        made = {t.id for n in own if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and dotted(n.value.func).rpartition(".")[2] in LOCK_TYPES
                for t in n.targets if isinstance(t, ast.Name)}
        if not made:
            continue
        mine = {id(n) for n in own}
        nested = {n.id for stmt in func.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and id(n) not in mine}
        held: Dict[str, List[int]] = {}
        handed: Set[str] = set(nested)
        for n in own:
            if isinstance(n, (ast.With, ast.AsyncWith)):
                for item in n.items:
                    if isinstance(item.context_expr, ast.Name):
                        held.setdefault(item.context_expr.id, []).append(id(item.context_expr))
            elif isinstance(n, ast.Call):
                if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                        and n.func.attr in ("acquire", "release", "locked"):
                    if n.func.attr == "acquire":
                        held.setdefault(n.func.value.id, []).append(id(n.func.value))
                    continue
                handed |= {a.id for a in [*n.args, *(k.value for k in n.keywords)] if isinstance(a, ast.Name)}
            elif isinstance(n, (ast.Return, ast.Yield, ast.Assign, ast.AnnAssign, ast.AugAssign)) \
                    and isinstance(getattr(n, "value", None), ast.Name):
                handed.add(n.value.id)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                handed |= set(n.names)
            elif isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                handed |= {e.id for e in getattr(n, "elts", getattr(n, "values", [])) if isinstance(e, ast.Name)}
        for name in made - handed:
            out.update(held.get(name, ()))
    return out
