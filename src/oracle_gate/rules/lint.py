"""`pants lint` reports what the gate would refuse about its own locks: drifted fixtures, traces,
probe sets and baselines, and freeze ledgers that are invalid, expired or over their cap."""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, List

from pants.backend.python.target_types import PythonTestSourceField
from pants.core.goals.lint import LintResult, LintTargetsRequest
from pants.core.util_rules.partitions import PartitionerType
from pants.engine.fs import DigestContents, PathGlobs
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import AllTargets, FieldSet, SingleSourceField, Target
from pants.option.option_types import SkipOption
from pants.option.subsystem import Subsystem
from pants.util.logging import LogLevel

from oracle_gate.core.ladder.ledger import check_ledger, suite_size
from oracle_gate.rules.facts import FixtureDigest, FixtureDigestRequest
from oracle_gate.rules.gate_options import OracleGateSubsystem
from oracle_gate.target_types import FreezeLedgerSourceField, GovernsField, Sha256Field


class OracleLocks(Subsystem):
    options_scope = "oracle-locks"
    name = "oracle-locks"
    help = "The oracle-gate lock check in `pants lint`: locked files against their sha256, freeze ledgers against their rules."
    skip = SkipOption("lint")


@dataclass(frozen=True)
class OracleLockFieldSet(FieldSet):
    required_fields = (SingleSourceField,)

    source: SingleSourceField

    @classmethod
    def is_applicable(cls, tgt: Target) -> bool:
        return tgt.has_field(Sha256Field) or tgt.has_field(FreezeLedgerSourceField)


class OracleLocksRequest(LintTargetsRequest):
    field_set_type = OracleLockFieldSet
    tool_subsystem = OracleLocks
    partitioner_type = PartitionerType.DEFAULT_SINGLE_PARTITION


@rule(desc="Check oracle locks and freeze ledgers", level=LogLevel.DEBUG)
async def lint_oracle_locks(request: OracleLocksRequest.Batch[OracleLockFieldSet, Any], all_targets: AllTargets,
                            gate: OracleGateSubsystem) -> LintResult:
    by_address = {t.address: t for t in all_targets}
    targets = [by_address[fs.address] for fs in request.elements if fs.address in by_address]
    locked = [t for t in targets if t.has_field(Sha256Field)]
    ledgers = [t for t in targets if t.has_field(FreezeLedgerSourceField)]
    digests = await MultiGet(Get(FixtureDigest, FixtureDigestRequest(t)) for t in locked)
    contents = await MultiGet(Get(DigestContents, PathGlobs([t[FreezeLedgerSourceField].file_path])) for t in ledgers)
    problems: List[str] = [d.drift for d in digests if d.drift]
    today = datetime.date.today()
    tests = [t[PythonTestSourceField].file_path for t in all_targets if t.has_field(PythonTestSourceField)]
    for t, content in zip(ledgers, contents):
        # The gate's own rule and limit (`max_freeze_days` from this configuration), so lint and
        # the gate never disagree about a ledger.
        _, found = check_ledger(content[0].content.decode("utf-8", errors="replace") if content else None,
                                t[FreezeLedgerSourceField].file_path, int(gate.max_freeze_days), today,
                                suite_size(t[GovernsField].value or ("",), tests))
        problems += found
    ok = len(locked) + len(ledgers) - len(problems)
    stdout = "\n".join(problems + [f"{ok} of {len(locked) + len(ledgers)} locked file(s) and ledger(s) hold"]) + "\n"
    return LintResult(1 if problems else 0, stdout, "", request.tool_name)


def rules():
    return [*collect_rules(), *OracleLocksRequest.rules()]
