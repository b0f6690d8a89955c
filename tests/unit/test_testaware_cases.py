import textwrap
from pathlib import Path

import pytest

from oracle_gate.core.ladder.testaware import (Finding, assert_effects, finally_exits, lossy_memos, message_effects,
                                              removed_locks, shared_results, shared_scratch, split_sections,
                                              checks_then_waits, import_fallbacks, machine_reads,
                                              test_aware_findings)
from oracle_gate.core.source.stdlib import CONCURRENCY_NAMES, STDLIB_MODULES, reads_the_machine
from oracle_gate.core.source.symbols import SourceError

ROOT = Path(__file__).resolve().parents[2]  # the build root, here and in a Pants sandbox
ORACLES = ("oracle", "examples/billing/oracle")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def whats(head: str, base=None):
    return [(f.line, f.what) for f in test_aware_findings("src/m.py", base, head, ORACLES)]


def test_honest_production_code_has_no_findings():
    billing = sorted((ROOT / "examples/billing/src/billing").glob("*.py"))
    core = sorted((ROOT / "src/oracle_gate/core").rglob("*.py"))
    assert len(billing) >= 6 and len(core) >= 10
    for path in billing + core:
        found = test_aware_findings(str(path), None, path.read_text(), ORACLES)
        if path.name == "results.py":  # the results protocol itself names the results path
            found = tuple(f for f in found if not f.what.startswith("refers to the results path"))
        assert found == (), path


def test_imports_of_test_runners_in_every_form():
    source = src('''
        import importlib
        import pytest as p
        from _pytest import outcomes
        import hypothesis.strategies
        mod = importlib.import_module("py" + "test")
        hyp = __import__("hypothesis")
        spec = importlib.util.find_spec("pytest")
        ''')
    assert whats(source) == [(2, "imports pytest"), (3, "imports _pytest"), (4, "imports hypothesis"),
                             (5, "imports pytest"), (6, "imports hypothesis"), (7, "imports pytest")]


def test_runner_lookups_in_sys_modules_argv_and_the_environment():
    source = src('''
        import os
        import sys
        from os import environ as env

        KEY = "PYTEST_" + "CURRENT_TEST"


        def under_test():
            if "pytest" in sys.modules:
                return True
            if sys.modules.get("tsetyp"[::-1]) is not None:
                return True
            if any(name.startswith("hypothesis") for name in sys.modules):
                return True
            if os.environ.get(KEY) or os.getenv("HYPOTHESIS_PROFILE"):
                return True
            if "PYTEST_XDIST_WORKER" in env:
                return True
            return os.path.basename(sys.argv[0]) == "py.test"
        ''')
    # the most specific word wins: a named runner lookup is not also an anonymous sys.modules lookup
    assert whats(source) == [
        (9, "looks up 'pytest' in sys.modules"), (11, "looks up 'pytest' in sys.modules"),
        (13, "looks up 'hypothesis' in sys.modules"), (15, "looks up 'PYTEST_CURRENT_TEST' in os.environ"),
        (17, "looks up 'PYTEST_XDIST_WORKER' in os.environ"), (19, "looks up 'py.test' in sys.argv")]


def test_any_look_at_the_interpreter_s_own_state_is_test_aware():
    """Pytest enables faulthandler, installs pluggy and profile hooks, sits on the call stack: code
    that looks at any of it can tell, whatever name it looks for: a computed name (here spelled in
    rot13) is found as a lookup in sys.modules, never by recognising how it was spelled."""
    source = src('''
        import atexit
        import codecs
        import faulthandler
        import gc
        import os
        import sys
        import threading

        def under_test():
            if faulthandler.is_enabled() or threading._profile_hook is not None:
                return True
            if "pluggy" in sys.modules or codecs.decode("clgrfg", "rot13") in sys.modules:
                return True
            try:
                raise RuntimeError
            except RuntimeError as e:
                caller = e.__traceback__.tb_frame.f_back
            return any(type(o).__name__ == "Config" for o in gc.get_objects())

        atexit.register(lambda: os._exit(0))
        own = sys.modules[__name__]  # the module's own entry: not a lookup of anything else
        ''')
    found = {what for _line, what in whats(source)}
    for hook in ("faulthandler", "threading._profile_hook", "a sys.modules lookup",
                 "frame attribute tb_frame", "frame attribute f_back", "gc.get_objects", "atexit.register", "os._exit"):
        assert f"inspects the interpreter ({hook})" in found, (hook, found)
    assert (12, "inspects the interpreter (a sys.modules lookup)") in whats(source)  # the rot13-spelled name
    assert not any("rot13" in what for _line, what in whats(source))
    assert (22, "inspects the interpreter (a sys.modules lookup)") not in whats(source)


def test_the_call_stack_installed_distributions_and_the_gates_own_variables():
    source = src('''
        import importlib.metadata
        import os
        import sys

        def under_test():
            frame = sys._getframe(1)
            if frame.f_globals.get("__name__", "").startswith("_pytest"):
                return True
            if os.environ.get("ORACLE_GATE_MUTANT"):
                return True
            return importlib.metadata.version("hypothesis")
        ''')
    assert whats(source) == [(6, "inspects the interpreter (sys._getframe)"),
                             (7, "inspects the interpreter (frame attribute f_globals)"),
                             (7, "looks up '_pytest' in the call stack"),
                             (9, "looks up 'ORACLE_GATE_MUTANT' in os.environ"), (11, "imports hypothesis")]


def test_tracing_hooks_and_the_results_path():
    source = src('''
        import sys
        import threading
        from pathlib import Path
        from sys import settrace as hook

        def spy():
            hook(None)
            sys.setprofile(None)
            threading.settrace(None)
            tool = sys.monitoring.PROFILER_ID
            out = Path("dist") / "extra-output" / "x.json"
            state = open(".oracle-gate/state.json").read()
            results = "/".join(["oracle-gate", "results.json"])
        ''')
    assert whats(source) == [
        (4, "uses sys.settrace"), (7, "uses sys.settrace"), (8, "uses sys.setprofile"),
        (9, "uses threading.settrace"), (10, "uses sys.monitoring"), (11, "refers to the results path (extra-output)"),
        (12, "refers to the results path (.oracle-gate)"), (13, "refers to the results path (oracle-gate/results)")]


def test_writes_to_oracle_paths_but_not_reads():
    source = src('''
        import os
        import shutil
        from pathlib import Path

        SEED = "oracle/fixtures/seed.json"
        HERE = Path(__file__).parent

        def tamper(data):
            with open(SEED) as fh:
                fh.read()
            with open(SEED, mode="w") as fh:
                fh.write(data)
            (HERE / "oracle" / "fixtures" / "seed.json").write_text(data)
            shutil.copy("new.json", f"./oracle/fixtures/{data}.json")
            os.replace("tmp.json", os.path.join("examples/billing/oracle", "traces", "t.jsonl"))
            Path("oracle/ledger.json").unlink()
            with open("build/out.json", "w") as fh:
                fh.write(data)
            backup = SEED.replace(".json", ".bak")
            Path(backup).replace(SEED)
        ''')
    assert whats(source) == [
        (11, "writes oracle path oracle/fixtures/seed.json"), (13, "writes oracle path */oracle/fixtures/seed.json"),
        (14, "writes oracle path ./oracle/fixtures/*.json"),
        (15, "writes oracle path examples/billing/oracle/traces/t.jsonl"), (16, "writes oracle path oracle/ledger.json"),
        (20, "writes oracle path oracle/fixtures/seed.bak"), (20, "writes oracle path oracle/fixtures/seed.json")]
    assert test_aware_findings("src/m.py", None, source) == ()


