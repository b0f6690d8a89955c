"""The write-set reader against real git repositories (no Pants needed)."""
import os
import subprocess

import pytest

from oracle_gate.rules.base_facts_driver import export
from oracle_gate.rules.git_diff import base_texts, GitDiffError, ignored_by_gitignore, read_diff

ENV = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a",
       "GIT_COMMITTER_EMAIL": "a@x"}


def git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE).stdout.decode()


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "r"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n" * 20)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def test_not_a_work_tree(tmp_path):
    with pytest.raises(GitDiffError, match="is not inside a git work tree"):
        read_diff(str(tmp_path), None)


def test_no_commits(tmp_path):
    git(tmp_path, "init", "-q")
    with pytest.raises(GitDiffError, match="no commits yet"):
        read_diff(str(tmp_path), None)


def test_a_missing_base_ref(repo):
    with pytest.raises(GitDiffError, match="base ref 'origin/nope' does not exist"):
        read_diff(str(repo), "origin/nope")


def test_no_default_base(repo):
    git(repo, "branch", "-m", "trunk")
    with pytest.raises(GitDiffError, match="none of origin/main, main"):
        read_diff(str(repo), None)


def test_a_shallow_clone_without_the_merge_base(repo, tmp_path):
    git(repo, "checkout", "-qb", "feature")
    for i in range(3):
        (repo / "src" / "a.py").write_text(f"x = {i}\n")
        git(repo, "commit", "-qam", f"c{i}")
    git(repo, "checkout", "-q", "main")
    (repo / "src" / "b.py").write_text("y = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main moves on")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", "--no-single-branch", f"file://{repo}", str(clone))
    git(clone, "checkout", "-q", "feature")
    with pytest.raises(GitDiffError, match="shallow clone"):
        read_diff(str(clone), "origin/main")


def test_renames_edits_and_untracked_files(repo):
    git(repo, "checkout", "-qb", "feature")
    git(repo, "mv", "src/a.py", "src/moved.py")
    git(repo, "commit", "-qm", "move")
    (repo / "src" / "new.py").write_text("import os\n")
    (repo / "dist").mkdir()
    (repo / "dist" / "out.json").write_text("{}")
    diff = read_diff(str(repo), "main", ignored_dirs=(str(repo / "dist"),))
    by_path = {c.path: c for c in diff.changes}
    assert by_path["src/moved.py"].status == "R" and by_path["src/moved.py"].old_path == "src/a.py"
    assert by_path["src/new.py"].status == "A"
    assert "dist/out.json" not in by_path
    assert diff.base_ref == "main"
    assert base_texts(diff, ["src/a.py", "src/new.py"]) == {"src/a.py": "x = 1\n" * 20, "src/new.py": None}


def test_a_committed_copy_of_an_unchanged_file_is_an_addition_that_names_its_source(repo):
    git(repo, "checkout", "-qb", "feature")
    (repo / "src" / "copy.py").write_text("x = 1\n" * 19 + "x = 2\n")  # 95% similar, the source untouched
    (repo / "src" / "other.py").write_text("def f():\n    return 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "copy")
    by_path = {c.path: c for c in read_diff(str(repo), "main").changes}
    assert (by_path["src/copy.py"].status, by_path["src/copy.py"].copied_from, by_path["src/copy.py"].old_path) \
        == ("A", "src/a.py", None)
    assert (by_path["src/other.py"].status, by_path["src/other.py"].copied_from) == ("A", None)
    assert "src/a.py" not in by_path


def test_base_files_that_define_a_name_are_found_in_the_base_commit(repo):
    from oracle_gate.rules.git_diff import base_files_defining

    (repo / "src" / "b.py").write_text("class Sizes:\n    pass\n\n\nasync def fetch():\n    pass\n")
    (repo / "src" / "c.py").write_text("def fetcher():\n    pass\n\nx = 'def fetch'\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "more")
    git(repo, "checkout", "-qb", "feature")
    (repo / "src" / "b.py").unlink()
    git(repo, "commit", "-qam", "gone at head")
    diff = read_diff(str(repo), "main")
    assert base_files_defining(diff, ["fetch", "Sizes", "not-a-name"]) == ["src/b.py"]
    assert base_files_defining(diff, ["nothing_defines_this"]) == []


def test_symlinks_are_read_with_their_target(repo):
    git(repo, "checkout", "-qb", "links")
    (repo / "outside.py").write_text("x = 1\n")
    (repo / "src" / "a.py").unlink()
    os.symlink("../outside.py", repo / "src" / "a.py")
    os.symlink("/etc/hostname", repo / "src" / "far.py")
    diff = read_diff(str(repo), "main")
    by_path = {c.path: c for c in diff.changes}
    assert by_path["src/a.py"].link == "outside.py" and not by_path["src/a.py"].link_outside
    assert by_path["src/far.py"].link_outside


def test_the_base_tree_is_exported_without_touching_the_repository(repo, tmp_path):
    git(repo, "checkout", "-qb", "export")
    (repo / "src" / "a.py").write_text("changed = True\n")
    git(repo, "commit", "-qam", "change")
    diff = read_diff(str(repo), "main")
    status_before = git(repo, "status", "--porcelain")
    export(diff.worktree, diff.base_commit, str(tmp_path / "base"))  # what the base-facts process does
    assert (tmp_path / "base" / "src" / "a.py").read_text() == "x = 1\n" * 20
    assert git(repo, "status", "--porcelain") == status_before
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_gitignore_rules_are_read_from_the_work_tree_for_tracked_files_too(repo):
    (repo / "src" / "b.py").write_text("y = 2\n")
    assert ignored_by_gitignore(str(repo), ["src/a.py", "src/b.py"]) == []
    (repo / ".gitignore").write_text("src/a.py\n")  # tracked, and hidden from Pants now
    assert ignored_by_gitignore(str(repo), ["src/a.py", "src/b.py"]) == ["src/a.py"]
    assert ignored_by_gitignore(str(repo), []) == []
