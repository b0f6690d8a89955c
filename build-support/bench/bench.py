#!/usr/bin/env python3
"""Benchmarks of the oracle gate: figures and ratios side by side, never pass/fail.

    python3 build-support/bench/bench.py                          # 100 and 1,000 targets (~30 min idle)
    python3 build-support/bench/bench.py --sizes 100 1000 5000    # adds the 5,000-target repo
    python3 build-support/bench/bench.py --only analysis          # or evidence, mutation, rerun, jail, compare

What it measures (issues 8, 9 and 11):

- base facts: the first gate on a base commit builds the base's facts in one nested `oracle-facts`
  run; every later gate on that base reuses them from Pants' process cache;
- analysis: `oracle-gate --oracle-gate-dry-run` (reused base facts) against `pants
  --changed-since=main --changed-dependents=transitive list` on the same diff (1, 10 and 100
  changed production targets), and the empty-diff audit against `list ::` and `dependents ::`
  (the whole-graph inference an audit needs); CPU seconds and peak RSS beside wall time;
- evidence: `pants test --test-force` of the same test targets with the oracle_gate backend and
  in a copy of the repository without it (BUILD files rewritten to plain Pants target types);
- rerun: a full gate, then the same gate again: how many test and mutant processes it executes;
- mutation: diffs touching 1, 5 and 20 symbols of the billing example: mutants generated, run,
  killed and survived (from the JSON report), seconds, and a rerun's executed processes;
- jail: the full gate with its test processes jailed against the same gate with `--no-oracle-gate-jail`
  (billing, and the largest synthetic repository), every test, mutant and clean room executed afresh;
- compare: the same with the base's code beside the head's (`--oracle-gate-compare-base`) against
  `--no-oracle-gate-compare-base`.

The plugin is benchmarked from a snapshot taken at start (src/ and examples/billing copied to a
temporary directory) with the launcher committed at HEAD, so edits in progress elsewhere cannot
change a run midway. Every Pants run is a cold `--no-pantsd` process sharing the machine's Pants
caches; synthetic repositories carry a fresh nonce, so earlier runs never turn into cache hits.
Short measurements are repeated (`--repeat`, default 3) with the two sides interleaved, and the
median is printed with the 1-minute load average of the machine when the measurement started.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
MODULES_PER_PACKAGE = 8  # + one property oracle + one example test + one locked fixture = 11 targets
TARGETS_PER_PACKAGE = MODULES_PER_PACKAGE + 3
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
SECTIONS = ("analysis", "evidence", "rerun", "mutation", "jail", "compare")
START = time.monotonic()


# -- running things ------------------------------------------------------------------------------------
def clean_env() -> Dict[str, str]:
    """The caller's environment minus its Pants settings, as a nested run needs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    env.update(GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    return env


@dataclass
class Run:
    seconds: float
    rc: int
    out: str
    err: str
    rss_mb: Optional[float]  # the peak RSS of the largest process of the run (Pants, or a child it waited for)
    load: float  # 1-minute load average when it started
    cpu: float  # user + system seconds of the run and every process it waited for (less sensitive to load)

    def counter(self, name: str) -> Optional[int]:
        found = re.findall(rf"^\s*{name}: (\d+)$", self.err, re.M)
        return int(found[-1]) if found else None

    def tail(self, lines: int = 2) -> str:
        kept = [l.strip() for l in (self.out + "\n" + self.err).splitlines() if l.strip()]
        return " | ".join(kept[-lines:])[-300:]


def progress(message: str) -> None:
    elapsed = time.monotonic() - START
    print(f"[{elapsed / 60:5.1f} min, load {os.getloadavg()[0]:.1f}] {message}", file=sys.stderr, flush=True)


def run(cwd: Path, args: Sequence[str], timeout: int = 3600) -> Run:
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile(prefix="bench-time-", suffix=".txt", delete=False) as tf:
        time_file = tf.name
    argv = [GNU_TIME, "-v", "-o", time_file, *args] if GNU_TIME else list(args)
    start = time.perf_counter()
    # Its own process group, so a timeout or an interrupt ends Pants and its sandboxes too.
    proc = subprocess.Popen(argv, cwd=cwd, env=clean_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc, err = -1, err + f"\ntimed out after {timeout}s"
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    rss = None
    if GNU_TIME:
        found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", Path(time_file).read_text(errors="replace"))
        rss = int(found.group(1)) / 1024 if found else None
    elif after.ru_maxrss > before.ru_maxrss:
        rss = after.ru_maxrss / 1024  # else None: no higher than an earlier run's peak
    os.unlink(time_file)
    return Run(seconds, rc, out, err, rss, load, cpu)


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        raise BenchError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()[-500:]}")
    return proc.stdout


class BenchError(Exception):
    """A measurement could not be taken; the section prints why and the others go on."""


