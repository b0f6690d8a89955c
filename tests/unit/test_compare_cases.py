"""Known cases of the base-vs-head comparison, on the shapes of the bundled billing example:
src/billing (a python_sources generator with one region kind per file), its properties (P), its
example tests (E, or L where they read a locked fixture), fixtures, a ledger, a draft and a
replay. Facts are written out by hand, as the rules would evaluate them."""
import datetime
from typing import Dict, Iterable, Optional

import pytest

from oracle_gate.core.judge.report import report_json
from oracle_gate.core.judge.verdict import Case, ChangedSymbolEvidence, GateInput, MutantResult, OracleRun, evaluate
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.compare import HUMAN, Change, Policy, compare, config_file_changes
from oracle_gate.core.lanes.facts import TargetFact, make_facts

REGIONS = {"money": "pure", "tax": "pure", "store": "state", "invoice_io": "io", "worker": "concurrent",
           "schema": "schema"}
IMPORTS = {"tax": ["money"], "invoice_io": ["money", "schema"], "store": ["schema"], "worker": ["store"]}
PROPS = {"money": ["money"], "tax": ["tax"], "invoice": ["invoice_io"], "schema": ["schema"], "worker": ["worker"]}
TESTS = {"test_store.py": ["store"], "test_invoice_io.py": ["invoice_io"], "test_money_examples.py": ["money"],
         "test_tax_examples.py": ["tax"], "test_schema_examples.py": ["schema"]}
FIXTURES = {"test_store.py": "store_seed", "test_invoice_io.py": "invoice_v1"}
SHA = {"store_seed": "a34c22603d68dbbb47fa42ee5ce74f654e251dbf194004f9d94350421a77973f",
       "invoice_v1": "19142f932a339fd070fc982f4307dd38c479721f3785174b2ce1401f011957d6"}
MONEY = "src/billing/money.py"
MONEY_PROPS = "oracle/properties/test_money_props.py"
TODAY = datetime.date(2026, 11, 30)


def src(name):
    return f"src/billing/{name}.py"


def billing(regions: Optional[Dict[str, Optional[str]]] = None, skip: Iterable[str] = (), gone: Iterable[str] = (),
            roles: Optional[Dict[str, str]] = None, options: Optional[dict] = None, renamed: Optional[Dict[str, str]] = None):
    """The billing example's facts; `regions` overrides kinds, `skip` sets skip_tests, `gone` drops
    targets (and their edges), `roles` re-declares a path's target, `renamed` moves a module."""
    regions = {**REGIONS, **(regions or {})}
    roles = roles or {}
    renamed = renamed or {}
    targets, deps = [], {}

    def add(address, alias, role, path=None, **kw):
        if address in gone:
            return
        role = roles.get(path or address, role)
        alias = {F.TEST: "python_test", F.TEST_UTIL: "python_source"}.get(role, alias) if path in roles else alias
        fields = tuple(sorted({"source": repr(path), "oracle_region": repr(kw.get("region")),
                               "skip_tests": repr(kw.get("skip", False))}.items()))
        if role != F.PRODUCTION:
            kw.pop("region", None)
        targets.append(TargetFact(address, alias, role, (path,) if path else (), fields=fields, **kw))

    def edge(dep, user):
        if dep not in gone and user not in gone:
            deps.setdefault(dep, []).append(user)

    for name, kind in regions.items():
        path = src(renamed.get(name, name))
        add(path, "python_source", F.PRODUCTION, path, region=kind)
        edge(path, "src/billing:billing")
        for dep in IMPORTS.get(name, ()):
            edge(src(renamed.get(dep, dep)), path)
    for prop, covers in PROPS.items():
        path = f"oracle/properties/test_{prop}_props.py"
        add(path, "oracle_property", F.PROPERTY, path, skip=path in skip, min_examples=100)
        for name in covers:
            edge(src(renamed.get(name, name)), path)
    for test, covers in TESTS.items():
        path = f"tests/{test}"
        add(path, "python_test", F.TEST, path, skip=path in skip)
        for name in covers:
            edge(src(renamed.get(name, name)), path)
        if test in FIXTURES:
            edge(f"oracle/fixtures:{FIXTURES[test]}", path)
    for fixture, sha in SHA.items():
        add(f"oracle/fixtures:{fixture}", "locked_fixture", F.LOCKED_FIXTURE, f"oracle/fixtures/{fixture}.json", sha256=sha)
    add("oracle/drafts/test_store_drafts.py", "oracle_draft", F.DRAFT, "oracle/drafts/test_store_drafts.py")
    edge(src("store"), "oracle/drafts/test_store_drafts.py")
    add("oracle/traces:decode", "oracle_replay", F.REPLAY, "oracle/traces/decode.jsonl", sha256="5cc4" + "0" * 60,
        entry_point="billing.invoice_io:decode")
    edge(src(renamed.get("invoice_io", "invoice_io")), "oracle/traces:decode")
    add("oracle:ledger", "freeze_ledger", F.FREEZE_LEDGER, "oracle/freeze-ledger.json", governs=("",))
    add("src/billing:billing", "python_sources", F.GENERATOR)
    add("tests:tests", "python_tests", F.GENERATOR)
    return make_facts(targets, deps, options or {"pytest.args": []},
                      {"oracle/freeze-ledger.json": '{"version": 1, "entries": []}'})


BASE = billing()


def lines(comp):
    return [f.line for f in comp.findings]