def test_words_in_comments_docstrings_and_unrelated_strings_are_not_findings():
    source = src('''
        """Works the same under pytest and hypothesis; never reads PYTEST_CURRENT_TEST or extra-output."""
        import os

        # if "pytest" in sys.modules: ... (we never do this)
        HELP = "run the tests with pytest -p hypothesis"

        def home():
            """sys.settrace is not used here."""
            return os.environ.get("HOME")
        ''')
    assert whats(source) == []


def test_only_what_the_head_adds_is_reported():
    base = src('''
        import sys

        def a():
            return "pytest" in sys.modules

        def b():
            return 1
        ''')
    moved = src('''
        import sys

        def b():
            return 2

        def a():
            # moved below b
            return "pytest" in sys.modules
        ''')
    assert whats(moved, base) == []
    spread = base.replace("return 1", 'return "pytest" in sys.modules')
    assert whats(spread, base) == [(7, "looks up 'pytest' in sys.modules")]
    assert test_aware_findings("src/m.py", spread, None) == ()
    assert test_aware_findings("src/m.py", None, spread)[0] == Finding("src/m.py", 4, "looks up 'pytest' in sys.modules")


def test_unparsable_source_is_a_source_error():
    with pytest.raises(SourceError):
        test_aware_findings("src/m.py", None, "def f(:\n")


def test_newer_syntax_is_scanned_not_rejected():
    # `match` (3.10) under Pants' Python 3.9: parsed through its line-preserving downgrade
    base = "def f(x):\n    match x:\n        case {'k': v} if v:\n            return v\n        case _:\n            return 0\n"
    assert whats(base, base) == []
    head = base.replace("return 0", "import sys\n            return 'pytest' in sys.modules")
    assert whats(head, base) == [(7, "looks up 'pytest' in sys.modules")]


def test_rebinding_what_another_module_defines_is_test_aware_and_own_objects_are_not():
    source = src('''
        import builtins
        import importlib
        import tax
        from . import rates
        setattr(tax, "amount_due", lambda cents: cents // 2)
        tax.amount_due = None
        builtins.sorted = lambda xs: xs
        __builtins__["sorted"] = list
        rates.RATE_BP = 0
        importlib.import_module("ta" + "x").fee = 0
        vars(tax)["fee"] = 0
        del tax.fee


        class Box:
            pass


        def fill(box: Box) -> Box:
            box.size = 3
            mine = Box()
            mine.size = 4
            return box
        ''')
    said = ", defined outside this module (what uses it there is judged by oracles that never import this one)"
    assert whats(source) == [(5, "rebinds tax.amount_due" + said), (6, "rebinds tax.amount_due" + said),
                             (7, "rebinds builtins.sorted" + said), (8, "rebinds builtins.sorted" + said),
                             (9, "rebinds .rates.RATE_BP" + said), (10, "rebinds tax.fee" + said),
                             (11, "rebinds tax.fee" + said), (12, "rebinds tax.fee" + said)]
    # Already there at the base: nothing new.
    assert whats(source, base=source) == []
    # Through a namespace: a function's module globals, vars() of a module.
    through = src('''
        import tax
        __all__ = ["split"] + [tax.amount_due.__globals__.update(tax=len)][:0]
        vars(tax).setdefault("fee", 0)
        mine = {}
        mine.update(a=1)
        ''')
    assert whats(through) == [(2, "rebinds tax.amount_due.tax" + said), (3, "rebinds tax.fee" + said)]
    # Through the attribute protocol itself, on the module or through its type; a frozen
    # dataclass setting its own field is its own object.
    dunder = src('''
        import tax
        object.__setattr__(tax, "amount_due", max)
        tax.__delattr__("fee")


        def __post_init__(self):
            object.__setattr__(self, "total", 0)
        ''')
    assert whats(dunder) == [(2, "rebinds tax.amount_due" + said), (3, "rebinds tax.fee" + said)]


# -- names rebound while the tests ran ---------------------------------------------------------------

from oracle_gate.core.ladder.testaware import plain_defs, rebound_findings  # noqa: E402

TAX = '''"""Tax."""
import functools
from os.path import join, split as _split


def tax(cents, rate_bp):
    return cents * rate_bp // 10_000


def amount_due(cents, rate_bp):
    total = cents + tax(cents, rate_bp)
    return total


@functools.lru_cache()
def cached(x):
    return x


def fallback():
    return 1


try:
    from _speedups import fallback
except ImportError:
    pass


def later():
    return 1


def rebinds_itself():
    global later
    later = None


if True:
    def conditional():
        return 2
else:
    def conditional():
        return 3


class Money:
    def tax(self):
        return 0

    @property
    def total(self):
        return 0

    def aliased(self):
        return 0

    also = aliased

    def assigned_below(self):
        return 0


Money.assigned_below = None


class Twice:
    def one(self):
        return 1


class Twice:
    def two(self):
        return 2


squares = [amount for amount in range(3)]
'''


def test_plain_defs_are_the_names_only_an_undecorated_def_binds():
    assert plain_defs(TAX) == {"tax": 6, "amount_due": 10, "rebinds_itself": 34, "conditional": 40,
                               "Money.tax": 48, "Money.aliased": 55}
    assert plain_defs("def f(): pass\nf = 1\n") == {}
    assert plain_defs("def f(): pass\nfor f in []: pass\n") == {}
    assert plain_defs("def f(): pass\nif (f := 2): pass\n") == {}
    assert plain_defs("def f(): pass\ndel f\n") == {}
    assert plain_defs("def f(): pass\nclass f: pass\n") == {}
    assert plain_defs("def f(): pass\ndef g():\n    f = 2\n    return f\n") == {"f": 1, "g": 2}


def test_a_production_def_bound_to_another_callable_after_its_module_ran_is_found():
    seen = [
        ("src/tax.py", "amount_due", "", "builtin max", "oracle:money"),
        ("src/tax.py", "amount_due", "", "builtin max", "oracle:invoice"),  # the same name, another session
        ("src/tax.py", "tax", "src/money.py", "<lambda> at src/money.py:9", "oracle:money"),
        ("src/tax.py", "cached", "", "functools._lru_cache_wrapper object", "oracle:money"),  # decorated
        ("src/tax.py", "fallback", "", "builtin fallback", "oracle:money"),  # an import may rebind it
        ("src/tax.py", "rebinds_itself", "tests/test_tax.py", "spy at tests/test_tax.py:3", "oracle:money"),
        ("src/tax.py", "conditional", "", "a mock", "oracle:money"),
        ("tests/test_tax.py", "helper", "", "builtin max", "oracle:money"),  # not production
    ]
    found = rebound_findings(seen, {"src/tax.py": TAX}, {"src/tax.py", "src/money.py"}, "a mock")
    assert [(f.path, f.line) for f in found] == [("src/tax.py", 6), ("src/tax.py", 10)]
    assert found[1].what == ("`amount_due` is not its own def when the tests end: it is builtin max, bound there "
                             "after the module ran (in oracle:invoice's session)")
    assert "<lambda> at src/money.py:9" in found[0].what
    assert rebound_findings(seen, {"src/tax.py": None}, {"src/tax.py"}, "a mock") == ()
    assert rebound_findings(seen, {"src/tax.py": "def ("}, {"src/tax.py"}, "a mock") == ()