# -- results ----------------------------------------------------------------------------------------------
def med(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def secs(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}s"


def ratio(a: Optional[float], b: Optional[float]) -> str:
    return "-" if not a or not b else f"{a / b:.2f}x"


def mb(values: Sequence[Optional[float]]) -> str:
    known = [v for v in values if v is not None]
    return f"{max(known):.0f} MB" if known else "-"


def loads(runs: Sequence[Run]) -> str:
    return "/".join(f"{r.load:.1f}" for r in runs)


@dataclass
class Table:
    title: str
    headers: Tuple[str, ...]
    rows: List[Tuple[str, ...]] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        self.rows.append(tuple(str(c) for c in cells))

    def render(self) -> str:
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) if self.rows else len(h)
                  for i, h in enumerate(self.headers)]
        line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
        out = [f"### {self.title}", "", line(self.headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        out += [line(r) for r in self.rows]
        out += [""] + [f"- {n}" for n in self.notes] if self.notes else []
        return "\n".join(out) + "\n"


# -- the snapshot --------------------------------------------------------------------------------------------
@dataclass
class Snapshot:
    tmp: Path
    plugin: Path  # a copy of src/, the plugin's pythonpath entry
    launcher: Path  # ./pants as committed at HEAD
    billing: Path  # a copy of examples/billing as it is now
    describe: str


def take_snapshot(tmp: Path) -> Snapshot:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pants.d", ".pids", "dist")
    plugin = tmp / "plugin" / "src"
    shutil.copytree(ROOT / "src", plugin, ignore=ignore)
    launcher = tmp / "pants"
    launcher.write_bytes(subprocess.run(["git", "-C", str(ROOT), "show", "HEAD:pants"], check=True,
                                        stdout=subprocess.PIPE).stdout)
    launcher.chmod(0o755)
    billing = tmp / "billing-snapshot"
    shutil.copytree(ROOT / "examples" / "billing", billing, ignore=ignore)
    head = git(ROOT, "rev-parse", "--short", "HEAD").strip()
    dirty = len([l for l in git(ROOT, "status", "--porcelain", "--", "src", "examples/billing").splitlines() if l])
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(plugin.rglob("*.py")))).hexdigest()[:12]
    return Snapshot(tmp, plugin, launcher, billing,
                    f"HEAD {head} + {dirty} uncommitted path(s) under src/ and examples/billing; plugin .py digest {digest}")


def pants(snap: Snapshot, cwd: Path, *args: str, timeout: int = 3600) -> Run:
    return run(cwd, [str(snap.launcher), "--no-pantsd", *args], timeout=timeout)


PANTS_TOML = """[GLOBAL]
pants_version = "2.17.1"
pythonpath = ["{plugin}"]
backend_packages = ["pants.backend.python", "oracle_gate"]
ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]

[source]
root_patterns = ["/src", "/oracle", "/tests"]

[python]
interpreter_constraints = ["CPython==3.9.*"]

[python-infer]
use_rust_parser = true

[subprocess-environment]
env_vars.add = ["PIP_CONFIG_FILE=/dev/null"]
"""
GITIGNORE = "dist/\n.pants.d/\n.pids/\n"


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


# -- synthetic repositories -------------------------------------------------------------------------------
@dataclass
class Synthetic:
    root: Path
    targets: int
    packages: int
    branches: Dict[int, str]  # changed production targets -> branch name

    @property
    def modules(self) -> int:
        return self.packages * MODULES_PER_PACKAGE


def generate(snap: Snapshot, root: Path, size: int, diffs: Sequence[int]) -> Synthetic:
    """Packages of 8 chained pure modules, a property oracle, an example test reading a locked
    fixture; the base commit on `main` and one head branch per diff size."""
    packages = max(1, size // TARGETS_PER_PACKAGE)
    nonce = os.urandom(8).hex()
    root.mkdir(parents=True)
    (root / "pants.toml").write_text(PANTS_TOML.format(plugin=snap.plugin))
    (root / ".gitignore").write_text(GITIGNORE)
    (root / "BUILD").write_text('python_requirement(name="hypothesis", requirements=["hypothesis==6.141.1"])\n')
    last = MODULES_PER_PACKAGE - 1
    for p in range(packages):
        src = root / "src" / f"pkg{p}"
        src.mkdir(parents=True)
        (src / "BUILD").write_text('python_sources(oracle_region="pure")\n')
        for m in range(MODULES_PER_PACKAGE):
            body = (f"from pkg{p}.m{m - 1} import f{m - 1}\n\n\ndef f{m}(x):\n    return f{m - 1}(x) + 1\n" if m
                    else "def f0(x):\n    return x\n")
            (src / f"m{m}.py").write_text(f"# {nonce}\n" + body)
        props = root / "oracle" / f"pkg{p}"
        props.mkdir(parents=True)
        (props / "BUILD").write_text("oracle_properties(min_examples=100)\n")
        (props / f"test_pkg{p}_props.py").write_text(
            f"from hypothesis import given, strategies as st\n\nfrom pkg{p}.m{last} import f{last}\n\n\n"
            f"@given(st.integers())\ndef test_shift(x):\n    assert f{last}(x) - x == {last}\n")
        fixture = root / "fixtures" / f"pkg{p}"
        fixture.mkdir(parents=True)
        data = json.dumps({"package": p, "nonce": nonce, "rows": list(range(8000))}).encode()
        (fixture / "data.json").write_bytes(data)
        (fixture / "BUILD").write_text(
            f'locked_fixture(name="data", source="data.json", sha256="{hashlib.sha256(data).hexdigest()}")\n')
        tests = root / "tests" / f"pkg{p}"
        tests.mkdir(parents=True)
        (tests / "BUILD").write_text(f'python_tests(dependencies=["fixtures/pkg{p}:data"])\n')
        (tests / f"test_pkg{p}.py").write_text(
            f"import json\nfrom pathlib import Path\n\nfrom pkg{p}.m0 import f0\n\n"
            f'DATA = Path(__file__).resolve().parents[2] / "fixtures" / "pkg{p}" / "data.json"\n\n\n'
            f"def test_identity_on_the_locked_rows():\n"
            f'    rows = json.loads(DATA.read_text())["rows"]\n'
            f"    assert [f0(r) for r in rows[:100]] == rows[:100]\n")
    shutil.copy2(snap.launcher, root / "pants")
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "base")
    repo = Synthetic(root, packages * TARGETS_PER_PACKAGE + 1, packages, {})
    for count in diffs:
        n = min(count, repo.modules)
        if n in repo.branches.values():
            continue
        branch = f"diff{n}"
        git(root, "checkout", "-q", "-B", branch, "main")
        edit_modules(root, n, packages)
        commit_all(root, f"change {n} production module(s)")
        repo.branches[count] = branch
    git(root, "checkout", "-q", "main")
    return repo


