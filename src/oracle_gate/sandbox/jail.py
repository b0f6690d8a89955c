"""The jail every test process of the gate runs in (standard library only; shipped into the sandbox).

    python .oracle_gate_jail.py <status-file> <require:0|1> <writable-dir>... -- <argv>...

Linux namespaces, set up before the test command starts:
- mount: every mount is remounted read-only except the sandbox (the working directory), the
  directories named (Pants' named caches: pex builds the command's virtualenv there first, through
  its venv shim, and then they are read-only too; where that cannot be done the command sees
  private copy-on-write copies of them), a private `/tmp` and `/var/tmp` over the
  machine's, copy-on-write (what is there stays visible; a test that writes there by name keeps
  working; nothing it writes reaches the machine's or outlives the run), and an empty `/dev/shm`;
  TMPDIR points into the sandbox;
- user: the command runs in a user namespace of its own over all that (the same user, mapped to
  itself), so the mounts are locked: a test with every capability there cannot remount one
  writable or unmount one;
- network: a namespace of its own with only a loopback interface;
- PID: the command runs under a small init, PID 1 of a namespace of its own, so every process it
  starts dies with it (and it dies with this wrapper): nothing outlives the run. The command itself
  is an ordinary process there (signals, a self-kill, behave as outside).
As root the first namespaces need no user namespace; otherwise one maps the caller to root inside
them first.

After the command ends, this wrapper (outside the command's reach: it writes last) records in the
status file whether the command was jailed and, if not, why; if so, how many processes were still
running in the jail when the command ended (`stopped`: the init killed them). Where namespaces are
unavailable the command runs unjailed, unless <require> is 1: then it does not run at all (exit 97).
"""
import ctypes
import json
import os
import signal
import socket
import struct
import sys

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
_KEPT_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
               "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}
PR_SET_PDEATHSIG = 1
PRIVATE_TMP = ("/tmp", "/var/tmp")
EXIT_REFUSED = 97

_libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source, target, fstype, flags, data=None) -> None:
    """mount(2); raises OSError saying which mount failed."""
    enc = (lambda s: s.encode() if s is not None else None)
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def lock() -> None:
    """A user namespace of its own over the jail as it is set up (the same user, mapped to
    itself): the mounts it inherits are locked, so a read-only one stays read-only and none can be
    unmounted to show what is under it, whatever capabilities a test has in there (raises OSError
    where unavailable). Namespaces of its own inside it still work (the clean room's other world)."""
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
    _map_user(uid, uid, gid, gid)


def _map_user(uid_inside: int, uid: int, gid_inside: int, gid: int) -> None:
    """Map this process's user and group in the user namespace it just made (one ID each; no
    setgroups there)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid_inside} {uid} 1"),
                       ("gid_map", f"{gid_inside} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _warm_and_seal(command, caches) -> None:
    """Let pex build the command's virtualenv in the named caches first (its venv shim, asked for
    an interpreter that runs nothing), then remount the caches read-only: nothing the tests run can
    poison a virtualenv a later run reuses. Where that cannot be done (a command that is no venv
    shim, a virtualenv that cannot be built first, a remount refused), the caches the command sees
    are private copy-on-write copies instead: it reads what is there, and what it writes (a
    virtualenv pex builds as the command starts, or a poisoned one) vanishes with the jail."""
    shim = next((i for i, arg in enumerate(command) if arg.endswith("_pex_shim.sh")), None)
    left = list(caches)
    if shim is not None:
        import subprocess

        warm = subprocess.run([*command[:shim + 1], "-c", ""], env={**os.environ, "PEX_INTERPRETER": "1"},
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              check=False)
        if warm.returncode == 0:
            left = [path for path in caches if not seal([path])]
    for path in left:
        private_copy(path)


def seal(paths) -> bool:
    """Remount these mount points read-only, restating the flags each has (a caller without
    privilege in the initial namespace must: the kernel locks them); whether every one was (one
    that cannot be stays writable, as without this step)."""
    kept = dict(_mounts())
    sealed = True
    for path in paths:
        try:
            mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept.get(os.path.realpath(path), 0))
        except OSError:
            sealed = False
    return sealed


def private_copy(path: str) -> None:
    """A tmpfs over `path` with the machine's `path` beneath it, copy-on-write (`_copy_on_write`)."""
    host = os.open(path, os.O_PATH)
    try:
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
        _copy_on_write(path, host)
    finally:
        os.close(host)


def die_with_parent() -> None:
    """This process is killed when its parent dies (nothing it starts outlives the run)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _mounts():
    """(mount point, per-mount flags to keep) of this mount namespace, parents first."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")
            flags = 0
            for opt in fields[5].split(","):
                flags |= _KEPT_FLAGS.get(opt, 0)
            out.append((point, flags))
    return out


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _loopback_up() -> None:
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    import fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sh", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sh", b"lo", 0)))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


def unshare(flags: int) -> None:
    """unshare(2) these namespaces; a caller that is not root also gets a user namespace that maps
    it to root there (raises OSError where unavailable). The clean room's other world uses it too."""
    uid, gid = os.geteuid(), os.getegid()
    if uid != 0:
        flags |= CLONE_NEWUSER
    _check(_libc.unshare(flags), "unshare")
    if uid != 0:
        _map_user(0, uid, 0, gid)


_UPPER, _WORK = ".oracle-gate-jail-upper", ".oracle-gate-jail-work"