def test_a_refactor_of_money_covered_by_its_property_merges():
    comp = compare(BASE, BASE, [Change(MONEY, "M")], Policy())
    assert lines(comp) == []
    (region,) = comp.regions
    assert (region.path, region.status, region.kind, region.required) == (MONEY, "changed", "pure", "P")
    assert region.candidates == (
        "oracle/properties/test_invoice_props.py", MONEY_PROPS, "oracle/properties/test_tax_props.py",
        "oracle/traces:decode", "tests/test_invoice_io.py", "tests/test_money_examples.py", "tests/test_tax_examples.py")
    assert region.base_oracles == ("oracle/properties/test_invoice_props.py", MONEY_PROPS,
                                   "oracle/properties/test_tax_props.py", "oracle/traces/decode.jsonl",
                                   "tests/test_invoice_io.py")
    # the property that calls the changed function runs, passes and votes: merge
    run = OracleRun(MONEY_PROPS, MONEY_PROPS, 0, True, (Case(f"{MONEY_PROPS}::test_split_sums", "passed", examples=100),),
                    executed=frozenset({(MONEY, "split")}))
    gi = GateInput("diff", comp, (run,), (ChangedSymbolEvidence(MONEY, "split", "function", "changed", "split"),),
                   min_examples=((MONEY_PROPS, 100),), today=TODAY)
    verdict = evaluate(gi)
    assert (verdict.exit_code, verdict.voters, [r.line for r in verdict.reasons]) == (0, (MONEY_PROPS,), [])
    assert verdict.regions[0].symbols == (("split", (MONEY_PROPS,)),)
    report = report_json(gi, verdict, "main", "a" * 40, "b" * 40, "agent", {MONEY_PROPS: "ran"})
    assert (report["verdict"], report["lanes"]["production"]) == ("merge", [MONEY])


def test_a_property_edited_with_production_is_a_writeset():
    comp = compare(BASE, BASE, [Change(MONEY, "M"), Change(MONEY_PROPS, "M")], Policy())
    assert lines(comp) == [f"WRITESET oracle {MONEY_PROPS} changed with production {MONEY}"]
    assert MONEY_PROPS not in comp.class_of  # the edited property never votes on its own diff


def test_the_human_lane_lets_a_property_change_with_production_and_vote():
    comp = compare(BASE, BASE, [Change(MONEY, "M"), Change(MONEY_PROPS, "M")], Policy(lane=HUMAN))
    assert lines(comp) == []
    assert comp.class_of[MONEY_PROPS].value == "P"


def test_a_comment_only_build_change_reports_nothing():
    comp = compare(BASE, billing(), [Change("src/billing/BUILD", "M"), Change("tests/BUILD", "M")], Policy())
    assert (lines(comp), comp.regions, comp.demoted, comp.oracle_changes) == ([], (), (), ())
    assert [(c.path, c.lanes) for c in comp.changes] == [("src/billing/BUILD", ("other",)), ("tests/BUILD", ("other",))]


def test_a_defaults_change_on_a_directory_downgrades_each_region_it_lowers():
    # __defaults__(all=dict(oracle_region="state")) with the overrides removed: one evaluated value per target
    head = billing({name: "state" for name in REGIONS})
    comp = compare(BASE, head, [Change("src/billing/BUILD", "M")], Policy())
    assert lines(comp) == [
        "REGION_DOWNGRADE src/billing/money.py kind pure -> state (floor P -> L)",
        "REGION_DOWNGRADE src/billing/schema.py kind schema -> state (floor P -> L)",
        "REGION_DOWNGRADE src/billing/tax.py kind pure -> state (floor P -> L)",
        "REGION_DOWNGRADE src/billing/worker.py kind concurrent -> state (floor P -> L)",
    ]
    # io -> state changes a value, not the floor; store was state already
    assert [(r.path, r.required) for r in comp.regions] == [
        ("src/billing/invoice_io.py", "L"), (MONEY, "P"), ("src/billing/schema.py", "P"), ("src/billing/tax.py", "P"),
        ("src/billing/worker.py", "P")]


def test_a_production_file_moved_into_python_tests_is_a_downgrade():
    head = billing(roles={"src/billing/store.py": F.TEST})
    comp = compare(BASE, head, [Change("src/billing/BUILD", "M")], Policy())
    assert lines(comp) == [
        "REGION_DOWNGRADE src/billing/store.py was a state production target at the base (src/billing/store.py) "
        "and is no longer production at head (python_test)",
        # its base judges (the worker's property reaches it through worker.py) are still owed
        "ORACLE_LOST oracle/properties/test_worker_props.py (class P) covered src/billing/store.py at the base and "
        "no longer covers it at head",
        "ORACLE_LOST tests/test_store.py (class L) covered src/billing/store.py at the base and no longer covers it at head",
    ]


def test_a_test_file_deleted_next_to_its_siblings_demotes_nothing():
    head = billing(gone=["tests/test_tax_examples.py"])
    comp = compare(BASE, head, [Change("tests/test_tax_examples.py", "D")], Policy())
    assert (lines(comp), comp.demoted, comp.lane_paths("test")) == ([], (), ["tests/test_tax_examples.py"])


def test_a_changed_example_test_is_demoted_alone_and_may_change_with_production():
    comp = compare(BASE, BASE, [Change(MONEY, "M"), Change("tests/test_money_examples.py", "M")], Policy())
    assert (lines(comp), comp.demoted) == ([], ("tests/test_money_examples.py",))


def test_a_locked_test_changed_alone_is_an_oracle_change():
    comp = compare(BASE, BASE, [Change("tests/test_store.py", "M")], Policy())
    assert lines(comp) == ["ORACLE_CHANGE oracle tests/test_store.py: changing a judge is the human lane "
                           "(--oracle-gate-lane=human, after review)"]
    assert [(o.path, o.what, o.base_class) for o in comp.oracle_changes] == [("tests/test_store.py", "changed", "L")]
    assert comp.demoted == ()


def test_skip_tests_on_the_property_of_a_changed_region_is_an_oracle_lost():
    head = billing(skip=[MONEY_PROPS])
    comp = compare(BASE, head, [Change(MONEY, "M"), Change("oracle/properties/BUILD", "M")], Policy())
    assert f"ORACLE_LOST {MONEY_PROPS} (class P) covered {MONEY} at the base and is skipped at head" in lines(comp)
    assert f"WRITESET oracle {MONEY_PROPS} changed with production {MONEY}" in lines(comp)


def test_a_property_skipped_at_the_base_and_still_skipped_is_not_lost_by_a_refactor():
    # Nothing weakened: the property was already skipped before this diff (a human-lane decision).
    base = billing(skip=[MONEY_PROPS])
    comp = compare(base, base, [Change(MONEY, "M")], Policy())
    assert lines(comp) == []


