"""The recorder matrix under `pants test`: the real sandbox plugin under pytest 6.2.5, 7.0.1, 7.4.3
and 8.x with Hypothesis 6.x on Python 3.9, and on Python 3.12 (its sys.monitoring path). Each entry
builds (or reuses) a venv under ~/.cache/oracle-gate-recorder-matrix and runs the suite with and
without the plugin; see build-support/recorder-matrix/matrix.py for what is checked."""
import importlib.util
import sys
import time
from pathlib import Path

import pytest

MATRIX = Path(__file__).resolve().parents[2] / "build-support" / "recorder-matrix" / "matrix.py"


def _load():
    spec = importlib.util.spec_from_file_location("recorder_matrix", MATRIX)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


matrix = _load()


@pytest.mark.parametrize("entry", matrix.ENTRIES, ids=lambda e: e.name)
def test_the_recorder_records_every_outcome_and_changes_none(entry, tmp_path):
    start = time.monotonic()
    problems = matrix.run_entry(entry, tmp_path)
    print(f"{entry.name}: {time.monotonic() - start:.1f}s")
    assert problems == []


def test_the_setup_hook_ships_every_core_module_the_recorder_imports():
    shipped = set(matrix.hook_constants()["CORE_MODULES"])
    assert set(matrix.plugin_core_modules()) <= shipped