def test_a_return_break_or_continue_leaving_a_finally_block_discards_the_exception_in_flight():
    """Open after the removed-rejection rule: `return` in `finally` swallowed a guard's raise that
    still stands in the code (no rejection removed, every mutant of the guard sees the code run).
    PEP 765's statements, added by the diff: those in a nested function or a loop of the finally
    block's own, or already there at the base in the same function, are not."""
    base = src('''
        def apply_credit(balances, account, cents):
            if cents <= 0:
                raise ValueError("a credit is positive")
            balances[account] = balances.get(account, 0) + cents
            return balances[account]


        def close(handles):
            try:
                handles.flush()
            finally:
                for h in handles:
                    if h is None:
                        continue
                    h.close()
        ''')
    head = src('''
        def apply_credit(balances, account, cents):
            try:
                if cents <= 0:
                    raise ValueError("a credit is positive")
                balances[account] = balances.get(account, 0) + cents
            finally:
                return balances.get(account, 0)


        def close(handles):
            try:
                handles.flush()
            finally:
                for h in handles:
                    if h is None:
                        continue
                    h.close()
                else:
                    def later():
                        return 1
                while True:
                    try:
                        handles.sync()
                    finally:
                        break
        ''')
    found = [(f.line, f.what) for f in finally_exits("src/store.py", base, head)]
    assert found == [
        (7, "`return` in a `finally` block discards any exception in flight"),
        (25, "`break` in a `finally` block discards any exception in flight"),
    ], found
    assert finally_exits("src/store.py", head, head) == ()  # the base had them: nothing added
    with pytest.raises(SourceError):
        finally_exits("src/store.py", None, "def broken(:\n")


def test_an_assert_whose_test_has_an_effect_is_code_python_minus_o_skips():
    """An outside attacker's round (sixth, against b32ab40): `assert self.balances.setdefault(account,
    0) is not None` before `self.balances[account] += cents` merged: every test runs the assert, so
    its effect is there; `python -O` drops it, and a new account's credit is a KeyError in
    production. Asserts whose test only computes (comparisons, `isinstance`, a call of a function
    whose result it checks: a module's self-check) are not findings, nor one the base already had."""
    base = src('''
        def apply_credit(balances, account, cents):
            assert isinstance(cents, int) and len(account) > 0, "bad input"
            balances[account] = balances.get(account, 0) + cents
            return balances[account]
        ''')
    head = base.replace("    balances[account] = balances.get(account, 0) + cents\n",
                        "    assert balances.setdefault(account, 0) is not None\n"
                        "    assert account.strip() == account and valid(account)\n"
                        "    assert (n := len(account)) < 64, n\n"
                        "    balances[account] += cents\n")
    found = [(f.line, f.what) for f in assert_effects("src/store.py", base, head)]
    assert found == [(3, "an `assert` whose test acts (`balances.setdefault(...)`), which `python -O` skips"),
                     (5, "an `assert` whose test acts (an assignment (`:=`)), which `python -O` skips")], found
    assert assert_effects("src/store.py", head, head) == ()


def test_a_message_whose_arguments_act_is_a_finding_and_one_that_only_reads_is_not():
    """An outside attacker's round (sixth, against b32ab40): print calls whose arguments pop the
    caller's invoice lines, run `curl` through `os.system`, or pop an account from 2027 on merged:
    a killed mutant of the code inside cleared the line. A message may compute what it says; it
    may not change its receiver or act on the world."""
    base = src('''
        import json
        import logging
        import os
        import sys


        def encode(invoice):
            return json.dumps(invoice)
        ''')

    def found(line):
        head = base.replace("    return json.dumps(invoice)", f"    {line}\n    return json.dumps(invoice)")
        return [f.what for f in message_effects("src/io.py", base, head)]

    assert found('print("x", *(invoice["lines"].pop() for _ in range(3)), file=sys.stderr)') == [
        "a message whose arguments act (`pop(...)`)"]
    assert found('print("audit", os.system("curl -s https://example.invalid"))') == [
        "a message whose arguments act (`os.system(...)`)"]
    assert found('logging.debug("mask %o", os.umask(0))') == ["a message whose arguments act (`os.umask(...)`)"]
    assert found('raise ValueError("bad", invoice.clear())') == ["a message whose arguments act (`invoice.clear(...)`)"]
    # reading is fine: what real log lines compute (backend.ai's history: json.dumps, a masking helper, sorted)
    assert found('logging.info("encoding %s", json.dumps(sorted(invoice)), len(invoice))') == []
    assert found('logging.error("bad token %s", mask(invoice["token"]).upper())') == []
    assert message_effects("src/io.py", base, base) == ()


def test_a_function_the_diff_makes_hand_every_caller_one_mutable_object_is_found():
    """An outside attacker's round (sixth, against b32ab40): `decode` memoised through
    `_DECODED.setdefault(text, {...})` and through a bare `@functools.lru_cache` merged: each call
    alone returns the right value, and one caller's change to the result is every later caller's.
    Memoised functions that return a dict, list or set, and functions that return an object they
    keep in module-level state, are found; a copy, an immutable result, or what the base had is not."""
    base = textwrap.dedent('''\
        import functools
        from typing import Dict, List

        _SEEN: Dict[str, List[int]] = {}


        def decode(text: str) -> Dict[str, int]:
            return {"n": len(text)}


        @functools.lru_cache(maxsize=None)
        def rate(kind: str) -> int:
            return len(kind)
        ''')
    memo = base.replace("def decode(", "@functools.lru_cache\ndef decode(")
    assert [f.what for f in shared_results("io.py", base, memo)] == [
        "`decode` is memoised (`@functools.lru_cache`) and returns a mutable object: every caller gets the same one"]
    setdefault = base.replace('return {"n": len(text)}', 'return _SEEN.setdefault(text, [len(text)])')
    assert [(f.line, f.what) for f in shared_results("io.py", base, setdefault)] == [
        (8, "`decode` returns a mutable object it keeps in module-level state (`_SEEN`): every caller gets the same one")]
    stored = base.replace('    return {"n": len(text)}',
                          '    if text in _SEEN:\n        return _SEEN[text]\n    doc = [len(text)]\n    _SEEN[text] = doc\n    return doc')
    assert [f.line for f in shared_results("io.py", base, stored)] == [9]
    # a copy handed out, an immutable result, a cache of immutable values, what the base already had
    copied = stored.replace("return _SEEN[text]", "return list(_SEEN[text])").replace("    return doc", "    return list(doc)")
    immutable = base.replace("def rate(kind: str) -> int:", "def rate(kind: str) -> tuple:").replace(
        "return len(kind)", "return (len(kind),)")
    assert shared_results("io.py", base, copied) == ()
    assert shared_results("io.py", base, immutable) == ()
    assert shared_results("io.py", memo, memo) == ()
    assert shared_results("io.py", base, None) == ()
    with pytest.raises(SourceError):
        shared_results("io.py", base, "def (")
    # a post-rule variant round (against e8879a3): the same memo written by hand, its dict in a
    # closure, merged; state an enclosing call binds outlives each call of the inner function
    closure = base.replace("def decode(", textwrap.dedent('''\
        def _once(fn):
            seen = {}

            def wrapper(text: str) -> Dict[str, int]:
                if text not in seen:
                    seen[text] = fn(text)
                return seen[text]

            return wrapper


        @_once
        def decode('''))
    assert [(f.line, f.what) for f in shared_results("io.py", base, closure)] == [
        (13, "`wrapper` returns a mutable object it keeps in its enclosing function's state (a closure) (`seen`): "
             "every caller gets the same one")]
    fresh = closure.replace("return seen[text]", "return dict(seen[text])")
    assert shared_results("io.py", base, fresh) == ()
    # an eighth outside round (against dd2bba4): a module-level list, emptied on each call, filled
    # and returned itself (or through a local bound to it) merged in a `concurrent` region
    kept = base.replace('    return {"n": len(text)}', '    _DONE.clear()\n    _DONE.append(len(text))\n    return _DONE') \
        .replace("_SEEN: Dict", "_DONE: List[int] = []\n_SEEN: Dict")
    assert [(f.line, f.what) for f in shared_results("io.py", base, kept)] == [
        (11, "`decode` returns a mutable object it keeps in module-level state (`_DONE`): every caller gets the same one")]
    aliased = kept.replace("    _DONE.clear()\n", "    done = _DONE\n    del done[:]\n").replace("return _DONE", "return done")
    assert [f.line for f in shared_results("io.py", base, aliased)] == [12]
    assert shared_results("io.py", base, kept.replace("return _DONE", "return list(_DONE)")) == ()