def test_a_rename_of_a_module_keeps_its_region_and_judges():
    head = billing(renamed={"money": "cash"})
    comp = compare(BASE, head, [Change("src/billing/cash.py", "R", old_path=MONEY)], Policy())
    assert lines(comp) == []
    (region,) = [r for r in comp.regions if r.path == "src/billing/cash.py"]
    assert (region.status, region.old_path, region.required) == ("changed", MONEY, "P")
    assert MONEY_PROPS in region.candidates


def test_a_production_file_replaced_by_a_link_out_of_the_build_root_fails_closed():
    comp = compare(BASE, BASE, [Change(MONEY, "T", link="../elsewhere/money.py", link_outside=True)], Policy())
    assert f"SYMLINK {MONEY} -> ../elsewhere/money.py: a judged path may not point at a path outside the build root" \
        in lines(comp)


def test_a_changed_path_owned_by_nothing_is_unmapped_and_docs_are_not():
    comp = compare(BASE, BASE, [Change("scripts/release.sh", "A"), Change("README.md", "M")], Policy())
    assert lines(comp) == ["UNMAPPED scripts/release.sh is owned by no target"]


def test_an_option_set_by_the_head_configuration_is_a_config_change_unless_it_came_from_the_command_line():
    head = billing(options={"pytest.args": ["-p", "no:oracle_gate"]})
    comp = compare(BASE, head, [Change("pants.toml", "M")], Policy(), head_ranks={"pytest.args": "CONFIG"})
    assert lines(comp) == [
        'CONFIG_CHANGE [pytest].args base=[] head=["-p", "no:oracle_gate"]: set by the head\'s configuration',
        "ORACLE_CHANGE flake_control [pytest].args: changing a judge is the human lane "
        "(--oracle-gate-lane=human, after review)",
    ]
    for rank in ("FLAG", "ENVIRONMENT"):
        assert lines(compare(BASE, head, [], Policy(), head_ranks={"pytest.args": rank})) == []


def test_a_new_package_marker_with_no_code_beside_its_package_s_code_is_no_region_of_its_own():
    marker, fees, lone = "src/billing/fees/__init__.py", "src/billing/fees/flat.py", "src/billing/lone/__init__.py"
    head = make_facts(BASE.targets + tuple(TargetFact(p, "python_source", F.PRODUCTION, (p,), region="pure")
                                           for p in (marker, fees, lone)),
                      dict(BASE.dependents), BASE.option_map, BASE.text_map)
    changes = [Change(p, "A") for p in (marker, fees, lone)]
    comp = compare(BASE, head, changes, Policy(), inert=frozenset({marker, lone}))
    # The marker beside code runs nothing; a marker alone in its directory may shadow a package: judged.
    assert [(r.path, r.required) for r in comp.regions] == [(fees, "P"), (lone, "P")]
    assert {c.path: c.why for c in comp.changes}[marker] == "a package marker with no code"
    assert [r.path for r in compare(BASE, head, changes, Policy()).regions] == [marker, fees, lone]
    # ... nor is it judged through what it depends on (a data file beside it changed): it reads nothing.
    data = "src/billing/fees/rates.json"
    targets = head.targets + (TargetFact(data, "resource", F.OTHER, (data,)),)
    with_data = make_facts(targets, {**dict(head.dependents), data: (marker, fees)}, BASE.option_map, BASE.text_map)
    comp = compare(BASE, with_data, changes + [Change(data, "A")], Policy(), inert=frozenset({marker, lone}))
    assert [(r.path, r.status) for r in comp.regions] == [(fees, "added"), (lone, "added")]


def test_a_new_module_is_an_added_region_and_a_new_property_alone_is_additive():
    head_targets = BASE.targets + (TargetFact("src/billing/fees.py", "python_source", F.PRODUCTION,
                                              ("src/billing/fees.py",), region="pure"),)
    head = make_facts(head_targets, dict(BASE.dependents), BASE.option_map, BASE.text_map)
    comp = compare(BASE, head, [Change("src/billing/fees.py", "A")], Policy())
    assert lines(comp) == []
    assert [(r.path, r.status, r.required, r.candidates) for r in comp.regions] == [
        ("src/billing/fees.py", "added", "P", ())]
    # ... and its property follows in its own diff: additive, no policy failure
    prop = "oracle/properties/test_fees_props.py"
    later = make_facts(head.targets + (TargetFact(prop, "oracle_property", F.PROPERTY, (prop,)),),
                       {**dict(head.dependents), "src/billing/fees.py": (prop,)}, BASE.option_map, BASE.text_map)
    comp = compare(head, later, [Change(prop, "A")], Policy())
    assert (lines(comp), comp.new_tests) == ([], (prop,))
    assert [(o.path, o.what, o.additive) for o in comp.oracle_changes] == [(prop, "added", True)]


def with_property(name, covers):
    saved = dict(PROPS)
    PROPS[name] = covers
    try:
        return billing()
    finally:
        PROPS.clear()
        PROPS.update(saved)


def _passing(address, executed):
    return OracleRun(address, address, 0, True, (Case(f"{address}::test_law", "passed", examples=100),),
                     executed=frozenset(executed))


def test_a_new_property_beside_production_judges_only_the_code_new_in_this_diff():
    new = "oracle/properties/test_weighted_props.py"
    comp = compare(BASE, with_property("weighted", ["money"]), [Change(MONEY, "M"), Change(new, "A")], Policy())
    assert lines(comp) == []  # a new oracle weakens no judge: no WRITESET
    assert comp.newcomers == ((new, "P"),) and new not in comp.class_of
    symbols = (ChangedSymbolEvidence(MONEY, "split_weighted", "function", "added", "split_weighted"),
               ChangedSymbolEvidence(MONEY, "split", "function", "changed", "split"))
    runs = (_passing(new, {(MONEY, "split_weighted"), (MONEY, "split")}), _passing(MONEY_PROPS, ()))
    verdict = evaluate(GateInput("diff", comp, runs, symbols, min_examples=((MONEY_PROPS, 100), (new, 100)), today=TODAY))
    # the added function is judged by the new property; the changed one only by the base's voters
    assert [r.line for r in verdict.reasons] == [
        f"UNEXERCISED {MONEY}:split kind=function need=P ran={MONEY_PROPS} (no voting oracle at the floor executed it)"]
    assert (verdict.voters, verdict.newcomers) == ((MONEY_PROPS,), (new,))
    assert dict(verdict.regions[0].symbols)["split_weighted"] == (new,)
    # a new oracle that fails is a failure, not a diagnostic: it is the diff's own claim
    failing = OracleRun(new, new, 1, True, (Case(f"{new}::test_law", "failed", "0" * 16, "AssertionError"),))
    verdict = evaluate(GateInput("diff", comp, (failing, _passing(MONEY_PROPS, {(MONEY, "split")})), symbols[1:],
                                 min_examples=((MONEY_PROPS, 100), (new, 100)), today=TODAY))
    assert [r.code for r in verdict.reasons] == ["FAIL"] and verdict.exit_code == 1


