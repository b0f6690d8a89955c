"""Symbols of a Python module: which changed between two versions, and which one a code object ran.

A symbol is what Python's `__qualname__` names (`f`, `Cls.meth`, `outer.<locals>.inner`), plus
`<module>` for the statements outside every def and class. Each symbol owns its own code: its
decorators, signature and body, minus the defs and classes nested in it (they are symbols of
their own) and minus its docstring. Two versions of a symbol are the same when their own code has
the same AST, so comments, formatting, docstrings and the order of definitions never count.

The module also holds the name resolution the other analyzers share (`Names`): what a dotted
expression refers to through imports, aliases, `getattr`, `sys.modules` and `importlib`, and
which string values an expression can take.
"""
from __future__ import annotations

import ast
import codecs
import dataclasses
import functools
import itertools
import re
import sys
from dataclasses import dataclass
from typing import (Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple,
                    TypeVar)

from .compat import downgrade
from .stdlib import READING_CLASSES, STATE_RESULTS

MODULE = "<module>"
KINDS = ("function", "method", "class", "module")
CHANGES = ("added", "changed", "deleted")

NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Expressions that compile to a code object of their own, by the name the code object carries.
ANONYMOUS = {
    ast.Lambda: "<lambda>",
    ast.ListComp: "<listcomp>",
    ast.SetComp: "<setcomp>",
    ast.DictComp: "<dictcomp>",
    ast.GeneratorExp: "<genexpr>",
}
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
MAX_STRINGS = 32


class SourceError(ValueError):
    """Source that is not Python this interpreter can parse. The message is one line."""


Lines = Tuple[int, int]
F = TypeVar("F", bound=Callable[..., Any])


def bounded(fn: F) -> F:
    """Source nested deeper than the analyses can recurse is a SourceError, not a traceback."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            raise SourceError(f"{fn.__name__}: source nested too deeply to analyse") from None

    return run  # type: ignore[return-value]


@dataclass(frozen=True)
class ChangedSymbol:
    qualname: str
    kind: str  # function | method | class | module
    change: str  # added | changed | deleted
    head_lines: Optional[Lines]
    base_lines: Optional[Lines]
    renamed_from: Optional[str] = None  # an added symbol whose code is a deleted one's under another name


# ---------------------------------------------------------------------------------------------
# AST helpers shared by the analyzers (Python 3.7 parses constants into Num/Str/...).


def parse(source: str, filename: str = "<source>") -> ast.Module:
    if not isinstance(source, str):
        raise SourceError(f"{filename}: source must be text, not {type(source).__name__}")
    try:
        return ast.parse(source, filename)
    except SyntaxError as e:
        # Newer syntax than this interpreter's (a `match` statement under Pants' Python 3.9):
        # parse its line-preserving 3.9 form, else report the original error.
        newer = downgrade(source)
        if newer is not None:
            try:
                return ast.parse(newer, filename)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
        raise SourceError(f"{filename}:{e.lineno}: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError) as e:
        raise SourceError(f"{filename}: {type(e).__name__}: {e}".splitlines()[0]) from None


def constant(node: ast.AST) -> Tuple[bool, object]:
    """(True, value) for a literal constant node, else (False, None)."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if sys.version_info < (3, 8):  # pragma: no cover - 3.7 only
        for cls, field in (("Num", "n"), ("Str", "s"), ("Bytes", "s"), ("NameConstant", "value")):
            if isinstance(node, getattr(ast, cls)):
                return True, getattr(node, field)
        if isinstance(node, ast.Ellipsis):
            return True, ...
    return False, None


def is_noop(stmt: ast.AST) -> bool:
    """`pass`, a docstring or any other lone constant statement."""
    return isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and constant(stmt.value)[0])


BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def statement_expressions(stmt: ast.AST) -> List[ast.AST]:
    """Every node of a statement's own expressions, not of the blocks nested in it (for a def or
    class: its decorators, signature and bases, not its body)."""
    roots = [child for field, value in ast.iter_fields(stmt) if field not in BLOCK_FIELDS
             for child in (value if isinstance(value, list) else [value]) if isinstance(child, ast.AST)]
    return [node for root in roots for node in ast.walk(root)]


def argument(call: ast.Call, position: int, keyword: str) -> Optional[ast.AST]:
    """A call's argument by position, else by keyword; None when it is not given."""
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def subscript_index(node: ast.Subscript) -> ast.AST:
    """The index expression of a subscript (3.8 wraps it in ast.Index)."""
    index = node.slice
    return getattr(index, "value", index) if type(index).__name__ == "Index" else index


def start_line(node: ast.AST) -> int:
    """A def's first line is its first decorator's, as `co_firstlineno` has it."""
    lines = [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]
    return min(lines)


def end_line(node: ast.AST) -> int:
    end = getattr(node, "end_lineno", None)
    if end is not None:
        return end
    return max((getattr(n, "lineno", 0) for n in ast.walk(node)), default=1)  # pragma: no cover


def dotted(node: ast.AST) -> str:
    """`a.b.c` for a chain of attributes on a name, as written (no resolution through imports);
    "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def render(node: ast.AST) -> str:
    """Source-like text of an expression (a stable dump where `ast.unparse` is missing)."""
    unparse = getattr(ast, "unparse", None)
    if unparse is not None:
        return unparse(node)
    return ast.dump(node)  # pragma: no cover - before 3.9


def own_shape(node: ast.AST) -> str:
    """A symbol's own code: the AST without positions, nested defs and classes, docstrings and
    other statements that do nothing (`pass`, a lone constant)."""

    def shape(value: object) -> str:
        if isinstance(value, ast.AST):
            parts = []
            for name, field in ast.iter_fields(value):
                if name in ("ctx", "type_comment", "kind"):
                    continue
                parts.append(f"{name}={shape(field)}")
            return f"{type(value).__name__}({','.join(parts)})"
        if isinstance(value, list):
            return "[" + ",".join(shape(v) for v in value if not (isinstance(v, NAMED) or is_noop(v))) + "]"
        return repr(value)

    return shape(node)


def _has_own_code(module: ast.Module) -> bool:
    return any(not (isinstance(stmt, NAMED) or is_noop(stmt)) for stmt in module.body)


def child_symbols(node: ast.AST) -> Iterator[ast.AST]:
    """The defs and classes directly nested in `node` (through if/for/try/with blocks)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, NAMED):
            yield child
        elif isinstance(child, ast.stmt) or type(child).__name__ in ("ExceptHandler", "match_case"):
            yield from child_symbols(child)