def test_a_lock_a_function_held_at_the_base_and_holds_no_more_is_found():
    """An outside attacker's round (sixth, against b32ab40): `drain`'s workers claimed result slots
    from a shared counter with the lock removed, and merged: a race no run showed. A lock a
    function held at the base (by `with` or `acquire`, on anything bound to a lock type or named
    like one) that it no longer holds is found at its base line; one still held, moved or renamed
    to another lock, is not."""
    base = textwrap.dedent('''\
        import threading

        _GUARD = threading.RLock()


        class Book:
            def __init__(self):
                self._mutex = threading.Lock()
                self.rows = []

            def add(self, row):
                with self._mutex:
                    self.rows.append(row)

            def reset(self):
                _GUARD.acquire()
                try:
                    self.rows = []
                finally:
                    _GUARD.release()
        ''')
    unlocked = base.replace("        with self._mutex:\n            self.rows.append(row)", "        self.rows.append(row)")
    assert [(f.line, f.what) for f in removed_locks("b.py", base, unlocked)] == [
        (12, "`Book.add` no longer holds `self._mutex`")]
    released = base.replace("_GUARD.acquire()", "pass")
    assert [(f.line, f.what) for f in removed_locks("b.py", base, released)] == [
        (16, "`Book.reset` no longer holds `_GUARD`")]
    renamed = base.replace("self._mutex", "self._rows_lock")
    assert [f.what for f in removed_locks("b.py", base, renamed)] == []  # another lock, still held
    moved = base.replace("        with self._mutex:\n            self.rows.append(row)",
                         "        self._append(row)\n\n    def _append(self, row):\n        with self._mutex:\n"
                         "            self.rows.append(row)")
    assert [f.what for f in removed_locks("b.py", base, moved)] == ["`Book.add` no longer holds `self._mutex`"]
    assert removed_locks("b.py", base, base) == () and removed_locks("b.py", None, base) == ()


def test_a_lock_each_call_makes_for_itself_is_no_lock_held():
    """A post-rule variant round (against e8879a3): `lock = threading.Lock()` moved from `drain`
    into the worker it starts merged: every thread then holds a lock of its own and none excludes
    another. A lock a function makes and holds itself, handing it to nobody (no nested def, call,
    store or return sees it), is not a lock held; one it hands on is."""
    base = textwrap.dedent('''\
        import threading


        def drain(items, workers=4):
            done = []
            lock = threading.Lock()

            def work():
                while items:
                    with lock:
                        done.append(items.pop())

            threads = [threading.Thread(target=work) for _ in range(workers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return done
        ''')
    moved = base.replace("    lock = threading.Lock()\n\n    def work():\n",
                         "\n    def work():\n        lock = threading.Lock()\n")
    assert [(f.line, f.what) for f in removed_locks("w.py", base, moved)] == [
        (10, "`drain.<locals>.work` no longer holds `lock` (the `lock` it holds now is made by each call for itself: "
             "no other thread can hold it, so it excludes nothing)")]
    acquired = moved.replace("with lock:\n                done", "lock.acquire()\n            done")
    assert [f.line for f in removed_locks("w.py", base, acquired)] == [10]
    # made in the function and handed on: to the threads it starts, to a call, to its caller
    handed = base.replace("def work():", "def work(lock=lock):")
    passed = moved.replace("        lock = threading.Lock()\n", "        lock = threading.Lock()\n        register(lock)\n")
    kept = moved.replace("        lock = threading.Lock()\n", "        lock = threading.Lock()\n        LOCKS.append(lock)\n")
    assert removed_locks("w.py", base, handed) == ()
    assert removed_locks("w.py", base, passed) == () and removed_locks("w.py", base, kept) == ()


def test_a_critical_section_the_diff_splits_in_two_is_found():
    """An eighth outside round (against dd2bba4): `drain`'s workers read the last pending item under
    the lock, let it go, and popped it under a second hold: two workers could take one item, and it
    merged (a race no run showed). A function that reads shared state under a lock and, under a
    later hold of the same lock in the same block, changes that state with what it read is found
    at the second hold; one hold around both, or a second section that uses nothing the first
    read, is not."""
    base = textwrap.dedent('''\
        import threading


        def drain(items):
            pending = list(items)
            done = []
            lock = threading.Lock()

            def work():
                while True:
                    with lock:
                        if not pending:
                            return
                        item = pending.pop()
                        done.append(item)

            work()
            return done
        ''')
    split = base.replace("                item = pending.pop()\n                done.append(item)\n",
                         "                item = pending[-1]\n"
                         "            with lock:\n"
                         "                done.append(item)\n"
                         "                pending.pop()\n")
    assert [(f.line, f.what) for f in split_sections("w.py", base, split)] == [
        (15, "`work` reads `pending` under `lock`, lets it go, and changes `pending` under a second hold of it "
             "with what it read (`item`)")]
    assert split_sections("w.py", base, base) == ()
    assert split_sections("w.py", split, split) == ()  # the base's own split is no change of the diff's
    # a second section that acts on nothing the first read
    apart = split.replace("                pending.pop()\n", "")
    assert split_sections("w.py", base, apart) == ()
    with pytest.raises(SourceError):
        split_sections("w.py", base, "def (")


