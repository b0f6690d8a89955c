"""The catalogue's shared runner: every attack caught, for the reason it names; no honest patch or
sequence rejected. Each entry is a real commit on a real repository judged by the real gate. The
families are split over three test files so Pants runs them side by side (one repository and one
pantsd each); each file's summary prints caught/total per class of hole."""
from __future__ import annotations

from typing import Callable, Dict, Sequence, Tuple

import pytest

from e2e.catalogue import CATALOGUE, Patch, replay
from e2e.harness import Repo, new_repo


def make_tests(families: Sequence[str]) -> Tuple[Callable, Callable, Callable]:
    """A module-scoped repository fixture, the parametrised entry test and the summary test for
    the catalogue entries of `families`."""
    entries = [p for p in CATALOGUE if p.family in families]
    outcomes: Dict[str, Tuple[Patch, bool]] = {}

    @pytest.fixture(scope="module")
    def repo(tmp_path_factory) -> Repo:
        repo = new_repo(tmp_path_factory.mktemp("catalogue"), pantsd=True)
        yield repo
        repo.stop_pantsd()

    @pytest.mark.parametrize("patch", entries, ids=[f"{p.family}:{p.name}" for p in entries])
    def test_catalogue(repo: Repo, patch: Patch):
        runs = replay(repo, patch)
        if patch.honest:
            outcomes[patch.name] = (patch, all(r.exit_code == 0 for r in runs))
            for run in runs:
                assert run.exit_code == 0, run.output
            return
        (run,) = runs
        codes = run.codes()
        missing = [c for c in patch.expect if c not in codes]
        any_ok = not patch.expect_any or any(c in codes for c in patch.expect_any)
        outcomes[patch.name] = (patch, run.exit_code != 0 and not missing and any_ok)
        assert run.exit_code != 0, run.output
        assert not missing, f"{patch.name}: expected {missing} in {run.reasons}"
        assert any_ok, f"{patch.name}: expected one of {patch.expect_any} in {run.reasons}"

    def test_summary():
        print()
        for family in families:
            mine = [p for p in entries if p.family == family]
            ok = sum(1 for p, good in outcomes.values() if p.family == family and good)
            verb = "merged" if family == "honest" else "caught"
            print(f"catalogue {family}: {verb} {ok}/{len(mine)}")
        assert len(outcomes) == len(entries)
        assert all(good for _, good in outcomes.values())

    return repo, test_catalogue, test_summary
