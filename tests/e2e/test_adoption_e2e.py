"""Adoption on a repository shaped like a real monorepo (plain pytest suites, class E everywhere,
environment-bound skips and xfails, a conftest, a test that needs a service, test utilities):
region suggestions, environment-bound tests excluded by tag, the baseline ratchet, and verdicts
that reflect each diff."""
from __future__ import annotations

import pytest

from e2e.harness import Repo
from e2e.monorepo import SHAPES, new_monorepo


@pytest.fixture(scope="module")
def adopted(tmp_path_factory) -> Repo:
    """The README's adoption steps, in order, committed to `main`."""
    repo = new_monorepo(tmp_path_factory.mktemp("adoption"), pantsd=True)
    first = repo.pants("oracle-regions", "::")
    second = repo.pants("oracle-regions", "::")
    assert first.exit_code == 0 and first.stdout == second.stdout, first.output  # stable
    suggested = {l.split()[1]: l.split()[2].rstrip(":") for l in first.stdout.splitlines() if l.startswith("SUGGEST ")}
    # Production code only: test utilities are test plumbing, data files are judged through the
    # code that reads them, requirements through the code that uses them.
    assert suggested == {p: k for p, k in SHAPES.items() if "/testutils/" not in p and p.endswith(".py")}, suggested
    # Every unowned tracked path is listed as reviewed policy, whole unowned trees as one glob.
    assert [l for l in first.stdout.splitlines() if l.startswith("UNOWNED ")] == [
        "UNOWNED MANIFEST.in (1 path no target owns)", "UNOWNED codegen/* (2 paths no target owns)",
        "UNOWNED pants (1 path no target owns)", "UNOWNED py.typed (1 path no target owns)",
        "UNOWNED tests/__init__.py (1 path no target owns)"], first.stdout
    written = repo.pants("oracle-regions", "--oracle-regions-write", "::")
    assert written.exit_code == 0, written.output
    # The policy lives in pants.toml and oracle-regions.json: no BUILD file was edited.
    assert sorted(l.strip() for l in repo.git("status", "--porcelain").splitlines()) == [
        "?? oracle-regions.json", "M pants.toml"]
    assert 'regions = "@oracle-regions.json"' in repo.read("pants.toml")
    # (py.typed, beside code in its package, is listed by its name: the next package's is the same kind of file)
    assert 'other_globs.add = ["MANIFEST.in", "codegen/*", "pants", "py.typed", "tests/__init__.py"]' in repo.read("pants.toml")
    # Every production target has its region now, every tracked path is owned or listed.
    again = repo.pants("oracle-regions", "::").stdout
    assert "nothing to suggest" in again and "UNOWNED" not in again, again
    # Environment-bound tests are tagged and excluded by the base configuration.
    repo.replace("tests/client/BUILD", 'python_tests(name="tests")',
                 'python_tests(name="tests", overrides={"test_http.py": {"tags": ["needs-services"]}})')
    repo.replace("pants.toml", "[oracle-gate]\n", '[oracle-gate]\nexclude_tags = ["needs-services"]\n')
    baseline = repo.pants("oracle-ratchet", "--oracle-ratchet-exclude-tags=needs-services", "::")
    assert baseline.exit_code == 0, baseline.output
    assert baseline.stdout.startswith("BASELINE oracle/baseline.json regions="), baseline.stdout
    repo.commit("adopt oracle-gate: regions, exclusions, baseline")
    yield repo
    repo.stop_pantsd()


@pytest.fixture
def branch(adopted: Repo):
    yield from adopted.scenarios()


def test_the_adopted_repository_audits_clean_with_the_excluded_test_listed(adopted: Repo):
    run = adopted.gate(base="HEAD")
    assert run.exit_code == 0, run.output
    assert "EXCLUDED tests/client/test_http.py:tests" in "\n".join(run.reasons), run.reasons
    http = run.oracle("tests/client/test_http.py:tests")
    assert http["role"] == "excluded" and not http["voted"] and http["outcome"] == "not_run"
    # The baseline's class, not the floor: E for what plain tests cover today.
    utils = next(r for r in run.report["regions"] if r["path"] == "src/ai/backend/common/utils.py")
    assert (utils["kind"], utils["need"], utils["have"]) == ("pure", "E", "E"), utils


def test_a_diff_that_keeps_its_region_at_the_baseline_merges(branch):
    repo = branch("keep")
    repo.replace("src/ai/backend/common/utils.py", "if len(chunk) == n:", "if n == len(chunk):")
    repo.commit("a refactor of chunked")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    (region,) = run.report["regions"]
    assert (region["path"], region["need"], region["have"]) == ("src/ai/backend/common/utils.py", "E", "E"), region
    assert region["symbols"] == [{"symbol": "chunked", "ran": ["tests/common/test_utils.py:tests"]}], region


