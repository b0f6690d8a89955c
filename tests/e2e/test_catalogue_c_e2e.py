"""Catalogue family: outside (patches an outside attacker wrote; see catalogue.py and catalogue_runner.py)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("outside",))