def test_a_new_property_never_joins_a_writeset_exemption_for_changed_oracles():
    new = "oracle/properties/test_weighted_props.py"
    comp = compare(BASE, with_property("weighted", ["money"]),
                   [Change(MONEY, "M"), Change(new, "A"), Change(MONEY_PROPS, "M")], Policy())
    assert lines(comp) == [f"WRITESET oracle {MONEY_PROPS} changed with production {MONEY}"]


def test_code_judged_only_by_new_oracles_needs_a_value_mutant_killed():
    new = "oracle/properties/test_weighted_props.py"
    comp = compare(BASE, with_property("weighted", ["money"]), [Change(MONEY, "M"), Change(new, "A")], Policy())
    symbols = (ChangedSymbolEvidence(MONEY, "split_weighted", "function", "added", "split_weighted"),)

    def verdict(*statuses):
        mutants = tuple(MutantResult(MONEY, "split_weighted", f"m{i}", what, status, (new,), coarse)
                        for i, (what, status, coarse) in enumerate(statuses))
        gi = GateInput("diff", comp, (_passing(new, {(MONEY, "split_weighted")}), _passing(MONEY_PROPS, ())), symbols,
                       min_examples=((new, 100),), mutants=mutants, mutation_ran=True, today=TODAY)
        return [r.line for r in evaluate(gi).reasons]

    crash_only = verdict(("`return x` -> `return None`", "killed", True), ("`*` -> `/`", "survived", False))
    assert crash_only == [f"NUMB {MONEY}:split_weighted survived=1/1 in split_weighted (its voters noticed only a "
                          f"crash-like mutant, no value mutant: `*` -> `/`)"]
    assert verdict(("`return x` -> `return None`", "killed", True), ("`*` -> `/`", "killed", False)) == []
    # only crash-like mutants were generated: their kills are the evidence there is
    assert verdict(("`return x` -> `return None`", "killed", True)) == []


def test_added_code_that_existing_code_uses_or_that_a_move_produced_keeps_the_bases_judges():
    new = "oracle/properties/test_weighted_props.py"
    comp = compare(BASE, with_property("weighted", ["money"]), [Change(MONEY, "M"), Change(new, "A")], Policy())
    helper = ChangedSymbolEvidence(MONEY, "_big_split", "function", "added", "_big_split", newly_judgeable=False)
    runs = (_passing(new, {(MONEY, "_big_split")}), _passing(MONEY_PROPS, ()))
    verdict = evaluate(GateInput("diff", comp, runs, (helper,), min_examples=((MONEY_PROPS, 100), (new, 100)), today=TODAY))
    assert [r.code for r in verdict.reasons] == ["UNEXERCISED"] and verdict.exit_code == 2


def test_code_judged_only_by_new_oracles_needs_most_value_mutants_killed():
    new = "oracle/properties/test_weighted_props.py"
    comp = compare(BASE, with_property("weighted", ["money"]), [Change(MONEY, "M"), Change(new, "A")], Policy())
    symbols = (ChangedSymbolEvidence(MONEY, "split_weighted", "function", "added", "split_weighted"),)

    def codes(*statuses):
        mutants = tuple(MutantResult(MONEY, "split_weighted", f"m{i}", f"value {i}", s, (new,)) for i, s in enumerate(statuses))
        gi = GateInput("diff", comp, (_passing(new, {(MONEY, "split_weighted")}), _passing(MONEY_PROPS, ())), symbols,
                       min_examples=((new, 100),), mutants=mutants, mutation_ran=True, today=TODAY)
        return [r.code for r in evaluate(gi).reasons]

    assert codes("killed", "survived") == ["NUMB"]  # one kill of two is not most
    assert codes("killed", "killed", "survived") == []


# -- inputs without a region: requirements, requirement files, lockfiles, data files -----------------

LOCK = "3rdparty/python/default.lock"


def with_inputs(facts, requirement: Optional[str] = "attrs==23.1.0", data_region: Optional[str] = None,
                readers=("src/billing/schema.py",), extra_readers=(), options=None):
    """`facts` plus a `python_requirements` generator (requirements.txt) with one requirement read
    by `readers`, a requirement only tests read, and a data file read by money.py."""
    targets = list(facts.targets)
    deps = {k: list(v) for k, v in facts.dependents}
    helper = TargetFact("3rdparty/python:reqs#requirements.txt", "_generator_sources_helper", F.OTHER,
                        ("3rdparty/python/requirements.txt",), generator="3rdparty/python:reqs")
    targets += [TargetFact("3rdparty/python:reqs", "python_requirements", F.GENERATOR), helper]
    if requirement is not None:
        targets.append(TargetFact("3rdparty/python:reqs#attrs", "python_requirement", F.DEPENDENCY,
                                  fields=(("requirements", requirement),), generator="3rdparty/python:reqs",
                                  requirements=("attrs",)))
        deps["3rdparty/python:reqs#attrs"] = ["3rdparty/python:reqs#requirements.txt", *readers, *extra_readers]
    targets.append(TargetFact("3rdparty/python:reqs#pytest-mock", "python_requirement", F.DEPENDENCY,
                              fields=(("requirements", "pytest-mock==3.12.0"),), generator="3rdparty/python:reqs",
                              requirements=("pytest-mock",)))
    deps["3rdparty/python:reqs#pytest-mock"] = ["tests/test_money_examples.py"]
    role = F.PRODUCTION if data_region else F.OTHER
    targets.append(TargetFact("src/billing:rates", "resource", role, ("src/billing/rates.json",), region=data_region))
    deps["src/billing:rates"] = [MONEY]
    opts = {"pytest.args": [], "python.resolves": {"python-default": LOCK}, **(options or {})}
    return make_facts(targets, deps, opts, dict(facts.texts))


