"""Known cases of the adoption baseline: its file round-trips, bad files are one-line errors, and
the comparison requires of a changed region what the baseline recorded until the region reaches
its floor (the ratchet), never more than the floor and never less once reached."""
import json

import pytest

from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.baseline import Baseline, BaselineError, BaselineRegion, BaselineSkip, make_baseline
from oracle_gate.core.lanes.compare import Change, Policy, compare
from oracle_gate.core.lanes.facts import TargetFact, make_facts

SIG_A, SIG_B = "0123456789abcdef", "fedcba9876543210"


def sample():
    return make_baseline(
        "c0ffee", "2026-11-30",
        [BaselineRegion("src/b.py", "src/b.py", "state", None), BaselineRegion("src/a.py", "src/a.py", "pure", "E")],
        [BaselineSkip(SIG_B, "test_b", "skipif", "no db"), BaselineSkip(SIG_A, "test_a", "importorskip"),
         BaselineSkip(SIG_B, "test_b2", "skipif", "the later row wins")],
    )


def test_a_baseline_round_trips_and_is_canonical():
    b = sample()
    assert Baseline.loads(b.dumps()) == b
    assert [r.address for r in b.regions] == ["src/a.py", "src/b.py"]
    # One row per signature, the same whatever the order: the first by (test, marker, reason).
    assert [(s.test, s.signature) for s in b.skip_rows] == [("test_a", SIG_A), ("test_b", SIG_B)]
    assert b.skips == frozenset({SIG_A, SIG_B})
    assert b.regions_map() == {"src/a.py": "E", "src/b.py": None}
    assert json.loads(b.dumps())["regions"]["src/a.py"] == {"path": "src/a.py", "kind": "pure", "best": "E"}


def _doc(**kw):
    return json.dumps({"format": "oracle-gate/baseline", "version": 1, "commit": "c", "written": "w", **kw})


