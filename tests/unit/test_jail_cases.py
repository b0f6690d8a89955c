"""The jail's wrapper where namespaces are unavailable: the command runs unjailed and the status says
why, or, when the jail is required, nothing runs. (The jail itself: tests/e2e/test_jail_e2e.py.)"""
import json
import os
import shutil
import sys
import tempfile

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


def test_the_private_tmp_shows_the_machines_entries_and_keeps_every_write(tmp_path):
    # What lives under /tmp outside the sandbox (here: a home directory holding an interpreter, as
    # a CI job with HOME=$(mktemp -d) has) stays readable in the jail; writes to it, and new names,
    # land in the jail's own copy and vanish with it.
    import subprocess
    from pathlib import Path

    home, box = Path(tempfile.mkdtemp(prefix="oracle-gate-home-", dir="/tmp")), tmp_path / "box"
    box.mkdir()
    (home / "tool").write_text("host\n")
    script = (f"cat {home}/tool > seen; echo jail >> {home}/tool; cat {home}/tool > after; "
              f"mkdir /tmp/oracle-gate-jail-case-{os.getpid()} && echo made > made")
    try:
        proc = subprocess.run([sys.executable, jail.__file__, "status.json", "1", "--", "sh", "-c", script],
                              cwd=box, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        host_after = (home / "tool").read_text()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    status = json.loads((box / "status.json").read_text())
    assert (proc.returncode, status["jailed"]) == (0, True), (proc.stdout, status)
    assert (box / "seen").read_text() == "host\n"  # the machine's file, seen
    assert (box / "after").read_text() == "host\njail\n"  # writable inside
    assert (box / "made").read_text() == "made\n"
    assert host_after == "host\n"  # the machine's copy untouched
    assert not os.path.exists(f"/tmp/oracle-gate-jail-case-{os.getpid()}")  # nothing outlives the jail


def test_the_jail_stops_and_counts_what_the_command_leaves_running(tmp_path):
    # Two processes still running when the command ends (one of them in a session of its own, as a
    # daemon starts itself) are killed, and counted; one that exited before the end is not.
    import subprocess

    script = "true & wait; sleep 300 & setsid sleep 301 & exit 0"
    started = os.times().elapsed
    proc = subprocess.run([sys.executable, jail.__file__, "status.json", "1", "--", "sh", "-c", script],
                          cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    status = json.loads((tmp_path / "status.json").read_text())
    assert (proc.returncode, status) == (0, {"jailed": True, "why": "", "stopped": 2}), proc.stdout
    assert os.times().elapsed - started < 60  # it did not wait for them


def test_a_command_that_leaves_nothing_running_stops_nothing(tmp_path):
    import subprocess

    proc = subprocess.run([sys.executable, jail.__file__, "status.json", "1", "--", "sh", "-c", "true & wait"],
                          cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert (proc.returncode, json.loads((tmp_path / "status.json").read_text())) == (
        0, {"jailed": True, "why": "", "stopped": 0}), proc.stdout


def test_caches_a_command_cannot_have_sealed_are_its_own_copy_on_write(tmp_path):
    # A command that is no pex venv shim: the caches cannot be warmed and sealed first, so it gets
    # a private copy of them: it reads what is there, writes (a poisoned virtualenv) land in the
    # copy and never reach the machine's caches. (Before: they stayed writable.)
    import subprocess

    cache, box = tmp_path / "named_caches", tmp_path / "box"
    (cache / "venvs").mkdir(parents=True)
    (cache / "venvs" / "python").write_text("the real one\n")
    box.mkdir()
    script = (f"cat {cache}/venvs/python > seen && echo poisoned > {cache}/venvs/python && "
              f"echo new > {cache}/planted && cat {cache}/venvs/python > after")
    proc = subprocess.run([sys.executable, jail.__file__, "status.json", "1", str(cache), "--", "sh", "-c", script],
                          cwd=box, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert (proc.returncode, json.loads((box / "status.json").read_text())["jailed"]) == (0, True), proc.stdout
    assert (box / "seen").read_text() == "the real one\n" and (box / "after").read_text() == "poisoned\n"
    assert (cache / "venvs" / "python").read_text() == "the real one\n"
    assert sorted(p.name for p in cache.iterdir()) == ["venvs"]
