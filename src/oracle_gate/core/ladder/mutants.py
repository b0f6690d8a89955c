"""Mutants of changed symbols: the engine behind R3 "numbness by mutation".

A mutant is the full source of one module with one small, deliberate fault in the lines of a
changed symbol. The gate runs each mutant against the region's voting oracles (through Pants'
own pytest runner, the mutated source shipped in `ORACLE_GATE_MUTANT`); a changed symbol whose
mutants all survive is numb: no oracle can tell it from a broken version of itself.

How a mutant is made: `ast` decides what to mutate and checks the result, but the mutant itself
is a text edit at node positions (never a re-unparse of the module), so only the mutated span
changes and every line keeps its number: the evidence recorder maps executed code by line. (One
kind adds lines: a rejection the diff removed, put back; a mutant's run is read for its outcome.) Each
mutant is checked to compile and to parse to exactly the intended tree (the original with one
node changed), which differs from the original tree; mutants with the same tree are kept once.

Choice and order are deterministic and bounded: candidates are taken round-robin by symbol,
then by operator kind (`KINDS` order) within a symbol, in source order within a kind, until
`max_mutants` are accepted, so one large symbol cannot starve the others.

Needs node end positions (Python 3.8+); Python 3.7 raises `MutationUnsupported`.
"""
from __future__ import annotations

import ast
import bisect
import builtins
import dataclasses
import difflib
import functools
import hashlib
import json
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

from ..protocol.cleanroom import CONSTANT_CALLS
from ..source.stdlib import machine_names
from ..source.symbols import (Names, dotted, end_line, is_export_list, is_noop, iter_symbols, shadows_builtin,
                              start_line, walk_owned)

MUTANT_ID_LEN = 12
# Kinds whose candidates are units of their own (judged apart from the rest of their statement).
OWN_UNITS = ("operand", "branch", "held_true", "held_false", "copy", "floor_division", "term")

# Operator kinds, in the order a symbol's turn cycles through them.
KINDS = (
    "eq_hash",
    "compare",
    "condition",
    "boolop",
    "arith",
    "return",
    "unary",
    "off_by_one",
    "constant",
    "cause",
    "raise_type",
    "restore",
    "operand",
    "branch",
    "held_true",
    "held_false",
    "copy",
    "floor_division",
    "term",
    "handler",
    "remove",
    "collection",
)

Target = Tuple[str, Tuple[int, int]]


class MutationUnsupported(RuntimeError):
    """This Python cannot generate mutants (no node end positions before 3.8)."""


@dataclass(frozen=True)
class Mutant:
    id: str
    symbol: str
    operator: str
    line: int
    description: str
    source: str
    unit: str = ""  # "line:column" of the statement it mutates ("line:column:operand" or ":branch": a part of it)

    @property
    def coarse(self) -> bool:
        """A dropped statement or a `return None`: any oracle that merely calls the code and looks
        at its result notices it. Killing one shows the code ran, not that its values are judged."""
        return self.operator == "remove" or self.description.split(" at line ")[0].endswith("-> `return None`")


def mutant_id(path: str, symbol: str, operator: str, location: str, replacement: str) -> str:
    """Stable short hash of what makes a mutant: where, which operator, what text goes in."""
    blob = json.dumps([path, symbol, operator, location, replacement], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:MUTANT_ID_LEN]


def mutants(
    source: str, path: str, targets: Sequence[Target], max_mutants: int
) -> Tuple[Mutant, ...]:
    """At most `max_mutants` mutants of the nodes inside the targets' line ranges.

    `targets` are `(symbol qualname, (start_line, end_line))`, 1-based and inclusive; a symbol may
    appear more than once (disjoint ranges). A node belongs to the innermost range that holds all
    of its lines, so nested symbols (a class and its method) do not share mutants.
    """
    if sys.version_info < (3, 8):
        raise MutationUnsupported(
            "mutant generation needs Python 3.8+ (AST end positions); this is "
            + ".".join(str(part) for part in sys.version_info[:3])
        )
    if isinstance(max_mutants, bool) or not isinstance(max_mutants, int) or max_mutants < 0:
        raise ValueError(f"max_mutants must be a non-negative integer, got {max_mutants!r}")
    ranges = _check_targets(targets)
    if max_mutants == 0 or not ranges:
        return ()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        where = f" line {exc.lineno}" if getattr(exc, "lineno", None) else ""
        raise ValueError(f"cannot parse {path}:{where} {getattr(exc, 'msg', exc)}") from None
    engine = _Engine(source, path, tree, ranges)
    return engine.select(max_mutants)


def changed_lines(base: Optional[str], head: str) -> FrozenSet[int]:
    """The head's line numbers (1-based) that the diff added or changed: every line of a new file.
    A line whose only change is in a function's annotations (`-> List[int]` made `-> Iterator[int]`)
    is not changed: annotations are never mutated, and the rest of the line (a default the diff did
    not touch) is the base's."""
    if base is None:
        return frozenset(range(1, len(head.splitlines()) + 1))
    return frozenset(j + 1 for tag, _i1, _i2, j1, j2 in _line_opcodes(_unannotated(base), _unannotated(head))
                     if tag in ("replace", "insert") for j in range(j1, j2))


def _unannotated(source: str) -> str:
    """`source` with the annotations of every function's parameters and return taken out, each line
    kept where it was (a text that does not parse: as it is). A variable's annotation stays: a
    dataclass reads its fields from them."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    spans = [(n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) for f in ast.walk(tree)
             if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in [f.returns, *(a.annotation for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs,
                                                            f.args.vararg, f.args.kwarg) if a is not None)]
             if n is not None and n.end_lineno is not None and n.end_col_offset is not None]
    lines = [line.encode("utf-8") for line in source.splitlines()]  # the offsets count UTF-8 bytes
    for first, start, last, end in sorted(spans, reverse=True):
        if first == last:
            lines[first - 1] = lines[first - 1][:start] + lines[first - 1][end:]
        else:
            lines[first - 1] = lines[first - 1][:start]
            lines[first:last - 1] = [b""] * (last - first - 1)
            lines[last - 1] = lines[last - 1][end:]
    return "".join(f"{line.decode('utf-8', 'replace')}\n" for line in lines)  # as many lines (a last blank one too)


@functools.lru_cache(maxsize=8)
def _line_opcodes(base: str, head: str) -> Tuple[Tuple[str, int, int, int, int], ...]:
    """The line diff of one file, computed once for every reader (changed, rewritten and removed
    lines, removed rejections)."""
    matcher = difflib.SequenceMatcher(None, base.splitlines(), head.splitlines(), autojunk=False)
    return tuple(matcher.get_opcodes())


def removed_lines(base: Optional[str], head: Optional[str]) -> FrozenSet[str]:
    """The text (stripped) of the base's lines the diff deleted or rewrote in one file."""
    if base is None:
        return frozenset()
    old = base.splitlines()
    return frozenset(old[i].strip() for tag, i1, i2, _j1, _j2 in _line_opcodes(base, head or "")
                     if tag in ("replace", "delete") for i in range(i1, i2) if old[i].strip())


def moved_in(head: str, lines: FrozenSet[int], removed_elsewhere: FrozenSet[str]) -> FrozenSet[int]:
    """Of a file's changed lines, those that are a line the same diff removed from another file,
    verbatim (code moved to a new module, as `git diff --color-moved` shows it): they keep the
    judging they had. A line reordered within its own file is a change."""
    text = head.splitlines()
    return frozenset(n for n in lines if 0 < n <= len(text) and text[n - 1].strip() in removed_elsewhere)


@dataclass(frozen=True)
class FileToMutate:
    path: str
    source: str  # the head's text
    targets: Tuple[Target, ...]  # the changed symbols that voters executed, with their line ranges
    lines: FrozenSet[int]  # changed lines (changed_lines)
    base: Optional[str] = None  # the base's text of the file, where it had one (for `retyped_raises`)
    # Whether its voters state laws (P or L floors): rejections the diff removed are put back
    # (`removed_rejections`), and conditions it added and branches of conditional expressions it
    # wrote are judged on their own (`added_operands`, `added_branches`).
    # In a region judged by class-E tests at adoption, examples state no such law: a removed
    # check, a defensive condition or a fallback branch no example reaches is judged with its line.
    laws: bool = True


_UnitKey = Tuple[Any, ...]  # (line, column) of a statement, or (line, column, "operand" or "branch")


@dataclass(frozen=True)
class LinePlan:
    mutants: Tuple[Tuple[str, Mutant], ...]  # (path, mutant); mutant.line is the changed line it tests
    not_mutated: Tuple[Tuple[str, int, str], ...]  # (path, line, symbol): mutable, and the budget ran out


