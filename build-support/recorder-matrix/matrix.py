#!/usr/bin/env python3
"""The recorder matrix: the real sandbox plugin under real pytest and Hypothesis versions.

For each entry (a Python, a pytest, a Hypothesis) it builds a venv (cached under
~/.cache/oracle-gate-recorder-matrix, keyed by the versions), ships the plugin as the setup hook
does (package `_oracle_gate_sandbox` behind its boot shims, plus a pytest11 dist-info), and runs suite.py one test file
per pytest session, with and without the plugin. It checks that
  - each session ends with the same exit status and the same per-test outcomes either way
    (the plugin never changes an outcome),
  - a derandomized property sees the same examples either way,
  - the recorded outcomes, phases, markers, reasons, signatures, Hypothesis counts, executed
    code, fixture digests, completeness (pytest.exit, a collection error, an internal error) and
    mutant are the expected ones,
  - the recorder raised nothing (no recorder_errors),
  - for entries with pytest-cov: coverage sees the same lines with the recorder as without.

    python3 build-support/recorder-matrix/matrix.py [--entry NAME ...] [--bench N]

`--bench N` also times a test making N calls into production code, with and without the plugin.
tests/e2e/test_recorder_matrix.py runs it under `pants test`.
"""
import argparse
import ast
import base64
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PLUGIN = REPO / "src" / "oracle_gate" / "sandbox" / "plugin.py"
CORE = REPO / "src" / "oracle_gate" / "core"
HOOK = REPO / "src" / "oracle_gate" / "rules" / "sandbox_setup.py"
SYSTEM_CA = "/etc/ssl/certs/ca-certificates.crt"

sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(HERE))
import suite  # noqa: E402  (this directory)

from oracle_gate.core.protocol.results import RESULTS_RELPATH, Mutant, ResultsError, SessionResults, loads  # noqa: E402
from oracle_gate.core.protocol.signature import Frame, failure_signature  # noqa: E402


class Entry(NamedTuple):
    python: str  # X.Y, found under pyenv or on PATH
    pytest: str
    hypothesis: str
    coverage: str = ""  # a pytest-cov version: also run under coverage, which must see the same lines

    @property
    def name(self) -> str:
        cov = f"-pytest-cov{self.coverage}-coverage{COVERAGE}" if self.coverage else ""
        return f"py{self.python}-pytest{self.pytest}-hypothesis{self.hypothesis}{cov}"

    def requirements(self) -> List[str]:
        cov = [f"pytest-cov=={self.coverage}", f"coverage=={COVERAGE}"] if self.coverage else []
        return [f"pytest=={self.pytest}", f"hypothesis=={self.hypothesis}", *cov]


COVERAGE = "7.6.1"  # supports Python 3.8 to 3.13


ENTRIES = (
    Entry("3.9", "6.2.5", "6.0.0"),
    Entry("3.9", "7.0.1", "6.141.1"),
    Entry("3.9", "7.4.3", "6.82.0", coverage="5.0.0"),  # coverage's trace function beside the profile hook
    Entry("3.9", "8.4.2", "6.100.0"),
    Entry("3.12", "8.4.2", "6.170.17", coverage="5.0.0"),  # sys.monitoring
)
# Not run by CI; `--entry NAME` runs them (the plugin's supported Python range, 3.7 to 3.13).
EXTRA_ENTRIES = (
    Entry("3.7", "7.4.3", "6.79.4"),
    Entry("3.13", "8.4.2", "6.170.17"),
)


class MatrixError(Exception):
    pass


# -- interpreters and venvs ------------------------------------------------------------------------

def find_python(minor: str) -> str:
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", f"{minor}.*", "bin", f"python{minor}")))
    found = found or [p for p in [shutil.which(f"python{minor}")] if p]
    if not found:
        raise MatrixError(f"no python{minor} under {root}/versions or on PATH")
    return found[-1]


def cache_dir() -> Path:
    return Path(os.environ.get("ORACLE_GATE_MATRIX_CACHE") or Path.home() / ".cache" / "oracle-gate-recorder-matrix")


def _pip_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    # No machine-wide pip configuration (constraints, find-links) may change what gets installed.
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1",
               PIP_DEFAULT_TIMEOUT="120")
    return env


