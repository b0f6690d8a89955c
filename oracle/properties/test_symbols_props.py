"""Laws of changed symbols over generated modules: a version never differs from itself, the two
directions of a diff mirror each other, comments and whitespace change nothing, exactly the
edited bodies are reported, and every code object CPython compiles maps to its qualname."""
import inspect
import types
from typing import Dict, List, NamedTuple, Tuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_gate.core.source.symbols import MODULE, changed_data, changed_symbols, symbol_for_code, symbols

# Each example parses and analyses generated source (~20 ms alone, 10x that on a loaded 2-core
# machine running tests in parallel): a timing deadline or the slow-generation check would fail
# runs at random, never a law.
analysis = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["alpha", "beta", "gamma", "delta", "omega", "kappa"]
EXTRAS = ["", "lambda", "listcomp", "genexpr", "dictcomp"]


class Func(NamedTuple):
    name: str
    decorators: int  # 0: none, 1: @deco, 2: @deco then a multi-line @deco2(...)
    value: int
    extra: str
    nested: Tuple["Func", ...]
    is_async: bool


class Cls(NamedTuple):
    name: str
    decorated: bool
    value: int
    methods: Tuple[Func, ...]


def funcs(depth: int) -> st.SearchStrategy:
    nested = st.just(()) if depth == 0 else st.lists(funcs(depth - 1), max_size=2).map(tuple)
    return st.builds(Func, st.sampled_from(NAMES), st.integers(0, 2), st.integers(0, 9),
                     st.sampled_from(EXTRAS), nested, st.booleans())


classes = st.builds(Cls, st.sampled_from(NAMES).map(str.title), st.booleans(), st.integers(0, 9),
                    st.lists(funcs(1), max_size=3).map(tuple))
modules = st.lists(st.one_of(funcs(2), classes), max_size=5)

HEADER = "import functools\n\n\ndef deco(f):\n    return f\n\n\ndef deco2(n):\n    return deco\n\n\nCONST = 1\n"


def unique(items):
    """Keep the first of each name in a scope (a redefinition is one symbol)."""
    seen, out = set(), []
    for item in items:
        if item.name not in seen:
            seen.add(item.name)
            out.append(item)
    return out


def qualname(parent: str, parent_kind: str, name: str) -> str:
    if parent == MODULE:
        return name
    return f"{parent}.{name}" if parent_kind == "class" else f"{parent}.<locals>.{name}"


def render(module, bump=frozenset()) -> Tuple[str, Dict[str, int]]:
    """Source of a generated module, with the bodies of the qualnames in `bump` edited.
    Returns the source and {qualname: number of edits a symbol's own code got}."""
    lines: List[str] = HEADER.splitlines()
    edits: Dict[str, int] = {}

    def func(f: Func, indent: str, parent: str, parent_kind: str) -> None:
        q = qualname(parent, parent_kind, f.name)
        value = f.value + (1 if q in bump else 0)
        edits[q] = int(q in bump)
        if f.decorators >= 1:
            lines.append(f"{indent}@deco")
        if f.decorators >= 2:
            lines.extend([f"{indent}@deco2(", f"{indent}    {f.value},", f"{indent})"])
        self_arg = "self, " if parent_kind == "class" else ""
        lines.append(f"{indent}{'async ' if f.is_async else ''}def {f.name}({self_arg}x, y=0):")
        for inner in unique(f.nested):
            func(inner, indent + "    ", q, "function")
        lines.append(f"{indent}    v = x + {value}")
        if f.extra == "lambda":
            lines.append(f"{indent}    w = (lambda q: q + v)(y)")
        elif f.extra == "listcomp":
            lines.append(f"{indent}    w = [i * v for i in range(3)]")
        elif f.extra == "genexpr":
            lines.extend([f"{indent}    w = sum(", f"{indent}        i for i in range(v))"])
        elif f.extra == "dictcomp":
            lines.append(f"{indent}    w = {{i: v for i in range(y)}}")
        lines.append(f"{indent}    return v")

    for item in unique(module):
        lines.extend(["", ""])
        if isinstance(item, Cls):
            q = item.name
            value = item.value + (1 if q in bump else 0)
            edits[q] = int(q in bump)
            if item.decorated:
                lines.append("@functools.total_ordering")
            lines.append(f"class {item.name}:")
            lines.append(f"    attr = [i + {value} for i in range(2)]")
            for m in unique(item.methods):
                func(m, "    ", q, "class")
        else:
            func(item, "", MODULE, "module")
    return "\n".join(lines) + "\n", edits


def every_qualname(module) -> List[str]:
    return list(render(module)[1])


@analysis
@given(modules)
def test_a_version_never_differs_from_itself(module):
    source, _ = render(module)
    assert changed_symbols(source, source) == ()


