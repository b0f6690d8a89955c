"""The tautology check: oracle tests that cannot fail, or cannot fail for the code they judge.

Per test function (`test*` functions, and `test*` methods of `Test*` or `*TestCase` classes; a
Hypothesis `@given` test is a property) it reports:

- `no assertion`: no live `assert`, no `pytest.raises`/`warns`, no `assert*`/`fail` call, no
  raise, no `try` that lets all but named exceptions fail the test, and no call of a helper of
  the same file that has one (an assertion after a `return`, under `if False`, or in a `try`
  whose handler swallows AssertionError does not count);
- `constant assertion`: `assert True`/`1`/`"x"`/a non-empty tuple, a comparison of constants, the
  same expression on both sides of `==`/`is`/`<=`/`>=` (through local variables assigned with
  nothing in between that could change them), `isinstance(x, object)`, `len(x) >= 0`;
- `ignores its inputs`: for a property, assertions that use none of the generated values
  (the `@given` parameters and everything derived from them);
- `narrowed strategy`: a strategy that can produce a single value (`just`, `none`,
  `sampled_from` of one, `integers(5, 5)`, empty or fixed-size collections of single values,
  `builds` of a callable that takes nothing, through module-level strategy variables);
- `calls no production code`: nothing in the test, its helpers, fixtures of the same file or the
  strategies it uses refers to a function or class of a production module;
- `re-implements the implementation`: an assertion holds an expression with two or more operators that is the same,
  names aside, as one in a production function the test calls.
"""
from __future__ import annotations

import ast
import functools
import operator
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Mapping, Optional, Set, Tuple

from ..source.stdlib import STDLIB_MODULES
from ..source.symbols import (Names, SourceError, argument, bounded, constant, iter_symbols, parse, render,
                              statement_expressions)

STRATEGIES = "hypothesis.strategies."
SIZED = {"lists": 1, "sets": 1, "frozensets": 1, "iterables": 1, "text": 1, "binary": 0, "dictionaries": 2}
RANGED = ("integers", "floats", "decimals", "fractions", "dates", "datetimes", "times", "timedeltas")
NO_ARGUMENT_TYPES = frozenset({"object", "dict", "list", "set", "tuple", "str", "bytes", "int", "float", "bool",
                               "frozenset", "complex", "type(None)"})
BUILTIN_FIXTURES = frozenset({
    "request", "tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory", "monkeypatch", "capsys", "capfd",
    "capsysbinary", "capfdbinary", "caplog", "recwarn", "pytestconfig", "record_property", "record_xml_attribute",
    "record_testsuite_property", "cache", "doctest_namespace", "testdir", "pytester", "subtests",
})
FRAMEWORKS = frozenset({"pytest", "_pytest", "hypothesis", "unittest", "mock", "pytest_mock", "freezegun"})
STDLIB = STDLIB_MODULES  # (3.9 lacks sys.stdlib_module_names)
ASSERTING = ("pytest.raises", "pytest.warns", "pytest.deprecated_call", "pytest.fail")
SWALLOWING = ("AssertionError", "Exception", "BaseException")
REFLEXIVE = (ast.Eq, ast.Is, ast.LtE, ast.GtE)
ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
              ast.Mod: operator.mod, ast.Pow: operator.pow, ast.Div: operator.truediv}
COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
MIN_OPERATORS = 2


@dataclass(frozen=True, order=True)
class Finding:
    test: str
    why: str


# -- small evaluators -------------------------------------------------------------------------


def _number(node: ast.AST, names: Optional[Names], depth: int = 0) -> Optional[float]:
    """A numeric constant expression (`10**9`, `-5`, with `names` a module constant), else None."""
    ok, value = constant(node)
    if ok:
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if depth > 8:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand, names, depth + 1)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        left, right = _number(node.left, names, depth + 1), _number(node.right, names, depth + 1)
        if left is None or right is None or (isinstance(node.op, ast.Pow) and abs(right) > 64):
            return None
        try:
            return ARITHMETIC[type(node.op)](left, right)
        except (ArithmeticError, ValueError):
            return None
    if isinstance(node, ast.Name) and names is not None:
        values = _values(node, names)
        found = {_number(v, names, depth + 1) for v in values}
        return found.pop() if len(found) == 1 and len(values) >= 1 else None
    return None


def _values(node: ast.Name, names: Names) -> List[ast.AST]:
    """The expressions a name is bound to, when every binding is a plain assignment."""
    bindings = names.bindings(node)
    if not bindings or any(b[0] != "value" or b[1] is None for b in bindings):
        return []
    return [b[1] for b in bindings]