def child_qualname(parent: str, parent_kind: str, name: str) -> str:
    if parent_kind == "module":
        return name
    if parent_kind == "class":
        return f"{parent}.{name}"
    return f"{parent}.<locals>.{name}"


def kind_of(node: ast.AST, parent_kind: str) -> str:
    if isinstance(node, ast.ClassDef):
        return "class"
    return "method" if parent_kind == "class" else "function"


def iter_symbols(tree: ast.Module) -> Iterator[Tuple[str, str, ast.AST]]:
    """(qualname, kind, node) of every def and class, outermost first, in source order."""

    def visit(node: ast.AST, qualname: str, kind: str) -> Iterator[Tuple[str, str, ast.AST]]:
        for child in child_symbols(node):
            child_kind = kind_of(child, kind)
            q = child_qualname(qualname, kind, child.name)
            yield q, child_kind, child
            yield from visit(child, q, child_kind)

    return visit(tree, MODULE, "module")


@dataclass(frozen=True)
class _Symbol:
    kind: str
    lines: Lines
    shape: str
    has_code: bool


def _table(source: str) -> Dict[str, _Symbol]:
    tree = parse(source)
    last = max(1, len(source.splitlines()))
    table = {MODULE: _Symbol("module", (1, last), own_shape(tree), _has_own_code(tree))}
    for qualname, kind, node in iter_symbols(tree):
        lines = (start_line(node), end_line(node))
        shape = own_shape(node)
        seen = table.get(qualname)
        if seen is not None:  # defined twice (a property setter, an if/else): one symbol
            lines = (min(seen.lines[0], lines[0]), max(seen.lines[1], lines[1]))
            shape = seen.shape + "\n" + shape
        table[qualname] = _Symbol(kind, lines, shape, True)
    return table


@bounded
def symbols(source: str) -> Dict[str, Tuple[str, Lines]]:
    """Every symbol of `source` as qualname -> (kind, (first line, last line))."""
    return {q: (s.kind, s.lines) for q, s in _table(source).items()}


@bounded
def changed_symbols(base: Optional[str], head: Optional[str]) -> Tuple[ChangedSymbol, ...]:
    """The symbols whose own code differs between `base` and `head` (None: the file is absent).

    A rename is a deletion and an addition. `<module>` of an added or deleted file counts only if
    the file has module-level code besides its defs, classes and docstring.
    """
    before = _table(base) if base is not None else {}
    after = _table(head) if head is not None else {}
    out: List[ChangedSymbol] = []
    for qualname in set(before) | set(after):
        b, h = before.get(qualname), after.get(qualname)
        if b is not None and h is not None:
            if b.shape == h.shape and b.kind == h.kind:
                continue
            change = "changed"
        elif h is not None:
            if not h.has_code:
                continue
            change = "added"
        else:
            assert b is not None
            if not b.has_code:
                continue
            change = "deleted"
        kind = (h or b).kind  # type: ignore[union-attr]
        out.append(ChangedSymbol(qualname, kind, change, h.lines if h else None, b.lines if b else None))
    # A rename: an added symbol whose own code is a deleted symbol's, but for its name.
    deleted = {c.qualname for c in out if c.change == "deleted"}
    for i, c in enumerate(out):
        if c.change != "added" or c.kind == "module":
            continue
        h = after[c.qualname]
        leaf = c.qualname.rsplit(".", 1)[-1]
        for old in sorted(deleted):
            b = before[old]
            if b.kind == h.kind and h.shape.replace(f"name={leaf!r}", f"name={old.rsplit('.', 1)[-1]!r}", 1) == b.shape:
                out[i] = dataclasses.replace(c, renamed_from=old)
                deleted.discard(old)
                break
    return tuple(sorted(out, key=lambda c: ((c.head_lines or c.base_lines or (0, 0))[0], c.qualname)))


