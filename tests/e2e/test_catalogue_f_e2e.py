"""Catalogue family: outside (patches an outside attacker wrote; see catalogue.py and catalogue_runner.py), its
second half (every other entry from the second; test_catalogue_c_e2e.py runs the rest)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("outside",), share=(1, 2))
