"""The `./pants` launcher for real: hermetic first runs, the repository's own pins, one-line errors.

Every test runs the launcher of this checkout in a generated repository. Resolution checks use
`ORACLE_GATE_LAUNCHER_EXPLAIN=1` (the launcher prints what it would use and installs nothing);
the others start real Pants runs.
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import tarfile
import uuid
from pathlib import Path
from typing import Dict, Optional

import pytest

from e2e.harness import LAUNCHER, Repo, Run

PANTS_TOML = """\
[GLOBAL]
pants_version = "2.17.1"
backend_packages = ["pants.backend.python"]
ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]

[python]
interpreter_constraints = ["CPython==3.9.*"]

[python-infer]
use_rust_parser = true
"""


def scratch(root: Path, files: Dict[str, str]) -> Path:
    """A repository holding `files` and a copy of the launcher."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    shutil.copy2(LAUNCHER, root / "pants")
    return root


def base_env(**extra: str) -> Dict[str, str]:
    """This process's environment without Pants or pip settings, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PANTS_", "PIP_"))}
    env.update(extra)
    return env


def launch(root: Path, *args: str, env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None,
           timeout: int = 1200) -> Run:
    proc = subprocess.run([str(root / "pants"), *args], cwd=cwd or root, env=env or base_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def explain(root: Path, *args: str, cwd: Optional[Path] = None, **env: str) -> Dict[str, str]:
    run = launch(root, *args, cwd=cwd, env=base_env(ORACLE_GATE_LAUNCHER_EXPLAIN="1", **env), timeout=60)
    assert run.exit_code == 0, run.output
    return dict(line.split("=", 1) for line in run.stdout.splitlines())


def python(minor: int) -> str:
    """A CPython 3.<minor> from PATH or pyenv, as the launcher finds one."""
    found = shutil.which(f"python3.{minor}")
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates = ([found] if found else []) + sorted(glob.glob(f"{root}/versions/3.{minor}*/bin/python3.{minor}"))
    for candidate in candidates:
        proc = subprocess.run([candidate, "-c", f"import sys; sys.exit(sys.version_info[:2] != (3, {minor}))"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if proc.returncode == 0:
            return candidate
    pytest.fail(f"no CPython 3.{minor} on PATH or under pyenv", pytrace=False)


def one_error_line(run: Run) -> str:
    """A launcher error: non-zero exit and one line, after at most a progress line, with no pip output."""
    assert run.exit_code != 0, run.output
    lines = run.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 2 and all(line.startswith("pants launcher: ") for line in lines), run.output
    assert not run.stdout.strip(), run.output
    return lines[-1]


# -- which Pants and which pex ----------------------------------------------------------------

def test_the_effective_pants_version_follows_pants_order(tmp_path: Path):
    root = scratch(tmp_path, {
        "pants.toml": PANTS_TOML,
        "overlay.toml": '[GLOBAL]\npants_version = "2.17.0"\n',
        "later.toml": "[GLOBAL]\npants_version = '2.16.1'\n",
        "src/deep/x.py": "",
    })
    base = explain(root, cwd=root / "src" / "deep")  # from any subdirectory
    assert base["pants_version"] == f"2.17.1 from={root}/pants.toml", base
    # An overlay added to pants.toml wins; a replacement list means pants.toml is not read at all.
    added = explain(root, PANTS_CONFIG_FILES="+['overlay.toml']")
    assert added["pants_version"] == f"2.17.0 from={root}/overlay.toml"
    assert added["config_files"] == f"{root}/pants.toml {root}/overlay.toml"
    assert explain(root, PANTS_CONFIG_FILES="['overlay.toml']")["config_files"] == f"{root}/overlay.toml"
    # The flag comes after the environment variable; the later file wins.
    flagged = explain(root, "--pants-config-files=later.toml", PANTS_CONFIG_FILES="+['overlay.toml']")
    assert flagged["pants_version"] == f"2.16.1 from={root}/later.toml"
    # The environment beats every file; a flag beats the environment.
    assert explain(root, PANTS_VERSION="2.15.0")["pants_version"] == "2.15.0 from=env PANTS_VERSION"
    assert explain(root, "--pants-version=2.14.0", PANTS_VERSION="2.15.0")["pants_version"] == \
        "2.14.0 from=flag --pants-version"
    # .pants.rc files come last, unless pantsrc is off.
    (root / ".pants.rc").write_text('[GLOBAL]\npants_version = "2.13.0"\n')
    assert explain(root)["pants_version"] == f"2.13.0 from={root}/.pants.rc"
    assert explain(root, "--no-pantsrc")["pants_version"] == f"2.17.1 from={root}/pants.toml"


def test_a_pex_pin_is_served_and_an_own_url_template_is_left_alone(tmp_path: Path):
    root = scratch(tmp_path, {
        "pants.toml": PANTS_TOML + '\n[pex-cli]\nversion = "v2.1.148"\nknown_versions = [\n  "v2.1.148|linux_x86_64|abc|1",\n]\n',
        "own.toml": '[pex-cli]\nurl_template = "file:///opt/pex/{version}/pex"\n',
    })
    pinned = explain(root)
    assert pinned["pex_version"] == f"v2.1.148 from={root}/pants.toml"
    assert pinned["pex"] == f"served from the package index (replaces known_versions from {root}/pants.toml)"
    assert explain(root, PANTS_PEX_CLI_VERSION="v2.1.150")["pex_version"] == "v2.1.150 from=env PANTS_PEX_CLI_VERSION"
    own = explain(root, PANTS_CONFIG_FILES="+['own.toml']")
    assert own["pex"] == f"own url_template from={root}/own.toml (nothing exported)"
    assert explain(root, PANTS_PEX_CLI_URL_TEMPLATE="file:///x")["pex"] == \
        "own url_template from=env PANTS_PEX_CLI_URL_TEMPLATE (nothing exported)"


TOML_CASES = [
    PANTS_TOML,
    '# c\n[GLOBAL]  # c\npants_version = "2.17.1" # c\nbackend_packages.add = [\n  "a",  # c\n  \'b\', """c""",\n]\n'
    '[DEFAULT]\nx = "%(homedir)s"\n[python.resolves]\npython-default = "a.lock"\n',
    '[a]\n"quoted key" = \'\'\'\nmulti\nline\'\'\'\nb = "esc \\" \\\\ \\u00e9 \\t"\nc = """one \\\n   two"""\n'
    'd = { e = 1, f = [1, [2, 3]], g = { h = "i" } }\n[[arr]]\nk = 1\n[[arr]]\nk = 2\n[a.sub]\nz = true\n',
    '[pex-cli]\nversion="v2.1.148"\nknown_versions=["v2.1.148|linux_x86_64|abc|1","v2.1.148|macos_arm64|abc|1"]\n',
]
BAD_TOML = ['[GLOBAL\npants_version = "1"\n', '[GLOBAL]\npants_version = "1\n', '[a]\nb = 1\nb = 2\n', "[a]\nb = [1, 2\n"]

MINI_VS_TOMLLIB = r'''
import json, sys, tomllib
source = open(sys.argv[1]).read()
start, end = source.index("class MiniToml"), source.index("def load_toml")
space = {"re": __import__("re"), "fail": lambda msg: (_ for _ in ()).throw(ValueError(msg))}
exec(source[start:end], space)
cases, bad = json.loads(sys.argv[2]), json.loads(sys.argv[3])
def plain(v):  # tomllib types numbers; the launcher's reader keeps non-strings as text
    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list): return [plain(x) for x in v]
    return v if isinstance(v, (str, bool)) else str(v)
for text in cases:
    assert space["MiniToml"](text, "t").parse() == plain(tomllib.loads(text)), text
for text in bad:
    try:
        space["MiniToml"](text, "t").parse()
    except ValueError:
        pass
    else:
        raise AssertionError("accepted: " + text)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        pass
    else:
        raise AssertionError("tomllib accepted: " + text)
print("ok", len(cases), len(bad))
'''


def test_the_launchers_small_toml_reader_agrees_with_tomllib(tmp_path: Path):
    """Python 3.9 has no tomllib: the launcher's own reader must parse what Pants' files hold."""
    cases = TOML_CASES + [p.read_text() for p in LAUNCHER.parent.glob("**/pants.toml")]
    proc = subprocess.run([python(11), "-c", MINI_VS_TOMLLIB, str(LAUNCHER), json.dumps(cases), json.dumps(BAD_TOML)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stdout
    # And the launcher reads with it on Python 3.9 exactly as with tomllib on 3.11.
    root = scratch(tmp_path, {"pants.toml": TOML_CASES[1], "o.toml": TOML_CASES[3]})
    args = {"PANTS_CONFIG_FILES": "+['o.toml']"}
    assert explain(root, ORACLE_GATE_PYTHON=python(9), **args) == explain(root, ORACLE_GATE_PYTHON=python(11), **args)


# -- pins it cannot satisfy ---------------------------------------------------------------------

def test_an_unsatisfiable_pin_is_one_line_naming_it_and_its_file(tmp_path: Path):
    fresh_cache = str(tmp_path / "launcher-cache")
    root = scratch(tmp_path / "a", {"pants.toml": PANTS_TOML.replace('"2.17.1"', '"2.99.0"')})
    line = one_error_line(launch(root, "--version", env=base_env(ORACLE_GATE_CACHE_DIR=fresh_cache)))
    assert f"pants_version 2.99.0 (from {root}/pants.toml) cannot be installed: no pantsbuild.pants==2.99.0" in line

    root = scratch(tmp_path / "b", {"pants.toml": PANTS_TOML, "pin.toml": '[pex-cli]\nversion = "v2.1.9999"\n'})
    line = one_error_line(launch(root, "--version", env=base_env(PANTS_CONFIG_FILES="+['pin.toml']")))
    assert f"pex v2.1.9999 ([pex-cli].version from {root}/pin.toml) cannot be built: no pex==2.1.9999" in line

    # An unreachable index is not "no such version": the install is retried twice (5 s, then 10 s
    # later), then reported as such.
    unreachable = launch(root, "--version", env=base_env(ORACLE_GATE_CACHE_DIR=str(tmp_path / "cache3"),
                                                         PIP_INDEX_URL="http://127.0.0.1:9/simple"))
    lines = unreachable.stderr.strip().splitlines()
    assert unreachable.exit_code != 0 and [line.split(" (")[0] for line in lines] == [
        "pants launcher: bootstrapping Pants 2.17.1",
        "pants launcher: installing pantsbuild.pants==2.17.1 failed",
        "pants launcher: installing pantsbuild.pants==2.17.1 failed",
        "pants launcher: could not install pantsbuild.pants==2.17.1: cannot reach the package index",
    ], unreachable.output
    assert lines[1].endswith("retrying in 5 s") and lines[2].endswith("retrying in 10 s"), lines

    # No CPython 3.9 anywhere: only a Python 3.11 to read the configuration with.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python(11))
    no39 = base_env(ORACLE_GATE_CACHE_DIR=str(tmp_path / "cache2"), PATH=f"{bin_dir}:/usr/bin:/bin",
                    PYENV_ROOT=str(tmp_path / "no-pyenv"), HOME=str(tmp_path / "home"))
    no39.pop("ORACLE_GATE_PYTHON", None)
    line = one_error_line(launch(root, "--version", env=no39))
    assert f"pants_version 2.17.1 (from {root}/pants.toml) needs CPython 3.9: none found" in line

    for files, expected in [
        ({"pants.toml": "[GLOBAL]\nbackend_packages = []\n"}, "no pants_version: set [GLOBAL] pants_version in"),
        ({"pants.toml": '[GLOBAL]\npants_version = "2.17.1\n'}, f"cannot parse {tmp_path}/c/pants.toml"),
        ({"pants.toml": '[GLOBAL]\npants_version = "latest; rm -rf /"\n'}, "is not a version"),
    ]:
        shutil.rmtree(tmp_path / "c", ignore_errors=True)
        root = scratch(tmp_path / "c", files)
        assert expected in one_error_line(launch(root, "--version"))
    line = one_error_line(launch(scratch(tmp_path / "d", {"pants.toml": PANTS_TOML}), "--version",
                                 env=base_env(PANTS_CONFIG_FILES="+['missing.toml']")))
    assert f"config file {tmp_path}/d/missing.toml (named by PANTS_CONFIG_FILES or --pants-config-files) does not exist" in line


# -- a hermetic first run -------------------------------------------------------------------------

def hostile_pip_config(tmp_path: Path) -> Path:
    """A global pip configuration whose constraints break the bootstrap (pex) and the resolves.

    (Pants resolves its own tools from lockfiles, whose direct-URL downloads pip does not constrain;
    a repository's requirements, like `six` below, are resolved by name and are constrained.)
    """
    xdg = tmp_path / "xdg"
    (xdg / "pip").mkdir(parents=True)
    (xdg / "pip" / "constraints.txt").write_text("pex<1\npytest<1\nsix<1\n")
    (xdg / "pip" / "pip.conf").write_text(f"[global]\nconstraint = {xdg}/pip/constraints.txt\n")
    return xdg


def test_the_hostile_pip_configuration_breaks_plain_pip(tmp_path: Path):
    """The control: pip reads that file, even under --isolated (as pex runs it), unless PIP_CONFIG_FILE=/dev/null."""
    xdg = hostile_pip_config(tmp_path)
    env = base_env(XDG_CONFIG_DIRS=str(xdg), HOME=str(tmp_path / "home"))
    cert = ["--cert", "/etc/ssl/certs/ca-certificates.crt"] if Path("/etc/ssl/certs/ca-certificates.crt").exists() else []
    download = [python(9), "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", *cert,
                "-d", str(tmp_path / "dl")]
    for requirement, constraint in (("six==1.16.0", "six<1"), ("pex==2.1.137", "pex<1")):
        for isolated in ([], ["--isolated"]):
            proc = subprocess.run(download[:3] + isolated + download[3:] + [requirement], env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
            assert proc.returncode != 0 and f"(constraint) {constraint}" in proc.stdout, proc.stdout
    proc = subprocess.run(download[:3] + ["--isolated"] + download[3:] + ["six==1.16.0", "pex==2.1.137"],
                          env={**env, "PIP_CONFIG_FILE": "/dev/null"}, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    assert proc.returncode == 0, proc.stdout


HERMETIC_TEST = "import six\n\n\ndef test_six():\n    assert six.PY3  # {nonce}\n"


def empty_cache_env(tmp_path: Path, xdg: Path, env_vars: str) -> Dict[str, str]:
    (tmp_path / "home").mkdir(parents=True, exist_ok=True)
    return base_env(
        HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        ORACLE_GATE_CACHE_DIR=str(tmp_path / "launcher"), PANTS_NAMED_CACHES_DIR=str(tmp_path / "named"),
        PANTS_LOCAL_STORE_DIR=str(tmp_path / "store"), XDG_CONFIG_DIRS=str(xdg),
        PANTS_SUBPROCESS_ENVIRONMENT_ENV_VARS=env_vars,
    )


def test_a_first_run_from_empty_caches_ignores_a_global_pip_constraint(tmp_path: Path):
    xdg = hostile_pip_config(tmp_path)
    root = scratch(tmp_path / "repo", {
        "pants.toml": PANTS_TOML,
        "BUILD": "python_requirement(name='six', requirements=['six==1.16.0'])\npython_tests(name='tests')\n",
        "test_hermetic.py": HERMETIC_TEST.format(nonce=uuid.uuid4().hex),
    })
    # XDG_CONFIG_DIRS is forwarded into Pants' processes, so pip inside pex would read the file too.
    env = empty_cache_env(tmp_path / "first", xdg, f"+['XDG_CONFIG_DIRS={xdg}']")
    env.pop("ORACLE_GATE_PYTHON", None)
    run = launch(root, "--no-pantsd", "--no-dynamic-ui", "test", "::", env=env)
    assert run.exit_code == 0, run.output
    assert "test_hermetic.py:tests succeeded" in run.output, run.output
    assert f"pants launcher: bootstrapping Pants 2.17.1 (pants_version from {root}/pants.toml)" in run.stderr

    # The other control: the same forwarding without the launcher's PIP_CONFIG_FILE (a replacement
    # list, which the launcher leaves alone) breaks the resolve inside Pants' sandbox.
    control = empty_cache_env(tmp_path / "control", xdg, f"['XDG_CONFIG_DIRS={xdg}']")
    control["ORACLE_GATE_CACHE_DIR"] = env["ORACLE_GATE_CACHE_DIR"]  # Pants itself is installed now
    (root / "test_hermetic.py").write_text(HERMETIC_TEST.format(nonce=uuid.uuid4().hex))
    broken = launch(root, "--no-pantsd", "--no-dynamic-ui", "test", "::", env=control)
    assert broken.exit_code != 0 and "six<1" in broken.output, broken.output


# -- the repository's own pex pin and subprocess environment -------------------------------------

SHOW = '''import json, os, zipfile

import probe_env

pex = os.environ["PEX"]
if os.path.isdir(pex):
    with open(os.path.join(pex, "PEX-INFO")) as f:
        info = json.load(f)
else:
    with zipfile.ZipFile(pex) as z:
        info = json.loads(z.read("PEX-INFO"))
print(json.dumps({"pex_version": info["build_properties"]["pex_version"], "pip_saw": probe_env.ENV}))
'''

# An sdist that pip must build inside Pants' sandbox: its setup.py records what pip's environment held.
PROBE_SETUP = '''import os
from setuptools import setup

os.makedirs("gen", exist_ok=True)
with open("gen/probe_env.py", "w") as f:
    f.write("ENV = %r\\n" % {k: os.environ.get(k) for k in ("ORACLE_GATE_MARK", "PIP_CONFIG_FILE")})
setup(name="probe", version="1.0", package_dir={"": "gen"}, py_modules=["probe_env"])
# nonce: {nonce}
'''


def test_a_repository_pinning_pex_gets_that_pex_and_keeps_its_subprocess_environment(tmp_path: Path):
    root = scratch(tmp_path, {
        "pants.toml": PANTS_TOML + '\n[source]\nroot_patterns = ["/src"]\n\n[pex-cli]\nversion = "v2.1.148"\n\n'
                                   '[subprocess-environment]\nenv_vars = ["ORACLE_GATE_MARK=from-the-repository"]\n\n'
                                   '[python-repos]\nfind_links = ["file://%(buildroot)s/sdists"]\n',
        "src/BUILD": 'python_requirement(name="probe", requirements=["probe==1.0"], modules=["probe_env"])\n'
                     'python_sources(dependencies=[":probe"])\npex_binary(name="bin", entry_point="show.py")\n',
        "src/show.py": SHOW,
        "probe/setup.py": PROBE_SETUP.replace("{nonce}", uuid.uuid4().hex),
    })
    (root / "sdists").mkdir()
    with tarfile.open(root / "sdists" / "probe-1.0.tar.gz", "w:gz") as sdist:
        sdist.add(root / "probe" / "setup.py", arcname="probe-1.0/setup.py")
    run = launch(root, "--no-pantsd", "--no-dynamic-ui", "run", "src:bin")
    assert run.exit_code == 0, run.output
    shown = json.loads(run.stdout.strip().splitlines()[-1])
    assert shown["pex_version"] == "2.1.148", shown
    # Both the repository's own entry and the launcher's addition reached the pip that pex ran.
    assert shown["pip_saw"] == {"ORACLE_GATE_MARK": "from-the-repository", "PIP_CONFIG_FILE": "/dev/null"}, shown


# -- the gate's infrastructure exit code -------------------------------------------------------------

STUB_GOALS = '''import os

from pants.base.build_environment import get_buildroot
from pants.engine.console import Console
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.rules import collect_rules, goal_rule


class GateSubsystem(GoalSubsystem):
    name = "oracle-gate"
    help = "A stand-in for the gate: exit 4 (infrastructure) on its first run, 0 afterwards."


class Gate(Goal):
    subsystem_cls = GateSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


class OtherSubsystem(GoalSubsystem):
    name = "other-goal"
    help = "Any other goal that exits 4."


class Other(Goal):
    subsystem_cls = OtherSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


def count(name: str) -> int:
    path = os.path.join(get_buildroot(), name)
    with open(path, "a") as f:
        f.write("run\\n")
    with open(path) as f:
        return len(f.readlines())


@goal_rule
async def gate(console: Console) -> Gate:
    return Gate(exit_code=4 if count("gate-runs") == 1 else 0)


@goal_rule
async def other(console: Console) -> Other:
    count("other-runs")
    return Other(exit_code=4)


def rules():
    return collect_rules()
'''


def test_the_gates_infrastructure_exit_code_is_retried_once_and_nothing_else_is(tmp_path: Path):
    root = scratch(tmp_path, {
        "pants.toml": '[GLOBAL]\npants_version = "2.17.1"\npythonpath = ["%(buildroot)s/plugin"]\n'
                      'backend_packages = ["stubgate"]\n'
                      'ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]\n',
        "plugin/stubgate/__init__.py": "",
        "plugin/stubgate/register.py": STUB_GOALS,
    })
    flags = ["--pantsd", "--no-dynamic-ui"]  # goal rules run on every invocation, daemon or not
    head = base_env(ORACLE_GATE_JUDGE="head")  # no git repository here: the stub judges as it is
    try:
        gate = launch(root, *flags, "oracle-gate", env=head)
        assert gate.exit_code == 0, gate.output
        assert (root / "gate-runs").read_text().count("run") == 2
        assert "pants launcher: the gate reported an infrastructure failure (exit 4); running it once more" in gate.stderr

        other = launch(root, *flags, "other-goal")
        assert other.exit_code == 4 and (root / "other-runs").read_text().count("run") == 1, other.output

        (root / "gate-runs").unlink()
        once = launch(root, *flags, "oracle-gate", env=base_env(ORACLE_GATE_INFRA_RETRIES="0", ORACLE_GATE_JUDGE="head"))
        assert once.exit_code == 4 and (root / "gate-runs").read_text().count("run") == 1, once.output
    finally:
        Repo(root).stop_pantsd()


def test_the_gate_is_launched_under_the_merge_base_configuration_and_plugin(tmp_path: Path):
    """Judge mode resolves the merge base before Pants starts: the head's pants.toml, .pants.rc and
    plugin path are evidence only; every other goal reads the head's files as always."""
    root = scratch(tmp_path, {
        "pants.toml": '[GLOBAL]\npants_version = "2.17.1"\npythonpath = ["%(buildroot)s/plugin"]\n',
        "plugin/judge/__init__.py": "",
    })
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    base = subprocess.run([*git, "rev-parse", "HEAD"], check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    subprocess.run([*git, "checkout", "-qb", "patch"], check=True)
    (root / "pants.toml").write_text('[GLOBAL]\npants_version = "2.18.0"\npythonpath = ["%(buildroot)s/fake"]\n')
    (root / ".pants.rc").write_text('[GLOBAL]\npants_version = "2.19.0"\n')
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "patch"], check=True)

    judged = explain(root, "oracle-gate", "::")
    assert judged["pants_version"].split()[0] == "2.17.1", judged
    assert judged["judge"].startswith(f"base {base} pythonpath=["), judged
    assert judged["judge"].endswith("/tree/plugin']"), judged
    assert "/config/pants.toml" in judged["config_files"] and str(root) not in judged["config_files"], judged
    # An explicit base, and judge mode off: the head's files, as every other goal reads them.
    assert explain(root, "oracle-gate", "--oracle-gate-base=patch", "::")["judge"].startswith("base " + subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, stdout=subprocess.PIPE, text=True).stdout.strip())
    assert explain(root, "oracle-gate", "::", ORACLE_GATE_JUDGE="head")["pants_version"].split()[0] == "2.19.0"
    assert explain(root, "test", "::")["pants_version"].split()[0] == "2.19.0"
    # The base enables no gate (this is the change that adopts it): nothing judges, one line, exit 2.
    adopting = launch(root, "oracle-gate", "::")
    assert adopting.exit_code == 2 and adopting.stderr.strip().endswith(
        "does not enable the oracle_gate backend: the change that adopts the gate has no gate at its base "
        "and is reviewed by people (ORACLE_GATE_JUDGE=head runs the head's)"), adopting.output
