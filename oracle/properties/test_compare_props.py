"""Laws of the base-versus-head comparison. A head is derived from a generated base tree by an edit
whose effect is known; the comparison must report every weakening, whatever mechanism made it
(a BUILD value, a reclassification, a deleted, skipped, un-owned or disconnected oracle, a lost
class, the head's configuration), and must report nothing when nothing was weakened (an unchanged
tree, a refactor, a stronger region, a new oracle, documentation). The write-set rule holds in the
agent lane and never in the human lane, and demotion reaches exactly the changed class-E tests."""
from hypothesis import assume, given
from hypothesis import strategies as st

from facts_strategies import FLOOR_RANK, JUDGE_OPTIONS, KINDS, LEDGER_PATH, Tree, option_values, trees  # pants: no-infer-dep
from oracle_gate.core.classes import RegionKind
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.compare import AGENT, HARMLESS_OPTIONS, HUMAN, Change, Policy, compare, config_file_changes
from oracle_gate.core.lanes.facts import Facts

RANKS = ("FLAG", "ENVIRONMENT", "CONFIG", "HARDCODED", "NONE")


def judge(base: Tree, head: Tree, changes=(), lane=AGENT, **kw):
    return compare(base.facts(), head.facts(), list(changes), Policy(lane=lane), **kw)


def paths_of(comp, code):
    return {f.path for f in comp.findings if f.code == code}


def build_file(path):
    return Change(path.rsplit("/", 1)[0] + "/BUILD", "M")


def lower_kinds(kind):
    return [k for k in KINDS + (None,) if FLOOR_RANK[k] < FLOOR_RANK[kind]]


def higher_kinds(kind):
    return [k for k in KINDS if FLOOR_RANK[k] > FLOOR_RANK[kind]]


def e_tests(tree):
    return sorted(t for t in tree.tests if tree.oracle_class(t) == "E")


def with_new_test(tree, data, path, role):
    """The head: `tree` plus a test target that imports some of its production files."""
    head = tree.copy()
    head.tests[path] = role
    head.edges |= {(p, path) for p in data.draw(st.sets(st.sampled_from(sorted(tree.production)), min_size=1))}
    return head


@st.composite
def covered(draw, tree):
    """A production file and a live P or L oracle that covers it (made so in the base)."""
    p = draw(st.sampled_from(sorted(tree.production)))
    o = draw(st.sampled_from(sorted(t for t, role in tree.tests.items() if role in (F.PROPERTY, F.TEST))))
    tree.edges.add((p, o))
    tree.skip.discard(o)
    if tree.tests[o] == F.TEST:
        tree.edges.add((draw(st.sampled_from(sorted(tree.fixtures))), o))
    assert tree.oracle_class(o) in ("P", "L")
    return p, o


# -- nothing weakened, nothing reported -------------------------------------------------------------

@given(trees())
def test_an_unchanged_tree_reports_nothing(tree):
    base = tree.facts()
    for head in (base, tree.copy().facts(), Facts.loads(base.dumps())):
        comp = compare(base, head, [], Policy())
        assert comp.findings == () and comp.regions == () and comp.oracle_changes == ()
        assert comp.demoted == () and comp.changes == () and comp.new_tests == ()


@given(trees(), st.data())
def test_a_refactor_of_production_files_reports_nothing_but_its_regions(tree, data):
    touched = data.draw(st.sets(st.sampled_from(sorted(tree.production)), min_size=1))
    comp = judge(tree, tree, [Change(p, "M") for p in sorted(touched)])
    assert comp.findings == ()
    assert {(r.path, r.status) for r in comp.regions} == {(p, "changed") for p in touched}
    assert comp.oracle_changes == () and comp.demoted == ()
    assert all(c.lanes == ("production",) for c in comp.changes)


