#!/usr/bin/env python3
"""Adoption benchmark on lablup/backend.ai (issue 10): the README's adoption steps, then the gate
on six real commits, against plain Pants on the same work. Standalone; not run in CI (CI cannot
fetch that repository). Figures and ratios side by side, never pass/fail.

    python3 build-support/bench/adopt_backend_ai.py --repo /work/adopt/backend.ai
    python3 build-support/bench/adopt_backend_ai.py --repo ... --commits 570354e1a1 32a0553839
    python3 build-support/bench/adopt_backend_ai.py --repo ... --table-only     # print saved results

Needs the setup of `/work/adopt/README-setup.sh` (plain Pants 2.17.1 in a venv, the overlay config
with pex and shellcheck from local files, a clone with the six commits). For each commit C:

1. adopted base: a branch `oracle-adopt/<C>` at C^ plus one commit holding the README's adoption
   steps: the plugin is enabled by a second overlay (`pythonpath` to a snapshot of the plugin's
   `src`, taken once at start, `backend_packages.add = ["oracle_gate"]`), `oracle-regions
   --oracle-regions-write ::`, the environment-bound tests tagged `needs-services` (directory
   `__defaults__` or per-file `overrides`, see SERVICE_DIRS/SERVICE_FILES), `[oracle-gate]
   exclude_tags` in pants.toml (the base's configuration is what the gate trusts), and `oracle-ratchet
   --oracle-ratchet-exclude-tags=needs-services ::` (the baseline);
2. head: C cherry-picked on top (a conflict skips the commit, with a note);
3. measures, every run a `--no-pantsd` process unless named pantsd: `--changed-since=<adopted base>
   --changed-dependents=transitive list` against `oracle-gate --oracle-gate-dry-run` (the first dry
   run builds the base's facts in a nested Pants run; the second reuses them); the full gate with
   `--oracle-gate-report` against `pants test --test-force` of exactly the oracles the gate ran
   (with the same exclusion); when the verdict is a policy failure before any run, the same gate
   with `--oracle-gate-run-all` is timed too (it is the one that runs tests); a cached rerun of that
   gate (cold process, then a warm pantsd); peak RSS (max over the process tree, /usr/bin/time) and
   CPU seconds of every run; the verdict, exit code, reason counts by code and the console lines.

Results: <workdir>/results.jsonl (one JSON line per commit), logs of every run under
<workdir>/logs/<commit>/. Tracked files of the checkout stay clean apart from the two commits per
branch; the checkout returns to the branch it was on.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

COMMITS = ("570354e1a1", "b3c67086d4", "bfe8eb4fea", "d22a237753", "32a0553839", "ec984c71c0")
TAG = "needs-services"
# Decided from the plain-Pants run of the previous measurement (../notes/backend-ai-baseline.md):
# every test file whose cases failed or errored for a missing service (Docker, etcd, redis,
# postgres, a live manager). Whole directories where every file needs one; single files elsewhere,
# so the tests that pass without services keep their vote.
SERVICE_DIRS = (
    "tests/client/integration",  # a live manager (every file fails: connection refused)
    "tests/agent/docker",  # the Docker daemon
    "tests/common/redis_helper",  # redis and redis-cluster containers (the rest skip without them)
)
SERVICE_FILES = (
    "tests/agent/test_agent.py",  # Docker
    "tests/common/test_distributed.py",  # etcd, redis
    "tests/common/test_etcd.py",  # etcd container
    "tests/common/test_events.py",  # redis
    "tests/common/test_plugin.py",  # etcd
    "tests/manager/test_advisory_lock.py",  # postgres
    "tests/manager/test_config.py",  # etcd
    "tests/manager/test_queryfilter.py",  # postgres
    "tests/manager/test_queryorder.py",  # postgres
    "tests/manager/test_registry.py",  # etcd, redis
    "tests/manager/test_scheduler.py",  # one case needs postgres
    "tests/manager/api/test_auth.py",  # etcd
    "tests/manager/api/test_bgtask.py",  # redis
    "tests/manager/api/test_config.py",  # etcd
    "tests/manager/api/test_ratelimit.py",  # redis
    "tests/manager/models/test_etcd.py",  # etcd
    "tests/manager/models/test_utils.py",  # postgres
)
DEFAULTS_LINE = f'__defaults__({{"python_tests": dict(tags=["{TAG}"])}}, extend=True)\n'
GIT_ID = {"GIT_AUTHOR_NAME": "oracle-gate bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
          "GIT_COMMITTER_NAME": "oracle-gate bench", "GIT_COMMITTER_EMAIL": "bench@localhost",
          "GIT_LFS_SKIP_SMUDGE": "1"}


class BenchError(Exception):
    """A step could not be done; the message says which and why."""


def progress(message: str) -> None:
    print(f"[{datetime.datetime.now():%H:%M:%S}] {message}", flush=True)


# -- running things ------------------------------------------------------------------------------


@dataclass
class Run:
    step: str
    argv: List[str]
    exit_code: int
    wall: float
    cpu: Optional[float]  # user+sys of the whole process tree
    rss_mb: Optional[float]  # peak RSS, the largest process of the tree
    load: float  # 1-minute load average when it started
    stdout: str
    stderr: str

    def summary(self) -> dict:
        return {"exit": self.exit_code, "wall_s": round(self.wall, 1),
                "cpu_s": None if self.cpu is None else round(self.cpu, 1),
                "rss_mb": None if self.rss_mb is None else round(self.rss_mb), "load": round(self.load, 1),
                "argv": " ".join(self.argv)}


HEADER = "# exit {exit}, {wall_s}s wall, cpu {cpu_s}, rss {rss_mb} MB, load {load}"


def _time_fields(path: Path) -> Tuple[Optional[float], Optional[float]]:
    """CPU seconds and peak RSS (MB) from GNU time's last line (`-f "%e %U %S %M"`; a failed
    command adds a "Command exited with non-zero status" line before it)."""
    try:
        lines = [l.split() for l in path.read_text().splitlines() if l.strip()]
        e, u, s_, m = lines[-1][-4:]
        return float(u) + float(s_), int(m) / 1024
    except (OSError, IndexError, ValueError):
        return None, None


def _logged_run(path: Path) -> Optional[dict]:
    """A run's summary from the header of its log (an adoption done by an earlier invocation)."""
    try:
        argv_line, header = path.read_text().splitlines()[:2]
    except (OSError, ValueError):
        return None
    m = re.match(r"# exit (-?\d+), ([\d.]+)s wall, cpu ([\d.]+|None), rss ([\d.]+|None) MB, load ([\d.]+)", header)
    if not m:
        return None
    num = lambda v: None if v == "None" else float(v)  # noqa: E731
    return {"exit": int(m.group(1)), "wall_s": float(m.group(2)), "cpu_s": num(m.group(3)),
            "rss_mb": num(m.group(4)), "load": float(m.group(5)), "argv": argv_line[2:], "reused": True}