def _statements(tree: ast.AST) -> List[Tuple[int, int, int, int]]:
    """(first line, column, last line, end column) of every statement."""
    return [(n.lineno, n.col_offset, n.end_lineno or n.lineno, n.end_col_offset or 0)
            for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def _statement_at(statements: Sequence[Tuple[int, int, int, int]], line: int, col: int) -> Tuple[int, int]:
    """The innermost statement holding a position: a statement packed onto a line beside another
    (`a; b`, `if x: return y`) is a unit of its own."""
    found = (0, 0)
    for first, start, last, end in statements:
        if (first, start) <= (line, col) and (line, col) < (last, end) and (first, start) > found:
            found = (first, start)
    return found


def line_mutants(files: Sequence[FileToMutate], budget: int, per_symbol: int) -> LinePlan:
    """Mutants for every changed line, statement by statement: each mutable statement on a changed
    line (one with a candidate that is not arid) gets its first mutant before any gets a second, then lines take further turns while
    their symbol has fewer than `per_symbol`, until `budget` mutants are chosen. A mutable line the
    budget never reached is returned in `not_mutated`, so padding a diff cannot hide a line: it
    only makes the gate say which lines went unjudged. A candidate belongs to the first changed
    line it spans (a statement removal spanning several lines tests the first changed one)."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget must be a non-negative integer, got {budget!r}")
    queues: Dict[Tuple[str, int, _UnitKey], Tuple[_Engine, List[List[_Candidate]]]] = {}
    for f in files:
        ranges = _check_targets(f.targets)
        if not ranges or not f.lines:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(f.source, filename=f.path)
        except (SyntaxError, ValueError) as exc:
            raise ValueError(f"cannot parse {f.path}: {getattr(exc, 'msg', exc)}") from None
        # (a literal the diff only gave a name: its line and its readers' are the base's code)
        lines = f.lines - named_literals(f.base, tree, f.lines)
        if not lines:
            continue
        rewritten = rewritten_lines(f.base, f.source)
        retyped = retyped_raises(f.base, tree, lines, rewritten)
        judged = lines if f.laws else frozenset()
        laws_base = f.base if f.laws else None
        engine = _Engine(f.source, f.path, tree, ranges, retyped,
                         added_operands(laws_base, tree, lines) | added_filters(laws_base, tree, lines),
                         added_branches(f.base, tree, judged), added_truths(f.base, tree, judged),
                         removed_copies(laws_base, tree, rewritten), float_divisions(tree, judged),
                         added_terms(laws_base, tree, lines))
        statements = _statements(tree)
        by_line: Dict[Tuple[int, _UnitKey], Dict[str, List[_Candidate]]] = {}
        lo, hi = min(r[1] for r in ranges), max(r[2] for r in ranges)
        # A rejection the diff removed is judged on its own, at the statement now in its place
        # (column -1: no statement of the head's), whether or not that line changed; where a
        # raise of another class took its place, that raise's own mutant judges it.
        removed = [r for r in removed_rejections(f.base if f.laws else None, f.source, tree)
                   if id(r.before) not in retyped]
        for cand in engine.restores(removed):
            cand.symbol = engine.owner(cand.lines) or ""
            if cand.symbol:
                by_line.setdefault((cand.lines[0], (cand.lines[0], -1)), {}).setdefault(cand.kind, []).append(cand)
        for cand in engine.collect(lo, hi):
            symbol = engine.owner(cand.lines)
            line = next((n for n in range(cand.lines[0], cand.lines[1] + 1) if n in lines), None)
            if symbol is None or line is None:
                continue
            cand.symbol = symbol
            # A condition the diff added, a branch of a conditional expression it wrote, or a truth
            # value it wrote held either way, is a unit of its own, at its own place.
            unit = (cand.order[0], cand.order[1], cand.kind) if cand.kind in OWN_UNITS else \
                _statement_at(statements, cand.order[0], cand.order[1])
            by_line.setdefault((line, unit), {}).setdefault(cand.kind, []).append(cand)
        for (line, unit), kinds in by_line.items():
            ordered = [sorted(kinds[k], key=lambda c: c.order) for k in KINDS if k in kinds]
            # A unit's first mutants are value mutants where it has any: a crash-like one (a dropped
            # statement, `return None`) shows only that the line runs, and may be no change at all
            # where the value is only ever tested for truth (`return False` -> `return None`).
            queues[(f.path, line, unit)] = (engine, [q for q in [[c for c in q if not _crash_like(c)] for q in ordered]
                                                     + [[c for c in q if _crash_like(c)] for q in ordered] if q])
    chosen: List[Tuple[str, Mutant]] = []
    per_sym: Dict[Tuple[str, str], int] = {}
    not_mutated: List[Tuple[str, int, str]] = []
    active: List[Tuple[str, int, _UnitKey]] = []

    def take(key: Tuple[str, int, _UnitKey], kinds: List[List[_Candidate]]) -> Optional[Mutant]:
        engine = queues[key][0]
        mutant = engine._turn(kinds)
        # `line` is the changed line the mutant tests (its edit may start on an earlier line of
        # the same node; the description says where the edit is), `unit` its statement.
        return None if mutant is None else dataclasses.replace(mutant, line=key[1], unit=":".join(map(str, key[2])))

    for key in sorted(queues):  # first round: every line once (order is moot: a line left out is reported)
        _, kinds = queues[key]
        symbol = kinds[0][0].symbol
        mutant = take(key, kinds)
        if mutant is None:
            continue  # nothing realisable on this line
        if len(chosen) >= budget:
            if (key[0], key[1], symbol) not in not_mutated:
                not_mutated.append((key[0], key[1], symbol))
            continue
        chosen.append((key[0], mutant))
        per_sym[(key[0], mutant.symbol)] = per_sym.get((key[0], mutant.symbol), 0) + 1
        active.append(key)
    while active and len(chosen) < budget:
        still = []
        for key in active:
            if len(chosen) >= budget:
                break
            _, kinds = queues[key]
            if not kinds or per_sym.get((key[0], kinds[0][0].symbol), 0) >= per_symbol:
                continue
            mutant = take(key, kinds)
            if mutant is not None:
                chosen.append((key[0], mutant))
                per_sym[(key[0], mutant.symbol)] = per_sym.get((key[0], mutant.symbol), 0) + 1
                still.append(key)
        active = still
    return LinePlan(tuple(chosen), tuple(not_mutated))


def _crash_like(candidate: "_Candidate") -> bool:
    """The candidate of a crash-like mutant (`Mutant.coarse`)."""
    return candidate.kind == "remove" or candidate.description.endswith("-> `return None`")


def _check_targets(targets: Sequence[Target]) -> List[Tuple[str, int, int, int]]:
    """(symbol, start, end, order) per range; a clear error for a malformed target."""
    ranges = []
    for order, target in enumerate(targets):
        try:
            symbol, (start, end) = target
        except (TypeError, ValueError):
            raise ValueError(f"target must be (symbol, (start_line, end_line)), got {target!r}") from None
        ok = all(isinstance(n, int) and not isinstance(n, bool) for n in (start, end))
        if not isinstance(symbol, str) or not symbol or not ok or not 1 <= start <= end:
            raise ValueError(f"target must be (symbol, (start_line, end_line)), got {target!r}")
        ranges.append((symbol, start, end, order))
    return ranges


# -- operator tables -------------------------------------------------------------------------

_CMP_TEXT = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
_CMP_SWAP = {
    ast.Lt: (ast.LtE, ast.GtE), ast.LtE: (ast.Lt, ast.Gt), ast.Gt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Gt, ast.Lt), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
}
_BIN_TEXT = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^",
}
_BIN_SWAP = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.LShift: ast.RShift,
    ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitAnd,
}
# `x OP k` is the same as `x SWAP k` for these right-hand constants: skip, never a real mutant.
_NEUTRAL_RIGHT = {
    ast.Add: 0, ast.Sub: 0, ast.Mult: 1, ast.Div: 1, ast.FloorDiv: 1, ast.Pow: 1,
    ast.LShift: 0, ast.RShift: 0,
}
_ORDER_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")
_BOOL_CALLS = ("isinstance", "issubclass", "hasattr", "callable", "all", "any", "bool")
_OPERATOR_PREDICATES = frozenset({"lt", "le", "eq", "ne", "ge", "gt", "not", "truth", "contains", "is", "is_not"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_NEWLINE_RE = re.compile(r"\r\n|\r|\n")


# -- the engine ------------------------------------------------------------------------------

class _Set:
    """One in-place change of the original tree: `container[key] = value` (list index or
    attribute), used to compute the tree a mutant must parse to, then undone."""

    __slots__ = ("container", "key", "value")

    def __init__(self, container: Any, key: Any, value: Any) -> None:
        self.container, self.key, self.value = container, key, value

    def swap(self, value: Any) -> Any:
        if isinstance(self.key, int):
            old = self.container[self.key]
            self.container[self.key] = value
        else:
            old = getattr(self.container, self.key)
            setattr(self.container, self.key, value)
        return old


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str
    adds_lines: bool = False  # only a restored statement may (the lines after it move down)


@dataclass
class _Candidate:
    kind: str
    lines: Tuple[int, int]
    order: Tuple[int, int, int]
    description: str
    alternatives: Tuple[Tuple[_Edit, ...], ...]
    changes: Tuple[_Set, ...]
    symbol: str = ""


def _const(value: Any) -> ast.Constant:
    return ast.Constant(value=value, kind=None)


def _name(ident: str) -> ast.Name:
    return ast.Name(id=ident, ctx=ast.Load())


def _not(node: ast.AST) -> ast.UnaryOp:
    return ast.UnaryOp(op=ast.Not(), operand=node)


def _is_number(node: Any, value: Any) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
        and node.value == value
    )


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def _short(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _newlines(text: str) -> int:
    return len(_NEWLINE_RE.findall(text))


Unit = Tuple[List[Any], int, bool]  # (statement list, index, is a class header)


def _units(body: List[Any]) -> List[Unit]:
    units: List[Unit] = []
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.ClassDef) and stmt.body and _first_line(stmt.body[0]) > stmt.lineno:
            units.append((body, index, True))
            units.extend(_units(stmt.body))
        else:
            units.append((body, index, False))
    return units


def _first_line(stmt: Any) -> int:
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])


def _unit_lines(unit: Unit) -> Tuple[int, int]:
    body, index, header = unit
    stmt = body[index]
    if header:
        return _first_line(stmt), _first_line(stmt.body[0]) - 1
    return _first_line(stmt), stmt.end_lineno


def _unit_dump(unit: Unit) -> str:
    body, index, header = unit
    stmt = body[index]
    if not header:
        return ast.dump(stmt)
    shell = ast.ClassDef(**{f: getattr(stmt, f, None) for f in stmt._fields})
    shell.body = []
    return ast.dump(shell)


# Calls whose only effect is a message to a person: logging, printing, warnings, metrics.
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"})
_LOG_FUNCTIONS = frozenset({"print", "warnings.warn", "pprint.pprint", "pprint"})


# Calls that cannot change anything a result depends on: builtins that neither consume an
# iterator nor run user code beyond a dunder, and read-only methods of strings, dates and mappings.
_PURE_CALLS = frozenset({"len", "str", "repr", "int", "float", "bool", "type", "id", "hex", "oct", "bin", "ord",
                         "chr", "abs", "round", "format", "isinstance", "issubclass", "hash", "ascii", "callable",
                         "getattr", "hasattr"})
_PURE_METHODS = frozenset({"format", "join", "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit",
                           "replace", "startswith", "endswith", "encode", "decode", "hex", "isoformat", "strftime",
                           "get", "keys", "values", "items", "count", "title", "capitalize", "total_seconds"})
# and the clocks' reads, by the end of their dotted name (`datetime.date.today()`, `time.time()`; a
# method of the code's own called `now` is no clock's)
_CLOCK_READS = ("date.today", "datetime.today", "datetime.now", "datetime.utcnow", "time.time", "time.time_ns",
                "time.monotonic", "time.perf_counter")


def _clock_read(func: ast.AST) -> bool:
    name = dotted(func)
    return any(name == read or name.endswith(f".{read}") for read in _CLOCK_READS)


def inert(node: Optional[ast.AST]) -> bool:
    """An expression whose evaluation changes nothing: no assignment expression, no yield or await,
    no lambda, and no call but to `_PURE_CALLS`, `_PURE_METHODS` or a clock's read. A log message made of inert
    parts is arid; one that pops a dict or rebinds a local is code."""
    for n in ast.walk(node) if node is not None else ():
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda)):
            return False
        if isinstance(n, ast.Call) and not (
                (isinstance(n.func, ast.Name) and n.func.id in _PURE_CALLS)
                or (isinstance(n.func, ast.Attribute) and n.func.attr in _PURE_METHODS) or _clock_read(n.func)):
            return False
    return True


def message_parts(node: ast.AST) -> Optional[List[Any]]:
    """The argument expressions of a message statement (a logging, print or warnings call on its own
    line, or a `raise` of a named exception), or None for any other statement."""
    if isinstance(node, ast.Raise):
        exc = node.exc
        if isinstance(exc, ast.Call) and isinstance(exc.func, (ast.Name, ast.Attribute)) and inert(exc.func):
            return [*exc.args, *(k.value for k in exc.keywords), node.cause]
        return [node.cause] if exc is None or (isinstance(exc, (ast.Name, ast.Attribute)) and inert(exc)) else None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        name = dotted(call.func)
        head, _, method = name.rpartition(".")
        if name in _LOG_FUNCTIONS or (method in _LOG_METHODS and (head == "logging" or "log" in head.lower())):
            return [*call.args, *(k.value for k in call.keywords)]
        # the logger fetched in the statement itself: `logging.getLogger(__name__).debug(...)`
        fetched = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(fetched, ast.Call) and dotted(fetched.func).rpartition(".")[2] == "getLogger" \
                and call.func.attr in _LOG_METHODS:  # type: ignore[attr-defined]
            return [*call.args, *(k.value for k in call.keywords), *fetched.args, *(k.value for k in fetched.keywords)]
    return None


def _raised_class(node: ast.Raise) -> Optional[ast.AST]:
    """The class expression a `raise` names (`raise E(...)`, `raise pkg.E`), when it is spelled as
    a class (a capitalised last name) other than Exception itself; None for `raise err`, `raise`."""
    exc = node.exc
    cls = exc.func if isinstance(exc, ast.Call) else exc
    name = dotted(cls) if cls is not None else ""
    last = name.rpartition(".")[2]
    return cls if last[:1].isupper() and last not in ("Exception", "BaseException") else None


def _class_name(cls: ast.AST) -> str:
    """A raised class as compared across the diff: its dotted name, a builtin alias as the class it
    is (`IOError` is `OSError`)."""
    name = dotted(cls)
    found = getattr(builtins, name, None) if "." not in name else None
    return found.__name__ if isinstance(found, type) else name


def _bound_names(tree: ast.Module) -> Set[str]:
    """The names a module binds at its top level (defs, classes, assignments, imports) and the
    builtins: where a raised class's name is none of these, the class was renamed or removed."""
    names = set(dir(builtins))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return names


def _raises(tree: ast.Module) -> List[Tuple[ast.Raise, str, str]]:
    """Every raise that names a class: (the node, the symbol that owns it, the class as compared)."""
    out = []
    for node, owner in walk_owned(tree):
        cls = _raised_class(node) if isinstance(node, ast.Raise) else None
        if cls is not None:
            out.append((node, owner, _class_name(cls)))
    return out


def _by_symbol(raises: Sequence[Tuple[ast.Raise, str, str]]) -> Dict[str, Set[str]]:
    """Symbol -> the classes its own raises name."""
    out: Dict[str, Set[str]] = {}
    for _node, owner, name in raises:
        out.setdefault(owner, set()).add(name)
    return out


def retyped_raises(base: Optional[str], head: ast.Module, lines: FrozenSet[int],
                   rewritten: Mapping[int, int] = {}) -> FrozenSet[int]:
    """The raises on changed lines whose exception class the diff changed (ids of the head's nodes):
    a raise rewritten in place (`rewritten`: head line -> the base line it replaced) that named
    another class there, or a raise of a symbol that raised a class at the base it raises no more,
    where this class is new to the symbol. Only classes the module still binds count. A message
    reworded keeps its class and stays arid; a raise added beside the old ones, or new to its
    symbol, is guarded by its condition, which is mutated; a class renamed everywhere leaves
    nothing to catch by the old name."""
    if not base or not lines:
        return frozenset()
    old = _parse(base)
    if old is None:
        return frozenset()
    was = _raises(old)
    before, at = _by_symbol(was), {node.lineno: name for node, _symbol, name in was}
    raises, bound = _raises(head), _bound_names(head)
    now = _by_symbol(raises)
    out = set()
    for node, symbol, name in raises:
        if not any(n in lines for n in range(node.lineno, node.end_lineno + 1)):
            continue
        replaced = at.get(rewritten.get(node.lineno, 0))
        raised = {c for c in before.get(symbol, ()) if c.split(".")[0] in bound}
        if (replaced not in (None, name) and replaced.split(".")[0] in bound) or (
                raised - now.get(symbol, set()) and name not in raised):
            out.add(id(node))
    return frozenset(out)


def rewritten_lines(base: Optional[str], head: str) -> Dict[int, int]:
    """Head line -> the base line it rewrote in place: the k-th line of a replaced block for the
    k-th line it replaced (1-based)."""
    if base is None:
        return {}
    return {j1 + k + 1: i1 + k + 1 for tag, i1, i2, j1, j2 in _line_opcodes(base, head) if tag == "replace"
            for k in range(min(i2 - i1, j2 - j1))}


def added_operands(base: Optional[str], head: ast.Module, lines: FrozenSet[int]) -> FrozenSet[int]:
    """The conditions the diff added that make a guard's raise rarer, in a symbol the base had (ids
    of the head's nodes): an operand of an `and` or `or` on a changed line, in the test of an `if`
    that raises (in its body or its `else`) or of an `assert`, on the side that narrows the raise
    (an `and` where the test being true raises, an `or` where it being false does; a `not`
    flips the side), that no expression of that symbol at the base reads the same. Such an operand
    is judged on its own (a mutant drops it): a guard made unreachable for every input an oracle
    draws (`if cents <= 0 and account == "__never__":`) is not cleared by a killed mutant of the
    condition it narrows. An `if` whose body does anything else is read the same way, its body
    the branch its test picks out (a validator's `problems.append(...)`: a nineteenth round's d17,
    `... and (line[1] >= 0 or str(line[0])[:1] == chr(0x2212))`, let a negative line through where
    a name starts with a minus sign). A condition that widens a rejection (a stricter check) or
    feeds a value is judged with its statement; new symbols are new code, judged as a whole."""
    if not base or not lines:
        return frozenset()
    fresh: Dict[str, List[ast.expr]] = {}

    def narrowing(node: ast.expr, raises_when_true: bool, owner: str) -> None:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            narrowing(node.operand, not raises_when_true, owner)
        elif _quantified(node) is not None:
            # `any(e for x in xs)` is true where some element is, `all(...)` false where some is
            # not: each element is a test of the same guard, on the same side.
            narrowing(_quantified(node).elt, raises_when_true, owner)
        elif isinstance(node, ast.BoolOp):
            narrows = isinstance(node.op, ast.And) == raises_when_true
            for value in node.values:
                if narrows and any(n in lines for n in range(value.lineno, value.end_lineno + 1)):
                    fresh.setdefault(owner, []).append(value)
                narrowing(value, raises_when_true, owner)

    for node, owner in walk_owned(head):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.orelse) \
                and not any(isinstance(s, ast.Raise) for s in node.body):
            narrowing(node.test, False, owner)
        elif isinstance(node, ast.If):  # (a body that raises, or any other: the branch the test picks out)
            narrowing(node.test, True, owner)
        elif isinstance(node, ast.Assert):
            narrowing(node.test, False, owner)
    before = _base_expressions(base, fresh)
    return frozenset(id(v) for owner, values in fresh.items() if owner in before
                     for v in values if ast.dump(v) not in before[owner])