@analysis
@given(modules, st.data())
def test_exactly_the_edited_symbols_are_reported(module, data):
    names = every_qualname(module)
    bump = frozenset(data.draw(st.lists(st.sampled_from(names), unique=True)) if names else [])
    base, _ = render(module)
    head, edits = render(module, bump)
    changes = changed_symbols(base, head)
    assert {c.qualname for c in changes} == {q for q, n in edits.items() if n}
    assert all(c.change == "changed" and c.head_lines and c.base_lines for c in changes)
    heads = symbols(head)
    assert all(heads[c.qualname] == (c.kind, c.head_lines) for c in changes)


@analysis
@given(modules, modules)
def test_the_two_directions_of_a_diff_mirror_each_other(one, other):
    a, b = render(one)[0], render(other)[0]
    forward = {c.qualname: c for c in changed_symbols(a, b)}
    backward = {c.qualname: c for c in changed_symbols(b, a)}
    assert forward.keys() == backward.keys()
    mirror = {"added": "deleted", "deleted": "added", "changed": "changed"}
    for q, c in forward.items():
        back = backward[q]
        assert (back.change, back.head_lines, back.base_lines) == (mirror[c.change], c.base_lines, c.head_lines)


@analysis
@given(modules)
def test_an_added_file_adds_every_symbol_and_a_deleted_one_deletes_them(module):
    source, _ = render(module)
    added = changed_symbols(None, source)
    assert {c.qualname for c in added} == set(symbols(source))
    assert {c.change for c in added} == {"added"}
    assert [(c.qualname, "deleted") for c in changed_symbols(source, None)] == [(c.qualname, "deleted") for c in added]


@analysis
@given(modules, st.lists(st.tuples(st.integers(0, 400), st.sampled_from(["# note", "", "    # x = 1  (a comment)"])),
                          max_size=8), st.booleans())
def test_comments_and_whitespace_change_nothing(module, inserts, squeeze):
    source, _ = render(module)
    lines = source.splitlines()
    for at, text in sorted(inserts, reverse=True):
        lines.insert(min(at, len(lines)), text)
    edited = "\n".join(line + "   " for line in lines) + "\n"
    if squeeze:
        edited = edited.replace(" + ", "+").replace(", y=0", ",y = 0")
    assert changed_symbols(source, edited) == ()


@analysis
@given(modules, st.permutations(range(5)))
def test_reordering_definitions_changes_nothing(module, order):
    items = unique(module)
    shuffled = [items[i] for i in order if i < len(items)]
    assert changed_symbols(render(items)[0], render(shuffled)[0]) == ()


def code_objects(code: types.CodeType, owner: str, is_class: bool):
    """(co_firstlineno, co_name, qualname) of every code object nested in `code`, the qualname
    derived from the compiled code tree alone."""
    for const in code.co_consts:
        if not isinstance(const, types.CodeType):
            continue
        if const.co_name.startswith("<"):
            yield const.co_firstlineno, const.co_name, owner
            yield from code_objects(const, owner, False)
            continue
        if owner == MODULE:
            q = const.co_name
        else:
            q = f"{owner}.{const.co_name}" if is_class else f"{owner}.<locals>.{const.co_name}"
        yield const.co_firstlineno, const.co_name, q
        yield from code_objects(const, q, not const.co_flags & inspect.CO_NEWLOCALS)


@analysis
@given(modules)
def test_every_compiled_code_object_maps_to_its_qualname(module):
    source, _ = render(module)
    module_code = compile(source, "generated.py", "exec")
    assert symbol_for_code(source, module_code.co_firstlineno, module_code.co_name) == MODULE
    found = list(code_objects(module_code, MODULE, False))
    assert len(found) >= 2  # the header's two decorators at least
    for firstlineno, name, expected in found:
        assert symbol_for_code(source, firstlineno, name) == expected


# A module of constants, each a literal plus some earlier constants: C3 = 7 + C0 + C2.
constant_modules = st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 9), min_size=n, max_size=n),
    st.tuples(*[st.sets(st.integers(0, i - 1), max_size=3) if i else st.just(frozenset()) for i in range(n)])))


def constants(values, reads) -> str:
    return "".join(f"C{i} = {v}" + "".join(f" + C{j}" for j in sorted(reads[i])) + "\n" for i, v in enumerate(values))


@analysis
@given(constant_modules, st.data())
def test_a_constant_changes_exactly_when_it_or_something_it_reads_changes(module, data):
    values, reads = module
    edited = data.draw(st.sets(st.integers(0, len(values) - 1)))
    head = [v + 1 if i in edited else v for i, v in enumerate(values)]
    downstream = set(edited)
    for i in range(len(values)):  # reads point to earlier constants only
        if reads[i] & downstream:
            downstream.add(i)
    assert changed_data(constants(values, reads), constants(head, reads)) == {f"C{i}" for i in downstream}
    assert changed_data(constants(values, reads), constants(values, reads)) == frozenset()
