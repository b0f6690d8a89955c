"""The judge lives outside the accused's house: `./pants oracle-gate` runs under the merge base's
configuration files and plugin code, so a patch cannot configure or replace its own judge.

The repository here loads the plugin from its own tree (`pythonpath = ["%(buildroot)s/plugin"]`), as
this repository does. Each patch is run twice: with `ORACLE_GATE_JUDGE=head` (the head's
configuration and plugin, as every Pants command reads them) the attack merges with exit 0, which
shows it works; through the launcher's default judge mode it gets the real verdict.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from e2e.harness import PLUGIN_SRC, new_repo

# A plugin the patch brings along: its `oracle-gate` goal says merge.
FAKE_REGISTER = '''\
from pants.engine.console import Console
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.rules import collect_rules, goal_rule
from pants.option.option_types import StrListOption, StrOption


class FakeGateSubsystem(GoalSubsystem):
    name = "oracle-gate"
    help = "a judge the patch wrote"
    base = StrOption(default="", help="-")
    report = StrOption(default="", help="-")
    other_globs = StrListOption(default=[], help="-")  # what the repository's config sets


class FakeGate(Goal):
    subsystem_cls = FakeGateSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@goal_rule
async def fake_gate(console: Console) -> FakeGate:
    console.print_stdout("VERDICT merge exit=0")
    return FakeGate(exit_code=0)


def rules():
    return collect_rules()
'''
# A real bug: the first `remainder + 1` parts get the extra cent (a cent is created).
BUG = ("    return [base + (1 if i < remainder else 0) for i in range(parts)]",
       "    return [base + (1 if i <= remainder else 0) for i in range(parts)]")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = new_repo(tmp_path_factory.mktemp("judge"))
    shutil.copytree(PLUGIN_SRC / "oracle_gate", repo.path("plugin/oracle_gate"),
                    ignore=shutil.ignore_patterns("__pycache__", "BUILD"))
    repo.replace("pants.toml", f'pythonpath = ["{PLUGIN_SRC}"]', 'pythonpath = ["%(buildroot)s/plugin"]')
    # The plugin's own files are tooling this repository's policy lists (as this repository lists
    # its build-support scripts): a change there is not production, and no target owns it.
    repo.append("pants.toml", '\n[oracle-gate]\nother_globs.add = ["plugin/*", "fake/*"]\n')
    repo.commit("the plugin in the tree")
    yield from repo.scenarios()


def both(repo) -> tuple:
    head = repo.gate(env={"ORACLE_GATE_JUDGE": "head"})
    judged = repo.gate()
    return head, judged


def test_a_head_that_edits_the_plugin_in_its_tree_is_judged_by_the_base_plugin(repo):
    r = repo("edit-the-judge")
    r.replace("plugin/oracle_gate/core/judge/verdict.py", "def _exit_code(reasons: Iterable[Reason]) -> int:\n",
              "def _exit_code(reasons: Iterable[Reason]) -> int:\n    return EXIT_MERGE\n")
    r.replace("src/billing/money.py", *BUG)
    r.commit("split: rounding (and a friendlier verdict)")
    head, judged = both(r)
    assert head.exit_code == 0, head.stdout + head.stderr  # the edited judge merges its own bug
    assert judged.exit_code == 1, judged.stdout + judged.stderr
    assert "FAIL" in judged.codes(), judged.stdout
    assert "judged under the base's configuration and plugin" in judged.stderr


def swap_in_a_fake_plugin(r, edit_config) -> list:
    """The head brings a fake plugin, points the configuration at it (`edit_config`) and ships a
    bug: the fake merges it; judged under the base's configuration, the CONFIG_CHANGE lines."""
    r.write("fake/oracle_gate/__init__.py", "")
    r.write("fake/oracle_gate/register.py", FAKE_REGISTER)
    edit_config(r)
    r.replace("src/billing/money.py", *BUG)
    r.commit("split: rounding")
    head, judged = both(r)
    assert head.exit_code == 0 and "VERDICT merge" in head.stdout, head.stdout + head.stderr
    assert judged.exit_code == 2, judged.stdout + judged.stderr
    return [x["line"] for x in judged.report["reasons"] if x["code"] == "CONFIG_CHANGE"]


def test_a_head_pants_toml_pointing_pythonpath_at_a_fake_plugin_is_a_config_change(repo):
    lines = swap_in_a_fake_plugin(repo("fake-plugin-by-pants-toml"), lambda r: r.replace(
        "pants.toml", 'pythonpath = ["%(buildroot)s/plugin"]', 'pythonpath = ["%(buildroot)s/fake"]'))
    assert any(line.startswith("CONFIG_CHANGE pants.toml [GLOBAL].pythonpath ") for line in lines), lines


def test_a_head_pants_rc_that_swaps_the_plugin_is_a_config_change(repo):
    lines = swap_in_a_fake_plugin(repo("fake-plugin-by-pants-rc"), lambda r: r.write(
        ".pants.rc", '[GLOBAL]\npythonpath = ["%(buildroot)s/fake"]\n'))
    assert any(line.startswith("CONFIG_CHANGE .pants.rc [GLOBAL].pythonpath base=null ") for line in lines), lines


# README "In CI": the base's launcher runs the gate, so a head cannot replace the launcher either.
CI_COMMAND = '''\
ref=main
git show "$(git merge-base HEAD "$ref"):pants" > "$RUNNER_TEMP/pants-base"
bash "$RUNNER_TEMP/pants-base" oracle-gate --oracle-gate-base="$ref" --oracle-gate-require-jail --oracle-gate-report="$REPORT" ::
'''


def test_the_ci_command_runs_the_base_launcher_when_the_head_replaces_it(repo, tmp_path):
    r = repo("fake-launcher")
    r.write("pants", '#!/usr/bin/env bash\necho "VERDICT merge exit=0"\n')
    r.replace("src/billing/money.py", *BUG)
    r.commit("split: rounding")
    head = r.gate()
    assert head.exit_code == 0 and head.report is None, head.stdout  # the head's launcher merges
    report = tmp_path / "gate.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    r.guard_daemon()  # the command is CI's, as written: Pants starts its daemon
    try:
        proc = subprocess.run(["bash", "-c", CI_COMMAND], cwd=r.root, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env={**env, "RUNNER_TEMP": str(tmp_path), "REPORT": str(report)})
    finally:
        r.stop_pantsd()
    # The base's launcher ran the base's gate: the new launcher is a file no target owns.
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "judged under the base's configuration and plugin" in proc.stderr
    lines = [x["line"] for x in json.loads(report.read_text())["reasons"]]
    assert "UNMAPPED pants is owned by no target" in lines, lines
