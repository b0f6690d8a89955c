"""Laws of Facts, the build graph of one tree: they round-trip through JSON (the base's are kept on
disk), `make_facts` is canonical (the order the engine lists things in is irrelevant), the graph
queries are monotone in the edge set and agree with an independent walk, and a malformed document
is a FactsError, never a traceback."""
import json

from hypothesis import given
from hypothesis import strategies as st

from facts_strategies import Tree, trees  # pants: no-infer-dep
from oracle_gate.core.classes import OracleClass
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.facts import Facts, FactsError, make_facts

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)


@given(trees(), st.dictionaries(st.text(max_size=8), json_values, max_size=3),
       st.dictionaries(st.text(max_size=8), st.text(max_size=12), max_size=3),
       st.one_of(st.none(), st.text("0123456789abcdef", min_size=40, max_size=40)))
def test_facts_round_trip_through_json(tree, options, texts, commit):
    f = tree.facts(commit)
    f = make_facts(f.targets, dict(f.dependents), {**f.option_map, **options}, {**f.text_map, **texts}, commit, "2.17.1")
    text = f.dumps()
    again = Facts.loads(text)
    assert again == f
    assert again.dumps() == text
    # the derived indexes are the same on both sides (they are not serialised, but rebuilt)
    assert again.by_path == f.by_path and again.locked_tests() == f.locked_tests()


@given(trees(), st.randoms(use_true_random=False))
def test_make_facts_is_canonical(tree, rnd):
    f = tree.facts()
    targets = list(f.targets)
    rnd.shuffle(targets)
    deps = [(k, list(v) + list(v[:1])) for k, v in f.dependents]  # a repeated edge is one edge
    rnd.shuffle(deps)
    for _, users in deps:
        rnd.shuffle(users)
    options = list(f.option_map.items())
    rnd.shuffle(options)
    texts = list(f.text_map.items())
    rnd.shuffle(texts)
    g = make_facts(targets, dict(deps + [("orphan", [])]), dict(options), dict(texts))
    assert g == f and g.dumps() == f.dumps()


@given(trees(), st.data())
def test_transitive_dependents_are_monotone_in_the_edge_set(tree, data):
    nodes = sorted(tree.addresses())
    extra = data.draw(st.sets(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)), max_size=4))
    roots = data.draw(st.sets(st.sampled_from(nodes), max_size=3))
    fewer = tree.facts()
    more_tree = tree.copy()
    more_tree.edges |= extra
    more = more_tree.facts()
    assert fewer.transitive_dependents(roots) <= more.transitive_dependents(roots)
    assert not set(roots) & (more.transitive_dependents(roots) | more.closure(roots))  # (cycles included)
    assert fewer.closure(roots) <= more.closure(roots)
    assert fewer.locked_tests() <= more.locked_tests()


@given(trees())
def test_covering_tests_are_exactly_the_tests_that_reach_a_target(tree):
    f = tree.facts()
    tests = {t.address for t in f.targets if t.is_test}
    for t in f.targets:
        covering = {c.address for c in f.covering_tests(t.address)}
        assert covering <= tests
        assert covering == f.transitive_dependents([t.address]) & tests
        if t.address in tree.production:
            assert covering == tree.covering(t.address)


@given(trees())
def test_locked_tests_are_exactly_the_tests_reaching_a_fixture(tree):
    f = tree.facts()
    assert f.locked_tests() == frozenset(tree.locked())
    for path in tree.tests:
        expected = tree.oracle_class(path)
        assert f.oracle_class(path) is OracleClass(expected)
    assert all(f.oracle_class(t.address) is None for t in f.targets if not t.is_test)


@given(trees(), st.data())
def test_closure_and_dependents_are_converse(tree, data):
    f = tree.facts()
    nodes = sorted({t.address for t in f.targets})
    a, b = data.draw(st.sampled_from(nodes)), data.draw(st.sampled_from(nodes))
    if a != b:
        assert (b in f.closure([a])) == (a in f.transitive_dependents([b]))


@given(trees())
def test_the_oracle_closure_is_what_some_p_or_l_oracle_depends_on(tree):
    f = tree.facts()
    judges = tree.judges()
    expected = {t.address for t in f.targets if f.transitive_dependents([t.address]) & judges}
    assert f.oracle_closure() == frozenset(expected)


@given(trees())
def test_every_owned_path_maps_to_its_file_targets_and_never_to_a_generator(tree):
    f = tree.facts()
    for path, owners in f.by_path.items():
        assert owners and all(path in t.paths and t.role != F.GENERATOR for t in owners)
    for path in list(tree.production) + list(tree.tests):
        assert [t.address for t in f.owners(path)] == [path]


DOCUMENT_KEYS = ("format", "version", "commit", "pants_version", "targets", "dependents", "options", "texts")
TARGET_KEYS = ("address", "alias", "role", "paths", "region", "tags", "skip", "fields", "sha256", "min_examples",
               "governs", "entry_point")


@given(trees(), st.sampled_from(DOCUMENT_KEYS + tuple("target." + k for k in TARGET_KEYS)), st.booleans(), json_values)
def test_a_corrupted_document_loads_or_is_a_facts_error(tree, key, delete, value):
    # a cached base-facts file is read back from disk: any damage must be a FactsError (the gate then
    # rebuilds the base facts), never a traceback
    doc = tree.facts().to_json()
    where, _, name = key.rpartition(".")
    holder = doc["targets"][0] if where else doc
    if delete:
        holder.pop(name, None)
    else:
        holder[name] = value
    try:
        Facts.loads(json.dumps(doc))
    except FactsError as e:
        assert "\n" not in str(e)


@given(json_values)
def test_any_json_value_loads_or_is_a_facts_error(doc):
    try:
        Facts.loads(json.dumps(doc))
    except FactsError as e:
        assert "\n" not in str(e)


def test_tree_strategy_builds_every_role():
    # the strategy's own sanity: a tree with one of everything gives one fact per role used
    tree = Tree({"src/pkg/m0.py": "pure"}, {"tests/test_0.py": F.TEST, "oracle/properties/test_0_props.py": F.PROPERTY},
                {"oracle/fixtures:f0": "0" * 64}, {"tests/conftest.py:test_utils": "tests/conftest.py"},
                {("src/pkg/m0.py", "tests/test_0.py"), ("oracle/fixtures:f0", "tests/test_0.py")})
    roles = {t.role for t in tree.facts().targets}
    assert roles == {F.PRODUCTION, F.TEST, F.PROPERTY, F.LOCKED_FIXTURE, F.TEST_UTIL, F.FREEZE_LEDGER, F.GENERATOR}
