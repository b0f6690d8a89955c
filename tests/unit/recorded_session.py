"""One real pytest session with the sandbox recorder, as a Pants sandbox runs it (the recorder loaded
with `-p`, no other plugin autoloaded), in a directory of the case's own files."""
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional


def run_session(root: Path, test_file: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Run `test_file` under `root` with the recorder, whatever its end."""
    full = {**os.environ, **(env or {}), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            # (Pants puts the source roots on sys.path relative to the sandbox; the session runs elsewhere)
            "PYTHONPATH": os.pathsep.join([str(root), *(os.path.abspath(p) for p in sys.path if p)])}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "oracle_gate.sandbox.plugin", "-p",
                           "no:cacheprovider", test_file], cwd=root, env=full, capture_output=True, text=True,
                          timeout=600)


def run_recorded(root: Path, test_file: str, env: Optional[Dict[str, str]] = None) -> Path:
    """Run `test_file` under `root` (which must pass); the session's extra-output directory."""
    proc = run_session(root, test_file, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root / "extra-output"
