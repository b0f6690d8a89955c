"""Known cases of the adoption baseline: its file round-trips, bad files are one-line errors, and
the comparison requires of a changed region what the baseline recorded until the region reaches
its floor (the ratchet), never more than the floor and never less once reached."""
import json

import pytest

from oracle_gate.core import facts as F
from oracle_gate.core.baseline import Baseline, BaselineError, BaselineRegion, BaselineSkip, make_baseline
from oracle_gate.core.compare import Change, Policy, compare
from oracle_gate.core.facts import TargetFact, make_facts

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