def _truthy_constant(node: ast.AST) -> bool:
    ok, value = constant(node)
    if ok:
        return bool(value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return bool(getattr(node, "elts", None) or getattr(node, "keys", None))
    if isinstance(node, (ast.Lambda, ast.JoinedStr)):
        return isinstance(node, ast.Lambda) or any(constant(v)[0] and constant(v)[1] for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        ok, value = constant(node.operand)
        return ok and not value
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.Or):
            return any(_truthy_constant(v) for v in node.values)
        return all(_truthy_constant(v) for v in node.values)
    return False


def _own_operators(n: ast.AST) -> int:
    if isinstance(n, (ast.BinOp, ast.UnaryOp)):
        return 1
    if isinstance(n, ast.BoolOp):
        return len(n.values) - 1
    if isinstance(n, ast.Compare):
        return len(n.ops)
    return 0


def _flatten(node: ast.AST, op: type) -> List[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, op):
        return _flatten(node.left, op) + _flatten(node.right, op)
    return [node]


def _shape(node: ast.AST, expand: Mapping[str, ast.AST], depth: int = 0) -> str:
    """Structure with names abstracted and constants kept: commutative chains sorted, constant
    arithmetic folded, local variables (in `expand`) replaced by what they were assigned."""
    if depth > 30:
        return "..."

    def sub(n: ast.AST) -> str:
        return _shape(n, expand, depth + 1)

    if isinstance(node, ast.Name):
        value = expand.get(node.id)
        return sub(value) if value is not None else "_"
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        value = _number(node, None)
        if value is not None:
            return repr(value)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, COMMUTATIVE):
            parts = sorted(sub(n) for n in _flatten(node, type(node.op)))
            return f"{type(node.op).__name__}({','.join(parts)})"
        return f"{type(node.op).__name__}({sub(node.left)},{sub(node.right)})"
    if isinstance(node, ast.BoolOp):
        return f"{type(node.op).__name__}({','.join(sorted(sub(v) for v in node.values))})"
    ok, value = constant(node)
    if ok:
        return repr(value)
    if isinstance(node, ast.AST):
        parts = [f"{k}={sub(v) if isinstance(v, ast.AST) else _shape_list(v, expand, depth)}"
                 for k, v in ast.iter_fields(node) if k not in ("ctx", "kind", "type_comment")]
        return f"{type(node).__name__}({','.join(parts)})"
    return repr(node)


def _shape_list(value: object, expand: Mapping[str, ast.AST], depth: int) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_shape(v, expand, depth + 1) if isinstance(v, ast.AST) else repr(v) for v in value) + "]"
    return repr(value)


# -- the test file ------------------------------------------------------------------------------


@dataclass
class _Site:
    """One assertion: the expressions that decide it."""

    node: ast.AST
    exprs: List[ast.AST]
    test: Optional[ast.AST] = None  # the asserted expression of an `assert`


