"""Another Pants repository enables the plugin from the wheel `pants package` builds."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from e2e.harness import PLUGIN_SRC, Repo, new_repo

DIST_BUILD = '''python_distribution(
    name="dist",
    dependencies=["src/oracle_gate", "src/oracle_gate/core", "src/oracle_gate/rules", "src/oracle_gate/sandbox"],
    provides=python_artifact(name="pants-oracle-gate", version="0.2.0", python_requires=">=3.7,<3.10"),
    entry_points={"pantsbuild.plugin": {"rules": "oracle_gate.register:rules",
                                        "target_types": "oracle_gate.register:target_types"}},
    generate_setup=True,
)
'''


def build_wheel(tmp: Path) -> Path:
    """`pants package` on a checkout of the plugin source (the same BUILD as this repository's)."""
    root = tmp / "plugin"
    shutil.copytree(PLUGIN_SRC / "oracle_gate", root / "src" / "oracle_gate",
                    ignore=shutil.ignore_patterns("__pycache__", "BUILD"))
    repo = Repo(root)
    shutil.copy2(PLUGIN_SRC.parent / "pants", root / "pants")
    repo.write("pants.toml", '[GLOBAL]\npants_version = "2.17.1"\nbackend_packages = ["pants.backend.python"]\n'
                             'ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]\n'
                             '[source]\nroot_patterns = ["/src"]\n[python]\ninterpreter_constraints = ["CPython==3.9.*"]\n')
    for package in ("", "/core", "/rules", "/sandbox"):
        repo.write(f"src/oracle_gate{package}/BUILD", "python_sources()\n")
    repo.write("src/oracle_gate/BUILD", "python_sources()\n\n" + DIST_BUILD)
    repo.git("init", "-q", "-b", "main")
    repo.commit("plugin")
    run = repo.pants("package", "src/oracle_gate:dist")
    assert run.exit_code == 0, run.output
    wheels = list((root / "dist").glob("pants_oracle_gate-0.2.0-py3-none-any.whl"))
    assert wheels, run.output
    return wheels[0].parent


def test_a_repository_enables_the_plugin_from_the_wheel(tmp_path: Path):
    wheel_dir = build_wheel(tmp_path)
    repo = new_repo(tmp_path / "user")
    toml = repo.read("pants.toml")
    toml = re.sub(r"pythonpath = \[.*\]\n", 'plugins = ["pants-oracle-gate==0.2.0"]\nplugins_force_resolve = true\n', toml)
    repo.write("pants.toml", toml + f'\n[python-repos]\nfind_links = ["file://{wheel_dir}"]\n')
    repo.commit("use the plugin from its wheel")
    run = repo.gate(base="HEAD")
    assert run.exit_code == 0, run.output
    # The six production modules of the example (its requirement is judged through them, no region).
    assert run.report["mode"] == "audit" and len(run.report["regions"]) == 6
    assert "VERDICT merge exit=0" in run.stdout
