"""Catalogue family twentieth: patches that merged at 4770750 (a nineteenth outside attacker's, a
helper briefed with README and the docs only; and the eighteenth round's lone surrogate), each caught
since by the rule named in its entry: a term or bound written as a call or in a new helper, a mask,
control characters, a lone surrogate, NaN, a raw tab in JSON, a constant spelt through a builtin, a
condition added to a validator, a generator the module holds, a pure module's private state and
registries; see catalogue.py and catalogue_runner.py."""
from e2e.catalogue_runner import make_tests

repo, test_catalogue = make_tests(('twentieth',))
