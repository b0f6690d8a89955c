"""Catalogue family: outside (patches an outside attacker wrote; see catalogue.py and catalogue_runner.py), its
first half (every other entry from the first; test_catalogue_f_e2e.py runs the rest)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("outside",), share=(0, 2))
