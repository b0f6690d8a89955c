"""Real repositories and a real `./pants` for end-to-end tests.

Each test copies the billing example into a fresh git repository, points its pants.toml at the
plugin source in this sandbox, and runs the `./pants` launcher from this repository. The launcher
reuses the bootstrapped Pants under $HOME, and every nested Pants shares the user's Pants caches,
so only the first run on a machine pays for resolves.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

SANDBOX = Path(__file__).resolve().parents[2]
PLUGIN_SRC = SANDBOX / "src"
LAUNCHER = SANDBOX / "pants"
EXAMPLE = SANDBOX / "examples" / "billing"
REPORT_SCHEMA = json.loads((SANDBOX / "fixtures" / "report-schema-v4.json").read_text())

GIT_ENV = {
    "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@example.com",
    "GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "agent@example.com",
}


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass(frozen=True)
class GateRun(Run):
    report: Optional[dict]

    @property
    def reasons(self) -> List[str]:
        return [r["line"] for r in (self.report or {}).get("reasons", [])]

    def codes(self) -> List[str]:
        return [r["code"] for r in (self.report or {}).get("reasons", [])]

    def oracle(self, address: str) -> dict:
        return next(o for o in self.report["oracles"] if o["address"] == address)


# pantsd learns about file changes from the OS's file watcher, asynchronously: a run that starts
# right after an edit can still see the old content (seen here under load: a broken module judged
# by the results of the intact one). Runs on a warm daemon wait this long after the last change.
SETTLE_SECONDS = 2.5
# When the watcher lagged anyway, the gate notices (it compares what the engine read with the disk)
# and refuses with this INFRA_ERROR; the run is repeated, at most this many times.
STALE_ENGINE = "the engine has not seen the latest edit of"
STALE_RETRIES = 3
# The Pants client gives a starting pantsd 60 s (hard-coded in 2.17); on a loaded machine start-up
# takes longer and the run fails before it did anything. Such a run is repeated once the daemon is up.
PANTSD_START_TIMEOUT = "while waiting for pantsd to start"
PANTSD_START_PATIENCE = 600
# Every repository that started a daemon, so none outlives the test session (also on failure).
_DAEMONS: "set[Repo]" = set()
# And if this process is killed (a Pants test timeout sends SIGKILL, so atexit never runs): a
# watchdog per repository stops its daemon once this process is gone.
WATCHDOG = """
import glob, os, signal, sys, time
owner, root = int(sys.argv[1]), sys.argv[2]
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False
while alive(owner):
    time.sleep(2)
