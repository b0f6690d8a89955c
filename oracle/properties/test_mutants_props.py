"""Laws of the mutation engine over generated small modules: the same input gives the same
mutants; the budget bounds them and a smaller budget gives a prefix of a larger one; every
mutant compiles, differs from the original tree and from every other mutant; only lines inside
the mutant's own symbol change and no line moves; the budget is shared round-robin. Per changed
line: a line's first mutant comes before any line's second, and every mutable changed line either
got a mutant or is reported, whatever the budget. And the environment value round-trips."""
import ast
import random
import re
import warnings

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from oracle_gate.core.ladder.mutants import FileToMutate, changed_lines, line_mutants, mutants
from oracle_gate.core.protocol.mutant_payload import MAX_ENV_CHARS, MutantTooLarge, decode_mutant_env, encode_mutant_env

engine = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NAMES = ("a", "b", "total", "self.items")
BINARY = ("+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^")
COMPARE = ("<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in")

leaves = st.one_of(
    st.sampled_from(NAMES),
    st.integers(0, 12).map(str),
    st.sampled_from(("0.5", "1.0", "'x'", "''", "b'k'", "True", "False", "None", "1_000")),
)


def _combine(inner):
    pair = st.tuples(inner, inner)
    return st.one_of(
        st.tuples(pair, st.sampled_from(BINARY), st.booleans()).map(
            lambda t: f"({t[0][0]}\n    {t[1]} {t[0][1]})" if t[2] else f"{t[0][0]} {t[1]} {t[0][1]}"
        ),
        st.tuples(pair, st.sampled_from(COMPARE)).map(lambda t: f"({t[0][0]} {t[1]} {t[0][1]})"),
        st.tuples(pair, st.sampled_from(("and", "or"))).map(lambda t: f"({t[0][0]} {t[1]} {t[0][1]})"),
        inner.map(lambda x: f"(not {x})"),
        inner.map(lambda x: f"-{x}"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(" + ", ".join(xs) + ")"),
        st.lists(st.tuples(inner, inner), max_size=3).map(lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"),
        inner.map(lambda x: f"range({x})"),
        pair.map(lambda p: f"range({p[0]}, {p[1]})"),
        pair.map(lambda p: f"a[{p[0]}:{p[1]}]"),
        inner.map(lambda x: f"[v for v in {x} if v]"),
    )


expressions = st.recursive(leaves, _combine, max_leaves=4)


def _statement(depth):
    simple = st.one_of(
        st.tuples(st.sampled_from(("x", "total", "self.items")), expressions).map(lambda t: [f"{t[0]} = {t[1]}"]),
        st.tuples(st.sampled_from(("+=", "-=", "*=", "|=")), expressions).map(lambda t: [f"x {t[0]} {t[1]}"]),
        expressions.map(lambda e: [f"assert {e}"]),
        expressions.map(lambda e: [f"return {e}"]),
        expressions.map(lambda e: [f"raise ValueError({e})"]),
        expressions.map(lambda e: [f"print({e})"]),
        st.just(["pass"]),
    )
    if depth == 0:
        return simple
    body = st.lists(_statement(depth - 1), min_size=1, max_size=3).map(lambda ss: [ln for s in ss for ln in s])
    indent = lambda lines: ["    " + ln for ln in lines]  # noqa: E731
    return st.one_of(
        simple,
        st.tuples(expressions, body).map(lambda t: [f"if {t[0]}:"] + indent(t[1])),
        st.tuples(expressions, body, body).map(lambda t: [f"if {t[0]}:"] + indent(t[1]) + ["else:"] + indent(t[2])),
        st.tuples(expressions, body).map(lambda t: [f"while {t[0]}:"] + indent(t[1] + ["break"])),
        st.tuples(expressions, body).map(lambda t: [f"for i in range({t[0]}):"] + indent(t[1])),
    )


bodies = st.lists(_statement(1), min_size=1, max_size=3).map(lambda ss: [ln for s in ss for ln in s])


@st.composite
def functions(draw, name):
    lines = [f"def {name}(self, a, b):"]
    if draw(st.booleans()):
        lines.append('    """A docstring."""')
    return lines + ["    " + ln for ln in draw(bodies)]


@st.composite
def modules(draw):
    """Module source plus the (qualname, (start, end)) of every function and method."""
    lines = ['"""A generated module."""', "import json", ""]
    count = draw(st.integers(1, 2))
    for index in range(count):
        lines += draw(functions(f"f{index}")) + [""]
    if draw(st.booleans()):
        lines += ["class Box:"]
        for method in draw(st.lists(st.sampled_from(("__eq__", "__hash__", "__lt__", "put")), min_size=1,
                                    max_size=2, unique=True)):
            lines += ["    " + ln for ln in draw(functions(method))] + [""]
    lines += [f"LIMIT = {draw(expressions)}"]
    source = "\n".join(lines) + "\n"
    tree = ast.parse(source)
    spans = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            spans.append((node.name, (node.lineno, node.end_lineno)))
        elif isinstance(node, ast.ClassDef):
            spans += [(f"{node.name}.{m.name}", (m.lineno, m.end_lineno)) for m in node.body]
    last = len(lines)
    spans.append(("<module>", (last, last)))
    chosen = draw(st.lists(st.sampled_from(spans), min_size=1, unique=True))
    return source, chosen


budgets = st.integers(0, 20)


@engine
@given(modules(), budgets)
def test_the_same_input_gives_the_same_mutants(module, budget):
    source, targets = module
    first = mutants(source, "pkg/m.py", targets, budget)
    assert first == mutants(source, "pkg/m.py", list(targets), budget)
    assert len({m.id for m in first}) == len(first)


@engine
@given(modules(), budgets, budgets)
def test_the_budget_bounds_and_a_smaller_one_gives_a_prefix(module, small, extra):
    source, targets = module
    more = mutants(source, "m.py", targets, small + extra)
    fewer = mutants(source, "m.py", targets, small)
    assert len(more) <= small + extra
    assert fewer == more[:small]


@engine
@given(modules(), budgets)
def test_every_mutant_compiles_and_differs_from_the_original_and_the_others(module, budget):
    source, targets = module
    original = ast.dump(ast.parse(source))
    seen = {original}
    for mutant in mutants(source, "m.py", targets, budget):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `x is 1`: generated, not mutated
            compile(mutant.source, "m.py", "exec", dont_inherit=True)
        tree = ast.dump(ast.parse(mutant.source))
        assert tree not in seen, mutant.description
        seen.add(tree)


@engine
@given(modules(), budgets)
def test_only_lines_of_the_mutants_own_symbol_change_and_none_moves(module, budget):
    source, targets = module
    before = source.splitlines()
    ranges = {}
    for symbol, (start, end) in targets:
        ranges.setdefault(symbol, []).append((start, end))
    for mutant in mutants(source, "m.py", targets, budget):
        after = mutant.source.splitlines()
        assert len(after) == len(before)
        own = ranges[mutant.symbol]
        assert any(start <= mutant.line <= end for start, end in own)
        changed = [n for n, (old, new) in enumerate(zip(before, after), 1) if old != new]
        assert changed
        assert all(any(start <= n <= end for start, end in own) for n in changed), mutant.description
        assert mutant.description.endswith(f" at line {mutant.line}")


@engine
@given(modules(), budgets)
def test_the_budget_is_shared_round_robin(module, budget):
    source, targets = module
    symbols = sorted({s for s, _ in targets})
    taken = [m.symbol for m in mutants(source, "m.py", targets, budget)]
    available = [m.symbol for m in mutants(source, "m.py", targets, 10_000)]
    count = {s: taken.count(s) for s in symbols}
    most = {s: available.count(s) for s in symbols}
    for s in symbols:
        for t in symbols:
            if count[t] >= count[s] + 2:
                assert count[s] == most[s]  # s had nothing more to give
    if budget >= sum(1 for s in symbols if most[s]):
        assert all(count[s] >= 1 for s in symbols if most[s])


@st.composite
def line_plans(draw):
    """A generated module, its targets, and a set of its lines the diff changed."""
    source, targets = draw(modules())
    count = len(source.splitlines())
    return source, targets, frozenset(draw(st.lists(st.integers(1, count), max_size=count)))


def _plan(source, targets, lines, budget, per_symbol=4):
    return line_mutants([FileToMutate("m.py", source, tuple(targets), lines)], budget, per_symbol)


@engine
@given(line_plans(), budgets, budgets)
def test_every_mutable_changed_line_gets_a_mutant_or_is_reported_and_more_budget_never_reports_more(
        plan, budget, extra):
    source, targets, lines = plan
    small, big = _plan(source, targets, lines, budget), _plan(source, targets, lines, budget + extra)
    unlimited = _plan(source, targets, lines, 10_000)
    mutable = {m.line for _, m in unlimited.mutants}
    units: dict = {}
    for _, m in unlimited.mutants:
        units.setdefault(m.line, set()).add(m.unit)
    assert not unlimited.not_mutated
    for p in (small, big):
        covered = {m.line for _, m in p.mutants}
        reported = {line for _, line, _ in p.not_mutated}
        assert covered | reported == mutable  # conservation: every mutable line is judged or said not to be
        # a line is both only where several of its units (statements packed onto it, a conditional
        # expression's branches) competed for the budget and one of them lost
        assert all(len(units[line]) > 1 for line in covered & reported)
        assert mutable <= lines  # only changed lines are mutated
        assert len(p.mutants) <= budget + extra
    assert {line for _, line, _ in big.not_mutated} <= {line for _, line, _ in small.not_mutated}  # monotone


@engine
@given(line_plans(), budgets)
def test_no_unit_gets_a_second_mutant_while_another_mutable_unit_has_none(plan, budget):
    """A unit: a statement, or a part of one judged on its own (a condition the diff added, a
    branch, a truth value held one way); a line holds several where they are packed onto it."""
    source, targets, lines = plan
    p = _plan(source, targets, lines, budget)
    per_unit = {}
    for _, m in p.mutants:
        per_unit[(m.line, m.unit)] = per_unit.get((m.line, m.unit), 0) + 1
    if p.not_mutated:
        assert all(n == 1 for n in per_unit.values())


@given(st.lists(st.text(alphabet="ab \n", max_size=6), max_size=8), st.lists(st.text(alphabet="ab ", max_size=6), max_size=8))
@example(base_lines=[], head_lines=["", ""])  # a blank line added to an empty file (it was lost)
def test_changed_lines_are_exactly_the_lines_a_diff_adds_or_rewrites(base_lines, head_lines):
    base, head = "\n".join(base_lines), "\n".join(head_lines)
    assert changed_lines(head, head) == frozenset()  # identity
    assert changed_lines(None, head) == frozenset(range(1, len(head.splitlines()) + 1))
    changed = changed_lines(base, head)
    assert changed <= frozenset(range(1, len(head.splitlines()) + 1))
    # the unchanged head lines, in order, are a subsequence of the base's lines
    kept = [ln for n, ln in enumerate(head.splitlines(), 1) if n not in changed]
    it = iter(base.splitlines())
    assert all(any(ln == b for b in it) for ln in kept)


paths = st.from_regex(r"\A[a-z_]{1,8}(/[a-z_]{1,8}){0,3}\.py\Z")


@engine
@given(paths, st.text(max_size=2000), st.text(min_size=1, max_size=20))
def test_the_env_value_round_trips(path, source, ident):
    value = encode_mutant_env(path, source, ident)
    assert len(value) <= MAX_ENV_CHARS
    assert value.isascii()
    assert decode_mutant_env(value) == {"path": path, "source": source, "id": ident}


@engine
@given(st.integers(40_000, 100_000), st.integers(0, 2 ** 32 - 1))
def test_an_env_value_is_never_over_the_limit_a_larger_one_is_refused(half, seed):
    source = random.Random(seed).getrandbits(8 * half).to_bytes(half, "big").hex()  # incompressible
    try:
        value = encode_mutant_env("m.py", source, "x")
    except MutantTooLarge as refused:
        size = re.search(r"would be (\d+) characters", str(refused))
        assert size and int(size.group(1)) > MAX_ENV_CHARS
        return
    assert len(value) <= MAX_ENV_CHARS
    assert decode_mutant_env(value)["source"] == source