REQ_BASE = with_inputs(BASE)


def test_a_requirement_bump_judges_the_production_code_that_depends_on_it_at_its_floor():
    head = with_inputs(BASE, requirement="attrs==23.2.0")
    comp = compare(REQ_BASE, head, [Change("3rdparty/python/requirements.txt", "M")], Policy())
    assert lines(comp) == []
    # schema.py imports it; invoice_io and store import schema, worker imports store: what
    # `--changed-dependents=transitive` would test, each at its own floor.
    assert [(r.address, r.status, r.kind, r.required) for r in comp.regions] == [
        ("src/billing/invoice_io.py", "dependency", "io", "L"), ("src/billing/schema.py", "dependency", "schema", "P"),
        ("src/billing/store.py", "dependency", "state", "L"), ("src/billing/worker.py", "dependency", "concurrent", "P")]
    schema = comp.regions[1]
    assert schema.candidates == tuple(t.address for t in REQ_BASE.covering_tests(schema.address))
    lanes = {c.path: c.lanes for c in comp.changes}
    assert lanes == {"3rdparty/python/requirements.txt": ("other",), "3rdparty/python:reqs#attrs": ("production",)}
    assert comp.production_changed


def test_a_requirement_bump_with_an_edit_of_its_readers_judge_is_a_writeset():
    head = with_inputs(BASE, requirement="attrs==23.2.0")
    props = "oracle/properties/test_schema_props.py"
    comp = compare(REQ_BASE, head, [Change("3rdparty/python/requirements.txt", "M"), Change(props, "M")], Policy())
    assert lines(comp) == [f"WRITESET oracle {props} changed with production 3rdparty/python:reqs#attrs"]


def test_a_comment_in_a_requirements_file_and_a_new_unused_requirement_judge_nothing():
    # A comment changes no generated target; a requirement nothing depends on cannot change a verdict.
    head = with_inputs(BASE, readers=())
    comp = compare(with_inputs(BASE, requirement=None), head, [Change("3rdparty/python/requirements.txt", "M")], Policy())
    assert (lines(comp), comp.regions) == ([], ())
    assert {c.path: c.lanes for c in comp.changes} == {"3rdparty/python/requirements.txt": ("other",),
                                                       "3rdparty/python:reqs#attrs": ("other",)}


def test_a_deleted_requirement_judges_the_code_that_depended_on_it_at_the_base():
    comp = compare(REQ_BASE, with_inputs(BASE, requirement=None), [Change("3rdparty/python/requirements.txt", "M")],
                   Policy())
    assert [(r.address, r.status) for r in comp.regions if r.address.endswith("schema.py")] == [
        ("src/billing/schema.py", "dependency")]


def test_a_requirement_with_a_region_from_defaults_is_still_no_region():
    # `__defaults__(all=dict(oracle_region="pure"))` reaches python_requirement: the role decides.
    base = with_inputs(BASE)
    assert all(t.role == F.DEPENDENCY for t in base.targets if t.alias == "python_requirement")
    comp = compare(base, base, [], Policy(), audit=[t.address for t in base.targets])
    assert all(not r.address.startswith("3rdparty/") for r in comp.regions)


def test_a_lockfile_update_judges_the_readers_of_the_re_pinned_projects_only():
    head = with_inputs(BASE)
    comp = compare(REQ_BASE, head, [Change(LOCK, "M")], Policy(),
                   lock_changes={LOCK: ("resolve:python-default", frozenset({"attrs"}))})
    assert lines(comp) == []
    assert [r.address for r in comp.regions] == [
        "src/billing/invoice_io.py", "src/billing/schema.py", "src/billing/store.py", "src/billing/worker.py"]
    assert {r.status for r in comp.regions} == {"dependency"}
    assert {c.path: c.lanes for c in comp.changes} == {LOCK: ("production",)}
    # Re-pinning a project no requirement here names (nor requires) judges nothing.
    quiet = compare(REQ_BASE, head, [Change(LOCK, "M")], Policy(),
                    lock_changes={LOCK: ("resolve:python-default", frozenset({"six"}))})
    assert (lines(quiet), quiet.regions, {c.path: c.lanes for c in quiet.changes}) == ([], (), {LOCK: ("other",)})
    # An unreadable lock: every requirement is affected.
    unknown = compare(REQ_BASE, head, [Change(LOCK, "M")], Policy(), lock_changes={LOCK: ("resolve:python-default", None)})
    assert [r.address for r in unknown.regions] == [r.address for r in comp.regions]


def test_the_test_runners_own_lockfile_is_a_judge():
    comp = compare(REQ_BASE, REQ_BASE, [Change("3rdparty/pytest.lock", "M")], Policy(),
                   lock_changes={"3rdparty/pytest.lock": ("tool:pytest", None)})
    assert [(c.path, c.lanes) for c in comp.changes] == [("3rdparty/pytest.lock", ("oracle",))]
    assert comp.regions == ()


def test_a_data_file_production_reads_is_judged_through_its_reader():
    comp = compare(REQ_BASE, REQ_BASE, [Change("src/billing/rates.json", "M")], Policy())
    assert lines(comp) == []
    # money.py reads it; tax and invoice_io import money, worker does not
    assert [(r.address, r.status, r.required) for r in comp.regions] == [
        ("src/billing/invoice_io.py", "dependency", "L"), (MONEY, "dependency", "P"), ("src/billing/tax.py", "dependency", "P")]
    assert {c.path: c.lanes for c in comp.changes} == {"src/billing/rates.json": ("production",)}


