#!/usr/bin/env python3
"""Watch the gate judge agent patches: replays catalogue patches against a scratch git copy of
examples/billing and prints, per patch, the verdict, the exit code and the reason lines.

    python3 build-support/demo.py          # a representative selection (about two minutes warm)
    python3 build-support/demo.py --all    # the whole catalogue of tampering and honest patches
    python3 build-support/demo.py --only rebinds-through-lambda    # one patch (repeatable)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from e2e.catalogue import CATALOGUE, replay  # noqa: E402
from e2e.harness import new_repo  # noqa: E402

SELECTION = (
    "refactor-money", "example-test-updated", "docs-only", "new-module-then-property", "weakened-property",
    "region-by-parent-defaults", "gitignore-hides-property", "spurious-import-new-method", "always-equal-decode",
    "probe-made-to-pass", "behaviour-broken",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="replay the whole catalogue")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="replay this patch (repeatable)")
    args = parser.parse_args()
    chosen = set(args.only) or set(SELECTION)
    unknown = chosen - {p.name for p in CATALOGUE}
    if unknown:
        parser.error(f"no catalogue patch named {', '.join(sorted(unknown))}")
    patches = CATALOGUE if args.all else tuple(p for p in CATALOGUE if p.name in chosen)
    wrong = 0
    with tempfile.TemporaryDirectory(prefix="oracle-gate-demo-") as tmp:
        repo = new_repo(Path(tmp), pantsd=True)
        try:
            print(f"scratch repository: {repo.root} (a copy of examples/billing)\n")
            for patch in patches:
                runs = replay(repo, patch)
                expected = all((run.exit_code == 0) == patch.honest for run in runs)
                wrong += not expected
                label = "honest" if patch.honest else "attack"
                print(f"[{label} {patch.family}] {patch.name}: {patch.what}")
                for run in runs:
                    verdict = run.report["verdict"] if run.report else "error"
                    print(f"          exit={run.exit_code} verdict={verdict}{'' if expected else '  <-- UNEXPECTED'}")
                    for line in run.reasons or ([] if run.report else run.stderr.strip().splitlines()[-1:]):
                        print(f"          {line}")
                print()
        finally:
            repo.stop_pantsd()
    tampering = [p for p in patches if not p.honest]
    print(f"{len(patches) - wrong}/{len(patches)} judged as expected "
          f"({len(tampering)} attacks, {len(patches) - len(tampering)} honest)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
