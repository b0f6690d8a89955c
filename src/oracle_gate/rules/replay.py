"""Replay and probe targets: the dependency on their entry point's module is inferred, like a
`pex_binary`'s, so the function they feed is in their sandbox and a change to it re-runs them."""
from __future__ import annotations

from dataclasses import dataclass

from pants.backend.python.dependency_inference.module_mapper import PythonModuleOwners, PythonModuleOwnersRequest
from pants.backend.python.subsystems.setup import PythonSetup
from pants.backend.python.target_types import PythonResolveField
from pants.engine.rules import Get, collect_rules, rule
from pants.engine.target import FieldSet, InferDependenciesRequest, InferredDependencies
from pants.engine.unions import UnionRule

from oracle_gate.target_types import EntryPointField, OracleLockedDependenciesField


@dataclass(frozen=True)
class EntryPointInferenceFieldSet(FieldSet):
    required_fields = (EntryPointField, OracleLockedDependenciesField)

    entry_point: EntryPointField
    dependencies: OracleLockedDependenciesField
    resolve: PythonResolveField


class InferEntryPointDependency(InferDependenciesRequest):
    infer_from = EntryPointInferenceFieldSet


@rule(desc="Infer the dependency of a replay or probe set on its entry point")
async def infer_entry_point_dependency(request: InferEntryPointDependency, python_setup: PythonSetup) -> InferredDependencies:
    module = request.field_set.entry_point.value.partition(":")[0]
    resolve = request.field_set.resolve.normalized_value(python_setup)
    owners = await Get(PythonModuleOwners, PythonModuleOwnersRequest(module, resolve=resolve))
    return InferredDependencies(owners.unambiguous)


def rules():
    return [*collect_rules(), UnionRule(InferDependenciesRequest, InferEntryPointDependency)]
