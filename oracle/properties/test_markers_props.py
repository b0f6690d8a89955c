"""Laws of flake markers over generated test modules: a version adds nothing to itself, a marker
added to any test is found under any spelling of its import, words in comments and strings are
never markers, moving tests adds nothing; and for configuration files, exactly the changed keys
of the sections pytest and Hypothesis read are findings."""
from typing import List, NamedTuple, Tuple

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracle_gate.core.ladder.markers import added_markers, flake_markers, judge_config_change

# Each example parses and analyses generated source (~20 ms alone, 10x that on a loaded 2-core
# machine running tests in parallel): a timing deadline or the slow-generation check would fail
# runs at random, never a law.
analysis = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# How a test module may spell its imports: (import lines, pytest, pytest.mark, hypothesis.settings).
SPELLINGS = [
    ("import pytest\nfrom hypothesis import settings", "pytest", "pytest.mark", "settings"),
    ("import pytest as pt\nimport hypothesis as hy", "pt", "pt.mark", "hy.settings"),
    ("from pytest import mark, skip, xfail, importorskip\nfrom hypothesis import settings as cfg",
     None, "mark", "cfg"),
    ("from pytest import mark as mk\nimport pytest as p\nfrom hypothesis import settings", "p", "mk", "settings"),
    ("import pytest\nm = pytest.mark\nimport hypothesis\nsettings_ = hypothesis.settings", "pytest", "m",
     "settings_"),
    ("import importlib\npt = importlib.import_module('pytest')\npm = getattr(pt, 'mark')\n"
     "from hypothesis import settings", "pt", "pm", "settings"),
]
# (template, kind, where): {P} is pytest (or the bare imported function), {M} pytest.mark, {S} settings.
DECORATORS = [
    ("@{M}.skip(reason='not today')", "skip"),
    ("@{M}.skipif(True, reason='r')", "skipif"),
    ("@{M}.xfail(strict=False)", "xfail"),
    ("@{M}.flaky(reruns=2)", "flaky"),
    ("@{M}.timeout(60)", "timeout"),
    ("@{S}(max_examples=5)", "settings"),
    ("@{S}(deadline=None)", "settings"),
    ("@few", "settings"),  # a settings object built once at module level
]
CALLS = [
    ("{P}skip('later')", "skip"),
    ("{P}xfail('known')", "xfail"),
    ("{P}importorskip('numpy')", "importorskip"),
]
WORDS = ["# skipped when flaky, see xfail list", "'''xfail: pytest.mark.skip in a docstring'''",
         "note = 'pytest.skip() reruns=3 max_examples=1'", "msg = f'@pytest.mark.xfail {1}'",
         "# @pytest.mark.timeout(1)", "text = \"sys.exit(0) pytest_collection_modifyitems\""]


class Case(NamedTuple):
    name: str
    decorators: Tuple[int, ...]
    calls: Tuple[int, ...]
    in_class: bool


tests = st.builds(Case, st.sampled_from(["test_add", "test_split", "test_round", "test_parse", "test_tax"]),
                  st.lists(st.integers(0, len(DECORATORS) - 1), max_size=2, unique=True).map(tuple),
                  st.lists(st.integers(0, len(CALLS) - 1), max_size=2, unique=True).map(tuple),
                  st.booleans())
modules = st.lists(tests, max_size=5, unique_by=lambda t: t.name)
spellings = st.integers(0, len(SPELLINGS) - 1)


def qualname(t: Case) -> str:
    return f"TestSuite.{t.name}" if t.in_class else t.name


def render(module: List[Case], spelling: int, extra=None, words=()) -> str:
    """`extra`: (test name, template, is_decorator) added to that test; `words`: (test index, text,
    in the body or above the test) lines that only hold words."""
    imports, p, m, s = SPELLINGS[spelling]
    prefix = f"{p}." if p else ""
    lines = imports.splitlines() + ["import sys", f"few = {s}(max_examples=3)", ""]
    ordered = [t for t in module if not t.in_class] + [t for t in module if t.in_class]
    for i, t in enumerate(ordered):
        indent = "    " if t.in_class else ""
        if t.in_class and (i == 0 or not ordered[i - 1].in_class):
            lines += ["", "class TestSuite:"]
        decorators = [DECORATORS[d][0] for d in t.decorators]
        calls = [CALLS[c][0] for c in t.calls]
        if extra and extra[0] == t.name:
            (decorators if extra[2] else calls).append(extra[1])
        lines += [indent + text for at, text, body in words if at == i and not body]
        lines += [indent + d.format(P=prefix, M=m, S=s) for d in decorators]
        lines.append(f"{indent}def {t.name}({'self, ' if t.in_class else ''}x=1):")
        lines += [f"{indent}    {text}" for at, text, body in words if at == i and body]
        lines += [f"{indent}    {c.format(P=prefix, M=m, S=s)}" for c in calls]
        lines.append(f"{indent}    assert x + 1 > x")
    lines += [text for at, text, body in words if at >= len(ordered)]
    return "\n".join(lines) + "\n"


