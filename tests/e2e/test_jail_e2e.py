"""Every test process of the gate runs jailed: a test the diff adds cannot write outside its sandbox
(the work tree, the machine's files a later run reads, Pants' named caches where the virtualenvs a
later run reuses live, even after trying to remount them writable), reach the network, or leave a
process behind.

A test that writes to `/tmp` by name still passes in the jail (its `/tmp` is private: the machine's,
copy-on-write).
The same patch is gated twice: with `--no-oracle-gate-jail` every escape works (which shows the
test would escape); by default none does, and the report says what was blocked. A daemon is looked
for among the machine's processes.
"""
from __future__ import annotations

import os
import socket
import threading
import uuid
from pathlib import Path

from e2e.harness import new_repo

ESCAPE = '''\
import ctypes
import os
import socket
import subprocess
import time


def _parent(pid):
    try:
        with open("/proc/" + pid + "/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def test_escape():
    # Root in the jail tries to make the named caches writable again (MS_REMOUNT | MS_BIND).
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount(None, {named!r}.encode(), None, ctypes.c_ulong(32 | 4096), None)
    # A test that writes to /tmp by name keeps working in the jail (a private /tmp of its own).
    with open({scratch!r}, "w") as f:
        f.write("scratch")
    with open({scratch!r}) as f:
        assert f.read() == "scratch"
    for path in {outside!r}:
        try:
            with open(path, "w") as f:
                f.write("forged")
        except OSError:
            pass
    for address in (("127.0.0.1", {port}), ("192.0.2.1", 9)):  # the machine's loopback; TEST-NET-1
        try:
            socket.create_connection(address, timeout=3).close()
        except OSError:
            pass
    daemon = subprocess.Popen(["sh", "-c", "sleep 300; echo $0", {marker!r}], start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(400):  # until the shell has started its sleep: two processes outlive the test
        if any(_parent(pid) == daemon.pid for pid in os.listdir("/proc") if pid.isdigit()):
            break
        time.sleep(0.05)
'''


def _kill_processes_naming(word: str) -> bool:
    """Whether a process on the machine has `word` in its command line (killed if so)."""
    found = False
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                named = word.encode() in f.read()
            if named:
                found = True
                os.kill(int(pid), 9)
        except OSError:
            continue
    return found


class Listener:
    """A TCP server on the machine's loopback that counts connections."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.done = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.done:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self.done = True
        self.thread.join()
        self.sock.close()


def test_a_test_the_diff_adds_cannot_write_outside_reach_the_network_or_outlive_the_run(tmp_path: Path):
    repo = new_repo(tmp_path)
    named = tmp_path / "named-caches"
    named.mkdir()
    env = {"PANTS_NAMED_CACHES_DIR": str(named)}
    listener = Listener()
    try:
        runs = {}
        for jail in (False, True):
            nonce = uuid.uuid4().hex[:8]
            outside = [str(repo.path(f"src/billing/forged_{nonce}.py")), str(tmp_path / f"forged_{nonce}.txt"),
                       str(named / f"poisoned_{nonce}")]
            marker = f"oracle-gate-jail-daemon-{nonce}"
            scratch = f"/tmp/oracle-gate-jail-scratch-{nonce}"
            repo.branch(f"escape-{jail}")
            repo.write("tests/test_escape.py", ESCAPE.format(outside=outside, port=listener.port, marker=marker,
                                                             scratch=scratch, named=str(named)))
            repo.commit("a test that escapes")
            before = listener.connections
            run = repo.gate("--oracle-gate-run-all", *([] if jail else ["--no-oracle-gate-jail"]), env=env)
            ran = [o for o in run.report["oracles"] if o["address"] == "tests/test_escape.py"]
            assert ran and ran[0]["outcome"] not in ("not_run", "fail"), (run.output, ran)
            runs[jail] = {
                "written": [p for p in outside if Path(p).exists()],
                "connections": listener.connections - before,
                "daemon": _kill_processes_naming(marker),
                "scratch left": Path(scratch).exists(),
                "notes": [r for r in run.reasons if r.startswith("NOTE")],
            }
            Path(scratch).unlink(missing_ok=True)
            repo.reset_to_main()
    finally:
        listener.close()
    unjailed, jailed = runs[False], runs[True]
    # Without the jail every escape works...
    assert len(unjailed["written"]) == 3 and unjailed["connections"] >= 1 and unjailed["daemon"], unjailed
    assert unjailed["scratch left"], unjailed
    assert unjailed["notes"] == ["NOTE the tests of tests/test_escape.py tried to reach 192.0.2.1:9: "
                                 "not blocked (the jail is off: --no-oracle-gate-jail)"], unjailed
    # ... and with it (the default) none does (the test still passed: its /tmp was its own), and the
    # report says what the jail blocked: the connection beyond loopback, the processes left running
    # (the daemon's shell and its sleep).
    # (2 where the shell had forked its sleep when the run ended, 1 where the sleep had replaced the
    # shell or not yet started: the scheduler's, on a loaded machine)
    notes = jailed.pop("notes")
    assert jailed == {"written": [], "connections": 0, "daemon": False, "scratch left": False}, jailed
    stopped = [n for n in ("1", "2") if notes[:1] == [
        f"NOTE the jail stopped {n} process(es) the tests of tests/test_escape.py left running when they "
        "ended (nothing a test starts outlives its run)"]]
    assert stopped and notes[1:] == ["NOTE the tests of tests/test_escape.py tried to reach 192.0.2.1:9: blocked "
                                     "(a jailed run reaches only its own loopback)"], notes
