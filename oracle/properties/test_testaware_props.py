"""Laws of the test-aware scan over generated production modules: a version adds nothing to
itself, a test-aware statement added to any function is found at its line under any spelling,
words in comments, docstrings and unrelated strings never are, and moving code adds nothing; and
of the reads of the machine: found wherever added, under any spelling, never where the base had
them, and the allowlist they are judged by closed under attributes and monotone in what it allows."""
from typing import List, Optional, Tuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle_gate.core.ladder import testaware
from oracle_gate.core.source import stdlib

# Each example parses and analyses generated source (~20 ms alone, 10x that on a loaded 2-core
# machine running tests in parallel): a timing deadline or the slow-generation check would fail
# runs at random, never a law.
analysis = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

ORACLES = ("oracle",)
IMPORTS = ["import os", "import sys", "import sys as system", "import importlib", "import threading as th",
           "from os import environ", "from pathlib import Path"]
# (statement, what the finding says it does): every spelling must be found.
AWARE = [
    ("if 'pytest' in sys.modules: return 0", "looks up 'pytest' in sys.modules"),
    ("flag = system.modules.get('hypo' + 'thesis')", "looks up 'hypothesis' in sys.modules"),
    ("runner = importlib.import_module('pytest')", "imports pytest"),
    ("runner = __import__('_pytest.config')", "imports _pytest"),
    ("import hypothesis.strategies as hs", "imports hypothesis"),
    ("value = environ.get('PYTEST_CURRENT_TEST')", "looks up 'PYTEST_CURRENT_TEST' in os.environ"),
    ("value = os.getenv('HYPOTHESIS_' + 'PROFILE')", "looks up 'HYPOTHESIS_PROFILE' in os.environ"),
    ("sys.settrace(None)", "uses sys.settrace"),
    ("th.setprofile(None)", "uses threading.setprofile"),
    ("Path('oracle/fixtures/x.json').write_text('1')", "writes oracle path oracle/fixtures/x.json"),
    ("open('oracle/ledger.json', 'a').close()", "writes oracle path oracle/ledger.json"),
    ("where = os.path.join('extra-output', 'x')", "refers to the results path (extra-output)"),
]
WORDS = ["# if 'pytest' in sys.modules: sys.settrace(None)", "'''Reads PYTEST_CURRENT_TEST? no: extra-output never.'''",
         "label = 'run with pytest and hypothesis'", "text = 'open(oracle/fixtures/x.json, w)'",
         "value = os.environ.get('HOME')", "data = open('oracle/fixtures/x.json').read()"]
NAMES = ["total", "scale", "parse", "render", "merge", "apply"]

functions = st.lists(st.tuples(st.sampled_from(NAMES), st.integers(0, 9)), max_size=5, unique_by=lambda t: t[0])


def render(funcs: List[Tuple[str, int]], extra: Optional[Tuple[int, str]] = None, words=()) -> str:
    """`extra`: (function index, statement); `words`: (function index, line) lines of words only."""
    lines = IMPORTS + [""]
    for i, (name, value) in enumerate(funcs):
        lines += ["", f"def {name}(x):"]
        lines += [f"    {w}" for at, w in words if at == i]
        if extra is not None and extra[0] == i:
            lines.append(f"    {extra[1]}")
        lines += [f"    y = x * {value} + 1", "    return y"]
    return "\n".join(lines) + "\n"


def scan(base: Optional[str], head: Optional[str]):
    return testaware.test_aware_findings("src/generated.py", base, head, ORACLES)


@analysis
@given(functions, st.lists(st.tuples(st.integers(0, 4), st.sampled_from(AWARE)), max_size=3))
def test_a_version_adds_nothing_to_itself(funcs, snippets):
    source = render(funcs, words=[(at, text) for at, (text, _what) in snippets])
    assert scan(source, source) == ()