@given(trees(), st.data())
def test_deleting_a_production_file_alone_reports_nothing_but_its_region(tree, data):
    p = data.draw(st.sampled_from(sorted(tree.production)))
    head = tree.copy()
    head.remove(p)
    comp = judge(tree, head, [Change(p, "D")])
    assert comp.findings == ()
    (region,) = comp.regions
    assert (region.path, region.status, region.kind) == (p, "deleted", tree.production[p])
    judges = {t for t in tree.covering(p) if tree.oracle_class(t) in ("P", "L")}
    assert judges - tree.skip <= set(region.base_oracles) <= judges  # what must still be there and pass


@given(trees(), st.data())
def test_raising_a_region_kind_is_no_policy_failure(tree, data):
    p = data.draw(st.sampled_from(sorted(tree.production)))
    tree.production[p] = data.draw(st.sampled_from([k for k in KINDS + (None,) if higher_kinds(k)]))
    head = tree.copy()
    head.production[p] = data.draw(st.sampled_from(higher_kinds(tree.production[p])))
    changes = data.draw(st.sampled_from([[build_file(p)], [Change(p, "M")], [Change(p, "M"), build_file(p)]]))
    comp = judge(tree, head, changes)
    assert comp.findings == ()
    (region,) = comp.regions
    assert (region.path, region.kind, region.head_kind) == (p, tree.production[p], head.production[p])


@given(trees(), st.data())
def test_a_new_property_alone_is_no_policy_failure(tree, data):
    new = "oracle/properties/test_new_props.py"
    head = with_new_test(tree, data, new, F.PROPERTY)
    plumbing = sorted(set(tree.fixtures) | set(tree.utils))
    if plumbing:  # a property stays class P whatever it reads
        head.edges |= {(x, new) for x in data.draw(st.sets(st.sampled_from(plumbing)))}
    comp = judge(tree, head, [Change(new, "A")])
    assert comp.findings == ()
    assert comp.new_tests == (new,)
    assert [(o.path, o.what, o.additive) for o in comp.oracle_changes] == [(new, "added", True)]


@given(trees(), st.data())
def test_a_new_class_e_test_alone_is_no_policy_failure(tree, data):
    new = "tests/test_new.py"
    head = with_new_test(tree, data, new, F.TEST)
    assert head.oracle_class(new) == "E"
    comp = judge(tree, head, [Change(new, "A")])
    assert comp.findings == () and comp.oracle_changes == () and comp.demoted == ()
    assert comp.new_tests == (new,) and comp.lane_paths("test") == [new]


@given(trees(), st.sets(st.sampled_from(["README.md", "docs/guide.rst", "CHANGELOG.md", "src/pkg/NOTES.md"]), min_size=1))
def test_documentation_alone_is_no_policy_failure(tree, docs):
    comp = judge(tree, tree, [Change(d, "M") for d in sorted(docs)])
    assert comp.findings == () and comp.regions == ()
    assert comp.lane_paths("other") == sorted(docs)


@given(trees(), st.sampled_from(["src/pkg/NOTES.txt", "src/pkg/rates.csv", "src/pkg/data/table.json"]))
def test_an_unowned_data_file_beside_code_is_never_documentation(tree, path):
    # production code can read it at run time and no test's sandbox has it: fail closed
    comp = judge(tree, tree, [Change(path, "M")])
    assert [(f.code, f.path) for f in comp.findings] == [("UNMAPPED", path)]


# -- every weakening is reported ------------------------------------------------------------------------

@given(trees(), st.data())
def test_lowering_a_region_kind_is_a_downgrade(tree, data):
    p = data.draw(st.sampled_from(sorted(tree.production)))
    tree.production[p] = data.draw(st.sampled_from(KINDS))
    head = tree.copy()
    head.production[p] = data.draw(st.sampled_from(lower_kinds(tree.production[p])))
    # a literal, a variable, a parent __defaults__: all that reaches the judge is the evaluated value
    changes = data.draw(st.sampled_from([[], [build_file(p)], [Change("BUILD", "M")], [Change(p, "M")]]))
    comp = judge(tree, head, changes)
    assert paths_of(comp, "REGION_DOWNGRADE") == {p}
    region = next(r for r in comp.regions if r.path == p)
    assert region.kind == tree.production[p] and region.head_kind == head.production[p]
    assert region.required == RegionKind(tree.production[p]).floor.value  # the base's floor judges


