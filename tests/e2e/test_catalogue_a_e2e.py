"""Catalogue families: config build demotion symlink writeset (see catalogue.py and catalogue_runner.py)."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('config', 'build', 'demotion', 'symlink', 'writeset',))
