"""The process that evaluates the merge base: run by the gate as a Pants process (standard library
only; it is shipped into the process's sandbox and run there).

    python base_facts_driver.py <worktree> <commit> <prefix> <python-with-pants>

It checks the base commit out into its sandbox (a private git index: the repository's index, work
tree and worktree list are untouched), runs `pants oracle-facts` there under the base's own
configuration, and leaves `facts.json` in the sandbox. Evaluating a tree reads its files (and the
base's plugins, which may need the network), so a failure is tried once more: failing twice the
same way is the tree's doing (exit 3, the cause in `failure.txt`), failing differently the
machine's (exit 4). Pants keeps the output of a successful run in its own content-addressed
cache: no file a test can write is ever read back as the base's facts.
"""
import os
import subprocess
import sys
import tempfile

FACTS = "facts.json"
FAILURE = "failure.txt"
EXIT_UNEVALUABLE = 3
EXIT_MACHINE = 4


def cause(stderr: str) -> str:
    """The most telling line of a failed Pants run's stderr."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for marker in ("Exception:", "Error:", "error:", "Failed", "failed"):
        for line in reversed(lines):
            if marker in line:
                return line[:400]
    return (lines[-1] if lines else "no output")[:400]


def export(worktree: str, commit: str, dest: str) -> None:
    with tempfile.TemporaryDirectory(prefix="oracle-gate-index-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(tmp, "index")}
        for argv in (["read-tree", commit], ["checkout-index", "-a", "-f", f"--prefix={dest.rstrip('/')}/"]):
            proc = subprocess.run(["git", "-C", worktree, *argv], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
            if proc.returncode != 0:
                raise RuntimeError(f"git {argv[0]}: {proc.stderr.decode(errors='replace').strip()}")


def main(argv) -> int:
    worktree, commit, prefix, python = argv
    sandbox = os.getcwd()

    def failed(code: int, message: str) -> int:
        with open(os.path.join(sandbox, FAILURE), "w", encoding="utf-8") as f:
            f.write(message)
        return code

    tree = os.path.join(sandbox, "tree")
    try:
        export(worktree, commit, tree)
    except RuntimeError as e:
        return failed(EXIT_MACHINE, f"could not check out the base commit {commit[:12]}: {e}")
    root = os.path.join(tree, prefix)
    if not os.path.isfile(os.path.join(root, "pants.toml")):
        return failed(EXIT_UNEVALUABLE, f"the base commit {commit[:12]} has no pants.toml at {prefix or '.'}")
    out = os.path.join(sandbox, FACTS)
    env = {**os.environ, "PANTS_BUILDROOT_OVERRIDE": root}
    run = [python, "-m", "pants", "--no-pantsd", "--no-dynamic-ui", "--no-watch-filesystem",
           f"--pants-workdir={os.path.join(sandbox, 'workdir')}", "oracle-facts", f"--oracle-facts-output={out}"]
    causes = []
    for _attempt in range(2):
        proc = subprocess.run(run, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode == 0 and os.path.exists(out):
            return 0
        causes.append(f"(exit {proc.returncode}): {cause(proc.stderr.decode(errors='replace'))}")
    return failed(EXIT_UNEVALUABLE if causes[0] == causes[1] else EXIT_MACHINE,
                  f"Pants could not evaluate the base commit {commit[:12]} under its own configuration {causes[-1]}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