# Operators a term (or a factor, a divisor, a shift) is added with, whose mutant drops it: `+`, `-`,
# `|`, `^`, `<<`, `>>` (0 leaves the value as it is), `*`, `/`, `//`, `**` (1 does); those of
# TERM_OPS_RIGHT only on their right.
TERM_OPS = (ast.Add, ast.Sub, ast.BitOr, ast.BitXor, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.LShift, ast.RShift)
TERM_OPS_RIGHT = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow, ast.LShift, ast.RShift)
# The same operations written as calls (`operator.add(x, t)`, `x.__add__(t)`, `pow(x, t)`), and
# `max`/`min` of two (a bound put on a value: `min(total, t)`, `min(remainder, 65_535)`, a branch
# for the inputs past it, whatever the bound is), whose mutant keeps the value (None: either side
# may be the term).
CALLED_OPS: Dict[str, Optional[type]] = {
    **{f"operator.{name}": op for name, op in (
        ("add", ast.Add), ("sub", ast.Sub), ("mul", ast.Mult), ("truediv", ast.Div), ("floordiv", ast.FloorDiv),
        ("pow", ast.Pow), ("or_", ast.BitOr), ("xor", ast.BitXor), ("lshift", ast.LShift), ("rshift", ast.RShift),
        ("and_", ast.BitAnd), ("mod", ast.Mod), ("iadd", ast.Add), ("isub", ast.Sub), ("imul", ast.Mult),
        ("ifloordiv", ast.FloorDiv))},
    "pow": ast.Pow, "math.pow": ast.Pow, "max": None, "min": None,
}
# A bound put on a value (`max`/`min`, None above), a mask (`remainder & 0xFFFF`) or a modulus
# (`x % 65_536`): a branch for the inputs past it, whatever the bound is, a constant too; its
# mutant keeps the value.
BOUNDS = (None, ast.BitAnd, ast.Mod)
DUNDER_OPS: Dict[str, type] = {"__add__": ast.Add, "__sub__": ast.Sub, "__mul__": ast.Mult, "__truediv__": ast.Div,
                               "__floordiv__": ast.FloorDiv, "__pow__": ast.Pow, "__or__": ast.BitOr,
                               "__xor__": ast.BitXor, "__lshift__": ast.LShift, "__rshift__": ast.RShift,
                               "__radd__": ast.Add, "__rmul__": ast.Mult, "__and__": ast.BitAnd, "__mod__": ast.Mod}
# Calls that sum (or multiply) the items of a list or tuple written in the call (`sum((x, t))`):
# an item the diff added is a term, whose mutant puts the call's identity in its place.
FOLDS = {"sum": 0, "math.fsum": 0, "math.prod": 1}


def called_operation(node: ast.AST, names: Names) -> Optional[Tuple[Optional[type], ast.expr, ast.expr]]:
    """An operation of two values written as a call (CALLED_OPS, DUNDER_OPS): its operator (None
    for `max`/`min`) and its two operands; None for anything else."""
    if not isinstance(node, ast.Call) or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if isinstance(node.func, ast.Attribute) and node.func.attr in DUNDER_OPS and len(node.args) == 1:
        return DUNDER_OPS[node.func.attr], node.func.value, node.args[0]
    found = [CALLED_OPS[n] for n in names.resolve(node.func) if n in CALLED_OPS]
    if len(node.args) == 2 and len(found) == 1:
        return found[0], node.args[0], node.args[1]
    return None


def _operation(node: ast.AST, names: Names) -> Optional[Tuple[Optional[type], ast.expr, ast.expr]]:
    """An operation of two values, written with its operator (`x + t`) or as a call
    (`called_operation`): its operator and its two operands; None for anything else."""
    if isinstance(node, ast.BinOp):
        return type(node.op), node.left, node.right
    return called_operation(node, names)


