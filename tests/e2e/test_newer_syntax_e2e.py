"""Syntax newer than Pants' own Python 3.9: a repository on CPython 3.11 whose production code uses
`match` statements. The gate parses it (the line-preserving downgrade), finds the changed symbol
when only a pattern changed, runs the oracles on 3.11, and neither rejects honest code as
unparsable nor breaks on mutation (no mutants for a file 3.9 cannot read as written)."""
from __future__ import annotations

import pytest

from e2e.harness import Repo, new_repo

KIND_OF = '''

def kind_of(doc: Dict[str, Any]) -> str:
    match doc:
        case {"id": str(), "lines": list()} if not problems(doc):
            return "invoice"
        case {"balances": dict()}:
            return "store"
        case _:
            return "unknown"
'''
KIND_OF_PROPS = '''from hypothesis import given
from hypothesis import strategies as st

from billing.schema import kind_of


@given(st.text(max_size=8), st.dictionaries(st.text(max_size=4), st.integers(0, 100), max_size=3))
def test_each_document_has_its_kind(ident, balances):
    assert kind_of({"id": ident, "lines": [["x", 1]]}) == "invoice"
    assert kind_of({"balances": balances}) == "store"
    assert kind_of({"other": ident}) == "unknown"
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    repo = new_repo(tmp_path_factory.mktemp("newer-syntax"), pantsd=True)
    repo.replace("pants.toml", 'interpreter_constraints = ["CPython==3.9.*"]', 'interpreter_constraints = ["CPython==3.11.*"]')
    repo.append("src/billing/schema.py", KIND_OF)
    repo.write("oracle/properties/test_kind_props.py", KIND_OF_PROPS)
    repo.commit("kind_of, with a match statement, and its property")
    yield repo
    repo.stop_pantsd()


@pytest.fixture
def patch(repo: Repo):
    yield from repo.scenarios()


def test_an_honest_change_inside_a_case_merges(patch):
    repo = patch("honest")
    repo.replace("src/billing/schema.py", 'return "unknown"', 'return "un" + "known"')
    repo.commit("an equivalent return in the last case")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    (region,) = run.report["regions"]
    assert region["symbols"] == [{"symbol": "kind_of", "ran": ["oracle/properties/test_kind_props.py"]}], region


def test_a_pattern_change_is_a_changed_symbol_and_its_property_fails(patch):
    repo = patch("pattern")
    repo.replace("src/billing/schema.py", 'case {"balances": dict()}:', 'case {"balance": dict()}:')
    repo.commit("a pattern that no longer matches stores")
    run = repo.gate()
    assert run.exit_code == 1 and "FAIL" in run.codes(), run.output
    assert "TEST_AWARE_CODE" not in run.codes() and "Traceback" not in run.output, run.output