class _TestFile:
    def __init__(self, source: str, production: Mapping[str, str]) -> None:
        self.tree = parse(source)
        self.names = Names(self.tree)
        self.production = production
        self.symbols = {q: (kind, node) for q, kind, node in iter_symbols(self.tree)}
        self._asserting: Dict[str, bool] = {}

    # -- which functions are tests, helpers and fixtures

    def tests(self) -> Iterator[Tuple[str, ast.AST]]:
        for q, (kind, node) in self.symbols.items():
            if kind == "class" or not node.name.startswith("test"):
                continue
            if kind == "function" and "." not in q:
                yield q, node
            elif kind == "method" and q.count(".") == 1 and self._is_test_class(self.symbols[q.split(".")[0]][1]):
                yield q, node

    def _is_test_class(self, node: ast.AST) -> bool:
        bases = [render(b) for b in getattr(node, "bases", [])]
        return node.name.startswith("Test") or any(b.endswith("TestCase") for b in bases)

    def callee(self, call: ast.Call, owner: str) -> Optional[Tuple[str, ast.AST]]:
        """A def of this file that `call` calls: a module function or a method via `self.`."""
        func = call.func
        if isinstance(func, ast.Name):
            for binding in self.names.bindings(func):
                if binding[0] == "def" and not isinstance(binding[1], ast.ClassDef):
                    q = next((q for q, (_k, n) in self.symbols.items() if n is binding[1]), None)
                    if q is not None:
                        return q, binding[1]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            q = f"{owner.split('.')[0]}.{func.attr}"
            if q in self.symbols and self.symbols[q][0] == "method":
                return q, self.symbols[q][1]
        return None

    def _is_given(self, decorator: ast.AST) -> Optional[ast.Call]:
        if isinstance(decorator, ast.Call) and "hypothesis.given" in self.names.resolve(decorator.func):
            return decorator
        return None

    def given_parameters(self, node: ast.AST) -> Optional[Dict[str, Optional[ast.AST]]]:
        """{parameter: its strategy} of a `@given` test, else None."""
        call = next((c for c in map(self._is_given, node.decorator_list) if c is not None), None)
        if call is None:
            return None
        params = [a.arg for a in list(getattr(node.args, "posonlyargs", [])) + list(node.args.args)]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        out: Dict[str, Optional[ast.AST]] = {}
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        for name, strategy in zip(params[len(params) - len(positional):], positional):
            out[name] = strategy
        for kw in call.keywords:
            if kw.arg is not None:
                out[kw.arg] = kw.value
        return out

    # -- assertions

    def sites(self, node: ast.AST, q: str, seen: FrozenSet[str] = frozenset()) -> List[_Site]:
        """Live assertions of a function body, helpers that assert included."""
        out: List[_Site] = []
        for stmt, conditions in _live(node.body, [], self.names):
            if isinstance(stmt, ast.Assert):
                out.append(_Site(stmt, [stmt.test], stmt.test))
                continue
            if isinstance(stmt, ast.Raise):
                out.append(_Site(stmt, conditions + ([stmt.exc] if stmt.exc is not None else [])))
                continue
            if isinstance(stmt, ast.Try) and stmt.handlers and not any(_swallows(h, self.names, broad_only=True)
                                                                        for h in stmt.handlers):
                # `try: ... except ParseError: pass`: any other exception fails the test
                out.append(_Site(stmt, conditions + list(stmt.body)))
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                if any(self._asserts_call(item.context_expr) for item in stmt.items):
                    out.append(_Site(stmt, [item.context_expr for item in stmt.items] + list(stmt.body)))
            for expr in statement_expressions(stmt):
                if isinstance(expr, ast.Call) and not isinstance(stmt, (ast.With, ast.AsyncWith)):
                    if self._asserts_call(expr):
                        out.append(_Site(expr, conditions + [expr]))
                        continue
                    callee = self.callee(expr, q)
                    if callee is not None and callee[0] not in seen and self._helper_asserts(*callee, seen | {q}):
                        out.append(_Site(expr, conditions + [expr]))
        return out

    def _asserts_call(self, expr: ast.AST) -> bool:
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        leaf = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if leaf.startswith("assert") or (leaf == "fail" and isinstance(func, ast.Attribute)):
            return True
        return bool(self.names.resolve(func) & set(ASSERTING))

    def _helper_asserts(self, q: str, node: ast.AST, seen: FrozenSet[str]) -> bool:
        if q not in self._asserting:
            self._asserting[q] = False  # recursion guard
            self._asserting[q] = bool(self.sites(node, q, seen))
        return self._asserting[q]

    # -- production code

    def _production_module(self, module: str) -> Optional["_Production"]:
        try:
            return _production(self.production[module], module)
        except SourceError:
            return None

    def production_member(self, dotted: str) -> Optional[Tuple[str, List[str]]]:
        """(module, attribute path) when `dotted` names a function or class (or anything that is
        not a plain constant) of a production module."""
        best = max((m for m in self.production if dotted == m or dotted.startswith(m + ".")), key=len, default=None)
        if best is None or dotted == best:
            return None
        path = dotted[len(best) + 1:].split(".")
        loaded = self._production_module(best)
        if loaded is None:
            return best, path
        for stmt in loaded.tree.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == path[0] for t in targets) and _literal(stmt.value):
                    return None
        return best, path

    def production_defs(self, members: Set[Tuple[str, Tuple[str, ...]]]) -> List[Tuple[str, ast.AST, "_Production"]]:
        """The production defs a test calls, and the same-module defs they call in turn."""
        out: List[Tuple[str, ast.AST, _Production]] = []
        queue = list(members)
        seen: Set[Tuple[str, Tuple[str, ...]]] = set()
        while queue and len(out) < 64:
            module, path = queue.pop()
            if (module, path) in seen:
                continue
            seen.add((module, path))
            loaded = self._production_module(module)
            if loaded is None:
                continue
            table = loaded.table
            node = table.get(".".join(path)) or table.get(path[0])
            if node is None:
                continue
            out.append((f"{module}.{'.'.join(path)}", node, loaded))
            queue.extend((module, (name,)) for name in loaded.callees(node))
        return out