@given(trees(), st.data(), st.sampled_from(["test", "test_util", "nothing"]))
def test_a_production_file_that_is_no_longer_production_is_a_downgrade(tree, data, becomes):
    p = data.draw(st.sampled_from(sorted(tree.production)))
    head = tree.copy()
    head.remove(p)
    if becomes == "test":
        head.tests[p] = F.TEST
    elif becomes == "test_util":
        head.utils[p + ":utils"] = p
    changes = data.draw(st.sampled_from([[build_file(p)], [build_file(p), Change(p, "M")]]))
    comp = judge(tree, head, changes)
    assert p in paths_of(comp, "REGION_DOWNGRADE")
    region = next(r for r in comp.regions if r.path == p)
    assert region.status == "reclassified" and region.kind == tree.production[p]


@given(trees(min_properties=1, min_fixtures=1), st.data(), st.sampled_from(["M", "D"]))
def test_losing_a_p_or_l_oracle_of_a_changed_or_deleted_region_is_reported(tree, data, region_change):
    p, o = data.draw(covered(tree))
    head = tree.copy()
    changes = [Change(p, region_change)]
    if region_change == "D":  # deleted code is judged by the oracles it had: they must still be there
        head.remove(p)
    how = data.draw(st.sampled_from(["delete", "skip", "unown"] + (["drop_edges"] if region_change == "M" else [])))
    if how == "delete":
        head.remove(o)
        changes.append(Change(o, "D"))
    elif how == "unown":
        head.remove(o)
        changes.append(build_file(o))
    elif how == "skip":
        head.skip.add(o)
    else:
        head.edges = {(d, u) for d, u in head.edges if u != o}
    comp = judge(tree, head, changes)
    assert o in paths_of(comp, "ORACLE_LOST")


@given(trees(min_properties=1, min_fixtures=1), st.data(), st.booleans())
def test_dropping_an_oracles_class_is_an_oracle_lane_change(tree, data, with_production):
    p, o = data.draw(covered(tree))
    head = tree.copy()
    if tree.tests[o] == F.PROPERTY:
        head.tests[o] = F.TEST  # moved from oracle_properties to python_tests: L or E now
    else:  # L -> E: the edges that brought a locked fixture into its closure are dropped
        head.edges = {(d, u) for d, u in head.edges if not (u == o and (d in head.fixtures or d in head.utils))}
    assert {"P": 3, "L": 2, "E": 1}[head.oracle_class(o)] < {"P": 3, "L": 2}[tree.oracle_class(o)]
    changes = [Change(p, "M")] if with_production else []
    comp = judge(tree, head, changes)
    assert any(c.path == o and c.what == "class_drop" for c in comp.oracle_changes)
    assert o in paths_of(comp, "WRITESET" if with_production else "ORACLE_CHANGE")
    assert o not in comp.demoted and o not in comp.class_of  # a changed judge never votes on its own diff


@given(trees(), st.dictionaries(st.sampled_from(JUDGE_OPTIONS), option_values, max_size=4),
       st.dictionaries(st.sampled_from(JUDGE_OPTIONS), st.sampled_from(RANKS)), st.sets(st.sampled_from(JUDGE_OPTIONS)))
def test_an_option_the_head_configuration_changes_is_a_config_change(tree, edits, ranks, removed):
    head = tree.copy()
    head.options.update(edits)
    for key in removed:
        head.options.pop(key, None)
    comp = judge(tree, head, [], head_ranks=ranks)
    reported = {f.line.split(" ")[1] for f in comp.findings if f.code == "CONFIG_CHANGE"}
    expected = {k for k in set(tree.options) | set(head.options)
                if tree.options.get(k) != head.options.get(k) and ranks.get(k) not in ("FLAG", "ENVIRONMENT")}
    assert reported == {"[{}].{}".format(*k.split(".", 1)) for k in expected}