def test_an_empty_marker_and_a_file_renamed_out_of_a_listed_tree_are_not_unmapped():
    changes = [Change("tests/__init__.py", "A"), Change("tests/fixtures/one.json", "R", old_path="tests/data/one.json"),
               Change("tools/new.py", "A"), Change("tools/gen.py", "R", old_path="tests/data/gen.py")]
    comp = compare(BASE, BASE, changes, Policy(other_globs=("tests/data/*",)), inert=frozenset({"tests/__init__.py"}))
    lanes = {c.path: c.lanes for c in comp.changes}
    assert lanes["tests/__init__.py"] == ("other",) and lanes["tests/fixtures/one.json"] == ("other",)
    # Anything else no target owns still fails closed, Python code moved out of a listed tree too.
    assert lines(comp) == ["UNMAPPED tools/gen.py is owned by no target", "UNMAPPED tools/new.py is owned by no target"]


def test_tests_excluded_by_tag_or_by_path_glob_never_vote():
    tagged = billing()
    policy = Policy(exclude_globs=("tests/test_store.py",))
    comp = compare(BASE, tagged, [Change("src/billing/store.py", "M")], policy)
    assert comp.excluded == ("tests/test_store.py",)
    assert "tests/test_store.py" not in comp.class_of
    (region,) = comp.regions
    assert "tests/test_store.py" not in region.candidates


def test_a_requirement_only_tests_use_is_part_of_their_judges():
    def bump(facts, name, spec):
        targets = [t if t.address != f"3rdparty/python:reqs#{name}" else TargetFact(
            t.address, t.alias, t.role, fields=(("requirements", spec),), generator=t.generator, requirements=t.requirements)
            for t in facts.targets]
        return make_facts(targets, dict(facts.dependents), facts.option_map, dict(facts.texts))

    # Only a class-E test uses pytest-mock: that test is demoted, nothing else is judged.
    comp = compare(REQ_BASE, bump(REQ_BASE, "pytest-mock", "pytest-mock==3.14.0"),
                   [Change("3rdparty/python/requirements.txt", "M")], Policy())
    assert (lines(comp), comp.regions, comp.demoted) == ([], (), ("tests/test_money_examples.py",))
    # A requirement a property depends on is part of a judge: changing it alone is an oracle change.
    deps = dict(REQ_BASE.dependents)
    deps["3rdparty/python:reqs#pytest-mock"] = (*deps["3rdparty/python:reqs#pytest-mock"], MONEY_PROPS)
    base = make_facts(REQ_BASE.targets, deps, REQ_BASE.option_map, dict(REQ_BASE.texts))
    comp = compare(base, bump(base, "pytest-mock", "pytest-mock==3.14.0"), [Change("3rdparty/python/requirements.txt", "M")],
                   Policy())
    assert lines(comp) == ["ORACLE_CHANGE oracle 3rdparty/python:reqs#pytest-mock: changing a judge is the human lane "
                           "(--oracle-gate-lane=human, after review)"]


# -- the head's Pants configuration files, read as evidence while the gate runs under the base's ---


def test_a_head_config_that_points_pythonpath_at_another_plugin_is_a_config_change():
    base = {"GLOBAL": {"pythonpath": ["%(buildroot)s/src"], "backend_packages": ["oracle_gate"]}}
    head = {"GLOBAL": {"pythonpath": ["%(buildroot)s/fake"], "backend_packages": ["oracle_gate"]}}
    assert [f.line for f in config_file_changes("pants.toml", base, head)] == [
        'CONFIG_CHANGE pants.toml [GLOBAL].pythonpath base=["%(buildroot)s/src"] head=["%(buildroot)s/fake"]: '
        "set by the head's configuration (the gate ran under the base's)"]


def test_a_new_pants_rc_that_removes_the_backend_is_a_config_change_and_names_the_file():
    found = config_file_changes(".pants.rc", None, {"GLOBAL": {"backend_packages": {"remove": ["oracle_gate"]}}})
    assert [(f.code, f.path) for f in found] == [("CONFIG_CHANGE", ".pants.rc")]
    assert found[0].line.startswith('CONFIG_CHANGE .pants.rc [GLOBAL].backend_packages base=null head={"remove": ["oracle_gate"]}')


def test_lint_settings_and_reports_in_a_head_config_are_not_judged():
    base = {"GLOBAL": {"level": "info"}, "black": {"args": []}, "test": {"report": False}}
    head = {"GLOBAL": {"level": "debug"}, "black": {"args": ["-l", "100"]}, "test": {"report": True}}
    assert config_file_changes("pants.toml", base, head) == ()


def test_a_default_section_and_a_plugin_pin_are_judged():
    found = config_file_changes("pants.ci.toml", {"GLOBAL": {"plugins": ["pants-oracle-gate==1.0"]}},
                                {"GLOBAL": {"plugins": ["pants-oracle-gate==1.1"]}, "DEFAULT": {"x": "1"}})
    assert [f.line.split(" base=")[0] for f in found] == [
        "CONFIG_CHANGE pants.ci.toml [DEFAULT].x", "CONFIG_CHANGE pants.ci.toml [GLOBAL].plugins"]


def test_a_head_config_adding_a_pants_backend_is_no_config_change_and_another_plugin_is():
    base = {"GLOBAL": {"backend_packages": ["pants.backend.python", "oracle_gate"]}}
    lint = {"GLOBAL": {"backend_packages": ["pants.backend.python", "oracle_gate", "pants.backend.python.lint.black"]}}
    other = {"GLOBAL": {"backend_packages": ["pants.backend.python", "oracle_gate", "my_gate"]}}
    dropped = {"GLOBAL": {"backend_packages": ["pants.backend.python", "pants.backend.python.lint.black"]}}
    assert config_file_changes("pants.toml", base, lint) == ()
    assert [f.code for f in config_file_changes("pants.toml", base, other)] == ["CONFIG_CHANGE"]
    assert [f.code for f in config_file_changes("pants.toml", base, dropped)] == ["CONFIG_CHANGE"]


# -- judges taken away elsewhere; the human lane's reviewed test changes -------------------------------

