"""`pants oracle-lock`: the human lane's tool to re-lock fixtures after an intended change.

It never runs implicitly: the gate only ever reports FIXTURE_DRIFT. This goal rewrites the
`sha256=` of the chosen `locked_fixture` targets in their BUILD files and prints both digests.
"""
from __future__ import annotations

import os
import re
from typing import List, Optional

from pants.base.build_root import BuildRoot
from pants.engine.console import Console
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule
from pants.engine.target import FilteredTargets

from oracle_gate.rules.facts import FixtureDigest, FixtureDigestRequest
from oracle_gate.target_types import LockedFixtureSourceField


class OracleLockSubsystem(GoalSubsystem):
    name = "oracle-lock"
    help = (
        "Rewrite the `sha256` of the given `locked_fixture` targets to their current bytes "
        "(the human lane, after an intended fixture change). Prints old and new digests."
    )


class OracleLock(Goal):
    subsystem_cls = OracleLockSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


_CALL_RE = re.compile(r"\blocked_fixture\s*\(")
_NAME_RE = re.compile(r"""\bname\s*=\s*["']([^"']+)["']""")


def _call_spans(text: str):
    """(start, end) of each `locked_fixture(...)` call, matching parentheses outside strings."""
    for match in _CALL_RE.finditer(text):
        depth, i, quote = 0, match.end() - 1, None
        while i < len(text):
            ch = text[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    yield match.start(), i + 1
                    break
            i += 1


def relock_text(text: str, target_name: str, default_name: str, old: str, new: str) -> Optional[str]:
    """The BUILD text with `old` replaced by `new` inside the one call that declares the target."""
    for start, end in _call_spans(text):
        call = text[start:end]
        named = _NAME_RE.search(call)
        if (named.group(1) if named else default_name) != target_name or old not in call:
            continue
        return text[:start] + call.replace(old, new) + text[end:]
    return None


@goal_rule
async def run_oracle_lock(console: Console, build_root: BuildRoot, targets: FilteredTargets) -> OracleLock:
    fixtures = [t for t in targets if t.has_field(LockedFixtureSourceField)]
    if not fixtures:
        console.print_stderr("oracle-lock: no locked_fixture targets in the given specs")
        return OracleLock(exit_code=2)
    digests: List[FixtureDigest] = await MultiGet(Get(FixtureDigest, FixtureDigestRequest(t)) for t in fixtures)
    exit_code = 0
    for digest in digests:
        address = digest.address
        if digest.actual is None:
            console.print_stderr(f"oracle-lock: {address}: the fixture file {digest.path} is missing")
            exit_code = 2
            continue
        if digest.actual == digest.expected:
            console.print_stdout(f"UNCHANGED {address} sha256={digest.actual[:12]}")
            continue
        directory = os.path.join(build_root.path, address.spec_path)
        default_name = os.path.basename(address.spec_path) or os.path.basename(build_root.path)
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if not (name == "BUILD" or name.startswith("BUILD.")) or not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            updated = relock_text(text, address.target_name, default_name, digest.expected, digest.actual)
            if updated is not None:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(updated)
                console.print_stdout(
                    f"LOCKED {address} old={digest.expected[:12]} new={digest.actual[:12]} ({os.path.relpath(path, build_root.path)})"
                )
                break
        else:
            console.print_stderr(f"oracle-lock: {address}: could not find its sha256 in a BUILD file under {address.spec_path or '.'}")
            exit_code = 2
    return OracleLock(exit_code=exit_code)


def rules():
    return collect_rules()
