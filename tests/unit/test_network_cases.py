"""Where a test process tried to reach beyond loopback, recorded in one real pytest session (known
cases): the recorder notes each destination from Python's audit events and never blocks one (the
jail does: tests/e2e/test_jail_e2e.py); loopback, this machine's name and Unix sockets are not noted."""
import socket

from oracle_gate.core.protocol import results as R
from unit.recorded_session import run_recorded

TESTS = '''\
import socket

import pytest


def _try(address, kind=socket.SOCK_STREAM, family=socket.AF_INET):
    s = socket.socket(family, kind)
    s.settimeout(0.2)
    try:
        if kind == socket.SOCK_DGRAM:
            s.sendto(b"x", address)
        else:
            s.connect(address)
    except OSError:
        pass
    finally:
        s.close()


def test_reaches_out():
    _try(("192.0.2.7", 9))  # TEST-NET-1: nothing answers
    _try(("198.51.100.3", 53), socket.SOCK_DGRAM)
    try:
        socket.getaddrinfo("oracle-gate.invalid", 443)
    except OSError:
        pass


def test_stays_home(tmp_path):
    _try(("127.0.0.1", 9))
    _try(("127.3.4.5", 9))
    _try(("localhost", 9))
    _try((socket.gethostname(), 9))
    if hasattr(socket, "AF_UNIX"):
        _try(str(tmp_path / "no-such-socket"), family=socket.AF_UNIX)
'''


def test_the_recorder_notes_every_destination_beyond_loopback(tmp_path):
    (tmp_path / "test_net.py").write_text(TESTS)
    results = R.loads((run_recorded(tmp_path, "test_net.py") / R.RESULTS_RELPATH).read_bytes())
    assert results.recorder_errors == ()
    assert socket.gethostname() not in " ".join(results.connections)
    assert results.connections == ("192.0.2.7:9", "198.51.100.3:53", "oracle-gate.invalid:443")