class Bench:
    def __init__(self, args: argparse.Namespace, snapshot: Path, gate_overlay: Path) -> None:
        self.args = args
        self.repo: Path = args.repo
        self.pants_bin = str(args.pants)
        self.logs = args.workdir / "logs"
        self.timeout = args.step_timeout
        self.time_bin = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
        self.snapshot = snapshot
        env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
        env.update(GIT_ID)
        env.update({
            "PANTS_CONFIG_FILES": f"+['{args.overlay}', '{gate_overlay}']",
            "PANTS_CA_CERTS_PATH": args.ca_certs,
            "PANTS_SUBPROCESS_ENVIRONMENT_ENV_VARS": "+['PIP_CONFIG_FILE=/dev/null']",
            "PIP_CONFIG_FILE": "/dev/null",
        })
        self.env = env

    def git(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(["git", *args], cwd=self.repo, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if check and proc.returncode != 0:
            raise BenchError(f"git {' '.join(args)}: {proc.stderr.strip()[-500:]}")
        return proc.stdout.strip()

    def pants(self, commit: str, step: str, *args: str, pantsd: bool = False) -> Run:
        argv = [self.pants_bin, "--pantsd" if pantsd else "--no-pantsd", "--no-dynamic-ui", *args]
        timing = tempfile.NamedTemporaryFile(prefix="adopt-bench-time-", delete=False)
        timing.close()
        full = ([self.time_bin, "-f", "%e %U %S %M", "-o", timing.name] if self.time_bin else []) + argv
        load = os.getloadavg()[0]
        progress(f"  {commit} {step}: pants {' '.join(args)[:160]}")
        start = time.monotonic()
        proc = subprocess.Popen(full, cwd=self.repo, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)  # our own process group, started just above
            out, err = proc.communicate()
            err += f"\nadopt-bench: killed after {self.timeout}s"
        wall = time.monotonic() - start
        cpu, rss = _time_fields(Path(timing.name))
        os.unlink(timing.name)
        run = Run(step, argv, proc.returncode, wall, cpu, rss, load, out, err)
        folder = self.logs / commit
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{step}.out").write_text(out)
        (folder / f"{step}.err").write_text(f"$ {' '.join(argv)}\n{HEADER.format(**run.summary())}\n{err}")
        progress(f"  {commit} {step}: exit {proc.returncode}, {wall:.0f}s wall, "
                 f"{'?' if cpu is None else f'{cpu:.0f}'}s cpu, {'?' if rss is None else f'{rss:.0f}'} MB")
        return run

    def pantsd_cpu(self) -> Optional[Tuple[float, float]]:
        """The checkout's pantsd: CPU seconds so far (its own and its waited children's) and peak RSS (MB)."""
        for pid_file in self.repo.glob(".pids/*/pantsd/pid"):
            try:
                pid = int(pid_file.read_text().strip())
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                hwm = next(l for l in Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("VmHWM:"))
            except (ValueError, OSError, StopIteration):
                continue
            ticks = os.sysconf("SC_CLK_TCK")
            return sum(int(v) for v in stat[11:15]) / ticks, int(hwm.split()[1]) / 1024
        return None

    def stop_pantsd(self) -> None:
        """Stops the pantsd this script started in the checkout (by the pid it recorded)."""
        for pid_file in self.repo.glob(".pids/*/pantsd/pid"):
            try:
                pid = int(pid_file.read_text().strip())
                os.kill(pid, signal.SIGTERM)
            except (ValueError, OSError):
                continue
            for _ in range(30):
                try:
                    os.kill(pid, 0)
                except OSError:
                    break
                time.sleep(1)


# -- adoption ------------------------------------------------------------------------------------


def tag_files_in_build(text: str, filenames: Sequence[str], where: str) -> str:
    """The BUILD text with `tags=[TAG]` added to each file's entry in its python_tests' `overrides`
    (entries it already has keep their other fields)."""
    tree = ast.parse(text)
    calls = [n.value for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
             and isinstance(n.value.func, ast.Name) and n.value.func.id == "python_tests"]
    if len(calls) != 1:
        raise BenchError(f"{where}: expected one python_tests target, found {len(calls)}")
    call = calls[0]
    overrides: Dict[object, dict] = {}
    kept = []
    for kw in call.keywords:
        if kw.arg == "overrides":
            overrides = ast.literal_eval(kw.value)
        else:
            kept.append(ast.get_source_segment(text, kw))
    args = [ast.get_source_segment(text, a) for a in call.args]
    for name in filenames:
        key = next((k for k in overrides if k == name or (isinstance(k, tuple) and name in k)), None)
        if isinstance(key, tuple):
            raise BenchError(f"{where}: {name} is in a grouped overrides key {key!r}; tag it by hand")
        entry = dict(overrides.get(name, {}))
        entry["tags"] = [*entry.get("tags", []), TAG]
        overrides[name] = entry
    rendered = ",\n".join(f"        {k!r}: {v!r}" for k, v in overrides.items())
    parts = [*args, *kept, f"overrides={{\n{rendered},\n    }}"]
    new_call = "python_tests(\n" + "".join(f"    {p},\n" for p in parts) + ")"
    lines = text.splitlines(keepends=True)
    start = sum(len(l) for l in lines[:call.lineno - 1]) + call.col_offset
    end = sum(len(l) for l in lines[:call.end_lineno - 1]) + call.end_col_offset
    return text[:start] + new_call + text[end:]


def service_tag_plan(repo: Path) -> Tuple[List[str], Dict[str, List[str]]]:
    """The directories and, per directory, the files of SERVICE_DIRS/SERVICE_FILES in this tree."""
    dirs = [d for d in SERVICE_DIRS if (repo / d / "BUILD").exists()]
    by_dir: Dict[str, List[str]] = {}
    for f in SERVICE_FILES:
        if (repo / f).exists() and not any(f.startswith(d + "/") for d in SERVICE_DIRS):
            by_dir.setdefault(os.path.dirname(f), []).append(os.path.basename(f))
    return dirs, dict(sorted(by_dir.items()))


def tagged_names(dirs: Sequence[str], by_dir: Dict[str, List[str]]) -> List[str]:
    return [f"{d}/ (directory)" for d in dirs] + [f"{d}/{n}" for d, names in by_dir.items() for n in names]


def tag_service_tests(repo: Path) -> List[str]:
    """Tags the environment-bound tests that exist in this tree; returns what it tagged."""
    dirs, by_dir = service_tag_plan(repo)
    for d in dirs:
        build = repo / d / "BUILD"
        build.write_text(DEFAULTS_LINE + build.read_text())
    for d, names in by_dir.items():
        build = repo / d / "BUILD"
        build.write_text(tag_files_in_build(build.read_text(), names, str(build)))
    return tagged_names(dirs, by_dir)


def expected_tagged(repo: Path) -> List[str]:
    """The python_test addresses the tags should reach, for checking the edit through Pants."""
    out = []
    for d in SERVICE_DIRS:
        out += [f"{p.relative_to(repo)}:tests" for p in sorted((repo / d).glob("test_*.py"))]
        out += [f"{p.relative_to(repo)}:tests" for p in sorted((repo / d).glob("*_test.py"))]
    out += [f"{f}:tests" for f in SERVICE_FILES if (repo / f).exists() and not any(f.startswith(d + "/") for d in SERVICE_DIRS)]
    return sorted(out)


@dataclass
class Adopted:
    base: str
    head: str
    steps: Dict[str, dict] = field(default_factory=dict)
    tagged: List[str] = field(default_factory=list)
    baseline_line: str = ""
    regions_line: str = ""
    committed: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


def patch_id(b: Bench, old: str, new: str) -> str:
    diff = subprocess.run(["git", "diff", old, new], cwd=b.repo, env=b.env, stdout=subprocess.PIPE, check=True).stdout
    return subprocess.run(["git", "patch-id", "--stable"], cwd=b.repo, input=diff, stdout=subprocess.PIPE,
                          check=True).stdout.decode().split(" ")[0]


def reuse_adoption(b: Bench, commit: str, full: str, parent: str, branch: str) -> Optional[Adopted]:
    """The adopted base and head an earlier invocation left on `branch`, if they are what this one
    would make (the adoption commit on C^, then C's own diff); the adoption's figures come from its
    logs."""
    if not b.git("rev-parse", "--verify", "-q", branch, check=False):
        return None
    base, head = b.git("rev-parse", f"{branch}~1", check=False), b.git("rev-parse", branch)
    if (not base or b.git("rev-parse", f"{base}^", check=False) != parent
            or not b.git("log", "-1", "--format=%s", base).startswith("Adopt oracle-gate")
            or patch_id(b, base, head) != patch_id(b, parent, full)):
        return None
    b.git("checkout", "-q", "-f", branch)
    ad = Adopted(base=base, head=head, notes=[f"adoption reused from branch {branch} (made by an earlier invocation)"])
    logs = b.logs / commit
    for step, name in (("regions", "adopt-regions"), ("check_tags", "adopt-check-tags"), ("ratchet", "adopt-ratchet")):
        logged = _logged_run(logs / f"{name}.err")
        if logged:
            ad.steps[step] = logged
    read = lambda name: (logs / name).read_text() if (logs / name).exists() else ""  # noqa: E731
    ad.regions_line = next((l for l in read("adopt-regions.out").splitlines() if l.startswith("oracle-regions: ") and "target(s)" in l), "")
    ad.baseline_line = next((l for l in read("adopt-ratchet.out").splitlines() if l.startswith("BASELINE ")), "")
    b.git("checkout", "-q", "-f", parent)
    ad.tagged = tagged_names(*service_tag_plan(b.repo))
    b.git("checkout", "-q", "-f", branch)
    ad.committed = b.git("diff", "--name-status", parent, base).splitlines()
    return ad


def adopt(b: Bench, commit: str, fresh: bool) -> Adopted:
    full = b.git("rev-parse", commit)
    parent = b.git("rev-parse", f"{commit}^")
    branch = f"oracle-adopt/{commit[:10]}"
    reused = None if fresh else reuse_adoption(b, commit, full, parent, branch)
    if reused:
        return reused
    b.git("checkout", "-q", "-f", "-B", branch, parent)
    if b.git("status", "--porcelain"):
        raise BenchError(f"the checkout is not clean at {parent[:10]}: {b.git('status', '--porcelain')[:300]}")
    ad = Adopted(base="", head="")
    r = b.pants(commit, "adopt-regions", "oracle-regions", "--oracle-regions-write", "::")
    ad.steps["regions"] = r.summary()
    ad.regions_line = next((l for l in r.stdout.splitlines() if l.startswith("oracle-regions: ") and "target(s)" in l), "")
    ad.notes += [l for l in r.stderr.splitlines() if "edit by hand" in l]
    if r.exit_code not in (0, 1):
        raise BenchError(f"oracle-regions --oracle-regions-write failed (exit {r.exit_code}): {tail(r.stderr)}")
    ad.tagged = tag_service_tests(b.repo)
    toml = b.repo / "pants.toml"
    if re.search(r"^\[oracle-gate\]", toml.read_text(), re.M):
        raise BenchError("pants.toml already has an [oracle-gate] section")
    with toml.open("a") as f:
        f.write(f'\n[oracle-gate]\n# Environment-bound tests (Docker, etcd, redis, postgres, a live manager)\n'
                f'exclude_tags = ["{TAG}"]\n')
    r = b.pants(commit, "adopt-check-tags", f"--tag={TAG}", "--filter-target-type=python_test", "list", "::")
    ad.steps["check_tags"] = r.summary()
    got, want = sorted(r.stdout.split()), expected_tagged(b.repo)
    if r.exit_code != 0 or got != want:
        raise BenchError(f"the needs-services tags did not take (exit {r.exit_code}): "
                         f"missing {sorted(set(want) - set(got))}, extra {sorted(set(got) - set(want))}; {tail(r.stderr)}")
    r = b.pants(commit, "adopt-ratchet", "oracle-ratchet", f"--oracle-ratchet-exclude-tags={TAG}", "::")
    ad.steps["ratchet"] = r.summary()
    ad.baseline_line = next((l for l in r.stdout.splitlines() if l.startswith("BASELINE ")), "")
    if r.exit_code != 0 or not ad.baseline_line:
        raise BenchError(f"oracle-ratchet failed (exit {r.exit_code}): {tail(r.stderr)}")
    ad.committed = b.git("status", "--porcelain").splitlines()
    b.git("add", "-A")
    b.git("commit", "-q", "-m", f"Adopt oracle-gate (regions, needs-services exclusions, baseline) on {parent[:10]}")
    ad.base = b.git("rev-parse", "HEAD")
    pick = subprocess.run(["git", "cherry-pick", "--allow-empty", full], cwd=b.repo, env=b.env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if pick.returncode != 0:
        conflicts = b.git("diff", "--name-only", "--diff-filter=U", check=False)
        b.git("cherry-pick", "--abort", check=False)
        raise BenchError(f"cherry-picking {commit} onto the adopted base conflicts in: {conflicts or pick.stderr.strip()}")
    ad.head = b.git("rev-parse", "HEAD")
    return ad


# -- measuring -----------------------------------------------------------------------------------


def tail(text: str, n: int = 3) -> str:
    lines = [l for l in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines() if l.strip()]
    return " | ".join(lines[-n:])[:800]


def base_facts_seconds(r: Run) -> Tuple[Optional[str], Optional[float]]:
    m = re.search(r"base facts for \S+ (built|reused) in ([\d.]+)s", r.stderr)
    return (m.group(1), float(m.group(2))) if m else (None, None)


def read_report(repo: Path, rel: str) -> Optional[dict]:
    path = repo / "dist" / rel
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def reason_counts(report: Optional[dict]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for r in (report or {}).get("reasons", []):
        counts[r["code"]] = counts.get(r["code"], 0) + 1
    return dict(sorted(counts.items()))


def ran_oracles(report: Optional[dict]) -> List[str]:
    """The test targets the gate ran (neither excluded nor left unrun)."""
    return sorted({o["address"] for o in (report or {}).get("oracles", [])
                   if o.get("role") != "excluded" and o.get("outcome") not in (None, "not_run")})


def gate_args(base: str, report: Optional[str], *extra: str) -> List[str]:
    return ["oracle-gate", f"--oracle-gate-base={base}", *([f"--oracle-gate-report={report}"] if report else []), *extra, "::"]


def gate_lines(stdout: str) -> List[str]:
    return [l for l in stdout.splitlines() if l.strip()]


def measure(b: Bench, commit: str, ad: Adopted) -> dict:
    rec: dict = {"commit": commit, "adopted_base": ad.base[:12], "head": ad.head[:12],
                 "files_changed": len(b.git("diff", "--name-only", ad.base, ad.head).splitlines()),
                 "adoption": {"steps": ad.steps, "tagged": ad.tagged, "regions": ad.regions_line,
                              "baseline": ad.baseline_line, "committed": ad.committed, "notes": ad.notes}}
    runs: Dict[str, dict] = {}
    # A fresh value in every test process's environment: no test result cached by an earlier
    # invocation (or by the ratchet) can turn the first gate into cache hits. The nested base run
    # sees the same environment, so base and head configuration still agree.
    nonce = f"{commit}-{time.time_ns()}"
    b.env["PANTS_TEST_EXTRA_ENV_VARS"] = f"+['ADOPT_BENCH_NONCE={nonce}']"
    rec["nonce"] = nonce
    r = b.pants(commit, "list-cold", f"--changed-since={ad.base}", "--changed-dependents=transitive", "list")
    runs["list_cold"] = r.summary()
    rec["dependents"] = len(r.stdout.split())
    # The first dry run builds the base's facts: drop what an earlier invocation cached for this base.
    b.env["ORACLE_GATE_BASE_FACTS_SALT"] = nonce
    for step in ("dry1", "dry2"):
        r = b.pants(commit, step, *gate_args(ad.base, None, "--oracle-gate-dry-run"))
        runs[step] = r.summary()
        runs[step]["base_facts"], runs[step]["base_facts_s"] = base_facts_seconds(r)
        if r.exit_code != 0:
            rec.setdefault("problems", []).append(f"{step} exit {r.exit_code}: {tail(r.stderr)}")
        if step == "dry1":
            rec["dry_run_lines"] = gate_lines(r.stdout)
    plan_none = any(l.startswith("PLAN no oracle runs") for l in rec.get("dry_run_lines", []))
    report_rel = f"adopt-bench/{commit}.json"
    r = b.pants(commit, "gate", *gate_args(ad.base, report_rel))
    runs["gate"] = r.summary()
    report = read_report(b.repo, report_rel)
    rec.update(verdict=(report or {}).get("verdict"), exit_code=r.exit_code, reasons=reason_counts(report),
               gate_console=gate_lines(r.stdout), stopped_at=(report or {}).get("stopped_at"),
               ranks=(report or {}).get("ranks"))
    if report is None:
        rec.setdefault("problems", []).append(f"gate wrote no report (exit {r.exit_code}): {tail(r.stderr, 8)}")
    if "Traceback" in r.stderr:
        rec.setdefault("problems", []).append(f"gate traceback: {tail(r.stderr, 12)}")
    rec["regions"] = [{k: g[k] for k in ("path", "status", "kind", "need", "have", "voters")}
                      for g in (report or {}).get("regions", [])]
    rec["oracles"] = [{k: o.get(k) for k in ("address", "class", "role", "outcome", "voted", "source")}
                      for o in (report or {}).get("oracles", [])]
    rec["mutants"] = len((report or {}).get("mutants", []))
    timed_report, timed_rel = report, report_rel
    timed_args = gate_args(ad.base, report_rel)
    if not ran_oracles(report) and plan_none:
        # The verdict was a policy failure before any run, so the gate ran nothing: time the same
        # gate with every oracle run, the one whose cost compares with `pants test`.
        timed_rel = f"adopt-bench/{commit}-run-all.json"
        timed_args = gate_args(ad.base, timed_rel, "--oracle-gate-run-all")
        r = b.pants(commit, "gate-run-all", *timed_args)
        runs["gate_run_all"] = r.summary()
        timed_report = read_report(b.repo, timed_rel)
        rec["run_all_verdict"] = (timed_report or {}).get("verdict")
        rec["run_all_reasons"] = reason_counts(timed_report)
        rec["run_all_console"] = gate_lines(r.stdout)
        rec["run_all_mutants"] = len((timed_report or {}).get("mutants", []))
    rec["timed_gate"] = "gate_run_all" if "gate_run_all" in runs else "gate"
    oracles = ran_oracles(timed_report)
    rec["oracles_ran"] = len(oracles)
    rec["oracle_sources"] = _count(o.get("source") for o in (timed_report or {}).get("oracles", [])
                                   if o["address"] in oracles)
    if b.args.verdicts_only:
        rec["runs"] = runs
        return rec  # the plain-test comparison and the reruns are skipped (--verdicts-only)
    if oracles:
        r = b.pants(commit, "test-plain", f"--tag=-{TAG}", "test", "--test-force", *oracles)
        runs["test_plain"] = r.summary()
        err = re.sub(r"\x1b\[[0-9;]*m", "", r.stderr)
        rec["test_plain_targets"] = {"passed": len(re.findall(r"✓ \S+ succeeded", err)),
                                     "failed": len(re.findall(r"✕ \S+ failed", err))}
    r = b.pants(commit, "rerun-cold", *timed_args)
    runs["rerun_cold"] = r.summary()
    rerun = read_report(b.repo, timed_rel)
    rec["rerun_sources"] = _count(o.get("source") for o in (rerun or {}).get("oracles", []) if o["address"] in oracles)
    # With pantsd, /usr/bin/time sees only the thin client: the daemon's CPU (its own and its
    # waited children's) and peak RSS come from /proc.
    r = b.pants(commit, "rerun-pantsd-start", *timed_args, pantsd=True)
    runs["rerun_pantsd_start"] = r.summary()
    before = b.pantsd_cpu()
    r = b.pants(commit, "rerun-pantsd-warm", *timed_args, pantsd=True)
    after = b.pantsd_cpu()
    runs["rerun_pantsd_warm"] = r.summary()
    if before is not None and after is not None:
        runs["rerun_pantsd_warm"]["daemon_cpu_s"] = round(after[0] - before[0], 1)
        runs["rerun_pantsd_warm"]["daemon_rss_mb"] = round(after[1])
    b.stop_pantsd()
    b.env.pop("PANTS_TEST_EXTRA_ENV_VARS", None)
    rec["runs"] = runs
    return rec


def _count(values) -> Dict[str, int]:
    out: Dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return out


# -- the table -----------------------------------------------------------------------------------


def _s(run: Optional[dict], key: str = "wall_s") -> str:
    return "-" if not run or run.get(key) is None else f"{run[key]:.0f}"


def _ratio(a: Optional[dict], b: Optional[dict], key: str = "wall_s") -> str:
    if not a or not b or not a.get(key) or not b.get(key):
        return "-"
    return f"{a[key] / b[key]:.2f}x"


def _pct(a: Optional[dict], b: Optional[dict], key: str = "wall_s") -> str:
    if not a or not b or not a.get(key) or not b.get(key):
        return "-"
    return f"{100 * a[key] / b[key]:.0f}%"


def render(records: Sequence[dict]) -> str:
    rows = [("commit", "files", "deps", "list cold s (cpu)", "dry #1 s (base facts s)", "dry #2 s (cpu)",
             "dry#2/list wall (cpu)", "dry#1/list", "gate s (cpu)", "oracles", "test s (cpu)",
             "gate/test wall (cpu)", "rerun cold s", "rerun/gate", "rerun warm pantsd s", "warm/gate",
             "peak RSS MB list/dry/gate/test", "load", "verdict exit")]
    for rec in records:
        if rec.get("skipped"):
            rows.append((rec["commit"], *["-"] * 17, f"skipped: {rec['skipped'][:60]}"))
            continue
        runs = rec["runs"]
        lst, d1, d2 = runs.get("list_cold"), runs.get("dry1"), runs.get("dry2")
        gate = runs.get(rec.get("timed_gate", "gate"))
        test, cold, warm = runs.get("test_plain"), runs.get("rerun_cold"), runs.get("rerun_pantsd_warm")
        label = "gate" if rec.get("timed_gate") == "gate" else "run-all"
        loads = [r["load"] for r in (lst, d1, d2, gate, test) if r]
        rows.append((
            rec["commit"], str(rec["files_changed"]), str(rec.get("dependents", "-")),
            f"{_s(lst)} ({_s(lst, 'cpu_s')})",
            f"{_s(d1)} ({_s(d1, 'base_facts_s')})",
            f"{_s(d2)} ({_s(d2, 'cpu_s')})",
            f"{_ratio(d2, lst)} ({_ratio(d2, lst, 'cpu_s')})", _ratio(d1, lst),
            f"{_s(gate)} ({_s(gate, 'cpu_s')}) {label}", str(rec.get("oracles_ran", 0)),
            f"{_s(test)} ({_s(test, 'cpu_s')})", f"{_ratio(gate, test)} ({_ratio(gate, test, 'cpu_s')})",
            _s(cold), _pct(cold, gate), _s(warm), _pct(warm, gate),
            "/".join(_s(r, "rss_mb") for r in (lst, d2, gate, test)),
            f"{min(loads):.0f}-{max(loads):.0f}" if loads else "-",
            f"{rec.get('verdict')} {rec.get('exit_code')}",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def render_details(rec: dict) -> str:
    if rec.get("skipped"):
        return f"== {rec['commit']}: skipped: {rec['skipped']}"
    ad = rec["adoption"]
    out = [f"== {rec['commit']} (adopted base {rec['adopted_base']}, head {rec['head']}): "
           f"{rec.get('verdict')} exit={rec.get('exit_code')} reasons={rec.get('reasons')}",
           f"   adoption: regions {ad['steps'].get('regions', {}).get('wall_s')}s ({ad['regions']}); "
           f"ratchet {ad['steps'].get('ratchet', {}).get('wall_s')}s ({ad['baseline']})",
           f"   tagged: {', '.join(ad['tagged'])}"]
    if rec.get("timed_gate") == "gate_run_all":
        out.append(f"   --oracle-gate-run-all: {rec.get('run_all_verdict')} reasons={rec.get('run_all_reasons')}")
    out.append(f"   oracles ran {rec.get('oracles_ran')} (cache {rec.get('oracle_sources')}); rerun cache "
               f"{rec.get('rerun_sources')}; mutants {rec.get('mutants')}")
    for p in rec.get("problems", []):
        out.append(f"   PROBLEM {p}")
    out += [f"   | {l}" for l in rec.get("gate_console", [])]
    return "\n".join(out)


# -- main ----------------------------------------------------------------------------------------


def take_snapshot(src: Path, workdir: Path, overlay_dir: Optional[Path]) -> Tuple[Path, Path]:
    """A copy of the plugin's source (edits in progress elsewhere cannot change a run midway) and
    the overlay that loads it."""
    if overlay_dir and (overlay_dir / "src" / "oracle_gate").is_dir():
        snap = overlay_dir
    else:
        if not (src / "oracle_gate" / "register.py").is_file():
            raise BenchError(f"{src} holds no oracle_gate package (--plugin-src)")
        snap = workdir / f"snapshot-{datetime.datetime.now():%Y%m%d-%H%M%S}"
        shutil.copytree(src, snap / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    overlay = snap / "oracle-gate-overlay.toml"
    overlay.write_text(f"# Loads the oracle-gate plugin from a snapshot of {src}; written by adopt_backend_ai.py.\n"
                       f"[GLOBAL]\npythonpath.add = [\"{snap / 'src'}\"]\nbackend_packages.add = [\"oracle_gate\"]\n")
    return snap, overlay


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", type=Path, required=True, help="the backend.ai checkout")
    p.add_argument("--commits", nargs="+", default=list(COMMITS))
    p.add_argument("--plugin-src", type=Path, default=Path(__file__).resolve().parents[2] / "src")
    p.add_argument("--snapshot", type=Path, help="reuse this snapshot directory (from an earlier run) instead of taking one")
    p.add_argument("--pants", type=Path, default=Path("/work/adopt/pants-venv/bin/pants"))
    p.add_argument("--overlay", type=Path, default=Path("/work/adopt/overlay.toml"))
    p.add_argument("--ca-certs", default="/etc/ssl/certs/ca-certificates.crt")
    p.add_argument("--workdir", type=Path, help="results and logs (default: <repo>/../adopt-bench)")
    p.add_argument("--time-cap", type=float, default=2.5 * 3600, help="start no commit after this many seconds")
    p.add_argument("--step-timeout", type=int, default=3600)
    p.add_argument("--fresh", action="store_true",
                   help="adopt again even when a branch oracle-adopt/<C> from an earlier invocation holds the same adoption and diff")
    p.add_argument("--table-only", action="store_true", help="print the table of the saved results and stop")
    p.add_argument("--verdicts-only", action="store_true",
                   help="adoption, the list baseline, the dry runs and the gate only (no plain `pants test`, no reruns)")
    args = p.parse_args(argv)
    args.repo = args.repo.resolve()
    args.workdir = (args.workdir or args.repo.parent / "adopt-bench").resolve()
    results = args.workdir / "results.jsonl"
    if args.table_only:
        records = [json.loads(l) for l in results.read_text().splitlines() if l.strip()] if results.exists() else []
        latest = {r["commit"]: r for r in records}
        print(render(list(latest.values())))
        for r in latest.values():
            print(render_details(r))
        return 0
    for path, what in ((args.repo / ".git", "a git checkout (--repo)"), (args.pants, "Pants (--pants)"),
                       (args.overlay, "the overlay config (--overlay)")):
        if not path.exists():
            print(f"adopt_backend_ai.py: error: no {what} at {path}", file=sys.stderr)
            return 2
    args.workdir.mkdir(parents=True, exist_ok=True)
    try:
        snap, gate_overlay = take_snapshot(args.plugin_src.resolve(), args.workdir, args.snapshot)
    except BenchError as e:
        print(f"adopt_backend_ai.py: error: {e}", file=sys.stderr)
        return 2
    b = Bench(args, snap, gate_overlay)
    start_branch = b.git("rev-parse", "--abbrev-ref", "HEAD")
    if b.git("status", "--porcelain"):
        print(f"adopt_backend_ai.py: error: {args.repo} has uncommitted changes", file=sys.stderr)
        return 2
    progress(f"snapshot {snap}; results {results}; {len(args.commits)} commit(s); cap {args.time_cap / 3600:.1f} h")
    t0 = time.monotonic()
    done: List[dict] = []
    try:
        for commit in args.commits:
            elapsed = time.monotonic() - t0
            if elapsed > args.time_cap:
                progress(f"time cap reached after {elapsed / 60:.0f} min: {commit} and later not measured")
                break
            progress(f"{commit}: adopting at {commit}^ ({elapsed / 60:.0f} min so far)")
            try:
                ad = adopt(b, commit, args.fresh)
                progress(f"{commit}: adopted base {ad.base[:10]}, head {ad.head[:10]}; measuring")
                rec = measure(b, commit, ad)
            except BenchError as e:
                progress(f"{commit}: skipped: {e}")
                rec = {"commit": commit, "skipped": str(e)}
            rec["snapshot"] = str(snap)
            rec["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
            with results.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            done.append(rec)
            print(render_details(rec), flush=True)
    finally:
        b.stop_pantsd()
        b.git("checkout", "-q", "-f", start_branch, check=False)
    print(render(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
