"""Catalogue family: outside (patches an outside attacker wrote; see catalogue.py and catalogue_runner.py), its
first quarter (every fourth entry from the first; test_catalogue_f_e2e.py, test_catalogue_c2_e2e.py and
test_catalogue_f2_e2e.py run the rest: parts of some 5 minutes, so that no part runs alone at the end of the
suite for long)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(("outside",), share=(0, 4))