def edit_modules(root: Path, count: int, packages: int) -> None:
    """A behaviour-preserving edit of `count` modules, spread over the packages first."""
    for i in range(count):
        p, m = i % packages, i // packages
        path = root / "src" / f"pkg{p}" / f"m{m}.py"
        text = path.read_text()
        new = text.replace(f"return f{m - 1}(x) + 1", f"return 1 + f{m - 1}(x)") if m else \
            text.replace("return x\n", "return x + 0\n")
        assert new != text, path
        path.write_text(new)


# -- a copy without the backend ---------------------------------------------------------------------------
PLAIN_TYPES = {"oracle_properties": "python_tests", "oracle_property": "python_test", "oracle_drafts": "python_tests",
               "oracle_draft": "python_test", "locked_fixture": "file", "freeze_ledger": "file", "oracle_replay": "file",
               "oracle_probes": "file", "oracle_baseline": "file"}
PLUGIN_FIELDS = {"oracle_region", "min_examples", "sha256", "governs", "entry_point"}


class _Plain(ast.NodeTransformer):
    """BUILD files in plain Pants terms: the plugin's target types as their base types, its fields gone."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in PLAIN_TYPES:
            node.func.id = PLAIN_TYPES[node.func.id]
        node.keywords = [k for k in node.keywords if k.arg not in PLUGIN_FIELDS and not _empty(k.value)]
        return node

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        self.generic_visit(node)
        kept = [(k, v) for k, v in zip(node.keys, node.values)
                if not (isinstance(k, ast.Constant) and k.value in PLUGIN_FIELDS) and not _empty(v)]
        node.keys, node.values = [k for k, _ in kept], [v for _, v in kept]
        return node


def _empty(node: ast.AST) -> bool:
    return isinstance(node, ast.Dict) and not node.keys


def without_backend(src: Path, dest: Path) -> Path:
    """A copy of a repository with `oracle_gate` out of backend_packages and plain BUILD files."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".pants.d", ".pids", "dist", "__pycache__"))
    for build in dest.rglob("BUILD"):
        if ".git" in build.parts:
            continue
        tree = _Plain().visit(ast.parse(build.read_text()))
        build.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n")
    toml = dest / "pants.toml"
    text = re.sub(r'backend_packages\s*=\s*\[[^\]]*\]', 'backend_packages = ["pants.backend.python"]', toml.read_text())
    text = re.sub(r"(?ms)^\[oracle-gate\].*?(?=^\[|\Z)", "", text)
    toml.write_text(text)
    return dest


# -- the billing example ---------------------------------------------------------------------------------
ROUNDING = '''"""Rounding helpers in cents (pure)."""


def round_down(cents: int, step: int) -> int:
    return cents - cents % step


def round_up(cents: int, step: int) -> int:
    return round_down(cents + step - 1, step)


def round_half_up(cents: int, step: int) -> int:
    return round_down(cents + step // 2, step)


def clamp(cents: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, cents))


def percent_of(cents: int, percent: int) -> int:
    return cents * percent // 100


def spread(cents: int, lo: int, hi: int) -> int:
    return clamp(cents, lo, hi) - lo
'''
ROUNDING_PROPS = '''from hypothesis import given
from hypothesis import strategies as st

from billing.rounding import clamp, percent_of, round_down, round_half_up, round_up, spread

cents = st.integers(0, 10**9)
steps = st.integers(1, 1000)


@given(cents, steps)
def test_rounding_lands_on_the_nearest_steps(c, step):
    down, up, half = round_down(c, step), round_up(c, step), round_half_up(c, step)
    assert all(type(v) is int for v in (down, up, half))
    assert down % step == up % step == half % step == 0
    assert down <= c < down + step
    assert up - step < c <= up
    assert abs(half - c) * 2 <= step


@given(cents, cents, cents)
def test_clamp_and_spread_stay_in_the_range(c, a, b):
    lo, hi = sorted((a, b))
    assert lo <= clamp(c, lo, hi) <= hi
    assert clamp(clamp(c, lo, hi), lo, hi) == clamp(c, lo, hi)
    assert 0 <= spread(c, lo, hi) <= hi - lo


@given(cents, st.integers(0, 100), st.integers(0, 100))
def test_percent_of_is_monotone_and_whole_at_100(c, p, q):
    assert type(percent_of(c, p)) is int
    assert percent_of(c, 100) == c
    assert percent_of(c, min(p, q)) <= percent_of(c, max(p, q))
'''
# Behaviour-preserving edits, one per symbol: (symbol, file, old text, new text).
SYMBOL_EDITS: Tuple[Tuple[str, str, str, str], ...] = (
    ("tax.tax", "tax.py", "return (cents * rate_bp + 5_000) // 10_000", "return (rate_bp * cents + 5_000) // 10_000"),
    ("tax.amount_due", "tax.py", "return cents + tax(cents, rate_bp)", "return tax(cents, rate_bp) + cents"),
    ("money.split", "money.py", "base, remainder = divmod(total_cents, parts)",
     "base, remainder = total_cents // parts, total_cents % parts"),
    ("schema.problems", "schema.py", 'out = [f"missing {key}" for key in REQUIRED if key not in doc]',
     'out = [f"missing {k}" for k in REQUIRED if k not in doc]'),
    ("invoice_io.decode", "invoice_io.py", "if any(cents < 0 for _, cents in lines):", "if any(c < 0 for _, c in lines):"),
    ("invoice_io.encode", "invoice_io.py", 'return json.dumps(doc, sort_keys=True, indent=2) + "\\n"',
     'text = json.dumps(doc, sort_keys=True, indent=2)\n    return text + "\\n"'),
    ("invoice_io.parse_invoice", "invoice_io.py", 'return decode(data.decode("utf-8"))',
     'text = data.decode("utf-8")\n    return decode(text)'),
    ("invoice_io.render_invoice", "invoice_io.py", 'return encode(invoice).encode("utf-8")',
     'data = encode(invoice).encode("utf-8")\n    return data'),
    ("store.Store.__init__", "store.py", "self.balances = dict(balances)",
     "self.balances = {k: v for k, v in balances.items()}"),
    ("store.Store.from_json", "store.py", 'return cls({k: int(v) for k, v in json.loads(text)["balances"].items()})',
     'raw = json.loads(text)["balances"]\n        return cls({k: int(v) for k, v in raw.items()})'),
    ("store.Store.apply_credit", "store.py", "self.balances[account] = self.balances.get(account, 0) + cents",
     "self.balances[account] = cents + self.balances.get(account, 0)"),
    ("store.Store.total", "store.py", "return sum(self.balances.values())", "return sum(v for v in self.balances.values())"),
    ("worker.drain", "worker.py", "for item in items:\n        q.put(item)", "for each in items:\n        q.put(each)"),
    ("worker.drain.work", "worker.py", "done.append(item)", "done.append(int(item))"),
    ("rounding.round_down", "rounding.py", "return cents - cents % step",
     "remainder = cents % step\n    return cents - remainder"),
    ("rounding.round_up", "rounding.py", "return round_down(cents + step - 1, step)", "return round_down(cents + (step - 1), step)"),
    ("rounding.round_half_up", "rounding.py", "return round_down(cents + step // 2, step)",
     "half = step // 2\n    return round_down(cents + half, step)"),
    ("rounding.clamp", "rounding.py", "return max(lo, min(hi, cents))", "return max(lo, min(cents, hi))"),
    ("rounding.percent_of", "rounding.py", "return cents * percent // 100", "return (percent * cents) // 100"),
    ("rounding.spread", "rounding.py", "return clamp(cents, lo, hi) - lo", "return -lo + clamp(cents, lo, hi)"),
)
SYMBOL_DIFFS = {1: ("tax.tax",), 5: ("tax.tax", "tax.amount_due", "money.split", "schema.problems", "invoice_io.decode"),
                20: tuple(e[0] for e in SYMBOL_EDITS)}


