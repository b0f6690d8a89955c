#!/usr/bin/env python3
"""History replay: what the gate would have said about a repository's real commits, before adopting.

Adopt at commit A as README says (in a private worktree: the plugin enabled through an overlay
config file, `oracle-regions --oracle-regions-write ::`, `oracle-ratchet ::`, one commit), then
put each later first-parent commit on top (its tree, merges included, with the adoption's edits applied
again) and gate it against its predecessor in both lanes; beside it,
time the plain `pants --changed-since=<parent> --changed-dependents=transitive test` of the same
commit. Every Pants run is a cold process (`--no-pantsd`) with the process cache off
(`--no-local-cache`), as a CI machine with a new merge base runs it. Prints one row per commit and
writes a Markdown table:

    python3 build-support/replay/replay.py --repo CLONE --adopt A --count 30 \
        [--pants CMD] [--overlay machine.toml] [--exclude-glob 'tests/integration/*'] [--out table.md]

Columns: sha, subject, files, the verdict and reason codes per lane, gate and plain seconds and
their ratio, plain test's exit code (does upstream pass here?), and whether every blocking reason
names a path the commit changed ("own" = the diff's fault on its face; "READ" = read it against the
diff before calling it right). Totals per reason code follow. Not run in CI (it needs a clone of a
real repository); figures, never pass/fail.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "src"))
from oracle_gate.core.lanes.compare import matches  # noqa: E402 (the gate's own glob rule for exclude_globs)

FAILED_TARGET = re.compile(r"^✕ (\S+) failed", re.MULTILINE)
GIT_ID = {"GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "replay@example.com",
          "GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "replay@example.com"}
VERDICTS = {0: "merge", 1: "product", 2: "policy", 3: "empty vote", 4: "infra"}
INFO = {"EXCLUDED", "UNJUDGED", "DIAGNOSTIC", "NOT_RUN", "NOTE"}
ADOPTED = "adopt oracle-gate (regions, unowned paths, baseline)"  # the adoption commit's subject


@dataclass
class Gate:
    exit_code: int
    seconds: float
    codes: List[str]
    lines: List[str]


@dataclass
class Row:
    sha: str
    subject: str
    files: int
    gates: Dict[str, Gate] = field(default_factory=dict)
    plain_exit: Optional[int] = None
    plain_seconds: Optional[float] = None
    # test targets the plain run failed outside `--exclude-glob` (None: not known)
    plain_failed: Optional[List[str]] = None
    own: Optional[bool] = None
    note: str = ""


class Replay:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.work = Path(args.workdir or tempfile.mkdtemp(prefix="oracle-replay-")).resolve()
        self.tree = self.work / "tree"
        self.logs = self.work / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        plugin = self.work / "plugin-src"  # a snapshot: editing this checkout never changes the judge
        shutil.rmtree(plugin, ignore_errors=True)
        shutil.copytree(HERE / "src", plugin, ignore=shutil.ignore_patterns("__pycache__", "BUILD"))
        overlay = self.work / "enable-plugin.toml"
        overlay.write_text(f'[GLOBAL]\npythonpath.add = ["{plugin}"]\nbackend_packages.add = ["oracle_gate"]\n')
        files = [*(str(Path(o).resolve()) for o in args.overlay), str(overlay)]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
        self.env.update(GIT_ID)
        self.env["PANTS_CONFIG_FILES"] = "+[" + ", ".join(repr(f) for f in files) + "]"
        self.pants_cmd = args.pants.split() if args.pants else [str(HERE / "pants")]  # it finds pants.toml from its cwd
        self.adoption_patch: Optional[bytes] = None  # the adoption commit's own edits

    # -- running ----------------------------------------------------------------------------------
    def git(self, *args: str, cwd: Optional[Path] = None, check: bool = True) -> str:
        proc = subprocess.run(["git", *args], cwd=cwd or self.tree, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if check and proc.returncode != 0:
            raise SystemExit(f"replay: git {' '.join(args)}: {proc.stderr.strip()[-400:]}")
        return proc.stdout.strip()

    def pants(self, name: str, *args: str) -> subprocess.CompletedProcess:
        argv = [*self.pants_cmd, "--no-pantsd", "--no-dynamic-ui", "--no-local-cache", *args]
        start = time.monotonic()
        proc = subprocess.run(argv, cwd=self.tree, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=self.args.timeout)
        proc.seconds = time.monotonic() - start  # type: ignore[attr-defined]
        (self.logs / f"{name}.log").write_text(f"$ {' '.join(argv)}\n# exit {proc.returncode} "
                                               f"{proc.seconds:.1f}s\n{proc.stdout}\n{proc.stderr}")  # type: ignore[attr-defined]
        return proc

    # -- steps ------------------------------------------------------------------------------------
    def adopt(self) -> None:
        repo = Path(self.args.repo).resolve()
        if self.tree.exists():
            self.git("worktree", "remove", "--force", str(self.tree), cwd=repo, check=False)
            shutil.rmtree(self.tree, ignore_errors=True)
        self.git("worktree", "add", "--detach", str(self.tree), self.args.adopt, cwd=repo)
        regions = self.pants("adopt-regions", "oracle-regions", "--oracle-regions-write", "::")
        if regions.returncode != 0:
            raise SystemExit(f"replay: oracle-regions failed (exit {regions.returncode}); see {self.logs}/adopt-regions.log")
        # README step 3: environment-bound tests, by path (no BUILD edit).
        if self.args.exclude_glob:
            toml = (self.tree / "pants.toml").read_text()
            line = f"exclude_globs = {json.dumps(self.args.exclude_glob)}\n"
            toml = toml.replace("[oracle-gate]\n", "[oracle-gate]\n" + line, 1) if "[oracle-gate]\n" in toml \
                else toml + "\n[oracle-gate]\n" + line
            (self.tree / "pants.toml").write_text(toml)
        ratchet = self.pants("adopt-ratchet", "oracle-ratchet", "::")
        if ratchet.returncode != 0:
            raise SystemExit(f"replay: oracle-ratchet failed (exit {ratchet.returncode}); see {self.logs}/adopt-ratchet.log")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", ADOPTED)
        print(f"replay: adopted at {self.args.adopt[:10]} in {regions.seconds + ratchet.seconds:.0f}s", flush=True)  # type: ignore[attr-defined]

    def apply(self, sha: str) -> str:
        """Put upstream's commit on top of the adopted tree: upstream's whole tree at `sha` (a merge
        commit included) with the adoption's own edits applied again (three-way), committed with
        upstream's message. One commit that cannot be applied never makes the ones after it drift.
        Returns '' or why it could not be applied."""
        if self.adoption_patch is None:  # the same for every commit: read once
            adoption = self.git("log", "-1", "--format=%H", "--fixed-strings", f"--grep={ADOPTED}")
            self.adoption_patch = subprocess.run(["git", "diff", "--binary", f"{adoption}^", adoption], cwd=self.tree,
                                                 env=self.env, stdout=subprocess.PIPE, check=True).stdout
        patch = self.adoption_patch
        self.git("read-tree", "-u", "--reset", sha)
        applied = subprocess.run(["git", "apply", "--3way", "--index"], cwd=self.tree, env=self.env, input=patch,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if applied.returncode != 0:
            self.git("reset", "-q", "--hard", "HEAD", check=False)
            said = applied.stdout.decode("utf-8", "replace").splitlines()
            first = next((line for line in said if "conflict" in line.lower() or "error" in line.lower()), said[0] if said else "?")
            return f"the adoption's edits do not apply to its tree ({first.strip()[:100]})"
        self.git("commit", "-q", "--allow-empty", "-m", self.git("log", "-1", "--format=%B", sha))
        return ""

    def adopted(self) -> bool:
        """The worktree of an earlier run holds a finished adoption commit."""
        return (self.tree / ".git").exists() and bool(
            self.git("log", "--format=%H", "--fixed-strings", f"--grep={ADOPTED}", check=False))

    def commits(self) -> List[str]:
        """The commits to replay, resolved in the clone (before the worktree moves on)."""
        upstream = self.git("rev-list", "--reverse", "--first-parent", f"{self.args.adopt}..{self.args.until}",
                            cwd=Path(self.args.repo).resolve())
        return upstream.split()[: self.args.count]

    def replay_one(self, sha: str) -> Row:
        subject = self.git("log", "-1", "--format=%s", sha)
        changed = self.git("diff", "--name-only", f"{sha}^", sha).splitlines()
        row = Row(sha[:10], subject[:60], len(changed))
        problem = self.apply(sha)
        if problem:
            row.note = f"not applied: {problem}: skipped (the next row's diff includes this commit)"
            return row
        plain = self.pants(f"{sha[:10]}-plain", "--changed-since=HEAD^", "--changed-dependents=transitive", "test")
        row.plain_exit, row.plain_seconds = plain.returncode, plain.seconds  # type: ignore[attr-defined]
        row.plain_failed = plain_failures(plain.returncode, plain.stdout + plain.stderr, self.args.exclude_glob)
        for lane in self.args.lanes:
            report = self.work / f"{sha[:10]}-{lane}.json"
            run = self.pants(f"{sha[:10]}-{lane}", "oracle-gate", "--oracle-gate-base=HEAD^", f"--oracle-gate-lane={lane}",
                             f"--oracle-gate-report={report}", "::")
            data = json.loads(report.read_text()) if report.exists() else {}
            reasons = data.get("reasons", [])
            row.gates[lane] = Gate(run.returncode, run.seconds, [r["code"] for r in reasons],  # type: ignore[attr-defined]
                                   [r["line"] for r in reasons])
        agent = row.gates.get(self.args.lanes[0])
        if agent is not None and agent.exit_code != 0:
            blocking = [line for code, line in zip(agent.codes, agent.lines) if code not in INFO]
            # A base that cannot be evaluated is the predecessor's breakage, whatever paths its line quotes.
            row.own = bool(blocking) and "BASE_UNEVALUABLE" not in agent.codes and all(
                any(p in line for p in changed) for line in blocking)
        return row


def plain_failures(exit_code: int, output: str, exclude_globs: Sequence[str]) -> Optional[List[str]]:
    """The test targets plain `pants test` failed whose file no exclude glob names (environment-bound
    tests are excluded from the gate, README step 3); None when it failed for another reason."""
    failed = FAILED_TARGET.findall(output)
    if exit_code != 0 and not failed:
        return None
    return [t for t in failed if not matches(t.split(":", 1)[0], exclude_globs)]


def upstream_passes(r: Row) -> bool:
    """The commit's own tests pass, environment-bound tests aside."""
    return r.plain_exit == 0 or r.plain_failed == []