class _Production:
    """A parsed production module: its defs by qualname, and the expressions of each def that
    have enough operators to count as re-implementable, by shape."""

    def __init__(self, source: str, module: str) -> None:
        self.tree = parse(source, module)
        self.table = {q: node for q, _k, node in iter_symbols(self.tree)}
        self._shapes: Dict[int, Dict[str, str]] = {}
        self._callees: Dict[int, FrozenSet[str]] = {}

    def callees(self, node: ast.AST) -> FrozenSet[str]:
        """Module-level defs of this module that `node` refers to."""
        if id(node) not in self._callees:
            self._callees[id(node)] = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                                                and isinstance(n.ctx, ast.Load) and n.id in self.table)
        return self._callees[id(node)]

    def shapes(self, node: ast.AST) -> Dict[str, str]:
        if id(node) not in self._shapes:
            counts: Dict[int, int] = {}
            found: Dict[str, str] = {}
            for n in _postorder(node):
                own = _own_operators(n)
                counts[id(n)] = own + sum(counts.get(id(c), 0) for c in ast.iter_child_nodes(n))
                if own and counts[id(n)] >= MIN_OPERATORS:
                    found.setdefault(_shape(n, {}), render(n))
            self._shapes[id(node)] = found
        return self._shapes[id(node)]


@functools.lru_cache(maxsize=256)
def _production(source: str, module: str) -> _Production:
    return _Production(source, module)


def _postorder(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        yield from _postorder(child)
    yield node


def _literal(node: Optional[ast.AST]) -> bool:
    if node is None:
        return False
    return all(isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load, ast.UnaryOp, ast.USub))
               or constant(n)[0] for n in ast.walk(node))


def _swallows(handler: ast.ExceptHandler, names: Names, broad_only: bool = False) -> bool:
    """The handler catches AssertionError (or everything) and does not raise again; with
    `broad_only`, whether it catches AssertionError at all."""
    if not broad_only and any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
        return False
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(names.resolve(t) & set(SWALLOWING) for t in types)


def _live(body: List[ast.stmt], conditions: List[ast.AST], names: Names) -> Iterator[Tuple[ast.stmt, List[ast.AST]]]:
    """Statements that can run, with the conditions that guard them; not into nested defs."""
    for stmt in body:
        yield stmt, conditions
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.If, ast.While)):
            ok, value = constant(stmt.test)
            if not ok or value:
                yield from _live(stmt.body, conditions + [stmt.test], names)
            if not ok or not value or isinstance(stmt, ast.While):
                yield from _live(stmt.orelse, conditions + [stmt.test], names)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            if not any(_swallows(h, names) for h in stmt.handlers):
                yield from _live(stmt.body, conditions, names)
            outcome = conditions + list(stmt.body)  # what happens next depends on the try body
            for handler in stmt.handlers:
                yield from _live(handler.body, outcome, names)
            yield from _live(stmt.orelse, outcome, names)
            yield from _live(stmt.finalbody, conditions, names)
        else:
            for field in ("body", "orelse"):
                yield from _live(getattr(stmt, field, None) or [], conditions, names)
            for case in getattr(stmt, "cases", None) or []:
                yield from _live(case.body, conditions + [case.pattern], names)
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
            return


def _single_assignments(node: ast.AST) -> Dict[str, ast.Assign]:
    """Locals of a function assigned exactly once, by a plain `name = value`."""
    counts: Dict[str, int] = {}
    assigns: Dict[str, ast.Assign] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(n, ast.arg):
            counts[n.arg] = counts.get(n.arg, 0) + 2
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            assigns[n.targets[0].id] = n
    return {k: v for k, v in assigns.items() if counts.get(k) == 1}


# -- the checks -------------------------------------------------------------------------------