def billing_repo(snap: Snapshot, root: Path, extend: bool) -> Path:
    """A git copy of the example on `main`, its pythonpath pointing at the snapshot; with `extend`,
    the base commit also has six more pure functions and the property that calls them."""
    shutil.copytree(snap.billing, root)
    toml = root / "pants.toml"
    toml.write_text(re.sub(r"(?m)^pythonpath\s*=.*$", f'pythonpath = ["{snap.plugin}"]', toml.read_text()))
    (root / ".gitignore").write_text(GITIGNORE)
    shutil.copy2(snap.launcher, root / "pants")
    if extend:
        (root / "src" / "billing" / "rounding.py").write_text(ROUNDING)
        (root / "oracle" / "properties" / "test_rounding_props.py").write_text(ROUNDING_PROPS)
    # A fresh nonce in every production module: its tests and mutants are new to the shared cache
    # (the example is otherwise the same bytes in every run), and a comment changes no symbol.
    nonce = os.urandom(8).hex()
    for module in sorted((root / "src" / "billing").glob("*.py")):
        module.write_text(f"# bench {nonce}\n" + module.read_text())
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "base")
    return root


def symbol_branch(root: Path, symbols: Sequence[str]) -> Tuple[str, List[str]]:
    """A head branch with one behaviour-preserving edit per symbol; returns it and what did not apply."""
    branch = f"symbols{len(symbols)}"
    git(root, "checkout", "-q", "-B", branch, "main")
    missing = []
    for symbol, name, old, new in SYMBOL_EDITS:
        if symbol not in symbols:
            continue
        path = root / "src" / "billing" / name
        text = path.read_text() if path.exists() else ""
        if text.count(old) != 1:
            missing.append(symbol)
            continue
        path.write_text(text.replace(old, new))
    commit_all(root, f"edit {len(symbols)} symbol(s)")
    git(root, "checkout", "-q", "main")
    return branch, missing


# -- the measurements ----------------------------------------------------------------------------------
BASE_FACTS_RE = re.compile(r"base facts for \w+ (built|reused) in ([\d.]+)s")


def base_facts_line(r: Run) -> Tuple[Optional[str], Optional[float]]:
    found = BASE_FACTS_RE.findall(r.err)
    return (found[-1][0], float(found[-1][1])) if found else (None, None)


def dry_run_summary(r: Run) -> str:
    lines = [l for l in r.out.splitlines() if l.startswith("DRY RUN")]
    if r.rc != 0 or not lines:
        return f"exit {r.rc}: {r.tail()}"
    m = re.search(r"(\d+) changed path\(s\), (\d+) region\(s\), (\d+) oracle\(s\) planned", lines[-1])
    return f"{m.group(2)} regions, {m.group(3)} oracles planned" if m else lines[-1]


def gate_dry(snap: Snapshot, root: Path) -> Run:
    return pants(snap, root, "oracle-gate", "--oracle-gate-base=main", "--oracle-gate-dry-run", "::")


def interleaved(repeat: int, *sides: Callable[[], Run]) -> List[List[Run]]:
    """Each side `repeat` times, alternating, so load drift hits both sides alike."""
    out: List[List[Run]] = [[] for _ in sides]
    for _ in range(repeat):
        for i, side in enumerate(sides):
            out[i].append(side())
    return out


