"""Pants backend entry point: `backend_packages = ["oracle_gate"]`."""
from oracle_gate import target_types as tt
from oracle_gate.rules import facts, gate, lock, sandbox_setup


def target_types():
    return tt.target_types()


def rules():
    return [*facts.rules(), *sandbox_setup.rules(), *gate.rules(), *lock.rules(), *tt.plugin_field_rules()]
