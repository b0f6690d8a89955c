import ast
import textwrap

import pytest

from oracle_gate.core.ladder.markers import (ConfigError, ConfigFinding, Marker, added_markers, flake_markers,
                                             judge_config_change)
from oracle_gate.core.source.symbols import SourceError, render


def r(text: str, string: bool = False) -> str:
    """How this Python renders an argument in a marker's detail (source text from 3.9 on)."""
    return render(ast.parse(repr(text) if string else text, mode="eval").body)


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def kinds(source: str):
    return sorted((m.scope, m.kind) for m in flake_markers(source))


def test_words_in_comments_docstrings_and_strings_are_not_markers():
    source = src('''
        """These tests were xfail upstream; pytest.mark.skip is banned here."""
        import pytest


        # skipped when flaky
        def test_rate():
            """Never xfail, never skip, no reruns=3, no max_examples=1."""
            reason = "pytest.skip('x') and sys.exit(0)"
            assert reason
        ''')
    assert flake_markers(source) == frozenset()
    assert added_markers(None, source) == frozenset()


def test_every_alias_of_a_mark_is_the_same_marker():
    spellings = [
        "import pytest\n@pytest.mark.skip(reason='a')\ndef test_x(): pass\n",
        "import pytest as pt\n@pt.mark.skip(reason='b')\ndef test_x(): pass\n",
        "from pytest import mark\n@mark.skip(reason='c')\ndef test_x(): pass\n",
        "from pytest import mark as mk\n@mk.skip\ndef test_x(): pass\n",
        "import pytest\nm = pytest.mark\n@m.skip()\ndef test_x(): pass\n",
        "import pytest\n@getattr(pytest.mark, 'sk' + 'ip')\ndef test_x(): pass\n",
        "import importlib\npt = importlib.import_module('pytest')\n@pt.mark.skip\ndef test_x(): pass\n",
        "from _pytest.mark import MARK_GEN\n@MARK_GEN.skip\ndef test_x(): pass\n",
        "import pytest\n@pytest.mark.skip.with_args('why')\ndef test_x(): pass\n",
        "@mystery.mark.skip\ndef test_x(): pass\n",
        "import pytest\ndef test_x():\n    vars(pytest)['skip']('x')\n",
        "import pytest\ndef test_x():\n    pytest.__dict__['skip'].__call__('x')\n",
        "def test_x():\n    exec('import pytest; pytest.' + 'skip()')\n",
        "from pytest import *\ndef test_x():\n    skip('later')\n",
    ]
    for source in spellings:
        assert kinds(source) == [("test_x", "skip")], source


def test_calls_that_skip_xfail_or_end_the_session():
    source = src('''
        import os, sys, unittest
        import pytest
        from pytest import skip as s

        def test_a():
            s("later")

        def test_b():
            pytest.xfail("known")

        def test_c():
            np = pytest.importorskip("numpy")

        def test_d():
            sys.exit(0)

        def test_e():
            os._exit(0)

        def test_f():
            raise unittest.SkipTest("no")

        def test_g():
            pytest.exit("done", returncode=0)

        class TestH(unittest.TestCase):
            def test_h(self):
                self.skipTest("no")
        ''')
    assert kinds(source) == [("TestH.test_h", "skip"), ("test_a", "skip"), ("test_b", "xfail"),
                             ("test_c", "importorskip"), ("test_d", "exit"), ("test_e", "exit"), ("test_f", "skip"),
                             ("test_g", "exit")]


def test_a_local_function_named_skip_is_not_pytest_skip():
    source = src('''
        def skip(items):
            return items[1:]

        def test_skip_drops_the_head(mark):
            assert skip([1, 2]) == [2]
            mark.skip()
        ''')
    assert flake_markers(source) == frozenset()