class Bench:
    def __init__(self, snap: Snapshot, args: argparse.Namespace) -> None:
        self.snap = snap
        self.args = args
        self.repos: Dict[int, Synthetic] = {}
        self.billing: Optional[Path] = None
        self.base_facts = Table("1. Base facts: first run (one nested `oracle-facts` on the base commit) vs reused",
                                ("repo", "first run: gate / base facts", "reused: gate / base facts",
                                 "gate first / reused", "CPU first / reused", "peak RSS (first, reused)", "load"))
        self.analysis = Table("2. Gate analysis (`oracle-gate --oracle-gate-dry-run ::`, reused base facts) vs Pants' query",
                              ("repo", "diff", "oracle-gate", "baseline", "baseline command", "ratio",
                               "CPU gate / baseline", "ratio (CPU)", "peak RSS gate / baseline", "plan", "load"))

    def repo(self, size: int) -> Synthetic:
        if size not in self.repos:
            progress(f"generating a {size}-target repository")
            repo = generate(self.snap, self.snap.tmp / f"repo{size}", size, self.args.diffs)
            warm = pants(self.snap, repo.root, "list", "::")  # the launcher, the parser, the shared caches
            if warm.rc != 0:
                raise BenchError(f"`pants list ::` failed in the {size}-target repo: {warm.tail(4)}")
            self.repos[size] = repo
        return self.repos[size]

    def billing_repo(self) -> Path:
        if self.billing is None:
            self.billing = billing_repo(self.snap, self.snap.tmp / "billing", extend=True)
        return self.billing

    # 1 and 2 -----------------------------------------------------------------------------------------
    def measure_analysis(self, size: int) -> None:
        repo = self.repo(size)
        root, n = repo.root, self.args.repeat
        label = f"{repo.targets} targets"
        diffs = sorted(repo.branches.items())
        first_branch = diffs[0][1]
        git(root, "checkout", "-q", first_branch)

        def first() -> Run:
            # A fresh salt is a new key for the base's facts in Pants' cache: a first evaluation.
            os.environ["ORACLE_GATE_BASE_FACTS_SALT"] = str(time.time_ns())
            return gate_dry(self.snap, root)

        progress(f"{label}: base facts, first run")
        firsts = [first()]  # a long measurement: once
        progress(f"{label}: base facts reused, and the analysis of each diff")
        reused: List[Run] = []
        for count, branch in diffs:
            git(root, "checkout", "-q", branch)
            gates, lists = interleaved(
                n, lambda: gate_dry(self.snap, root),
                lambda: pants(self.snap, root, "--changed-since=main", "--changed-dependents=transitive", "list"))
            reused += gates
            changed = int(branch[len("diff"):])
            listed = len([l for l in lists[-1].out.splitlines() if l.strip()])
            self._analysis_row(label, f"{changed} changed", gates, lists, f"changed-dependents list ({listed} targets)")
        self._base_facts_row(label, firsts, reused[:n])

        progress(f"{label}: empty-diff audit")
        git(root, "checkout", "-q", "main")
        gates, lists, dependents = interleaved(n, lambda: gate_dry(self.snap, root),
                                               lambda: pants(self.snap, root, "list", "::"),
                                               lambda: pants(self.snap, root, "dependents", "::"))
        listed = len([l for l in lists[-1].out.splitlines() if l.strip()])
        self._analysis_row(label, "empty (audit)", gates, lists, f"list :: ({listed} targets)")
        # The audit needs every target's dependents (whole-repo inference); so does this query.
        self._analysis_row(label, "empty (audit)", gates, dependents, "dependents :: (whole-graph inference)")

    def _analysis_row(self, label: str, diff: str, gates: Sequence[Run], lists: Sequence[Run], command: str) -> None:
        wall = [med([r.seconds for r in runs]) for runs in (gates, lists)]
        cpu = [med([r.cpu for r in runs]) for runs in (gates, lists)]
        self.analysis.add(label, diff, secs(wall[0]), secs(wall[1]), command, ratio(*wall),
                          f"{secs(cpu[0])} / {secs(cpu[1])}", ratio(*cpu),
                          f"{mb([r.rss_mb for r in gates])} / {mb([r.rss_mb for r in lists])}",
                          dry_run_summary(gates[-1]), f"{loads(gates)}; {loads(lists)}")

    def _base_facts_row(self, label: str, firsts: Sequence[Run], reused: Sequence[Run]) -> None:
        def part(runs: Sequence[Run], want: str) -> str:
            inner = [s for kind, s in map(base_facts_line, runs) if kind == want]
            if len(inner) != len(runs):
                return f"{secs(med([r.seconds for r in runs]))} ({len(runs) - len(inner)} run(s) without '{want}': {runs[-1].tail()})"
            return f"{secs(med([r.seconds for r in runs]))} / {secs(med(inner))}"

        self.base_facts.add(label, part(firsts, "built"), part(reused, "reused"),
                            ratio(med([r.seconds for r in firsts]), med([r.seconds for r in reused])),
                            f"{secs(med([r.cpu for r in firsts]))} / {secs(med([r.cpu for r in reused]))}",
                            f"{mb([r.rss_mb for r in firsts])}, {mb([r.rss_mb for r in reused])}",
                            f"{loads(firsts)}; {loads(reused)}")

    # 3 ------------------------------------------------------------------------------------------------
    def measure_evidence(self) -> Table:
        table = Table("3. Evidence overhead: `pants test --test-force` with the oracle_gate backend vs a copy without it",
                      ("repo", "test targets", "with backend (wall)", "without (wall)", "ratio (wall)",
                       "CPU with / without", "ratio (CPU)", "test processes, summed: with / without",
                       "ratio (processes)", "peak RSS with / without", "load"))
        table.notes.append("wall: the whole cold Pants run (start-up, graph, sandboxes, tests); CPU: user + system "
                           "seconds of Pants and every process it ran; processes: the sum of the per-test times Pants "
                           "prints (`succeeded in N s`), i.e. pytest plus the recorder")
        cases = [(self.repo(100).root, ("oracle::", "tests::"), f"synthetic, {self.repo(100).targets} targets"),
                 (self.billing_repo(), ("oracle/properties::", "oracle/drafts::", "tests::"), "examples/billing")]
        for root, specs, label in cases:
            git(root, "checkout", "-q", "main")
            plain = without_backend(root, self.snap.tmp / f"{root.name}-plain")
            progress(f"evidence: {label}, a warm-up of each side")
            for side in (root, plain):
                warm = pants(self.snap, side, "test", *specs)
                if warm.rc != 0:
                    table.add(label, "-", "-", "-", "-", "-", "-", "-", "-", "-", f"`pants test` failed in {side.name}: {warm.tail(3)}")
                    break
            else:
                progress(f"evidence: {label}, {self.args.repeat} interleaved runs of each side")
                with_, without = interleaved(self.args.repeat,
                                             lambda: pants(self.snap, root, "test", "--test-force", *specs),
                                             lambda: pants(self.snap, plain, "test", "--test-force", *specs))
                per_test = [med([_test_seconds(r)[0] for r in runs]) for runs in (with_, without)]
                count = _test_seconds(with_[-1])[1]
                failed = [r.tail() for r in with_ + without if r.rc != 0]
                cpu = [med([r.cpu for r in runs]) for runs in (with_, without)]
                table.add(label, count, secs(med([r.seconds for r in with_])), secs(med([r.seconds for r in without])),
                          ratio(med([r.seconds for r in with_]), med([r.seconds for r in without])),
                          f"{secs(cpu[0])} / {secs(cpu[1])}", ratio(*cpu),
                          f"{secs(per_test[0])} / {secs(per_test[1])}", ratio(*per_test),
                          f"{mb([r.rss_mb for r in with_])} / {mb([r.rss_mb for r in without])}",
                          f"{loads(with_)}; {loads(without)}" + (f"; NOT GREEN: {failed[0]}" if failed else ""))
        return table

    # rerun ----------------------------------------------------------------------------------------------
    def full_gate(self, root: Path, name: str) -> Tuple[Run, dict]:
        report = self.snap.tmp / "reports" / f"{name}.json"
        report.parent.mkdir(exist_ok=True)
        report.unlink(missing_ok=True)
        # At debug level Pants logs `Completed: <process description>` for a process it executed,
        # and nothing for one served from its cache: that is how tests and mutants are counted.
        r = pants(self.snap, root, "-ldebug", "--stats-log", "oracle-gate", "--oracle-gate-base=main",
                  f"--oracle-gate-report={report}", "::")
        data = json.loads(report.read_text()) if report.exists() else {}
        return r, data

    def measure_rerun(self) -> Table:
        table = Table("4. Cached rerun of the full gate: processes a rerun executes",
                      ("repo", "run", "seconds", "test processes executed", "mutant processes executed",
                       "all processes executed", "served from cache", "mutants (report)", "oracles[].source",
                       "verdict", "load"))
        repo = self.repo(100)
        count, branch = sorted(repo.branches.items())[min(1, len(repo.branches) - 1)]
        git(repo.root, "checkout", "-q", branch)
        label = f"synthetic, {repo.targets} targets, {branch[len('diff'):]} changed"
        progress(f"rerun: {label}, first full gate")
        first, data = self.full_gate(repo.root, "rerun-first")
        table.add(label, "first", secs(first.seconds), *_executions(first), _mutant_counts(data),
                  _sources(data), _verdict(first, data), f"{first.load:.1f}")
        progress(f"rerun: {label}, {self.args.repeat} cached reruns")
        reruns = [self.full_gate(repo.root, f"rerun-{i}") for i in range(self.args.repeat)]
        r, data = reruns[-1]
        table.add(label, f"cached rerun (median of {len(reruns)}; counts of the last)",
                  secs(med([x.seconds for x, _ in reruns])), *_executions(r), _mutant_counts(data),
                  _sources(data), _verdict(r, data), loads([x for x, _ in reruns]))
        table.notes.append(_EXECUTED_NOTE)
        return table

    # 4 ------------------------------------------------------------------------------------------------
    def measure_mutation(self) -> Table:
        table = Table("5. Mutation cost on examples/billing (full gate; mutants of the changed symbols)",
                      ("diff", "changed symbols (report)", "mutants generated", "run", "killed", "survived", "not run",
                       "clean room: calls replayed", "first run", "pants test of the same oracles", "gate / test",
                       "first: executed tests / mutants / clean rooms / all; cached", "rerun (median)",
                       "rerun: executed tests / mutants / clean rooms / all; cached", "verdict", "load"))
        root = self.billing_repo()
        branches = {n: symbol_branch(root, symbols) for n, symbols in SYMBOL_DIFFS.items()}
        git(root, "checkout", "-q", branches[1][0])
        progress("mutation: base facts of the billing example (a dry run)")
        built = gate_dry(self.snap, root)
        kind, inner = base_facts_line(built)
        table.notes.append(f"base facts of the extended billing example {kind or 'NOT BUILT'} in {secs(inner)} "
                           f"(gate dry run {secs(built.seconds)}); the rows below reuse them")
        for n, (branch, missing) in sorted(branches.items()):
            git(root, "checkout", "-q", branch)
            progress(f"mutation: {n}-symbol diff, first full gate")
            first, data = self.full_gate(root, f"mutation-{n}")
            progress(f"mutation: {n}-symbol diff, {self.args.repeat} reruns")
            reruns = [self.full_gate(root, f"mutation-{n}-rerun-{i}") for i in range(self.args.repeat)]
            # The baseline the gate's cost is held to: plain `pants test` of the oracles it ran, cold.
            oracles = sorted({o["address"] for o in data.get("oracles", []) if o.get("address")})
            progress(f"mutation: {n}-symbol diff, pants test --test-force of its {len(oracles)} oracle target(s)")
            plain = pants(self.snap, root, "test", "--test-force", *oracles) if oracles else None
            mutants = data.get("mutants", [])
            status = lambda s: sum(1 for m in mutants if m.get("status") == s)
            symbols = sum(len(rv.get("symbols", [])) for rv in data.get("regions", []))
            last = reruns[-1][0]
            verdict = _verdict(first, data)
            if data.get("stopped_at"):
                verdict += f", stopped at {data['stopped_at']}"
            if missing:
                verdict += f"; edits not applied: {', '.join(missing)}"
            reasons = [r.get("line", "") for r in data.get("reasons", [])][:2]
            if data.get("verdict") != "merge" and reasons:
                verdict += "; " + " | ".join(reasons)[:200]
            if plain is not None and plain.rc != 0:
                verdict += f"; pants test exit {plain.rc}"
            plain_s = plain.seconds if plain is not None else None
            table.add(f"{n} symbol(s)", symbols, len(mutants), status("killed") + status("survived"), status("killed"),
                      status("survived"), status("not_run"), _replayed(data), secs(first.seconds), secs(plain_s),
                      ratio(first.seconds, plain_s), _execution_summary(first),
                      secs(med([r.seconds for r, _ in reruns])), _execution_summary(last), verdict,
                      f"{first.load:.1f}; {loads([r for r, _ in reruns])}")
        table.notes.append(_EXECUTED_NOTE)
        table.notes.append("budget: the defaults (mutants_per_symbol=4, mutation_budget=24); the 20-symbol diff adds "
                           "six functions and a property calling them to the example's base commit")
        return table


    # 6 ------------------------------------------------------------------------------------------------
    def measure_jail(self) -> Table:
        return self._gate_with_and_without(
            "6. The jail's cost: the full gate with every test process jailed vs `--no-oracle-gate-jail`",
            "jail", ("jailed", "unjailed"), ("--oracle-gate-jail", "--no-oracle-gate-jail"), "1.1x")

    # 7 ------------------------------------------------------------------------------------------------
    def measure_compare(self) -> Table:
        return self._gate_with_and_without(
            "7. The base beside the head: the full gate with its twin interpreters (`UNJUDGED_CHANGE`) vs "
            "`--no-oracle-gate-compare-base`", "compare", ("compared", "not compared"),
            ("--oracle-gate-compare-base", "--no-oracle-gate-compare-base"), "1.5x")

    def _gate_with_and_without(self, title: str, name: str, sides: Tuple[str, str], flags: Tuple[str, str],
                               goal: str) -> Table:
        """The full gate with `flags[0]` against the same gate with `flags[1]`, on billing's 5-symbol
        diff and the largest synthetic repository's 10-target one, interleaved."""
        on, off = sides
        table = Table(title, ("repo", "diff", f"{on} (wall)", f"{off} (wall)", "ratio (wall)", f"CPU {on} / {off}",
                              "ratio (CPU)", "pants test of the same oracles (wall)", f"{on} / test (wall)",
                              f"executed, {on}: tests / mutants / clean rooms / all",
                              f"executed, {off}", f"verdicts ({on}; {off})", "load"))
        table.notes.append("each run executes every test, mutant and clean-room process afresh (a new value of an "
                           "environment variable in `[test].extra_env_vars` on the command line: a new cache key, "
                           "nothing else changed) and reuses the base's facts (built once before); ratio = "
                           f"{on} / {off}, medians; goal <= {goal}; the test side: a cold `pants test --test-force` "
                           f"of the oracle targets the last gate ran (its report), the issue's goal for the full gate "
                           f"<= 1.5x of it")
        billing = self.billing_repo()
        synthetic = self.repo(max(self.args.sizes))
        count, branch = min(synthetic.branches.items(), key=lambda kv: abs(kv[0] - 10))
        cases = [(billing, symbol_branch(billing, SYMBOL_DIFFS[5])[0], "examples/billing", "5 symbols"),
                 (synthetic.root, branch, f"synthetic, {synthetic.targets} targets", f"{count} changed")]
        for root, branch, label, diff in cases:
            git(root, "checkout", "-q", branch)
            progress(f"{name}: {label}, base facts (a dry run)")
            gate_dry(self.snap, root)

            report = self.snap.tmp / "reports" / f"{name}-{root.name}.json"
            report.parent.mkdir(exist_ok=True)

            def gate(flag: str) -> Run:
                salt = f"['ORACLE_GATE_BENCH_SALT={time.time_ns()}']"
                return pants(self.snap, root, "-ldebug", "--stats-log", f"--test-extra-env-vars={salt}", "oracle-gate",
                             "--oracle-gate-base=main", f"--oracle-gate-report={report}", flag, "::")

            progress(f"{name}: {label}, {self.args.repeat} interleaved full gates each way")
            first, second = interleaved(self.args.repeat, lambda: gate(flags[0]), lambda: gate(flags[1]))
            data = json.loads(report.read_text()) if report.exists() else {}
            oracles = sorted({o["address"] for o in data.get("oracles", []) if o.get("address")})
            progress(f"{name}: {label}, {self.args.repeat} cold `pants test --test-force` of its {len(oracles)} oracles")
            tests = [pants(self.snap, root, "test", "--test-force", *oracles) for _ in range(self.args.repeat)] \
                if oracles else []
            test_wall = med([r.seconds for r in tests]) if tests else None
            wall = [med([r.seconds for r in runs]) for runs in (first, second)]
            cpu = [med([r.cpu for r in runs]) for runs in (first, second)]
            verdicts = "; ".join(" / ".join(sorted({_verdict_line(r) for r in runs})) for runs in (first, second))
            if any(r.rc != 0 for r in tests):
                verdicts += f"; pants test exit {max(r.rc for r in tests)}"
            table.add(label, diff, secs(wall[0]), secs(wall[1]), ratio(*wall), f"{secs(cpu[0])} / {secs(cpu[1])}",
                      ratio(*cpu), secs(test_wall), ratio(wall[0], test_wall), _execution_summary(first[-1]),
                      _execution_summary(second[-1]), verdicts, f"{loads(first)}; {loads(second)}; {loads(tests)}")
        return table


