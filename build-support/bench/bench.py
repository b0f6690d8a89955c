#!/usr/bin/env python3
"""Benchmarks on synthetic monorepos (figures and ratios, not pass/fail).

    python3 build-support/bench/bench.py                 # 100, 1,000 and 5,000 targets
    python3 build-support/bench/bench.py --sizes 100     # a quick look

For each size: gate analysis (`oracle-gate --oracle-gate-dry-run`: diff, owners, lanes, dependents,
classes, fixture digests, ledgers; no oracle runs) against `pants --changed-since=main
--changed-dependents=transitive list` on the same diff, for diffs touching 1, 10 and 100
production targets; the peak RSS of the Pants process; fixture lock verification (`oracle-lock`
over every locked fixture) against `sha256sum` on the same files. On the smallest size, a first
versus cached rerun of the full gate, with the number of test processes that ran. Every Pants run
is a cold process (`--no-pantsd`) sharing the machine's Pants caches.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES_PER_PACKAGE = 8  # + one property oracle + one example test + one locked fixture = 11 targets


def sh(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
    proc = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return proc


def timed(cwd: Path, *args: str, check: bool = True):
    start = time.perf_counter()
    proc = sh(cwd, *args, check=check)
    return time.perf_counter() - start, proc


def generate(root: Path, targets: int) -> int:
    """Packages of 8 chained pure modules, a property oracle, an example test and a locked fixture.

    A fresh nonce in every module keeps earlier benchmark runs from turning this one into cache hits.
    """
    packages = max(1, targets // (MODULES_PER_PACKAGE + 3))
    nonce = os.urandom(8).hex()
    (root / "pants.toml").write_text(f"""[GLOBAL]
