"""Catalogue families: cleanroom (code that behaves differently outside its tests) and undrawn (bugs on inputs no
property draws, told by the base beside the head); see catalogue.py and catalogue_runner.py.
Its first half (every other entry from the first; test_catalogue_d2_e2e.py runs the rest: a
part of some 5 minutes, so that no part runs alone at the end of the suite for long)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('cleanroom', 'undrawn'), share=(0, 2))
