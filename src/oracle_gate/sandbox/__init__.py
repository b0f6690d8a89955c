"""Code that runs inside the pytest sandbox, injected by the `rules.pytest_setup` hook."""
