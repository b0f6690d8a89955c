"""The tampering catalogue: every pattern caught, no honest patch rejected, each through the real
gate on a real repository. The closing test prints the summary line."""
from __future__ import annotations

import pytest

from e2e.catalogue import CATALOGUE, HONEST, TAMPERING, Patch, replay
from e2e.harness import Repo, new_repo

OUTCOMES: dict = {}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Repo:
    return new_repo(tmp_path_factory.mktemp("catalogue"))


@pytest.mark.parametrize("patch", CATALOGUE, ids=[p.name for p in CATALOGUE])
def test_catalogue(repo: Repo, patch: Patch):
    run = replay(repo, patch)
    OUTCOMES[patch.name] = (patch.honest, run.exit_code)
    if patch.honest:
        assert run.exit_code == 0, run.output
    else:
        assert run.exit_code != 0, run.output
        missing = [code for code in patch.expect if code not in run.codes()]
        assert not missing, f"{patch.name}: expected {missing} in {run.reasons}"


def test_summary():
    caught = sum(1 for honest, code in OUTCOMES.values() if not honest and code != 0)
    false_rejects = sum(1 for honest, code in OUTCOMES.values() if honest and code != 0)
    print(f"\ncatalogue: caught {caught}/{len(TAMPERING)} tampering patterns, "
          f"{false_rejects}/{len(HONEST)} honest patches falsely rejected")
    assert len(OUTCOMES) == len(CATALOGUE)
    assert caught == len(TAMPERING) and false_rejects == 0
