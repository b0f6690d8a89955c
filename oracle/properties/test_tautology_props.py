"""Laws of the tautology check over generated property files: honest properties (they draw
inputs, call production code and assert on both) give no finding under any import spelling, and
each way of making one unable to fail is found on that property and only there."""
from typing import List, NamedTuple, Optional, Tuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_gate.core.ladder.tautology import tautology_findings

# Each example parses and analyses generated source (~20 ms alone, 10x that on a loaded 2-core
# machine running tests in parallel): a timing deadline or the slow-generation check would fail
# runs at random, never a law.
analysis = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

PRODUCTION = {"pkg.calc": (
    "def scale(x, k):\n    return x * k + 1\n\n\n"
    "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n\n\n"
    "def total(xs):\n    return sum(xs)\n")}
# (imports, given, strategies prefix)
SPELLINGS = [
    ("from hypothesis import given, strategies as st", "given", "st."),
    ("import hypothesis\nimport hypothesis.strategies as hs", "hypothesis.given", "hs."),
    ("from hypothesis import given as prop\nfrom hypothesis.strategies import integers, just, sampled_from, none",
     "prop", ""),
]
CALC_IMPORTS = ["from pkg.calc import scale, clamp, total", "import pkg.calc as calc", "from pkg import calc"]
# Honest bodies over the inputs a, b, and the same bodies with the inputs replaced by constants.
BODIES = [
    (["assert scale(a, 0) == 1"], ["assert scale(7, 0) == 1"]),
    (["assert clamp(a, -5, 5) <= 5"], ["assert clamp(7, -5, 5) <= 5"]),
    (["assert total([a, b]) == a + b"], ["assert total([7, 8]) == 15"]),
    (["lo, hi = sorted((a, b))", "assert lo <= clamp(a, lo, hi) <= hi"],
     ["lo, hi = sorted((7, 8))", "assert lo <= clamp(7, lo, hi) <= hi"]),
    (["result = scale(a, b)", "assert result - 1 == a * b"], ["result = scale(7, 8)", "assert result - 1 == 56"]),
    (["values = [a]", "values.append(b)", "assert total(values) - b == a"],
     ["values = [7]", "values.append(8)", "assert total(values) - 8 == 7"]),
]
WIDE = ["{S}integers()", "{S}integers(-100, 100)", "{S}integers(min_value=0)", "small", "{S}sampled_from([1, 2, 3])"]
NARROW = ["{S}just(3)", "{S}integers(4, 4)", "{S}sampled_from([1])", "{S}integers(min_value=2, max_value=2)"]
CONSTANT = ["assert True", "assert (a, 'the sum holds')", "assert scale(a, b) == scale(a, b)", "assert 2 > 1"]


class Prop(NamedTuple):
    body: int
    strategies: Tuple[int, int]


props = st.lists(st.builds(Prop, st.integers(0, len(BODIES) - 1),
                           st.tuples(st.integers(0, len(WIDE) - 1), st.integers(0, len(WIDE) - 1))),
                 min_size=1, max_size=4)


def render(ps: List[Prop], spelling: int, calc: int, target: Optional[int] = None, mutate=None) -> str:
    """`mutate(lines, strategies)` rewrites property `target`'s body lines and strategy texts."""
    imports, given_name, s = SPELLINGS[spelling]
    lines = imports.splitlines() + [CALC_IMPORTS[calc], "", f"small = {s}integers(-9, 9)", ""]
    for i, p in enumerate(ps):
        body = list(BODIES[p.body][0])
        strategies = [WIDE[j] for j in p.strategies]
        if i == target and mutate is not None:
            body, strategies = mutate(body, strategies)
        if calc:
            body = [line.replace("scale(", "calc.scale(").replace("clamp(", "calc.clamp(")
                    .replace("total(", "calc.total(") for line in body]
        lines += ["", f"@{given_name}({', '.join(x.format(S=s) for x in strategies)})", f"def test_law_{i}(a, b):"]
        lines += [f"    {line}" for line in body]
    return "\n".join(lines) + "\n"


spellings = st.integers(0, len(SPELLINGS) - 1)
calcs = st.integers(0, len(CALC_IMPORTS) - 1)


def findings_by_test(source: str):
    out = {}
    for f in tautology_findings(source, PRODUCTION):
        out.setdefault(f.test, set()).add(f.why.split(":")[0])
    return out


@analysis
@given(props, spellings, calcs, st.sets(st.sampled_from(["pkg.calc.scale", "pkg.calc.clamp", "pkg.calc.total"])))
def test_honest_properties_have_no_findings(ps, spelling, calc, diff_code):
    # whatever the diff changed: each honest law compares its function with inputs, not with other code
    assert tautology_findings(render(ps, spelling, calc), PRODUCTION, frozenset(diff_code)) == ()


def check_only(ps, spelling, calc, target, mutate, category):
    found = findings_by_test(render(ps, spelling, calc, target, mutate))
    assert set(found) == {f"test_law_{target}"}
    assert category in found[f"test_law_{target}"]


@analysis
@given(props, spellings, calcs, st.sampled_from(CONSTANT), st.data())
def test_a_constant_assertion_is_found(ps, spelling, calc, constant, data):
    target = data.draw(st.integers(0, len(ps) - 1))
    check_only(ps, spelling, calc, target, lambda body, sts: (body[:-1] + [constant], sts), "constant assertion")


@analysis
@given(props, spellings, calcs, st.sampled_from(NARROW), st.integers(0, 1), st.data())
def test_a_narrowed_strategy_is_found(ps, spelling, calc, narrow, which, data):
    target = data.draw(st.integers(0, len(ps) - 1))

    def mutate(body, sts):
        sts = list(sts)
        sts[which] = narrow
        return body, sts

    check_only(ps, spelling, calc, target, mutate, "narrowed strategy")


@analysis
@given(props, spellings, calcs, st.data())
def test_assertions_that_drop_the_inputs_are_found(ps, spelling, calc, data):
    target = data.draw(st.integers(0, len(ps) - 1))

    def mutate(body, sts):
        return list(BODIES[ps[target].body][1]), sts

    check_only(ps, spelling, calc, target, mutate, "ignores its inputs")


@analysis
@given(props, spellings, st.data())
def test_a_property_calling_no_production_code_is_found(ps, spelling, data):
    target = data.draw(st.integers(0, len(ps) - 1))

    def mutate(body, sts):
        return [line.replace("scale(", "pow(").replace("clamp(", "max(").replace("total(", "sum(") for line in body], sts

    check_only(ps, spelling, 0, target, mutate, "calls no production code")


MEMBERS = ["pkg.calc.scale", "pkg.calc.clamp", "pkg.calc.total"]


@analysis
@given(props, spellings, calcs, st.sets(st.sampled_from(MEMBERS)), st.data())
def test_an_oracle_judging_diff_code_by_other_diff_code_is_found_exactly_then(ps, spelling, calc, diff_code, data):
    target = data.draw(st.integers(0, len(ps) - 1))
    source = render(ps, spelling, calc, target, lambda body, strategies: (["assert scale(a, b) == total([a, b])"],
                                                                           strategies))
    found = {f.test for f in tautology_findings(source, PRODUCTION, frozenset(diff_code))
             if f.why.startswith("judges code by code")}
    both = {"pkg.calc.scale", "pkg.calc.total"} <= diff_code
    assert found == ({f"test_law_{target}"} if both else set())  # a law over one function is never one