@analysis
@given(modules, spellings)
def test_a_version_adds_no_marker_to_itself(module, spelling):
    source = render(module, spelling)
    assert added_markers(source, source) == frozenset()


@analysis
@given(modules, spellings, spellings)
def test_the_spelling_of_an_import_never_changes_the_markers(module, one, other):
    assert flake_markers(render(module, one)) == flake_markers(render(module, other))


@analysis
@given(modules.filter(bool), spellings, st.data())
def test_a_marker_added_to_any_test_is_found(module, spelling, data):
    target = data.draw(st.sampled_from(module))
    decorator = data.draw(st.booleans())
    template, kind = data.draw(st.sampled_from(DECORATORS if decorator else CALLS))
    base = render(module, spelling)
    assume(not any(m.scope == qualname(target) and m.kind == kind for m in flake_markers(base)))
    head = render(module, spelling, (target.name, template, decorator))
    added = added_markers(base, head)
    assert (qualname(target), kind) in {(m.scope, m.kind) for m in added}
    assert {m.scope for m in added} == {qualname(target)}


@analysis
@given(modules, spellings, st.lists(st.tuples(st.integers(0, 5), st.sampled_from(WORDS), st.booleans()), min_size=1,
                                    max_size=6))
def test_words_in_comments_and_strings_are_never_markers(module, spelling, words):
    base = render(module, spelling)
    head = render(module, spelling, words=words)
    assert head != base
    assert added_markers(base, head) == frozenset()


@analysis
@given(modules, spellings, st.permutations(range(5)))
def test_moving_tests_adds_nothing(module, spelling, order):
    moved = [module[i] for i in order if i < len(module)]
    assert added_markers(render(module, spelling), render(moved, spelling)) == frozenset()


# -- configuration files --------------------------------------------------------------------

keys = st.sampled_from(["addopts", "testpaths", "markers", "timeout", "filterwarnings", "xfail_strict"])
values = st.text(alphabet="abcxyz-_ =.0123", min_size=1, max_size=12).map(str.strip).filter(bool)
other_sections = st.sampled_from(["flake8", "isort", "mypy", "metadata", "coverage:report", "testenv"])
INI = {"pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}


def ini(sections) -> str:
    out = []
    for name, items in sections:
        out.append(f"[{name}]")
        out += [f"{k} = {v}" for k, v in items.items()]
        out.append("")
    return "\n".join(out)


@analysis
@given(st.sampled_from(sorted(INI)), st.dictionaries(keys, values, max_size=4),
       st.dictionaries(keys, values, max_size=4), other_sections, st.dictionaries(keys, values, max_size=3),
       st.dictionaries(keys, values, max_size=3))
def test_exactly_the_changed_pytest_keys_are_findings(path, before, after, other, other_before, other_after):
    section = INI[path]
    base = ini([(section, before), (other, other_before)])
    head = ini([(other, other_after), (section, after)])
    findings = judge_config_change(path, base, head)
    assert {f.key for f in findings} == {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert all(f.section == section and f.base == before.get(f.key) and f.head == after.get(f.key) for f in findings)


@analysis
@given(st.sampled_from(sorted(INI)), st.dictionaries(keys, values, max_size=4),
       st.lists(st.sampled_from(["# reruns = 5", "; -p no:randomly", ""]), min_size=1, max_size=4))
def test_comments_in_a_config_file_change_nothing(path, items, comments):
    base = ini([(INI[path], items)])
    head = "\n".join(comments) + "\n" + base.replace("\n", "\n" + comments[0] + "\n", 1)
    assert judge_config_change(path, base, head) == ()


@analysis
@given(st.dictionaries(keys, values, max_size=3), st.dictionaries(keys, values, max_size=3),
       st.dictionaries(keys, values, min_size=1, max_size=3))
def test_pyproject_changes_outside_pytest_and_hypothesis_are_not_findings(pytest_opts, before, after):
    def toml(tool):
        lines = ["[project]", 'name = "x"', "", "[tool.pytest.ini_options]"]
        lines += [f"{k} = {v!r}" for k, v in pytest_opts.items()]
        lines += ["", "[tool.black]"] + [f"{k} = {v!r}" for k, v in tool.items()]
        return "\n".join(lines).replace("'", '"') + "\n"
    assert judge_config_change("pyproject.toml", toml(before), toml(after)) == ()
    changed = toml(before).replace("[tool.black]", "[tool.hypothesis]")
    assert judge_config_change("pyproject.toml", toml(before), changed)