def test_a_function_nobody_exercised_when_the_baseline_was_written_is_unjudged(adopted: Repo, branch):
    import json

    written = json.loads(adopted.read("oracle/baseline.json"))
    utils = next(r for r in written["regions"].values() if r["path"] == "src/ai/backend/common/utils.py")
    assert (written["version"], utils["exercised"]) == (2, ["<module>", "chunked", "format_size", "parse_size"]), utils
    repo = branch("legacy")
    repo.replace("src/ai/backend/common/utils.py", "return min(size, limit)", "return size if size < limit else limit")
    repo.commit("a refactor of a helper no test calls")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    assert [l for l in run.reasons if l.startswith("UNJUDGED")] == [
        "UNJUDGED src/ai/backend/common/utils.py:clamp_size: no voter executed it when the baseline was written, "
        "so nothing judged this change (an oracle that runs it ratchets it up)"], run.reasons


def test_a_diff_that_drops_a_region_below_its_baseline_is_rejected(branch):
    repo = branch("drop")
    # client/config.py's only runnable oracle changes with it: demoted, it does not vote, so nothing
    # at the baseline's class (E) judges the change.
    repo.append("src/ai/backend/client/config.py", "\n\nDEFAULT_TIMEOUT = 10.0\n")
    repo.append("tests/client/test_config.py", "\n\ndef test_the_default_timeout():\n"
                "    from ai.backend.client.config import DEFAULT_TIMEOUT\n\n    assert DEFAULT_TIMEOUT > 0\n")
    repo.commit("a new setting and its test together")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert any(l.startswith("FLOOR src/ai/backend/client/config.py:src kind=pure need=E have=none") for l in run.reasons), run.reasons


def test_a_new_function_no_remaining_voter_runs_is_unexercised(branch):
    repo = branch("unexercised")
    text = repo.read("src/ai/backend/common/utils.py")
    repo.write("src/ai/backend/common/utils.py", text + "\n\ndef twice(n: int) -> int:\n    return n * 2\n")
    # Its test changes with it (demoted); the other tests of utils.py still vote E but never call it.
    repo.append("tests/common/test_utils.py", "\n\ndef test_twice():\n    from ai.backend.common.utils import twice\n\n    assert twice(2) == 4\n")
    repo.commit("a new helper and its test together")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert any(l.startswith("UNEXERCISED src/ai/backend/common/utils.py:twice kind=function need=E") for l in run.reasons), run.reasons


def test_a_changed_line_its_class_e_voters_cannot_notice_is_numb_in_the_agent_lane(branch):
    # Adopted code is judged by class-E tests: in the agent lane their every changed line must be one
    # those tests notice (a mutant of it they kill), as for P and L voters. A branch for inputs no
    # test draws is a line nothing judges.
    repo = branch("numb-e")
    repo.replace("src/ai/backend/common/utils.py", "    text = text.strip().lower()\n",
                 "    text = text.strip().lower()\n    if len(text) > 64:\n        return 0\n")
    repo.commit("a size too long to parse reads as zero")
    line = repo.read("src/ai/backend/common/utils.py").splitlines().index("        return 0") + 1
    run = repo.gate()
    assert run.exit_code == 1, run.output
    assert [l.split(" survived=")[0] for l in run.reasons if l.startswith("NUMB ")] == [
        f"NUMB src/ai/backend/common/utils.py:{line}"], run.reasons
    # A person's change is judged by what the tests assert: reviewed, not mutated.
    human = repo.gate("--oracle-gate-lane=human")
    assert human.exit_code == 0 and "NUMB" not in human.codes(), human.output


def test_an_added_skip_is_rejected(branch):
    repo = branch("skip")
    repo.replace("tests/common/test_types.py", "def test_slot_addition(",
                 "@pytest.mark.skip(reason='flaky')\ndef test_slot_addition(")
    if "import pytest" not in repo.read("tests/common/test_types.py"):
        repo.write("tests/common/test_types.py", "import pytest\n" + repo.read("tests/common/test_types.py"))
    repo.commit("skip a test")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert "ORACLE_CHANGE" in run.codes() and any("flake_control tests/common/test_types.py" in l for l in run.reasons), run.reasons


