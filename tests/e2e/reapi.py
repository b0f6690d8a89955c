"""A real Remote Execution API server for end-to-end tests: BuildGrid on 127.0.0.1.

`build-support/ci/install-buildgrid.sh` installs BuildGrid from PyPI into a cached virtualenv; the
fixture runs it first (a finished install is reused in about a second), so `pants test ::` needs no
step before it on a fresh machine. It then starts `bgd server start` with a CAS, a ByteStream and an
LRU action cache on a free loopback port and a temporary disk store, waits until it accepts
connections, and always stops and reaps it, also when the test fails. If BuildGrid cannot be
installed the fixture fails (never skips) with the installer's own message.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List

import pytest

INSTANCE = "oracle-gate"
INSTALLER = Path(__file__).resolve().parents[2] / "build-support" / "ci" / "install-buildgrid.sh"

CONFIG = """\
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
storages:
  - !disk-storage &store
    path: {storage}
caches:
  - !lru-action-cache &cache
    storage: *store
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: {instance}
    services:
      - !action-cache
        cache: *cache
      - !cas
        storage: *store
      - !bytestream
        storage: *store
"""


def buildgrid_dir() -> Path:
    explicit = os.environ.get("ORACLE_GATE_BUILDGRID_DIR")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "oracle-gate-buildgrid"


def find_bgd() -> Path:
    """BuildGrid's `bgd`, installed by the repository's own installer when it is not there yet."""
    bgd = buildgrid_dir() / "bgd"
    proc = subprocess.run(["bash", str(INSTALLER)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=1200, env={**os.environ, "ORACLE_GATE_BUILDGRID_DIR": str(buildgrid_dir())})
    if proc.returncode != 0 or not (bgd.exists() and os.access(bgd, os.X_OK)):
        pytest.fail(f"BuildGrid could not be installed by {INSTALLER.name} (exit {proc.returncode}):\n{proc.stdout}",
                    pytrace=False)
    return bgd


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class ReapiServer:
    port: int
    log: Path
    instance: str = INSTANCE

    @property
    def address(self) -> str:
        return f"grpc://127.0.0.1:{self.port}"

    def pants_args(self, read: bool = True, write: bool = True) -> List[str]:
        """Pants 2.17 flags for a shared remote cache on this server."""
        return [
            f"--remote-store-address={self.address}",
            f"--remote-instance-name={self.instance}",
            f"--{'' if read else 'no-'}remote-cache-read",
            f"--{'' if write else 'no-'}remote-cache-write",
        ]

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the server's own process group, SIGKILL after 15 s, then reap."""
    if proc.poll() is None:
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
    proc.wait(timeout=10)


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def reapi_server(workdir: Path, timeout: float = 90) -> Iterator[ReapiServer]:
    bgd = find_bgd()
    workdir.mkdir(parents=True, exist_ok=True)
    last_error = ""
    for _attempt in range(3):  # a free port can be taken between choosing and binding it
        port = free_port()
        storage = workdir / f"cas-{port}"
        storage.mkdir()
        config = workdir / f"buildgrid-{port}.yml"
        config.write_text(CONFIG.format(port=port, storage=storage, instance=INSTANCE))
        server = ReapiServer(port=port, log=workdir / f"buildgrid-{port}.log")
        with server.log.open("wb") as log:
            proc = subprocess.Popen([str(bgd), "server", "start", str(config)], stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while proc.poll() is None and time.monotonic() < deadline and not _accepts(port):
                time.sleep(0.2)
            if proc.poll() is None and _accepts(port):
                yield server
                return
            last_error = (f"BuildGrid exited with {proc.returncode}" if proc.poll() is not None
                          else f"BuildGrid did not accept connections on 127.0.0.1:{port} within {timeout:.0f}s")
            last_error += f"; its log ({server.log}):\n{server.log_tail()}"
        finally:
            _stop(proc)
    pytest.fail(last_error, pytrace=False)


@pytest.fixture
def reapi(tmp_path: Path) -> Iterator[ReapiServer]:
    """A BuildGrid server for one test, stopped and reaped afterwards whatever the outcome."""
    with reapi_server(tmp_path / "reapi") as server:
        yield server
