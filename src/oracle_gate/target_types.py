"""The oracle target types and the `oracle_region` field on production sources."""
from __future__ import annotations

from typing import Optional

from pants.backend.python.macros.python_requirements import PythonRequirementsTargetGenerator
from pants.backend.python.target_types import (InterpreterConstraintsField, PythonRequirementTarget, PythonResolveField,
                                               PythonSourcesGeneratorTarget, PythonSourceTarget,
                                               PythonTestsExtraEnvVarsField, PythonTestsGeneratingSourcesField,
                                               PythonTestsGeneratorTarget, PythonTestSourceField,
                                               PythonTestsTimeoutField, PythonTestTarget,
                                               PythonTestUtilsGeneratorTarget, SkipPythonTestsField)
from pants.backend.shell.target_types import ShellSourcesGeneratorTarget, ShellSourceTarget
from pants.core.target_types import (FilesGeneratorTarget, FileSourceField, FileTarget, ResourcesGeneratorTarget,
                                     ResourceTarget)
from pants.engine.addresses import Address
from pants.engine.target import (COMMON_TARGET_FIELDS, BoolField, Dependencies, IntField, InvalidFieldException,
                                 StringField, StringSequenceField, Target, ValidNumbers)
from pants.util.strutil import help_text

from oracle_gate.core.classes import REGION_KINDS
from oracle_gate.core.ladder.digests import validate_sha256


class OracleRegionField(StringField):
    alias = "oracle_region"
    valid_choices = REGION_KINDS
    default = None
    help = help_text(
        """
        The kind of production region these sources are, which sets the weakest oracle class
        that may judge a change to them: `pure`, `concurrent` and `schema` need a property
        oracle (P, an `oracle_properties` target); `state` and `io` need at least a locked
        fixture (L, a test that depends on a `locked_fixture`). A changed production file
        without a region fails `oracle-gate` closed (UNMAPPED). Set it per target, per file
        through `overrides`, or for a directory tree through `__defaults__`. A data file
        (`resource`, `file`) without one is judged through the production code that reads it.
        On `python_requirement(s)` it is accepted and has no effect: a requirement is never a
        region; when it (or its lockfile pin) changes, the code that depends on it is judged.
        """
    )


class OracleTestToolingField(BoolField):
    alias = "oracle_test_tooling"
    default = False
    help = help_text(
        """
        This production code is test tooling (a pytest plugin, a test harness): it may import
        pytest or read the test environment, so the gate's TEST_AWARE_CODE scan skips it. The
        base commit's value counts: a patch cannot exempt the code it changes.
        """
    )


class MinExamplesField(IntField):
    alias = "min_examples"
    default = 100
    valid_numbers = ValidNumbers.positive_and_zero
    help = help_text(
        """
        The Hypothesis floor: every `@given` test in this file must run at least this many
        examples, or it fails with MIN_EXAMPLES. A strategy narrowed to a single value, or a
        `@settings(max_examples=...)` below the floor, cannot pass as a property.
        """
    )


_PROPERTY_HELP = help_text(
    """
    A property-based test file: an oracle of class P (rank 3), the strongest evidence the merge
    gate accepts, and the only class that satisfies `pure`, `concurrent` and `schema` regions.

    It runs under `pants test` exactly like a `python_test` (same pytest runner, sandboxing and
    cache), with Hypothesis derandomised and its example database off, so a cached pass is the
    pass a rerun would give. Changing it in the same diff as production code fails the gate
    (WRITESET): properties are edited in their own, human-reviewed change.
    """
)


class OraclePropertyTarget(PythonTestTarget):
    alias = "oracle_property"
    core_fields = (*PythonTestTarget.core_fields, MinExamplesField)
    help = _PROPERTY_HELP


class OracleTestsGeneratingSourcesField(PythonTestsGeneratingSourcesField):
    # Test files in subdirectories too: a new file anywhere under an oracle directory is already
    # owned by it, so `pants tailor` never proposes a plain (class E) `python_tests` for it.
    default = (*PythonTestsGeneratingSourcesField.default,
               *(f"**/{glob}" for glob in PythonTestsGeneratingSourcesField.default))


def _oracle_generator_fields() -> tuple:
    return tuple(OracleTestsGeneratingSourcesField if f is PythonTestsGeneratingSourcesField else f
                 for f in PythonTestsGeneratorTarget.core_fields)


