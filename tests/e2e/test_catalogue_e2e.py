"""The catalogue: every attack caught, for the reason it names; no honest patch or sequence
rejected. Each entry is a real commit on a real repository judged by the real gate; the closing
test prints caught/total per class of hole."""
from __future__ import annotations

import pytest

from e2e.catalogue import CATALOGUE, FAMILIES, Patch, replay
from e2e.harness import Repo, new_repo

OUTCOMES: dict = {}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    repo = new_repo(tmp_path_factory.mktemp("catalogue"), pantsd=True)
    yield repo
    repo.stop_pantsd()


@pytest.mark.parametrize("patch", CATALOGUE, ids=[f"{p.family}:{p.name}" for p in CATALOGUE])
def test_catalogue(repo: Repo, patch: Patch):
    runs = replay(repo, patch)
    if patch.honest:
        OUTCOMES[patch.name] = (patch, all(r.exit_code == 0 for r in runs))
        for run in runs:
            assert run.exit_code == 0, run.output
        return
    (run,) = runs
    codes = run.codes()
    missing = [c for c in patch.expect if c not in codes]
    any_ok = not patch.expect_any or any(c in codes for c in patch.expect_any)
    caught = run.exit_code != 0 and not missing and any_ok
    OUTCOMES[patch.name] = (patch, caught)
    assert run.exit_code != 0, run.output
    assert not missing, f"{patch.name}: expected {missing} in {run.reasons}"
    assert any_ok, f"{patch.name}: expected one of {patch.expect_any} in {run.reasons}"


def test_summary():
    lines = []
    for family in FAMILIES:
        entries = [(p, ok) for p, ok in OUTCOMES.values() if p.family == family]
        total = sum(1 for p in CATALOGUE if p.family == family)
        if family == "honest":
            lines.append(f"  honest: {sum(ok for _, ok in entries)}/{total} merged")
        else:
            lines.append(f"  {family}: caught {sum(ok for _, ok in entries)}/{total}")
    attacks = [p for p in CATALOGUE if not p.honest]
    caught = sum(1 for p, ok in OUTCOMES.values() if not p.honest and ok)
    merged = sum(1 for p, ok in OUTCOMES.values() if p.honest and ok)
    honest = len(CATALOGUE) - len(attacks)
    print(f"\ncatalogue: caught {caught}/{len(attacks)} attacks, {honest - merged}/{honest} honest patches falsely rejected")
    print("\n".join(lines))
    assert len(OUTCOMES) == len(CATALOGUE)
    assert caught == len(attacks) and merged == honest
