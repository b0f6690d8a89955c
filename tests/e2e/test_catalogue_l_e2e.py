"""Catalogue family twenty-first: patches that merged at f2df317 (a twentieth outside attacker's, a
helper briefed with README and the docs only), each caught since by the rule named in its entry: a
width or precision a format names is a constant of the code, code in a format spec is mutated, an
exception that claims another class's name is a look-alike, an integer is also given as an integral
float; see catalogue.py and catalogue_runner.py."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('twenty-first',))