@given(trees(), st.sampled_from(sorted(HARMLESS_OPTIONS)), option_values,
       st.lists(st.sampled_from(["pants.backend.shell", "pants.backend.docker", "pants.backend.experimental.go"]),
                min_size=1, unique=True))
def test_harmless_options_and_new_pants_backends_are_no_config_change(tree, key, value, backends):
    tree.options["GLOBAL.backend_packages"] = ["pants.backend.python", "oracle_gate"]
    head = tree.copy()
    head.options[key] = value
    head.options["GLOBAL.backend_packages"] = tree.options["GLOBAL.backend_packages"] + backends
    assert judge(tree, head, []).findings == ()
    # ... but dropping the gate's own backend, or adding a third-party one, is
    for packages in (["pants.backend.python"], tree.options["GLOBAL.backend_packages"] + ["evil.plugin"]):
        head.options["GLOBAL.backend_packages"] = packages
        assert paths_of(judge(tree, head, []), "CONFIG_CHANGE") == {None}


# -- the write-set rule ------------------------------------------------------------------------------------

GUARDS = ("property", "locked_test", "fixture", "relock", "ledger", "marker", "config", "plumbing")


@st.composite
def guarded_edit(draw, tree):
    """Edit one judge (an oracle or flake control) of `tree`; returns (head, changes, kw, path)."""
    how = draw(st.sampled_from(GUARDS))
    head = tree.copy()
    kw = {}
    if how == "property":
        o = draw(st.sampled_from(sorted(t for t, r in tree.tests.items() if r == F.PROPERTY)))
        return head, [Change(o, "M")], kw, o
    if how == "locked_test":
        tree.tests["tests/test_locked.py"] = F.TEST
        tree.edges.add((sorted(tree.fixtures)[0], "tests/test_locked.py"))
        head = tree.copy()
        return head, [Change("tests/test_locked.py", "M")], kw, "tests/test_locked.py"
    if how in ("fixture", "relock"):
        fx = draw(st.sampled_from(sorted(tree.fixtures)))
        path = Tree.fixture_path(fx)
        if how == "relock":
            head.fixtures[fx] = "f" * 64
            return head, [Change(path, "M"), Change("oracle/fixtures/BUILD", "M")], kw, path
        return head, [Change(path, "M")], kw, path
    if how == "ledger":
        tree.ledger = head.ledger = True
        return head, [Change(LEDGER_PATH, "M")], kw, LEDGER_PATH
    if how == "marker":
        t = draw(st.sampled_from(sorted(t for t, r in tree.tests.items() if r != F.DRAFT)))
        return head, [Change(t, "M")], {"marker_added": frozenset({t})}, t
    if how == "config":
        key = draw(st.sampled_from(JUDGE_OPTIONS))
        head.options[key] = ["changed", tree.options.get(key)]
        return head, [Change("pants.toml", "M")], {"head_ranks": {key: "CONFIG"}}, None
    # plumbing used by a property
    tree.utils["tests/conftest.py:test_utils"] = "tests/conftest.py"
    o = sorted(t for t, r in tree.tests.items() if r == F.PROPERTY)[0]
    tree.edges.add(("tests/conftest.py:test_utils", o))
    head = tree.copy()
    return head, [Change("tests/conftest.py", "M")], kw, "tests/conftest.py"


@given(trees(min_properties=1, min_fixtures=1), st.data())
def test_production_with_an_oracle_or_flake_control_edit_is_a_writeset_in_the_agent_lane(tree, data):
    p = data.draw(st.sampled_from(sorted(tree.production)))
    head, changes, kw, path = data.draw(guarded_edit(tree))
    changes = changes + [Change(p, "M")]
    agent = compare(tree.facts(), head.facts(), changes, Policy(lane=AGENT), **kw)
    writeset = [f for f in agent.findings if f.code == "WRITESET"]
    assert writeset, [f.line for f in agent.findings]
    if path is not None:
        assert path in {f.path for f in writeset}
    human = compare(tree.facts(), head.facts(), changes, Policy(lane=HUMAN), **kw)
    assert not {"WRITESET", "ORACLE_CHANGE"} & {f.code for f in human.findings}