pants_version = "2.17.1"
pythonpath = ["{ROOT / 'src'}"]
backend_packages = ["pants.backend.python", "oracle_gate"]
ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]
[source]
root_patterns = ["/src", "/oracle", "/tests"]
[python]
interpreter_constraints = ["CPython==3.9.*"]
[python-infer]
use_rust_parser = true
""")
    shutil.copy2(ROOT / "pants", root / "pants")
    (root / ".gitignore").write_text("dist/\n.pants.d/\n.pids/\n")
    (root / "BUILD").write_text('python_requirement(name="hypothesis", requirements=["hypothesis==6.141.1"])\n')
    for p in range(packages):
        src = root / "src" / f"pkg{p}"
        src.mkdir(parents=True)
        (src / "BUILD").write_text('python_sources(oracle_region="pure")\n')
        for m in range(MODULES_PER_PACKAGE):
            body = f"from pkg{p}.m{m - 1} import f{m - 1}\n\n\ndef f{m}(x):\n    return f{m - 1}(x) + 1\n" if m else \
                "def f0(x):\n    return x\n"
            (src / f"m{m}.py").write_text(f"# {nonce}\n" + body)
        last = MODULES_PER_PACKAGE - 1
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
        (tests / f"test_pkg{p}.py").write_text(f"from pkg{p}.m0 import f0\n\n\ndef test_identity():\n    assert f0(3) == 3\n")
    sh(root, "git", "init", "-q", "-b", "main")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "base")
    return packages * (MODULES_PER_PACKAGE + 3)


def touch(root: Path, count: int, packages: int) -> None:
    for i in range(count):
        p, m = i % packages, (i // packages) % MODULES_PER_PACKAGE
        with open(root / "src" / f"pkg{p}" / f"m{m}.py", "a") as f:
            f.write("# touched\n")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def bench_size(tmp: Path, size: int, diffs, rows) -> None:
    root = tmp / f"repo{size}"
    root.mkdir()
    targets = generate(root, size)
    packages = targets // (MODULES_PER_PACKAGE + 3)
    sh(root, "./pants", "--no-pantsd", "list", "::")  # warm the launcher and the caches
    for count in diffs:
        sh(root, "git", "checkout", "-q", "-B", f"diff{count}", "main")
        touch(root, count, packages)
        sh(root, "git", "commit", "-qam", f"touch {count}")
        gate_s, gate = timed(root, "./pants", "--no-pantsd", "oracle-gate", "--oracle-gate-base=main",
                             "--oracle-gate-dry-run", "::")
        list_s, listed = timed(root, "./pants", "--no-pantsd", "--changed-since=main",
                               "--changed-dependents=transitive", "list")
        plan = [l for l in gate.stdout.splitlines() if l.startswith("DRY RUN")]
        rows.append((f"{targets} targets, {count} changed", f"{gate_s:.1f}s", f"{list_s:.1f}s",
                     f"{gate_s / list_s:.2f}x", plan[0] if plan else gate.stdout[-200:]))
    sh(root, "git", "checkout", "-q", "main")
    files = sorted(str(p) for p in (root / "fixtures").rglob("data.json"))
    megabytes = sum(os.path.getsize(f) for f in files) / 1e6
    noop_s, _ = timed(root, "./pants", "--no-pantsd", "list", "fixtures::")
    lock_s, lock = timed(root, "./pants", "--no-pantsd", "oracle-lock", "fixtures::")
    sum_s, _ = timed(root, "sha256sum", *files)
    hashing = max(lock_s - noop_s, 1e-3)
    rows.append((f"{targets} targets: lock verification of {len(files)} fixtures ({megabytes:.1f} MB)",
                 f"{lock_s:.1f}s ({hashing:.2f}s over `list` of the same targets)", f"sha256sum {sum_s:.3f}s",
                 f"{hashing / max(sum_s, 1e-3):.0f}x (marginal)", f"{len(files) / hashing:.0f} fixtures/s marginal"))
    rows.append((f"{targets} targets: peak RSS of a Pants process so far", f"{peak_rss_mb():.0f} MB", "", "", ""))


def bench_cache(tmp: Path, rows) -> None:
    root = tmp / "cache"
    root.mkdir()
    targets = generate(root, 100)
    report = root / "dist" / "gate.json"
    runs = []
    sh(root, "./pants", "--pantsd", "list", "::")  # start the daemon: reruns are what it is for
    for label in ("first", "cached rerun", "cached rerun"):
        seconds, _ = timed(root, "./pants", "--pantsd", "oracle-gate", "--oracle-gate-base=main",
                           f"--oracle-gate-report={report}", "::", check=False)
        data = json.loads(report.read_text())
        ran = sum(1 for o in data["oracles"] if o["source"] == "ran")
        runs.append(seconds)
        rows.append((f"{targets} targets: full gate, {label} (warm pantsd)", f"{seconds:.1f}s",
                     f"{ran} test processes ran", f"{seconds / runs[0]:.2f}x of first", f"verdict={data['verdict']}"))
    floor, _ = timed(root, "./pants", "--pantsd", "--version")
    rows.append(("pantsd client floor (`./pants --version`, warm)", f"{floor:.1f}s", "", "",
                 f"cached rerun minus floor: {runs[-1] - floor:.1f}s ({(runs[-1] - floor) / runs[0]:.0%} of first)"))
    for pid_file in root.glob(".pids/*/pantsd/pid"):
        os.kill(int(pid_file.read_text().strip()), 15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="comma-separated; empty for none")
    parser.add_argument("--diffs", default="1,10,100")
    parser.add_argument("--no-cache-bench", action="store_true")
    args = parser.parse_args()
    rows = []
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}", flush=True)
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-") as tmp:
        if not args.no_cache_bench:
            bench_cache(Path(tmp), rows)
        for size in (int(s) for s in args.sizes.split(",") if s):
            bench_size(Path(tmp), size, [int(d) for d in args.diffs.split(",")], rows)
            print(f"done: {size}", flush=True)
    print("| case | oracle-gate | baseline | ratio | notes |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
