"""Known cases of the unowned-path policy adoption writes, and of empty package markers (how the
comparison treats them: test_compare_cases.py)."""
from oracle_gate.core.lanes.unowned import group_counts, holds_no_code, unowned_globs

TRACKED = ["BUILD", "MANIFEST.in", ".pre-commit-config.yaml", "src/app/BUILD", "src/app/a.py",
           "tests/__init__.py", "tests/BUILD", "tests/test_a.py", "tests/data/one.json", "tests/data/deep/two.bin",
           "codegen/build.gradle", "codegen/src/main/java/Gen.java", "docs/x.md"]
UNOWNED = ["MANIFEST.in", ".pre-commit-config.yaml", "tests/__init__.py", "tests/data/one.json",
           "tests/data/deep/two.bin", "codegen/build.gradle", "codegen/src/main/java/Gen.java"]


def test_whole_unowned_trees_become_one_glob_and_the_rest_are_listed_by_path():
    globs = unowned_globs(TRACKED, UNOWNED)
    assert globs == [".pre-commit-config.yaml", "MANIFEST.in", "codegen/*", "tests/__init__.py", "tests/data/*"]
    assert group_counts(globs, UNOWNED) == {".pre-commit-config.yaml": 1, "MANIFEST.in": 1, "codegen/*": 2,
                                            "tests/__init__.py": 1, "tests/data/*": 2}
    assert unowned_globs(TRACKED, []) == []


def test_a_file_of_a_kind_every_package_has_is_listed_by_its_name():
    # a MANIFEST.in per package, in directories that also hold code: the next package's is the same
    # kind of file; a README.md that some target owns elsewhere keeps its path; Python keeps its path
    tracked = ["pkgs/a/MANIFEST.in", "pkgs/a/BUILD", "pkgs/a/a.py", "pkgs/b/MANIFEST.in", "pkgs/b/b.py",
               "pkgs/a/README.md", "pkgs/b/README.md", "pkgs/a/setup_helper.py"]
    unowned = ["pkgs/a/MANIFEST.in", "pkgs/b/MANIFEST.in", "pkgs/a/README.md", "pkgs/a/setup_helper.py"]
    globs = unowned_globs(tracked, unowned)
    assert globs == ["MANIFEST.in", "pkgs/a/README.md", "pkgs/a/setup_helper.py"]
    assert group_counts(globs, unowned) == {"MANIFEST.in": 2, "pkgs/a/README.md": 1, "pkgs/a/setup_helper.py": 1}


def test_a_file_holds_no_code_when_it_is_empty_comments_or_a_docstring():
    assert all(holds_no_code(s) for s in (None, "", "# marker\n", '"""The tests."""\n# more\n'))
    assert not any(holds_no_code(s) for s in ("import os\n", '"""doc"""\nX = 1\n', "def f(:\n", "'a'\n'b'\n"))

