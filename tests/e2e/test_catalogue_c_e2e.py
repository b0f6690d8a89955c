"""Catalogue family: outside (patches an outside attacker wrote; see catalogue.py and catalogue_runner.py)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue, test_summary = make_tests(("outside",))
