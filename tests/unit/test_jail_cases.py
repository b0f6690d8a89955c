"""The jail's wrapper where namespaces are unavailable: the command runs unjailed and the status says
why, or, when the jail is required, nothing runs. (The jail itself: tests/e2e/test_jail_e2e.py.)"""
import json
import sys

from oracle_gate.sandbox import jail

RUN = ["--", sys.executable, "-c", "open('ran', 'w').write('x'); raise SystemExit(3)"]


def no_namespaces(_writable):
    raise OSError(1, "unshare: Operation not permitted")


def test_without_namespaces_the_command_runs_unjailed_and_the_status_says_why(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(jail, "enter", no_namespaces)
    assert jail.main(["out/status.json", "0", *RUN]) == 3
    assert (tmp_path / "ran").exists()
    assert json.loads((tmp_path / "out" / "status.json").read_text()) == {
        "jailed": False, "why": "[Errno 1] unshare: Operation not permitted"}


def test_a_required_jail_without_namespaces_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(jail, "enter", no_namespaces)
    assert jail.main(["out/status.json", "1", *RUN]) == jail.EXIT_REFUSED
    assert not (tmp_path / "ran").exists()
    assert json.loads((tmp_path / "out" / "status.json").read_text())["jailed"] is False
