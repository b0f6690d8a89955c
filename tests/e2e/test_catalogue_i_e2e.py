"""Catalogue family eighteenth: patches a seventeenth outside attacker (a helper briefed with README and
the docs only) wrote against a511b30, each merged there: a `pure`, `schema` or `concurrent` function
keyed on a fact of the machine the oracles and the twins all ran on, each `MACHINE_READ` since (an
allowlist of what such a region may read); see catalogue.py and catalogue_runner.py."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('eighteenth',))