def _fold_items(node: ast.AST, names: Names) -> Optional[Tuple[List[ast.expr], int]]:
    """The items of a list or tuple a FOLDS call folds (`sum((x, t))`), and the fold's identity."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], (ast.List, ast.Tuple)):
        found = [FOLDS[n] for n in names.resolve(node.func) if n in FOLDS]
        if len(found) == 1 and not any(isinstance(e, ast.Starred) for e in node.args[0].elts):
            return node.args[0].elts, found[0]
    return None


def added_terms(base: Optional[str], head: ast.Module, lines: FrozenSet[int]) -> Dict[int, Any]:
    """The terms (and factors) the diff added to a value the base computed, in a symbol the base had
    (the ids of the head's TERM_OPS nodes, each with the side its term is on, `_added_side`): on a
    changed line, `x + t`, `x - t`, `t + x`, `x * t`, `x | t`, ... where `x` is (or sums) an
    expression that symbol held at the base (a value it computed, a name, a constant) and `t` is
    none (nor a constant), in a function, and `t` reads one of its parameters or locals or the
    machine (a term that reads none is the same for every call, and is judged with its line: `+
    fee(0)`); and a slice the diff added to such a value (`done[k:]`, side "slice"). Such a term
    is judged on its own (a mutant drops it): a term that is 0 for every input an oracle draws (`+ 1 // ((cents + 7)
    % 7 ** 7 + 1)`), or a factor that is 1, is not cleared by a killed mutant of the value it joins."""
    if not base or not lines:
        return {}
    changed: Dict[str, List[ast.expr]] = {}  # the expressions on changed lines, by symbol
    inputs: Dict[str, Set[str]] = {}  # a function's qualname -> its parameters and locals
    for node, owner in walk_owned(head):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # (a comprehension's variables too: `int(cents) // (...)` for each line's `cents`)
            inputs[owner] = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} | {
                n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(node, ast.expr) and any(n in lines for n in range(node.lineno, node.end_lineno + 1)):
            changed.setdefault(owner, []).append(node)
    before = _base_expressions(base, changed)
    if not before:
        return {}
    names = Names(head)
    # A function the diff adds, called from a symbol the base had, holds what it is passed: its
    # expressions, each parameter read as the caller's argument, are judged as the caller's (`n //
    # 10_000` in a new `_per_ten_thousand(n)` that `tax` calls with `cents * rate_bp + 5_000` is
    # the value `tax` computed at the base).
    held: Dict[str, FrozenSet[str]] = dict(before)
    passed: Dict[str, List[Dict[str, str]]] = {}  # a new function -> per call, its parameters' dumps
    for helper, calls in _helper_calls(head, set(changed) - set(_base_symbols(base)), set(before)).items():
        held[helper] = frozenset().union(*(before[caller] for caller, _ in calls))
        passed[helper] = [arguments for _, arguments in calls]

    def dumps(node: ast.expr, owner: str) -> Set[str]:
        text = ast.dump(node)
        return {_read_as(text, arguments) for arguments in passed[owner]} if owner in passed else {text}

    memo: Dict[int, bool] = {}  # (each node belongs to one symbol)

    def same(node: ast.expr, owner: str) -> bool:
        """A value the symbol held at the base, as it is."""
        return not dumps(node, owner).isdisjoint(held[owner])

    def kept(node: ast.expr, owner: str) -> bool:
        """A value the base's symbol held (a computed one, a name, a constant: `10_000 - t` in a
        divisor), or a sum of one and more."""
        if id(node) not in memo:
            memo[id(node)] = (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))
                              and (kept(node.left, owner) or kept(node.right, owner))) or same(node, owner)
        return memo[id(node)]

    derivations: Dict[int, bool] = {}

    def derived(node: ast.expr, owner: str) -> bool:
        """A kept value, or one operated on with a constant (`operator.xor(len(line), 2)`): what a
        bound is put on (`... & ~256`)."""
        if id(node) not in derivations:
            operation = _operation(node, names)
            derivations[id(node)] = kept(node, owner) or operation is not None and any(
                derived(a, owner) and _constant(b) for a, b in (operation[1:], operation[:0:-1]))
        return derivations[id(node)]

    constants: Dict[str, List[Any]] = {}

    def varies(node: ast.AST, owner: str) -> bool:
        """Whether a term may differ from call to call: it reads a parameter or local, or the machine."""
        return any((isinstance(n, ast.Name) and n.id in inputs.get(owner, ()))
                   or (isinstance(n, (ast.Name, ast.Attribute)) and machine_names(names.resolve(n)))
                   for n in ast.walk(node))

    out: Dict[int, Any] = {}
    # An expression the diff put where the base's comparison or operation held a constant
    # (`line[1] >= -(...)` for `line[1] >= 0`): its mutant puts the constant back.
    for owner, node in ((o, n) for o, nodes in changed.items() if o in before for n in nodes):
        if not isinstance(node, (ast.Compare, ast.BinOp)) or node.end_lineno - node.lineno > 2:
            continue  # a comparison or an operation, not a whole literal spanning the changed line
        if owner not in constants:
            constants[owner] = _base_constants(base, owner)
        for field, value in ast.iter_fields(node):
            for index, child in (enumerate(value) if isinstance(value, list) else [(None, value)]):
                if not isinstance(child, ast.expr) or isinstance(child, ast.Constant) or not varies(child, owner):
                    continue
                for constant in constants[owner]:
                    if _with(node, field, index, ast.Constant(constant)) in before[owner]:
                        out[id(child)] = ("constant", constant)
                        break
    for owner, nodes in changed.items():
        for node in nodes if owner in held else ():
            folded = _fold_items(node, names)
            if folded is not None and not same(node, owner):
                # `sum((x, t))`: an item the diff added beside one the symbol held
                items, identity = folded
                if any(kept(item, owner) for item in items):
                    for index, item in enumerate(items):
                        if not kept(item, owner) and not isinstance(item, ast.Constant) and varies(item, owner):
                            out[id(item)] = ("identity", identity)
                continue
            operation = _operation(node, names)
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Slice):
                side: Optional[str] = "slice" if kept(node.value, owner) else None
            elif operation is not None and operation[0] in BOUNDS:  # on a value, a bound it did not hold
                op, left, right = operation
                side = "right" if derived(left, owner) and not kept(right, owner) else \
                    "left" if op is None and derived(right, owner) and not kept(left, owner) else None
            elif operation is not None and issubclass(operation[0], TERM_OPS):  # type: ignore[arg-type]
                side = _added_side(*operation, lambda n: kept(n, owner))  # type: ignore[misc]
            else:
                continue
            if side is None:
                continue
            term = node.slice if side == "slice" else operation[2] if side == "right" else operation[1]  # type: ignore
            bound = operation is not None and operation[0] in BOUNDS
            if not same(node, owner) and (bound or varies(term, owner)):
                out[id(node)] = f"bound-{side}" if bound else side
    return out


# (those that compute text, or a power, from constants as well: `chr(0x2212)`, `pow(2, 63)`)
CONSTANT_BUILTINS = frozenset({*CONSTANT_CALLS, "chr", "pow"})


def _constant(node: ast.AST) -> bool:
    """An expression of constants alone (`~256`, `(1).__lshift__(63)`, `ord("字")`): it reads no
    name but a builtin that computes from its arguments."""
    return not any((isinstance(n, ast.Name) and n.id not in CONSTANT_BUILTINS)
                   or isinstance(n, (ast.Lambda, ast.NamedExpr)) for n in ast.walk(node))


def named_literals(base: Optional[str], head: ast.Module, lines: FrozenSet[int]) -> FrozenSet[int]:
    """The changed lines of a literal the diff only gave a name (`HALF_CENT = 5_000` at the module's
    top, `(cents * rate_bp + HALF_CENT) // BASIS_POINTS` where the base wrote the numbers): the
    assignment of each module-level name the base did not bind, to a constant, and the lines of
    every function that reads it, where each such function, its names read as their constants,
    is the base's function as it was. Its mutants would judge the base's code again, which the
    diff did not change (a nineteenth outside round's honest h15 was `NUMB` for `5_000` -> `5001`,
    a mutant the base's tests could not tell apart either). A name read anywhere else, or a
    function that differs from the base's otherwise, leaves every line judged."""
    old = _parse(base) if base and lines else None
    if old is None:
        return frozenset()
    had = {n.id for stmt in old.body for n in ast.walk(stmt)
           if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    named = {stmt.targets[0].id: stmt for stmt in head.body
             if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
             and stmt.targets[0].id not in had and isinstance(stmt.value, ast.Constant)
             and any(n in lines for n in range(stmt.lineno, stmt.end_lineno + 1))}
    if not named:
        return frozenset()
    values = {name: ast.dump(stmt.value) for name, stmt in named.items()}
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    functions = {owner: node for node, owner in walk_owned(old) if isinstance(node, defs)}
    unread = {id(n) for n in ast.walk(head)
              if isinstance(n, ast.Name) and n.id in named and isinstance(n.ctx, ast.Load)}
    readers = {n.id for n in ast.walk(head) if id(n) in unread}
    out: Set[int] = set()
    for node, owner in walk_owned(head):
        if not isinstance(node, defs) or owner not in functions:
            continue
        reads = [n for n in ast.walk(node) if id(n) in unread]
        as_values = {n.id: values[n.id] for n in reads}  # type: ignore[attr-defined]
        if reads and _read_as(ast.dump(node), as_values) == ast.dump(functions[owner]):
            out.update(n for n in range(start_line(node), node.end_lineno + 1) if n in lines)
            unread -= {id(n) for n in reads}
    left = {n.id for n in ast.walk(head) if id(n) in unread}
    for name in readers - left:  # read, and only where the base's code reads the literal
        out.update(range(named[name].lineno, named[name].end_lineno + 1))
    return frozenset(out)


def _helper_calls(head: ast.Module, helpers: Set[str],
                  callers: Set[str]) -> Dict[str, List[Tuple[str, Dict[str, str]]]]:
    """The calls each function of `helpers` (qualnames) gets from a symbol of `callers`, by name or
    as `self.`/`cls.` method, each (the caller, its parameters' names -> the dumps of what that call
    passes); a call that passes `*args` or `**kwargs` is left out."""
    defined: Dict[str, Tuple[str, List[str]]] = {}  # the name a function is called by -> (qualname, parameters)
    for node, owner in walk_owned(head):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and owner in helpers:
            params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
            defined[node.name] = (owner, params)
    out: Dict[str, List[Tuple[str, Dict[str, str]]]] = {}
    for node, owner in walk_owned(head) if defined else ():
        if not isinstance(node, ast.Call) or owner not in callers:
            continue
        func = node.func
        as_method = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in ("self", "cls")
        name = func.id if isinstance(func, ast.Name) else func.attr if as_method else None  # type: ignore[union-attr]
        if name not in defined or any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            continue
        helper, params = defined[name]  # type: ignore[index]
        params = params[1:] if as_method else params
        arguments = {p: ast.dump(a) for p, a in zip(params, node.args)}
        arguments.update({k.arg: ast.dump(k.value) for k in node.keywords if k.arg in params})
        out.setdefault(helper, []).append((owner, arguments))
    return out


def _read_as(dumped: str, arguments: Mapping[str, str]) -> str:
    """A dumped expression with each parameter it reads read as the dump of its argument."""
    for param, argument in arguments.items():
        dumped = dumped.replace(f"Name(id={param!r}, ctx=Load())", argument)
    return dumped


def _base_constants(base: str, owner: str) -> List[Any]:
    """The distinct number and text constants the base's symbol `owner` holds (at most 32)."""
    found: Dict[str, Any] = {}
    for node in _base_symbols(base).get(owner, ()):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, str) and len(found) < 32:
            found.setdefault(repr(node.value), node.value)
    return list(found.values())


def _with(node: ast.expr, field: str, index: Optional[int], child: ast.expr) -> str:
    """The dump of `node` with its `field` (its `index`-th item) put to `child`."""
    value = getattr(node, field)
    if index is None:
        setattr(node, field, child)
    else:
        value[index], child = child, value[index]
    try:
        return ast.dump(node)
    finally:
        if index is None:
            setattr(node, field, value)
        else:
            value[index] = child


def _added_side(op: type, left: ast.expr, right: ast.expr, kept: Callable[[ast.expr], bool]) -> Optional[str]:
    """Which operand of an operation `op` is the added term ("right", or "left" but of a `-`),
    where the other is kept (`kept`) and it is not; None if neither or both are."""
    if kept(left) and not kept(right) and not isinstance(right, ast.Constant):
        return "right"
    if not issubclass(op, TERM_OPS_RIGHT) and kept(right) and not kept(left) \
            and not isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        return "left"
    return None  # (a constant added is judged with its line, by its own mutants; `t + 1` adds `t` to nothing)


def _quantified(node: ast.AST) -> Optional[ast.GeneratorExp]:
    """The generator or comprehension `any(...)` or `all(...)` quantifies over, if `node` is such
    a call."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("any", "all") \
            and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        return node.args[0]
    return None


def added_filters(base: Optional[str], head: ast.Module, lines: FrozenSet[int]) -> FrozenSet[int]:
    """The filters the diff added to comprehensions and generators (`... for k, v in xs if v`), in
    a symbol the base had (ids of the head's nodes): an `if` clause on a changed line that no
    filter of its symbol at the base reads the same. Each is judged on its own (a mutant drops
    it): the items it leaves out are a branch of their own, and a filter no voter ever sees leave
    an item out (a zero balance, a name with some prefix) decides nothing they judge, though a
    mutant negating it dies on every input. New symbols are new code, judged as a whole."""
    old = _parse(base) if base and lines else None
    if old is None:
        return frozenset()
    had: Dict[str, Set[str]] = {}  # symbol -> the dumps of its filters at the base
    for node, owner in walk_owned(old):
        filters = had.setdefault(owner, set())
        if isinstance(node, ast.comprehension):
            filters.update(ast.dump(cond) for cond in node.ifs)
    return frozenset(id(cond) for node, owner in walk_owned(head) if isinstance(node, ast.comprehension)
                     and owner in had for cond in node.ifs if ast.dump(cond) not in had[owner]
                     and any(n in lines for n in range(cond.lineno, cond.end_lineno + 1)))


def added_branches(base: Optional[str], head: ast.Module, lines: FrozenSet[int]) -> FrozenSet[int]:
    """The branches of the conditional expressions (`a if c else b`) on changed lines that the diff
    wrote or rewrote: no expression of their symbol at the base reads the same as the whole (every
    one of a symbol new at the head). Each branch is judged on its own, as a branch of an `if`
    statement is by its own lines: a value for inputs no oracle draws packed beside the one they do
    (`... if cents < 2**31 else cents // 10_000 * rate_bp`, `int(c) if c.isdigit() else 0`) is not
    cleared by a killed mutant of the other."""
    if not lines:
        return frozenset()
    fresh: Dict[str, List[ast.expr]] = {}
    for node, owner in walk_owned(head):
        if isinstance(node, ast.IfExp) and any(n in lines for n in range(node.lineno, node.end_lineno + 1)):
            fresh.setdefault(owner, []).append(node)
    before = _base_expressions(base, fresh)
    return frozenset(id(b) for owner, nodes in fresh.items() for node in nodes
                     if ast.dump(node) not in before.get(owner, ()) for b in (node.body, node.orelse))


_TESTS = ((ast.If, "test"), (ast.While, "test"), (ast.Assert, "test"), (ast.IfExp, "test"), (ast.comprehension, "ifs"))


def truth_valued(node: ast.AST) -> bool:
    """An expression whose value is a truth value: a comparison, a `not`, a predicate call
    (`isinstance`, `hasattr`, `any`, ...), or `and`/`or` of those."""
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.BoolOp):
        return all(truth_valued(v) for v in node.values)
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in _BOOL_CALLS
    module, _, name = dotted(node.func).rpartition(".")
    return module == "operator" and name.strip("_") in _OPERATOR_PREDICATES  # `operator.le(a, b)` is `a <= b`


def added_truths(base: Optional[str], head: ast.Module, lines: FrozenSet[int]) -> FrozenSet[int]:
    """The truth values the diff wrote where a value goes (ids of the head's nodes): the outermost
    comparison, `not`, predicate call or `and`/`or` of those on a changed line that is not in the
    test of an `if`, `while`, `assert`, conditional expression or comprehension filter, and that no
    expression of its symbol at the base reads the same. Each is judged held `True` and held
    `False`, as two units: a truth value the oracles only ever see one way decides nothing they
    judge, whatever it reads (`5_000 * (sys.version_info < (3, 13))`, `[fee, 0][path.exists()]`,
    a flag a module computes when it is imported). A statement's test has its branches judged by
    their own lines; a conditional expression's, by `added_branches`."""
    if not lines:
        return frozenset()
    parents: Dict[int, Tuple[ast.AST, str]] = {}
    for parent in ast.walk(head):
        for field, value in ast.iter_fields(parent):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    parents[id(child)] = (parent, field)
    fresh: Dict[str, List[ast.expr]] = {}
    for node, owner in walk_owned(head):
        if not isinstance(node, ast.expr) or not truth_valued(node):
            continue
        if not any(n in lines for n in range(node.lineno, node.end_lineno + 1)):
            continue
        if not _in_value_position(node, parents):
            continue
        fresh.setdefault(owner, []).append(node)
    before = _base_expressions(base, fresh)
    return frozenset(id(n) for owner, nodes in fresh.items() for n in nodes if ast.dump(n) not in before.get(owner, ()))


COPIES = frozenset({"dict", "list", "set", "bytearray", "copy.copy", "copy.deepcopy", "deepcopy"})


def removed_copies(base: Optional[str], head: ast.Module, rewritten: Mapping[int, int]) -> Dict[int, str]:
    """The copies the diff removed, by the head's node that now stands where each was (id -> the
    base's copy, as written): a one-line statement rewritten in place whose base line stored or
    returned a copy (`dict(x)`, `list(x)`, `set(x)`, `copy.copy(x)`, `copy.deepcopy(x)`,
    `x.copy()`) and that now stores or returns `x` itself (`self.balances = balances`, `balances or
    {}`, `balances if balances else {}`), copying it nowhere. Each is judged on its own (a mutant
    puts the copy back): state that now shares a caller's object is aliasing no oracle observes
    unless one changes the object after handing it over."""
    old = _parse(base) if base and rewritten else None
    if old is None:
        return {}
    at_line: Dict[int, List[ast.stmt]] = {}
    for node in ast.walk(old):
        if isinstance(node, ast.stmt) and not isinstance(node, (*_FUNCS, ast.ClassDef)) \
                and node.lineno == node.end_lineno:
            at_line.setdefault(node.lineno, []).append(node)
    out: Dict[int, str] = {}
    for stmt in ast.walk(head):
        if not isinstance(stmt, ast.stmt) or stmt.lineno != stmt.end_lineno or stmt.lineno not in rewritten:
            continue
        for before in at_line.get(rewritten[stmt.lineno], ()):
            for call in _stored(before):
                copied = _copied(call)
                text = ast.get_source_segment(base, call) if copied is not None else None
                if text is None or "\n" in text:
                    continue
                dump = ast.dump(copied)
                if any(ast.dump(kept) == dump for kept in map(_copied, ast.walk(stmt)) if kept is not None):
                    continue  # still copied
                node = next((n for n in _stored(stmt) if ast.dump(n) == dump), None)
                if node is not None:
                    out[id(node)] = text
    return out


def _stored(stmt: ast.stmt) -> Iterator[ast.expr]:
    """The values a statement stores or returns as they are: its value, through `and`/`or` and the
    branches of conditional expressions (not what they are computed from)."""
    value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Return)) else None
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 3 \
            and dotted(stmt.value.func) in ("setattr", "object.__setattr__"):
        value = stmt.value.args[2]  # `setattr(self, "balances", balances)` stores `balances`
    todo = [value] if value is not None else []
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.BoolOp):
            todo.extend(node.values)
        elif isinstance(node, ast.IfExp):
            todo.extend((node.body, node.orelse))


