"""Catalogue family thirteenth: patches that merged against cfede7b (one of my own, the twelfth round's
module configuring logging at import; the rest a thirteenth outside attacker's, briefed with README and
the docs only), each told since by the twins (what importing a module leaves, a generator's items,
code moved into a copy compared with its source, keys ending in a full stop, a random token where the
base gave another kind, the integer string conversion limit); and family fourteenth: patches that
merged against 9bd8afc (four more of that attacker's, three of my own), each told since by what a
call writes to stdout, by the code's own files told on the later machine that they run on Windows,
by a call run once more for 3 s where it ran out of 0.5 s, or by its processor time on an input
grown to 16,384 items; and family fifteenth: a patch that merged against 7143ad7 by crashing the
head's twin interpreter, told since because the twin goes on after the input it crashed on and
calls a twin leaves unrun fail the agent lane; and family sixteenth: patches that merged against 7baa54b
(a memo that hands every caller one store, a declaration that changes what a caller may do with a
store), told since by a call made again after its first result was changed and by what a caller may
do with an object of the function's module's class; see catalogue.py and catalogue_runner.py.
Its first half (every other entry from the first; test_catalogue_g2_e2e.py runs the rest: a
part of some 5 minutes, so that no part runs alone at the end of the suite for long)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('thirteenth', 'fourteenth', 'fifteenth', 'sixteenth'), share=(0, 2))
