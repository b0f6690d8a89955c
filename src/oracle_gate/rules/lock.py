"""`pants oracle-lock`: the human lane's tool to re-lock fixtures after an intended change.

It never runs implicitly: the gate only ever reports FIXTURE_DRIFT. This goal rewrites the
`sha256=` of the chosen `locked_fixture` targets in their BUILD files and prints both digests.
`write_region_table` is `oracle-regions --write`'s writer: the other file the human lane edits.
"""
from __future__ import annotations

import json
import os
import re
from typing import List, Mapping, Optional, Sequence

from pants.base.build_root import BuildRoot
from pants.engine.addresses import Address
from pants.engine.console import Console
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule
from pants.engine.target import FilteredTargets

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


REGION_TABLE = "oracle-regions.json"


def _set_gate_option(toml: str, name: str, line: str) -> str:
    """`toml` with `line` (which sets `name`) under `[oracle-gate]`, added once; ValueError when
    the file already sets `name` another way (a person merges it)."""
    section = re.search(r"(?m)^\[oracle-gate\][ \t]*(#.*)?$", toml)
    body = toml[section.end():] if section else ""
    nxt = re.search(r"(?m)^\[", body)
    body = body[:nxt.start()] if nxt else body
    if line in body.splitlines():
        return toml
    if re.search(rf"(?m)^\s*{re.escape(name)}(\.add|\.remove)?\s*=", body) or re.search(rf"(?m)^\[oracle-gate\.{re.escape(name)}\]", toml):
        raise ValueError(f"pants.toml sets [oracle-gate].{name} already; add this by hand: {line}")
    if section:
        return toml[:section.end()] + "\n" + line + toml[section.end():]
    return toml + ("\n" if toml and not toml.endswith("\n") else "") + "\n[oracle-gate]\n" + line + "\n"


def write_adoption(build_root: str, table: Optional[Mapping[str, str]], other_globs: Sequence[str]) -> str:
    """Adoption's reviewed policy: the region table in oracle-regions.json (sorted, an entry a line)
    read by `regions = "@oracle-regions.json"`, and `other_globs.add` for the unowned paths, both
    under `[oracle-gate]` in pants.toml. No BUILD file is touched. Returns what it wrote."""
    toml_path = os.path.join(build_root, "pants.toml")
    toml = open(toml_path, encoding="utf-8").read() if os.path.exists(toml_path) else ""
    new = toml
    written = []
    if table:
        new = _set_gate_option(new, "regions", f'regions = "@{REGION_TABLE}"')
    if other_globs:
        new = _set_gate_option(new, "other_globs", "other_globs.add = [" + ", ".join(json.dumps(g) for g in other_globs) + "]")
    if table:
        with open(os.path.join(build_root, REGION_TABLE), "w", encoding="utf-8") as f:
            f.write("{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(table.items())) + "\n}\n")
        written.append(f"{REGION_TABLE} ({len(table)} entries)")
    if new != toml:
        with open(toml_path, "w", encoding="utf-8") as f:
            f.write(new)
        written.append("pants.toml")
    return " and ".join(written)


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
