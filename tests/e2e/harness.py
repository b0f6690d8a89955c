"""Real repositories and a real `./pants` for end-to-end tests.

Each test copies the billing example into a fresh git repository, points its pants.toml at the
plugin source in this sandbox, and runs the `./pants` launcher from this repository. The launcher
reuses the bootstrapped Pants under $HOME, and every nested Pants shares the user's Pants caches,
so only the first run on a machine pays for resolves.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

SANDBOX = Path(__file__).resolve().parents[2]
PLUGIN_SRC = SANDBOX / "src"
LAUNCHER = SANDBOX / "pants"
EXAMPLE = SANDBOX / "examples" / "billing"
REPORT_SCHEMA = json.loads((SANDBOX / "fixtures" / "report-schema-v2.json").read_text())

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


class Repo:
    def __init__(self, root: Path, pantsd: bool = False) -> None:
        self.root = root
        self.pantsd = pantsd  # tests start cold on purpose; the demo keeps a daemon warm
        self.changed_at = 0.0

    def stop_pantsd(self) -> None:
        for pid_file in self.root.glob(".pids/*/pantsd/pid"):
            try:
                os.kill(int(pid_file.read_text().strip()), 15)
            except (ValueError, OSError):
                pass

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
        """Back on main with a clean work tree (Pants' own directories kept)."""
        self.git("checkout", "-q", "-f", "main")
        self.git("clean", "-fdq", "-e", "dist", "-e", ".pants.d", "-e", ".pids")

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
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}, **(env or {})}
        proc = subprocess.run(
            ["./pants", "--pantsd" if self.pantsd else "--no-pantsd", "--no-dynamic-ui", *args], cwd=self.root, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def gate(self, *args: str, base: str = "main", env: Optional[Dict[str, str]] = None) -> GateRun:
        report = self.path("dist/oracle-gate.json")
        if report.exists():
            report.unlink()
        run = self.pants("oracle-gate", f"--oracle-gate-base={base}",
                         f"--oracle-gate-report={report}", *args, "::", env=env)
        data = json.loads(report.read_text()) if report.exists() else None
        if data is not None:
            check_report_schema(data)
        return GateRun(run.exit_code, run.stdout, run.stderr, data)


def check_report_schema(report: dict) -> None:
    """Every report honours the locked schema fixture (fixtures/report-schema-v2.json)."""
    schema = REPORT_SCHEMA
    assert report["schema"] == schema["schema"] and report["version"] == schema["version"]
    assert sorted(report) == sorted(schema["required"])
    assert sorted(report["lanes"]) == sorted(schema["lanes"])
    for key, items in (("change", report["changes"]), ("region", report["regions"]), ("oracle", report["oracles"]),
                       ("oracle_change", report["oracle_changes"]), ("mutant", report["mutants"]),
                       ("reason", report["reasons"])):
        for item in items:
            assert sorted(item) == sorted(schema[key]), (key, item)
    for oracle in report["oracles"]:
        for test in oracle["tests"]:
            assert sorted(test) == sorted(schema["test"]), test
    assert all(r["severity"] in schema["severities"] for r in report["reasons"])
    assert [r["rank"] for r in report["ranks"]] == schema["ranks"]
    assert all(r["status"] in schema["rank_status"] for r in report["ranks"])
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
