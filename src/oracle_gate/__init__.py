"""pants-oracle-gate: oracles as build targets and a merge gate that fails closed.

`core` is plain policy (no Pants import, reused inside the pytest sandbox); `rules` is the thin
Pants shell that gathers facts from the build graph and hands them to `core`; `sandbox` is the
pytest plugin that Pants injects into every oracle run.
"""
