"""The second half of test_catalogue_d_e2e.py's catalogue entries (every other entry from the second)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('cleanroom', 'undrawn'), share=(1, 2))