def test_unittest_hypothesis_rerun_and_plain_marks():
    source = src('''
        import unittest
        import pytest
        from hypothesis import HealthCheck, given, settings, strategies as st
        from flaky import flaky

        relaxed = settings(deadline=None)
        settings.register_profile("ci", max_examples=10)
        settings.load_profile("ci")

        @settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
        @given(st.integers())
        def test_a(x):
            assert x == x + 0

        @flaky(max_runs=3)
        @pytest.mark.flaky(reruns=2, reruns_delay=1)
        @pytest.mark.timeout(60)
        @pytest.mark.usefixtures("db")
        @pytest.mark.filterwarnings("ignore")
        def test_b():
            pass

        class TestC(unittest.TestCase):
            @relaxed
            @unittest.skipIf(True, "r")
            @unittest.expectedFailure
            def test_c(self):
                pass
        ''')
    found = {(m.scope, m.kind, m.detail) for m in flake_markers(source)}
    assert found == {
        ("<module>", "settings", f"max_examples={r('10')}"),
        ("<module>", "settings", f"load_profile({r('ci', True)})"),
        ("test_a", "settings", f"max_examples={r('5')}"),
        ("test_a", "settings", f"deadline={r('None')}"),
        ("test_a", "settings", f"suppress_health_check={r('[HealthCheck.too_slow]')}"),
        ("test_b", "flaky", f"flaky.flaky(max_runs={r('3')})"),
        ("test_b", "rerun", f"max_runs={r('3')}"),
        ("test_b", "flaky", f"pytest.mark.flaky(reruns={r('2')}, reruns_delay={r('1')})"),
        ("test_b", "rerun", f"reruns={r('2')}"),
        ("test_b", "rerun", f"reruns_delay={r('1')}"),
        ("test_b", "timeout", f"pytest.mark.timeout({r('60')})"),
        ("TestC.test_c", "skipif", f"unittest.skipIf({r('True')})"),
        ("<module>", "settings", f"deadline={r('None')}"),
        ("TestC.test_c", "settings", f"deadline={r('None')}"),
        ("TestC.test_c", "xfail", "unittest.expectedFailure()"),
    }


def test_marks_reached_by_pytestmark_params_add_marker_and_empty_parametrize():
    source = src('''
        import pytest
        pytestmark = [pytest.mark.skipif("sys.platform == 'win32'")]

        class TestA:
            pytestmark = pytest.mark.xfail

        @pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.skip)])
        def test_b(x):
            pass

        @pytest.mark.parametrize("y", [])
        def test_c(y):
            pass

        def test_d(request):
            request.node.add_marker("xfail")
        ''')
    assert kinds(source) == [("<module>", "skipif"), ("TestA", "xfail"), ("test_b", "skip"), ("test_c", "skip"),
                             ("test_d", "xfail")]


def test_hooks_and_names_that_drop_tests():
    source = src('''
        import pytest
        collect_ignore = ["test_slow.py"]
        collect_ignore_glob = []
        pytest_plugins = ["myplugin"]

        def pytest_collection_modifyitems(config, items):
            items[:] = [i for i in items if "oracle" not in i.nodeid]

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            yield

        @pytest.hookimpl(specname="pytest_ignore_collect")
        def quietly(collection_path, config):
            return True

        def pytest_addoption(parser):
            parser.addoption("--slow")

        class TestHelper:
            __test__ = False
        ''')
    assert kinds(source) == [("<module>", "deselect"), ("<module>", "deselect"), ("<module>", "plugin"),
                             ("TestHelper", "deselect"), ("pytest_collection_modifyitems", "hook"),
                             ("pytest_runtest_makereport", "hook"), ("quietly", "hook")]


BASE = src('''
    import pytest

    def test_a():
        assert 1 + 1 == 2

    @pytest.mark.skip(reason="slow")
    @pytest.mark.timeout(10)
    def test_b():
        assert 2 + 2 == 4
    ''')


def test_moving_a_test_or_rewording_a_reason_adds_nothing():
    a = "def test_a():\n    assert 1 + 1 == 2\n"
    moved = (BASE.replace(a + "\n", "") + "\n" + a).replace('reason="slow"', 'reason="very slow, see issue 12"')
    assert moved.index("def test_b") < moved.index("def test_a")
    assert added_markers(BASE, moved) == frozenset()
    assert added_markers(BASE, BASE.replace("import pytest", "import pytest as pt").replace("@pytest.", "@pt.")) == frozenset()


def test_a_marker_moved_to_another_test_or_a_weaker_value_is_added():
    onto_a = BASE.replace("def test_a", "@pytest.mark.skip(reason='slow')\ndef test_a")
    assert added_markers(BASE, onto_a) == {Marker("test_a", "skip", "pytest.mark.skip()")}
    assert added_markers(BASE, BASE.replace("timeout(10)", "timeout(900)")) == {
        Marker("test_b", "timeout", f"pytest.mark.timeout({r('900')})")}
    assert added_markers(BASE, None) == frozenset()
    assert {m.scope for m in added_markers(None, BASE)} == {"test_b"}