def small(edges, baseline_kind="pure"):
    """One production module (`src/pkg/a.py`, its region `pure`), one class-E test and `edges`."""
    targets = [TargetFact("src/pkg/a.py", "python_source", F.PRODUCTION, ("src/pkg/a.py",), region=baseline_kind),
               TargetFact("src/pkg/b.py", "python_source", F.PRODUCTION, ("src/pkg/b.py",), region=baseline_kind),
               TargetFact("tests/test_b.py", "python_test", F.TEST, ("tests/test_b.py",))]
    return make_facts(targets, edges, {"pytest.args": []})


def test_a_dropped_import_that_leaves_a_region_without_its_only_test_is_an_oracle_lost():
    base = small({"src/pkg/a.py": ["src/pkg/b.py"], "src/pkg/b.py": ["tests/test_b.py"]})
    head = small({"src/pkg/b.py": ["tests/test_b.py"]})  # b.py no longer imports a.py
    comp = compare(base, head, [Change("src/pkg/b.py", "M")], Policy())
    assert lines(comp) == [
        "ORACLE_LOST src/pkg/a.py (best voter class E at the base, none at head): tests/test_b.py no longer depends "
        "on it (what src/pkg/b.py depends on changed); its code is unchanged, so nothing else in this diff judges it"]
    assert [r.address for r in comp.regions] == ["src/pkg/b.py"]  # the changed region is judged as ever
    gi = GateInput("diff", comp, ran_oracles=False, today=TODAY)
    assert evaluate(gi).exit_code == 2
    human = evaluate(GateInput("diff", compare(base, head, [Change("src/pkg/b.py", "M")], Policy(lane=HUMAN)),
                               ran_oracles=False, lane=HUMAN, today=TODAY))
    assert human.exit_code == 0
    (lost,) = [r for r in human.reasons if r.code == "ORACLE_LOST"]
    assert lost.severity.value == "info" and lost.line.endswith("(reviewed in the human lane)")
    # Another test still reaching it keeps its judge: nothing is lost.
    kept = compare(small({"src/pkg/a.py": ["src/pkg/b.py", "tests/test_b.py"], "src/pkg/b.py": ["tests/test_b.py"]}),
                   small({"src/pkg/a.py": ["tests/test_b.py"], "src/pkg/b.py": ["tests/test_b.py"]}),
                   [Change("src/pkg/b.py", "M")], Policy())
    assert lines(kept) == []


def test_in_the_human_lane_a_changed_example_test_votes_with_its_head_class():
    change = [Change(MONEY, "M"), Change("tests/test_money_examples.py", "M")]
    agent, human = compare(BASE, BASE, change, Policy()), compare(BASE, BASE, change, Policy(lane=HUMAN))
    assert agent.demoted == ("tests/test_money_examples.py",) and "tests/test_money_examples.py" not in agent.class_of
    assert human.demoted == () and human.class_of["tests/test_money_examples.py"].value == "E"
    assert {c.path: c.why for c in human.changes}["tests/test_money_examples.py"] == \
        "class-E test changed: it votes with its head class (human lane)"


def test_a_dependency_region_below_its_class_names_what_changed_and_an_older_gap_is_reviewed_in_the_human_lane():
    # worker.py reads attrs through store -> schema; its baseline class is E, and nothing reaches it
    # at the base nor at head (its property skipped): the gap is older than the requirement bump.
    skipped = billing(skip=["oracle/properties/test_worker_props.py"])
    base, head = with_inputs(skipped), with_inputs(skipped, requirement="attrs==23.2.0")
    baseline = {"src/billing/worker.py": "E"}
    change = [Change("3rdparty/python/requirements.txt", "M")]
    agent = compare(base, head, change, Policy(), baseline=baseline)
    (worker,) = [r for r in agent.regions if r.address == "src/billing/worker.py"]
    assert (worker.status, worker.required, worker.trigger, worker.base_best, worker.candidates) == (
        "dependency", "E", "3rdparty/python:reqs#attrs", None, ())
    floor = [r.line for r in evaluate(GateInput("diff", agent, today=TODAY)).reasons if r.code == "FLOOR"]
    assert "FLOOR src/billing/worker.py kind=concurrent need=E have=none (judged because 3rdparty/python:reqs#attrs " \
           "changed what it reads; no test depends on it at head)" in floor
    human = compare(base, head, change, Policy(lane=HUMAN), baseline=baseline)
    reasons = evaluate(GateInput("diff", human, lane=HUMAN, today=TODAY)).reasons
    assert not any(r.path == "src/billing/worker.py" and r.code == "FLOOR" for r in reasons)
    assert any(r.code == "UNJUDGED" and r.line.startswith("UNJUDGED src/billing/worker.py: 3rdparty/python:reqs#attrs "
                                                          "changed what it reads") for r in reasons)


def test_a_floor_missed_because_the_diff_demoted_the_only_covering_test_says_so():
    facts = small({"src/pkg/b.py": ["tests/test_b.py"]})
    comp = compare(facts, facts, [Change("src/pkg/b.py", "M"), Change("tests/test_b.py", "M")], Policy(),
                   baseline={"src/pkg/b.py": "E"})
    run = OracleRun("tests/test_b.py", "tests/test_b.py", 0, True, (Case("tests/test_b.py::test_b", "passed"),),
                    executed=frozenset({("src/pkg/b.py", "<module>")}))
    floor = [r.line for r in evaluate(GateInput("diff", comp, (run,), today=TODAY)).reasons if r.code == "FLOOR"]
    assert floor == ["FLOOR src/pkg/b.py kind=pure need=E have=none (demoted: the diff changes tests/test_b.py or its "
                     "test plumbing, which covered it)"]


