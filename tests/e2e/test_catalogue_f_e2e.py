"""Catalogue family outside: its second quarter (every fourth entry from the second; see test_catalogue_c_e2e.py)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("outside",), share=(1, 4))
