"""The catalogue's shared runner: every attack caught, for the reason it names; no honest patch or
sequence rejected. Each entry is a real commit on a real repository judged by the real gate. The
families are split over test files so Pants runs them side by side (one repository and one pantsd
each); each file prints caught/total per class of hole when its repository is torn down."""
from __future__ import annotations

from typing import Callable, Dict, Sequence, Tuple

import pytest

from e2e.catalogue import CATALOGUE, Patch, replay
from e2e.harness import Repo, new_repo


def make_tests(families: Sequence[str], share: Tuple[int, int] = (0, 1)) -> Tuple[Callable, Callable]:
    """A module-scoped repository fixture (which prints the summary) and the parametrised entry
    test for the catalogue entries of `families`; with `share` (k, n), every n-th of them from the
    k-th (a family too large for one test file's time limit, split over n files)."""
    entries = [p for p in CATALOGUE if p.family in families][share[0]::share[1]]
    outcomes: Dict[str, Tuple[Patch, bool]] = {}

    @pytest.fixture(scope="module")
    def repo(tmp_path_factory) -> Repo:
        repo = new_repo(tmp_path_factory.mktemp("catalogue"), pantsd=True)
        yield repo
        repo.stop_pantsd()
        summary(outcomes)

    def summary(outcomes: Dict[str, Tuple[Patch, bool]]) -> None:
        """caught/total per class of hole, over the entries that ran (printed, never a test: each
        entry's own test is the verdict, whatever ran before it)."""
        print()
        for family in families:
            ran = [good for p, good in outcomes.values() if p.family == family]
            verb = "merged" if family == "honest" else "caught"
            print(f"catalogue {family}: {verb} {sum(ran)}/{len(ran)} of {sum(p.family == family for p in entries)} entries")

    @pytest.mark.parametrize("patch", entries, ids=[f"{p.family}:{p.name}" for p in entries])
    def test_catalogue(repo: Repo, patch: Patch):
        runs = replay(repo, patch)
        if patch.honest:
            outcomes[patch.name] = (patch, all(r.exit_code == 0 for r in runs))
            for run in runs:
                assert run.exit_code == 0, run.output
            missing = [c for c in patch.expect if c not in runs[0].codes()]
            assert not missing, f"{patch.name}: merged without {missing}: {runs[0].reasons}"
            return
        (run,) = runs
        codes = run.codes()
        missing = [c for c in patch.expect if c not in codes]
        unsaid = [text for text in patch.said if not any(text in reason for reason in run.reasons)]
        outcomes[patch.name] = (patch, run.exit_code == patch.expected_exit and not missing and not unsaid)
        assert not missing, f"{patch.name}: expected {missing} (exit {run.exit_code}) in {run.reasons}"
        assert not unsaid, f"{patch.name}: no reason line says {unsaid}: {run.reasons}"
        assert run.exit_code == patch.expected_exit, (
            f"{patch.name}: exit {run.exit_code}, expected {patch.expected_exit}: {run.reasons}")

    return repo, test_catalogue