def _copied(call: ast.AST) -> Optional[ast.expr]:
    """What a copy copies (`dict(x)` -> `x`, `x.copy()` -> `x`), or None for anything else."""
    if not isinstance(call, ast.Call):
        return None
    if isinstance(call.func, ast.Attribute) and call.func.attr == "copy" and not call.args and not call.keywords:
        return call.func.value
    if dotted(call.func) in COPIES and len(call.args) == 1 and not call.keywords \
            and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


TRUNCATIONS = frozenset({"int", "math.floor", "math.trunc", "floor", "trunc"})


def float_divisions(head: ast.Module, lines: FrozenSet[int]) -> FrozenSet[int]:
    """An integer taken from a true division on a changed line (`int(a / b)`, `math.floor(a / b)`,
    `math.trunc(a / b)`, `a / b // 1`, the division also spelt `operator.truediv(a, b)`; ids of the
    outermost truncations): the division goes through a float, which is wrong past 2**53 and, for
    `int` and `trunc`, rounds negative results toward zero. Each is judged on its own (a mutant
    puts `a // b` in its place): one no voter tells from floor division has oracles that never drew
    where they differ."""
    if not lines:
        return frozenset()
    found = {id(n): n for n in ast.walk(head) if truncated_division(n) is not None
             and any(x in lines for x in range(n.lineno, n.end_lineno + 1))}
    inner = {id(n.args[0] if isinstance(n, ast.Call) else n.left) for n in found.values()}
    return frozenset(found.keys() - inner)


def truncated_division(node: ast.AST) -> Optional[Tuple[ast.expr, ast.expr]]:
    """(a, b) where `node` takes an integer from the true division of a by b: a truncating call
    (`int`, `math.floor`, `math.trunc`) of it or of it `// 1`, or it `// 1`; None otherwise."""
    if isinstance(node, ast.Call):
        if len(node.args) != 1 or node.keywords or dotted(node.func) not in TRUNCATIONS:
            return None
        return truncated_division(node.args[0]) or _true_division(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) and _is_number(node.right, 1):
        return _true_division(node.left)
    return None


def _true_division(node: ast.AST) -> Optional[Tuple[ast.expr, ast.expr]]:
    """(a, b) for `a / b` or `operator.truediv(a, b)`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return node.left, node.right
    if isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords \
            and not any(isinstance(a, ast.Starred) for a in node.args) \
            and dotted(node.func) in ("operator.truediv", "operator.__truediv__"):
        return node.args[0], node.args[1]
    return None


def _in_value_position(node: ast.AST, parents: Mapping[int, Tuple[ast.AST, str]]) -> bool:
    """Up to its statement, nothing around `node` is a truth value (it is the outermost) or a test
    (`if any(w < 0 for w in weights):` is a test throughout)."""
    child = node
    while id(child) in parents:
        parent, field = parents[id(child)]
        if any(isinstance(parent, kind) and field == name for kind, name in _TESTS):
            return False
        if isinstance(parent, ast.stmt):
            return True
        if truth_valued(parent):
            return False
        child = parent
    return True


def _base_expressions(base: Optional[str], owners: Mapping[str, Sequence[ast.expr]]) -> Dict[str, FrozenSet[str]]:
    """Symbol -> the dumps of every expression it held at the base, for the symbols asked about
    that have some (a symbol the base did not have is absent). Each symbol's are dumped once per
    base, whichever reader asks (operands, branches, truth values, terms)."""
    if not base or not any(owners.values()):
        return {}
    held = _base_symbols(base)
    return {owner: _base_dumps(base, owner) for owner in owners if owner in held}


@functools.lru_cache(maxsize=8)
def _base_symbols(base: str) -> Dict[str, Tuple[ast.expr, ...]]:
    """Symbol -> the expressions it holds in the base's tree, from one walk of it."""
    old = _parse(base)
    found: Dict[str, List[ast.expr]] = {}
    for node, owner in walk_owned(old) if old is not None else ():
        if isinstance(node, ast.expr):
            found.setdefault(owner, []).append(node)
    return {owner: tuple(nodes) for owner, nodes in found.items()}


@functools.lru_cache(maxsize=1024)
def _base_dumps(base: str, owner: str) -> FrozenSet[str]:
    return frozenset(ast.dump(node) for node in _base_symbols(base)[owner])


@functools.lru_cache(maxsize=8)
def _parse(source: str) -> Optional[ast.Module]:
    """The base's tree, or None where it does not parse (it then holds nothing to compare). Parsed
    once for every reader (retyped raises, removed rejections, added operands, branches and truth
    values), so no reader may change it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


@dataclass(frozen=True)
class Removed:
    """A statement of the base that held a raise the head's function no longer has (its class
    raised nowhere in that function now), and the head's statement now standing where it stood."""

    text: str  # the base's statement, as written (its first line starts at `before`'s column)
    before: ast.stmt  # the head's statement it would stand before


def removed_rejections(base: Optional[str], head: str, tree: ast.Module) -> List[Removed]:
    """Raises the diff removed: a function of both trees raised a class at the base that it raises
    nowhere at the head, itself or through a function of the same module it calls by name. For
    each, the outermost base statement around the raise, or around the call through which it
    raised (`return decode(data)` rewritten as a second parser without `decode`'s guard), that the
    diff removed whole, and the first head statement after the removal at its column in that
    function (a rejection removed at the very end of a body has none and is not restored)."""
    if not base:
        return []
    old = _parse(base)
    if old is None:
        return []
    old_lines, head_lines = base.splitlines(), head.splitlines()
    # base line -> the head line where the diff's removal of it happened
    removed = {i + 1: j1 + 1 for tag, i1, i2, j1, _j2 in _line_opcodes(base, head) if tag in ("replace", "delete")
               for i in range(i1, i2)}
    defs: Dict[str, ast.AST] = {}
    for q, _kind, n in iter_symbols(tree):
        defs.setdefault(q, n)
    now, bound = _by_symbol(_raises(tree)), _bound_names(tree)
    out: List[Removed] = []
    taken: Set[int] = set()
    was = _raises(old)
    through = _by_symbol(was)
    calls = [(node, symbol, name) for node, symbol in walk_owned(old) if isinstance(node, ast.Call)
             for q, classes in sorted(through.items()) if q != symbol and q.rpartition(".")[2] == _own_callee(node)
             for name in sorted(classes)]
    for node, symbol, name in [*was, *calls]:
        if node.lineno not in removed:
            continue
        if symbol not in defs or name.split(".")[0] not in bound or name in _raised_through(defs[symbol], symbol, now):
            continue  # the function is gone, the class renamed or removed, or still raised
        whole = _outermost_removed(old, node, removed)
        if whole is None or id(whole) in taken:
            continue
        taken.add(id(whole))
        lo, hi = start_line(defs[symbol]), end_line(defs[symbol])
        at = max(removed[whole.lineno], lo)
        before = min((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and at <= n.lineno <= hi
                      and n.col_offset == whole.col_offset), key=lambda n: n.lineno, default=None)
        if before is not None and not _dedents(head_lines[at - 1:before.lineno - 1], whole.col_offset):
            text = "\n".join(old_lines[whole.lineno - 1:whole.end_lineno])[whole.col_offset:]
            out.append(Removed(text, before))
    return out


def _raised_through(node: ast.AST, symbol: str, raises: Mapping[str, Set[str]]) -> Set[str]:
    """The classes `symbol` (defined by `node`) raises itself, or through a function of the same
    module it calls by name (a check moved into a helper still rejects)."""
    called = {_own_callee(c) for c in ast.walk(node) if isinstance(c, ast.Call)}
    out = set(raises.get(symbol, set()))
    for q, classes in raises.items():
        if q.rpartition(".")[2] in called:
            out |= classes
    return out