def _verdict_line(r: Run) -> str:
    found = re.findall(r"^VERDICT .*$", r.out + r.err, re.M)
    return found[-1] if found else f"no verdict (exit {r.rc})"


def _test_seconds(r: Run) -> Tuple[float, int]:
    found = re.findall(r"^[✓✕]\s+\S+ (?:succeeded|failed) in ([\d.]+)s", r.err + r.out, re.M)
    return sum(float(x) for x in found), len(found)


_EXECUTED_NOTE = ("executed: processes Pants ran (at debug level it logs `Completed: Run Pytest for ...` or "
                  "`Completed: oracle-gate mutant ...` or `Completed: oracle-gate clean room for ...` only for those; all = `local_execution_requests`, cached = "
                  "`local_cache_requests_cached`, from `--stats-log`). Every cold run also executes a few processes "
                  "Pants caches per process only (interpreter and `bash` discovery)")


def _executions(r: Run) -> Tuple[str, str, str, str]:
    tests = len(re.findall(r"\[DEBUG\] Completed: Run Pytest for ", r.err))
    mutants = len(re.findall(r"\[DEBUG\] Completed: oracle-gate mutant ", r.err))
    return (str(tests), str(mutants), str(r.counter("local_execution_requests")),
            str(r.counter("local_cache_requests_cached")))


