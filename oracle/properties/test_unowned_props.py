"""Laws of adoption's unowned-path policy and of empty package markers: every unowned path is
matched by a glob it writes, no owned tracked path is (so nothing a target owns is ever waved
through), the result does not depend on input order; a file holds no code exactly when it is a
docstring and comments, and any statement after that makes it code."""
import fnmatch
import posixpath

from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.core.ladder.markers import judges_a_test
from oracle_gate.core.lanes.compare import matches
from oracle_gate.core.lanes.unowned import group_counts, holds_no_code, unowned_globs

segments = st.sampled_from(["a", "b", "c", "tests", "data"])
paths = st.builds(lambda parts, name: "/".join([*parts, name]), st.lists(segments, max_size=3),
                  st.sampled_from(["x.py", "y.json", "z.java", "BUILD"]))


@given(st.sets(paths, min_size=1), st.data())
def test_unowned_globs_cover_every_unowned_path_and_no_owned_one(tracked, data):
    unowned = data.draw(st.sets(st.sampled_from(sorted(tracked))))
    globs = unowned_globs(sorted(tracked), sorted(unowned))
    # every unowned path is matched as the gate matches other_globs (the whole path, or its base name)
    assert all(matches(p, globs) for p in unowned)
    owned = tracked - unowned
    for g in globs:
        if g in unowned:  # a path of its own (at the root it is also a base name: see README)
            continue
        if "/" in g:
            assert not any(fnmatch.fnmatchcase(p, g) for p in owned)
        else:  # a base name adoption chose: no owned file has it
            assert not any(posixpath.basename(p) == g for p in owned)
    assert globs == unowned_globs(sorted(tracked, reverse=True), sorted(unowned, reverse=True))
    assert sum(group_counts(globs, unowned).values()) == len(unowned)


docstrings = st.sampled_from(['', '"""Package."""\n', "'''x'''\n"])
comments = st.lists(st.sampled_from(["# a\n", "\n", "#!/usr/bin/env python\n"]), max_size=3).map("".join)
statements = st.sampled_from(["import os\n", "X = 1\n", "def f():\n    pass\n", "print()\n"])


@given(comments, docstrings, comments, statements)
def test_a_docstring_and_comments_hold_no_code_and_a_statement_after_them_does(before, doc, after, stmt):
    marker = before + doc + after
    assert holds_no_code(marker)
    assert not holds_no_code(marker + stmt)


@given(st.sets(paths), paths, paths)
def test_a_configuration_file_judges_more_tests_never_fewer_as_tests_are_added(tests, config, extra):
    if judges_a_test(config, sorted(tests)):
        assert judges_a_test(config, sorted(tests | {extra}))
    assert judges_a_test("pyproject.toml", sorted(tests))
    directory = config.rsplit("/", 1)[0] if "/" in config else ""
    assert judges_a_test(config, [f"{directory}/t/test_x.py" if directory else "test_x.py"])
