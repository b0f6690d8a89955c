"""Catalogue family seventeenth: patches a sixteenth outside attacker (a helper briefed with README and
the docs only) wrote against 35bb103, each merged there, each told since by a general rule: the later
world's fourth moment (the last half-minute of a leap day in UTC), its boot clocks and command line,
the code's own files told by `platform.uname()` that they run on Windows, a bytearray where JSON writes
bytes, an import fallback under any handler that catches a failed import, and text widened with every
ASCII punctuation mark; and one of my own against a4f744b, a cap raised as OverflowError, which the
first form of the round's honest rule (an OverflowError at once where the base still runs is no
difference) excused; see catalogue.py and catalogue_runner.py."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('seventeenth',))