# A daemon the owner's last run was starting writes its pid file seconds later: keep looking.
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    for pid_file in glob.glob(os.path.join(root, ".pids", "*", "pantsd", "pid")):
        try:
            os.kill(int(open(pid_file).read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
    time.sleep(1)
"""


def _stop_every_daemon() -> None:
    for repo in list(_DAEMONS):
        repo.stop_pantsd()


atexit.register(_stop_every_daemon)


class Repo:
    def __init__(self, root: Path, pantsd: bool = False) -> None:
        self.root = root
        self.pantsd = pantsd  # tests start cold on purpose; the demo keeps a daemon warm
        self.changed_at = 0.0

    def _daemon_pids(self) -> List[int]:
        pids = []
        for pid_file in self.root.glob(".pids/*/pantsd/pid"):
            try:
                pids.append(int(pid_file.read_text().strip()))
            except (ValueError, OSError):
                pass
        return pids

    def guard_daemon(self) -> None:
        """A run here may start a daemon (this repository's own runs with pantsd, or a command run
        another way): it is stopped when the session ends, or by a watchdog if this process is killed."""
        if self not in _DAEMONS:
            _DAEMONS.add(self)
            subprocess.Popen([sys.executable, "-c", WATCHDOG, str(os.getpid()), str(self.root)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)

    def stop_pantsd(self) -> None:
        """SIGTERM to this repository's daemon, SIGKILL after 10 s; returns once it is gone."""
        _DAEMONS.discard(self)
        for pid in self._daemon_pids():
            for sig, wait in ((15, 10.0), (9, 5.0)):
                try:
                    os.kill(pid, sig)
                except OSError:
                    break
                deadline = time.monotonic() + wait
                while time.monotonic() < deadline and _alive(pid):
                    time.sleep(0.1)
                if not _alive(pid):
                    break

    def _await_daemon(self) -> None:
        """Wait (bounded) until a starting daemon has written its pid and port."""
        deadline = time.monotonic() + PANTSD_START_PATIENCE
        while time.monotonic() < deadline:
            if any(p.parent.joinpath("socket").exists() for p in self.root.glob(".pids/*/pantsd/pid")):
                return
            time.sleep(1)

    # -- files ---------------------------------------------------------------------------
    def path(self, rel: str) -> Path:
        return self.root / rel

    def read(self, rel: str) -> str:
        return self.path(rel).read_text()

    def write(self, rel: str, text: str) -> None:
        self.changed_at = time.monotonic()
        p = self.path(rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    def replace(self, rel: str, old: str, new: str) -> None:
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, 1))

    def append(self, rel: str, text: str) -> None:
        self.write(rel, self.read(rel) + text)

    # -- git -----------------------------------------------------------------------------
    def git(self, *args: str) -> str:
        self.changed_at = time.monotonic()
        proc = subprocess.run(["git", *args], cwd=self.root, env={**os.environ, **GIT_ENV},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stdout}"
        return proc.stdout.strip()

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str, start: str = "main") -> None:
        self.git("checkout", "-q", "-B", name, start)

    def reset_to_main(self) -> None:
        """Back on main with a clean work tree (Pants' own directories kept). Where the work tree
        held another `.gitignore` than main's, this repository's daemon is stopped too: Pants
        restarts it when its file watcher sees a `.gitignore` change, and one it misses (made while
        the daemon was starting, on a loaded machine) leaves it ignoring files main does not, which
        later gates then read as gone (a `.ci/run` of 4717030 lost `test_tax_props.py` that way after
        the catalogue's `gitignore-hides-property`)."""
        changed = [*self.git("diff", "--name-only", "main").splitlines(),
                   *self.git("ls-files", "--others", "--exclude-standard").splitlines()]
        self.git("checkout", "-q", "-f", "main")
        self.git("clean", "-fdq", "-e", "dist", "-e", ".pants.d", "-e", ".pids")
        if self.pantsd and any(os.path.basename(p) == ".gitignore" for p in changed):
            self.stop_pantsd()

    def scenarios(self):
        """For a fixture (`yield from repo.scenarios()`): `start(name, base="main")` checks out a
        fresh branch for one scenario; afterwards the work tree is clean on main again."""
        def start(name: str, base: str = "main") -> "Repo":
            self.branch(name, base)
            return self

        yield start
        self.reset_to_main()

    # -- pants ---------------------------------------------------------------------------
    def pants(self, *args: str, timeout: int = 1800, env: Optional[Dict[str, str]] = None) -> Run:
        if self.pantsd:
            time.sleep(max(0.0, SETTLE_SECONDS - (time.monotonic() - self.changed_at)))
            self.guard_daemon()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}, **(env or {})}
        argv = ["./pants", "--pantsd" if self.pantsd else "--no-pantsd", "--no-dynamic-ui", *args]
        for attempt in (1, 2):
            proc = subprocess.run(argv, cwd=self.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, timeout=timeout)
            if not (self.pantsd and proc.returncode != 0 and PANTSD_START_TIMEOUT in proc.stderr and attempt == 1):
                break
            self._await_daemon()
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def gate(self, *args: str, base: str = "main", env: Optional[Dict[str, str]] = None) -> GateRun:
        """One gate run. On a warm daemon whose file watcher has not caught up with the last edit, the
        gate refuses with exit 4 and says to run again; that is done (bounded), as a user would."""
        report = self.path("dist/oracle-gate.json")
        for attempt in range(1, STALE_RETRIES + 2):
            if report.exists():
                report.unlink()
            run = self.pants("oracle-gate", f"--oracle-gate-base={base}",
                             f"--oracle-gate-report={report}", *args, "::", env=env)
            data = json.loads(report.read_text()) if report.exists() else None
            if data is not None:
                check_report_schema(data)
            stale = run.exit_code == 4 and STALE_ENGINE in run.stdout + run.stderr
            if not (self.pantsd and stale and attempt <= STALE_RETRIES):
                return GateRun(run.exit_code, run.stdout, run.stderr, data)
            time.sleep(SETTLE_SECONDS * attempt)
        raise AssertionError("unreachable")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie child of ours is gone for every purpose here
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def check_report_schema(report: dict) -> None:
    """Every report honours the locked schema fixture (fixtures/report-schema-v4.json)."""
    schema = REPORT_SCHEMA
    assert report["schema"] == schema["schema"] and report["version"] == schema["version"]
    assert sorted(report) == sorted(schema["required"])
    assert sorted(report["lanes"]) == sorted(schema["lanes"])
    for key, items in (("change", report["changes"]), ("region", report["regions"]), ("oracle", report["oracles"]),
                       ("oracle_change", report["oracle_changes"]), ("mutant", report["mutants"]), ("cleanroom", report["cleanroom"]),
                       ("reason", report["reasons"])):
        for item in items:
            assert sorted(item) == sorted(schema[key]), (key, item)
    for check in report["cleanroom"]:
        for difference in check["differences"]:
            assert sorted(difference) == sorted(schema["difference"]), difference
    for oracle in report["oracles"]:
        for test in oracle["tests"]:
            assert sorted(test) == sorted(schema["test"]), test
    assert all(r["severity"] in schema["severities"] for r in report["reasons"])
    assert [r["rank"] for r in report["ranks"]] == schema["ranks"]
    assert all(r["status"] in schema["rank_status"] for r in report["ranks"])
    assert all(m["status"] in schema["mutant_status"] for m in report["mutants"])
    # pass means something was checked; a rank that checked nothing says nothing_to_check
    assert all((r["status"] == "pass") <= (r["checked"] > 0) for r in report["ranks"]), report["ranks"]
    assert schema["verdicts"][str(report["exit_code"])] == report["verdict"]


def new_repo(tmp: Path, files: Optional[Dict[str, str]] = None, pantsd: bool = False) -> Repo:
    """The billing example as a fresh git repository with one commit on `main`."""
    root = tmp / "repo"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("dist", ".pants.d", ".pids", "__pycache__"))
    shutil.copy2(LAUNCHER, root / "pants")
    toml = (root / "pants.toml").read_text()
    toml = re.sub(r'pythonpath = \[.*\]', f'pythonpath = ["{PLUGIN_SRC}"]', toml)
    (root / "pants.toml").write_text(toml)
    (root / ".gitignore").write_text("dist/\n.pants.d/\n.pids/\n__pycache__/\n")
    repo = Repo(root, pantsd=pantsd)
    for rel, text in (files or {}).items():
        repo.write(rel, text)
    repo.git("init", "-q", "-b", "main")
    repo.commit("base")
    return repo


def fixture_sha(repo: Repo, rel: str) -> str:
    import hashlib

    return hashlib.sha256(repo.path(rel).read_bytes()).hexdigest()
