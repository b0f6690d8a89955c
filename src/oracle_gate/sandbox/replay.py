"""Replay and probe items for pytest: rank R1 (recorded traces) and rank R3 (must-fail probes).

A test type like any other: the recorder records their outcomes, the gate judges. Only files the
setup hook lists as `oracle_replay` or `oracle_probes` targets are collected. A replay line feeds
its input to the entry point and compares the output as canonical JSON (never through `__eq__`,
which production code controls). A probe passes while the entry point still rejects its input:
raises the named exception (or a subclass), or returns the named status value.

With ORACLE_GATE_RECORD=1 (`pants oracle-record`), replay items write what the current code
returns to extra-output/oracle-gate/recorded/ instead of comparing, and pass.
"""
from __future__ import annotations

import builtins
import glob
import importlib
import json
import os
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest  # pants: no-infer-dep

from ..core.protocol.cleanroom import canonical

CONFIG_GLOB = os.path.join(".oracle-gate", "config", "*.json")
RECORD_DIR = os.path.join("extra-output", "oracle-gate", "recorded")
PYTEST_7 = int(pytest.__version__.split(".")[0]) >= 7


def _configs(root: str) -> Dict[str, Dict[str, Any]]:
    out = {}
    for path in sorted(glob.glob(os.path.join(root, CONFIG_GLOB))):
        try:
            with open(path, encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(config, dict) and config.get("kind") in ("replay", "probes"):
            out[config["source"]] = config
    return out


def _entry(entry_point: str) -> Any:
    module_name, _, attr = entry_point.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _call(fn: Any, spec: Dict[str, Any]) -> Any:
    args = spec.get("input", [])
    if not isinstance(args, list):
        args = [args]
    return fn(*args, **(spec.get("kwargs") or {}))


def _exception_class(name: Any) -> Optional[type]:
    """The exception class a probe names, by identity: a builtin (`ValueError`) or an importable
    `module.Class`. A class the code under test defines with the same bare name never matches."""
    if not isinstance(name, str) or not name:
        return None
    if "." not in name:
        found = getattr(builtins, name, None)
    else:
        module, _, attr = name.rpartition(".")
        try:
            found = getattr(importlib.import_module(module), attr, None)
        except ImportError:
            found = None
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


class OracleGateItem(pytest.Item):
    def __init__(self, *, spec: Dict[str, Any], entry_point: str, lineno: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.entry_point = entry_point
        self.lineno = lineno

    def reportinfo(self) -> Tuple[Any, int, str]:
        return getattr(self, "path", None) or self.fspath, self.lineno, self.name


class ReplayItem(OracleGateItem):
    def runtest(self) -> None:
        actual = canonical(_call(_entry(self.entry_point), self.spec))
        if os.environ.get("ORACLE_GATE_RECORD") == "1":
            os.makedirs(RECORD_DIR, exist_ok=True)
            with open(os.path.join(RECORD_DIR, "recorded.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps({"source": self.nodeid.split("::", 1)[0], "line": self.lineno,
                                    "input": self.spec.get("input", []), "kwargs": self.spec.get("kwargs"),
                                    "output": json.loads(actual)}, sort_keys=True) + "\n")
            return
        expected = canonical(self.spec.get("output"))
        if actual != expected:
            raise AssertionError(f"replay mismatch for input {json.dumps(self.spec.get('input'))[:300]}: "
                                 f"recorded {expected[:400]}, now {actual[:400]}")


class ProbeNumb(AssertionError):
    """The entry point accepted an input it must reject."""


class ProbeItem(OracleGateItem):
    def runtest(self) -> None:
        expect = self.spec.get("expect") or {}
        try:
            result = _call(_entry(self.entry_point), self.spec)
        except Exception as e:  # a rejection by exception is the probe passing
            wanted = _exception_class(expect.get("raises"))
            if wanted is not None and isinstance(e, wanted):
                return
            raise ProbeNumb(f"probe {self.spec.get('id')}: raised {type(e).__name__}, expected "
                            f"{json.dumps(expect)}") from e
        if "returns" in expect and canonical(result) == canonical(expect["returns"]):
            return
        raise ProbeNumb(f"probe {self.spec.get('id')}: accepted, returned {canonical(result)[:300]}; "
                        f"expected {json.dumps(expect)[:300]}")


class _OracleFile(pytest.File):
    def _lines(self) -> List[Tuple[int, Dict[str, Any]]]:
        path = str(getattr(self, "path", None) or self.fspath)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return self._parse(text)

    def _parse(self, text: str) -> List[Tuple[int, Dict[str, Any]]]:
        raise NotImplementedError


class ReplayFile(_OracleFile):
    entry_point = ""

    def _parse(self, text: str) -> List[Tuple[int, Dict[str, Any]]]:
        out = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.strip():
                spec = json.loads(line)
                if not isinstance(spec, dict) or "input" not in spec:
                    raise ValueError(f"line {lineno}: a trace line is an object with `input` (and `output`)")
                out.append((lineno, spec))
        return out

    def collect(self) -> Iterator[pytest.Item]:
        for lineno, spec in self._lines():
            yield ReplayItem.from_parent(self, name=f"replay[{lineno}]", spec=spec, entry_point=self.entry_point,
                                         lineno=lineno)


class ProbesFile(_OracleFile):
    entry_point = ""

    def _parse(self, text: str) -> List[Tuple[int, Dict[str, Any]]]:
        doc = json.loads(text)
        probes = doc.get("probes") if isinstance(doc, dict) else None
        if not isinstance(probes, list):
            raise ValueError("a probe set is {\"version\": 1, \"probes\": [...]}")
        return [(i, p) for i, p in enumerate(probes) if isinstance(p, dict)]

    def collect(self) -> Iterator[pytest.Item]:
        for index, spec in self._lines():
            ident = str(spec.get("id", index))
            yield ProbeItem.from_parent(self, name=f"probe[{ident}]", spec=spec, entry_point=self.entry_point,
                                        lineno=index)


def _collector(parent: Any, fspath: Any) -> Optional[pytest.File]:
    root = str(parent.config.invocation_params.dir)
    rel = os.path.relpath(str(fspath), root).replace(os.sep, "/")
    config = _configs(root).get(rel)
    if config is None:
        return None
    cls = ReplayFile if config["kind"] == "replay" else ProbesFile
    kwargs = {"path": fspath} if PYTEST_7 else {"fspath": fspath}
    collector = cls.from_parent(parent, **kwargs)
    collector.entry_point = config.get("entry_point", "")
    return collector


if PYTEST_7:
    def pytest_collect_file(file_path: Any, parent: Any) -> Optional[pytest.File]:
        return _collector(parent, file_path)
else:  # pytest 6: py.path arguments
    def pytest_collect_file(path: Any, parent: Any) -> Optional[pytest.File]:  # type: ignore[misc]
        return _collector(parent, path)