def _cleanroom_sessions(r: Run) -> int:
    """Clean-room sessions Pants executed (a cached one logs nothing at debug level)."""
    return len(re.findall(r"\[DEBUG\] Completed: oracle-gate clean room for ", r.err))


def _execution_summary(r: Run) -> str:
    tests, mutants, executed, cached = _executions(r)
    return f"{tests} / {mutants} / {_cleanroom_sessions(r)} / {executed}; {cached}"


def _replayed(data: dict) -> str:
    checks = data.get("cleanroom", [])
    return f"{sum(int(c.get('replayed', 0)) for c in checks)} in {len(checks)} fn"


def _mutant_counts(data: dict) -> str:
    found: Dict[str, int] = {}
    for m in data.get("mutants", []):
        found[str(m.get("status"))] = found.get(str(m.get("status")), 0) + 1
    return ", ".join(f"{k}={v}" for k, v in sorted(found.items())) or "none"


def _sources(data: dict) -> str:
    found: Dict[str, int] = {}
    for o in data.get("oracles", []):
        found[str(o.get("source"))] = found.get(str(o.get("source")), 0) + 1
    return ", ".join(f"{k}={v}" for k, v in sorted(found.items())) or "-"


def _verdict(r: Run, data: dict) -> str:
    return f"{data.get('verdict', 'no report: ' + r.tail())} exit={r.rc}"


