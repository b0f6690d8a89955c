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


def test_sealing_restates_the_flags_the_kernel_locks_for_a_caller_without_privilege(tmp_path):
    # A mount with nosuid,nodev,noexec set up in one user namespace, then seen from a nested one
    # (as a non-root CI user sees the caches): its flags are locked there, and a read-only
    # remount that does not restate them is refused, which left the caches writable.
    import os

    cache = tmp_path / "cache"
    cache.mkdir()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            uid, gid = os.geteuid(), os.getegid()
            jail._check(jail._libc.unshare(jail.CLONE_NEWUSER | jail.CLONE_NEWNS), "unshare")
            jail._map_user(0, uid, 0, gid)
            jail.mount(None, "/", None, jail.MS_REC | jail.MS_PRIVATE)
            jail.mount("tmpfs", str(cache), "tmpfs", jail.MS_NOSUID | jail.MS_NODEV | jail.MS_NOEXEC)
            jail.lock()  # a nested user namespace: the tmpfs's flags are locked now
            jail.seal([str(cache)])
            try:
                open(cache / "poison", "w").close()
                verdict = b"writable"
            except OSError as e:
                verdict = os.strerror(e.errno).encode()
        except OSError as e:
            verdict = f"no namespaces here: {e}".encode()
        os.write(write, verdict)
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    got = os.read(read, 200).decode()
    assert got == "Read-only file system", got
