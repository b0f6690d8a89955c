"""Pants backend entry point: `backend_packages = ["oracle_gate"]`."""
from oracle_gate import target_types as tt
from oracle_gate.rules import base_facts, facts, gate, goals, lint, lock, replay, runs, sandbox_setup


def target_types():
    return tt.target_types()


def rules():
    return [
        *base_facts.rules(), *facts.rules(), *runs.rules(), *sandbox_setup.rules(), *replay.rules(), *gate.rules(), *goals.rules(), *lock.rules(), *lint.rules(),
        *tt.plugin_field_rules(),
    ]