def test_a_memo_keyed_by_a_lossy_function_of_the_arguments_is_found():
    """An eighth outside round (against dd2bba4, and still at 39d8607): `tax` memoised under
    `hash((cents, rate_bp)) & 0xFFFFFFFF` gives one call's tax to another whose key collides; each
    call alone is right and no sample holds a colliding pair, so it merged. A function that returns
    what it keeps in a mapping outliving the call, under a key computed from its arguments, is
    found at the key; a key made of the arguments themselves (a tuple, sorted items, a type) is
    not, nor is a mapping the function never returns from."""
    base = "def tax(cents, rate_bp):\n    return (cents * rate_bp + 5_000) // 10_000\n"
    hashed = ("_MEMO = {}\n\n\ndef tax(cents, rate_bp):\n"
              "    return _MEMO.setdefault(hash((cents, rate_bp)) & 0xFFFFFFFF, (cents * rate_bp + 5_000) // 10_000)\n")
    assert [(f.line, f.what) for f in lossy_memos("t.py", base, hashed)] == [
        (5, "`tax` keeps its results in `_MEMO` under a key computed from its arguments "
            "(`hash((cents, rate_bp)) & 0xFFFFFFFF`), not the arguments themselves")]
    assert lossy_memos("t.py", hashed, hashed) == ()  # the base's own memo is no change of the diff's
    checked = textwrap.dedent('''\
        _DUE = {}


        def amount_due(cents, rate_bp):
            key = zlib.crc32(b"%d/%d" % (cents, rate_bp))
            if key not in _DUE:
                _DUE[key] = cents + tax(cents, rate_bp)
            return _DUE[key]
        ''')
    assert [f.line for f in lossy_memos("t.py", base, checked)] == [5]
    got = checked.replace("    if key not in _DUE:\n        _DUE[key] = cents + tax(cents, rate_bp)\n    return _DUE[key]",
                          "    due = _DUE.get(key)\n    if due is None:\n        due = _DUE[key] = cents + tax(cents, rate_bp)\n"
                          "    return due")
    assert [f.line for f in lossy_memos("t.py", base, got)] == [5]
    for key in ("(cents, rate_bp)", "(type(cents), cents, rate_bp)", "cents, rate_bp"):
        assert lossy_memos("t.py", base, checked.replace('zlib.crc32(b"%d/%d" % (cents, rate_bp))', key)) == (), key
    # a hand-written memo decorator's closure, keyed by the arguments or by their text
    decorator = textwrap.dedent('''\
        def memo(f):
            cache = {}

            def wrapper(*args, **kwargs):
                key = (args, tuple(sorted(kwargs.items())))
                if key not in cache:
                    cache[key] = f(*args, **kwargs)
                return cache[key]
            return wrapper
        ''')
    assert lossy_memos("t.py", base, decorator) == ()
    assert [f.line for f in lossy_memos("t.py", base, decorator.replace(
        "(args, tuple(sorted(kwargs.items())))", "repr(args)"))] == [5]
    # a mapping the function fills but never returns from is no memo (a count, a registry)
    counted = "_SEEN = {}\n\n\ndef seen(name):\n    _SEEN[name.lower()] = _SEEN.get(name.lower(), 0) + 1\n"
    assert lossy_memos("t.py", base, counted) == ()
    with pytest.raises(SourceError):
        lossy_memos("t.py", base, "def (")


def test_a_container_the_module_keeps_emptied_and_refilled_by_each_call_is_found():
    """A ninth outside round (against 39d8607): `drain` emptied a module-level list (`del _done[:]`),
    filled it through a local bound to it from its worker threads, and returned a copy: each call
    alone is right, two at once fill one list, and it merged (no `SHARED_RESULT`: it returns a copy).
    A function that empties such a container and fills it again is found at the emptying; one that
    only empties it (a reset) or only fills it (a registry) is not."""
    base = textwrap.dedent('''\
        import threading


        def drain(items):
            done = []
            lock = threading.Lock()

            def work():
                for item in items:
                    with lock:
                        done.append(item)

            work()
            return list(done)
        ''')
    kept = base.replace("import threading\n", "import threading\n\n_done = []\n").replace(
        "    done = []\n", "    del _done[:]\n    done = _done\n")
    assert [(f.line, f.what) for f in shared_scratch("w.py", base, kept)] == [
        (7, "`drain` empties `_done`, which the module keeps, and fills it again")]
    assert shared_scratch("w.py", kept, kept) == ()
    for emptied in ("_done.clear()", "_done[:] = []"):
        assert [f.line for f in shared_scratch("w.py", base, kept.replace("del _done[:]", emptied))] == [7], emptied
    reset = "_SEEN = {}\n\n\ndef reset():\n    _SEEN.clear()\n\n\ndef put(k, v):\n    _SEEN[k] = v\n"
    assert shared_scratch("w.py", base, reset) == ()
    with pytest.raises(SourceError):
        shared_scratch("w.py", base, "def (")


def test_a_blocking_take_after_a_check_of_the_same_queue_is_found():
    """The ninth outside round's p01 (against 39d8607, and still at b6404a8): `drain`'s workers loop
    `while not q.empty(): item = q.get()`; two workers that both see one item left both take, and
    the loser waits in `get()` forever. A take that may wait, under a test that asked the same
    queue about itself, is found; a take without waiting, or with a timeout, is not, nor is a check
    of another queue."""
    base = textwrap.dedent('''\
        import queue


        def work(q, done):
            while True:
                try:
                    item = q.get_nowait()
                except queue.Empty:
                    return
                done.append(item)
        ''')
    racy = textwrap.dedent('''\
        import queue


        def work(q, done):
            while not q.empty():
                item = q.get()
                done.append(item)
        ''')
    assert [(f.line, f.what) for f in checks_then_waits("w.py", base, racy)] == [
        (6, "`work` asks `q.empty()` and then waits in `q.get()` with no timeout")]
    assert checks_then_waits("w.py", racy, racy) == ()  # the base's own is no change of the diff's
    full = racy.replace("while not q.empty():", "if q.qsize() < 8:").replace("item = q.get()", "q.put(done)")
    assert [f.line for f in checks_then_waits("w.py", base, full)] == [6]
    for fine in ("q.get(False)", "q.get(block=False)", "q.get(timeout=1)", "q.get(True, 1)", "q.get_nowait()",
                 "other.get()"):
        assert checks_then_waits("w.py", base, racy.replace("q.get()", fine)) == (), fine
    assert [f.line for f in checks_then_waits("w.py", base, racy.replace("q.get()", "q.get(True)"))] == [6]
    with pytest.raises(SourceError):
        checks_then_waits("w.py", base, "def (")


def test_an_import_that_falls_back_to_another_module_is_found():
    """The tenth outside round (against 33bbce5): `try: import ujson as json` / `except ImportError:
    import json` in an io module. The sandbox had no ujson, so every oracle ran json; a machine with
    ujson writes `"inv\\/1"`. The code then depends on what the machine has installed."""
    base = "import json\n\n\ndef encode(doc):\n    return json.dumps(doc)\n"
    head = base.replace("import json\n", "try:\n    import ujson as json\nexcept ImportError:\n    import json\n")
    assert [(f.line, f.what) for f in import_fallbacks("io.py", base, head)] == [
        (1, "`<module>` binds `json` to `ujson` where it is installed and to `json` where it is not")]
    assert import_fallbacks("io.py", head, head + "x = 1\n") == ()  # the base's own is no change of the diff's
    assert import_fallbacks("io.py", None, head) != ()  # a new file's too
    named = base + "try:\n    from ujson import dumps\nexcept (ImportError, AttributeError):\n    from json import dumps\n"
    assert [f.what for f in import_fallbacks("io.py", base, named)] == [
        "`<module>` binds `dumps` to `ujson.dumps` where it is installed and to `json.dumps` where it is not"]
    optional = base + "try:\n    import numpy\nexcept ModuleNotFoundError:\n    numpy = None\n"
    assert [f.line for f in import_fallbacks("io.py", base, optional)] == [6]
    nested = base.replace("    return json.dumps(doc)\n", "    try:\n        import simplejson as j\n    except:\n"
                                                          "        import json as j\n    return j.dumps(doc)\n")
    assert [f.what.split(" binds")[0] for f in import_fallbacks("io.py", base, nested)] == ["`encode`"]
    # the sixteenth outside round's d28: a handler of a class ImportError derives from catches it too
    for broad in ("except Exception:\n    import json\n", "except BaseException:\n    import json\n",
                  "except (OSError, Exception):\n    import json\n", "except builtins.Exception:\n    import json\n"):
        assert [f.line for f in import_fallbacks("io.py", base, head.replace("except ImportError:\n    import json\n",
                                                                                 broad))] == [1], broad
    # what is not one: a handler for another error, one that binds nothing, one that binds another name
    for fine in ("except ValueError:\n    import json\n", "except ImportError:\n    pass\n",
                 "except ImportError:\n    import json as other\n"):
        assert import_fallbacks("io.py", base, head.replace("except ImportError:\n    import json\n", fine)) == (), fine
    with pytest.raises(SourceError):
        import_fallbacks("io.py", base, "def (")


