"""`pants oracle-lock`: the human lane's tool to re-lock fixtures after an intended change.

It never runs implicitly: the gate only ever reports FIXTURE_DRIFT. This goal rewrites the
`sha256=` of the chosen `locked_fixture` targets in their BUILD files and prints both digests.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Sequence

from pants.base.build_root import BuildRoot
from pants.engine.addresses import Address
from pants.engine.console import Console
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule
from pants.engine.target import FilteredTargets

from oracle_gate.core import regions as R
from oracle_gate.rules.facts import FixtureDigest, FixtureDigestRequest
from oracle_gate.target_types import Sha256Field


class OracleLockSubsystem(GoalSubsystem):
    name = "oracle-lock"
    help = (
        "Rewrite the `sha256` of the given locked targets (`locked_fixture`, `oracle_replay`, "
        "`oracle_probes`, `oracle_baseline`) to their current bytes: the human lane, after an "
        "intended change. Prints old and new digests. `pants lint` reports drift without writing."
    )


class OracleLock(Goal):
    subsystem_cls = OracleLockSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


LOCKED_ALIASES = ("locked_fixture", "oracle_baseline", "oracle_replay", "oracle_probes")
_NAME_RE = re.compile(r"""\bname\s*=\s*["']([^"']+)["']""")


def _call_spans(text: str, aliases: Sequence[str] = LOCKED_ALIASES):
    """(start, end) of each call of one of `aliases`, matching parentheses outside strings."""
    call_re = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(a) for a in aliases) + r")\s*\(")
    for match in call_re.finditer(text):
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


def _build_files(directory: str) -> List[str]:
    if not os.path.isdir(directory):
        return []
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory))
            if (n == "BUILD" or n.startswith("BUILD.")) and os.path.isfile(os.path.join(directory, n))]


def _insert_kwargs(build_root: str, directory: str, alias: str, name: str, kwargs: str,
                   refuse_if: str) -> bool:
    """Insert `kwargs` as the first arguments of the `alias(...)` call declaring `name`, unless
    that call already mentions `refuse_if` (then a person merges it). True when written."""
    default_name = os.path.basename(directory) or os.path.basename(build_root)
    for path in _build_files(os.path.join(build_root, directory)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for start, end in _call_spans(text, (alias,)):
            call = text[start:end]
            named = _NAME_RE.search(call)
            if (named.group(1) if named else default_name) != name:
                continue
            if re.search(r"\b" + re.escape(refuse_if) + r"\s*=", call):
                return False
            paren = start + call.index("(") + 1
            rest = text[paren:]
            separator = "" if rest.lstrip().startswith(")") else ", "
            with open(path, "w", encoding="utf-8") as f:
                f.write(text[:paren] + kwargs + separator + rest)
            return True
    return False


def write_region_edits(build_root: str, edits: Sequence[R.Edit]) -> List[str]:
    """Apply region edits that only add settings (adoption); everything else is returned as a
    line for a person to apply."""
    manual: List[str] = []
    overrides: Dict[tuple, List[R.Edit]] = {}
    for e in edits:
        if e.old is not None or e.new is None:
            manual.append(f"{e.build_file}: {e.target} {e.file or ''} oracle_region {e.old!r} -> {e.new!r}")
        elif e.statement == "defaults":
            path = os.path.join(build_root, e.build_file)
            text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            with open(path, "w", encoding="utf-8") as f:
                f.write(f'__defaults__(all=dict(oracle_region="{e.new}"), extend=True)\n' + text)
        elif e.statement == "field":
            _, name = e.target.split(":", 1)
            if not _insert_kwargs(build_root, e.directory, e.alias, name, f'oracle_region="{e.new}"', "oracle_region"):
                manual.append(f"{e.build_file}: {e.target} oracle_region={e.new!r}")
        else:
            overrides.setdefault((e.directory, e.target, e.alias), []).append(e)
    for (directory, target, alias), group in sorted(overrides.items()):
        _, name = target.split(":", 1)
        entries = ", ".join(f'"{e.file}": {{"oracle_region": "{e.new}"}}' for e in sorted(group, key=lambda e: e.file or ""))
        if not _insert_kwargs(build_root, directory, alias, name, "overrides={" + entries + "}", "overrides"):
            manual.extend(f"{e.build_file}: {target} overrides[{e.file!r}].oracle_region={e.new!r}" for e in group)
    return manual


def rewrite_lock(build_root: str, address: Address, old: str, new: str) -> Optional[str]:
    """Replace `old` by `new` in the `sha256=` of the call declaring `address`; the BUILD file
    written (relative to the build root), or None when no such call holds `old`."""
    directory = os.path.join(build_root, address.spec_path)
    default_name = os.path.basename(address.spec_path) or os.path.basename(build_root)
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not (name == "BUILD" or name.startswith("BUILD.")) or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        updated = relock_text(text, address.target_name, default_name, old, new)
        if updated is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(updated)
            return os.path.relpath(path, build_root)
    return None


@goal_rule
async def run_oracle_lock(console: Console, build_root: BuildRoot, targets: FilteredTargets) -> OracleLock:
    fixtures = [t for t in targets if t.has_field(Sha256Field)]
    if not fixtures:
        console.print_stderr("oracle-lock: no locked targets (locked_fixture, oracle_replay, oracle_probes, oracle_baseline) in the given specs")
        return OracleLock(exit_code=2)
    digests: List[FixtureDigest] = await MultiGet(Get(FixtureDigest, FixtureDigestRequest(t)) for t in fixtures)
    exit_code = 0
    for digest in digests:
        address = digest.address
        if digest.actual is None:
            console.print_stderr(f"oracle-lock: {address}: the locked file {digest.path} is missing")
            exit_code = 2
            continue
        if digest.actual == digest.expected:
            console.print_stdout(f"UNCHANGED {address} sha256={digest.actual[:12]}")
            continue
        written = rewrite_lock(build_root.path, address, digest.expected, digest.actual)
        if written is None:
            console.print_stderr(f"oracle-lock: {address}: could not find its sha256 in a BUILD file under {address.spec_path or '.'}")
            exit_code = 2
            continue
        console.print_stdout(f"LOCKED {address} old={digest.expected[:12]} new={digest.actual[:12]} ({written})")
    return OracleLock(exit_code=exit_code)


def rules():
    return collect_rules()