def walk_scope(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `node` in its own scope: not those of the defs, classes, lambdas and
    comprehensions in it (a comprehension's variable is not the module's)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(c for c in ast.iter_child_nodes(n) if not isinstance(c, (*NAMED, *ANONYMOUS)))


def _module_bindings(tree: ast.Module) -> Tuple[Dict[str, List[str]], Dict[str, Set[str]], Set[str]]:
    """Module-level name -> the dumps of the top-level statements that bind it, -> the names those
    statements read; and the names bound to data (by anything but a def, a class or an import)."""
    binds: Dict[str, List[str]] = {}
    reads: Dict[str, Set[str]] = {}
    data: Set[str] = set()
    code: Set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, NAMED):
            names = {stmt.name}
            code |= names
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
            code |= names
        else:
            names = {n.id for n in walk_scope(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            data |= names
        bound = _unannotated(stmt)  # (what a statement binds, not what a type checker reads of it)
        dump = ast.dump(bound)
        loaded = {n.id for n in ast.walk(bound) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name in names:
            binds.setdefault(name, []).append(dump)
            reads.setdefault(name, set()).update(loaded)
    return binds, reads, data - code  # a name also bound by a def, a class or an import is code


def _unannotated(stmt: ast.stmt) -> ast.stmt:
    """An annotated assignment of a name as the plain assignment it runs as (`REQUIRED:
    Tuple[str, ...] = ("id", "lines")` binds what `REQUIRED = ("id", "lines")` does); any other
    statement as it is."""
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and stmt.simple:
        return ast.Assign(targets=[stmt.target], value=stmt.value, type_comment=None)
    return stmt


def module_data(tree: ast.Module) -> Set[str]:
    """The names a module binds to data at its top level: by an assignment, a `for`, a `with`, ...
    and never by a def, a class or an import (module-level state, as a function sees it)."""
    return _module_bindings(tree)[2]


@bounded
def changed_data(base: Optional[str], head: Optional[str]) -> FrozenSet[str]:
    """The module-level names bound to data at the head and at the base (never by a def, a class
    or an import), whose value the diff may change: a statement binding it reads differently, or
    reads a module-level name (a constant, a function, an import) whose definition changed,
    through any chain (`REQUIRED = ("id",)` for `("id", "lines")`, `REQUIRED = tuple(_required())`
    where `_required` changed). None: the file is absent. SourceError if either side does not
    parse."""
    if head is None:
        return frozenset()
    tree = parse(head)
    after, reads, data = _module_bindings(tree)
    old = parse(base) if base is not None else None
    before, _, was_data = _module_bindings(old) if old is not None else ({}, {}, set())
    changed = {n for n in set(before) | set(after) if before.get(n) != after.get(n)}
    rebound = _rebound_by_imports(old, tree, was_data)
    changed |= rebound
    data = data | rebound
    grew = True
    while grew:
        grew = False
        for name in data - changed:
            if reads.get(name, set()) & changed:
                changed.add(name)
                grew = True
    return frozenset(changed & data & was_data)  # data new at the head was judged by nothing


def _rebound_by_imports(base: Optional[ast.Module], head: ast.Module, names: Set[str]) -> Set[str]:
    """Of `names` (data at the base), those a top-level import the base did not have may bind at
    the head, replacing the value another module now decides: `from keys import REQUIRED`, or any
    of them bound before `from keys import *`."""
    had = {ast.dump(stmt) for stmt in base.body} if base is not None else set()
    bound: Set[str] = set()
    out: Set[str] = set()
    for stmt in head.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) and ast.dump(stmt) not in had:
            if any(a.name == "*" for a in stmt.names):
                out |= bound & names
            out |= {(a.asname or a.name).split(".")[0] for a in stmt.names} & names
        else:
            bound |= {n.id for n in walk_scope(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return out


@bounded
def defined_names(source: str) -> FrozenSet[str]:
    """The names of `source`'s top-level defs and classes (what a base file must define to be
    where `source`'s code came from)."""
    return frozenset(q for q in _table(source) if q != MODULE and "." not in q)


_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_SOURCE_LINE_BREAK = re.compile(r"\r\n|\r|\n")
READABLE_ENCODINGS = ("utf-8", "ascii")


def declared_encoding(source: str) -> Optional[str]:
    r"""The source encoding a PEP 263 comment declares (on the first line, or the second after a
    comment or blank one), named as Python's codecs name it; None when there is none (UTF-8). Lines
    are split where Python's tokenizer splits them (`\n`, `\r\n`, `\r`), not where `str.splitlines`
    does: a first line holding `\x1c` or `\u2028` is still one line (a twentieth outside round's
    d20b, d22 and d24 hid a `utf-7` declaration on the second line behind one)."""
    for line in _SOURCE_LINE_BREAK.split(source.lstrip("\ufeff"), 2)[:2]:
        match = _CODING.match(line)
        if match:
            try:
                return codecs.lookup(match.group(1)).name
            except LookupError:
                return match.group(1)
        if line.strip() and not line.lstrip().startswith("#"):
            break
    return None


def is_export_list(stmt: ast.AST) -> bool:
    """`__all__ = [...]` (or `+=`, or a sum of such lists) of string constants only: a module's
    exports, which run nothing. Any other value there is code like any other."""
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or stmt.value is None:
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if not all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
        return False

    def literal(node: ast.AST) -> bool:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return literal(node.left) and literal(node.right)
        return isinstance(node, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)

    return literal(stmt.value)


def _top_level_code(tree: ast.Module) -> List[ast.stmt]:
    """Module-level statements that are code: not defs or classes, imports, docstrings, no-ops or
    the `__all__` list (a module's imports and exports say where its names live, not what they do)."""
    return [stmt for stmt in tree.body if not (isinstance(stmt, (*NAMED, ast.Import, ast.ImportFrom))
                                               or is_noop(stmt) or is_export_list(stmt))]


def shadows_builtin(stmt: ast.AST) -> bool:
    """An import that binds a builtin's name (`from math import fsum as sum`): what its module
    calls by that name is no longer the builtin, so the import is code, not a note of where a name
    lives."""
    import builtins

    return isinstance(stmt, (ast.Import, ast.ImportFrom)) and any(
        alias.name != "*" and hasattr(builtins, alias.asname or (
            alias.name if isinstance(stmt, ast.ImportFrom) else alias.name.split(".")[0]))
        for alias in stmt.names)


def _import_bindings(tree: ast.Module) -> Set[Tuple[str, str]]:
    """(bound name, imported name) of every import that binds a name other than the one it
    imports (`import x as y`, `from m import a as b`), a builtin's name (`from m import int`) or
    whatever a module exports (`from m import *`)."""
    import builtins

    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":  # binds whatever the module exports, builtins' names too
                    out.add(("*", "." * (getattr(node, "level", 0) or 0) + (getattr(node, "module", "") or "")))
                    continue
                leaf = alias.name.rsplit(".", 1)[-1] if isinstance(node, ast.ImportFrom) or alias.asname else \
                    alias.name.split(".")[0]
                bound = alias.asname or leaf
                if bound != leaf or hasattr(builtins, bound):
                    out.add((bound, alias.name))
    return out


@bounded
def rebinding_imports(head: str, sources: Iterable[str]) -> Tuple[str, ...]:
    """What `head`'s imports bind under another name, or over a builtin, that none of `sources`
    binds the same way: code copied or moved with such an import does not do what its source did
    (`from decimal import Decimal as int`)."""
    known: Set[Tuple[str, str]] = set()
    for text in sources:
        try:
            known |= _import_bindings(parse(text))
        except SourceError:
            continue
    return tuple(sorted(f"{name} as {bound}" for bound, name in _import_bindings(parse(head)) - known))


@bounded
def copied_code(head: str, bases: Mapping[str, str]) -> Tuple[str, ...]:
    """The base files `head`'s code was copied or moved from, when it has no code of its own:
    every def and class of `head` is one of theirs with the same name and code, every other
    module-level statement (imports, docstrings and `__all__` aside) is one of theirs, and no import
    binds a name under another name, or over a builtin, as none of theirs does. Empty when
    any of it is new (or `head` has no def or class). A base file that does not parse is no source."""
    after = _table(head)
    wanted = {(s.kind, s.shape) for q, s in after.items() if q != MODULE}
    if not wanted:
        return ()
    found: Dict[Tuple[str, str], str] = {}
    statements: Dict[str, FrozenSet[str]] = {}
    for path, text in sorted(bases.items()):
        try:
            symbols, statements[path] = _shapes(text)
        except SourceError:
            continue
        for key in symbols & wanted:
            found.setdefault(key, path)
    if not wanted <= set(found):
        return ()
    sources = sorted(set(found.values()))
    known = set().union(*(statements[p] for p in sources))
    if any(own_shape(stmt) not in known for stmt in _top_level_code(parse(head))):
        return ()
    if rebinding_imports(head, [bases[p] for p in sources]):
        return ()
    return tuple(sources)


@functools.lru_cache(maxsize=256)
def _shapes(source: str) -> Tuple[FrozenSet[Tuple[str, str]], FrozenSet[str]]:
    """A module's defs and classes as (kind, shape), and its other top-level statements' shapes:
    parsed once per text however many added modules are compared with it."""
    table = _table(source)
    return (frozenset((s.kind, s.shape) for q, s in table.items() if q != MODULE),
            frozenset(own_shape(stmt) for stmt in _top_level_code(parse(source))))


@bounded
def names_used(source: str, qualnames: Iterable[str]) -> FrozenSet[str]:
    """Every name the code of these symbols uses: variables, attributes and imported names (for
    `<module>`, its statements outside defs and classes)."""
    tree = parse(source)
    wanted = set(qualnames)
    nodes: List[ast.AST] = []
    if MODULE in wanted:
        nodes += [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    nodes += [node for q, _kind, node in iter_symbols(tree) if q in wanted]
    out: Set[str] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                out.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                out.add(sub.attr)
            elif isinstance(sub, ast.alias):
                out.update({sub.name.split(".")[-1], (sub.asname or sub.name).split(".")[-1]})
    return frozenset(out)


def short_name(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def enclosing(qualname: str) -> str:
    """The function (or method) a nested function is part of, outermost: `f` for `f.<locals>.g`
    and for `f.<locals>.g.<locals>.h`, `C.m` for `C.m.<locals>.g`; a symbol nested in none, itself.
    A nested function is reached only through the calls of the one it is in."""
    return qualname.split(".<locals>.", 1)[0]


# ---------------------------------------------------------------------------------------------
# Code objects to symbols.


@dataclass(frozen=True)
class _CodeIndex:
    named: Dict[Tuple[int, str], str]
    anonymous: Dict[Tuple[int, str], str]
    spans: Tuple[Tuple[int, int, str], ...]


@functools.lru_cache(maxsize=64)
def _code_index(source: str) -> _CodeIndex:
    tree = parse(source)
    named: Dict[Tuple[int, str], str] = {}
    spans = []
    for qualname, _kind, node in iter_symbols(tree):
        for line in (start_line(node), node.lineno):
            named.setdefault((line, node.name), qualname)
        spans.append((start_line(node), end_line(node), qualname))
    anonymous: Dict[Tuple[int, str], str] = {}
    for node, owner in walk_owned(tree):
        name = ANONYMOUS.get(type(node))
        if name is not None:
            anonymous.setdefault((node.lineno, name), owner)
    return _CodeIndex(named, anonymous, tuple(spans))


@bounded
def symbol_for_code(source: str, firstlineno: int, co_name: str) -> Optional[str]:
    """The qualname of the symbol a code object `(co_firstlineno, co_name)` of `source` belongs to.

    Lambdas, comprehensions and other anonymous code map to the named symbol whose own code holds
    them (a lambda in a default argument or a decorator belongs to that def). None when nothing
    in `source` matches.
    """
    if co_name == MODULE:
        return MODULE
    index = _code_index(source)
    anonymous = co_name.startswith("<") or (co_name.startswith("__") and co_name.endswith("__"))
    found = index.named.get((firstlineno, co_name))
    if found is not None:
        return found
    if not anonymous:
        return None
    found = index.anonymous.get((firstlineno, co_name))
    if found is not None:
        return found
    holders = [(end - start, q) for start, end, q in index.spans if start <= firstlineno <= end]
    return min(holders)[1] if holders else MODULE


# ---------------------------------------------------------------------------------------------
# Ownership and name resolution.


def walk_owned(tree: ast.Module) -> Iterator[Tuple[ast.AST, str]]:
    """Every node with the qualname of the symbol that owns it (a def owns its decorators)."""

    def visit(node: ast.AST, owner: str, kind: str) -> Iterator[Tuple[ast.AST, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, NAMED):
                child_kind = kind_of(child, kind)
                q = child_qualname(owner, kind, child.name)
                yield child, q
                yield from visit(child, q, child_kind)
            else:
                yield child, owner
                yield from visit(child, owner, kind)

    yield tree, MODULE
    yield from visit(tree, MODULE, "module")


# Where a name lives under another name (re-exports, private homes, platform modules).
CANONICAL = (
    ("builtins.", ""),
    ("py.test", "pytest"),
    ("_pytest.outcomes.skip", "pytest.skip"),
    ("_pytest.outcomes.xfail", "pytest.xfail"),
    ("_pytest.outcomes.exit", "pytest.exit"),
    ("_pytest.outcomes.fail", "pytest.fail"),
    ("_pytest.outcomes.importorskip", "pytest.importorskip"),
    ("_pytest.outcomes.Skipped", "pytest.skip.Exception"),
    ("_pytest.outcomes.XFailed", "pytest.xfail.Exception"),
    ("_pytest.outcomes.Exit", "pytest.exit.Exception"),
    ("_pytest.mark.structures.MARK_GEN", "pytest.mark"),
    ("_pytest.mark.MARK_GEN", "pytest.mark"),
    ("_pytest.python_api.raises", "pytest.raises"),
    ("_pytest.python_api.approx", "pytest.approx"),
    ("_pytest.recwarn.warns", "pytest.warns"),
    ("_pytest.fixtures.fixture", "pytest.fixture"),
    ("hypothesis._settings.settings", "hypothesis.settings"),
    ("hypothesis.core.given", "hypothesis.given"),
    ("hypothesis.strategies._internal.core", "hypothesis.strategies"),
    ("hypothesis.strategies._internal.numbers", "hypothesis.strategies"),
    ("hypothesis.strategies._internal.collections", "hypothesis.strategies"),
    ("hypothesis.strategies._internal.misc", "hypothesis.strategies"),
    ("unittest.case", "unittest"),
    ("posixpath", "os.path"),
    ("ntpath", "os.path"),
    ("posix.environ", "os.environ"),
    ("nt.environ", "os.environ"),
    ("pathlib.PosixPath", "pathlib.Path"),
    ("pathlib.WindowsPath", "pathlib.Path"),
    ("pathlib.PurePosixPath", "pathlib.Path"),
    ("pathlib.PurePath", "pathlib.Path"),
    ("io.open", "open"),
    ("codecs.open", "open"),
)
# Names `from m import *` brings in, for the modules whose names matter to the analyzers.
STAR_EXPORTS = {
    "pytest": ("mark", "skip", "xfail", "importorskip", "exit", "fail", "raises", "warns", "param", "fixture"),
    "hypothesis": ("given", "settings", "HealthCheck", "Phase", "example", "strategies", "assume", "note"),
    "unittest": ("skip", "skipIf", "skipUnless", "expectedFailure", "SkipTest", "TestCase"),
    "os": ("environ", "getenv", "_exit", "abort", "replace", "rename", "remove", "unlink"),
    "sys": ("modules", "settrace", "setprofile", "exit", "argv"),
}
# Calls whose result is (for our purposes) the callee itself: decorator factories.
PASSTHROUGH_PREFIXES = ("pytest.mark.", "unittest.skip", "unittest.expectedFailure", "flaky.flaky",
                        "hypothesis.settings")
# Containers whose items and methods stay "the container" (their elements are looked up in it).
TRACKED = ("sys.modules", "sys.argv", "sys.orig_argv", "os.environ", "os.environb")
# Calls whose result shows the running program (its stack, its modules): tracked like TRACKED.
TRACKED_CALLS = ("sys._getframe", "inspect.stack", "inspect.currentframe", "traceback.extract_stack",
                 "pkgutil.iter_modules")
PATH_JOINS = ("os.path.join", "pathlib.Path", "os.fspath", "str", "os.path.abspath", "os.path.normpath",
              "os.path.realpath", "os.fsdecode")


_CANONICAL_ROOTS = frozenset(old.split(".")[0] for old, _new in CANONICAL)


def canonical(name: str) -> str:
    if name.split(".", 1)[0] not in _CANONICAL_ROOTS:
        return name
    for old, new in CANONICAL:
        if name == old.rstrip(".") or name.startswith(old if old.endswith(".") else old + "."):
            rest = name[len(old.rstrip(".")):]
            name = (new + rest) if new else rest.lstrip(".")
            break
    return name


class _Scope:
    def __init__(self, node: ast.AST, kind: str, parent: Optional["_Scope"]) -> None:
        self.node, self.kind, self.parent = node, kind, parent
        # name -> bindings: ("import", dotted) | ("value", expr, scope) | ("def", node) | ("unknown",)
        self.bindings: Dict[str, List[tuple]] = {}
        self.declared_global: Set[str] = set()
        self.declared_nonlocal: Set[str] = set()
        self.stars: List[str] = []


def _declarations(body: Sequence[ast.AST]) -> Tuple[Set[str], Set[str]]:
    glob: Set[str] = set()
    nonloc: Set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Global):
            glob.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonloc.update(node.names)
        elif not isinstance(node, NAMED + (ast.Lambda,)):
            stack.extend(ast.iter_child_nodes(node))
    return glob, nonloc


_READING_CLASS_PREFIXES = tuple(sorted(f"{c}." for c in READING_CLASSES))


class Names:
    """Name resolution over one module: scopes (LEGB, classes skipped), imports, assignments.

    `resolve(node)` is the set of canonical dotted names an expression may refer to (empty when
    it is a local object or unknown); `strings(node)` the string values it may take.
    """

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.module = _Scope(tree, "module", None)
        self._scope: Dict[int, _Scope] = {}
        self._owner: Dict[int, str] = {}
        self._visit_body(tree.body, self.module, MODULE, "module")
        self._scope[id(tree)] = self.module
        self._owner[id(tree)] = MODULE

    @classmethod
    def of(cls, source: str) -> "Names":
        return cls(parse(source))

    # -- building --------------------------------------------------------------------------

    def _bind(self, scope: _Scope, name: str, binding: tuple) -> None:
        target = scope
        if name in scope.declared_global:
            target = self.module
        elif name in scope.declared_nonlocal:
            up = scope.parent
            while up is not None and (up.kind == "class" or name not in up.bindings) and up.parent is not None:
                up = up.parent
            target = up or scope
        while target.kind == "comprehension" and binding[0] == "walrus":
            target = target.parent  # type: ignore[assignment]
        if binding[0] == "walrus":
            binding = ("value",) + binding[1:]
        target.bindings.setdefault(name, []).append(binding)

    def _bind_target(self, target: ast.AST, value: Optional[ast.AST], scope: _Scope, owner: str, kind: str) -> None:
        if isinstance(target, ast.Name):
            self._record(target, scope, owner)
            self._bind(scope, target.id, ("value", value, scope) if value is not None else ("unknown",))
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._record(target, scope, owner)
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if values is not None and len(values) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in target.elts
            ):
                for t, v in zip(target.elts, values):
                    self._bind_target(t, v, scope, owner, kind)
            else:
                for t in target.elts:
                    self._bind_target(t, None, scope, owner, kind)
        elif isinstance(target, ast.Starred):
            self._record(target, scope, owner)
            self._bind_target(target.value, None, scope, owner, kind)
        else:  # attribute or subscript targets bind nothing; their parts are evaluated
            self._visit(target, scope, owner, kind)

    def _record(self, node: ast.AST, scope: _Scope, owner: str) -> None:
        self._scope[id(node)] = scope
        self._owner[id(node)] = owner

    def _visit_body(self, body: Sequence[ast.AST], scope: _Scope, owner: str, kind: str) -> None:
        for stmt in body:
            self._visit(stmt, scope, owner, kind)

    def _children(self, node: ast.AST, fields: Iterable[str], scope: _Scope, owner: str, kind: str) -> None:
        for name in fields:
            value = getattr(node, name, None)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    self._visit(child, scope, owner, kind)

    def _new_scope(self, node: ast.AST, kind: str, parent: _Scope, body: Sequence[ast.AST]) -> _Scope:
        scope = _Scope(node, kind, parent)
        if kind == "function":
            scope.declared_global, scope.declared_nonlocal = _declarations(body)
        return scope

    def _visit_arguments(self, args: ast.arguments, outer: _Scope, inner: _Scope, owner: str, kind: str) -> None:
        self._record(args, outer, owner)
        every = list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self._visit(default, outer, owner, kind)
        for arg in every:
            self._record(arg, outer, owner)
            if arg.annotation is not None:
                self._visit(arg.annotation, outer, owner, kind)
            self._bind(inner, arg.arg, ("unknown",))

    def _visit(self, node: ast.AST, scope: _Scope, owner: str, kind: str) -> None:
        self._record(node, scope, owner)
        if isinstance(node, NAMED):
            q = child_qualname(owner, kind, node.name)
            own_kind = kind_of(node, kind)
            self._owner[id(node)] = q
            self._bind(scope, node.name, ("def", node))
            for d in node.decorator_list:
                self._visit(d, scope, q, kind)
            if isinstance(node, ast.ClassDef):
                self._children(node, ("bases", "keywords"), scope, q, kind)
                inner = self._new_scope(node, "class", scope, node.body)
            else:
                inner = self._new_scope(node, "function", scope, node.body)
                self._visit_arguments(node.args, scope, inner, q, kind)
                self._children(node, ("returns",), scope, q, kind)
            self._visit_body(node.body, inner, q, own_kind)
        elif isinstance(node, ast.Lambda):
            inner = self._new_scope(node, "lambda", scope, [])
            self._visit_arguments(node.args, scope, inner, owner, kind)
            self._children(node, ("body",), inner, owner, kind)
        elif isinstance(node, COMPREHENSIONS):
            inner = self._new_scope(node, "comprehension", scope, [])
            for i, gen in enumerate(node.generators):
                self._record(gen, inner, owner)
                iter_scope = scope if i == 0 else inner
                self._visit(gen.iter, iter_scope, owner, kind)
                self._bind_iteration(gen.target, gen.iter, iter_scope, inner, owner, kind)
                self._children(gen, ("ifs",), inner, owner, kind)
            self._children(node, ("elt", "key", "value"), inner, owner, kind)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._bind(scope, alias.asname, ("import", canonical(alias.name)))
                else:
                    top = alias.name.split(".")[0]
                    self._bind(scope, top, ("import", top))
        elif isinstance(node, ast.ImportFrom):
            module = "." * (node.level or 0) + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    scope.stars.append(canonical(module))
                else:
                    full = canonical(f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name)
                    self._bind(scope, alias.asname or alias.name, ("import", full))
        elif isinstance(node, ast.Assign):
            self._children(node, ("value",), scope, owner, kind)
            for target in node.targets:
                self._bind_target(target, node.value, scope, owner, kind)
        elif isinstance(node, ast.AnnAssign):
            self._children(node, ("value", "annotation"), scope, owner, kind)
            if node.value is not None or not isinstance(node.target, ast.Name):
                self._bind_target(node.target, node.value, scope, owner, kind)
            else:
                self._record(node.target, scope, owner)
        elif isinstance(node, ast.AugAssign):
            self._children(node, ("value",), scope, owner, kind)
            self._bind_target(node.target, None, scope, owner, kind)
        elif type(node).__name__ == "NamedExpr":
            self._children(node, ("value",), scope, owner, kind)
            self._record(node.target, scope, owner)
            self._bind(scope, node.target.id, ("walrus", node.value, scope))  # type: ignore[attr-defined]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._children(node, ("iter",), scope, owner, kind)
            self._bind_iteration(node.target, node.iter, scope, scope, owner, kind)
            self._visit_body(node.body, scope, owner, kind)
            self._visit_body(node.orelse, scope, owner, kind)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if isinstance(node.ctx, ast.Store):
                self._bind(scope, node.id, ("unknown",))
        else:
            if isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    self._record(item, scope, owner)
                    self._visit(item.context_expr, scope, owner, kind)
                    if item.optional_vars is not None:
                        self._bind_target(item.optional_vars, None, scope, owner, kind)
                self._visit_body(node.body, scope, owner, kind)
                return
            if isinstance(node, ast.ExceptHandler) and node.name:
                self._bind(scope, node.name, ("unknown",))
            for field, value in ast.iter_fields(node):
                for child in value if isinstance(value, list) else [value]:
                    if isinstance(child, ast.AST):
                        self._visit(child, scope, owner, kind)

    def _bind_iteration(self, target: ast.AST, iterable: ast.AST, outer: _Scope, inner: _Scope, owner: str,
                        kind: str) -> None:
        """`for x in sys.modules` makes `x` an item of the tracked container."""
        if isinstance(target, ast.Name):
            self._record(target, inner, owner)
            items = ast.Subscript(value=iterable, slice=ast.Constant(value=None), ctx=ast.Load())
            self._scope[id(items)] = outer
            self._bind(inner, target.id, ("value", items, outer))
        else:
            self._bind_target(target, None, inner, owner, kind)

    # -- queries ---------------------------------------------------------------------------

    def owner(self, node: ast.AST) -> str:
        return self._owner.get(id(node), MODULE)

    def walk(self) -> Iterator[Tuple[ast.AST, str]]:
        """Every node and its owning symbol (breadth first)."""
        for node in ast.walk(self.tree):
            yield node, self.owner(node)

    def _lookup(self, name: str, scope: _Scope) -> Optional[_Scope]:
        s: Optional[_Scope] = scope
        first = True
        while s is not None:
            if name in s.declared_global:
                return self.module if name in self.module.bindings else None
            if (first or s.kind != "class") and name in s.bindings:
                return s
            first = False
            s = s.parent
        return None

    def module_bound(self, node: ast.Name) -> bool:
        """Whether a name read is the module's own (a global), not a local or a builtin."""
        return self._lookup(node.id, self._scope.get(id(node), self.module)) is self.module

    def bindings(self, node: ast.Name) -> List[tuple]:
        found = self._lookup(node.id, self._scope.get(id(node), self.module))
        return list(found.bindings[node.id]) if found is not None else []

    def resolve(self, node: ast.AST) -> FrozenSet[str]:
        return frozenset(self._resolve(node, self._scope.get(id(node), self.module), frozenset()))

    def _resolve(self, node: ast.AST, scope: _Scope, seen: FrozenSet[int]) -> Set[str]:
        if id(node) in seen or len(seen) > 40:
            return set()
        seen = seen | {id(node)}
        out: Set[str] = set()
        if isinstance(node, ast.Name):
            found = self._lookup(node.id, scope)
            if found is None:
                stars = self.module.stars
                out.update(f"{m}.{node.id}" for m in stars if node.id in STAR_EXPORTS.get(m, ()))
                out.add(canonical(node.id))
                return out
            for binding in found.bindings[node.id]:
                if binding[0] == "import":
                    out.add(binding[1])
                elif binding[0] == "value" and binding[1] is not None:
                    out |= self._resolve(binding[1], binding[2], seen)
            return out
        if isinstance(node, ast.Attribute):
            return {canonical(f"{r}.{node.attr}") for r in self._resolve(node.value, scope, seen)}
        if isinstance(node, ast.Call):
            return self._resolve_call(node, scope, seen)
        if isinstance(node, ast.Subscript):
            container = self._resolve(node.value, scope, seen)
            index = subscript_index(node)
            if "sys.modules" in container:
                out |= {canonical(s) for s in self._strings(index, scope, seen, False)}
            namespaces = {c[: -len(".__dict__")] for c in container if c.endswith(".__dict__")}
            if isinstance(node.value, ast.Call) and node.value.args and "vars" in self._resolve(node.value.func, scope, seen):
                namespaces |= self._resolve(node.value.args[0], scope, seen)
            out |= {canonical(f"{n}.{s}") for n in namespaces for s in self._strings(index, scope, seen, False)}
            out |= {f"{c}[]" for c in container if c in TRACKED}
            return out
        if isinstance(node, ast.IfExp):
            return self._resolve(node.body, scope, seen) | self._resolve(node.orelse, scope, seen)
        if isinstance(node, ast.BoolOp):
            for value in node.values:
                out |= self._resolve(value, scope, seen)
            return out
        if type(node).__name__ == "NamedExpr":
            return self._resolve(node.value, scope, seen)  # type: ignore[attr-defined]
        if isinstance(node, ast.Starred):
            return self._resolve(node.value, scope, seen)
        return out

    def _resolve_call(self, node: ast.Call, scope: _Scope, seen: FrozenSet[int]) -> Set[str]:
        funcs = self._resolve(node.func, scope, seen)
        out: Set[str] = set()
        args = node.args

        def arg_strings(i: int, keyword: str) -> Set[str]:
            expr = argument(node, i, keyword)
            return self._strings(expr, scope, seen, False) if expr is not None else set()

        for f in funcs:
            if f == "importlib.import_module":
                out |= {canonical(s) for s in arg_strings(0, "name")}
            elif f == "__import__":
                fromlist = len(args) > 3 or any(k.arg == "fromlist" for k in node.keywords)
                out |= {canonical(s if fromlist else s.split(".")[0]) for s in arg_strings(0, "name")}
            elif f == "getattr" and len(args) >= 2:
                out |= {canonical(f"{r}.{s}") for r in self._resolve(args[0], scope, seen)
                        for s in self._strings(args[1], scope, seen, False)}
            elif f in ("functools.partial", "staticmethod", "classmethod") and args:
                out |= self._resolve(args[0], scope, seen)
            elif f.endswith((".__getattr__", ".__getattribute__")) and args:
                receiver = f.rsplit(".", 1)[0]
                out |= {canonical(f"{receiver}.{s}") for s in self._strings(args[0], scope, seen, False)}
            elif f.endswith(".with_args"):
                out.add(f[: -len(".with_args")])
            elif f.startswith(PASSTHROUGH_PREFIXES):
                out.add(f)
            elif f in ("sys.modules.get", "sys.modules.__getitem__", "sys.modules.setdefault", "sys.modules.pop"):
                out |= {canonical(s) for s in arg_strings(0, "key")}
            for tracked in TRACKED:
                if f.startswith(tracked + "."):
                    out.add(tracked + "[]")
            if f in TRACKED_CALLS:
                out.add(f + "()")
            if f in STATE_RESULTS:
                out.add(STATE_RESULTS[f])
            if f in READING_CLASSES:
                out.add(f)  # an instance: what its class holds is reached through it
            if f == "type" and len(args) == 1:
                out |= {r for r in self._resolve(args[0], scope, seen)
                        if r in READING_CLASSES or r.startswith(_READING_CLASS_PREFIXES)}
            if f in ("list", "dict", "set", "tuple", "sorted", "iter", "frozenset", "reversed") and args:
                out |= {r for r in self._resolve(args[0], scope, seen) if r.rstrip("[]") in TRACKED}
        return out

    def strings(self, node: ast.AST, wildcard: bool = False) -> FrozenSet[str]:
        """The string values `node` may take (at most 32). With `wildcard`, unknown parts of a
        string or path become `*` instead of making the whole value unknown."""
        return frozenset(self._strings(node, self._scope.get(id(node), self.module), frozenset(), wildcard))

    def _strings(self, node: ast.AST, scope: _Scope, seen: FrozenSet[int], wildcard: bool) -> Set[str]:
        unknown = {"*"} if wildcard else set()
        if node is None or id(node) in seen or len(seen) > 40:
            return unknown
        seen = seen | {id(node)}
        ok, value = constant(node)
        if ok:
            if isinstance(value, str):
                return {value}
            if isinstance(value, bytes):
                return {value.decode("latin-1")}
            return unknown

        def sub(n: ast.AST) -> Set[str]:
            return self._strings(n, self._scope.get(id(n), scope), seen, wildcard)

        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                plain = not isinstance(v, ast.FormattedValue)
                if plain or (v.format_spec is None and v.conversion in (-1, None)):
                    parts.append(sub(v if plain else v.value))
                else:
                    parts.append(unknown)
            return _joined(parts, "")
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            return _joined([sub(node.left), sub(node.right)], "" if isinstance(node.op, ast.Add) else "/")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            right = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            return _applied(sub(node.left), [sub(r) for r in right], lambda s, *v: s % tuple(v), unknown)
        if isinstance(node, ast.Name):
            found = self._lookup(node.id, scope)
            out: Set[str] = set()
            for binding in found.bindings[node.id] if found is not None else [("unknown",)]:
                if binding[0] == "value" and binding[1] is not None:
                    out |= self._strings(binding[1], binding[2], seen, wildcard)
                else:
                    out |= unknown
            return out
        if isinstance(node, ast.Subscript):
            bounds = _slice_bounds(subscript_index(node))
            values = sub(node.value)
            if bounds is None or "*" in values:
                return unknown
            return {s[slice(*bounds)] for s in values}
        if isinstance(node, ast.Call):
            return self._call_strings(node, scope, seen, wildcard, sub)
        return unknown

    def _call_strings(self, node: ast.Call, scope: _Scope, seen: FrozenSet[int], wildcard: bool, sub) -> Set[str]:
        unknown = {"*"} if wildcard else set()
        funcs = self._resolve(node.func, scope, seen)
        if funcs & set(PATH_JOINS) and not node.keywords:
            return _joined([sub(a) for a in node.args], "/") if node.args else unknown
        if not isinstance(node.func, ast.Attribute):
            return unknown
        method, receiver = node.func.attr, sub(node.func.value)
        if method == "join" and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
            parts = [sub(e) for e in node.args[0].elts]
            return _applied(receiver, parts, lambda sep, *v: sep.join(v), unknown)
        if method == "joinpath":
            return _joined([receiver] + [sub(a) for a in node.args], "/")
        if method in ("resolve", "absolute", "expanduser", "decode", "encode") and not node.args:
            return receiver
        if method in STR_METHODS and not node.keywords:
            call = lambda s, *v: getattr(s, method)(*v)  # noqa: E731
            return _applied(receiver, [sub(a) for a in node.args], call, unknown)
        return unknown


STR_METHODS = ("upper", "lower", "strip", "lstrip", "rstrip", "casefold", "title", "capitalize", "format",
               "replace", "removeprefix", "removesuffix")


def _joined(parts: Sequence[Set[str]], sep: str) -> Set[str]:
    if any(not p for p in parts):
        return set()
    return {sep.join(c) for c in itertools.islice(itertools.product(*parts), MAX_STRINGS)}


def _applied(receivers: Set[str], args: Sequence[Set[str]], fn, unknown: Set[str]) -> Set[str]:
    out: Set[str] = set()
    for r in receivers:
        for values in itertools.islice(itertools.product(*args), MAX_STRINGS):
            if r == "*" or "*" in values:
                out |= unknown
                continue
            try:
                result = fn(r, *values)
            except (AttributeError, IndexError, KeyError, ValueError, TypeError):
                out |= unknown
                continue
            out.add(result) if isinstance(result, str) else out.update(unknown)
    return out


def _slice_bounds(index: ast.AST) -> Optional[Tuple[Optional[int], ...]]:
    if not isinstance(index, ast.Slice):
        return None
    bounds = []
    for part in (index.lower, index.upper, index.step):
        sign = 1
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
            part, sign = part.operand, -1
        ok, value = constant(part) if part is not None else (True, None)
        if not ok or not (value is None or (isinstance(value, int) and not isinstance(value, bool))):
            return None
        bounds.append(None if value is None else sign * value)
    return tuple(bounds)