def test_a_new_region_needs_its_full_floor_from_an_agent_and_its_neighbours_standard_from_a_person(branch):
    repo = branch("new-region")
    repo.write("src/ai/backend/common/rates.py", "def rate(cents: int) -> int:\n    return cents // 100\n")
    repo.write("tests/common/test_rates.py", "from ai.backend.common.rates import rate\n\n\ndef test_rate():\n    assert rate(250) == 2\n")
    repo.write("src/ai/backend/common/spans.py", "def span(a: int, b: int) -> int:\n    return abs(b - a)\n")
    repo.commit("a new module with an example test, and one with none")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert any(l.startswith("FLOOR src/ai/backend/common/rates.py:src kind=pure need=P have=none") for l in run.reasons), run.reasons
    # A person adding the module owes what adoption found for the pure code beside it (E), as a
    # person adding the function to an existing module of that package does.
    human = repo.gate("--oracle-gate-lane=human")
    assert human.exit_code == 0, human.output
    (region,) = [r for r in human.report["regions"] if r["path"] == "src/ai/backend/common/rates.py"]
    assert (region["status"], region["need"], region["have"]) == ("added", "E", "E"), region
    why = {c["path"]: c["why"] for c in human.report["changes"]}["src/ai/backend/common/rates.py"]
    assert why == ("new production region (human lane: it owes E, the standard adoption found for the pure "
                   "code in src/ai/backend/common/)"), why
    # The module no test reaches is said, as untested code in a region judged at its baseline is.
    assert "UNJUDGED src/ai/backend/common/spans.py: no voting test reached this new module at head, and it is held to the " \
           "standard beside it (class E, below its floor); reviewed in the human lane (an oracle for it ratchets " \
           "it up)" in human.reasons, human.reasons


def test_commits_that_touch_dependencies_and_unowned_files_merge_on_their_readers_tests(branch):
    repo = branch("livable")
    # A comment and a requirement nothing depends on yet (a dev group), an unowned generator
    # file renamed, packaging edited, test data beside the generator: nothing a test can see.
    repo.write("requirements.txt", "# runtime and test requirements\nhypothesis==6.141.1\npytest==7.0.1\nattrs==23.1.0\n")
    repo.git("mv", "codegen/src/main/java/Gen.java", "codegen/src/main/java/Generator.java")
    repo.append("MANIFEST.in", "include LICENSE\n")
    repo.write("requirements-dev.txt", "")  # an empty file no target owns (a stale merge re-adds one)
    # A data file production reads: judged through the code that reads it, at its baseline class.
    repo.replace("src/ai/backend/common/sample-config.json", "8081", "8082")
    repo.commit("an ordinary commit of a real repository")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    lanes = {c["path"]: c["lanes"] for c in run.report["changes"]}
    assert lanes["requirements.txt"] == ["other"] and lanes["//:reqs#attrs"] == ["other"], lanes
    assert lanes["codegen/src/main/java/Generator.java"] == ["other"] and lanes["MANIFEST.in"] == ["other"], lanes
    assert lanes["requirements-dev.txt"] == ["other"], lanes
    assert lanes["src/ai/backend/common/sample-config.json"] == ["production"], lanes
    regions = {r["path"]: (r["status"], r["need"]) for r in run.report["regions"]}
    assert regions["src/ai/backend/common/utils.py"] == ("dependency", "E"), regions
    assert not any(p.startswith("//:reqs") for p in regions), regions


def test_a_documentation_commit_is_judged_without_evaluating_the_base(branch):
    # Nothing Pants evaluates changed (no BUILD file, configuration, ignore file or code): the head's
    # facts are the base's, and the first gate on a new base skips the nested base run.
    repo = branch("docs")
    repo.write("docs/operations.md", "# Operations\n\nRestart the manager after changing its config.\n")
    repo.write("CONTRIBUTING.md", "See docs/operations.md.\n")
    repo.commit("document operations")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    assert "not needed: every changed path is documentation no target owns" in run.stderr, run.stderr
    assert {c["path"]: c["lanes"] for c in run.report["changes"]} == {
        "CONTRIBUTING.md": ["other"], "docs/operations.md": ["other"]}, run.report["changes"]
    # A documentation file beside a code change: the base is evaluated as always.
    repo.replace("src/ai/backend/common/utils.py", "if len(chunk) == n:", "if n == len(chunk):")
    repo.commit("and a refactor")
    run = repo.gate()
    assert run.exit_code == 0 and "not needed" not in run.stderr, run.output


