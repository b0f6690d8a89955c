"""Laws of region suggestions and of the BUILD edits that apply them: deterministic, monotone in
the evidence, indifferent to input order, and the edits round-trip (applied to the targets as
data, every file gets exactly its suggested kind, and a second run has nothing left to do)."""
from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.regions import (
    DEFAULT_RULES,
    PRECEDENCE,
    RANK,
    Generator,
    RegionConfig,
    TargetFacts,
    apply_edits,
    build_edits,
    imports_of_source,
    effective_kinds,
    render_edits,
    suggest,
    suggest_all,
)

# Names that hit rules (patterns, their children) and names that hit none.
rule_names = st.sampled_from(sorted({r.pattern.rstrip("*") + ("2" if r.pattern.endswith("*") else "")
                                     for r in DEFAULT_RULES}))
plain_names = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6}){0,2}", fullmatch=True)
child = st.builds(lambda a, b: f"{a}.{b}", rule_names, st.from_regex(r"[a-z]{1,5}", fullmatch=True))
names = st.one_of(rule_names, plain_names, child)
file_names = st.sampled_from(["mod.py", "models.py", "types.py", "api_pb2.py", "schema.py", "util.py",
                              "api.proto", "data.json", "event.schema.json", "logo.svg"])
facts = st.builds(lambda imports, name, util: TargetFacts("src/p:p", f"src/p/{name}", frozenset(imports), util),
                  st.lists(names, max_size=8), file_names, st.booleans())


@given(facts)
def test_suggestion_is_deterministic_and_one_line(f):
    a, b = suggest(f), suggest(TargetFacts(f.address, f.path, frozenset(sorted(f.imports)), f.test_util))
    assert a == b
    assert a.kind in PRECEDENCE and a.reason and "\n" not in a.reason


@given(facts, names)
def test_adding_an_import_never_lowers_the_kind(f, extra):
    before = suggest(f).kind
    after = suggest(TargetFacts(f.address, f.path, f.imports | {extra}, f.test_util)).kind
    assert RANK[after] >= RANK[before]
    # and the kind is at least the kind the added import is evidence of
    alone = suggest(TargetFacts(f.address, "src/p/plain.py", frozenset({extra}))).kind
    assert RANK[after] >= RANK[alone]


@given(st.lists(facts, max_size=6), st.randoms(use_true_random=False))
def test_suggestions_ignore_input_order(fs, rnd):
    fs = [TargetFacts(f"src/p{i}:p", f.path, f.imports, f.test_util) for i, f in enumerate(fs)]
    shuffled = list(fs)
    rnd.shuffle(shuffled)
    assert suggest_all(shuffled) == suggest_all(fs)


# -- BUILD edits ----------------------------------------------------------------------------------
dirs = st.sampled_from(["", "src", "src/a", "src/a/x", "src/a/y", "src/b", "tests", "tests/a"])
kinds = st.sampled_from(PRECEDENCE)
optional_kind = st.one_of(st.none(), kinds)


@st.composite
def generators(draw):
    out = []
    for i, directory in enumerate(draw(st.lists(dirs, min_size=1, max_size=6))):
        shape = draw(st.sampled_from(["sources", "test_utils", "single"]))
        if shape == "single":
            files = ((f"f{i}.py", draw(kinds)),)
            out.append(Generator(directory, f"t{i}", "python_source", files, accepts_overrides=False))
            continue
        n = draw(st.integers(1, 5))
        files = tuple((f"m{j}.py", draw(kinds)) for j in range(n))
        if shape == "sources":
            out.append(Generator(directory, f"t{i}", "python_sources", files))
        else:
            out.append(Generator(directory, f"t{i}", "python_test_utils", files,
                                 field_on_generator=False, reached_by_defaults=False))
    return out


@st.composite
def existing_configs(draw, gens):
    defaults = {d: draw(kinds) for d in draw(st.lists(dirs, max_size=3))}
    fields = {g.address: draw(kinds) for g in gens if g.field_on_generator and draw(st.booleans())}
    overrides = {(g.address, f): draw(kinds) for g in gens if g.accepts_overrides
                 for f, _ in g.files if draw(st.integers(0, 3)) == 0}
    return RegionConfig.of(defaults, fields, overrides)


def wanted(gens):
    return {(g.address, f): k for g in gens for f, k in g.files}


@given(st.data())
def test_edits_round_trip_and_leave_nothing_to_do(data):
    gens = data.draw(generators())
    existing = data.draw(existing_configs(gens))
    edits = build_edits(gens, existing)
    after = apply_edits(existing, edits)
    assert effective_kinds(after, gens) == wanted(gens)
    assert build_edits(gens, after) == []
    rendered = render_edits(edits)
    assert sorted(rendered) == sorted({e.build_file for e in edits})


@given(st.data())
def test_edits_are_no_longer_than_one_override_per_wrong_file(data):
    # The obvious fix (set every wrongly-kinded file's override, or a single target's field) is
    # always available; the plan is never longer, and a right configuration needs no edit.
    gens = data.draw(generators())
    existing = data.draw(existing_configs(gens))
    now = effective_kinds(existing, gens)
    wrong = sum(1 for key, kind in wanted(gens).items() if now[key] != kind)
    assert len(build_edits(gens, existing)) <= wrong


@given(st.data(), st.randoms(use_true_random=False))
def test_edits_ignore_input_order(data, rnd):
    gens = data.draw(generators())
    existing = data.draw(existing_configs(gens))
    shuffled = [Generator(g.directory, g.name, g.alias, tuple(rnd.sample(g.files, len(g.files))),
                          g.field_on_generator, g.reached_by_defaults, g.accepts_overrides) for g in gens]
    rnd.shuffle(shuffled)
    assert build_edits(shuffled, existing) == build_edits(gens, existing)
    assert render_edits(build_edits(shuffled, existing)) == render_edits(build_edits(gens, existing))


# -- import extraction ----------------------------------------------------------------------------
dotted = st.from_regex(r"[a-z][a-z0-9]{0,4}(\.[a-z][a-z0-9]{0,4}){0,2}", fullmatch=True)
ident = st.from_regex(r"[a-z][a-z0-9]{0,4}", fullmatch=True)
statement = st.one_of(
    st.builds(lambda m, a: f"import {m}" + (f" as {a}" if a else ""), dotted, st.one_of(st.none(), ident)),
    st.builds(lambda dots, m, ns: f"from {'.' * dots}{m} import ({', '.join(ns)},)",
              st.integers(0, 2), dotted, st.lists(ident, min_size=1, max_size=3)),
    st.builds(lambda a, b: f"{a}.{b}(1)", ident, ident),
    st.builds(lambda a, b: f"if {a}:\n    import {b}\n    {b}.x = 1", ident, dotted),
)


@given(st.lists(statement, max_size=8), st.one_of(st.none(), dotted), st.booleans())
def test_token_scan_agrees_with_the_parser(lines, module, is_package):
    source = "\n".join(lines) + "\n"
    unparsable = source + "y = 1 +* 2\n"  # no Python parses this: the token scan reads it
    assert imports_of_source(unparsable, module, is_package) == imports_of_source(source, module, is_package)