def test_a_module_picked_by_asking_what_is_installed_is_found():
    """The tenth round's revision (p20): `importlib.import_module("ujson" if find_spec("ujson") else
    "json")`, no `try`. Any call that asks whether a module is installed is the same choice, however
    imported; so is a `try` that binds a name with `import_module` or `__import__`."""
    base = "import json\n\n\ndef encode(doc):\n    return json.dumps(doc)\n"
    probed = base.replace("import json\n", "import importlib\nimport importlib.util\n"
                          "json = importlib.import_module('ujson' if importlib.util.find_spec('ujson') else 'json')\n")
    assert [(f.line, f.what) for f in import_fallbacks("io.py", base, probed)] == [
        (3, "`<module>` asks whether 'ujson' is installed (`importlib.util.find_spec`)")]
    for spelled, probe in (("from importlib.util import find_spec as has\nFAST = has('orjson') is not None\n",
                            "importlib.util.find_spec"),
                           ("import pkgutil\ndef fast():\n    return pkgutil.find_loader('orjson')\n", "pkgutil.find_loader"),
                           ("from importlib import metadata\nFAST = metadata.version('orjson') > '3'\n",
                            "importlib.metadata.version")):
        assert [f.what.split(" asks ")[1] for f in import_fallbacks("io.py", base, base + spelled)] == [
            f"whether 'orjson' is installed (`{probe}`)"], spelled
    tried = base + "try:\n    fast = __import__('ujson')\nexcept builtins.ImportError:\n    fast = None\n"
    assert [f.what for f in import_fallbacks("io.py", base, tried)] == [
        "`<module>` binds `fast` to `'ujson'` where it is installed and to `None` where it is not"]
    # what is not one: a module named by the code's own data (a plugin loader), the base's own probe
    loader = base + "import importlib\ndef load(name):\n    return importlib.import_module(f'plugins.{name}')\n"
    assert import_fallbacks("io.py", base, loader) == ()
    assert import_fallbacks("io.py", probed, probed.replace("def encode", "def encode_doc")) == ()


# A seventeenth outside round's channels (against a511b30): each merged where the base's twin and
# the head's ran on one machine, the machine the oracles ran on. Each is one line a pure function adds.
MACHINE_CHANNELS = {
    "import sys\n_HALF = 5_000 * sys.flags.no_user_site\n": "sys.flags.no_user_site",
    "import time\n_HALF = 5_000 - 5_000 * time.daylight\n": "time.daylight",
    "import sys as s\n_UNIT = len(s.prefix) ^ len(s.base_prefix)\n": "sys.base_prefix",
    "import platform\n_A = platform.machine().count('a')\n": "platform.machine",
    "import os\n_FDS = len(os.listdir('/proc/self/fd'))\n": "os.listdir",
    "from resource import getrusage, RUSAGE_SELF\n_RSS = getrusage(RUSAGE_SELF).ru_maxrss\n": "resource.RUSAGE_SELF",
    "import os\n_CPUS = os.sysconf('SC_NPROCESSORS_ONLN')\n": "os.sysconf",
    "import threading\n_T = threading.active_count()\n": "threading.active_count",
    "import datetime\n_DAY = datetime.date.today().isoweekday()\n": "datetime.date.today",
    "from datetime import datetime as dt\n_H = dt.now().hour\n": "datetime.datetime.now",
    "import time\n_H = time.gmtime().tm_hour\n": "time.gmtime",
    "import os\n_N = len(os.uname().sysname)\n": "os.uname",
    "import time\n_CPU = time.process_time()\n": "time.process_time",
    "import glob\n_K = glob.glob('/var/run/secrets/*')\n": "glob.glob",
    "import shutil\n_W = shutil.get_terminal_size().columns\n": "shutil.get_terminal_size",
    "import uuid\n_MAC = uuid.getnode()\n": "uuid.getnode",
    "import getpass\n_U = getpass.getuser()\n": "getpass.getuser",
    "import platform\n_LIBC = platform.libc_ver()[0]\n": "platform.libc_ver",
    "import os\n_ROOT = os.getuid()\n": "os.getuid",
    "_HERE = __file__\n": "__file__",
    "_RATES = open('/proc/meminfo').read()\n": "open",
    "import sys\n_STDOUT = type(sys.stdout).__name__\n": "sys.stdout",
    "import locale\n_ENC = locale.getpreferredencoding()\n": "locale.getpreferredencoding",
    "import gc\n_GC = gc.get_count()\n": "gc.get_count",
    "import sys\n_WORD = sys.maxsize.bit_length()\n": "sys.maxsize.bit_length",
    "_AT = __file__.count('-packages')\n": "__file__.count",
    "import argparse\n_P = argparse.ArgumentParser()\n": "argparse.ArgumentParser",
    "import sys\n_B = sys.byteorder\n": "sys.byteorder",
    "import os\n_NICE = os.getpriority(os.PRIO_PROCESS, 0)\n": "os.getpriority",
    "import multiprocessing\n_M = multiprocessing.current_process().name\n": "multiprocessing.current_process",
    "import locale\n_L = locale.localeconv()\n": "locale.localeconv",
    "import sys\n_W = sys.dont_write_bytecode\n": "sys.dont_write_bytecode",
    "import random\nrandom.seed(1)\n": "random.seed",
}


def test_a_pure_function_that_reads_the_machine_is_found_whatever_the_channel():
    """A seventeenth outside round (against a511b30): 19 patches whose pure code reads a fact of the
    machine (its interpreter flags, virtualenv, processor, open files, memory, CPUs, threads, user,
    week day, hour, daylight saving, terminal, network card, libc). The twins run the head and the
    base on the one machine the oracles ran on, so each merged. A pure region's code reads only its
    arguments and the standard library's names that compute from theirs alone: an allowlist, so the
    next channel is one too."""
    base = "def tax(cents):\n    return cents // 10\n"
    for added, name in MACHINE_CHANNELS.items():
        found = machine_reads("tax.py", base, added + "\n\n" + base)
        assert f"`<module>` reads `{name}`" in [f.what for f in found], (added, found)
        assert {f.line for f in found} == {added.count("\n")}, (added, found)
    # inside the function too, through an alias and an assignment
    inside = "import os as o\n\n\ndef tax(cents):\n    n = o.cpu_count()\n    return cents // n\n"
    assert [(f.line, f.what) for f in machine_reads("tax.py", base, inside)] == [(5, "`tax` reads `os.cpu_count`")]
    # a concurrent region may size a pool by its CPUs and wait on a clock; not read who runs it
    assert machine_reads("w.py", base, inside, CONCURRENCY_NAMES) == ()
    assert [f.what for f in machine_reads("w.py", base, inside.replace("o.cpu_count()", "o.getuid() + 1"),
                                          CONCURRENCY_NAMES)] == ["`tax` reads `os.getuid`"]


