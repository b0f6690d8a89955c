"""Laws of lockfile changes: a lock compared with itself affects nothing (also after re-serialising
it); the comparison is symmetric; what it reports is closed upwards (whatever requires an affected
project is affected) and nothing more (every affected project differs itself or requires, directly
or not, one that does); and a Pex lock and the pinned requirement file of the same pins agree."""
import json
from typing import Dict, FrozenSet, Set, Tuple

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.lanes.dependencies import changed_projects, lock_pins

NAMES = ["attrs", "idna", "requests", "six", "urllib3", "zope-interface"]
Locks = Dict[str, Tuple[str, Tuple[str, ...]]]


@st.composite
def locks(draw) -> Locks:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True))
    def requires(n: str) -> Tuple[str, ...]:
        others = [m for m in names if m != n]
        return tuple(draw(st.lists(st.sampled_from(others), unique=True))) if others else ()

    return {n: (draw(st.sampled_from(["1.0", "1.1", "2.0"])), requires(n)) for n in names}


def pex(lock: Locks, indent=None) -> str:
    reqs = [{"project_name": n, "version": v, "requires_dists": [f"{r}>=0" for r in req],
             "artifacts": [{"algorithm": "sha256", "hash": f"{n}{v}"}]} for n, (v, req) in lock.items()]
    return "// header\n" + json.dumps({"locked_resolves": [{"locked_requirements": reqs}]}, indent=indent)


def closure_of_differences(a: Locks, b: Locks) -> FrozenSet[str]:
    """The specification, by brute force: a fixpoint over both locks' requirement edges."""
    affected: Set[str] = {n for n in set(a) | set(b) if a.get(n, (None,))[0] != b.get(n, (None,))[0]
                          or (n in a) != (n in b) or sorted(a.get(n, ("", ()))[1]) != sorted(b.get(n, ("", ()))[1])}
    grew = True
    while grew:
        grew = False
        for lock in (a, b):
            for n, (_, requires) in lock.items():
                if n not in affected and affected & set(requires):
                    affected.add(n)
                    grew = True
    return frozenset(affected)


@given(locks())
def test_a_lock_compared_with_itself_or_its_reserialisation_affects_nothing(lock):
    assert changed_projects(pex(lock), pex(lock)) == frozenset()
    assert changed_projects(pex(lock), pex(lock, indent=2)) == frozenset()


@given(locks(), locks())
def test_the_affected_set_is_symmetric_and_exactly_the_upward_closure_of_the_differences(a, b):
    got = changed_projects(pex(a), pex(b))
    assert got == changed_projects(pex(b), pex(a))
    assert got == closure_of_differences(a, b)


@given(locks(), locks())
def test_a_pinned_requirement_file_agrees_with_the_pex_lock_on_versions(a, b):
    def pinned(lock: Locks) -> str:
        return "".join(f"{n}=={v}\n" for n, (v, _) in lock.items())

    flat_a = {n: (v, ()) for n, (v, _) in a.items()}
    flat_b = {n: (v, ()) for n, (v, _) in b.items()}
    assert changed_projects(pinned(a), pinned(b)) == closure_of_differences(flat_a, flat_b)
    assert set(lock_pins(pinned(a)) or {}) == set(a)
