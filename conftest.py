"""Hypothesis derandomised for this repository's own oracles, so a cached pass is the pass a
rerun would give (test plumbing of every property here: changing it is an oracle change)."""
try:
    from hypothesis import settings
except ImportError:  # tests that do not depend on Hypothesis
    pass
else:
    settings.register_profile("oracle-gate", derandomize=True, database=None, deadline=None)
    settings.load_profile("oracle-gate")
