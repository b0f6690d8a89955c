"""Catalogue families: cleanroom (code that behaves differently outside its tests) and undrawn (bugs on inputs no
property draws, told by the base beside the head); see catalogue.py and catalogue_runner.py."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("cleanroom", "undrawn"))
