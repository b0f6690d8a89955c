"""The pytest plugin Pants injects into every test sandbox.

It records each test's outcome and failure signature in a results file (the only evidence the
gate trusts), applies the freeze ledgers that govern the test, turns unlisted skips into failures,
and enforces `min_examples` on property oracles. It imports the policy core relatively: the sandbox
copy (`_oracle_gate_sandbox/{core,sandbox}`) mirrors this package, so both judge with the same code.
"""
from __future__ import annotations

import datetime
import functools
import glob
import json
import os
from typing import Any, Dict, List, Optional

import pytest  # pants: no-infer-dep

from ..core.ledger import FreezeEntry, LedgerError, merge_entries, parse_ledger
from ..core.signature import Frame, failure_signature, normalize_name, parameter_shape

RESULTS_DIR = os.path.join("extra-output", "oracle-gate")
CONFIG_GLOB = os.path.join(".oracle-gate", "config", "*.json")


def _load_configs() -> Dict[str, Dict[str, Any]]:
    configs = {}
    for path in sorted(glob.glob(CONFIG_GLOB)):
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        configs[config["source"]] = config
    return configs


class OracleGatePlugin:
    def __init__(self, rootdir: str) -> None:
        self.rootdir = rootdir
        self.configs = _load_configs()
        self.cases: Dict[str, Dict[str, Any]] = {}
        self.examples: Dict[str, int] = {}
        self.current: Optional[str] = None
        self.errors: List[str] = []
        self.freezes: Dict[str, Dict[str, FreezeEntry]] = {}
        self.today: Dict[str, datetime.date] = {}
        for source, config in self.configs.items():
            ledgers = []
            for ledger in config.get("ledgers", []):
                try:
                    ledgers.append(parse_ledger(ledger["text"], ledger["path"]))
                except LedgerError as e:
                    self.errors.append(str(e))
            self.freezes[source] = merge_entries(ledgers)
            self.today[source] = datetime.date.fromisoformat(config.get("today") or datetime.date.today().isoformat())

    # -- collection ------------------------------------------------------------------------
    def _source(self, item: pytest.Item) -> str:
        return item.nodeid.split("::", 1)[0]

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: List[pytest.Item]) -> None:
        for item in items:
            hypothesis_handle = getattr(getattr(item, "obj", None), "hypothesis", None)
            inner = getattr(hypothesis_handle, "inner_test", None)
            if inner is None or getattr(inner, "_oracle_gate_counted", False):
                continue

            @functools.wraps(inner)
            def counted(*args: Any, __inner: Any = inner, **kwargs: Any) -> Any:
                if self.current is not None:
                    self.examples[self.current] = self.examples.get(self.current, 0) + 1
                return __inner(*args, **kwargs)

            counted._oracle_gate_counted = True  # type: ignore[attr-defined]
            hypothesis_handle.inner_test = counted

    def pytest_deselected(self, items: List[pytest.Item]) -> None:
        for item in items:
            self._record(item.nodeid, "unlisted_skip", None, "UNLISTED_SKIP deselected by configuration or a hook")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        self.current = item.nodeid
        try:
            yield
        finally:
            self.current = None

    # -- outcomes --------------------------------------------------------------------------
    def _record(
        self, nodeid: str, outcome: str, signature: Optional[str], detail: str, exception: Optional[str] = None
    ) -> None:
        previous = self.cases.get(nodeid)
        # A later phase can only make an outcome worse: a failure never turns into a pass or a freeze.
        if previous is not None and previous["outcome"] != "passed" and outcome in ("passed", "frozen"):
            return
        self.cases[nodeid] = {
            "nodeid": nodeid, "outcome": outcome, "signature": signature, "detail": detail, "exception": exception,
        }

    def _signature(self, item: pytest.Item, exception: str, excinfo: Any) -> str:
        frames = []
        if excinfo is not None:
            # From the test's own frame inward, as pytest shows it: runner frames are not the failure.
            traceback = excinfo.traceback.cut(path=item.path).filter()
            for entry in traceback:
                path = str(entry.path)
                if os.path.isabs(path):
                    path = os.path.relpath(path, self.rootdir)
                frames.append(Frame(path=path, function=entry.name))
        params = getattr(getattr(item, "callspec", None), "params", {}) or {}
        return failure_signature(item.nodeid, exception, frames, parameter_shape(params))

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any):
        outcome = yield
        rep = outcome.get_result()
        source = self._source(item)
        freezes = self.freezes.get(source, {})
        today = self.today.get(source, datetime.date.today())
        if rep.skipped:
            kind = "xfail" if hasattr(rep, "wasxfail") else "skip"
            sig = self._signature(item, kind, None)
            entry = freezes.get(sig)
            if entry is not None and not entry.expired(today):
                self._record(item.nodeid, "frozen", sig, f"FROZEN {kind} signature={sig} until {entry.expires}")
                return
            code = "freeze_expired" if entry is not None else "unlisted_skip"
            detail = (f"FREEZE_EXPIRED signature={sig} expired {entry.expires} owner={entry.owner}"
                      if entry is not None else
                      f"UNLISTED_SKIP {kind} signature={sig} is in no freeze ledger")
            self._fail(rep, detail)
            self._record(item.nodeid, code, sig, detail, kind)
            return
        if rep.failed:
            exc = call.excinfo.typename if call.excinfo is not None else "Failed"
            sig = self._signature(item, exc, call.excinfo)
            entry = freezes.get(sig)
            if entry is not None and not entry.expired(today):
                rep.outcome = "skipped"
                rep.longrepr = (str(item.fspath), 0, f"FROZEN signature={sig} until {entry.expires}: {entry.reason}")
                self._record(item.nodeid, "frozen", sig, f"FROZEN signature={sig} until {entry.expires}", exc)
                return
            if entry is not None:
                detail = f"FREEZE_EXPIRED signature={sig} expired {entry.expires} owner={entry.owner}"
                self._record(item.nodeid, "freeze_expired", sig, detail, exc)
                return
            self._record(item.nodeid, "failed", sig, f"{exc} signature={sig}", exc)
            return
        if rep.when == "call":
            minimum = int(self.configs.get(source, {}).get("min_examples") or 0)
            ran = self.examples.get(item.nodeid)
            if minimum and ran is not None and ran < minimum:
                detail = f"MIN_EXAMPLES ran {ran} example(s), min_examples={minimum}"
                self._fail(rep, detail)
                self._record(item.nodeid, "min_examples", None, detail)
                return
            listed = next((e for e in freezes.values()
                           if e.test == normalize_name(item.nodeid) and not e.expired(today)), None)
            if listed is not None:
                # A frozen test never counts as a pass, even on a run where its flake stayed away.
                self._record(item.nodeid, "frozen", listed.signature,
                             f"FROZEN passed, but {listed.test} is frozen until {listed.expires}: it does not vote")
                return
            self._record(item.nodeid, "passed", None, "")

    @staticmethod
    def _fail(rep: Any, detail: str) -> None:
        rep.outcome = "failed"
        rep.longrepr = detail
        if hasattr(rep, "wasxfail"):
            del rep.wasxfail

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        if self.errors:
            session.exitstatus = 1
        os.makedirs(RESULTS_DIR, exist_ok=True)
        payload = {
            "version": 1,
            "complete": True,
            "exitstatus": int(exitstatus),
            "errors": self.errors,
            "cases": [self.cases[k] for k in sorted(self.cases)],
            "examples": self.examples,
        }
        with open(os.path.join(RESULTS_DIR, "results.json"), "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=1, sort_keys=True)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for error in self.errors:
            terminalreporter.write_line(f"oracle-gate: {error}", red=True)


def pytest_configure(config: Any) -> None:
    plugin = OracleGatePlugin(str(config.rootpath))
    config.pluginmanager.register(plugin, "oracle-gate-recorder")
    _hermetic_hypothesis(plugin)


def _hermetic_hypothesis(plugin: OracleGatePlugin) -> None:
    """Derandomised, database-free Hypothesis, so a cached result is the result a rerun would give."""
    try:
        from hypothesis import settings  # pants: no-infer-dep (optional in the sandbox)
    except ImportError:
        return
    minimum = max([int(c.get("min_examples") or 0) for c in plugin.configs.values()] + [100])
    settings.register_profile("oracle-gate", derandomize=True, database=None, max_examples=minimum, deadline=None)
    settings.load_profile("oracle-gate")
