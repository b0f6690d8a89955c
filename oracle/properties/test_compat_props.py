"""Laws of the newer-syntax downgrade (`match`/`case`, `except*` parsed by Pants' Python 3.9): every
line stays where it was, lines that are not such headers stay byte for byte, the result parses,
a downgraded source needs no further downgrade, and an edit inside a pattern or a guard is still
a changed symbol."""
import ast
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_gate.core.source.compat import downgrade
from oracle_gate.core.source.symbols import changed_symbols, parse

analysis = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

PATTERNS = ['"a"', '"a" | "b"', "[x, *rest]", '{"k": v}', "Point(x=0, y=0)", "Point(x=0,\n                 y=1)",
            "(1, 2)", "str() | bytes()", "_", "Color.RED", "0 | 1 if y"]
GUARDS = ["", " if x > 1", " if (x and\n                y)"]
SUBJECTS = ["x", "x, y", "(x,\n           y)", "self.value", "match"]


@st.composite
def functions(draw):
    cases = draw(st.lists(st.tuples(st.sampled_from(PATTERNS), st.sampled_from(GUARDS),
                                    st.integers(0, 9)), min_size=1, max_size=4))
    subject = draw(st.sampled_from(SUBJECTS))
    star = draw(st.booleans())
    lines = ["def f(x, y, match=None):", "    # a comment mentioning match x: and case y:"]
    lines.append(f"    match {subject}:")
    for pattern, guard, value in cases:
        if pattern.endswith(" if y"):
            pattern, guard = pattern[: -len(" if y")], " if y"
        lines += [f"        case {pattern}{guard}:", f"            return {value}"]
    lines += ["    try:", "        pass", f"    except{'*' if star else ''} ValueError:", "        pass",
              "    match = {'case': 1}", "    return match"]
    return "\n".join(lines) + "\n"


@analysis
@given(functions())
def test_every_line_stays_where_it_was_and_the_rest_is_untouched(source):
    out = downgrade(source)
    assert out is not None
    before, after = source.splitlines(), out.splitlines()
    assert len(before) == len(after)
    header = set()  # every physical line of a header, from its keyword to its colon
    for i, line in enumerate(before):
        stripped = line.lstrip()
        if stripped.startswith(("match ", "case ", "except*")) and not stripped.startswith("match ="):
            j = i
            while not before[j].rstrip().endswith(":"):
                j += 1
            header.update(range(i, j + 1))
    for i, (a, b) in enumerate(zip(before, after)):
        if i not in header:
            assert a == b
    ast.parse(out)
    assert parse(source) is not None
    assert downgrade(out) is None  # idempotent: nothing left to downgrade


@analysis
@given(functions(), st.data())
def test_an_edit_inside_a_pattern_or_a_guard_changes_the_function(source, data):
    pieces = [p for p in ('"a"', "x > 1", "Point(x=0", "rest") if p in source]
    if sys.version_info >= (3, 10) or not pieces:
        return  # the interpreter parses it natively: nothing of ours to check
    piece = data.draw(st.sampled_from(pieces))
    edited = source.replace(piece, piece.replace("a", "b").replace("1", "2").replace("0", "9")
                            .replace("rest", "tail"), 1)
    assert [(c.qualname, c.change) for c in changed_symbols(source, edited)] == [("f", "changed")]
    assert not changed_symbols(source, source)
