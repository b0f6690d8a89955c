"""Catalogue family: cleanroom (code that behaves differently outside its tests; see catalogue.py and catalogue_runner.py)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("cleanroom",))