def _own_callee(call: ast.Call) -> Optional[str]:
    """The name a call gives a function of its own module: `f(...)`, `self.f(...)`, `cls.f(...)`
    (not `data.decode(...)`, a method of another object that shares a name with one)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return func.attr
    return None


def _dedents(lines: Sequence[str], col: int) -> bool:
    """Whether a line of code among these starts left of `col` (another block begins: `else:`)."""
    return any(line.strip() and not line.strip().startswith("#") and len(line) - len(line.lstrip()) < col
               for line in lines)


def _outermost_removed(tree: ast.Module, node: ast.AST, removed: Mapping[int, int]) -> Optional[ast.stmt]:
    """The outermost statement holding `node` whose every line the diff removed."""
    best = None
    for stmt in ast.walk(tree):
        if (isinstance(stmt, ast.stmt) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and stmt.lineno <= node.lineno and node.end_lineno <= stmt.end_lineno
                and all(n in removed for n in range(stmt.lineno, stmt.end_lineno + 1))
                and (best is None or stmt.lineno < best.lineno or stmt.end_lineno > best.end_lineno)):
            best = stmt
    return best


def _arid_statement(node: ast.AST) -> bool:
    """A statement no oracle can observe through a result (Petrović and Ivanković, "State of
    mutation testing at Google", ICSE-SEIP 2018: arid nodes): a logging, print or warnings call
    on its own line and a `raise` of a named exception, when every argument is inert (`inert`);
    an `__all__` declaration, `pass`, an import (but one that shadows a builtin), an annotation
    without a value. (A raise cannot hand back a wrong value, and a guard's raise runs only for
    inputs an oracle rejects on purpose: the guard's condition is still mutated.)"""
    if isinstance(node, ast.Pass) or (isinstance(node, (ast.Import, ast.ImportFrom)) and not shadows_builtin(node)):
        return True
    if isinstance(node, ast.AnnAssign) and node.value is None:
        return True
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return is_export_list(node)
    parts = message_parts(node)
    return parts is not None and all(inert(p) for p in parts)


TYPING_MODULES = ("typing", "typing_extensions")
TYPE_MAKERS = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple", "NewType"})


class TypingNames(NamedTuple):
    """The names a module binds to typing's own: its TYPE_MAKERS (`from typing import TypeVar as
    T`), its TYPE_CHECKING, and typing itself (`import typing as t`)."""
    makers: FrozenSet[str]
    checking: FrozenSet[str]
    modules: FrozenSet[str]


def _typing_names(tree: ast.Module) -> TypingNames:
    found: Dict[str, Set[str]] = {"makers": set(), "checking": set(), "modules": set()}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in TYPING_MODULES and not node.level:
            for a in node.names:
                kind = "makers" if a.name in TYPE_MAKERS else "checking" if a.name == "TYPE_CHECKING" else None
                if kind:
                    found[kind].add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            found["modules"].update(a.asname or a.name for a in node.names if a.name in TYPING_MODULES)
    return TypingNames(**{k: frozenset(v) for k, v in found.items()})


def _type_checking_imports(stmt: ast.AST, typing_names: TypingNames) -> bool:
    """`if TYPE_CHECKING:` (typing's) around imports alone, without an `else`: names for a type
    checker, which never run."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse):
        return False
    test = stmt.test
    ours = (isinstance(test, ast.Name) and test.id in typing_names.checking) or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING" and isinstance(test.value, ast.Name)
        and test.value.id in typing_names.modules)
    return ours and all(isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass)) or is_noop(s) for s in stmt.body)


def _type_declaration(stmt: ast.AST, typing_names: TypingNames) -> bool:
    """`F = TypeVar("F", bound=Callable[..., Any])` (a ParamSpec, a NewType) of typing's own, its
    arguments names and constants only: a name for type checkers, which no result reads."""
    if not (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    ours = (isinstance(func, ast.Name) and func.id in typing_names.makers) or (
        isinstance(func, ast.Attribute) and func.attr in TYPE_MAKERS and isinstance(func.value, ast.Name)
        and func.value.id in typing_names.modules)
    return ours and not any(isinstance(n, (ast.Call, ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom))
                            for arg in (*stmt.value.args, *(k.value for k in stmt.value.keywords))
                            for n in ast.walk(arg))


class _Engine:
    def __init__(
        self, source: str, path: str, tree: ast.Module, ranges: List[Tuple[str, int, int, int]],
        retyped: FrozenSet[int] = frozenset(), operands: FrozenSet[int] = frozenset(),
        branches: FrozenSet[int] = frozenset(), truths: FrozenSet[int] = frozenset(),
        copies: Mapping[int, str] = {}, divisions: FrozenSet[int] = frozenset(), terms: Mapping[int, Any] = {},
    ) -> None:
        self.source, self.path, self.tree, self.ranges = source, path, tree, ranges
        self.retyped = retyped  # ids of the raise nodes whose exception type the diff changed
        # ids of the `and`/`or` operands and comprehension filters the diff added (`added_operands`,
        # `added_filters`)
        self.operands = operands
        self.branches = branches  # ids of the conditional expressions' branches it wrote (`added_branches`)
        self.truths = truths  # ids of the truth values it wrote where a value goes (`added_truths`)
        self.copies = copies  # id -> the copy the diff removed where that node stands (`removed_copies`)
        self.divisions = divisions  # ids of the integers taken from a true division (`float_divisions`)
        # id of a sum (an operation, a call of one) -> the side of the term the diff added to it; id of
        # an expression -> ("constant", the base's constant it replaced) or ("identity", the fold's
        # identity, for an item added to `sum(...)`) (`added_terms`)
        self.terms = terms
        self.names = Names(tree) if terms else None
        self.line_starts = [0] + [m.end() for m in _NEWLINE_RE.finditer(source)]
        self.parents: Dict[int, Tuple[ast.AST, str, Optional[int]]] = {}
        self.skip: Set[int] = set()
        self.docstrings: Set[int] = set()
        self.no_removal: Set[int] = set()  # message statements whose code, not whose message, is mutated
        self._index(tree)
        # A mutant is checked per unit (a module-level statement; a class counts as its header
        # plus its body's units): the unit holding the edit must parse to the intended tree, every
        # other unit must stand where it stood (same text at the same place, so the same tree).
        self.units = _units(tree.body)
        self.unit_lines = [_unit_lines(unit) for unit in self.units]
        self.unit_firsts = [first for first, _ in self.unit_lines]
        self.alone = [
            not header
            and (i == 0 or self.unit_lines[i - 1][1] < self.unit_lines[i][0])
            and (i + 1 == len(self.units) or self.unit_lines[i][1] < self.unit_lines[i + 1][0])
            for i, (_, _, header) in enumerate(self.units)
        ]
        self.unit_dumps: Dict[int, str] = {}
        self.seen: Set[Tuple[int, str]] = set()
        self._seq = 0

    # -- positions ---------------------------------------------------------------------------

    def offset(self, line: int, byte_col: int) -> int:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.source)
        text = self.source[start:end]
        if text.isascii():
            return start + byte_col
        return start + len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def where(self, offset: int) -> str:
        """`line:column` (1-based line, 0-based character column) of an offset."""
        line = bisect.bisect_right(self.line_starts, offset)
        return f"{line}:{offset - self.line_starts[line - 1]}"

    def span(self, node: Any) -> Tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def text(self, node: Any) -> str:
        start, end = self.span(node)
        return self.source[start:end]

    def op_span(self, left: Any, right: Any, expected: str) -> Optional[Tuple[int, int]]:
        """Offsets of the operator token(s) between two operands, skipping parentheses,
        white space, comments and line continuations; None if it is not `expected`."""
        start, end = self.span(left)[1], self.span(right)[0]
        seg = self.source[start:end]
        marks: List[int] = []
        i = 0
        while i < len(seg):
            ch = seg[i]
            if ch == "#":
                while i < len(seg) and seg[i] not in "\r\n":
                    i += 1
                continue
            if ch not in " \t\f\r\n()\\":
                marks.append(i)
            i += 1
        if not marks or " ".join(seg[marks[0]: marks[-1] + 1].split()) != expected:
            return None
        return start + marks[0], start + marks[-1] + 1

    # -- indexing ----------------------------------------------------------------------------

    def _index(self, tree: ast.Module) -> None:
        typing_names = _typing_names(tree)
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if isinstance(value, list):
                    for index, child in enumerate(value):
                        if isinstance(child, ast.AST):
                            self.parents[id(child)] = (parent, field, index)
                elif isinstance(value, ast.AST):
                    self.parents[id(value)] = (parent, field, None)
            body = getattr(parent, "body", None)
            if (
                isinstance(parent, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                self.docstrings.add(id(body[0]))
                self.docstrings.add(id(body[0].value))
            skipped: List[Any] = []
            parts = message_parts(parent)
            if (_arid_statement(parent) or _type_declaration(parent, typing_names)
                    or _type_checking_imports(parent, typing_names)) and id(parent) not in self.retyped:
                skipped.append(parent)  # arid: changing it cannot change a result anyone compares
            elif parts is not None:  # a message with code in it: that code is mutated, the rest is not
                skipped.extend(p for p in parts if inert(p))
                self.no_removal.add(id(parent))  # what it says is no value; the code in it is
            elif isinstance(parent, ast.Assert):
                skipped.append(parent.msg)
            if isinstance(parent, ast.JoinedStr):  # its text; its expressions are values like any other,
                # those in a field's format spec too (`f"{due:{'d' if ... else 'o'}}"`: code there runs)
                skipped.extend(v for v in parent.values if isinstance(v, ast.Constant))
            elif isinstance(parent, ast.arg):
                skipped.append(parent.annotation)
            elif isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
                skipped.append(parent.returns)
            elif isinstance(parent, ast.AnnAssign):
                skipped.append(parent.annotation)
            for root in skipped:
                if root is not None:
                    self.skip.update(id(node) for node in ast.walk(root))
        # A module's message written once as a named text (`PARTS_MUST_BE_POSITIVE = "parts must be
        # positive"`, a sentence: it holds a space) that the module reads only in messages: as arid
        # as the message it was (a nineteenth outside round's honest h11).
        loads: Dict[str, List[ast.Name]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append(node)
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str) \
                    and " " in stmt.value.value.strip() and loads.get(stmt.targets[0].id) \
                    and all(id(n) in self.skip for n in loads[stmt.targets[0].id]):
                self.skip.update(id(node) for node in ast.walk(stmt))

    def parent(self, node: ast.AST) -> Tuple[Any, str, Optional[int]]:
        return self.parents.get(id(node), (None, "", None))

    def setter(self, node: ast.AST, value: Any) -> _Set:
        parent, field, index = self.parent(node)
        if index is None:
            return _Set(parent, field, value)
        return _Set(getattr(parent, field), index, value)

    def enclosing_function(self, node: ast.AST) -> Optional[ast.AST]:
        parent = self.parent(node)[0]
        while parent is not None and not isinstance(parent, _FUNCS):
            parent = self.parent(parent)[0]
        return parent

    # -- candidates --------------------------------------------------------------------------

    def candidate(
        self,
        kind: str,
        at: Any,
        lines: Tuple[int, int],
        description: str,
        alternatives: Sequence[Sequence[_Edit]],
        changes: Sequence[_Set],
    ) -> _Candidate:
        self._seq += 1
        return _Candidate(
            kind=kind,
            lines=lines,
            order=(at.lineno, at.col_offset, self._seq),
            description=description,
            alternatives=tuple(tuple(edits) for edits in alternatives),
            changes=tuple(changes),
        )

    def replace(self, node: Any, text: str, paren: bool = True) -> List[List[_Edit]]:
        """Ways to put `text` where `node` is: as is, then parenthesised (for precedence).
        Lines the node spanned and the text does not are kept as blank lines inside parentheses."""
        start, end = self.span(node)
        missing = _newlines(self.source[start:end]) - _newlines(text)
        if missing > 0:
            return [[_Edit(start, end, "(" + text + "\n" * missing + ")")]]
        options = [[_Edit(start, end, text)]]
        if paren:
            options.append([_Edit(start, end, f"({text})")])
        return options

    def collect(self, lo: int, hi: int) -> Iterator[_Candidate]:
        """Every candidate of every node that overlaps lines lo..hi, in walk order."""
        handlers: Dict[type, Tuple[Any, ...]] = {}
        for types, handler in (
            ((ast.Compare,), self._compare),
            ((ast.BinOp,), self._binop),
            ((ast.AugAssign,), self._augassign),
            ((ast.BoolOp,), self._boolop),
            ((ast.BoolOp,), self._operand),
            ((ast.IfExp,), self._branch),
            ((ast.Compare, ast.UnaryOp, ast.BoolOp, ast.Call), self._held),
            ((ast.Name, ast.Attribute, ast.Subscript, ast.Call), self._copy),
            ((ast.Call, ast.BinOp), self._floor_division),
            ((ast.BinOp, ast.Subscript, ast.UnaryOp, ast.Call, ast.Name, ast.Attribute, ast.BoolOp, ast.IfExp,
              ast.Compare), self._term),
            ((ast.UnaryOp,), self._unary),
            ((ast.Constant,), self._constant),
            ((ast.If, ast.While, ast.IfExp, ast.Assert), self._test),
            ((ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp), self._comprehension),
            ((ast.Return,), self._return),
            ((ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Assert, ast.Delete,
              ast.Break, ast.Continue, ast.Import, ast.ImportFrom), self._removal),
            ((ast.FunctionDef,), self._special_method),
            ((ast.ExceptHandler,), self._handler),
            ((ast.Raise,), self._raise_type),
            ((ast.List, ast.Tuple, ast.Set, ast.Dict), self._collection),
            ((ast.Call,), self._range),
            ((ast.Slice,), self._slice),
            ((ast.Subscript,), self._subscript),
        ):
            for node_type in types:
                handlers[node_type] = handlers.get(node_type, ()) + (handler,)
        for node in ast.walk(self.tree):
            if id(node) in self.skip or not hasattr(node, "lineno"):
                continue
            if node.end_lineno < lo or node.lineno > hi:
                continue
            for handler in handlers.get(type(node), ()):
                yield from handler(node)

    def _compare(self, node: ast.Compare) -> Iterator[_Candidate]:
        lines = (node.lineno, node.end_lineno)
        for i, op in enumerate(node.ops):
            left = node.left if i == 0 else node.comparators[i - 1]
            right = node.comparators[i]
            if _same(left, right):
                continue
            span = self.op_span(left, right, _CMP_TEXT[type(op)])
            if span is None:
                continue
            for new in _CMP_SWAP[type(op)]:
                text = _CMP_TEXT[new]
                yield self.candidate(
                    "compare", node, lines, f"`{_CMP_TEXT[type(op)]}` -> `{text}`",
                    [[_Edit(span[0], span[1], text)]], [_Set(node.ops, i, new())],
                )

    def _binop(self, node: ast.BinOp) -> Iterator[_Candidate]:
        new = _BIN_SWAP.get(type(node.op))
        if new is None:
            return
        if type(node.op) in _NEUTRAL_RIGHT and _is_number(node.right, _NEUTRAL_RIGHT[type(node.op)]):
            return
        if isinstance(node.op, (ast.BitAnd, ast.BitOr)) and _same(node.left, node.right):
            return
        if isinstance(node.op, ast.Mod) and (
            isinstance(node.left, ast.JoinedStr)
            or (isinstance(node.left, ast.Constant) and isinstance(node.left.value, (str, bytes)))
        ):
            return  # string formatting, not arithmetic
        old_text, new_text = _BIN_TEXT[type(node.op)], _BIN_TEXT[new]
        span = self.op_span(node.left, node.right, old_text)
        if span is None:
            return
        start, end = self.span(node)
        whole = (
            f"(({self.source[start:self.span(node.left)[1]]})"
            f"{self.source[self.span(node.left)[1]:span[0]]}{new_text}"
            f"{self.source[span[1]:self.span(node.right)[0]]}"
            f"({self.source[self.span(node.right)[0]:end]}))"
        )
        yield self.candidate(
            "arith", node, (node.lineno, node.end_lineno), f"`{old_text}` -> `{new_text}`",
            [[_Edit(span[0], span[1], new_text)], [_Edit(start, end, whole)]],
            [_Set(node, "op", new())],
        )

    def _augassign(self, node: ast.AugAssign) -> Iterator[_Candidate]:
        new = _BIN_SWAP.get(type(node.op))
        if new is None:
            return
        if type(node.op) in _NEUTRAL_RIGHT and _is_number(node.value, _NEUTRAL_RIGHT[type(node.op)]):
            return
        old_text, new_text = _BIN_TEXT[type(node.op)] + "=", _BIN_TEXT[new] + "="
        span = self.op_span(node.target, node.value, old_text)
        if span is None:
            return
        yield self.candidate(
            "arith", node, (node.lineno, node.end_lineno), f"`{old_text}` -> `{new_text}`",
            [[_Edit(span[0], span[1], new_text)]], [_Set(node, "op", new())],
        )

    def _boolop(self, node: ast.BoolOp) -> Iterator[_Candidate]:
        old_text, new_text = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        if all(_same(node.values[0], value) for value in node.values[1:]):
            return
        edits = []
        for left, right in zip(node.values, node.values[1:]):
            span = self.op_span(left, right, old_text)
            if span is None:
                return
            edits.append(_Edit(span[0], span[1], new_text))
        # If precedence regroups the operands (`a or b and c` -> `a and b and c`), parenthesise
        # every operand and the whole.
        start, end = self.span(node)
        parts, cursor = ["("], start
        for value, edit in zip(node.values, edits):
            value_start, value_end = self.span(value)
            parts += [self.source[cursor:value_start], "(", self.source[value_start:value_end], ")"]
            parts += [self.source[value_end:edit.start], new_text]
            cursor = edit.end
        last_start, last_end = self.span(node.values[-1])
        parts += [self.source[cursor:last_start], "(", self.source[last_start:last_end], "))"]
        new = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield self.candidate(
            "boolop", node, (node.lineno, node.end_lineno), f"`{old_text}` -> `{new_text}`",
            [edits, [_Edit(start, end, "".join(parts))]], [_Set(node, "op", new)],
        )

    def _operand(self, node: ast.BoolOp) -> Iterator[_Candidate]:
        """An operand the diff added, dropped: `True` in an `and`, `False` in an `or`."""
        keep = isinstance(node.op, ast.And)
        for index, value in enumerate(node.values):
            if id(value) in self.operands:
                yield self.candidate(
                    "operand", value, (value.lineno, value.end_lineno),
                    f"`{_short(self.text(value))}` -> `{keep}` (a condition the diff added, dropped)",
                    self.replace(value, repr(keep)), [_Set(node.values, index, _const(keep))],
                )

    def _term(self, node: Any) -> Iterator[_Candidate]:
        """A term the diff added to a value, dropped (`x + t` -> `x`, `x * t` -> `x`): killed only
        where a voter draws an input on which the term changes the value (not 0; for `*`, not 1);
        and an expression the diff put where the base had a constant, the constant put back."""
        side = self.terms.get(id(node))
        if isinstance(side, tuple):
            what, constant = side
            said = "the base's constant the diff replaced, put back" if what == "constant" else \
                "an item the diff added to a sum, as nothing"
            yield self.candidate(
                "term", node, (node.lineno, node.end_lineno),
                f"`{_short(self.text(node))}` -> `{constant!r}` ({said})",
                self.replace(node, repr(constant)), [self.setter(node, ast.Constant(constant))],
            )
            return
        if side is None or not isinstance(node, (ast.BinOp, ast.Subscript, ast.Call)):
            return
        bound = side.startswith("bound-")
        side = side[len("bound-"):] if bound else side
        # (a node `added_terms` marked: a slice, or an operation it read with the same Names)
        left, right = (node.value, node.slice) if isinstance(node, ast.Subscript) else \
            _operation(node, self.names)[1:]  # type: ignore[index,arg-type]
        term, rest = (node.slice, node.value) if side == "slice" else \
            (right, left) if side == "right" else (left, right)
        shown = f"[{_short(self.text(term))}]" if side == "slice" else _short(self.text(term))
        yield self.candidate(
            "term", term, (term.lineno, term.end_lineno),
            f"`{shown}` dropped (a {'bound the diff put on' if bound else 'term the diff added to'} a value its "
            f"function computed)",
            self.replace(node, self.text(rest)), [self.setter(node, rest)],
        )

    def _branch(self, node: ast.IfExp) -> Iterator[_Candidate]:
        """A branch the diff wrote, replaced by the other: killed only where a voter takes it and
        the two values differ."""
        for field, other in (("body", node.orelse), ("orelse", node.body)):
            branch = getattr(node, field)
            if id(branch) in self.branches and not _same(branch, other):
                yield self.candidate(
                    "branch", branch, (branch.lineno, branch.end_lineno),
                    f"`{_short(self.text(branch))}` -> `{_short(self.text(other))}` (the other branch of its "
                    f"conditional expression)",
                    self.replace(branch, self.text(other)), [_Set(node, field, other)],
                )

    def _held(self, node: ast.expr) -> Iterator[_Candidate]:
        """A truth value the diff wrote, held `True` and held `False` (two units): each is killed
        only where a voter sees it matter that way."""
        if id(node) not in self.truths:
            return
        for value in (True, False):
            yield self.candidate(
                "held_true" if value else "held_false", node, (node.lineno, node.end_lineno),
                f"`{_short(self.text(node))}` -> `{value}` (a truth value the diff wrote, held {value})",
                self.replace(node, repr(value)), [self.setter(node, _const(value))],
            )

    def _copy(self, node: ast.expr) -> Iterator[_Candidate]:
        """A copy the diff removed, put back: killed only where a voter sees the object shared."""
        text = self.copies.get(id(node))
        if text is None:
            return
        try:
            restored = ast.parse(text, mode="eval").body
        except SyntaxError:
            return
        yield self.candidate(
            "copy", node, (node.lineno, node.end_lineno),
            f"`{_short(self.text(node))}` -> `{_short(text)}` (a copy the diff removed, put back)",
            self.replace(node, text), [self.setter(node, restored)],
        )

    def _floor_division(self, node: ast.Call) -> Iterator[_Candidate]:
        """`int(a / b)` -> `a // b`: killed only where a voter draws a case where they differ."""
        division = truncated_division(node) if id(node) in self.divisions else None
        if division is None:
            return
        left, right = division
        text = f"(({self.text(left)}) // ({self.text(right)}))"
        yield self.candidate(
            "floor_division", node, (node.lineno, node.end_lineno),
            f"`{_short(self.text(node))}` -> `{_short(text)}` (floor division, not through a float)",
            self.replace(node, text, paren=False),
            [self.setter(node, ast.BinOp(left=left, op=ast.FloorDiv(), right=right))],
        )

    def _unary(self, node: ast.UnaryOp) -> Iterator[_Candidate]:
        if isinstance(node.op, ast.UAdd) or _is_number(node.operand, 0):
            return
        before, after = self.text(node), self.text(node.operand)
        yield self.candidate(
            "unary", node, (node.lineno, node.end_lineno), f"`{_short(before)}` -> `{_short(after)}`",
            self.replace(node, after), [self.setter(node, node.operand)],
        )

    def _constant(self, node: ast.Constant) -> Iterator[_Candidate]:
        parent, field, _ = self.parent(node)
        if id(node) in self.docstrings or isinstance(parent, ast.Expr):
            return
        lines = (node.lineno, node.end_lineno)
        value = node.value
        if value is None:
            if isinstance(parent, ast.Return):
                yield self.candidate(
                    "constant", node, lines, "`None` -> `object()`",
                    self.replace(node, "object()", paren=False),
                    [_Set(parent, "value", ast.Call(func=_name("object"), args=[], keywords=[]))],
                )
            return
        if isinstance(value, bool):
            news: List[Any] = [not value]
        elif isinstance(value, int):
            news = [1] if value == 0 else [0, 2] if value == 1 else [value + 1]
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                return
            news = [1.0] if value == 0 else [value + 1.0 if 1e-5 < abs(value) < 1e5 else value * 2]
        elif isinstance(value, (str, bytes)):
            empty, marker = value[:0], ("XX" if isinstance(value, str) else b"XX")
            news = [n for n in (empty, marker) if n != value]
        else:
            return
        before = self.text(node)
        for new in news:
            after = repr(new)
            yield self.candidate(
                "constant", node, lines, f"`{_short(before)}` -> `{_short(after)}`",
                self.replace(node, after), [_Set(node, "value", new), _Set(node, "kind", None)],
            )

    def _conditions(self, owner: Any, field: str, index: Optional[int], test: Any) -> Iterator[_Candidate]:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return  # the unary operator already drops the `not`
        text = self.text(test)
        container, key = (owner, field) if index is None else (getattr(owner, field), index)
        change = _Set(container, key, _not(test))
        yield self.candidate(
            "condition", test, (test.lineno, test.end_lineno),
            f"`{_short(text)}` -> `not ({_short(text)})`",
            self.replace(test, f"not ({text})", paren=True), [change],
        )

    def _test(self, node: Any) -> Iterator[_Candidate]:
        yield from self._conditions(node, "test", None, node.test)

    def _comprehension(self, node: Any) -> Iterator[_Candidate]:
        for comp in node.generators:
            for index, cond in enumerate(comp.ifs):
                yield from self._conditions(comp, "ifs", index, cond)
                if id(cond) in self.operands:
                    yield self.candidate(
                        "operand", cond, (cond.lineno, cond.end_lineno),
                        f"`if {_short(self.text(cond))}` -> `if True` (a filter the diff added, dropped)",
                        self.replace(cond, "True"), [_Set(comp.ifs, index, _const(True))],
                    )

    def _return(self, node: ast.Return) -> Iterator[_Candidate]:
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return
        lines = (node.lineno, node.end_lineno)
        before = self.text(value)
        yield self.candidate(
            "return", node, lines, f"`return {_short(before)}` -> `return None`",
            self.replace(value, "None"), [_Set(node, "value", _const(None))],
        )
        if self._returns_bool(node, value):
            yield self.candidate(
                "return", node, lines, f"`return {_short(before)}` -> `return not ({_short(before)})`",
                self.replace(value, f"not ({before})"), [_Set(node, "value", _not(value))],
            )

    def _returns_bool(self, node: ast.Return, value: Any) -> bool:
        if isinstance(value, ast.Constant) or (
            isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
        ):
            return False  # a constant flips as a constant; `not x` loses its `not` as a unary
        func = self.enclosing_function(node)
        returns = getattr(func, "returns", None)
        if isinstance(returns, ast.Name) and returns.id == "bool":
            return True
        if isinstance(returns, ast.Constant) and returns.value == "bool":
            return True
        return self._is_bool_expr(value)

    def _is_bool_expr(self, value: Any) -> bool:
        if isinstance(value, ast.Compare):
            return True
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            return True
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            return True
        if isinstance(value, ast.BoolOp):
            return all(self._is_bool_expr(v) for v in value.values)
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in _BOOL_CALLS
        )

    def _removal(self, node: Any) -> Iterator[_Candidate]:
        if isinstance(node, ast.Raise) and node.cause is not None and not inert(node.cause):
            start, end = self.span(node.exc)[1], self.span(node.cause)[1]
            yield self.candidate(
                "cause", node, (node.lineno, node.end_lineno), f"`{_short(self.source[start:end].strip())}` -> ``",
                [[_Edit(start, end, "")]], [_Set(node, "cause", None)],
            )
        if id(node) in self.docstrings or id(node) in self.no_removal:
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a bare constant does nothing: removing it is no mutant
        if isinstance(node, ast.AnnAssign) and node.value is None:
            return
        start, end = self.span(node)
        pad = "\n" * _newlines(self.source[start:end])
        yield self.candidate(
            "remove", node, (node.lineno, node.end_lineno),
            f"`{_short(self.source[start:end])}` -> `pass`",
            [[_Edit(start, end, "pass" + pad)]], [self.setter(node, ast.Pass())],
        )

    def _raise_type(self, node: ast.Raise) -> Iterator[_Candidate]:
        """A raise whose exception type the diff changed: the type is what a caller's `except`
        tells apart, so it is code (its message stays arid); the mutant raises a plain `Exception`."""
        cls = _raised_class(node) if id(node) in self.retyped else None
        if cls is None:
            return
        start, end = self.span(cls)
        yield self.candidate(
            "raise_type", node, (node.lineno, node.end_lineno), f"`raise {_short(self.text(cls))}` -> `raise Exception`",
            [[_Edit(start, end, "Exception")]], [self.setter(cls, _name("Exception"))],
        )

    def restores(self, removed: Sequence[Removed]) -> Iterator[_Candidate]:
        """Each rejection the diff removed, put back before the statement now in its place (the
        lines after it move down: the mutant's results are read, never its line numbers)."""
        for r in removed:
            col = r.before.col_offset
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    wrapped = ast.parse("if 1:\n" + " " * col + r.text if col else r.text)
            except (SyntaxError, ValueError):
                continue
            stmts = wrapped.body[0].body if col else wrapped.body
            parent, field, index = self.parent(r.before)
            if len(stmts) != 1 or index is None:
                continue
            body = getattr(parent, field)
            start = self.offset(r.before.lineno, col)
            first = r.text.splitlines()[0]
            yield self.candidate(
                "restore", r.before, (r.before.lineno, r.before.lineno),
                f"`{_short(first.strip())}` (the diff removed it) put back",
                [[_Edit(start, start, r.text + "\n" + " " * col, adds_lines=True)]],
                [_Set(parent, field, [*body[:index], stmts[0], *body[index:]])],
            )

    def _handler(self, node: ast.ExceptHandler) -> Iterator[_Candidate]:
        """An `except` clause is a branch: the mutant lets what it catches through (`raise`)."""
        if len(node.body) == 1 and isinstance(node.body[0], ast.Raise) and node.body[0].exc is None:
            return
        start, end = self.span(node.body[0])[0], self.span(node.body[-1])[1]
        pad = "\n" * _newlines(self.source[start:end])
        yield self.candidate(
            "handler", node, (node.lineno, node.lineno),
            f"`except{' ' + _short(self.text(node.type)) if node.type is not None else ''}:` body -> `raise`",
            [[_Edit(start, end, "raise" + pad)]], [_Set(node, "body", [ast.Raise(exc=None, cause=None)])],
        )

    def _special_method(self, node: ast.FunctionDef) -> Iterator[_Candidate]:
        body = list(node.body)
        docstring = body[:1] if body and id(body[0]) in self.docstrings else []
        stmts = body[len(docstring):]
        if not stmts or node.name not in _ORDER_METHODS + ("__hash__", "__bool__"):
            return
        returns: List[Tuple[str, ast.expr]] = []
        single = stmts[0] if len(stmts) == 1 and isinstance(stmts[0], ast.Return) else None
        fixed = single.value if single is not None and isinstance(single.value, ast.Constant) else None
        if node.name == "__hash__":
            args = node.args.posonlyargs + node.args.args
            if args:
                me = args[0].arg
                returns.append((f"id({me})", ast.Call(func=_name("id"), args=[_name(me)], keywords=[])))
        else:
            if fixed is not None and isinstance(fixed.value, bool):
                flips: Tuple[bool, ...] = (not fixed.value,)
            else:
                flips = (True, False)
            returns.extend((repr(flag), _const(flag)) for flag in flips)
            if node.name != "__bool__":
                returns.append(("NotImplemented", _name("NotImplemented")))
        start, end = self.span(stmts[0])[0], self.span(stmts[-1])[1]
        pad = "\n" * _newlines(self.source[start:end])
        lines = (stmts[0].lineno, stmts[-1].end_lineno)
        for text, value in returns:
            new_body = docstring + [ast.Return(value=value)]
            yield self.candidate(
                "eq_hash", stmts[0], lines, f"`{node.name}` body -> `return {text}`",
                [[_Edit(start, end, f"return {text}{pad}")]], [_Set(node, "body", new_body)],
            )

    def _collection(self, node: Any) -> Iterator[_Candidate]:
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                return  # `**mapping` entries: leave the literal alone
            items: List[Tuple[Any, Any]] = list(zip(node.keys, node.values))
            first, last = node.keys[0] if items else None, node.values[-1] if items else None
        else:
            if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
                return
            items = [(elt, elt) for elt in node.elts]
            first, last = (node.elts[0], node.elts[-1]) if items else (None, None)
        if not items or self._is_type_subscript(node) or self._is_dunder_all(node):
            return
        if len(items) == 1 and isinstance(node, (ast.Set, ast.Tuple)):
            return  # `{}` is a dict, and `()` from `(a,)` is better left to other operators
        region_start, region_end = self.span(first)[0], self.span(last)[1]
        region = self.source[region_start:region_end]
        texts = [self.source[self.span(a)[0]:self.span(b)[1]] for a, b in items]
        kind_name = type(node).__name__.lower()
        for i, (a, b) in enumerate(items):
            rest = texts[:i] + texts[i + 1:]
            new_text = ", ".join(rest)
            if isinstance(node, ast.Tuple) and len(rest) == 1:
                new_text += ","
            new_text += "\n" * max(0, _newlines(region) - _newlines(new_text))
            end = region_end
            if not rest:
                end = self._after_trailing_comma(region_end)
            if isinstance(node, ast.Dict):
                changes = [
                    _Set(node, "keys", node.keys[:i] + node.keys[i + 1:]),
                    _Set(node, "values", node.values[:i] + node.values[i + 1:]),
                ]
            else:
                changes = [_Set(node, "elts", node.elts[:i] + node.elts[i + 1:])]
            yield self.candidate(
                "collection", a, (node.lineno, node.end_lineno),
                f"drop `{_short(texts[i])}` from {kind_name}",
                [[_Edit(region_start, end, new_text)]], changes,
            )

    def _after_trailing_comma(self, end: int) -> int:
        match = re.match(r"[ \t]*,", self.source[end:])
        return end + match.end() if match else end

    def _is_type_subscript(self, node: ast.AST) -> bool:
        parent, field, _ = self.parent(node)
        if isinstance(parent, ast.Index):  # Python 3.8
            parent, field, _ = self.parent(parent)
        return isinstance(parent, ast.Subscript) and field == "slice"

    def _is_dunder_all(self, node: ast.AST) -> bool:
        parent = self.parent(node)[0]
        return is_export_list(parent) or is_export_list(self.parent(parent)[0])

    def _range(self, node: ast.Call) -> Iterator[_Candidate]:
        if not (isinstance(node.func, ast.Name) and node.func.id == "range"):
            return
        if node.keywords or not 1 <= len(node.args) <= 3 or any(isinstance(a, ast.Starred) for a in node.args):
            return
        stop = node.args[0] if len(node.args) == 1 else node.args[1]
        yield from self._shift(stop, (-1, 1))
        if len(node.args) >= 2:
            yield from self._shift(node.args[0], (1,))

    def _slice(self, node: ast.Slice) -> Iterator[_Candidate]:
        if node.lower is not None:
            yield from self._shift(node.lower, (1,))
        if node.upper is not None:
            yield from self._shift(node.upper, (-1, 1))

    def _subscript(self, node: ast.Subscript) -> Iterator[_Candidate]:
        if not hasattr(node.slice, "lineno") and isinstance(node.slice, ast.Slice):
            yield from self._slice(node.slice)  # Python 3.8: a Slice has no position

    def _shift(self, expr: Any, deltas: Tuple[int, ...]) -> Iterator[_Candidate]:
        if id(expr) in self.skip:
            return
        before = self.text(expr)
        for delta in deltas:
            if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
                if expr.value + delta < 0:
                    continue
                after = repr(expr.value + delta)
                changes = [_Set(expr, "value", expr.value + delta)]
            else:
                sign = "+" if delta > 0 else "-"
                after = f"({before}) {sign} {abs(delta)}"
                op = ast.Add() if delta > 0 else ast.Sub()
                changes = [self.setter(expr, ast.BinOp(left=expr, op=op, right=_const(abs(delta))))]
            yield self.candidate(
                "off_by_one", expr, (expr.lineno, expr.end_lineno),
                f"`{_short(before)}` -> `{_short(after)}`", self.replace(expr, after), changes,
            )

    # -- realising and choosing --------------------------------------------------------------

    @staticmethod
    def _digest(dump: str) -> str:
        return hashlib.sha256(dump.encode("utf-8")).hexdigest()

    def expected_dump(self, index: Optional[int], changes: Sequence[_Set]) -> str:
        """The dump of unit `index` (None: the module) with the changes made, then undone."""
        olds = [change.swap(change.value) for change in changes]
        try:
            return ast.dump(self.tree) if index is None else _unit_dump(self.units[index])
        finally:
            for change, old in reversed(list(zip(changes, olds))):
                change.swap(old)

    def unit_index(self, lines: Tuple[int, int]) -> Optional[int]:
        """The unit holding these lines; None if they cross units (then the whole module is
        compared)."""
        index = bisect.bisect_right(self.unit_firsts, lines[0]) - 1
        if index < 0 or self.unit_lines[index][1] < lines[1]:
            return None
        return index

    def original_unit(self, index: int) -> str:
        if index not in self.unit_dumps:
            self.unit_dumps[index] = _unit_dump(self.units[index])
        return self.unit_dumps[index]

    def realise(self, cand: _Candidate) -> Optional[Mutant]:
        """The mutant of a candidate: the first alternative whose edited unit parses, on its own
        and at its own line numbers, to exactly the intended tree and compiles. The text outside
        the unit is untouched and the unit stays one complete statement, so the module is the
        original with that one statement changed. Class headers, units sharing a line and edits
        crossing units are checked on the whole module instead."""
        index = self.unit_index(cand.lines)
        if index is None or not self.alone[index]:
            return self.realise_whole(cand)
        expected = self.expected_dump(index, cand.changes)
        key = (index, self._digest(expected))
        if expected == self.original_unit(index) or key in self.seen:
            return None  # the original, or a mutant already taken
        first, last = self.unit_lines[index]
        start = self.line_starts[first - 1]
        end = self.line_starts[last] if last < len(self.line_starts) else len(self.source)
        nested = self.units[index][0] is not self.tree.body
        # A class body statement is parsed under `if 1:` on the line before it.
        prefix = "\n" * (first - 2) + "if 1:\n" if nested else "\n" * (first - 1)
        for edits in cand.alternatives:
            mutated = self.apply(edits)
            if mutated is None:
                continue
            delta = sum(len(e.text) - (e.end - e.start) for e in edits)
            tree = self.parses(prefix + mutated[start:end + delta])
            if tree is None:
                continue
            stmts = tree.body[0].body if nested and len(tree.body) == 1 else tree.body
            if len(stmts) != 1 or ast.dump(stmts[0]) != expected or not self.compiles(tree):
                continue
            self.seen.add(key)
            return self.mutant(cand, edits, mutated)
        return None

    def realise_whole(self, cand: _Candidate) -> Optional[Mutant]:
        """As `realise`, comparing whole modules (for edits that cross units)."""
        expected = self.expected_dump(None, cand.changes)
        key = (-1, self._digest(expected))
        if expected == ast.dump(self.tree) or key in self.seen:
            return None
        for edits in cand.alternatives:
            mutated = self.apply(edits)
            tree = self.parses(mutated) if mutated is not None else None
            if tree is not None and self.compiles(tree) and ast.dump(tree) == expected:
                self.seen.add(key)
                return self.mutant(cand, edits, mutated)
        return None

    def parses(self, mutated: str) -> Optional[ast.Module]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(mutated, filename=self.path)
        except (SyntaxError, ValueError):
            return None

    def compiles(self, tree: ast.Module) -> bool:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(tree, self.path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, TypeError):
            return False
        return True

    def mutant(self, cand: _Candidate, edits: Sequence[_Edit], mutated: str) -> Mutant:
        line = bisect.bisect_right(self.line_starts, min(e.start for e in edits))
        location = ";".join(f"{self.where(e.start)}-{self.where(e.end)}" for e in edits)
        replacement = "\x00".join(e.text for e in edits)
        return Mutant(
            id=mutant_id(self.path, cand.symbol, cand.kind, location, replacement),
            symbol=cand.symbol,
            operator=cand.kind,
            line=line,
            description=f"{cand.description} at line {line}",
            source=mutated,
        )

    def apply(self, edits: Sequence[_Edit]) -> Optional[str]:
        """The source with the edits made, or None if an edit would change the line count."""
        pieces, cursor = [], 0
        for edit in sorted(edits, key=lambda e: e.start):
            if edit.start < cursor:
                return None
            old = self.source[edit.start:edit.end]
            if _newlines(old) != _newlines(edit.text) and not edit.adds_lines:
                return None
            pieces.append(self.source[cursor:edit.start])
            pieces.append(edit.text)
            cursor = edit.end
        pieces.append(self.source[cursor:])
        return "".join(pieces)

    def owner(self, lines: Tuple[int, int]) -> Optional[str]:
        """The innermost target range holding all these lines (first listed wins a tie)."""
        best: Optional[Tuple[int, int, str]] = None
        for symbol, start, end, order in self.ranges:
            if start <= lines[0] and lines[1] <= end:
                key = (end - start, order, symbol)
                if best is None or key[:2] < best[:2]:
                    best = key
        return best[2] if best is not None else None

    def select(self, max_mutants: int) -> Tuple[Mutant, ...]:
        symbols: List[str] = []
        for symbol, _, _, _ in self.ranges:
            if symbol not in symbols:
                symbols.append(symbol)
        queues: Dict[str, Dict[str, List[_Candidate]]] = {s: {} for s in symbols}
        lo = min(start for _, start, _, _ in self.ranges)
        hi = max(end for _, _, end, _ in self.ranges)
        for cand in self.collect(lo, hi):
            symbol = self.owner(cand.lines)
            if symbol is None:
                continue
            cand.symbol = symbol
            queues[symbol].setdefault(cand.kind, []).append(cand)
        turns: Dict[str, List[List[_Candidate]]] = {}
        for symbol in symbols:
            kinds = queues[symbol]
            turns[symbol] = [sorted(kinds[k], key=lambda c: c.order) for k in KINDS if k in kinds]
        chosen: List[Mutant] = []
        active = [s for s in symbols if turns[s]]
        while active and len(chosen) < max_mutants:
            still = []
            for symbol in active:
                if len(chosen) >= max_mutants:
                    break
                mutant = self._turn(turns[symbol])
                if mutant is not None:
                    chosen.append(mutant)
                    still.append(symbol)
            active = still
        return tuple(chosen)

    def _turn(self, kinds: List[List[_Candidate]]) -> Optional[Mutant]:
        """One symbol's turn: the next kind in rotation gives its next good candidate; the
        kind then goes to the back of the rotation. Exhausted kinds drop out."""
        while kinds:
            queue = kinds.pop(0)
            while queue:
                mutant = self.realise(queue.pop(0))
                if mutant is not None:
                    if queue:
                        kinds.append(queue)
                    return mutant
        return None
