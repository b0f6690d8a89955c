"""Catalogue families: eleventh (an eleventh outside round's patches, each merged against f35dc61, told by the base
beside the head on inputs the twins build since, and by what a call leaves in the process) and twelfth (of my own,
each an open class of the eleventh or twelfth round, merged against 8cf56d5); see catalogue.py and
catalogue_runner.py.
Its first half (every other entry from the first; test_catalogue_e2_e2e.py runs the rest: a
part of some 5 minutes, so that no part runs alone at the end of the suite for long)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('eleventh', 'twelfth'), share=(0, 2))
