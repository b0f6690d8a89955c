"""Catalogue family nineteenth: patches that merged at ba23c26 (a seventeenth outside round's, replayed)
and at 399c03d (an eighteenth outside attacker's, a helper briefed with README and the docs only),
each caught since by the rule named in its entry: a term or factor added to a value the function
computed, a constant put back, a read through another module or a reflecting attribute, the version,
the zone, invisible characters; see catalogue.py and catalogue_runner.py."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('nineteenth',))