def test_a_pure_function_may_read_its_arguments_the_pure_library_and_say_what_it_likes():
    """What is no read of the machine: the standard library's pure names (json, math, decimal,
    datetime's types), names outside the standard library, a read the base already made in the
    same function, and any read inside a log line or an exception's message (never judged)."""
    base = "import json\nimport logging\nimport time\n\n\ndef tax(cents):\n    return cents // 10\n"
    honest = base.replace("    return cents // 10\n", (
        "    logging.getLogger(__name__).debug('tax at %s on %s', time.time(), __file__)\n"
        "    if cents < 0:\n        raise ValueError(f'negative at {time.time()}')\n"
        "    import math, decimal, datetime, sys, os\n"
        "    day = datetime.date(2024, 1, 1) + datetime.timedelta(days=1)\n"
        "    big = sys.float_info.max if sys.version_info >= (3, 9) else 0\n"
        "    path = os.path.join('a', 'b')\n"
        "    id = 5\n"
        "    return math.floor(decimal.Decimal(cents) / 10) + len(json.dumps([day.isoformat(), path])) * 0 + big * 0 + id * 0\n"))
    assert machine_reads("tax.py", base, honest) == ()
    # a duration a log line reports: the clock read into a local that only messages read
    timed = base.replace("    return cents // 10\n", "    start = time.perf_counter()\n    due = cents // 10\n"
                         "    logging.debug('tax took %.3f s', time.perf_counter() - start)\n    return due\n")
    assert machine_reads("tax.py", base, timed) == ()
    assert [f.what for f in machine_reads("tax.py", base, timed.replace("return due", "return due + int(start) * 0"))] \
        == ["`tax` reads `time.perf_counter`"]  # read by the result too
    stamped = base.replace("    return cents // 10\n", "    return cents // 10 + int(time.time()) * 0\n")
    assert [f.what for f in machine_reads("tax.py", base, stamped)] == ["`tax` reads `time.time`"]
    assert machine_reads("tax.py", stamped, stamped + "\n\ndef other():\n    return 1\n") == ()  # the base's own
    assert machine_reads("tax.py", None, stamped) != ()  # a new file's too
    assert machine_reads("tax.py", base, "import numpy\n\n\ndef tax(cents):\n    return numpy.floor(cents)\n") == ()
    # a timestamp read in a zone the code names reads no machine's zone (marshmallow's `from_timestamp`)
    zoned = "import datetime as dt\n\n\ndef at(t):\n    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc)\n"
    assert machine_reads("t.py", None, zoned) == ()
    assert machine_reads("t.py", None, zoned.replace(", tz=dt.timezone.utc", ", dt.timezone.utc")) == ()
    assert [f.what for f in machine_reads("t.py", None, zoned.replace(", tz=dt.timezone.utc", ""))] == [
        "`at` reads `datetime.datetime.fromtimestamp`"]
    with pytest.raises(SourceError):
        machine_reads("tax.py", base, "def (")


def test_what_a_logger_holds_is_the_process_configuration_and_reading_it_is_a_read():
    """The seventeenth round's d36 keyed a pure function on a logger's level, read through the
    logger a call made (`logging.getLogger(...)`), which the analysis did not follow: a logger's
    level, handlers and filters are what the program's configuration set, not the function's
    arguments, however the logger was reached (a name bound to it, a child, an adapter, the root).
    What is no read: a logger fetched and told something, a level constant, a condition that only
    decides whether a message is said, an annotation, a generator given its seed."""
    base = ("import decimal\nimport logging\n\nlog = logging.getLogger(__name__)\n\n\n"
            "def tax(cents):\n    return cents // 10\n")
    reads = {
        "    return cents // 10 + (log.level > 10)\n": "logging.getLogger().level",
        "    return cents // 10 + logging.getLogger().getEffectiveLevel() * 0\n":
            "logging.getLogger().getEffectiveLevel",
        "    lg = logging.getLogger('billing')\n    if lg.isEnabledFor(logging.DEBUG):\n        return 0\n"
        "    return cents // 10\n": "logging.getLogger().isEnabledFor",
        "    return cents // 10 + len(log.getChild('tax').handlers)\n": "logging.getLogger().handlers",
        "    return cents // 10 + logging.LoggerAdapter(log, {}).isEnabledFor(10)\n":
            "logging.getLogger().isEnabledFor",
        "    return cents // 10 + len(logging.root.handlers)\n": "logging.root.handlers",
        "    import random\n    return cents // 10 + random.Random().randint(0, 1)\n": "random.Random",
        "    with decimal.localcontext() as ctx:\n        return int(decimal.Decimal(cents) / 10)\n":
            "decimal.localcontext",
    }
    for body, name in reads.items():
        head = base.replace("    return cents // 10\n", body)
        assert [f.what for f in machine_reads("tax.py", base, head)] == [f"`tax` reads `{name}`"], body
    honest = base.replace("    return cents // 10\n", (
        "    if log.isEnabledFor(logging.DEBUG):\n        log.debug('tax of %s', cents)\n"
        "    elif cents < 0:\n        pass\n"
        "    logging.getLogger(__name__).getChild('tax').info('tax at %s', logging.INFO)\n"
        "    import random, os\n    spread: os.PathLike = None\n"
        "    with decimal.localcontext(decimal.Context(prec=40)):\n        pass\n"
        "    return cents // 10 + random.Random(cents).randint(0, 0)\n"))
    assert machine_reads("tax.py", base, honest) == ()
    typed = base.replace("def tax(cents):", "def tax(cents: int, log: logging.Logger = log) -> int:")
    assert machine_reads("tax.py", base, typed) == ()
    # a condition before a log line that does more than ask the logger is judged as any code is
    for cond, name in (("random.seed(1) is None", "random.seed"), ("(n := os.cpu_count()) > 4", "os.cpu_count"),
                       ("os.environ.get('DEBUG')", "os.environ.get")):
        guarded = base.replace("    return cents // 10\n", f"    import os, random\n    if {cond}:\n"
                               f"        log.debug('tax of %s', cents)\n    return cents // 10\n")
        assert [f.what for f in machine_reads("tax.py", base, guarded)] == [f"`tax` reads `{name}`"], cond


def _each_found(base: str, reads: dict) -> None:
    """Each expression of `reads` added to `tax`'s result is found as the read it names."""
    for expr, name in reads.items():
        head = base.replace("return cents // 10", f"return cents // 10 + {expr} * 0")
        assert [f.what for f in machine_reads("tax.py", base, head)] == [f"`tax` reads {name}"], expr