def _run(argv: List[str], **kwargs: object) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          **kwargs)  # type: ignore[call-overload]
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-15:])
        raise MatrixError(f"`{' '.join(argv[:6])} ...` exited {proc.returncode}:\n{tail}")
    return proc


def ensure_venv(entry: Entry) -> Tuple[Path, bool]:
    """The entry's venv python, and whether it was built now (False: from the cache)."""
    base = find_python(entry.python)
    version = _run([base, "-c", "import platform; print(platform.python_version())"]).stdout.strip()
    key = entry.name.replace(f"py{entry.python}-", f"py{version}-", 1)
    final = cache_dir() / key
    if (final / "ready").is_file():
        return final / "bin" / "python", False
    cache_dir().mkdir(parents=True, exist_ok=True)
    tmp = cache_dir() / f"{key}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    _run([base, "-m", "venv", str(tmp)])
    pip = [str(tmp / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    if os.path.isfile(SYSTEM_CA):
        pip += ["--cert", SYSTEM_CA]
    _run(pip + entry.requirements(), env=_pip_env())
    freeze = _run([str(tmp / "bin" / "python"), "-m", "pip", "freeze"], env=_pip_env()).stdout
    (tmp / "ready").write_text(freeze)
    if final.exists() and not (final / "ready").is_file():
        shutil.rmtree(final, ignore_errors=True)
    try:
        os.rename(tmp, final)  # venvs are relocatable enough for `python -m`
    except OSError:  # another run built it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return final / "bin" / "python", True


# -- the runtime the setup hook ships --------------------------------------------------------------

def _core_imports(path: Path) -> List[str]:
    """The core modules (paths under core/, without `.py`) that a file of the plugin's package
    imports relatively, in either form (`from ..core.protocol.results import x`, `from ..core.protocol
    import results`)."""
    package = list(path.relative_to(PLUGIN.parents[1]).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
        if base[:1] != ["core"]:
            continue
        for parts in ([*base[1:], alias.name] for alias in node.names):
            found.append("/".join(parts if (CORE.joinpath(*parts).with_suffix(".py")).is_file() else parts[:-1]))
    return found


def plugin_core_modules() -> List[str]:
    """The core modules the plugin imports, transitively, with the `__init__` of every package on
    the way."""
    todo = [m for path in sorted(PLUGIN.parent.glob("*.py")) for m in _core_imports(path)]
    seen = {"__init__"}
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_core_imports(CORE / f"{module}.py"))
            parts = module.split("/")
            seen.update("/".join([*parts[:i], "__init__"]) for i in range(1, len(parts)))
    return sorted(seen)


def hook_constants() -> Dict[str, object]:
    """The setup hook's layout constants (package names, dist-info, modules, boot templates), read
    without importing Pants."""
    constants = {}
    for node in ast.parse(HOOK.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("SANDBOX_PACKAGE", "BOOT_PACKAGE", "DIST_INFO", "CORE_MODULES", "SANDBOX_MODULES",
                                      "BOOT_RUNTIME", "BOOT_SHIM"):
                constants[node.targets[0].id] = ast.literal_eval(node.value)
    return constants


def build_runtime(dest: Path) -> Path:
    """What sandbox_setup.sandbox_runtime writes (the recorder's entry point only), with the core
    modules the plugin imports."""
    hook = hook_constants()
    name, boot = str(hook["SANDBOX_PACKAGE"]), dest / str(hook["BOOT_PACKAGE"])
    package = boot / "runtime" / name
    files = {
        boot / "runtime_path.py": str(hook["BOOT_RUNTIME"]).format(package=name),
        boot / "plugin.py": str(hook["BOOT_SHIM"]).format(package=name, module="plugin"),
        package / "__init__.py": "",
        package / "sandbox" / "__init__.py": "",
        package / "sandbox" / "plugin.py": PLUGIN.read_text(),
        **{package / "sandbox" / f"{m}.py": (PLUGIN.parent / f"{m}.py").read_text()
           for m in hook.get("SANDBOX_MODULES", ()) if m != "plugin"},  # type: ignore[union-attr]
        dest / str(hook["DIST_INFO"]) / "METADATA": "Metadata-Version: 2.1\nName: oracle-gate-sandbox\nVersion: 1.0\n",
        dest / str(hook["DIST_INFO"]) / "entry_points.txt":
            f"[pytest11]\noracle_gate = {hook['BOOT_PACKAGE']}.plugin\n",
    }
    for module in plugin_core_modules():
        files[package / "core" / f"{module}.py"] = (CORE / f"{module}.py").read_text()
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return dest


# -- sessions --------------------------------------------------------------------------------------

class Session(NamedTuple):
    exit_status: int
    junit: Optional[Dict[str, str]]  # "classname::name" -> passed, failure, error, skipped (joined with +)
    results: Optional[SessionResults]
    output: str
    root: Path
    error: Optional[str] = None  # the results file did not load


def _junit(path: Path) -> Optional[Dict[str, str]]:
    if not path.is_file():
        return None
    cases = {}
    for case in ET.parse(str(path)).iter("testcase"):
        tags = sorted(c.tag for c in case if c.tag in ("failure", "error", "skipped"))
        cases[f"{case.get('classname')}::{case.get('name')}"] = "+".join(tags) or "passed"
    return cases


def run_session(python: Path, work: Path, test_file: str, runtime: Optional[Path], env: Dict[str, str],
                args: Tuple[str, ...] = ()) -> Session:
    """One pytest session over one test file of a fresh copy of the suite (cwd = its root). The
    runtime goes into the root, as the setup hook puts it under the test's source root."""
    root = Path(tempfile.mkdtemp(prefix="run-", dir=str(work)))
    suite.write(root)
    full_env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", str(root)),
                "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", **env}
    if runtime is not None:
        shutil.copytree(str(runtime), str(root), dirs_exist_ok=True)
        full_env["PYTHONPATH"] = str(root)
    argv = [str(python), "-m", "pytest", "-p", "no:cacheprovider", "--junit-xml=junit.xml",
            *args, *suite.RUNS[test_file], test_file]
    proc = subprocess.run(argv, cwd=str(root), env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    results, error = None, None
    results_file = root / "extra-output" / RESULTS_RELPATH
    if results_file.is_file():
        try:
            results = loads(results_file.read_bytes())
        except ResultsError as e:
            error = str(e)
    return Session(proc.returncode, _junit(root / "junit.xml"), results, proc.stdout, root, error)


def mutant_env(source: str, mutant_id: str = "calc-add-2b") -> str:
    blob = json.dumps({"path": "calc.py", "source": source, "id": mutant_id}).encode()
    return base64.b64encode(zlib.compress(blob)).decode()


# -- checks ----------------------------------------------------------------------------------------

def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(needle))


def check_pair(test_file: str, plain: Session, recorded: Session) -> List[str]:
    """The plugin never changes an outcome or an exit status, and it wrote a clean record."""
    problems = []
    if plain.exit_status != recorded.exit_status:
        problems.append(f"{test_file}: exit status {plain.exit_status} without the plugin, "
                        f"{recorded.exit_status} with it")
    if plain.junit != recorded.junit:
        problems.append(f"{test_file}: outcomes differ; without the plugin {plain.junit}, with it {recorded.junit}")
    logs = [s.root / "examples.log" for s in (plain, recorded)]
    if any(log.exists() for log in logs) and not all(log.exists() and log.read_text() == logs[0].read_text()
                                                     for log in logs):
        problems.append(f"{test_file}: a derandomized property saw other examples with the plugin")
    if recorded.results is None:
        problems.append(f"{test_file}: no results ({recorded.error or 'no file'}); output:\n{recorded.output[-3000:]}")
    elif recorded.results.recorder_errors:
        problems.append(f"{test_file}: recorder errors {list(recorded.results.recorder_errors)}")
    return problems


def check_records(entry: Entry, sessions: Dict[str, Session]) -> List[str]:
    problems = []
    results = {f: s.results for f, s in sessions.items() if s.results is not None}
    tests = {t.nodeid: t for r in results.values() for t in r.tests}
    for r in results.values():
        if (r.versions.pytest, r.versions.hypothesis) != (entry.pytest, entry.hypothesis):
            problems.append(f"versions recorded {r.versions}, expected pytest {entry.pytest} / {entry.hypothesis}")
    for nodeid, (outcome, phase, marker, reason) in suite.EXPECTED.items():
        t = tests.get(nodeid)
        if t is None:
            problems.append(f"{nodeid}: not recorded")
            continue
        got_reason_ok = (t.reason or "").startswith(reason[:-1]) if reason and reason.endswith("*") else t.reason == reason
        if (t.outcome, t.phase, t.marker) != (outcome, phase, marker) or not got_reason_ok:
            problems.append(f"{nodeid}: recorded {(t.outcome, t.phase, t.marker, t.reason)}, "
                            f"expected {(outcome, phase, marker, reason)}")
        if (t.signature is None) != (t.outcome == "passed"):
            problems.append(f"{nodeid}: outcome {t.outcome} with signature {t.signature}")
        expected_hypothesis = suite.HYPOTHESIS.get(nodeid)
        got = (t.examples, t.exhausted)
        if expected_hypothesis is None and got != (None, None):
            problems.append(f"{nodeid}: not a property, yet examples/exhausted {got}")
        elif expected_hypothesis is not None and t.outcome == "failed":
            if t.examples is None or t.examples < expected_hypothesis[0] or t.exhausted is not False:
                problems.append(f"{nodeid}: examples/exhausted {got}, expected at least {expected_hypothesis}")
        elif expected_hypothesis is not None and got != expected_hypothesis:
            problems.append(f"{nodeid}: examples/exhausted {got}, expected {expected_hypothesis}")
    for nodeid, (exception, frames) in suite.FAILURES.items():
        t = tests.get(nodeid)
        shape = ("a:int", "b:int", "total:int") if "[" in nodeid else ()
        signature = failure_signature(nodeid, exception, [Frame(p, f) for p, f in frames], shape)
        if t is not None and (t.exception, t.signature) != (exception, signature):
            problems.append(f"{nodeid}: exception/signature {(t.exception, t.signature)}, "
                            f"expected {(exception, signature)}")
    problems += _check_sessions(results)
    problems += _check_evidence(results)
    return problems


def _check_sessions(results: Dict[str, SessionResults]) -> List[str]:
    problems = []
    for test_file, r in results.items():
        if test_file in ("test_exit.py", "test_collect_error.py", "internal/test_internal.py"):
            continue
        if not r.complete or r.interrupted or r.unrecorded():
            problems.append(f"{test_file}: complete={r.complete} interrupted={r.interrupted} "
                            f"unrecorded={r.unrecorded()}")
    exit_ = results.get("test_exit.py")
    if exit_ is not None and (exit_.complete or exit_.exit_status != 0
                              or not (exit_.interrupted or "").startswith("pytest.exit(returncode=0)")
                              or exit_.unrecorded() != ("test_exit.py::test_after", "test_exit.py::test_stops")):
        problems.append(f"test_exit.py: complete={exit_.complete} exit={exit_.exit_status} "
                        f"interrupted={exit_.interrupted} unrecorded={exit_.unrecorded()}")
    internal = results.get("internal/test_internal.py")
    if internal is not None and (internal.complete or internal.exit_status != 3 or not (internal.interrupted or "")
                                 .startswith("internal error: RuntimeError: a plugin broke")):
        problems.append(f"internal/test_internal.py: complete={internal.complete} exit={internal.exit_status} "
                        f"interrupted={internal.interrupted}")
    error = results.get("test_collect_error.py")
    record = error.file("test_collect_error.py") if error is not None else None
    if error is not None and (error.complete or record is None
                              or "no_such_module_for_oracle_gate" not in (record.collection_error or "")):
        problems.append(f"test_collect_error.py: complete={error.complete} file={record}")
    fixture = results.get("test_fixture.py")
    record = fixture.file("test_fixture.py") if fixture is not None else None
    rewritten = hashlib.sha256(b'{"seed": 2}').hexdigest()
    if fixture is not None and (record is None or record.fixtures != (("data/seed.json", rewritten),)
                                or record.address != "suite/test_fixture.py"):
        problems.append(f"test_fixture.py: fixtures {record and record.fixtures}, expected the rewritten digest")
    return problems


def _check_evidence(results: Dict[str, SessionResults]) -> List[str]:
    problems = []
    add = ("calc.py", _line_of(suite.CALC, "def add"), "add")
    divide = ("calc.py", _line_of(suite.CALC, "def divide"), "divide")
    module = ("calc.py", 1, "<module>")
    never = ("calc.py", _line_of(suite.CALC, "def never_called"), "never_called")
    # called only while a test module imported calc: no test called it, so it is no evidence
    at_import = ("calc.py", _line_of(suite.CALC, "def called_at_import"), "called_at_import")
    table = ("calc.py", _line_of(suite.CALC, "class Table"), "Table")
    own = ("test_outcomes.py", _line_of(suite.OUTCOMES, "def test_pass"), "test_pass")
    wanted = {"test_outcomes.py": {add, divide, module, own, table}, "test_props.py": {add, module, table},
              "test_collect_error.py": {module}}
    for test_file, codes in wanted.items():
        r = results.get(test_file)
        record = r.file(test_file) if r is not None else None
        executed = set(record.executed) if record is not None else set()
        if not codes <= executed or never in executed or at_import in executed:
            problems.append(f"{test_file}: executed code misses {sorted(codes - executed)} "
                            f"or holds never_called or called_at_import; recorded {sorted(executed)}")
    for r in results.values():
        for f in r.files:
            bad = [c for c in f.executed if "site-packages" in c[0] or "_oracle_gate_sandbox" in c[0]
                   or c[0].startswith(".") or not c[0].endswith(".py")]
            if bad:
                problems.append(f"{f.path}: machinery in the executed code: {bad[:5]}")
    return problems


# -- an entry --------------------------------------------------------------------------------------

def run_entry(entry: Entry, work: Path, log=print) -> List[str]:
    """Build (or reuse) the entry's venv, run the suite with and without the plugin, check it all."""
    start = time.monotonic()
    python, built = ensure_venv(entry)
    venv_seconds = time.monotonic() - start
    runtime = build_runtime(work / "runtime")
    problems: List[str] = []
    sessions = {}
    for test_file in suite.RUNS:
        plain = run_session(python, work, test_file, None, {})
        recorded = run_session(python, work, test_file, runtime, {})
        problems += check_pair(test_file, plain, recorded)
        sessions[test_file] = recorded
    problems += check_records(entry, sessions)
    problems += _check_mutants(python, work, runtime)
    problems += _check_cleanroom(python, work, runtime)
    if entry.coverage:
        problems += _check_coverage(python, work, runtime)
    log(f"{entry.name}: venv {'built' if built else 'cached'} {venv_seconds:.1f}s, "
        f"suite {time.monotonic() - start - venv_seconds:.1f}s, {len(problems)} problem(s)")
    return problems


def _check_mutants(python: Path, work: Path, runtime: Path) -> List[str]:
    problems = []
    served = run_session(python, work, "test_props.py", runtime, {"ORACLE_GATE_MUTANT": mutant_env(suite.MUTANT_SOURCE)})
    r = served.results
    t = r.test("test_props.py::test_add_commutes") if r is not None else None
    if r is None or r.mutant != Mutant(id="calc-add-2b", path="calc.py", served=True) or t is None \
            or t.outcome != "failed" or r.recorder_errors:
        problems.append(f"mutant: results {r and (r.mutant, r.recorder_errors)}, test {t and t.outcome}")
    # Its first failing test settles the mutant: the session stops there (the file's later tests never run).
    if r is not None and ([x.nodeid for x in r.tests] != ["test_props.py::test_add_commutes"] or r.complete):
        problems.append(f"mutant: the session went on after its first failure: {[x.nodeid for x in r.tests]}, "
                        f"complete={r.complete}")
    garbled = run_session(python, work, "test_busy.py", runtime, {"ORACLE_GATE_MUTANT": "not base64 zlib json"})
    r = garbled.results
    if r is None or r.mutant is not None or len(r.recorder_errors) != 1 \
            or not r.recorder_errors[0].startswith("ORACLE_GATE_MUTANT: ") or garbled.exit_status != 0:
        problems.append(f"garbled mutant: exit {garbled.exit_status}, results {r and (r.mutant, r.recorder_errors)}")
    return problems


def _check_cleanroom(python: Path, work: Path, runtime: Path) -> List[str]:
    """The clean room (core/protocol/cleanroom.py): the property's calls into `add` are sampled (Hypothesis'
    engine aside) and replay the same in clean interpreters; the session's outcomes are unchanged."""
    from oracle_gate.core.protocol import cleanroom as CR

    watch = CR.encode_watch([CR.Watch("calc.py", "add", _line_of(suite.CALC, "def add"),
                                      _line_of(suite.CALC, "def add") + 1)])
    session = run_session(python, work, "test_props.py", runtime, {CR.ENV: watch})
    path = session.root / "extra-output" / CR.RESULTS_RELPATH
    try:
        found = CR.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        return [f"clean room: no results ({e}); exit {session.exit_status}: {session.output[-400:]}"]
    calls = [c for c in found.calls if c.name == "add"]
    if not calls or found.differences() or found.errors or any(len(c.results) != len(CR.VARIANTS) for c in calls):
        return [f"clean room: {len(calls)} call(s), differences {found.differences()[:2]}, errors {found.errors}, "
                f"exit {session.exit_status}"]
    return []


def _check_coverage(python: Path, work: Path, runtime: Path) -> List[str]:
    """Under pytest-cov (`--cov=.`, the sandbox root, as Pants passes a source root "/"): the same
    outcomes, the same covered lines and the same measured files with the recorder, which still
    records (coverage traces, the recorder profiles or monitors: they coexist); and a report made
    where the recorder's files are absent (Pants' report step) still succeeds."""
    problems = []
    for test_file in ("test_outcomes.py", "test_props.py"):
        plain, recorded = (run_session(python, work, test_file, r, {}, ("--cov=.", "--cov-report=json"))
                           for r in (None, runtime))
        problems += [f"coverage: {p}" for p in check_pair(test_file, plain, recorded)]
        lines = [json.loads((s.root / "coverage.json").read_text())["files"]["calc.py"]["executed_lines"]
                 if (s.root / "coverage.json").is_file() else None for s in (plain, recorded)]
        executed = recorded.results.file(test_file).executed if recorded.results is not None else ()
        if lines[0] is None or lines[0] != lines[1] or ("calc.py", _line_of(suite.CALC, "def add"), "add") not in executed:
            problems.append(f"coverage: {test_file} covered calc.py lines {lines[0]} without the recorder, "
                            f"{lines[1]} with it; recorded {executed}")
        measured = [sorted(json.loads((s.root / "coverage.json").read_text())["files"])
                    if (s.root / "coverage.json").is_file() else None for s in (plain, recorded)]
        if measured[0] != measured[1]:
            problems.append(f"coverage: {test_file} measured {measured[0]} without the recorder, {measured[1]} with it")
        for entry in runtime.iterdir():  # Pants reports in a sandbox holding the sources only
            shutil.rmtree(str(recorded.root / entry.name))
        report = subprocess.run([str(python), "-m", "coverage", "json", "-o", "report.json"], cwd=str(recorded.root),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if report.returncode != 0:
            problems.append(f"coverage: {test_file}: a report without the recorder's files fails: {report.stdout.strip()}")
    return problems


def bench(entry: Entry, work: Path, calls: int, repeat: int = 3) -> Tuple[float, float]:
    """Best-of-`repeat` seconds of test_busy (N calls into production code) without and with the plugin."""
    python, _ = ensure_venv(entry)
    runtime = build_runtime(work / "runtime")
    env = {"ORACLE_GATE_BENCH_N": str(calls)}
    times = []
    for plugin in (None, runtime):
        best = float("inf")
        for _ in range(repeat):
            session = run_session(python, work, "test_busy.py", plugin, env)
            case = next(ET.parse(str(session.root / "junit.xml")).iter("testcase"))
            best = min(best, float(case.get("time") or "nan"))
        times.append(best)
    return times[0], times[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entry", action="append", help="run only these entries (by name)")
    parser.add_argument("--bench", type=int, default=0, help="also time N production calls in one test")
    args = parser.parse_args()
    entries = [e for e in ENTRIES + EXTRA_ENTRIES if e.name in (args.entry or [x.name for x in ENTRIES])]
    failed = 0
    for entry in entries:
        with tempfile.TemporaryDirectory(prefix="recorder-matrix-") as work:
            try:
                problems = run_entry(entry, Path(work))
            except MatrixError as e:
                problems = [str(e)]
            for problem in problems:
                print(f"  PROBLEM {problem}")
            failed += bool(problems)
            if args.bench:
                plain, recorded = bench(entry, Path(work), args.bench)
                print(f"  bench {args.bench} calls: {plain:.3f}s without the plugin, {recorded:.3f}s with it "
                      f"({recorded / plain:.2f}x)")
    print(f"recorder matrix: {len(entries) - failed}/{len(entries)} entries clean")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
