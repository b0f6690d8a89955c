"""The `oracle-gate` goal's options, and the policy they make: each option from the command line or
the environment, else the base commit's configuration, else the typed Policy's default."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict

from pants.engine.goal import Goal, GoalSubsystem
from pants.option.option_types import BoolOption, DictOption, IntOption, StrListOption, StrOption
from pants.util.strutil import help_text

from oracle_gate.core.judge import verdict as V
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.compare import Policy

# Option defaults are the typed policy's own (core/lanes/compare.Policy): one definition.
CLI_ONLY = frozenset({"base", "lane", "accept_tautology"})


class OracleGateSubsystem(GoalSubsystem):
    name = "oracle-gate"
    help = help_text(
        """
        Decide whether a diff may merge. The merge base is the judge: its facts (targets, regions,
        covering oracles, classes, locks, ledgers, configuration) are built once per base commit
        and reused; the head is judged against them. Every changed symbol of a changed production
        region must be executed by a voting oracle at the region's floor (P for pure, concurrent
        and schema; L for state and io; the baseline's class during adoption), and the diff must
        not change, shrink or re-classify the oracles that judge it. Exit codes: 0 merge,
        1 product failure, 2 policy failure, 3 empty vote, 4 infrastructure failure.

        Every option here is taken from the command line (or the environment) or from the base
        commit's configuration; the head's configuration is evidence, and an effective difference
        is itself a policy failure (CONFIG_CHANGE).
        """
    )

    base = StrOption(default=None, help="The git ref to diff against (its merge base with HEAD). Default: the first of origin/main, main, origin/master, master. Command line only.")
    lane = StrOption(
        default=Policy.lane,
        help=help_text(
            """
            `agent` (default): production and its judges never change together; oracle edits fail.
            `human`: an intended contract change reviewed by a person: production and oracles may
            change together, the changed oracles judge and must pass. Command line only.
            """
        ),
    )
    accept_tautology = BoolOption(default=False, advanced=True, help="Human lane only: accept TAUTOLOGY findings on changed oracles after review. Command line only.")
    report = StrOption(default=None, help="Write the versioned JSON report here (under dist/ when relative).")
    junit = StrOption(default=None, help="Write a JUnit XML report here (under dist/ when relative): one test case per region and per oracle.")
    print_signatures = BoolOption(default=False, help="Print a freeze-ledger row template for every failure and unlisted skip.")
    dry_run = BoolOption(default=False, help="Print lanes, regions, demotions, predicted reasons and the run plan; run nothing; exit 0.")
    run_all = BoolOption(default=False, advanced=True, help="Run the oracles even when the verdict is already a policy failure.")
    jail = BoolOption(
        default=Policy.jail,
        advanced=True,
        help=help_text(
            """
            Run every test process of the gate (oracles, the diff's tests, drafts, mutants) in a jail:
            Linux mount, network and PID namespaces; the file system read-only except its sandbox and
            Pants' named caches, no network beyond loopback, no process outliving it. Where
            namespaces are unavailable the report says so (NOTE). Jailed runs do not share cache
            entries with plain `pants test`; `false` makes them the very processes `pants test` runs.
            """
        ),
    )
    require_jail = BoolOption(default=False, help="Where test processes cannot be jailed, run none and fail with INFRA_ERROR (recommended for CI).")
    exclude_tags = StrListOption(default=[], help="Tests with any of these tags (e.g. needs-docker) never run and never vote; listed as EXCLUDED.")
    exclude_globs = StrListOption(default=[], help="Test files matching these globs (e.g. tests/integration/*) never run and never vote, like exclude_tags; no BUILD edit, so deleting or renaming a test never breaks the build.")
    other_globs = StrListOption(default=list(Policy.other_globs), advanced=True, help="Globs of unowned paths that are documentation. Any other unowned path fails closed (UNMAPPED).")
    regions = DictOption[str](
        default={},
        help=help_text(
            """
            Region kinds for code without an `oracle_region` of its own: keys are a file path from
            the build root or a directory tree (`src/app/**`, `**` for all), values a kind; the
            file's entry wins, else the nearest tree. `oracle-regions --write` writes them to
            `oracle-regions.json` and sets `regions = "@oracle-regions.json"`, which survives
            deleted and renamed files and never edits a BUILD file.
            """
        ),
    )
    max_freeze_days = IntOption(default=Policy.max_freeze_days, advanced=True, help="The longest a freeze-ledger row may last (expires - added).")
    min_rank_required = StrOption(default=Policy.min_rank_required, advanced=True, help=f"The ladder rank that must have run and passed: one of {', '.join(V.RANKS)}.")
    mutants_per_symbol = IntOption(default=Policy.mutants_per_symbol, advanced=True, help="Mutants generated per changed symbol (0 turns numbness checks off).")
    mutation_budget = IntOption(default=Policy.mutation_budget, advanced=True, help="At most this many mutants per gate run.")
    mutation_timeout = IntOption(default=Policy.mutation_timeout, advanced=True, help="Seconds a mutant run may take before it counts as killed.")
    compare_base = BoolOption(default=Policy.compare_base, advanced=True, help="Run each changed function of a pure, schema, state, io or concurrent region, on its voters' calls and their widenings, in the base's code beside the head's; a difference no voter failed on is UNJUDGED_CHANGE.")


class OracleGate(Goal):
    subsystem_cls = OracleGateSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


def effective_policy(gate: OracleGateSubsystem, base: F.Facts) -> Policy:
    """Each option from the command line or environment, else the base's configuration, else the
    default. The head's configuration never decides. A bad value raises ValueError (one line)."""
    out: Dict[str, Any] = {}
    for f in dataclasses.fields(Policy):
        rank = gate.options.get_rank(f.name).name
        if rank in ("FLAG", "ENVIRONMENT"):
            out[f.name] = getattr(gate, f.name)
        elif f.name not in CLI_ONLY:
            out[f.name] = base.option(f"oracle-gate.{f.name}", f.default)
    return Policy.from_options(out, V.RANKS)