def test_a_date_made_in_the_code_the_decimal_context_and_the_locale_s_formats_are_reads():
    """Channels the allowlist's names did not reach (tried against ba23c26, each no finding there):
    a class method that reads the clock reached through an instance or a class attribute
    (`date(2020, 1, 1).today()`, `datetime.min.now()`, `type(d).now()`), the thread's decimal
    context the program sets, and the formats the locale fills in (a number's `n`, strftime's day
    and month names, `%c`, `%x`). What is none: a date computed from its arguments, a format that
    names its digits, an ISO date, and any of them inside a message."""
    base = "import datetime\nimport decimal\n\n\ndef tax(cents):\n    return cents // 10\n"
    reads = {
        "datetime.date(2020, 1, 1).today().day": "`datetime.date.today`",
        "datetime.datetime.min.now().hour": "`datetime.datetime.min.now`",
        "type(datetime.datetime(2020, 1, 1)).utcnow().hour": "`datetime.datetime.utcnow`",
        "decimal.getcontext().prec": "`decimal.getcontext`",
        "len(f'{cents:n}')": "`the locale` (a format's `n`)",
        "len(format(cents, ',n'))": "`the locale` (a format's `n`)",
        "len('{:>12n}'.format(cents))": "`the locale` (a format's `n`)",
        "len(datetime.date(2020, 1, 1).strftime('%d %B %Y'))": "`the locale` (a format's `%B`)",
        "len(f'{datetime.date(2020, 1, 1):%a}')": "`the locale` (a format's `%a`)",
    }
    _each_found(base, reads)
    kept = base.replace("def tax", "DAY = datetime.date(2020, 1, 1)\n\n\ndef tax").replace(
        "return cents // 10", "return cents // 10 + DAY.today().day * 0")
    assert [f.what for f in machine_reads("tax.py", base, kept)] == ["`tax` reads `datetime.date.today`"]
    honest = base.replace("    return cents // 10\n", (
        "    day = datetime.date(2020, 1, 1).replace(day=cents % 28 + 1)\n"
        "    print(f'{cents:n} on {day:%A}', day.strftime('%x'))\n"
        "    return len(f'{cents:,d}{cents:>10.2f}' + day.strftime('%Y-%m-%d') + day.isoformat()) + "
        "datetime.datetime.min.year\n"))
    assert machine_reads("tax.py", base, honest) == ()


def test_a_read_through_another_module_a_reflecting_attribute_the_version_or_the_zone_is_a_read():
    """An eighteenth outside round (against 399c03d) reached `sys` through a pure module that
    imported it (`datetime.sys.executable`) and through a function's globals in a format field
    (`"{0.__globals__[sys].executable}".format(os.path.join)`), keyed tax on the interpreter's
    minor version by arithmetic, and read the machine's zone through a naive date's `timestamp()`
    and `astimezone()`: each merged. A name through another module is that module's; a reflecting
    attribute (a function's globals, frames, the builtins) on anything is a read, by attribute,
    `getattr` or a format's field; the version is a read but where a comparison asks it (a branch,
    judged branch by branch); a naive time's timestamp and `astimezone()` without a zone read it."""
    base = "import datetime\nimport os.path\nimport sys\n\n\ndef tax(cents):\n    return cents // 10\n"
    reads = {
        "min(datetime.sys.executable.count('pex_root'), 1)": "`datetime.sys.executable.count`",
        "len(os.path.os.environ)": "`os.path.os.environ`",
        "len('{0.__globals__[sys].executable}'.format(os.path.join))":
            "`__globals__` (through a format's field `0.__globals__[sys].executable`",
        "len(getattr(os.path.join, '__globals__'))": "`getattr(..., '__globals__')`",
        "len(tax.__globals__)": "`tax.__globals__`",
        "(1 - sys.version_info[1] // 10)": "`sys.version_info`",
        "int(datetime.datetime(2000, 1, 1).timestamp())": "`datetime.datetime.timestamp`",
        "datetime.datetime(2000, 1, 1).astimezone().hour": "`datetime.datetime.astimezone`",
    }
    _each_found(base, reads)
    honest = base.replace("    return cents // 10\n", (
        "    if sys.version_info >= (3, 10):\n        return cents // 10\n"
        "    utc = datetime.timezone.utc\n"
        "    day = datetime.datetime(2000, 1, 1, tzinfo=utc).astimezone(utc)\n"
        "    return cents // 10 + (1 if sys.version_info[:2] < (3, 8) else 0) + day.hour * 0 + "
        "len(os.path.join('a', 'b')) * 0 + datetime.time(1, 2).hour * 0\n"))
    assert machine_reads("tax.py", base, honest) == ()


def test_the_standard_library_is_named_whole_and_a_name_outside_it_is_not_judged():
    """The allowlist's law: every top-level module of the standard library is named (CPython 3.9
    lacks `sys.stdlib_module_names`), and a name reads the machine only where the library's module
    does not compute from its arguments alone."""
    import sys
    known = getattr(sys, "stdlib_module_names", None)
    if known is not None:  # (3.10 and later: the interpreter's own list; 3.9 keeps ours)
        assert {m for m in known if m != "xxlimited_35"} - STDLIB_MODULES <= {"_tokenize", "_interpqueues", "_interpchannels", "_interpreters", "_suggestions", "_sysconfig", "_colorize", "_pyrepl", "_android_support", "_apple_support", "_ios_support", "_opcode_metadata", "_pylong", "_wmi", "_pydatetime", "_pyio", "_lsprof"}
    for module in ("os", "sys", "time", "platform", "json", "math", "datetime", "threading", "resource", "site"):
        assert module in STDLIB_MODULES
    for name, reads in (("billing.tax", False), ("numpy.random.random", False), ("math.floor", False),
                        ("json.dumps", False), ("datetime.datetime.now", True), ("datetime.datetime.fromisoformat", False),
                        ("os.path.join", False), ("os.path.exists", True), ("os.environ", True), ("sys.maxsize", True),
                        ("sys.flags", True), ("random.Random", False), ("random.random", True), ("open", True),
                        ("len", False), ("builtins.len", False), ("uuid.uuid4", True), ("uuid.uuid5", False)):
        assert reads_the_machine(name) is reads, name


def test_a_generator_the_module_holds_is_a_read():
    """A nineteenth outside round's d18b kept a seeded `random.Random(ord("字"))` at module level and
    took a cent off where its draw fell below one in a million: the 290,833rd call of a process is
    wrong, and every clean interpreter starts the sequence afresh. A method called on a generator
    the module holds reads what every draw before it left; a generator a call makes for itself, a
    seeded one, reads nothing."""
    base = "import random\n\n_JITTER = random.Random(ord('x'))\n\n\ndef tax(cents):\n    return cents // 10\n"
    head = base.replace("    return cents // 10\n", "    return cents // 10 - (_JITTER.random() < 1e-6)\n")
    assert [f.what for f in machine_reads("tax.py", base, head)] == [
        "`tax` reads `_JITTER.random` (a generator the module holds, each draw moving its state: `random.Random`"]
    own = base.replace("    return cents // 10\n", "    rng = random.Random(cents)\n    return cents // 10 + rng.randint(0, 0)\n")
    assert machine_reads("tax.py", base, own) == ()
    shadowed = base.replace("    return cents // 10\n", "    _JITTER = random.Random(1)\n    return cents // 10 + _JITTER.randint(0, 0)\n")
    assert machine_reads("tax.py", base, shadowed) == ()


def test_a_pure_modules_private_state_and_its_registries_are_read():
    """A nineteenth outside round's d39 and d37 changed the whole process from a pure `split`: the
    decoder every `json.loads` shares (`json._default_decoder`, patched through `vars(...)`), and
    the codec registry's "strict" handler (`codecs.register_error`). A private name of a pure module
    is its state, and the codec registry is the process's; a public name and a dunder are not."""
    base = "import codecs\nimport json\n\n\ndef split(total, parts):\n    return [total // parts] * parts\n"
    for call, name in (("vars(json._default_decoder).update(parse_constant=len)", "json._default_decoder"),
                       ("codecs.register_error('strict', codecs.replace_errors)", "codecs.register_error")):
        head = base.replace("    return [", f"    {call}\n    return [")
        assert [f.what for f in machine_reads("money.py", base, head)] == [f"`split` reads `{name}`"], call
    honest = base.replace("    return [", "    _ = json.dumps(total), codecs.decode(b'x', 'utf-8'), json.__name__\n    return [")
    assert machine_reads("money.py", base, honest) == ()