# -- main -------------------------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000],
                        help="synthetic repository sizes in targets (default: 100 1000; add 5000 for the large one)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    parser.add_argument("--diffs", type=int, nargs="+", default=[1, 10, 100], help="changed production targets per diff")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of each short measurement (median)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (its path is printed)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds, so the running Pants is ended too
    sections = args.only or SECTIONS
    tmp = Path(tempfile.mkdtemp(prefix="oracle-gate-bench-"))
    snap = take_snapshot(tmp)
    print(f"# oracle-gate benchmarks\n\nmachine: {os.cpu_count()} cores, {_memory()}; python {sys.version.split()[0]}; "
          f"Pants 2.17.1 (launcher from HEAD); every Pants run cold (--no-pantsd), shared caches\n"
          f"plugin snapshot: {snap.describe}\nsections: {', '.join(sections)}; sizes: {args.sizes}; "
          f"repeat: {args.repeat} (median)\nuptime: {_uptime()}\n", flush=True)
    bench = Bench(snap, args)
    try:
        steps: List[Tuple[str, Callable[[], Optional[Table]]]] = []
        if "analysis" in sections:
            steps += [(f"analysis {size}", lambda size=size: bench.measure_analysis(size)) for size in args.sizes]
            steps.append(("analysis tables", lambda: None))
        if "evidence" in sections:
            steps.append(("evidence", bench.measure_evidence))
        if "rerun" in sections:
            steps.append(("rerun", bench.measure_rerun))
        if "mutation" in sections:
            steps.append(("mutation", bench.measure_mutation))
        if "jail" in sections:
            steps.append(("jail", bench.measure_jail))
        if "compare" in sections:
            steps.append(("compare", bench.measure_compare))
        for name, step in steps:
            try:
                table = step()
            except (BenchError, OSError, subprocess.SubprocessError, json.JSONDecodeError) as e:
                print(f"### {name}: not measured\n\n- {type(e).__name__}: {e}\n", flush=True)
                continue
            if name == "analysis tables":
                bench.analysis.notes.append("ratio = oracle-gate / baseline, medians; goal <= 1.2x. Peak RSS: the "
                                            "largest process of the run (the gate's includes its nested base run)")
                for t in (bench.base_facts, bench.analysis):
                    print(t.render(), flush=True)
            elif table is not None:
                print(table.render(), flush=True)
            print(f"uptime after {name}: {_uptime()}\n", flush=True)
    finally:
        print(f"total: {(time.monotonic() - START) / 60:.1f} min", flush=True)
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _memory() -> str:
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        return f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, AttributeError):
        return "memory unknown"


if __name__ == "__main__":
    sys.exit(main())