def _constant_assertions(tf: _TestFile, fn: ast.AST, sites: List[_Site]) -> Iterator[str]:
    assigns = _single_assignments(fn)
    expand = {k: v.value for k, v in assigns.items()}
    for site in sites:
        expr = site.test
        if expr is None and isinstance(site.node, ast.Call):
            call = site.node
            leaf = getattr(call.func, "attr", "")
            if leaf in ("assertTrue",) and call.args and _truthy_constant(call.args[0]):
                yield f"constant assertion: {render(call)}"
            elif leaf in ("assertEqual", "assertEquals", "assertIs", "assertLessEqual", "assertGreaterEqual",
                          "assertCountEqual", "assertListEqual", "assertDictEqual", "assertSetEqual",
                          "assertTupleEqual", "assertAlmostEqual") and len(call.args) >= 2:
                if _same(tf, fn, call.args[0], call.args[1], assigns, expand, call):
                    yield f"constant assertion: {render(call)}"
            continue
        if expr is None:
            continue
        if _truthy_constant(expr):
            yield f"constant assertion: assert {render(expr)}"
        elif isinstance(expr, ast.Compare):
            operands = [expr.left] + list(expr.comparators)
            if all(constant(o)[0] for o in operands):
                try:
                    values = [constant(o)[1] for o in operands]
                    if all(_compare(op, a, b) for op, a, b in zip(expr.ops, values, values[1:])):
                        yield f"constant assertion: assert {render(expr)}"
                except TypeError:
                    pass
                continue
            for op, left, right in zip(expr.ops, operands, operands[1:]):
                if isinstance(op, REFLEXIVE) and _same(tf, fn, left, right, assigns, expand, expr):
                    yield f"constant assertion: assert {render(expr)} compares an expression with itself"
                    break
                if (isinstance(op, ast.GtE) and _is_len(left) and constant(right) == (True, 0)) or \
                        (isinstance(op, ast.LtE) and _is_len(right) and constant(left) == (True, 0)):
                    yield f"constant assertion: assert {render(expr)}"
                    break
        elif isinstance(expr, ast.Call) and getattr(expr.func, "id", "") == "isinstance" and len(expr.args) == 2 \
                and getattr(expr.args[1], "id", "") == "object":
            yield f"constant assertion: assert {render(expr)}"


def _compare(op: ast.cmpop, a: object, b: object) -> bool:
    table = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
             ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
             ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}
    return bool(table[type(op)](a, b))


def _is_len(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "id", "") == "len"


def _same(tf: _TestFile, fn: ast.AST, left: ast.AST, right: ast.AST, assigns: Dict[str, ast.Assign],
          expand: Dict[str, ast.AST], at: ast.AST) -> bool:
    """Both sides are the same expression, and nothing between the assignments they go through and
    the assertion can have changed what they compute."""
    if ast.dump(left) == ast.dump(right):
        return True
    used = {n.id for side in (left, right) for n in ast.walk(side) if isinstance(n, ast.Name) and n.id in expand}
    if not used or _shape_names(left, expand) != _shape_names(right, expand):
        return False
    first = min(assigns[name].lineno for name in used)
    skipped = {id(n) for name in used for n in ast.walk(assigns[name])}
    for n in ast.walk(fn):
        line = getattr(n, "lineno", 0)
        if first < line < at.lineno and id(n) not in skipped and isinstance(
                n, (ast.Call, ast.Delete, ast.AugAssign, ast.Subscript, ast.Attribute)):
            if isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, (ast.Store, ast.Del)):
                continue
            return False
    return True


def _shape_names(node: ast.AST, expand: Mapping[str, ast.AST], depth: int = 0) -> str:
    """Like ast.dump, with local variables replaced by what they were assigned (names kept)."""
    if isinstance(node, ast.Name) and node.id in expand and depth < 10:
        return _shape_names(expand[node.id], expand, depth + 1)
    if isinstance(node, ast.AST):
        fields = [f"{k}={_shape_names(v, expand, depth + 1)}" for k, v in ast.iter_fields(node) if k != "ctx"]
        return f"{type(node).__name__}({','.join(fields)})"
    if isinstance(node, list):
        return "[" + ",".join(_shape_names(v, expand, depth + 1) for v in node) + "]"
    return repr(node)


def _tainted(fn: ast.AST, inputs: Set[str]) -> Set[str]:
    """The generated inputs and every local derived from them (or changed through them)."""
    tainted = set(inputs)

    def mentions(node: Optional[ast.AST]) -> bool:
        return node is not None and any(isinstance(n, ast.Name) and n.id in tainted for n in ast.walk(node))

    def targets(node: ast.AST) -> Set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    for _ in range(10):
        before = len(tainted)
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and mentions(n.value):
                for t in n.targets:
                    tainted |= targets(t)
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and mentions(n.value):
                tainted |= targets(n.target)
            elif type(n).__name__ == "NamedExpr" and mentions(n.value):
                tainted |= targets(n.target)
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and mentions(n.iter):
                tainted |= targets(n.target)
            elif isinstance(n, ast.withitem) and n.optional_vars is not None and mentions(n.context_expr):
                tainted |= targets(n.optional_vars)
            elif isinstance(n, ast.Call) and mentions(n):
                receiver = n.func.value if isinstance(n.func, ast.Attribute) else None
                if isinstance(receiver, ast.Name) and any(mentions(a) for a in n.args + [k.value for k in n.keywords]):
                    tainted.add(receiver.id)
                if any(mentions(a) for a in n.args):
                    tainted |= {a.id for a in n.args if isinstance(a, ast.Name)}
            elif isinstance(n, ast.Try) and any(mentions(b) for b in n.body):
                tainted |= {h.name for h in n.handlers if h.name}
            elif isinstance(n, ast.Delete) and any(mentions(t) for t in n.targets):
                tainted |= {t.value.id for t in n.targets
                            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}
        if len(tainted) == before:
            break
    return tainted