def render(rows: Sequence[Row], lanes: Sequence[str]) -> str:
    head = ["sha", "subject", "files", *(f"{lane}" for lane in lanes), "gate s", "plain s", "ratio", "plain exit", "reasons name the diff"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.sha, r.subject.replace("|", "/"), str(r.files)]
        for lane in lanes:
            g = r.gates.get(lane)
            cells.append("-" if g is None else f"{VERDICTS.get(g.exit_code, g.exit_code)} ({g.exit_code})"
                         + (f": {', '.join(sorted(set(c for c in g.codes if c not in INFO)))}" if g.exit_code else ""))
        first = r.gates.get(lanes[0])
        cells += [f"{first.seconds:.0f}" if first else "-", f"{r.plain_seconds:.0f}" if r.plain_seconds else "-",
                  f"{first.seconds / r.plain_seconds:.2f}x" if first and r.plain_seconds else "-",
                  "-" if r.plain_exit is None else str(r.plain_exit) + (
                      "" if not r.plain_exit else " (env only)" if r.plain_failed == [] else
                      f" ({len(r.plain_failed)} failed)" if r.plain_failed else " (error)"),
                  r.note or ("-" if r.own is None else ("own" if r.own else "READ"))]
        out.append("| " + " | ".join(cells) + " |")
    codes: Dict[str, int] = {}
    for r in rows:
        for g in r.gates.values():
            for c in set(g.codes):
                codes[c] = codes.get(c, 0) + 1
    ratios = [r.gates[lanes[0]].seconds / r.plain_seconds for r in rows if lanes[0] in r.gates and r.plain_seconds]
    passing = [r for r in rows if upstream_passes(r) and "human" in r.gates]
    out += ["", f"Commits: {len(rows)}; reason codes (commits x lanes): "
            + (", ".join(f"{c} {n}" for c, n in sorted(codes.items())) or "none")]
    if ratios:
        out.append(f"Gate / plain changed-dependents test, median {statistics.median(ratios):.2f}x "
                   f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x)")
    if passing:
        merged = sum(1 for r in passing if r.gates["human"].exit_code == 0)
        out.append(f"Human lane: {merged} of {len(passing)} commits whose tests pass upstream (environment-bound "
                   f"tests aside) merge")
    return "\n".join(out) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", help="a git clone of the repository (a worktree is added to it)")
    p.add_argument("--adopt", help="the commit to adopt at")
    p.add_argument("--until", default="HEAD", help="replay commits after --adopt up to this ref (first parent)")
    p.add_argument("--count", type=int, default=30)
    p.add_argument("--pants", help="the Pants command to run (default: this repository's ./pants launcher)")
    p.add_argument("--overlay", action="append", default=[], help="an extra config file for this machine (repeatable)")
    p.add_argument("--exclude-glob", action="append", default=[], help="environment-bound test files (README step 3)")
    p.add_argument("--lanes", default="agent,human")
    p.add_argument("--timeout", type=int, default=3600, help="seconds per Pants run")
    p.add_argument("--workdir")
    p.add_argument("--out", help="write the Markdown table here too")
    p.add_argument("--resume", action="store_true", help="continue an earlier run in the same --workdir")
    p.add_argument("--render-only", action="store_true", help="print the table of an earlier run in --workdir")
    args = p.parse_args(argv)
    if args.render_only:
        return render_only(args)
    if not args.repo or not args.adopt:
        p.error("--repo and --adopt are required (except with --render-only)")
    args.lanes = [lane for lane in args.lanes.split(",") if lane]
    replay = Replay(args)
    todo = replay.commits()
    rows: List[Row] = []
    done_file = replay.work / "rows.jsonl"
    if args.resume and replay.adopted():  # the adopted worktree of an earlier run, and its rows
        rows = load_rows(replay.work, args.exclude_glob) if done_file.exists() else []
        done = {r.sha for r in rows}
        todo = [sha for sha in todo if sha[:10] not in done]
        replay.git("cherry-pick", "--abort", check=False)
        replay.git("reset", "-q", "--hard", check=False)
        if todo and replay.git("log", "-1", "--format=%s") == replay.git("log", "-1", "--format=%s", todo[0]):
            replay.git("reset", "-q", "--hard", "HEAD^")  # picked by the interrupted run, never gated
        print(f"replay: resuming after {len(rows)} commit(s)", flush=True)
    else:
        done_file.unlink(missing_ok=True) if done_file.exists() else None
        replay.adopt()
    for sha in todo:
        row = replay.replay_one(sha)
        rows.append(row)
        print(render([row], args.lanes).splitlines()[2], flush=True)
        if args.out:  # after every commit: a long replay that is stopped keeps what it measured
            Path(args.out).write_text(render(rows, args.lanes))
        with (replay.work / "rows.jsonl").open("a") as f:
            f.write(json.dumps(dataclasses.asdict(row)) + "\n")
    print(render(rows, args.lanes))
    return 0


def load_rows(work: Path, exclude_globs: Sequence[str]) -> List[Row]:
    rows = []
    for raw in (work / "rows.jsonl").read_text().splitlines():
        r = json.loads(raw)
        row = Row(**{**r, "gates": {k: Gate(**g) for k, g in r["gates"].items()}})
        log = work / "logs" / f"{row.sha}-plain.log"
        if row.plain_failed is None and row.plain_exit and log.exists():  # rows written before the field
            row.plain_failed = plain_failures(row.plain_exit, log.read_text(), exclude_globs)
        rows.append(row)
    return rows


def render_only(args: argparse.Namespace) -> int:
    if not args.workdir or not (Path(args.workdir) / "rows.jsonl").exists():
        print("replay: --render-only needs the --workdir of an earlier run (it reads rows.jsonl)", file=sys.stderr)
        return 2
    lanes = [lane for lane in args.lanes.split(",") if lane]
    text = render(load_rows(Path(args.workdir), args.exclude_glob), lanes)
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
