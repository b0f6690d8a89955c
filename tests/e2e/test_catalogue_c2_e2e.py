"""Catalogue family outside: its third quarter (every fourth entry from the third; see test_catalogue_c_e2e.py)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("outside",), share=(2, 4))
