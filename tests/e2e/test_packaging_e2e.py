"""Another Pants repository enables the plugin from the wheel `pants package` builds."""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Tuple

from e2e.harness import PLUGIN_SRC, Repo, new_repo


def build_wheel(tmp: Path) -> Tuple[Path, str]:
    """`pants package` of this repository's plugin: its source and its own BUILD files (the real
    `python_distribution`, shipped to this sandbox by //:plugin-build-files), loaded the way this
    repository loads it (the plugin from `pythonpath`, since its BUILD files use its fields)."""
    root = tmp / "plugin"
    shutil.copytree(PLUGIN_SRC / "oracle_gate", root / "src" / "oracle_gate", ignore=shutil.ignore_patterns("__pycache__"))
    builds = sorted(p.relative_to(root).as_posix() for p in root.rglob("BUILD"))
    assert builds == ["src/oracle_gate/BUILD", "src/oracle_gate/core/BUILD", "src/oracle_gate/core/judge/BUILD",
                      "src/oracle_gate/core/ladder/BUILD", "src/oracle_gate/core/lanes/BUILD",
                      "src/oracle_gate/core/protocol/BUILD", "src/oracle_gate/core/source/BUILD",
                      "src/oracle_gate/rules/BUILD", "src/oracle_gate/sandbox/BUILD"], builds
    version = re.search(r'version="([^"]+)"', (root / "src/oracle_gate/BUILD").read_text()).group(1)
    repo = Repo(root)
    shutil.copy2(PLUGIN_SRC.parent / "pants", root / "pants")
    repo.write("pants.toml", '[GLOBAL]\npants_version = "2.17.1"\npythonpath = ["%(buildroot)s/src"]\n'
                             'backend_packages = ["pants.backend.python", "oracle_gate"]\n'
                             'ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]\n'
                             '[source]\nroot_patterns = ["/src"]\n[python]\ninterpreter_constraints = ["CPython==3.9.*"]\n')
    repo.git("init", "-q", "-b", "main")
    repo.commit("plugin")
    run = repo.pants("package", "src/oracle_gate:dist")
    assert run.exit_code == 0, run.output
    wheels = list((root / "dist").glob(f"pants_oracle_gate-{version}-py3-none-any.whl"))
    assert wheels, run.output
    return wheels[0].parent, version


def test_a_repository_enables_the_plugin_from_the_wheel(tmp_path: Path):
    wheel_dir, version = build_wheel(tmp_path)
    repo = new_repo(tmp_path / "user")
    toml = repo.read("pants.toml")
    toml = re.sub(r"pythonpath = \[.*\]\n", f'plugins = ["pants-oracle-gate=={version}"]\nplugins_force_resolve = true\n', toml)
    repo.write("pants.toml", toml + f'\n[python-repos]\nfind_links = ["file://{wheel_dir}"]\n')
    repo.commit("use the plugin from its wheel")
    run = repo.gate(base="HEAD")
    assert run.exit_code == 0, run.output
    # The six production modules of the example (its requirement is judged through them, no region).
    assert run.report["mode"] == "audit" and len(run.report["regions"]) == 6
    assert "VERDICT merge exit=0" in run.stdout