class OraclePropertiesGeneratorTarget(PythonTestsGeneratorTarget):
    alias = "oracle_properties"
    core_fields = _oracle_generator_fields()
    generated_target_cls = OraclePropertyTarget
    moved_fields = (*PythonTestsGeneratorTarget.moved_fields, MinExamplesField)
    help = _PROPERTY_HELP + "\n\nGenerates an `oracle_property` target for each file in `sources`."


class LockedFixtureSourceField(FileSourceField):
    help = "The fixture file, placed in dependents' sandboxes at its path from the build root."


class Sha256Field(StringField):
    alias = "sha256"
    required = True
    help = help_text(
        """
        The sha256 of the fixture's bytes (64 hex characters). Any build that consumes the
        fixture fails with FIXTURE_DRIFT when the bytes no longer match. Update it only with
        `pants oracle-lock <target>`, in a change of its own.
        """
    )

    @classmethod
    def compute_value(cls, raw_value: Optional[str], address: Address) -> str:
        value = super().compute_value(raw_value, address)
        assert value is not None  # required=True
        try:
            return validate_sha256(value)
        except ValueError as e:
            raise InvalidFieldException(f"The `sha256` field of {address}: {e}") from None


class LockedFixtureDependenciesField(Dependencies):
    pass


class LockedFixtureTarget(Target):
    alias = "locked_fixture"
    core_fields = (*COMMON_TARGET_FIELDS, LockedFixtureSourceField, Sha256Field, LockedFixtureDependenciesField)
    help = help_text(
        """
        A fixture file whose bytes are locked by digest. Tests that depend on it get the file in
        their sandbox (like a `file` target), so its digest is part of their cache key, and they
        count as oracles of class L (rank 2) for what they cover. Rewriting the bytes without
        updating `sha256` fails every consumer with FIXTURE_DRIFT; updating both in the same
        diff as production code fails the gate (WRITESET).
        """
    )


class FreezeLedgerSourceField(FileSourceField):
    expected_file_extensions = (".json",)
    help = "The ledger JSON file."


class GovernsField(StringSequenceField):
    alias = "governs"
    default = ("",)
    help = help_text(
        """
        Directories (from the build root) whose tests this ledger governs; the default, `[""]`,
        is the whole repository. The ledger's bytes join the cache key of every governed test,
        whether or not the test depends on it.
        """
    )


class FreezeLedgerTarget(Target):
    alias = "freeze_ledger"
    core_fields = (*COMMON_TARGET_FIELDS, FreezeLedgerSourceField, GovernsField)
    help = help_text(
        """
        A dated, owned list of frozen failure signatures (oracle class F, rank 0: it never
        votes). A governed test whose failure matches an unexpired signature is reported as
        `frozen`, neither pass nor fail; an expired signature fails with FREEZE_EXPIRED; a
        skip or xfail no entry covers fails with UNLISTED_SKIP. Format:

            {"version": 1, "entries": [{"signature": "<16 hex>", "test": "...",
              "exception": "...", "reason": "...", "owner": "...",
              "added": "YYYY-MM-DD", "expires": "YYYY-MM-DD"}]}

        Validated at build time: schema errors, duplicate signatures, expired entries, and more
        entries than max(3, ceil(1.5% of the governed tests)) each fail with a clear message.
        """
    )


class OracleDraftField(BoolField):
    alias = "oracle_draft"
    default = True
    help = "Marks a draft oracle: it runs as a diagnostic and never votes. Promote it with `pants oracle-promote`."

    @classmethod
    def compute_value(cls, raw_value: Optional[bool], address: Address) -> bool:
        if raw_value is False:
            raise InvalidFieldException(
                f"{address}: a draft cannot set `oracle_draft=False`; promote it with `pants oracle-promote`"
            )
        return True


_DRAFT_HELP = help_text(
    """
    A draft oracle (seed 000's quarantine): a test file an agent may add or change together with
    production code. Drafts run as diagnostics whenever they cover a changed region and never
    vote: they count for no floor and no baseline. `pants oracle-promote <draft>` moves one into
    an `oracle_properties` directory, which is a human-lane change.
    """
)


class OracleDraftTarget(PythonTestTarget):
    alias = "oracle_draft"
    core_fields = (*PythonTestTarget.core_fields, OracleDraftField)
    help = _DRAFT_HELP


