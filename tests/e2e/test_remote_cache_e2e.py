"""A shared remote cache on a real REAPI server: one CI machine runs the oracles, the next reuses them.

Two clones of the billing example hold the same fresh bytes (a nonce in every test file, so
nothing is in any cache yet: Pants' cache is content-addressed across repositories; each test file
also appends a line to a log outside the sandbox whenever it executes, so both gates here run
unjailed: the jail would keep that line from being written; test_jail_e2e.py tests the jail). Clone 1
gates with remote cache reads and writes against a real BuildGrid server on 127.0.0.1; clone 2
gates with an empty local store and the local cache off, reading the remote cache only. Every
oracle of clone 2 is a remote hit, none ran, and the verdict is the same.
"""
from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

from e2e.harness import EXAMPLE, GateRun, Repo, check_report_schema, new_repo
from e2e.reapi import ReapiServer, reapi  # noqa: F401  (the fixture)


PROBE = """

# remote-cache probe {nonce}: every execution of this file leaves a line outside the sandbox.
with open({log!r}, "a") as _probe:
    _probe.write({rel!r} + "\\n")
"""


def fresh_test_files(nonce: str, log: Path) -> dict:
    """Every test file of the example, with bytes no earlier run has seen and a record of each execution."""
    files = {}
    for path in sorted(EXAMPLE.glob("**/test_*.py")):
        rel = str(path.relative_to(EXAMPLE))
        files[rel] = path.read_text() + PROBE.format(nonce=nonce, log=str(log), rel=rel)
    assert len(files) >= 8, files
    # Fresh production bytes too, so the replays and probes (which feed them) are new processes.
    for path in sorted(EXAMPLE.glob("src/**/*.py")):
        files[str(path.relative_to(EXAMPLE))] = path.read_text() + f"\n# remote-cache nonce {nonce}\n"
    return files


def python_oracles(report: dict) -> set:
    """The oracles that are test files (they log each execution; replays and probes are data)."""
    return {o["address"] for o in report["oracles"] if o["address"].endswith(".py") and o["source"]}


def executions(log: Path) -> list:
    return sorted(log.read_text().splitlines()) if log.exists() else []


def gate(repo: Repo, named: Path, *global_flags: str) -> GateRun:
    """`Repo.gate`, with global flags before the goal (where Pants wants them)."""
    report = repo.path("dist/oracle-gate.json")
    if report.exists():
        report.unlink()
    run = repo.pants(*global_flags, "oracle-gate", "--oracle-gate-base=main", "--no-oracle-gate-jail",
                     f"--oracle-gate-report={report}", "::",
                     env={"PANTS_NAMED_CACHES_DIR": str(named)})
    data = json.loads(report.read_text()) if report.exists() else None
    if data is not None:
        check_report_schema(data)
    return GateRun(run.exit_code, run.stdout, run.stderr, data)


def counters(stderr: str) -> dict:
    """Pants' `--stats-log` counters, e.g. {'remote_cache_requests_cached': 12, ...}."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(\w+): (\d+)$", stderr, re.M)}


def test_a_second_clone_with_an_empty_local_cache_reuses_every_oracle_from_the_remote_cache(
        tmp_path: Path, reapi: ReapiServer):  # noqa: F811
    named = tmp_path / "named-caches"  # both clones on one machine share them, as CI machines' paths agree
    named.mkdir()
    log = named / "executions.txt"
    files = fresh_test_files(uuid.uuid4().hex, log)
    one = new_repo(tmp_path / "one", files)
    two = new_repo(tmp_path / "two", files)

    first = gate(one, named, *reapi.pants_args(read=True, write=True))
    assert first.report is not None, first.output
    assert first.report["oracles"], first.report
    assert {o["source"] for o in first.report["oracles"]} == {"ran"}, first.report["oracles"]
    ran_first = executions(log)
    assert set(ran_first) == python_oracles(first.report), ran_first

    second = gate(two, named, *reapi.pants_args(read=True, write=False), "--no-local-cache",
                      f"--local-store-dir={tmp_path / 'empty-store'}", "--stats-log")
    assert second.report is not None, second.output + "\n" + reapi.log_tail()
    sources = {o["address"]: o["source"] for o in second.report["oracles"]}
    assert set(sources.values()) == {"hit_remotely"}, sources
    assert sources.keys() == {o["address"] for o in first.report["oracles"]}
    assert executions(log) == ran_first, "a test file executed in the second clone"
    # Pants' own counters agree: nothing came from a local cache, and the remote cache served hits.
    stats = counters(second.stderr)
    assert stats.get("local_cache_requests", 0) == 0, stats
    assert stats.get("remote_cache_requests_cached", 0) >= len(sources), stats

    assert (second.exit_code, second.report["verdict"]) == (first.exit_code, first.report["verdict"])
    assert second.reasons == first.reasons
    for key in ("mode", "regions", "ranks"):
        assert second.report[key] == first.report[key], key
    assert [(o["address"], o["outcome"], o["voted"], o["tests"]) for o in second.report["oracles"]] == \
        [(o["address"], o["outcome"], o["voted"], o["tests"]) for o in first.report["oracles"]]