@analysis
@given(functions.filter(bool), st.sampled_from(AWARE), st.data())
def test_a_test_aware_statement_added_to_any_function_is_found_at_its_line(funcs, snippet, data):
    at = data.draw(st.integers(0, len(funcs) - 1))
    others = [(i, data.draw(st.sampled_from(AWARE))[0]) for i in range(len(funcs)) if i != at]
    base = render(funcs, words=others)
    head = render(funcs, (at, snippet[0]), words=others)
    line = head.splitlines().index(f"def {funcs[at][0]}(x):") + 2  # the words of `others` are elsewhere
    assert [(f.line, f.what) for f in scan(base, head)] == [(line, snippet[1])]


@analysis
@given(functions, st.lists(st.tuples(st.integers(0, 4), st.sampled_from(WORDS)), min_size=1, max_size=6))
def test_words_in_comments_docstrings_and_unrelated_strings_are_never_findings(funcs, words):
    assert scan(None, render(funcs, words=words)) == ()


@analysis
@given(functions, st.lists(st.tuples(st.integers(0, 4), st.sampled_from(AWARE)), max_size=4),
       st.permutations(range(5)))
def test_moving_functions_adds_nothing(funcs, snippets, order):
    placed = [(funcs[at][0], text) for at, (text, _what) in snippets if at < len(funcs)]
    moved = [funcs[i] for i in order if i < len(funcs)]

    def words(fs):
        return [(i, text) for i, (name, _v) in enumerate(fs) for owner, text in placed if owner == name]

    assert scan(render(funcs, words=words(funcs)), render(moved, words=words(moved))) == ()


# (statement, what it reads): a pure function's reads of the machine, each spelt through IMPORTS.
READS = [
    ("y = len(sys.argv)", "sys.argv"), ("y = system.flags.optimize", "sys.flags.optimize"),
    ("y = os.cpu_count()", "os.cpu_count"), ("y = environ.get('TZ')", "os.environ.get"),
    ("y = th.active_count()", "threading.active_count"), ("y = Path.cwd()", "pathlib.Path.cwd"),
    ("y = open('/etc/hostname').read()", "open"), ("y = __file__", "__file__"),
]


def reads(base: Optional[str], head: Optional[str]):
    return testaware.machine_reads("src/generated.py", base, head)


@analysis
@given(functions.filter(bool), st.sampled_from(READS), st.data())
def test_a_read_of_the_machine_added_to_any_function_is_found_at_its_line_and_nowhere_where_the_base_had_it(
        funcs, snippet, data):
    at = data.draw(st.integers(0, len(funcs) - 1))
    others = [(i, data.draw(st.sampled_from(READS))[0]) for i in range(len(funcs)) if i != at]
    base = render(funcs, words=others)
    head = render(funcs, (at, snippet[0]), words=others)
    line = head.splitlines().index(f"def {funcs[at][0]}(x):") + 2
    assert [(f.line, f.what) for f in reads(base, head)] == [(line, f"`{funcs[at][0]}` reads `{snippet[1]}`")]
    assert reads(head, head) == ()
    order = data.draw(st.permutations(range(len(funcs))))
    moved = [funcs[i] for i in order]
    placed = {funcs[i][0]: text for i, text in [*others, (at, snippet[0])]}
    assert reads(head, render(moved, words=[(i, placed[n]) for i, (n, _) in enumerate(moved) if n in placed])) == ()


dotted = st.lists(st.sampled_from(["os", "sys", "time", "path", "flags", "now", "date", "datetime", "json", "open",
                                   "math", "floor", "join", "getuid", "random", "Random", "billing", "x"]),
                  min_size=1, max_size=4).map(".".join)


@given(dotted, st.sampled_from(["attr", "value", "real", "join", "now"]))
def test_what_reads_the_machine_still_does_through_any_attribute_of_it(name, attribute):
    if stdlib.reads_the_machine(name):
        assert stdlib.reads_the_machine(f"{name}.{attribute}")


@given(dotted, st.frozensets(dotted, max_size=4), st.frozensets(dotted, max_size=4))
def test_allowing_more_never_finds_more(name, allowed, more):
    if stdlib.reads_the_machine(name, allowed | more):
        assert stdlib.reads_the_machine(name, allowed)
    assert not stdlib.reads_the_machine(name, frozenset({name}))