def _single_strategy(tf: _TestFile, node: Optional[ast.AST], depth: int = 0) -> bool:
    """The strategy can produce only one value."""
    if node is None or depth > 12:
        return False
    names = tf.names
    if isinstance(node, ast.Name):
        values = _values(node, names)
        return bool(values) and all(_single_strategy(tf, v, depth + 1) for v in values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return (_single_strategy(tf, node.left, depth + 1) and _single_strategy(tf, node.right, depth + 1)
                and ast.dump(node.left) == ast.dump(node.right))
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("map", "filter"):
        return _single_strategy(tf, func.value, depth + 1)
    kinds = {n[len(STRATEGIES):] for n in names.resolve(func) if n.startswith(STRATEGIES)}

    def same_number(a: Optional[ast.AST], b: Optional[ast.AST]) -> bool:
        x = _number(a, names) if a is not None else None
        return x is not None and x == (_number(b, names) if b is not None else None)

    for kind in kinds:
        if kind in ("just", "none", "nothing"):
            return True
        if kind == "sampled_from":
            seq = argument(node, 0, "elements")
            seqs = _values(seq, names) if isinstance(seq, ast.Name) else [seq]
            for s in seqs:
                if isinstance(s, (ast.List, ast.Tuple, ast.Set)) and len({ast.dump(e) for e in s.elts}) <= 1:
                    return True
        if kind in RANGED and same_number(argument(node, 0, "min_value"), argument(node, 1, "max_value")):
            return True
        if kind in SIZED:
            offset = SIZED[kind]
            low, high = argument(node, offset, "min_size"), argument(node, offset + 1, "max_size")
            if high is not None and _number(high, names) == 0:
                return True
            if kind == "text":
                alphabet = argument(node, 0, "alphabet")
                element_single = alphabet is not None and len(tf.names.strings(alphabet)) == 1 and all(
                    len(set(s)) <= 1 for s in tf.names.strings(alphabet))
            elif kind == "binary":
                element_single = False
            elif kind == "dictionaries":
                element_single = _single_strategy(tf, argument(node, 0, "keys"), depth + 1)
            else:
                element_single = _single_strategy(tf, argument(node, 0, "elements"), depth + 1)
            if element_single and low is not None and same_number(low, high):
                return True
        if kind == "tuples":
            return all(_single_strategy(tf, a, depth + 1) for a in node.args)
        if kind == "fixed_dictionaries":
            mapping = argument(node, 0, "mapping")
            return isinstance(mapping, ast.Dict) and all(_single_strategy(tf, v, depth + 1) for v in mapping.values)
        if kind in ("one_of", "shared"):
            options = node.args[:1] if kind == "shared" else node.args
            return bool(options) and all(_single_strategy(tf, a, depth + 1) for a in options) and \
                len({ast.dump(a) for a in options}) == 1
        if kind == "builds" and node.args:
            rest = node.args[1:] + [k.value for k in node.keywords]
            if all(_single_strategy(tf, a, depth + 1) for a in rest):
                return _takes_only(tf, node.args[0], len(node.args) - 1, {k.arg for k in node.keywords})
    return False


def _takes_only(tf: _TestFile, target: ast.AST, positional: int, keywords: Set[Optional[str]]) -> bool:
    """`target` needs no argument beyond those given (so `builds` can infer none)."""
    resolved = tf.names.resolve(target)
    if resolved & NO_ARGUMENT_TYPES or render(target) in NO_ARGUMENT_TYPES:
        return True
    for name in resolved:
        member = tf.production_member(name)
        if member is None:
            continue
        for _q, node, _module in tf.production_defs({(member[0], tuple(member[1]))})[:1]:
            if isinstance(node, ast.ClassDef):
                node = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
                if node is None:
                    return True
                skip = 1
            else:
                skip = 0
            args = node.args
            every = list(getattr(args, "posonlyargs", [])) + list(args.args)
            required = every[skip: len(every) - len(args.defaults)]
            required_kw = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
            left = [a.arg for a in required[positional:] if a.arg not in keywords]
            return not left and all(k in keywords for k in required_kw)
    return False


def _closure(tf: _TestFile, fn: ast.AST, q: str,
             given: Optional[Mapping[str, ast.AST]]) -> Tuple[List[ast.AST], bool]:
    """Every node the test runs or builds its inputs from in this file (helpers it calls, module
    strategies and values it uses, fixtures of this file it asks for), and whether all of its
    parameters that Hypothesis does not generate (`given`) are accounted for."""
    params = {a.arg for a in list(getattr(fn.args, "posonlyargs", [])) + list(fn.args.args)
              + list(fn.args.kwonlyargs)} - set(given or ())
    fixtures = {}
    for q, (kind, node) in tf.symbols.items():
        if kind == "function" and "." not in q and any(
                "pytest.fixture" in tf.names.resolve(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list):
            fixtures[node.name] = node
    parametrized: Set[str] = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and "pytest.mark.parametrize" in tf.names.resolve(d.func) and d.args:
            for spec in tf.names.strings(d.args[0]):
                parametrized |= {p.strip() for p in spec.split(",")}
    known = True
    todo: List[ast.AST] = [fn]
    for p in params:
        if p in fixtures:
            todo.append(fixtures[p])
        elif p not in BUILTIN_FIXTURES and p not in parametrized and p not in ("self", "cls"):
            known = False
    nodes: List[ast.AST] = []
    seen: Set[int] = set()
    while todo and len(nodes) < 50_000:
        root = todo.pop()
        if id(root) in seen:
            continue
        seen.add(id(root))
        for n in ast.walk(root):
            nodes.append(n)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in params:
                for binding in tf.names.bindings(n):
                    if binding[0] == "def":
                        todo.append(binding[1])
                    elif binding[0] == "value" and binding[1] is not None and binding[2] is tf.names.module:
                        todo.append(binding[1])
            elif isinstance(n, ast.Call):
                callee = tf.callee(n, q)
                if callee is not None:
                    todo.append(callee[1])
    return nodes, known


def _check(tf: _TestFile, q: str, fn: ast.AST, diff_code: FrozenSet[str] = frozenset()) -> Iterator[str]:
    sites = tf.sites(fn, q)
    if not sites:
        yield "no assertion"
    yield from _constant_assertions(tf, fn, sites)
    given = tf.given_parameters(fn)
    if given is not None:
        inputs = set(given)
        for n in ast.walk(fn):  # values drawn inside the body are generated too
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "draw" and n.args:
                if _single_strategy(tf, n.args[0]):
                    yield f"narrowed strategy: a drawn value comes from {render(n.args[0])}, which has one value"
        for name, strategy in given.items():
            if _single_strategy(tf, strategy):
                yield f"narrowed strategy: {name} comes from {render(strategy)}, which has one value"
        tainted = _tainted(fn, inputs)
        used = any(isinstance(n, ast.Name) and n.id in tainted
                   for site in sites for e in site.exprs for n in ast.walk(e))
        if sites and not used:
            yield "ignores its inputs: no assertion uses a generated value"
    if not tf.production:
        return
    nodes, known = _closure(tf, fn, q, given)
    members: Set[Tuple[str, Tuple[str, ...]]] = set()
    imported = _imported_roots(tf.tree)
    for n in nodes:
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load):
            for name in tf.names.resolve(n):
                member = tf.production_member(name)
                if member is not None:
                    members.add((member[0], tuple(member[1])))
                elif isinstance(n, ast.Name) and _elsewhere(name, imported, tf.production):
                    known = False  # a helper from another module of the tests may call production code
    if not members:
        if known:
            yield "calls no production code"
        return
    yield from _reimplemented(tf, fn, sites, members)
    yield from _self_judged(tf, fn, sites, diff_code)


def _imported_roots(tree: ast.Module) -> Set[str]:
    roots: Set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            roots |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            roots.add("." if n.level else (n.module or "").split(".")[0])
    return roots


def _elsewhere(name: str, imported: Set[str], production: Mapping[str, str]) -> bool:
    """`name` comes from a module of this project that is not production code (a test helper)."""
    root = "." if name.startswith(".") else name.split(".")[0]
    if root not in imported or root in FRAMEWORKS or root in STDLIB:
        return False
    return not any(name == m or name.startswith(m + ".") for m in production)


def _reimplemented(tf: _TestFile, fn: ast.AST, sites: List[_Site], members) -> Iterator[str]:
    shapes: Dict[str, Tuple[str, str]] = {}
    for where, node, module in tf.production_defs(members):
        for key, text in module.shapes(node).items():
            shapes.setdefault(key, (where, text))
    if not shapes:
        return
    expand = {k: v.value for k, v in _single_assignments(fn).items()}
    for site in sites:
        roots = [site.test] if site.test is not None else [e for e in site.exprs if isinstance(e, ast.expr)]
        for call in [n for root in roots for n in ast.walk(root) if isinstance(n, ast.Call)]:
            helper = tf.callee(call, "")  # an expected value computed by a helper of this file
            if helper is not None:
                roots += [n.value for n in ast.walk(helper[1]) if isinstance(n, ast.Return) and n.value is not None]
        for root in roots:
            roots += [expand[n.id] for n in ast.walk(root) if isinstance(n, ast.Name) and n.id in expand
                      and expand[n.id] not in roots and len(roots) < 64]  # what its locals hold
            for n in ast.walk(root):
                if _own_operators(n):
                    found = shapes.get(_shape(n, expand))
                    if found is not None:
                        yield f"re-implements the implementation: {found[1]} in {found[0]}"
                        return


def _self_judged(tf: _TestFile, fn: ast.AST, sites: List[_Site], diff_code: FrozenSet[str]) -> Iterator[str]:
    """An assertion whose sides each take their value from different code this diff adds or changes
    (`assert split_weighted(x) == split_weighted_copy(x)`): the diff judges itself. A law over one
    function (`f(f(x)) == f(x)`, `decode(encode(x)) == x`) shares its code between the sides."""
    if not diff_code:
        return
    expand = {k: v.value for k, v in _single_assignments(fn).items()}

    def diff_members(node: ast.AST) -> Set[str]:
        found: Set[str] = set()
        roots = [node]
        for root in roots:
            for n in ast.walk(root):
                if isinstance(n, ast.Name) and n.id in expand and expand[n.id] not in roots and len(roots) < 32:
                    roots.append(expand[n.id])  # what its locals hold
                if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load):
                    for name in tf.names.resolve(n):
                        member = tf.production_member(name)
                        dotted = f"{member[0]}.{'.'.join(member[1])}" if member is not None else ""
                        if dotted in diff_code:
                            found.add(dotted)
        return found

    for site in sites:
        if not isinstance(site.test, ast.Compare):
            continue
        sides = [diff_members(side) for side in (site.test.left, *site.test.comparators)]
        if len(sides) >= 2 and all(sides) and all(not (a & b) for i, a in enumerate(sides) for b in sides[i + 1:]):
            names = [sorted(side)[0] for side in sides]
            yield (f"judges code by code the same diff adds or changes: {names[0]} against {names[1]} "
                   f"(an expected value must come from the base's code, a literal or a law)")
            return