@given(trees(min_properties=1, min_fixtures=1), st.data())
def test_an_oracle_or_flake_control_edit_alone_is_an_oracle_change_in_the_agent_lane_only(tree, data):
    head, changes, kw, path = data.draw(guarded_edit(tree))
    agent = compare(tree.facts(), head.facts(), changes, Policy(lane=AGENT), **kw)
    assert "WRITESET" not in {f.code for f in agent.findings}
    if path is not None:
        assert path in paths_of(agent, "ORACLE_CHANGE")
    else:
        assert paths_of(agent, "CONFIG_CHANGE")
    human = compare(tree.facts(), head.facts(), changes, Policy(lane=HUMAN), **kw)
    assert not {"WRITESET", "ORACLE_CHANGE"} & {f.code for f in human.findings}


@given(trees(), st.data())
def test_production_with_class_e_tests_is_no_writeset(tree, data):
    tree.tests.update({"tests/test_a.py": F.TEST, "tests/test_b.py": F.TEST})
    tree.edges = {(d, u) for d, u in tree.edges if u not in ("tests/test_a.py", "tests/test_b.py")}
    tree.edges |= {(p, "tests/test_a.py") for p in tree.production}
    touched_tests = data.draw(st.sets(st.sampled_from(e_tests(tree)), min_size=1))
    p = data.draw(st.sampled_from(sorted(tree.production)))
    comp = judge(tree, tree, [Change(p, "M")] + [Change(t, "M") for t in sorted(touched_tests)])
    assert comp.findings == ()
    assert set(comp.demoted) == touched_tests


# -- demotion is narrow -------------------------------------------------------------------------------------

@given(trees(), st.data())
def test_demotion_reaches_exactly_the_changed_class_e_tests_and_users_of_changed_plumbing(tree, data):
    tree.tests.update({"tests/test_a.py": F.TEST, "tests/test_b.py": F.TEST})  # siblings, class E
    tree.edges = {(d, u) for d, u in tree.edges if u not in ("tests/test_a.py", "tests/test_b.py")}
    tree.edges |= {(p, t) for p in tree.production for t in ("tests/test_a.py", "tests/test_b.py")}
    changed_tests = data.draw(st.sets(st.sampled_from(e_tests(tree)), min_size=1, max_size=2))
    changed_utils = data.draw(st.sets(st.sampled_from(sorted(tree.utils)))) if tree.utils else set()
    changes = [Change(t, "M") for t in sorted(changed_tests)] + [Change(tree.utils[u], "M") for u in sorted(changed_utils)]
    comp = judge(tree, tree, changes)
    judges = tree.judges()
    expected = set(changed_tests)
    for u in changed_utils:
        reached = tree.reach([u])
        if not reached & judges:  # plumbing of class-E tests only; a judge's plumbing is an oracle change
            expected |= {t for t in reached if t in tree.tests}
    assert set(comp.demoted) == expected
    siblings = set(e_tests(tree)) - expected
    assert not siblings & set(comp.demoted)


def best_voter(tree, region):
    """The rank of the best class among the unskipped tests that reach `region` (0: none)."""
    rank = {"E": 1, "L": 2, "P": 3}
    return max((rank.get(tree.oracle_class(t), 0) for t in tree.covering(region) if t not in tree.skip), default=0)


@given(trees(), st.data())
def test_deleting_a_class_e_test_demotes_nothing(tree, data):
    tree.tests.update({"tests/test_a.py": F.TEST, "tests/test_b.py": F.TEST})
    tree.edges = {(d, u) for d, u in tree.edges if u not in ("tests/test_a.py", "tests/test_b.py")}
    gone = data.draw(st.sampled_from(e_tests(tree)))
    head = tree.copy()
    head.remove(gone)
    comp = judge(tree, head, [Change(gone, "D")])
    assert comp.demoted == () and comp.lane_paths("test") == [gone]
    # The only findings: regions whose best voter class falls with it (the ratchet holds for E too).
    lost = {r for r in tree.production if best_voter(head, r) < best_voter(tree, r)}
    assert {(f.code, f.path) for f in comp.findings} == {("ORACLE_LOST", r) for r in lost}
    assert all(f.reviewed and gone in f.line for f in comp.findings)


