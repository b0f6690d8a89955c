"""Enabling the backend changes nothing a team already runs: plain `pants test` of a repository with
coverage on, batched tests, xdist, `extra_env_vars` and a custom pytest plugin reports the same
outcomes and the same coverage with the backend as without it.

The repository has source root "/" (so Pants passes `--cov=.`, the whole sandbox): the recorder
that the backend ships into every test sandbox must not appear in coverage's data, or Pants'
report step (a sandbox with the sources only) fails with "No source for code".
"""
from __future__ import annotations

import json
import re
import shutil
import uuid
from xml.etree import ElementTree
from pathlib import Path
from typing import Dict, Tuple

from e2e.harness import PLUGIN_SRC
from e2e.test_launcher_e2e import base_env, launch, scratch

PANTS_TOML = """\
[GLOBAL]
pants_version = "2.17.1"
{plugin}
ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]

[source]
root_patterns = ["/"]

[python]
interpreter_constraints = ["CPython==3.9.*"]

[python-infer]
use_rust_parser = true

[test]
use_coverage = true
report = true
extra_env_vars = ["PLAIN_TEST_GREETING=hello"]

[coverage-py]
report = ["json"]

[pytest]
xdist_enabled = true

[subprocess-environment]
env_vars.add = ["PIP_CONFIG_FILE=/dev/null"]
"""
WITHOUT = 'backend_packages = ["pants.backend.python"]'
WITH = f'pythonpath = ["{PLUGIN_SRC}"]\nbackend_packages = ["pants.backend.python", "oracle_gate"]'

FILES = {
    "BUILD": 'python_test_utils(name="utils", sources=["conftest.py"])\n',
    "calc/__init__.py": "",
    "calc/BUILD": "python_sources()\n",
    "calc/ops.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef unused():\n    return 0\n",
    "conftest.py": (
        "# A custom plugin: a marker and a fixture, as teams write them.\n"
        "import pytest\n\n\n"
        "def pytest_configure(config):\n    config.addinivalue_line('markers', 'slow: slow tests')\n\n\n"
        "@pytest.fixture\ndef greeting():\n    import os\n    return os.environ['PLAIN_TEST_GREETING']\n"),
    "tests/BUILD": (
        'python_tests(name="batched", sources=["test_add.py", "test_sub.py"], batch_compatibility_tag="calc")\n'
        'python_tests(name="parallel", sources=["test_many.py"], xdist_concurrency=2)\n'
        'python_tests(name="failing", sources=["test_failing.py"])\n'),
    "tests/test_add.py": "from calc.ops import add\n\n\ndef test_add(greeting):\n    assert add(1, 2) == 3 and greeting == 'hello'\n",
    "tests/test_sub.py": "import pytest\nfrom calc.ops import sub\n\n\n@pytest.mark.slow\ndef test_sub():\n    assert sub(3, 2) == 1\n",
    "tests/test_many.py": ("import pytest\nfrom calc.ops import add\n\n\n@pytest.mark.parametrize('n', range(8))\n"
                           "def test_many(n):\n    assert add(n, 0) == n\n"),
    "tests/test_failing.py": "from calc.ops import sub\n\n\ndef test_wrong():\n    assert sub(1, 1) == 1\n",
}
RESULT_LINE = re.compile(r"^\S (.+) (succeeded|failed) in ", re.M)


def junit_outcomes(reports: Path) -> Dict[str, str]:
    """Per test case in Pants' JUnit reports: passed, failure, error or skipped."""
    out = {}
    for xml in sorted(reports.glob("*.xml")):
        for case in ElementTree.parse(xml).iter("testcase"):
            kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
            out[f"{case.get('classname')}::{case.get('name')}"] = "+".join(kinds) or "passed"
    return out


def run_tests(root: Path, plugin: str, nonce: str) -> Tuple[int, Dict[str, str], Dict[str, str], Dict[str, list]]:
    (root / "pants.toml").write_text(PANTS_TOML.format(plugin=plugin))
    (root / "calc" / "ops.py").write_text(FILES["calc/ops.py"] + f"\n# {nonce}\n")  # nothing cached
    shutil.rmtree(root / "dist", ignore_errors=True)
    run = launch(root, "--no-pantsd", "--no-dynamic-ui", "test", "::", env=base_env())
    report = root / "dist" / "coverage" / "python" / "coverage.json"
    assert report.is_file(), run.output
    files = json.loads(report.read_text())["files"]
    return (run.exit_code, dict(RESULT_LINE.findall(run.stderr)), junit_outcomes(root / "dist" / "test" / "reports"),
            {path: data["executed_lines"] for path, data in files.items()})


def test_plain_pants_test_with_coverage_is_the_same_with_the_backend_as_without_it(tmp_path: Path):
    root = scratch(tmp_path / "repo", {"pants.toml": "", **FILES})
    nonce = uuid.uuid4().hex
    exit_without, outcomes_without, cases_without, coverage_without = run_tests(root, WITHOUT, nonce)
    exit_with, outcomes_with, cases_with, coverage_with = run_tests(root, WITH, nonce)

    # The control shows the run is real: one failing test, everything else green, coverage measured.
    assert exit_without == 1, outcomes_without
    assert outcomes_without == {"tests/test_add.py:batched and 1 other files": "succeeded",
                                "tests/test_many.py:parallel": "succeeded",
                                "tests/test_failing.py:failing": "failed"}, outcomes_without
    assert cases_without == {"tests.test_add::test_add": "passed", "tests.test_sub::test_sub": "passed",
                             "tests.test_failing::test_wrong": "failure",
                             **{f"tests.test_many::test_many[{n}]": "passed" for n in range(8)}}, cases_without
    assert coverage_without["calc/ops.py"] == [1, 2, 5, 6, 9], coverage_without

    assert (exit_with, outcomes_with, cases_with) == (exit_without, outcomes_without, cases_without)
    assert coverage_with == coverage_without