def test_one_typed_policy_reads_option_values_and_refuses_bad_ones_in_one_line():
    ranks = ("R1_lock", "R2_properties")
    policy = Policy.from_options({"lane": "human", "other_globs": ["docs/*"], "mutation_budget": 10}, ranks)
    assert (policy.lane, policy.other_globs, policy.mutation_budget, policy.mutants_per_symbol) == (HUMAN, ("docs/*",), 10, 4)
    assert Policy.from_options({}, ranks) == Policy()
    for values, message in [
        ({"lane": "robot"}, "--oracle-gate-lane must be `agent` or `human`, got 'robot'"),
        ({"min_rank_required": "R9"}, "min_rank_required must be one of R1_lock, R2_properties, got 'R9'"),
        ({"mutation_budget": -1}, "mutation_budget must be a non-negative integer, got -1"),
        ({"mutation_budget": True}, "mutation_budget must be a non-negative integer, got True"),
        ({"jail": "yes"}, "jail must be true or false, got 'yes'"),
        ({"exclude_globs": "tests/*"}, "exclude_globs must be a list of strings, got 'tests/*'"),
        ({"accept_tautology": True}, "--oracle-gate-accept-tautology is for the human lane only (--oracle-gate-lane=human)"),
        ({"colour": 1}, "unknown policy option(s) colour"),
    ]:
        with pytest.raises(ValueError) as e:
            Policy.from_options(values, ranks)
        assert str(e.value) == message


def test_a_diff_of_documentation_no_target_owns_needs_no_base_facts_and_nothing_else_does():
    from oracle_gate.core.lanes.compare import DEFAULT_OTHER_GLOBS, documentation_only

    head = make_facts([TargetFact("src/a.py", "python_source", F.PRODUCTION, ("src/a.py",), region="pure"),
                       TargetFact("docs/site.md", "resource", F.OTHER, ("docs/site.md",))])

    def docs(*changes, globs=DEFAULT_OTHER_GLOBS):
        return documentation_only(list(changes), head, globs)

    assert docs(Change("README.md", "M"), Change("docs/guide/install.rst", "A"))
    assert not docs()  # an empty diff is an audit, not documentation
    assert not docs(Change("README.md", "M"), Change("src/a.py", "M"))  # code beside it
    assert not docs(Change("docs/site.md", "M"))  # a target owns it: it may be read
    assert not docs(Change("README.md", "D"))  # what a base target owned is unknown without the base
    assert not docs(Change("NEW.md", "R", old_path="OLD.md"))
    assert not docs(Change("COPY.md", "A", copied_from="README.md"))
    assert not docs(Change("README.md", "M", link="src/a.py"))
    assert not docs(Change(".github/README.md", "M"))  # hidden directories: CI and ignore files
    assert not docs(Change("notes.txt", "M"), globs=("*.txt",))  # not a documentation suffix
    assert not docs(Change("guide.md", "M"), globs=("docs/*",))  # not listed by the policy
    assert not docs(Change("../outside.md", "M"))
    assert not docs(Change("docs/BUILD.md", "M"))  # Pants reads BUILD.* files
    custom = make_facts(head.targets, options={"GLOBAL.build_patterns": ["*.build.md"],
                                               "GLOBAL.build_file_prelude_globs": ["macros/*.md"]})
    assert not documentation_only([Change("src/x.build.md", "A")], custom, DEFAULT_OTHER_GLOBS)
    assert not documentation_only([Change("macros/lib.md", "M")], custom, DEFAULT_OTHER_GLOBS)
    assert documentation_only([Change("guide.md", "M")], custom, DEFAULT_OTHER_GLOBS)
    # Any file an option Pants evaluates names, by path, name or glob, is read by Pants: a source-root
    # marker, a lockfile (also by an interpolated absolute path), a constraints file.
    named = make_facts(head.targets, options={
        "source.marker_filenames": ["ROOT.md"], "python.resolves": {"default": "/repo/locks/default.md"},
        "python.resolves_to_constraints_file": {"default": "constraints*.md"},
        "oracle-gate.other_globs": ["*.md"], "python.interpreter_constraints": ["CPython==3.9.*"]})
    assert not documentation_only([Change("pkg/ROOT.md", "A")], named, DEFAULT_OTHER_GLOBS)
    assert not documentation_only([Change("locks/default.md", "M")], named, DEFAULT_OTHER_GLOBS)
    assert not documentation_only([Change("constraints-ci.md", "M")], named, DEFAULT_OTHER_GLOBS)
    # The gate's own path lists and values that name no file leave documentation alone.
    assert documentation_only([Change("guide.md", "M"), Change("docs/locks.md", "A")], named, DEFAULT_OTHER_GLOBS)


def _with_data(*owned):
    """BASE plus `resource`/`file` targets (address, path), owned as data."""
    extra = [TargetFact(address, "resource", F.OTHER, (path,)) for address, path in owned]
    return make_facts(list(BASE.targets) + extra, dict(BASE.dependents), {"pytest.args": []},
                      {"oracle/freeze-ledger.json": '{"version": 1, "entries": []}'})


@pytest.mark.parametrize("path, code", [
    ("src/sitecustomize.py", True), ("src/billing/_speedups.py", True), ("src/billing/tax.cpython-39-x86_64-linux-gnu.so", True),
    ("src/billing/tax.abi3.so", True), ("src/billing/tax.so", True), ("src/billing/tax.pyd", True),
    ("src/billing/tax.pyc", True), ("src/runner/libbaihook.ubuntu20.04.x86_64.so", False),
    ("src/billing/rates.json", False), ("src/billing/py.typed", False), ("src/billing/tax.py.bak", False),
])
def test_python_code_owned_only_by_a_data_target_fails_closed(path, code):
    """An outside attacker's round (sixth, against b32ab40): a compiled `tax` extension module owned by
    a `file` target (CPython imports it before tax.py), a `sitecustomize.py` owned by a `resource`, and
    a module taken out of `python_sources` into a `resource` merged: no region, no test sandbox holds
    them as code. A binary that is no importable module (a platform library) is data."""
    from oracle_gate.core.lanes.compare import importable
    assert importable(path) is code
    head = _with_data(("src/billing:shipped", path))
    comp = compare(BASE, head, [Change(path, "A")], Policy())
    expected = [f"UNMAPPED {path} is Python code (an importable module) owned only by src/billing:shipped, a data "
                f"target no region judges: own it with a python_sources target that carries an oracle_region (or "
                f"list it in other_globs)"] if code else []
    assert lines(comp) == expected
    # the base's policy can list it (adoption lists such files for review)
    assert lines(compare(BASE, head, [Change(path, "A")], Policy(other_globs=(path,)))) == []