def test_unparsable_test_source_is_a_source_error():
    with pytest.raises(SourceError):
        flake_markers("def test(:\n")


def test_pytest_sections_of_ini_files_are_judged_and_others_are_not():
    base = "[pytest]\naddopts = -x\ntestpaths = tests\n\n[flake8]\nmax-line-length = 100\n"
    head = "[flake8]\nmax-line-length = 120\n\n[pytest]\n# a comment\naddopts = -x -p no:randomly\ntestpaths = tests\n"
    assert judge_config_change("tox.ini", base, head) == (
        ConfigFinding("tox.ini", "pytest", "addopts", "-x", "-x -p no:randomly"),)
    assert judge_config_change("sub/pytest.ini", base, head)[0].line == \
        "sub/pytest.ini pytest.addopts: '-x' -> '-x -p no:randomly'"
    cfg = "[metadata]\nname = x\n\n[tool:pytest]\nmarkers =\n    slow\n"
    assert judge_config_change("setup.cfg", cfg, cfg.replace("name = x", "name = y")) == ()
    assert judge_config_change("setup.cfg", cfg, cfg + "    flaky\n") == (
        ConfigFinding("setup.cfg", "tool:pytest", "markers", "slow", "slow\nflaky"),)
    assert judge_config_change("setup.cfg", cfg, cfg.replace("[tool:pytest]", "[tool:pytest]\nxfail_strict = false")) == (
        ConfigFinding("setup.cfg", "tool:pytest", "xfail_strict", None, "false"),)


def test_a_new_pytest_ini_is_the_configuration_even_when_empty():
    assert judge_config_change("pytest.ini", None, "") == (ConfigFinding("pytest.ini", "pytest", "", None, "present"),)
    assert judge_config_change("tox.ini", None, "[testenv]\ncommands = pytest\n") == ()
    assert judge_config_change("setup.cfg", "[tool:pytest]\n", None) == (
        ConfigFinding("setup.cfg", "tool:pytest", "", "present", None),)


def test_coverage_run_options_are_judged_and_reporting_is_not():
    base = "[run]\nbranch = true\n\n[report]\nfail_under = 80\n"
    assert judge_config_change(".coveragerc", base, base.replace("80", "90")) == ()
    assert judge_config_change(".coveragerc", base, base.replace("branch = true", "plugins = evil")) == (
        ConfigFinding(".coveragerc", "run", "branch", "true", None),
        ConfigFinding(".coveragerc", "run", "plugins", None, "evil"))


def test_pyproject_pytest_and_hypothesis_tables_only():
    base = src('''
        [project]
        name = "billing"
        version = "1.0"

        [tool.black]
        line-length = 100

        [tool.pytest.ini_options]
        addopts = "-ra"
        ''')
    assert judge_config_change("pyproject.toml", base, base.replace("1.0", "1.1").replace("100", "120")) == ()
    assert judge_config_change("pyproject.toml", base, base.replace('"-ra"', '"-ra --reruns 3"')) == (
        ConfigFinding("pyproject.toml", "tool.pytest.ini_options", "addopts", '"-ra"', '"-ra --reruns 3"'),)
    with_hypothesis = base + "\n[tool.hypothesis]\nmax_examples = 5\n"
    assert judge_config_change("pyproject.toml", base, with_hypothesis) == (
        ConfigFinding("pyproject.toml", "tool.hypothesis", "", None, "present"),
        ConfigFinding("pyproject.toml", "tool.hypothesis", "max_examples", None, "5"))


def test_bad_configuration_is_a_one_line_error():
    with pytest.raises(ConfigError, match="not a configuration file"):
        judge_config_change("pants.toml", "", "")
    with pytest.raises(ConfigError) as e:
        judge_config_change("pyproject.toml", "", "[tool.pytest\n")
    assert "\n" not in str(e.value)
    with pytest.raises(ConfigError):
        judge_config_change("tox.ini", "", "addopts = -x\n")


def test_a_configuration_file_judges_only_the_tests_below_it():
    from oracle_gate.core.ladder.markers import judges_a_test

    tests = ["packages/a/tests/test_x.py", "tests/test_root.py"]
    assert judges_a_test("pyproject.toml", [])  # the root's reaches every test there will be
    assert judges_a_test("packages/a/pyproject.toml", tests)
    assert not judges_a_test("packages/b/pyproject.toml", tests)  # a removed package's own section
    assert not judges_a_test("packages/a/tests/sub/pytest.ini", tests)