def test_a_new_package_with_its_own_pytest_settings_and_packaging_marker_merges(branch):
    # As a real repository splits a package: a marker file of a kind adoption listed elsewhere, and
    # a pytest section above only the tests the commit adds (new oracles, judged with the settings
    # they arrive with; no test that existed is weakened).
    repo = branch("new-package")
    repo.write("src/ai/backend/client/py.typed", "")
    repo.write("tests/storage/BUILD", "python_tests()\n")
    repo.write("tests/storage/pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n')
    repo.write("tests/storage/test_storage.py", "from ai.backend.common.utils import parse_size\n\n\n"
               "def test_sizes_with_units():\n    assert parse_size(\"2k\") == 2048\n")
    repo.commit("a storage test package with its own pytest settings; a typing marker for the client")
    run = repo.gate()
    assert run.exit_code == 0, run.output
    lanes = {c["path"]: c["lanes"] for c in run.report["changes"]}
    assert lanes["src/ai/backend/client/py.typed"] == ["other"], lanes
    assert "CONFIG_CHANGE" not in run.codes(), run.reasons


def test_code_copied_into_a_new_module_is_judged_as_a_change_to_the_module_it_copies(branch):
    # As a real repository splits a package: a module copied (git's copy detection finds it) with
    # its test copied beside it. The copy owes what its source's baseline owes (E), not the full
    # floor of new code (P); in the human lane the copied test is the test it copies and votes.
    repo = branch("copy")
    repo.write("src/ai/backend/common/sizes.py", "# Sizes, split out of utils.\n"
               + repo.read("src/ai/backend/common/utils.py"))
    repo.write("tests/common/test_sizes.py", repo.read("tests/common/test_utils.py").replace(
        "ai.backend.common.utils", "ai.backend.common.sizes"))
    repo.commit("split the size helpers into their own module, tests copied along")
    human = repo.gate("--oracle-gate-lane=human")
    assert human.exit_code == 0, human.output
    (region,) = [r for r in human.report["regions"] if r["path"] == "src/ai/backend/common/sizes.py"]
    assert (region["status"], region["need"], region["have"]) == ("added", "E", "E"), region
    agent = repo.gate()
    assert agent.exit_code == 2, agent.output
    assert any(l.startswith("FLOOR src/ai/backend/common/sizes.py:src kind=pure need=E have=none")
               for l in agent.reasons), agent.reasons


def test_functions_moved_into_a_new_module_keep_their_judges_and_merge_in_the_agent_lane(branch):
    # The everyday refactor: a helper moved out of a module into a new one it re-exports it from.
    # The moved code owes what its source owed (E), and the unchanged tests that reach it through
    # the old module still judge it.
    repo = branch("move")
    utils = repo.read("src/ai/backend/common/utils.py")
    start, end = utils.index("def format_size"), utils.index("def chunked")
    units = '_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}\n'
    repo.write("src/ai/backend/common/sizes.py", '"""Sizes in bytes and their short forms."""\n'
               "from __future__ import annotations\n\n" + units + "\n\n" + utils[start:end].rstrip() + "\n")
    repo.write("src/ai/backend/common/utils.py", utils[:start].replace(
        units, "from ai.backend.common.sizes import _UNITS, format_size  # noqa: F401 (re-exported)\n").rstrip()
        + "\n\n\n" + utils[end:])
    repo.commit("move format_size into its own module")
    # Too little of utils.py for git to call it a copy: the symbols say where the code came from.
    assert repo.git("diff", "--name-status", "-M", "-C", "--find-copies-harder", "main", "HEAD").split() == [
        "A", "src/ai/backend/common/sizes.py", "M", "src/ai/backend/common/utils.py"]
    run = repo.gate()
    assert run.exit_code == 0, run.output
    regions = {r["path"]: (r["status"], r["need"], r["have"]) for r in run.report["regions"]}
    assert regions["src/ai/backend/common/sizes.py"] == ("added", "E", "E"), regions
    why = {c["path"]: c["why"] for c in run.report["changes"]}["src/ai/backend/common/sizes.py"]
    assert why == "its code moved or copied from src/ai/backend/common/utils.py", why


def test_a_lowered_region_table_entry_is_a_downgrade_and_a_config_change(branch):
    repo = branch("table")
    table = repo.read("oracle-regions.json")
    assert '"schema"' in table, table
    repo.write("oracle-regions.json", table.replace('"schema"', '"io"'))
    repo.commit("lower the contracts' regions")
    run = repo.gate()
    assert run.exit_code == 2, run.output
    assert "CONFIG_CHANGE" in run.codes(), run.reasons
    assert any(l.startswith("REGION_DOWNGRADE src/ai/backend/common/types.py kind schema -> io") for l in run.reasons), run.reasons