@given(trees(), st.data())
def test_a_dropped_edge_loses_exactly_the_regions_no_voter_reaches_any_more(tree, data):
    assume(tree.edges)
    cut = data.draw(st.sampled_from(sorted(tree.edges)))
    assume(cut[1] in tree.production or cut[1] in tree.tests)  # an import or a test's dependency
    head = tree.copy()
    head.edges.discard(cut)
    comp = judge(tree, head, [build_file(cut[1])])
    lost = {r for r in tree.production if best_voter(head, r) < best_voter(tree, r)}
    assert paths_of(comp, "ORACLE_LOST") == lost
    # Restoring the edge loses nothing: the law is about the graph, not the diff's wording.
    assert paths_of(judge(tree, tree, [build_file(cut[1])]), "ORACLE_LOST") == set()


# -- dependencies -----------------------------------------------------------------------------------

@given(trees(), st.data())
def test_a_requirement_bump_judges_exactly_the_production_that_depends_on_it_at_its_own_floor(tree, data):
    if not tree.requirements:
        tree.requirements["3rdparty:r0"] = "1.0"
        tree.edges.add(("3rdparty:r0", sorted(tree.production)[0]))
    r = data.draw(st.sampled_from(sorted(tree.requirements)))
    head = tree.copy()
    head.requirements[r] = "2.0"
    comp = judge(tree, head, [Change("3rdparty/BUILD", "M")])
    readers = {a for a in tree.reach([r]) if a in tree.production}
    # Never a region of its own; every reader judged once, at the floor of its own kind.
    assert {(x.address, x.status) for x in comp.regions} == {(a, "dependency") for a in readers}
    for x in comp.regions:
        kind = tree.production[x.address]
        assert x.required == (RegionKind(kind).floor.value if kind else None)
    assert all(f.code == "ORACLE_CHANGE" for f in comp.findings)  # only when judges alone depend on it
    assert (r in dict((c.path, c.lanes) for c in comp.changes)) and bool(readers) == comp.production_changed


# The head's Pants configuration file as evidence: the same text says nothing; a difference is
# reported whichever side holds it (deleting what a patch added is reported as the adding was).
_CONFIG_VALUES = st.one_of(st.booleans(), st.integers(), st.text(max_size=5),
                           st.lists(st.text(max_size=5), max_size=3))
_CONFIG_FILES = st.dictionaries(
    st.sampled_from(["GLOBAL", "DEFAULT", "pytest", "test", "black", "oracle-gate"]),
    st.dictionaries(st.sampled_from(["pythonpath", "plugins", "args", "level", "report", "mutation"]), _CONFIG_VALUES,
                    max_size=3),
    max_size=4)


@given(_CONFIG_FILES)
def test_an_unchanged_config_file_reports_nothing(data):
    assert config_file_changes("pants.toml", data, data) == ()
    assert config_file_changes("pants.toml", data, dict(reversed(list(data.items())))) == ()


@given(_CONFIG_FILES, _CONFIG_FILES)
def test_config_file_changes_are_the_same_keys_either_way(base, head):
    def keys(found):
        return sorted(f.line.split(" base=")[0] for f in found)

    assert keys(config_file_changes("p.toml", base, head)) == keys(config_file_changes("p.toml", head, base))
    # Every judged difference is reported: one judged entry neither side had, set by the head, is
    # exactly one more line (and one lint entry none).
    more = {**head, "pytest": {**head.get("pytest", {}), "zz_added": "-k nothing"}}
    lint = {**head, "black": {**head.get("black", {}), "zz_added": "-l 100"}}
    assert len(config_file_changes("p.toml", base, more)) == len(config_file_changes("p.toml", base, head)) + 1
    assert len(config_file_changes("p.toml", base, lint)) == len(config_file_changes("p.toml", base, head))
