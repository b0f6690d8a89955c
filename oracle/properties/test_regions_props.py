"""Laws of region suggestions and of the region table that applies them: deterministic, monotone
in the evidence, indifferent to input order, and the table round-trips (every path resolves to its
suggested kind, reviewed entries survive, and a second run has nothing left to add)."""
from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.lanes.regions import (DEFAULT_RULES, PRECEDENCE, RANK, TargetFacts, imports_of_source, suggest,
                                            suggest_all, table_from_suggestions, table_key_error, table_region)

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


# -- the region table ---------------------------------------------------------------------------------
dirs = st.sampled_from(["", "src", "src/a", "src/a/x", "src/a/y", "src/b", "tests", "tests/a"])
kinds = st.sampled_from(PRECEDENCE)
paths = st.builds(lambda d, i: f"{d}/m{i}.py" if d else f"m{i}.py", dirs, st.integers(0, 4))
reviewed = st.dictionaries(st.sampled_from(["**", "src/**", "src/a/**", "tests/**", "src/a/m1.py"]), kinds)


@given(st.dictionaries(paths, kinds), reviewed)
def test_a_table_gives_every_suggested_path_its_kind_keeps_reviewed_entries_and_is_idempotent(suggested, existing):
    table = table_from_suggestions(suggested, existing)
    assert all(table_key_error(k, v) is None for k, v in table.items())
    assert {k: table[k] for k in existing} == existing  # reviewed entries survive
    for path, kind in suggested.items():  # decided by the reviewed entries, or given its suggestion
        assert table_region(table, path) == (table_region(existing, path) or kind)
    assert table_from_suggestions(suggested, table) == table
    # Never longer than the obvious table (every undecided path its own entry).
    assert len(table) - len(existing) <= sum(1 for p in suggested if table_region(existing, p) is None)


@given(st.dictionaries(paths, kinds), reviewed, st.randoms(use_true_random=False))
def test_a_table_ignores_input_order(suggested, existing, rnd):
    items = list(suggested.items())
    rnd.shuffle(items)
    assert table_from_suggestions(dict(items), existing) == table_from_suggestions(suggested, existing)


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