@pytest.mark.parametrize("text, message", [
    ("{", "the baseline is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ("[]", "not an oracle-gate baseline (format must be oracle-gate/baseline)"),
    (json.dumps({"format": "oracle-gate/baseline", "version": 9}), "baseline version 9; this plugin reads versions 1, 2"),
    (_doc(regions={"src/a.py": "P"}), "region src/a.py: must be an object"),
    (_doc(regions={"src/a.py": {"best": "D"}}), "region src/a.py: best must be P, L, E or null, got 'D'"),
    (_doc(skips=[{"signature": "xyz"}]), "skip 0: needs a 16-hex `signature`"),
    (_doc(skips=["0123456789abcdef"]), "skip 0: needs a 16-hex `signature`"),
])
def test_a_bad_baseline_is_a_one_line_error(text, message):
    with pytest.raises(BaselineError) as e:
        Baseline.loads(text)
    assert str(e.value) == message


@pytest.mark.parametrize("doc", [_doc(regions=[1]), _doc(regions="src/a.py"), _doc(skips=5), _doc(skips=True)])
def test_a_baseline_of_the_wrong_shape_is_a_baseline_error_not_a_traceback(doc):
    with pytest.raises(BaselineError):
        Baseline.loads(doc)


# -- the ratchet, through the comparison -------------------------------------------------------------

def tree(cls):
    """One pure module covered by one test of class `cls` (P, L or E)."""
    role = F.PROPERTY if cls == "P" else F.TEST
    targets = [TargetFact("src/a.py", "python_source", F.PRODUCTION, ("src/a.py",), region="pure"),
               TargetFact("tests/t.py", "python_test", role, ("tests/t.py",))]
    deps = {"src/a.py": ["tests/t.py"]}
    if cls == "L":
        targets.append(TargetFact("fx:seed", "locked_fixture", F.LOCKED_FIXTURE, ("fx/seed.json",), sha256="0" * 64))
        deps["fx:seed"] = ["tests/t.py"]
    return make_facts(targets, deps)


def required(cls, baseline):
    facts = tree(cls)
    (region,) = compare(facts, facts, [Change("src/a.py", "M")], Policy(), baseline=baseline).regions
    return region.required


def test_below_its_floor_a_region_owes_what_the_baseline_recorded():
    assert required("E", {"src/a.py": "E"}) == "E"
    assert required("L", {"src/a.py": "L"}) == "L"
    assert required("E", {"src/a.py": None}) is None  # nothing voted when the baseline was written
    assert required("E", {"src/other.py": "E"}) == "P"  # a region the baseline does not list owes its floor
    assert required("E", None) == "P"  # no baseline: the floor


def test_once_a_region_reaches_its_floor_the_baseline_no_longer_lowers_it():
    assert required("P", {"src/a.py": "E"}) == "P"
    assert required("P", {"src/a.py": None}) == "P"


def test_an_audit_applies_the_same_ratchet():
    facts = tree("E")
    comp = compare(facts, facts, [], Policy(), baseline={"src/a.py": "E"}, audit=["src/a.py"])
    assert [(r.status, r.required) for r in comp.regions] == [("audited", "E")]


# -- a copy is judged as a change to the file it copies -----------------------------------------------

def copied(cls, baseline, head_kind="pure", lane="agent"):
    """`src/a.py` copied to `src/b.py` (git's copy detection); the copy's test `tests/u.py` is a
    copy of `tests/t.py`. Returns the copy's region and the classes tests vote with."""
    base = tree(cls)
    role = F.PROPERTY if cls == "P" else F.TEST
    head = make_facts(base.targets + (TargetFact("src/b.py", "python_source", F.PRODUCTION, ("src/b.py",), region=head_kind),
                                      TargetFact("tests/u.py", "python_test", role, ("tests/u.py",))),
                      {**dict(base.dependents), "src/b.py": ["tests/u.py"]})
    changes = [Change("src/b.py", "A", copied_from="src/a.py"), Change("tests/u.py", "A", copied_from="tests/t.py")]
    comp = compare(base, head, changes, Policy(lane=lane), baseline=baseline)
    (region,) = comp.regions
    return region, {a: c.value for a, c in comp.class_of.items()}, comp.new_tests


def test_a_copy_owes_what_its_source_owes_and_never_more_than_its_own_floor():
    region, _, _ = copied("E", {"src/a.py": "E"})
    assert (region.status, region.copied_from, region.before_path, region.required) == ("added", "src/a.py", "src/a.py", "E")
    assert copied("E", {"src/a.py": None})[0].required is None  # its source had no voter at adoption
    assert copied("E", None)[0].required == "P"  # no baseline: the floor
    assert copied("E", {"src/other.py": "E"})[0].required == "P"  # a source the baseline does not list
    assert copied("P", {"src/a.py": "E"})[0].required == "P"  # its source reached its floor since
    assert copied("E", {"src/a.py": "E"}, head_kind="state")[0].required == "E"
    assert copied("E", {"src/a.py": "P"}, head_kind="io")[0].required == "L"  # never above the copy's own floor


def test_a_copied_test_is_the_test_it_copies_in_the_human_lane_and_a_new_test_in_the_agent_lane():
    _, classes, new = copied("E", {"src/a.py": "E"}, lane="human")
    assert (classes.get("tests/u.py"), new) == ("E", ())
    _, classes, new = copied("E", {"src/a.py": "E"}, lane="agent")
    assert ("tests/u.py" in classes, new) == (False, ("tests/u.py",))


def test_code_moved_out_of_base_files_owes_the_strictest_of_what_they_owe():
    targets = [TargetFact(p, "python_source", F.PRODUCTION, (p,), region="pure") for p in ("src/a.py", "src/c.py")]
    targets.append(TargetFact("tests/t.py", "python_test", F.TEST, ("tests/t.py",)))
    base = make_facts(targets, {"src/a.py": ["tests/t.py"], "src/c.py": ["tests/t.py"]})
    head = make_facts(base.targets + (TargetFact("src/b.py", "python_source", F.PRODUCTION, ("src/b.py",), region="pure"),),
                      {**dict(base.dependents), "src/b.py": ["src/a.py"]})

    def owed(baseline, sources):
        comp = compare(base, head, [Change("src/b.py", "A")], Policy(), baseline=baseline, moved_code={"src/b.py": sources})
        ((why,),) = [[c.why for c in comp.changes if c.path == "src/b.py"]]
        (region,) = comp.regions
        return region.required, region.copied_from, why

    assert owed({"src/a.py": "E", "src/c.py": None}, ("src/a.py",)) == ("E", None, "its code moved or copied from src/a.py")
    assert owed({"src/a.py": "E", "src/c.py": None}, ("src/c.py",))[0] is None
    assert owed({"src/a.py": "E", "src/c.py": None}, ("src/a.py", "src/c.py"))[0] == "E"  # the strictest
    assert owed({"src/a.py": "E"}, ("src/a.py", "src/c.py"))[0] == "P"  # a source the baseline does not list
    assert owed({"src/a.py": "E"}, ("src/a.py", "src/gone.py")) == ("P", None, "new production region")  # not production
    assert owed({"src/a.py": "E"}, ())[0] == "P"


# -- the human lane holds a new module to the standard adoption found beside it ------------------------

def new_module(path, baseline, lane="human", cls="E", kind="pure", more=()):
    """A new production file `path` (of `kind`) in a tree whose `src/a.py` is judged by a class-`cls`
    test; `more` adds base production files (path, kind) the same test covers."""
    base = tree(cls)
    extra = tuple(TargetFact(p, "python_source", F.PRODUCTION, (p,), region=k) for p, k in more)
    base = make_facts(base.targets + extra, {**dict(base.dependents), **{p: ["tests/t.py"] for p, _ in more}})
    head = make_facts(base.targets + (TargetFact(path, "python_source", F.PRODUCTION, (path,), region=kind),),
                      {**dict(base.dependents), path: ["tests/t.py"]})
    comp = compare(base, head, [Change(path, "A")], Policy(lane=lane), baseline=baseline)
    (region,) = comp.regions
    ((why,),) = [[c.why for c in comp.changes if c.path == path]]
    return region.required, why


def test_in_the_human_lane_a_new_module_owes_what_the_baselined_code_beside_it_owes():
    assert new_module("src/b.py", {"src/a.py": "E"}) == (
        "E", "new production region (human lane: it owes E, the standard adoption found for the pure code in src/)")
    # A new package: the nearest enclosing directory that holds baselined code of its kind.
    assert new_module("src/pkg/b.py", {"src/a.py": "E"})[0] == "E"
    assert new_module("lib/b.py", {"src/a.py": "E"})[1].endswith("in the build root/)")


def test_the_human_lane_standard_is_never_below_what_the_nearest_code_owes_and_never_above_the_floor():
    assert new_module("src/b.py", {"src/a.py": "E"}, lane="agent") == ("P", "new production region")  # agents: the floor
    assert new_module("src/b.py", None)[0] == "P"  # no baseline
    assert new_module("src/b.py", {"src/a.py": "E"}, cls="P")[0] == "P"  # the code beside it reached its floor
    assert new_module("src/b.py", {"src/a.py": "E"}, kind="state")[0] == "L"  # only code of its kind counts
    # The nearest directory decides; within it the strictest of what its code owes.
    near = {"src/a.py": "E", "src/pkg/x.py": None}
    assert new_module("src/pkg/y.py", near, more=[("src/pkg/x.py", "pure")])[0] is None
    assert new_module("src/y.py", near, more=[("src/pkg/x.py", "pure")])[0] == "E"
    # A neighbour the baseline does not list (code landed since adoption) sets no standard.
    assert new_module("src/pkg/y.py", {"src/a.py": "E"}, more=[("src/pkg/x.py", "pure")])[0] == "E"


def test_a_new_class_e_test_judges_new_code_in_the_human_lane_only():
    base = tree("E")
    head = make_facts(base.targets + (TargetFact("src/b.py", "python_source", F.PRODUCTION, ("src/b.py",), region="pure"),
                                      TargetFact("tests/u.py", "python_test", F.TEST, ("tests/u.py",))),
                      {**dict(base.dependents), "src/b.py": ["tests/u.py"]})
    changes = [Change("src/b.py", "A"), Change("tests/u.py", "A")]

    def newcomers(lane):
        comp = compare(base, head, changes, Policy(lane=lane), baseline={"src/a.py": "E"})
        return comp.newcomers, comp.new_tests

    assert newcomers("human") == ((("tests/u.py", "E"),), ("tests/u.py",))
    assert newcomers("agent") == ((), ("tests/u.py",))


def test_the_standard_counts_baselined_code_the_base_no_longer_has_at_the_class_it_was_adopted_at():
    # Code adopted in src/old/ moved since (the base has none of it): a new module beside where it
    # stood owes what it was adopted at; without the baseline's rows it owes the floor.
    base = make_facts([TargetFact("lib/x.py", "python_source", F.PRODUCTION, ("lib/x.py",), region="pure")])
    head = make_facts(base.targets + (TargetFact("src/new/b.py", "python_source", F.PRODUCTION, ("src/new/b.py",),
                                                 region="pure"),))
    rows = (("src/old/a.py", "src/old/a.py", "pure"), ("src/old/s.py", "src/old/s.py", "state"))

    def owed(baseline, adopted):
        comp = compare(base, head, [Change("src/new/b.py", "A")], Policy(lane="human"), baseline=baseline, adopted=adopted)
        (region,) = comp.regions
        return region.required

    assert owed({"src/old/a.py": "E", "src/old/s.py": "L"}, rows) == "E"
    assert owed({"src/old/a.py": "E"}, ()) == "P"
    assert owed({"src/old/s.py": "L"}, rows) == "P"  # only code of its kind
