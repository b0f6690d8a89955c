"""The second half of test_catalogue_g_e2e.py's catalogue entries (every other entry from the second)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('thirteenth', 'fourteenth', 'fifteenth', 'sixteenth'), share=(1, 2))