@bounded
def tautology_findings(test_source: str, production_sources: Mapping[str, str],
                       diff_code: FrozenSet[str] = frozenset()) -> Tuple[Finding, ...]:
    """Findings for every test in `test_source`. `production_sources` maps importable module names
    (`billing.tax`) to their source; with none, the production checks are not made. `diff_code`:
    dotted names of the production functions and classes the diff adds or changes. SourceError if
    the test source does not parse (a production source that does not parse is skipped)."""
    tf = _TestFile(test_source, production_sources)
    out: List[Finding] = []
    for q, fn in tf.tests():
        for why in _check(tf, q, fn, diff_code):
            finding = Finding(q, why)
            if finding not in out:
                out.append(finding)
    return tuple(out)


@bounded
def data_readers(test_source: str, production_sources: Mapping[str, str],
                 changed_data: FrozenSet[str]) -> Tuple[Finding, ...]:
    """Tests in `test_source` that take values from production data the diff changes:
    `changed_data` holds dotted names (`billing.schema.REQUIRED`) of module-level data whose value
    the diff may change (`symbols.changed_data`). Whatever the test, its helpers, the fixtures of
    its file or its strategies read from such a name is the head's (`sampled_from(REQUIRED)` with
    `REQUIRED` shrunk draws fewer cases; an expected value read from a changed table moves with the
    code), so the base's oracle no longer judges what it judged: the diff changed the oracle.
    SourceError if the test source does not parse."""
    if not changed_data:
        return ()
    tf = _TestFile(test_source, production_sources)
    out: List[Finding] = []
    for q, fn in tf.tests():
        nodes, _ = _closure(tf, fn, q, tf.given_parameters(fn))
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}  # code it runs, judged as code
        read = sorted({name for n in nodes if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)
                       and id(n) not in called for name in tf.names.resolve(n) if name in changed_data})
        if read:
            out.append(Finding(q, f"takes values from {read[0]}, which the diff changes: the oracle no longer judges "
                                  f"what it judged at the base (an oracle's inputs and expected values come from the "
                                  f"base's code, a literal or a law; change it in its own diff)"))
    return tuple(out)