class OracleDraftsGeneratorTarget(PythonTestsGeneratorTarget):
    alias = "oracle_drafts"
    core_fields = _oracle_generator_fields()
    generated_target_cls = OracleDraftTarget
    moved_fields = PythonTestsGeneratorTarget.moved_fields
    help = _DRAFT_HELP + "\n\nGenerates an `oracle_draft` target for each file in `sources`."


class EntryPointField(StringField):
    alias = "entry_point"
    required = True
    help = "The production function the recorded inputs are fed to, as `module:function` (e.g. `billing.invoice_io:parse_invoice`)."

    @classmethod
    def compute_value(cls, raw_value: Optional[str], address: Address) -> str:
        value = super().compute_value(raw_value, address)
        assert value is not None
        module, sep, function = value.partition(":")
        if not sep or not module or not function or not all(p.isidentifier() for p in (*module.split("."), *function.split("."))):
            raise InvalidFieldException(
                f"The `entry_point` field of {address} must look like `package.module:function`, got {value!r}"
            )
        return value


class ReplaySourceField(PythonTestSourceField):
    expected_file_extensions = (".jsonl",)
    help = "The recorded traces: one JSON object per line, `{\"input\": [args...], \"output\": <value>}` (optional `\"kwargs\"`)."


class ProbesSourceField(PythonTestSourceField):
    expected_file_extensions = (".json",)
    help = help_text(
        """
        The probe set: `{"version": 1, "probes": [{"id": "...", "input": [args...],
        "expect": {"raises": "ValueError"} or {"returns": <status value>}}]}`.
        """
    )


class OracleLockedDependenciesField(Dependencies):
    """Dependencies of replay and probe targets (the entry point's owner is inferred)."""


_LOCKED_TEST_FIELDS = (
    *COMMON_TARGET_FIELDS,
    Sha256Field,
    EntryPointField,
    OracleLockedDependenciesField,
    PythonResolveField,
    InterpreterConstraintsField,
    PythonTestsTimeoutField,
    PythonTestsExtraEnvVarsField,
    SkipPythonTestsField,
)


class OracleReplayTarget(Target):
    alias = "oracle_replay"
    core_fields = (*_LOCKED_TEST_FIELDS, ReplaySourceField)
    help = help_text(
        """
        Rank R1, characterization replay: recorded input/output pairs of one production function,
        locked by `sha256` like a `locked_fixture`. `pants test` (and the gate) replays every line
        in the test sandbox and compares canonical JSON. Class L: it counts for `state` and `io`
        floors. Record or re-record with `pants oracle-record` (a human-lane change).
        """
    )


class OracleProbesTarget(Target):
    alias = "oracle_probes"
    core_fields = (*_LOCKED_TEST_FIELDS, ProbesSourceField)
    help = help_text(
        """
        Rank R3, must-fail probes: inputs the production function must keep rejecting (raise the
        named exception, or return the named status value), locked by `sha256`. A probe that is
        now accepted fails the gate with PROBE_NUMB. Probes never vote for a floor.
        """
    )


class BaselineSourceField(FileSourceField):
    expected_file_extensions = (".json",)
    help = "The baseline JSON written by `pants oracle-ratchet`."


class OracleBaselineTarget(Target):
    alias = "oracle_baseline"
    core_fields = (*COMMON_TARGET_FIELDS, BaselineSourceField, Sha256Field)
    help = help_text(
        """
        The adoption ratchet: per region, the best oracle class that voted when it was written,
        and the skips and xfails that existed then. The gate requires, per changed region,
        max(baseline class, floor once reached); a new region needs its full floor. Written by
        `pants oracle-ratchet ::` and locked by `sha256`: changing it is a human-lane change.
        """
    )


def target_types():
    return [
        OraclePropertiesGeneratorTarget, OraclePropertyTarget, OracleDraftsGeneratorTarget, OracleDraftTarget,
        OracleReplayTarget, OracleProbesTarget, LockedFixtureTarget, FreezeLedgerTarget, OracleBaselineTarget,
    ]


def plugin_field_rules():
    # Assets carry a region too: a changed data file feeds production just like code does.
    carriers = (
        PythonSourceTarget, PythonSourcesGeneratorTarget, PythonTestUtilsGeneratorTarget,
        FileTarget, FilesGeneratorTarget, ResourceTarget, ResourcesGeneratorTarget,
        PythonRequirementTarget, PythonRequirementsTargetGenerator, ShellSourceTarget, ShellSourcesGeneratorTarget,
    )
    return [carrier.register_plugin_field(field) for carrier in carriers
            for field in (OracleRegionField, OracleTestToolingField)]