def _copy_on_write(tmp: str, host: int) -> None:
    """Over the private tmpfs at `tmp`, the machine's `tmp` (the directory `host` holds) beneath an
    overlay whose writes land in that tmpfs: what lives there stays visible (an interpreter, a home
    directory, caches under /tmp), and nothing written reaches it. Where the kernel refuses the
    overlay the tmpfs stays empty."""
    top = os.open(tmp, os.O_PATH)
    try:
        for name in (_UPPER, _WORK):
            os.mkdir(os.path.join(tmp, name))
        options = (f"lowerdir=/proc/self/fd/{host},upperdir=/proc/self/fd/{top}/{_UPPER},"
                   f"workdir=/proc/self/fd/{top}/{_WORK}")
        for extra in ("", ",userxattr"):  # a user namespace's overlay keeps its metadata in user xattrs
            try:
                mount("overlay", tmp, "overlay", MS_NOSUID | MS_NODEV, options + extra)
                return
            except OSError:
                continue
        for name in (_WORK, _UPPER):
            os.rmdir(os.path.join(tmp, name))
    finally:
        os.close(top)


def enter(writable) -> None:
    """Enter the namespaces and lock the file system down (raises OSError where unavailable)."""
    cwd = os.path.realpath(os.getcwd())
    unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    keep = [os.path.realpath(p) for p in writable if os.path.isdir(p)]
    for path in keep:
        mount(path, path, None, MS_BIND | MS_REC)
    private = [t for t in PRIVATE_TMP if os.path.isdir(t) and not os.path.islink(t)]
    for tmp in private:
        # A /tmp of its own: a test that writes there by name keeps working, and nothing it writes
        # outlives the run or reaches the machine's. What must stay writable under it is mounted
        # back in.
        inside = [k for k in keep if _under(k, tmp)]
        handles = [os.open(k, os.O_PATH) for k in inside]
        host = os.open(tmp, os.O_PATH)
        mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
        _copy_on_write(tmp, host)
        os.close(host)
        for path, fd in zip(inside, handles):
            os.makedirs(path, exist_ok=True)
            mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            os.close(fd)
    os.chdir(cwd)  # through the writable mount now on top of it
    for point, kept in _mounts():
        if any(_under(point, k) for k in (*keep, *private, "/proc", "/dev/shm")):
            continue
        try:
            mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)
        except OSError:
            if point == "/":
                raise
    if os.path.isdir("/dev/shm"):
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV)
    _loopback_up()


def _init(command, report: int) -> int:
    """PID 1 of the jail's PID namespace: runs the command as an ordinary process (PID 1 ignores
    signals it has no handler for, even a SIGKILL it sends itself), reaps what it leaves behind, and
    returns its status. When the command ends, every process still running in the namespace is
    killed; how many there were is written to `report` (a pipe to the wrapper)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    code = 127
    while True:
        try:
            done, wait = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            break
        if done == pid:
            code = os.WEXITSTATUS(wait) if os.WIFEXITED(wait) else 128 + os.WTERMSIG(wait)
            break
    os.write(report, str(_stop_the_rest()).encode())
    return code


def _stop_the_rest() -> int:
    """Kill every other process of this PID namespace (PID 1 calls this) and reap them: how many
    were still running (a child that had already exited is reaped first and not counted)."""
    while True:
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if done == 0:
            break
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    stopped = 0
    while True:
        try:
            os.waitpid(-1, 0)
            stopped += 1
        except InterruptedError:
            continue
        except ChildProcessError:
            return stopped


def main(argv) -> int:
    status_file, require = argv[0], argv[1] == "1"
    sep = argv.index("--")
    caches, command = [os.path.realpath(p) for p in argv[2:sep] if os.path.isdir(p)], argv[sep + 1:]
    try:
        enter([os.getcwd(), *caches])
        status = {"jailed": True, "why": ""}
    except OSError as e:
        status = {"jailed": False, "why": str(e)}
    code = EXIT_REFUSED
    if status["jailed"] or not require:
        tmp = os.path.join(os.getcwd(), ".tmp")
        os.makedirs(tmp, exist_ok=True)
        counted, report = os.pipe()  # not inherited across exec: only the init writes to it
        pid = os.fork()
        if pid == 0:
            try:
                os.close(counted)
                if status["jailed"]:
                    die_with_parent()
                    os.environ.update(TMPDIR=tmp, TEMP=tmp, TMP=tmp)
                    _warm_and_seal(command, caches)
                    try:
                        lock()
                    except OSError:
                        if require:
                            os._exit(EXIT_REFUSED)
                    os._exit(_init(command, report))
                os.execvp(command[0], command)
            finally:
                os._exit(127)
        os.close(report)

        def stop(signum, _frame):
            os.kill(pid, signal.SIGKILL)

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, stop)
        while True:
            try:
                _, wait = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        code = os.WEXITSTATUS(wait) if os.WIFEXITED(wait) else 128 + os.WTERMSIG(wait)
        with os.fdopen(counted, "rb") as f:  # every holder of the other end is gone by now
            told = f.read().decode(errors="replace")
        if status["jailed"]:
            status["stopped"] = int(told) if told.isdigit() else None
    os.makedirs(os.path.dirname(status_file) or ".", exist_ok=True)
    with open(status_file, "w") as f:
        json.dump(status, f)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
