"""Hypothesis derandomised for every oracle: a cached pass is the pass a rerun would give, and a
mutant is killed or survives the same way every time. (Test plumbing of every property: changing
it is an oracle change.)"""
try:
    from hypothesis import settings
except ImportError:  # example tests do not depend on Hypothesis
    pass
else:
    settings.register_profile("billing", derandomize=True, database=None, deadline=None)
    settings.load_profile("billing")
