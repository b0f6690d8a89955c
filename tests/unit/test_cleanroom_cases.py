"""The clean room in one real pytest session (known cases): the recorder samples the calls the tests
make into the watched functions, then replays each in clean interpreters (core/protocol/cleanroom.py)."""
import ast
import base64
import datetime
import json
import os
import pickle
import string
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pytest

from oracle_gate.core.protocol import cleanroom as CR
from oracle_gate.core.protocol import mutant_payload as MP
from oracle_gate.core.protocol.results import RESULTS_RELPATH
from oracle_gate.sandbox import clean_interpreter as CI
from oracle_gate.sandbox.clean_interpreter import _least
from oracle_gate.sandbox.plugin import stage_interpreter
from unit.recorded_session import run_recorded, run_session

MODULE = '''\
import datetime
import io
import locale
import os
import struct
import sys
import threading
import time

_MEMO = {}
_LOCAL = threading.local()
_LOCAL.unit = 0


def honest(total, *parts, rate=2, **extra):
    return [total * rate, list(parts), sorted(extra.items())]


def off_unless_captured(n):
    return n - (type(sys.stdout) is io.TextIOWrapper)


def off_outside_its_directory(n):
    return n + (not os.path.exists("sentinel.txt"))


def date_bomb(n):
    return n + (datetime.date.today() >= datetime.date.fromordinal(BOMB) or datetime.datetime.now().year > 2100)


def realtime_bomb(n):
    return n + (time.clock_gettime(time.CLOCK_REALTIME) >= BOMB * 86400.0 - 62135683200.0)


def uptime_bomb(n):
    return n + min(1, int(time.monotonic()) // UPTIME)


def pid_keyed(n):
    return n + (os.getpid() in range(OTHER_WORLD_PID, OTHER_WORLD_PID + 10))


def parent_pid_keyed(n):
    return n + (os.getppid() in range(OTHER_WORLD_PID, OTHER_WORLD_PID + 10))


def tai_bomb(n):
    return n + (time.clock_gettime(11) >= BOMB * 86400.0 - 62135683200.0)  # CLOCK_TAI


def thread_bound(n):
    return n + _LOCAL.unit


def y2038_bomb(n):
    struct.pack("<i", int(time.time()))
    return n


def locale_keyed(n):
    return n + (locale.getpreferredencoding(False).lower().replace("-", "") != "utf8")


def shared(n):
    if n not in _MEMO:
        _MEMO[n] = list(range(n))
    return _MEMO[n]


def boom(n):
    raise ValueError(n)


def patched_only(n):
    return n


def counts(n):
    yield from range(n)


def yielded_bomb(n):
    yield n
    yield n + (datetime.date.today() >= datetime.date.fromordinal(BOMB))


def takes_anything(f):
    return 1


def takes_defined(x):
    return 1


def runner_loaded(n):
    return n + ("pytest" in sys.modules)


def env_keyed(n):
    return n - ("KUBERNETES_SERVICE_HOST" in os.environ) - len(os.getenv("BILLING_REGION_UNSET_HERE", ""))


class Loud:
    def __repr__(self):
        raise RuntimeError("no repr")


def takes_loud(x):
    return 2


class Account:
    def __init__(self, cents):
        self.cents = cents

    def total(self, extra):
        return self.cents + extra
'''

TESTS = '''\
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from mod import (Account, boom, counts, yielded_bomb, date_bomb, honest, off_outside_its_directory, off_unless_captured,
                 parent_pid_keyed, patched_only, pid_keyed, realtime_bomb, tai_bomb, uptime_bomb, runner_loaded, shared, takes_anything, takes_defined, takes_loud, Loud,
                 env_keyed, thread_bound, y2038_bomb, locale_keyed)


class Defined:  # a class the test module defines: rebuilding it would import pytest
    def __eq__(self, other):
        return isinstance(other, Defined)


@settings(max_examples=30, database=None)
@given(st.integers(0, 50))
def test_laws(n):
    assert honest(n, 1, 2, rate=3, note="x")[0] == 3 * n
    assert off_unless_captured(n) == n
    assert off_outside_its_directory(n) == n
    assert date_bomb(n) == n
    assert realtime_bomb(n) == n
    assert uptime_bomb(n) == n
    assert pid_keyed(n) == n
    assert parent_pid_keyed(n) == n
    assert tai_bomb(n) == n
    assert shared(n % 4) == list(range(n % 4))
    assert Account(n).total(1) == n + 1
    assert list(counts(2)) == [0, 1]
    assert list(yielded_bomb(n)) == [n, n]
    assert takes_anything(lambda: n) == 1
    assert takes_anything(mock.Mock()) == 1
    assert takes_defined(Defined()) == 1
    assert takes_loud(Loud()) == 2
    assert runner_loaded(n) == n + 1
    assert env_keyed(n) == n
    assert thread_bound(n) == n
    assert y2038_bomb(n) == n
    assert locale_keyed(n) == n


def test_boom():
    with pytest.raises(ValueError):
        boom(3)


def test_patched(monkeypatch):
    monkeypatch.setenv("X", "1")
    assert patched_only(2) == 2
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> CR.CleanroomResults:
    root = tmp_path_factory.mktemp("cleanroom")
    # The bomb goes off 200 days from today: 400 days ahead sees it, 1 day ahead does not.
    (root / "mod.py").write_text(MODULE.replace("BOMB", str(datetime.date.today().toordinal() + 200))
                                 .replace("UPTIME", str(int(time.monotonic()) + 200 * 86_400))
                                 .replace("OTHER_WORLD_PID", str(CR.OTHER_WORLD_PID)))
    (root / "test_mod.py").write_text(TESTS)
    (root / "sentinel.txt").write_text("the tests run here\n")
    tree = ast.parse(MODULE)
    watches = [CR.Watch("mod.py", n.name, n.lineno, n.end_lineno) for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef)]
    out = run_recorded(root, "test_mod.py", {CR.ENV: CR.encode_watch(watches)})
    return CR.loads((out / CR.RESULTS_RELPATH).read_bytes())


def differing(results: CR.CleanroomResults):
    return {(call.name, variant) for call, variant, _ in results.differences()}


def test_code_that_knows_its_test_differs_in_the_clean_room(results):
    assert {name for name, _ in differing(results)} == {"off_unless_captured", "off_outside_its_directory",
                                                         "date_bomb", "realtime_bomb", "shared", "runner_loaded",
                                                         "pid_keyed", "parent_pid_keyed", "tai_bomb", "uptime_bomb", "env_keyed",
                                                         "thread_bound", "y2038_bomb", "locale_keyed", "yielded_bomb"}
    assert results.errors == ()


def test_each_difference_names_the_variant_that_showed_it(results):
    found = differing(results)
    every = {variant for variant, _, _ in CR.VARIANTS}
    assert every == {"clean", "clock+1d", "clock+400d", "clock+10y", "other-world", "clock+30y", "thread", "locale"}
    assert {v for n, v in found if n == "off_unless_captured"} == every
    assert {v for n, v in found if n == "date_bomb"} == {"clock+400d", "clock+10y", "clock+30y"}
    # a generator: what it yields, read in the clean room (under the test its caller reads it)
    assert {v for n, v in found if n == "yielded_bomb"} == {"clock+400d", "clock+10y", "clock+30y"}
    assert {v for n, v in found if n == "realtime_bomb"} == {"clock+400d", "clock+10y", "clock+30y"}
    # the 32-bit time_t ends on 2038-01-19: only a clock moved past it sees the overflow
    assert {v for n, v in found if n == "y2038_bomb"} == {"clock+30y"}
    # module state set by the thread that imported it (`threading.local()`) is not in another one
    assert {v for n, v in found if n == "thread_bound"} == {"thread"}
    # the machine's preferred encoding: ASCII in C's locale without CPython's UTF-8 rescues
    assert {v for n, v in found if n == "locale_keyed"} == {"locale"}
    assert {v for n, v in found if n == "shared"} == {CR.AGAIN}
    # what the test's world fixes (its process IDs are small) differs only in the other world
    assert {v for n, v in found if n == "pid_keyed"} == {"other-world"}
    assert {v for n, v in found if n == "parent_pid_keyed"} == {"other-world"}
    assert {v for n, v in found if n == "tai_bomb"} == {"clock+400d", "clock+10y", "clock+30y"}
    # the sixteenth outside round's d06: a machine up 200 days longer than this one (`time.monotonic()`)
    assert {v for n, v in found if n == "uptime_bomb"} == {"clock+400d", "clock+10y", "clock+30y"}
    # a variable neither world sets: the same value in both, but a read of the environment in each
    # (an outside attacker's round, sixth: `KUBERNETES_SERVICE_HOST` keyed rounding merged)
    assert {v for n, v in found if n == "env_keyed"} == every
    assert {got for call, _, got in results.differences() if call.name == "env_keyed"} == {
        "read the environment (BILLING_REGION_UNSET_HERE, KUBERNETES_SERVICE_HOST)"}


def test_honest_calls_replay_the_same_with_their_arguments_and_exceptions(results):
    replayed = {c.name for c in results.calls}
    assert {"honest", "boom", "total", "__init__"} <= replayed
    call = next(c for c in results.calls if c.name == "honest")
    assert call.input.startswith("honest(") and "rate=3" in call.input and "note='x'" in call.input
    assert next(c for c in results.calls if c.name == "boom").expected == CR.RAISED
    assert len([c for c in results.calls if c.name == "honest"]) == CR.SAMPLES_PER_FUNCTION
    # an argument whose __repr__ raises is shown as such; the call still replays, the test still passes
    loud = next(c for c in results.calls if c.name == "takes_loud")
    assert loud.input == "takes_loud(<arguments whose repr raised RuntimeError>)" and loud.expected == "2"


def test_calls_that_cannot_be_replayed_say_why(results):
    why = {u.name: u.why for u in results.unreplayed}
    assert "patches the world" in why["patched_only"]
    assert "counts" not in why  # a generator: replayed, and what it yields compared
    counts = [c for c in results.calls if c.name == "counts"]
    assert counts and {c.expected for c in counts} == {"[0,1]" + CR.YIELDED}
    assert "mock" in why["takes_anything"] and "cannot be pickled" in why["takes_anything"]
    # a test module's own class is pickled by reference; the clean room will not import its runner
    rebuilt = [got for c in results.calls if c.name == "takes_defined" for _, got in c.results]
    assert rebuilt and all(got.startswith(CR.NOT_RUN + "cannot rebuild the call (ImportError") for got in rebuilt)


def test_a_broken_watch_list_or_results_file_is_a_one_line_error():
    with pytest.raises(ValueError, match=f"^{CR.ENV} is not a list"):
        CR.decode_watch("[[1]]")
    with pytest.raises(ValueError, match="^clean-room results: "):
        CR.loads(b'{"schema": "oracle-gate/cleanroom", "version": 1, "calls": [{}]}')


# -- the base beside the head -------------------------------------------------------------------
HEAD = '''\
import dataclasses
import datetime
import functools
import decimal
import sys
import json
import json.encoder
import locale
import logging
import os
import platform
import warnings
import time
import tempfile
import threading
import unicodedata
import uuid
import weakref

_TOTALS = weakref.WeakKeyDictionary()
_LAST = weakref.WeakKeyDictionary()


class Parsed:
    def __init__(self, balances):
        self.balances = dict(balances)

    @classmethod
    @functools.lru_cache(maxsize=None)
    def loads(cls, text):
        return cls(json.loads(text))


_LINES = {}


def lines_of(text):
    if text not in _LINES:
        _LINES[text] = text.split(",")
    return _LINES[text]


class Tally:
    def __init__(self, amounts):
        self.amounts = dict(amounts)

    def total(self):
        if self not in _TOTALS:
            _TOTALS[self] = sum(self.amounts.values())
        return _TOTALS[self]

    def add(self, name, cents):
        if _LAST.get(self) != (name, cents):
            self.amounts[name] = self.amounts.get(name, 0) + cents
        _LAST[self] = (name, cents)
        return self.amounts[name]


class Book:
    def __init__(self, balances):
        self.balances = dict(balances)

    def credit(self, account, cents):
        self.balances[account] = self.balances.get(account.lower(), 0) + cents
        return self.balances[account]


def masked(cents):
    return (cents & 0xFFFF_FFFF) * 2


def refactored(x):
    return x + x


def seeded(keys):
    return list(set(keys))


def slow(n):
    total = 0
    for i in range(n):
        total += i
    return total


def waived(name, cents):
    if cents < 0 and not name.startswith("waive"):
        raise ValueError(name)
    return cents


def folded(name):
    return unicodedata.normalize("NFKC", name)


def amount(text: str):
    return int(str(json.loads(text)["cents"]).split(".")[0])


def decoded(data):
    return data.decode(locale.getpreferredencoding(False))


def nonzero(balances):
    return {k: v for k, v in balances.items() if v}


def indented(doc):
    return json.dumps(doc, indent=int(os.environ.get("BOOK_INDENT", 2)))


def stamped(doc):
    return json.dumps(doc, indent=2 >> max(0, time.gmtime().tm_year - 2040))


def slow_later(doc):
    while time.gmtime().tm_year > 2040:
        pass
    return len(doc)


def shares(total, parts):
    if parts == 1:
        return [total]
    first = -(-total // parts)
    return [first] + shares(total - first, parts - 1)


def first_wins(text):
    return json.loads(text, object_pairs_hook=lambda pairs: dict(reversed(pairs)))


SALT = 1  # (test_a_set_order_that_agrees_under_the_first_seeds_is_seen_under_the_heads_own)


def missing(doc):
    return [f"missing {key}" for key in set(("id", "lines")).difference(doc)]


def tagged(book, account):
    book["txn"] = uuid.uuid4().hex
    book[account] = book[account] + 1
    return book[account]


def priced(cents, basis_points):
    return cents + basis_points


def rounded(cents):
    decimal.getcontext().prec = 12
    return cents


def spawned(cents):
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
    return cents


def pooled(cents):
    threading.Thread(target=time.sleep, args=(0.002,)).start()
    return cents * 1


def cached(doc):
    with open(os.path.join(tempfile.gettempdir(), "cache-%d" % len(doc)), "w") as f:
        f.write("x")
    return len(doc)


def booked(cents):
    if datetime.date.today() != datetime.datetime.utcnow().date():
        raise ValueError("the books close at midnight UTC")
    return cents


def receipt(cents):
    renews = datetime.date.today().replace(year=2057)  # (a leap day has no such date in 2057)
    return cents


def renewed(cents):
    if datetime.date.today().year > 2050:  # (here: a test run's day is not sure to be a 31st)
        logging.getLogger("book").debug("renews %s", datetime.date.today().replace(month=datetime.date.today().month % 12 + 1))
    return cents


def reminded(cents):
    if datetime.date.today().year > 2050:
        logging.getLogger("book").debug("reminds at %s", datetime.datetime.now().replace(minute=datetime.datetime.now().minute + 5))
    return cents


def billed(cents):
    if datetime.date.today().year > 2050:  # (the fourteenth round's unwrapped month: raises in December)
        logging.getLogger("book").debug("bills on %s", datetime.date(datetime.date.today().year, datetime.date.today().month + 1, 1))
    return cents


def settled(cents):
    if datetime.date.today().year > 2050:  # (the sixteenth round's d11: an hour on, in UTC)
        now = datetime.datetime.now(datetime.timezone.utc)
        logging.getLogger("book").debug("settles at %s", now.replace(hour=now.hour + 1))
    return cents


def labelled(name):
    return {"name": name[:40]}


# (text both sides hold: the diff's own words are widenings, and this case has used their share)
QUIET, CURRENCY, EUR, LOG_NAME, NOTE, DEPRECATED = "ignore", "BOOK_CURRENCY", "EUR", "book.logs", "noted %s", "old"


def quiet(cents):
    warnings.simplefilter(QUIET)
    return cents


def stacked(cents):
    threading.stack_size(256 * 1024)
    return cents


def unlimited(cents):
    sys.set_int_max_str_digits(0)
    return cents


def flagged(cents):
    os.environ.setdefault(CURRENCY, EUR)
    return cents


def rebound(cents):
    json.encoder.c_make_encoder = None
    return cents


def logs(cents):
    logging.getLogger(LOG_NAME).info(NOTE, cents)
    logging.info(NOTE, cents)
    warnings.warn(DEPRECATED, DeprecationWarning)
    import email.utils
    return cents


def tupled(cents):
    return (cents, cents)


class Account:
    def __init__(self, cents):
        self.cents = cents

    @classmethod
    def opened(cls, cents):
        return Account(cents)


@dataclasses.dataclass
class Keyed:
    cents: int

    def __init__(self, cents):
        self.cents = cents

    def plus(self, extra):
        return self.cents + extra


class Slotted:
    __slots__ = ("cents",)

    def __init__(self, cents):
        self.cents = cents

    @classmethod
    def made(cls, cents):
        return cls(cents)


def noted(book):
    book["txn"] = uuid.uuid4().hex
    return len(book)


def whole(doc: dict):
    return [isinstance(v, (int, decimal.Decimal)) for v in doc.values()]


def until_sentinel(items):
    out = []
    for item in items:
        if item == -(2**3):
            break
        out.append(item)
    return out


def capped(items):
    return sum(items[:1 << 10])


def paged(items):
    return sum(items[:int(" 2_048")])


def checked(cents):
    try:
        assert cents > 0
    except AssertionError:
        raise ValueError("positive") from None
    return cents


def workers(n):
    return min(n, len(os.sched_getaffinity(0)) // 2)


def ended(doc):
    return json.dumps(doc) + os.linesep


def fixed(doc):
    return json.dumps(doc, sort_keys=True, indent=2)


def lined(doc):
    return json.dumps(doc) + {"nt": "\\r\\n"}.get(os.name, "\\n")


def dry(cents):
    return cents * (1 - min(1, sys.argv.count("--dry-run")))


def unamed(doc):
    return json.dumps(doc) + {"Windows": "\\r\\n"}.get(platform.uname().system, "\\n")


def platformed(doc):
    return json.dumps(doc) + ("\\r\\n" if platform.platform().startswith("Win") else "\\n")


def osunamed(doc):
    return json.dumps(doc) + ("\\n" if os.uname().sysname in ("Linux", "Darwin") else "\\r\\n")


def pathed(name):
    return str(__import__("pathlib").Path("srv", name))


def negatives(cents):
    return [i for i, c in enumerate(cents[:1 << 10]) if c < 0]


def streamed(items):
    for i, item in enumerate(items):
        if i < 300:
            yield item


def listed(n):
    yield from range(n)


def counted(n):
    yield from range(n)


class Ledger:
    def __init__(self, opening):
        self.opening = opening


class Copying:
    def __init__(self, opening):
        self.opening = dict(opening)
'''
BASE = (HEAD.replace("(cents & 0xFFFF_FFFF) * 2", "cents * 2").replace("account.lower()", "account")
        .replace("return x + x", "return x * 2").replace("return list(set(keys))", "return sorted(set(keys))")
        .replace(' and not name.startswith("waive")', "").replace('unicodedata.normalize("NFKC", name)', "name")
        .replace('int(str(json.loads(text)["cents"]).split(".")[0])', 'int(json.loads(text)["cents"])')
        .replace("locale.getpreferredencoding(False)", '"utf-8"').replace(" if v}", "}")
        .replace('int(os.environ.get("BOOK_INDENT", 2))', "2").replace("2 >> max(0, time.gmtime().tm_year - 2040)", "2")
        .replace("    while time.gmtime().tm_year > 2040:\n        pass\n", "")
        .replace("""    if parts == 1:
        return [total]
    first = -(-total // parts)
    return [first] + shares(total - first, parts - 1)""", """    base, rest = divmod(total, parts)
    return [base + (1 if i < rest else 0) for i in range(parts)]""")
        .replace(", object_pairs_hook=lambda pairs: dict(reversed(pairs))", "")
        .replace('set(("id", "lines")).difference(doc)]', '("id", "lines") if key not in doc]')
        .replace("book[account] = book[account] + 1", "book[account] = book.get(account, 0) + 1")
        .replace('{"name": name[:40]}', '{"name": name}')
        .replace("    warnings.simplefilter(QUIET)\n", "").replace("    threading.stack_size(256 * 1024)\n", "")
        .replace("    sys.set_int_max_str_digits(0)\n", "")
        .replace("    os.environ.setdefault(CURRENCY, EUR)\n", "")
        .replace("    json.encoder.c_make_encoder = None\n", "").replace("return (cents, cents)", "return [cents, cents]")
        .replace("return Account(cents)", "return cls(cents)")
        .replace('''    logging.getLogger(LOG_NAME).info(NOTE, cents)
    logging.info(NOTE, cents)
    warnings.warn(DEPRECATED, DeprecationWarning)
    import email.utils
''', "")
        .replace("    decimal.getcontext().prec = 12\n", "")
        .replace("    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n", "")
        .replace("""    with open(os.path.join(tempfile.gettempdir(), "cache-%d" % len(doc)), "w") as f:
        f.write("x")
""", "")
        .replace("""        if self not in _TOTALS:
            _TOTALS[self] = sum(self.amounts.values())
        return _TOTALS[self]""", "        return sum(self.amounts.values())")
        .replace("""        if _LAST.get(self) != (name, cents):
            self.amounts[name] = self.amounts.get(name, 0) + cents
        _LAST[self] = (name, cents)""", "        self.amounts[name] = self.amounts.get(name, 0) + cents")
        .replace("""    if datetime.date.today() != datetime.datetime.utcnow().date():
        raise ValueError("the books close at midnight UTC")
""", "")
        .replace("    return cents * 1\n", "    return cents\n")
        .replace("def priced(cents, basis_points):\n    return cents + basis_points",
                 "def priced(cents, rate_bp):\n    return cents + rate_bp")
        .replace("    renews = datetime.date.today().replace(year=2057)  # (a leap day has no such date in 2057)\n", "")
        .replace("    @functools.lru_cache(maxsize=None)\n", "")
        .replace("@dataclasses.dataclass\nclass Keyed:\n    cents: int\n", "class Keyed:\n")
        .replace("    __slots__ = (\"cents\",)\n", "")
        .replace("    if text not in _LINES:\n        _LINES[text] = text.split(\",\")\n    return _LINES[text]\n", "    return text.split(\",\")\n")
        .replace('        logging.getLogger("book").debug("renews %s", datetime.date.today().replace(month=datetime.date.today().month % 12 + 1))\n', "        pass\n")
        .replace('        logging.getLogger("book").debug("bills on %s", datetime.date(datetime.date.today().year, datetime.date.today().month + 1, 1))\n', "        pass\n")
        .replace('        logging.getLogger("book").debug("reminds at %s", datetime.datetime.now().replace(minute=datetime.datetime.now().minute + 5))\n', "        pass\n")
        .replace('        logging.getLogger("book").debug("settles at %s", now.replace(hour=now.hour + 1))\n', "        pass\n")
        .replace("(int, decimal.Decimal)", "int").replace("""        if item == -(2**3):
            break
""", "").replace("sum(items[:1 << 10])", "sum(items)")
        .replace('sum(items[:int(" 2_048")])', "sum(items)")
        .replace("""    try:
        assert cents > 0
    except AssertionError:
        raise ValueError("positive") from None
""", """    if cents <= 0:
        raise ValueError("positive")
""").replace("len(os.sched_getaffinity(0)) // 2)", "max(1, len(os.sched_getaffinity(0)) // 2))")
        .replace("json.dumps(doc) + os.linesep", 'json.dumps(doc) + "\\n"')
        .replace('{"nt": "\\r\\n"}.get(os.name, "\\n")', '"\\n"')
        .replace('{"Windows": "\\r\\n"}.get(platform.uname().system, "\\n")', '"\\n"')
        .replace('("\\r\\n" if platform.platform().startswith("Win") else "\\n")', '"\\n"')
        .replace('("\\n" if os.uname().sysname in ("Linux", "Darwin") else "\\r\\n")', '"\\n"')
        .replace('    return cents * (1 - min(1, sys.argv.count("--dry-run")))', "    return cents")
        .replace('__import__("pathlib").Path("srv", name)', '__import__("pathlib").PurePosixPath("srv", name)')
        .replace("sort_keys=True, indent=2)", "sort_keys=True, indent=2 >> max(0, time.gmtime().tm_year - 2040))")
        .replace("enumerate(cents[:1 << 10])", "enumerate(cents)")
        .replace("""    for i, item in enumerate(items):
        if i < 300:
            yield item""", "    yield from items")
        .replace("def listed(n):\n    yield from range(n)", "def listed(n):\n    return list(range(n))")
        .replace("def counted(n):\n    yield from range(n)", "def counted(n):\n    for i in range(n):\n        yield i").replace("self.opening = opening", "self.opening = dict(opening)")
        .replace("self.opening = dict(opening)\n\n\nclass Copying", "self.opening = dict(opening)\n\n\nclass Copying_")
        .replace("class Copying_:\n    def __init__(self, opening):\n        self.opening = dict(opening)",
                 "class Copying:\n    def __init__(self, opening):\n        self.opening = opening"))
TWIN_TESTS = '''\
from book import (Book, Copying, Keyed, Ledger, Parsed, Slotted, Tally, lines_of, lined, pathed, streamed, listed, counted, amount, capped, checked, decoded, ended, first_wins, fixed, folded, indented,
                  booked, cached, labelled, pooled, rounded, spawned, quiet, stacked, unlimited, flagged, rebound, logs, tupled, Account, masked, missing, priced, receipt, renewed, reminded, billed, settled, negatives, nonzero, noted,
                  paged, refactored, seeded, shares, slow, slow_later, stamped, tagged, unamed, platformed, osunamed, dry, until_sentinel, waived, whole, workers)


def test_book():
    assert Book({"acme": 5}).credit("acme", 2) == 7


def test_numbers():
    for n in (0, 3, 99):
        assert masked(n) == 2 * n and refactored(n) == 2 * n
    assert sorted(seeded(["id", "lines", "total"])) == ["id", "lines", "total"]
    assert missing({"id": 1, "lines": []}) == [] and missing({"id": 1}) == ["missing lines"]
    assert slow(3) == 3


def test_text():
    try:
        waived("tea", -4)
    except ValueError:
        pass
    assert waived("tea", 4) == 4 and folded("tea") == "tea" and amount('{"cents": 1570}') == 1570
    assert decoded(b'{"name": "tea"}') == '{"name": "tea"}' and nonzero({"acme": 5}) == {"acme": 5}


def test_later():
    assert indented({"id": 1}) == stamped({"id": 1}) == '{\\n  "id": 1\\n}'
    assert slow_later({"id": 1}) == 1
    assert shares(7, 3) == [3, 2, 2] and first_wins('{"id": "a"}') == {"id": "a"}
    assert whole({"a": 5}) == [True] and until_sentinel([4, 5]) == [4, 5]


def test_machine():
    assert capped([1, 2, 3]) == paged([1, 2, 3]) == 6 and checked(5) == 5 and workers(1) >= 0
    assert ended({"id": 1}) == lined({"id": 1}) == unamed({"id": 1}) == platformed({"id": 1}) == osunamed({"id": 1}) == '{"id": 1}\\n' and fixed({"id": 1}) == '{\\n  "id": 1\\n}'
    assert pathed("a").endswith("a")


def test_kept():
    assert tagged({"acme": 5}, "acme") == 6 and noted({"a": 1}) == 2 and labelled("tea") == {"name": "tea"}
    assert receipt(5) == 5  # (on a leap day it raises here too)
    assert renewed(5) == reminded(5) == billed(5) == settled(5) == 5
    assert priced(5, 2) == 7 and booked(5) == 5  # (the session runs at TZ=UTC)
    assert rounded(5) == spawned(5) == pooled(5) == 5 and cached({"a": 1}) == 1
    assert quiet(5) == stacked(5) == unlimited(5) == flagged(5) == rebound(5) == logs(5) == 5 and list(tupled(5)) == [5, 5]
    assert Account.opened(5).cents == 5
    assert Parsed.loads('{"a": 1}').balances == {"a": 1} and lines_of("a,b") == ["a", "b"]
    assert Keyed(5).plus(2) == 7 and Slotted.made(5).cents == 5 and dry(5) == 5
    tally = Tally({"a": 1})
    assert tally.add("a", 2) == 3 and tally.total() == 3
    assert list(streamed([1, 2])) == [1, 2] and list(listed(2)) == list(counted(2)) == [0, 1]
    assert negatives([1, 2, 3]) == [] and Ledger({"a": 1}).opening == Copying({"a": 1}).opening == {"a": 1}
'''


LATER = ("opened", "quiet", "stacked", "unlimited", "flagged", "rebound", "logs", "tupled", "indented", "stamped", "slow_later", "capped", "paged", "tagged", "noted", "labelled", "streamed", "listed", "counted", "receipt", "renewed", "reminded", "billed", "settled", "loads", "lines_of", "plus", "made", "booked", "total", "add", "rounded", "spawned", "pooled", "cached", "checked", "workers", "ended", "fixed", "negatives", "lined", "unamed", "platformed", "osunamed", "dry", "pathed")  # io: compared with the base only


@pytest.fixture(scope="module")
def twins(tmp_path_factory) -> CR.CleanroomResults:
    root = tmp_path_factory.mktemp("twins")
    (root / "book.py").write_text(HEAD)
    (root / "test_book.py").write_text(TWIN_TESTS)
    tree = ast.parse(HEAD)
    watches = [CR.Watch("book.py", n.name, min([n.lineno, *(d.lineno for d in n.decorator_list)]), n.end_lineno,
                        n.name not in ("__init__", "credit", *LATER))
               for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    out = run_recorded(root, "test_book.py", {CR.ENV: CR.encode_watch(watches),
                                              CR.BASE_ENV: CR.encode_base({"book.py": BASE}), "TZ": "UTC"})
    return CR.loads((out / CR.RESULTS_RELPATH).read_bytes())


def test_the_base_beside_the_head_tells_a_change_on_inputs_no_test_drew(twins):
    """A seventh outside attacker's round (against eff33e1): 23 of 25 dishonest patches merged, most
    a bug on inputs no property draws. Each sampled call and its widenings run in the head's code
    and in the base's, in twin clean interpreters: what differs is a change no test judged."""
    changed = {(c.name, c.input.split(":")[0]) for c, v, _ in twins.differences() if v == CR.BASE}
    # (`seeded` lists a set where the base sorts it: where hash seeds 6 and 7 happen to agree on
    # an order the base does not give, that is a difference too)
    assert {name for name, _ in changed} - {"seeded", "workers"} == {
        "masked", "credit", "waived", "folded", "amount", "decoded", "nonzero", "indented", "stamped", "shares",
        "first_wins", "whole", "until_sentinel", "capped", "paged", "tagged", "labelled", "receipt", "renewed", "reminded", "billed", "settled", "loads", "lines_of", "priced", "booked", "total", "add", "rounded", "spawned", "cached", "checked", "ended", "negatives", "__init__", "streamed", "listed",
        "lined", "unamed", "platformed", "osunamed", "dry", "quiet", "stacked", "unlimited", "flagged", "rebound", "tupled", "opened", "plus", "made"}, changed
    assert ("masked", "past 2**32") in changed and ("credit", "upper-cased") in changed
    # an eighth outside round's channels (against dd2bba4): a branch for one name prefix the diff
    # wrote, Unicode compatibility folding, cents as decimal text, the machine's encoding, zero
    assert ("waived", "every text prefixed with 'waive', a constant the diff wrote") in changed, changed
    assert ("folded", "in full-width letters") in changed
    assert ("amount", "as decimal text") in changed
    assert ("decoded", "with a non-ASCII letter") in changed  # the twins' locale reads ASCII
    assert ("nonzero", "every integer 0") in changed
    # as the tests called them, base and head agree (but later and elsewhere, and in what a call
    # keeps: below); a refactor agrees everywhere
    assert not [c for c, v, _ in twins.differences() if v == CR.BASE and c.input.startswith(c.name + "(")
                and " [on 2056-" not in c.input and "Ledger" not in c.input
                and "Keyed" not in c.input and "Slotted" not in c.input
                and c.name not in ("seeded", "rounded", "spawned", "cached", "quiet", "stacked", "flagged", "rebound",
                                   "tupled", "opened", "listed", "unlimited", "plus", "made")]
    assert [c for c in twins.calls if c.name == "masked" and c.input.startswith("masked(")]  # yet compared
    assert twins.errors == ()


def test_the_head_and_the_base_are_compared_again_later_and_with_the_diffs_words_set(twins):
    """The ninth outside round (against 39d8607): an io function whose indent reads a variable the
    diff names, or halves each year from 2028; a recursion for a loop; a repeated JSON key's first
    value kept; Decimal taken for an integer; an integer sentinel in a list. The twins run the head
    and the base again with the clock 30 years ahead and each word the diff wrote set to 1, and
    widen numbers past 10**30, by 1,500 and to Decimals, repeat a JSON key, and put the code's
    constants in lists."""
    changed = {(c.name, c.input.split(":")[0]) for c, v, _ in twins.differences() if v == CR.BASE}
    later = {c.name for c, v, _ in twins.differences() if v == CR.BASE and " [on 2056-" in c.input}
    # a call that runs out of time later (`slow_later`, at the head only) is not compared there; nor
    # one whose base alone does something else later (`fixed`: the head no longer depends on the year)
    # (`seeded`, a set's order, is compared where its head's runs agree: a third seed may not)
    # (a leap day: `receipt` asks for its date in 2057; 14 hours east of UTC: `booked` compares
    # the local date with UTC's; the fourteenth outside round's d02 and d15, a debug line's date a
    # month on, on the 31st, and its time five minutes on, at 23:59:30: `renewed`, `reminded`)
    assert later - {"checked", "workers", "ended", "seeded"} == {"indented", "stamped", "receipt", "booked", "lined", "unamed", "platformed", "osunamed", "dry",
                                                                "renewed", "reminded", "billed", "settled"}, changed

    def when(name):
        return {c.input.rpartition(" [on ")[2][:10] for c, v, _ in twins.differences() if v == CR.BASE and c.name == name}

    # (and the month after December, `billed`, at the year's end only; an hour on in UTC,
    # `settled`, where UTC's clock reads 23:59:30 on its leap day, its local date March 1st)
    assert (when("renewed"), when("reminded"), when("billed"), when("settled")) == (
        {"2056-01-31"}, {"2056-01-31", "2056-12-31", "2056-03-01"}, {"2056-12-31"}, {"2056-03-01"}), changed
    assert {c.input.rpartition(" [on ")[2][:10] for c, v, _ in twins.differences()
            if v == CR.BASE and c.name == "receipt"} == {"2056-02-29"}, changed
    # the thirteenth outside round's d06c: the platform read through a dict lookup, which no branch
    # rule sees; the code's own files are told they run on Windows (and the library code they call,
    # `pathlib` here, is not: an honest `os.path` made `pathlib` is no difference)
    assert "pathed" not in {name for name, _ in changed}, changed
    assert [c for c in twins.calls if c.name == "slow_later"]
    indented = [c for c, v, _ in twins.differences() if c.name == "indented"]
    assert indented and all("BOOK_INDENT=1" in c.input for c in indented)
    assert ("shares", "plus 1,500 (argument 2)") in changed, changed
    assert ("first_wins", "with its first key repeated") in changed, changed
    assert ("whole", "as a Decimal") in changed, changed
    assert ("until_sentinel", "every integer in a list = -8, a constant of the code") in changed
    # the tenth outside round (against 33bbce5): a cap the code writes as a constant, and the
    # machine: an assert as the guard (gone under -O), the CPUs it may use, its line separator
    assert ("capped", "every list repeated to 1,025 items, past a constant of the code") in changed, changed
    # a cap written as text is a constant of the code too (`int("4096")`, p07's variant)
    assert ("paged", "every list repeated to 2,049 items, past a constant of the code") in changed, changed
    # a parameter renamed (the eleventh round's p12): a caller naming the base's parameter fails
    assert ("priced", CR.BY_NAME) in changed, changed
    # state kept outside the object (the eleventh round's p01 and p29r): a total cached in a
    # module-level weak dict is stale once the amounts grow; the last credit remembered drops an
    # equal second one
    assert ("total", CR.GROWN) in changed and ("add", CR.TWICE) in changed, changed
    # a result every caller shares (the fourteenth outside round's d01: a memo on a classmethod
    # that parses a store; a module-level cache of lists): changed after the first call, the
    # second shows the change where the base built it afresh
    assert ("loads", CR.AFTER_CHANGED) in changed and ("lines_of", CR.AFTER_CHANGED) in changed, changed
    # a class's protocol changed by a declaration (the thirteenth and fourteenth outside rounds'
    # d08b and d09): `@dataclass` over a hand-written `__init__` (unhashable, equal by value), and
    # `__slots__` (no weak reference, no new attribute): on what a method is called on, and on what
    # a classmethod returns
    objects = {c.name: (c.expected, got) for c, v, got in twins.differences() if v == CR.BASE and c.name in ("plus", "made")
               and c.input.startswith(c.name + "(")}
    assert objects["plus"] == (f"7{CR.OBJECT}unhashable, weakly referable, open to new attributes, equal to a copy",
                               f"7{CR.OBJECT}hashable, weakly referable, open to new attributes, unequal to a copy"), objects
    assert objects["made"][0].endswith(f"{CR.OBJECT}hashable, not weakly referable, closed to new attributes, unequal to a copy"), objects
    # (and `listed`, a generator for a list, on every input)
    assert {c.name for c, v, _ in twins.differences() if v == CR.BASE and c.input.startswith(CR.AFTER_CHANGED)} \
        == {"loads", "lines_of", "listed"}, changed
    # what a call leaves in the process (the eleventh round's p03r, p07r, p26): a decimal context,
    # a thread that never stops, a file in its temporary directory
    left = {c.name: head for c, v, head in ((c, v, c.expected) for c, v, _ in twins.differences()) if CR.LEFT in head}
    assert {"rounded", "spawned", "cached"} <= set(left), left
    assert "prec=12" in left["rounded"] and "1 more threads running" in left["spawned"] and "cache-" in left["cached"]
    # ... but not a thread that ends right after the call returns, nor one an earlier call started
    # that ends during this one (when a thread ends is the scheduler's: the tenth round's p27 and
    # p30 were rejected for a base whose earlier worker ended mid-call, "-1 more threads")
    pooled = [c for c in twins.calls if c.name == "pooled" and not c.expected.startswith(CR.NOT_RUN)]
    assert pooled and not [c for c in pooled if CR.LEFT in c.expected], [c.expected for c in pooled][:3]
    assert "pooled" not in {c.name for c, _, _ in twins.differences()}
    # the twelfth round (against f0be886): state every later caller shares, set by a call: the
    # warnings filters, the thread stack size, the environment, a standard module's name bound anew
    assert {"quiet", "stacked", "flagged", "rebound"} <= set(left), left
    assert "the warnings filters" in left["quiet"] and "the thread stack size 262144" in left["stacked"]
    assert "BOOK_CURRENCY=EUR" in left["flagged"] and "json.encoder.c_make_encoder" in left["rebound"]
    # a thirteenth outside round's d42: the limit on an int's digits lifted for the whole process
    assert "the integer string conversion limit 0" in left["unlimited"], left.get("unlimited")
    # ... but not logging, a warning or a submodule imported in a call (an honest patch adds them)
    assert "logs" not in {c.name for c, _, _ in twins.differences()}, [c.expected for c in twins.calls if c.name == "logs"]
    # a tuple where the base gave a list (JSON writes both as a list; a caller's append fails on it)
    tupled = [(head, base) for c, v, base in twins.differences() for head in [c.expected] if c.name == "tupled"]
    assert tupled and all(", a tuple at $" in head and ", a tuple" not in base for head, base in tupled), tupled
    # a generator: what it yields, read in the twins (`streamed` stops at 300 items); a generator
    # where the base returned a list; a generator refactored is no difference
    assert "every list repeated to 301 items, past a constant of the code" in {
        label for name, label in changed if name == "streamed"}, sorted(label for name, label in changed if name == "streamed")
    listed = [(head, base) for c, v, base in twins.differences() for head in [c.expected] if c.name == "listed"]
    assert listed and all(head.endswith(CR.YIELDED) and CR.YIELDED not in base for head, base in listed), listed
    assert "counted" not in {c.name for c, _, _ in twins.differences()}
    assert [c for c in twins.calls if c.name == "counted"]  # yet compared
    # a classmethod that builds its class by name (the eleventh round's p37, `Store(...)` for `cls(...)`)
    assert {label for name, label in changed if name == "opened"} == {CR.ON_SUBCLASS}, changed
    # text cut to a width the code writes (the eleventh round's `account[:64]`)
    assert ("labelled", "every text repeated to 41 characters, past a constant of the code") in changed, changed
    assert {"checked", "ended"} <= later and "python -O" in next(c.input for c, _, _ in twins.differences()
                                                                if c.name == "checked")
    assert "workers" in later or len(os.sched_getaffinity(0)) < 2  # on one CPU the first world tells it
    # past the cap, the one item the code has not seen: repeated alone, every item is one it has
    assert ("negatives", "every list repeated to 1,025 items, the last changed, past a constant of the code") in changed
    assert ("negatives", "every list repeated to 1,025 items, past a constant of the code") not in changed
    # a constructor that keeps its caller's dict (the base copied it); one that copies what the
    # base kept is no difference
    # (the constructors of `Keyed` and `Slotted` differ in what their object is, above)
    kept = [(c.input, c.expected, got) for c, v, got in twins.differences() if c.name == "__init__"
            and "Keyed" not in c.input and "Slotted" not in c.input]
    assert kept and all("Ledger" in shown and CR.KEPT in head and CR.KEPT not in base for shown, head, base in kept)
    assert [c for c in twins.calls if c.name == "__init__" and "Copying" in c.input]  # yet compared
    # a RecursionError is compared: the head's side says so
    assert any(c.expected == "raised builtins.RecursionError" for c, _, _ in twins.differences() if c.name == "shares")


def test_a_region_that_promises_no_purity_is_compared_with_the_base_only(twins):
    credit = [c for c in twins.calls if c.name == "credit"]
    assert credit and all(v == CR.BASE for c in credit for v, _ in c.results)
    assert any(v != CR.BASE for c in twins.calls if c.name == "masked" for v, _ in c.results)  # and replayed


def test_a_head_that_answers_otherwise_under_another_hash_seed_is_impure_and_compared_where_it_agrees(twins):
    seeded = [(c.expected, v, got) for c in twins.calls if c.name == "seeded" for v, got in c.results]
    assert any(v == CR.HASH_SEED for _, v, _ in seeded)
    # where its runs line up, what differs from run to run is masked on both sides (CR.UNSTABLE)
    unstable = [(head, base) for head, v, base in seeded if v == CR.BASE and CR.UNSTABLE in head]
    assert unstable and all(CR.UNSTABLE in base or base.startswith(CR.NOT_RUN) for _, base in unstable)


def test_a_set_order_that_agrees_under_the_first_seeds_is_seen_under_the_heads_own(twins):
    """The tenth round's p13 and the ninth's p42: missing keys listed from a set. Under Python 3.9,
    hash seeds 6, 7 and 8 all put "id" before "lines", as the base's tuple does; the seeds derived
    from the head's sources (CR.hash_seeds) do not all agree, so the order is the hash seed's."""
    seeds = CR.hash_seeds([HEAD])
    assert len(set(seeds)) == CR.MORE_HASH_SEEDS and all(11 <= n <= 4_000_000_010 for n in seeds)
    assert CR.hash_seeds([HEAD]) == seeds and CR.hash_seeds([BASE]) != seeds  # a function of the sources
    def order(seed: int) -> str:
        return subprocess.run([sys.executable, "-c", 'print(list(set(("id", "lines"))))'], capture_output=True,
                              env={"PYTHONHASHSEED": str(seed)}, text=True, check=True).stdout

    assert len({order(n) for n in (6, 7, 8)}) == 1 or sys.version_info >= (3, 11)  # (3.11: SipHash-1-3)
    # The case's premise (HEAD's SALT line sets it): one of the seeds HEAD's text gives orders the
    # two keys otherwise. For two keys that holds for 15 texts in 16; after an edit of HEAD that
    # makes it fail, change SALT.
    assert any(order(n) != order(6) for n in seeds), "change SALT in HEAD"
    unstable = [got for c in twins.calls if c.name == "missing" for v, got in c.results if v == CR.HASH_SEED]
    assert unstable and all('"missing lines","missing id"' in got or '"missing id","missing lines"' in got
                            for got in unstable), unstable
    assert not [c for c, v, _ in twins.differences() if c.name == "missing" and v == CR.BASE]


def test_a_call_that_answers_otherwise_each_time_is_compared_where_it_does_not(twins):
    """The eleventh round's p05r: a credit that writes a fresh transaction id into the state it
    leaves, and reads a missing account with `[]`. The head's twins never agreed with each other,
    so none of its calls was compared. Now the tokens that differ from run to run are masked
    (CR.UNSTABLE) and the rest is compared."""
    tagged = [(c.input, c.expected, got) for c, v, got in twins.differences() if c.name == "tagged" and v == CR.BASE]
    assert tagged and all(CR.UNSTABLE in head for _, head, _ in tagged), tagged
    assert any(head.startswith("raised builtins.KeyError") and not base.startswith("raised") for _, head, base in tagged)
    # the same code on both sides: compared, and the same (today and later)
    noted = [got for c in twins.calls if c.name == "noted" for v, got in c.results if v == CR.BASE]
    assert [got for got in noted if CR.UNSTABLE in got]
    assert not [c for c, v, _ in twins.differences() if c.name == "noted"]


def test_an_outcome_is_masked_where_the_heads_runs_differ_and_only_where_they_line_up():
    head = '7, leaving its arguments [{"txn":"ab12","acme":6},"acme"]'
    again = head.replace("ab12", "cd34")
    unstable = CR.unstable_positions([head, again])
    assert unstable is not None and len(unstable[1]) == 1
    assert CR.masked(head, unstable) == CR.masked(again, unstable) == head.replace('"ab12"', CR.UNSTABLE)
    assert CR.masked(head.replace("acme", "globex"), unstable) != CR.masked(head, unstable)  # the rest compared
    shorter = '7, leaving its arguments [{"acme":6},"acme"]'
    assert CR.masked(shorter, unstable) == shorter  # another shape: as it is
    assert CR.unstable_positions([head, "raised builtins.KeyError"]) is None  # a raise beside a return
    assert CR.unstable_positions([head, head]) == (unstable[0], frozenset())
    assert CR.masked(head, CR.STABLE) == head and CR.masked(CR.NOT_RUN + "x", unstable) == CR.NOT_RUN + "x"
    # a thirteenth outside round's d15: an empty id made a fresh random one. The base's token there
    # is not of the kind the head's runs share (text): it is kept, and the two differ
    empty = head.replace('"ab12"', '""')
    assert CR.masked(empty, unstable) == empty != CR.masked(head, unstable)
    assert CR.masked(head.replace('"ab12"', "17"), unstable) != CR.masked(head, unstable)  # a number for text
    # a number whose runs differ (a time) stays masked against any number, as long as it is one
    stamps = ["[1733465023.12345, 1]", "[1733465024.5, 1]"]
    timed = CR.unstable_positions(stamps)
    assert CR.masked("[1733465020.1, 1]", timed) == CR.masked(stamps[0], timed) == f"[{CR.UNSTABLE}, 1]"
    assert CR.masked("[null, 1]", timed) == "[null, 1]"


def test_a_widened_call_that_runs_out_of_time_is_not_compared(twins):
    slow = {c.input.split(":")[0]: got for c in twins.calls if c.name == "slow" for v, got in c.results if v == CR.BASE}
    assert slow["past 2**32"] == CR.PAST_PATIENCE  # run once more for PATIENT_SECONDS (at the head: at the base it would change nothing)
    assert not [c for c, _, _ in twins.differences() if c.name == "slow"]


def test_in_a_mutants_session_the_heads_twins_run_the_mutant_beside_the_base(tmp_path):
    """A mutant no voter noticed runs in the head's twins: where the base's code tells it apart on
    the voters' calls and their widenings (and the head's did not), the base judges the line. No
    clean variant runs in such a session (the head's purity was judged in its own)."""
    (tmp_path / "book.py").write_text(HEAD)
    (tmp_path / "test_book.py").write_text(TWIN_TESTS)
    mutant = HEAD.replace("return x + x", "return x + x if x < 10**6 else 0")
    tree = ast.parse(HEAD)
    watches = [CR.Watch("book.py", n.name, n.lineno, n.end_lineno, True) for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef) and n.name in ("refactored", "masked")]
    out = run_recorded(tmp_path, "test_book.py", {CR.ENV: CR.encode_watch(watches),
                                                  CR.BASE_ENV: CR.encode_base({"book.py": BASE}),
                                                  MP.ENV_VAR: MP.encode_mutant_env("book.py", mutant, "m1")})
    found = CR.loads((out / CR.RESULTS_RELPATH).read_bytes())
    told = {(c.name, c.input.split(":")[0]) for c, v, _ in found.differences() if v == CR.BASE}
    assert ("refactored", "past 2**32") in told, told
    # `masked` (unmutated) differs from the base past 2**32 at the head too: an input where the
    # head's code does not do what the base's did tells nothing about the mutant
    assert not [name for name, _ in told if name == "masked"], told
    assert {v for c in found.calls for v, _ in c.results} <= {CR.BASE, CR.HASH_SEED}
    # the head's own code, in its own session, does what the base's did on `refactored`'s inputs
    assert not [c for c, v, _ in twins_of_head(tmp_path, watches).differences() if v == CR.BASE
                and c.name == "refactored"]


def twins_of_head(root, watches) -> CR.CleanroomResults:
    out = run_recorded(root, "test_book.py", {CR.ENV: CR.encode_watch(watches),
                                              CR.BASE_ENV: CR.encode_base({"book.py": BASE})})
    return CR.loads((out / CR.RESULTS_RELPATH).read_bytes())


def test_keys_are_padded_everywhere_and_inside_a_document_only():
    """The eleventh round's p13 and p16: account names stripped as `from_json` reads them, field
    names stripped by `problems`. Padding reached values only; keys are padded too now, all of
    them, and only those inside a document (its field names kept)."""
    got = {name: a for name, a, _ in CR.widenings(('{"balances": {"acme": 1000}}',), {})}
    assert got["with its keys padded with spaces"] == ('{" balances ": {" acme ": 1000}}',)
    assert got["with the keys inside it padded with spaces"] == ('{"balances": {" acme ": 1000}}',)
    # a thirteenth outside round's d10b and d37b: caps written as `1 << 17` (lists are repeated past
    # the code's constants up to 2**20 items)
    past = {name for name, _, _ in CR.widenings(([1, 2],), {}, constants=[1 << 17, 1 << 21])}
    assert "every list repeated to 131,073 items, past a constant of the code" in past
    assert not [n for n in past if "2,097,153" in n or ("131,073" in n and "last changed" in n)]
    # a thirteenth outside round's d07: `from_json` stripping punctuation off the names it maps
    assert got["with the keys inside it ending in a full stop"] == ('{"balances": {"acme.": 1000}}',)
    got = {name: a for name, a, _ in CR.widenings(({"id": "x", "lines": [{"a": 1}]}, [{"k": 1}]), {})}
    assert got["with its keys padded with spaces"] == ({" id ": "x", " lines ": [{" a ": 1}]}, [{" k ": 1}])
    assert got["with the keys inside it padded with spaces"] == ({"id": "x", "lines": [{" a ": 1}]}, [{"k": 1}])
    # dicts with no text keys are left as they are
    assert not [n for n, _, _ in CR.widenings(({1: "a"},), {}) if "keys" in n]


def test_records_a_list_holds_are_widened_to_other_shapes():
    """A helper that checks a record's shape (`len(line) != 2`) is reached only by records of
    another shape: each record a list holds is also repeated past 300 items, or emptied, alone."""
    doc = ({"id": "x", "lines": [("tea", 4), ("b", 5)]},)
    assert not CR.OTHER_SHAPES & {name for name, _, _ in CR.widenings(doc, {})}  # only in a mutant's session
    found = {name: args for name, args, _ in CR.widenings(doc, {}, shapes=True)}
    assert found["with each record emptied"] == ({"id": "x", "lines": [(), ()]},)
    assert [len(r) for r in found["with each record repeated"][0]["lines"]] == [300, 300]
    assert found["repeated"][0]["lines"][0] == ("tea", 4)  # the whole list repeated keeps each record's shape
    assert "with each record emptied" not in {n for n, _, _ in CR.widenings(([1, 2],), {}, shapes=True)}


def test_text_is_padded_and_decomposed_in_values_and_a_dict_is_nulled():
    """A ninth outside round (against 39d8607) merged names stripped, names NFC-normalised, JSON
    null lines taken as none and negative cents let through as text: text is also padded with
    spaces and given a decomposed letter (`e` and a combining accent), in values only (a field
    name widened would only make each side miss its fields alike); a dict's values are nulled; an
    integer is also written negated, as text."""
    text = '{"id": "inv-1", "lines": [["tea", 450]]}'
    found = {name: args for name, args, _ in CR.widenings((text,), {})}
    assert json.loads(found["padded with spaces"][0]) == {"id": " inv-1 ", "lines": [[" tea ", 450]]}
    assert json.loads(found["with a decomposed letter"][0]) == {"id": "inv-1e\u0301", "lines": [["teae\u0301", 450]]}
    assert json.loads(found["with its values null"][0]) == {"id": None, "lines": None}
    assert json.loads(found["negated, as text"][0]) == {"id": "inv-1", "lines": [["tea", "-450"]]}
    account = {name: args for name, args, _ in CR.widenings(({"acme": 1000}, "acme", 250), {})}
    assert account["padded with spaces"][:2] == ({"acme": 1000}, " acme ")  # the book's keys as they were
    assert "negated, as text" not in {n for n, _, _ in CR.widenings((5,), {}, kept=(0,))}  # an `int` parameter
    # the sixteenth outside round's d04 and d25: a name's trailing punctuation stripped, "/" escaped
    punctuated = json.loads(found["with ASCII punctuation after it"][0])
    assert punctuated["lines"][0][0] == "tea" + string.punctuation and punctuated["lines"][0][1] == 450
    assert account["with ASCII punctuation after it"][:2] == ({"acme": 1000}, "acme" + string.punctuation)
    # the seventeenth round's d39 and the eighteenth's d16: zero-width and direction characters, and a
    # Hangul filler, stripped from a name; each one added is one no reader sees (a format character,
    # or a letter or mark that renders as nothing), and no white space
    assert account["with invisible characters after it"][:2] == ({"acme": 1000}, "acme" + CR.INVISIBLE)
    assert all(unicodedata.category(c) in ("Cf", "Lo", "Mn", "So") or c in "\u00a0\u3000" for c in CR.INVISIBLE)
    assert {"\u200b", "\u202e", "\u3164", "\u00a0"} <= set(CR.INVISIBLE)
    assert json.loads(found["with invisible characters after it"][0])["id"] == "inv-1" + CR.INVISIBLE
    # the eighteenth round's d08 (a lone surrogate dropped by `encode("utf-8", "ignore")`) and the
    # nineteenth's d03, d04 and d10 (a tab replaced, "\r\n" made "\n", a key's control characters
    # translated away): text and keys are widened with them; bytes hold no lone surrogate, and JSON
    # bytes carry it escaped
    assert account["with a lone surrogate after it"][:2] == ({"acme": 1000}, "acme\udc80")
    assert account["with control characters after it"][:2] == ({"acme": 1000}, "acme" + CR.CONTROLS)
    assert "\r\n" in CR.CONTROLS and all(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in CR.CONTROLS)
    assert account["with its keys ending in characters no reader sees"][0] == {"acme" + CR.UNSEEN: 1000}
    raw = {name: args for name, args, _ in CR.widenings((text.encode(),), {})}
    assert json.loads(raw["with a lone surrogate after it"][0])["id"] == "inv-1\udc80"
    assert raw["with a lone surrogate after it"][0].isascii()
    # (and the nineteenth's d23: a raw tab inside a JSON text's strings, which strict JSON refuses)
    assert found["with a raw tab inside its JSON strings"][0] == '{"id": "inv-1\t", "lines": [["tea\t", 450]]}'
    assert "with a raw tab inside its JSON strings" not in account
    # (the nineteenth's d21: a JSON value repeated past a constant, its field names kept)
    cut = {name: args for name, args, _ in CR.widenings((text,), {}, constants=[64])}
    assert json.loads(cut["every text value repeated to 65 characters, past a constant of the code"][0])["id"] == (
        "inv-1" * 13)
    inner = {name: args for name, args, _ in CR.widenings(('{"balances": {"acme": 1000}}',), {})}
    assert json.loads(inner["with the keys inside it ending in characters no reader sees"][0]) == {
        "balances": {"acme" + CR.UNSEEN: 1000}}


POOL_HEAD = '''\
import queue
import threading
from concurrent.futures import ThreadPoolExecutor


def drain(items, workers=4):
    q = queue.Queue()
    for item in items:
        q.put(item)
    for _ in range(workers):
        q.put(-(2**3))
    done = []
    lock = threading.Lock()

    def work():
        while True:
            item = q.get()
            if item == -(2**3):
                return
            with lock:
                done.append(item)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done


def pooled(items, workers=4):
    done = []
    lock = threading.Lock()

    def work(item):
        with lock:
            done.append(item)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for item in items:
            pool.submit(work, item)
    return done


def limited(items, workers=4):
    if len(items) > 1 << 10:
        raise ValueError("at most 1,024 items a drain")
    done = []
    threads = [threading.Thread(target=done.extend, args=(items[i::workers],)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done
'''
POOL_BASE = (POOL_HEAD.replace("""    if len(items) > 1 << 10:
        raise ValueError("at most 1,024 items a drain")
""", "").replace('''    for _ in range(workers):
        q.put(-(2**3))
''', "").replace('''            item = q.get()
            if item == -(2**3):
                return
''', '''            try:
                item = q.get_nowait()
            except queue.Empty:
                return
''').replace('''    def work(item):
        with lock:
            done.append(item)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for item in items:
            pool.submit(work, item)
''', '''    def work(chunk):
        for item in chunk:
            with lock:
                done.append(item)

    threads = [threading.Thread(target=work, args=(items[i::workers],)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
'''))
POOL_TESTS = '''\
from pool import drain, limited, pooled


def test_pool():
    for items, workers in (([3, 1, 2], 4), ([5, 9], 1), ([], 2)):
        assert sorted(drain(items, workers)) == sorted(pooled(items, workers)) == sorted(limited(items, workers)) \
            == sorted(items)
'''


def test_a_concurrent_region_is_compared_where_it_returns_its_lists_in_any_order(tmp_path):
    """The ninth outside round's p38 (against 39d8607): `drain` stops a worker at an integer
    sentinel written inline, dropping a real item equal to it; the twins put the code's constants in
    a list. A thread pool for a loop of threads (`pooled`) finishes items in another order and
    refuses 0 workers where the loop did nothing: neither is a difference in a concurrent region."""
    (tmp_path / "pool.py").write_text(POOL_HEAD)
    (tmp_path / "test_pool.py").write_text(POOL_TESTS)
    tree = ast.parse(POOL_HEAD)
    watches = [CR.Watch("pool.py", n.name, n.lineno, n.end_lineno, False, True) for n in tree.body
               if isinstance(n, ast.FunctionDef)]
    out = run_recorded(tmp_path, "test_pool.py", {CR.ENV: CR.encode_watch(watches),
                                                  CR.BASE_ENV: CR.encode_base({"pool.py": POOL_BASE})})
    found = CR.loads((out / CR.RESULTS_RELPATH).read_bytes())
    told = {(c.name, c.input.split(":")[0]) for c, v, _ in found.differences() if v == CR.BASE}
    assert told and {name for name, _ in told} == {"drain", "limited"}, (
        told, [(c.input[:300], c.expected[:300], v, got[:300]) for c, v, got in found.differences() if c.name == "pooled"])
    # the eleventh round's p27: a cap the code raises at itself is compared (the pool's refusal is not)
    limited = [(c.input, c.expected) for c, v, _ in found.differences() if c.name == "limited"]
    assert limited and all(head == "raised builtins.ValueError" for _, head in limited), limited
    assert ("drain", "every integer in a list = -8, a constant of the code") in told, told
    compared = [c for c in found.calls if c.name == "pooled" and not c.results[-1][1].startswith(CR.NOT_RUN)]
    assert len(compared) > 20  # compared, in any order, where both returned
    refused = [got for c in found.calls if c.name == "pooled" for _, got in c.results if "ValueError" in got]
    assert refused and all(got.endswith("(a concurrent region is compared where it returns or raises from its own "
                                        "file)") for got in refused)
    assert found.errors == ()


def test_a_watch_list_reads_its_concurrent_flag_and_older_entries():
    watches = (CR.Watch("a.py", "f", 1, 3), CR.Watch("b.py", "g", 2, 9, False, True))
    assert CR.decode_watch(CR.encode_watch(watches)) == watches
    assert CR.decode_watch('[["a.py","f",1,3],["b.py","g",2,9,0]]') == (CR.Watch("a.py", "f", 1, 3),
                                                                        CR.Watch("b.py", "g", 2, 9, False))
    assert CR.in_any_order([[3, "b"], [1, "a"], {"k": (2, 1)}]) == [["a", 1], ["b", 3], {"k": (1, 2)}]
    assert CR.folded([(1,), {"k": frozenset({2})}, [3]]) == [("[0]", "tuple"), ("[1]['k']", "frozenset")]
    assert CR.outcome_of((1, [2])) == "[1,[2]], a tuple at $" and CR.outcome_of([1, (2,)]) == "[1,[2]], a tuple at $[1]"
    # the sixteenth outside round's d27: a bytearray for bytes (unhashable, and not `bytes`)
    assert CR.outcome_of(bytearray(b"ok")) == CR.outcome_of(b"ok") + ", a bytearray at $"
    assert not CR.same(CR.outcome_of(bytearray(b"ok")), CR.outcome_of(b"ok"))



def test_only_a_head_that_keeps_what_the_base_copied_is_a_difference_in_what_a_call_keeps():
    kept = f"null{CR.KEPT}argument 2"
    assert not CR.same(kept, "null")  # the head keeps its caller's dict, the base copied it
    assert CR.same("null", kept)  # the head copies what the base kept
    assert CR.same(kept, kept) and not CR.same("1", f"null{CR.KEPT}argument 2")


# A module that configures the process when it is imported, and one that does what libraries do at
# import as a matter of course; `posted` and `noted_once` are the same at the head and the base.
LOUD_HEAD = '''\
import decimal
import logging

logging.basicConfig(level=logging.DEBUG)
decimal.getcontext().prec = 6


def posted(cents):
    return cents
'''
QUIET_HEAD = '''\
import atexit
import logging
import warnings

_LOG = logging.getLogger(__name__)
_LOG.setLevel(logging.INFO)
_LOG.addHandler(logging.NullHandler())
warnings.filterwarnings("ignore", category=DeprecationWarning, module="quiet")
atexit.register(lambda: None)


def noted_once(cents):
    return cents
'''
SAID_HEAD = '''\
import logging

logging.debug("tax tables loaded")


def said(cents):
    return cents
'''
IMPORT_TESTS = '''\
from loud import posted
from quiet import noted_once
from greeting import said


def test_import():
    assert posted(5) == noted_once(5) == said(5) == 5
'''


def test_what_importing_a_module_leaves_for_every_program_that_imports_it_is_compared(tmp_path):
    """The twelfth outside round: a root logger configured when the module is imported (every
    program that imports it logs at DEBUG), which no call's own comparison sees (the call begins
    after the import). What libraries do at import as a matter of course (their own logger's level
    and handler, a warnings filter, an exit hook) is no difference."""
    heads = {"loud.py": LOUD_HEAD, "quiet.py": QUIET_HEAD, "greeting.py": SAID_HEAD}
    bases = {"loud.py": LOUD_HEAD.replace("logging.basicConfig(level=logging.DEBUG)\n", "")
             .replace("decimal.getcontext().prec = 6\n", ""),
             "greeting.py": SAID_HEAD.replace('logging.debug("tax tables loaded")\n', ""),
             "quiet.py": QUIET_HEAD.split("_LOG = ")[0] + "\n\ndef noted_once(cents):\n    return cents\n"}
    for name, text in heads.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "test_import.py").write_text(IMPORT_TESTS)
    watches = [CR.Watch(name, n.name, n.lineno, n.end_lineno, False) for name, text in heads.items()
               for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
    out = run_recorded(tmp_path, "test_import.py", {CR.ENV: CR.encode_watch(watches),
                                                    CR.BASE_ENV: CR.encode_base(bases)})
    found = CR.loads((out / CR.RESULTS_RELPATH).read_bytes())
    told = [(c.name, c.input, c.expected, got) for c, v, got in found.differences() if v == CR.BASE]
    assert {name for name, *_ in told} == {"posted", "said"}, told
    # a module-level `logging.debug` gives the root logger a handler: the program's own
    # `logging.basicConfig` does nothing after it (the twelfth round's open class). (The calls run
    # in path order, and `greeting.py` comes before `loud.py`, whose head configures the root first.)
    (_, _, head, base), = [t for t in told if t[1].startswith("said(")]
    assert "the root logger at level WARNING with 1 handler(s)" in head and CR.IMPORTED not in base, head
    # the call as the test made it (its widenings import nothing more)
    (_, shown, head, base), = [t for t in told if t[1].startswith("posted(")]
    # (its `basicConfig(level=DEBUG)` does nothing here: `greeting`'s head gave the root a handler)
    assert CR.IMPORTED in head and "prec=6" in head and "the root logger" not in head, head
    assert CR.IMPORTED not in base, base
    assert [c for c in found.calls if c.name == "noted_once"] and found.errors == ()


def _twinned(root: Path, module: str, head: str, base: str, tests: str) -> CR.CleanroomResults:
    """A module's head beside its base, each of its functions watched (a region that promises no
    purity), as its tests' calls and their widenings show them."""
    (root / f"{module}.py").write_text(head)
    (root / f"test_{module}.py").write_text(tests)
    watches = [CR.Watch(f"{module}.py", n.name, n.lineno, n.end_lineno, False)
               for n in ast.parse(head).body if isinstance(n, ast.FunctionDef)]
    out = run_recorded(root, f"test_{module}.py", {CR.ENV: CR.encode_watch(watches),
                                                   CR.BASE_ENV: CR.encode_base({f"{module}.py": base})})
    return CR.loads((out / CR.RESULTS_RELPATH).read_bytes())


# What a call writes to standard output: a program's output, compared head against base.
SPOKEN_HEAD = '''\
import os
import sys


def printed(cents):
    print(f"charged {cents} cent(s)")
    return cents


def written(cents):
    os.write(1, b"charged\\n")
    return cents


def same_line(cents):
    print("total", cents)
    return cents


def warned(cents):
    sys.stderr.write(f"slow path for {cents}\\n")
    return cents
'''
SPOKEN_TESTS = '''\
from spoken import printed, same_line, warned, written


def test_spoken():
    assert printed(5) == written(5) == same_line(5) == warned(5) == 5
'''


def test_what_a_call_writes_to_standard_output_is_compared_and_standard_error_is_not(tmp_path):
    """The thirteenth outside round's `print` in `drain` (a line on every caller's stdout, merged as
    arid): what a call writes to file descriptor 1, by `print` or `os.write`, is part of its outcome
    in the twins. A line the base printed too is no difference; nor is standard error (warnings and
    log records go there)."""
    base = SPOKEN_HEAD.replace('    print(f"charged {cents} cent(s)")\n', "").replace(
        '    os.write(1, b"charged\\n")\n', "").replace('    sys.stderr.write(f"slow path for {cents}\\n")\n', "")
    found = _twinned(tmp_path, "spoken", SPOKEN_HEAD, base, SPOKEN_TESTS)
    told = {c.name: (c.input, got, c.expected) for c, v, got in found.differences() if v == CR.BASE}
    assert set(told) == {"printed", "written"}, told
    assert f'{CR.WROTE}18 bytes: "charged ' in told["printed"][2] and CR.WROTE not in told["printed"][1]
    assert f'{CR.WROTE}8 bytes: "charged\\n"' in told["written"][2] and CR.WROTE not in told["written"][1]
    assert {c.name for c in found.calls} >= {"same_line", "warned"} and found.errors == ()


def test_a_head_far_slower_than_the_base_on_an_input_both_answer_alike_differs_from_it():
    assert CR.slower(0.44, 0.03, 0.006).startswith(", taking 0.44 s of processor time where the base takes 0.006 s")
    assert CR.slower(0.09, 0.005, 0.0001) == ""  # under SLOWER_SECONDS: noise (a collection, a cache)
    assert CR.slower(0.5, 0.03, 0.03) == ""  # under SLOWER_FACTOR times as long
    # as many times as long on four times the items: a linear cost (a thread pool's per item)
    assert CR.slower(0.19, 0.05, 0.003) == ""
    assert CR.slower(0.5, 0.03, None) == CR.slower(None, 0.01, 0.001) == CR.slower(0.5, None, 0.001) == ""
    assert CR.slower(0.02, 0.001, 0.5) == ""  # a faster head
    assert CR.scaled((5, "x"), {}) is None
    (grown, text), kw = CR.scaled(([1, 2, 3], "x"), {"more": (4,)})
    assert len(grown) == CR.SCALED_ITEMS and grown[:4] == [1, 2, 3, 1] and text == "x"
    assert kw["more"] == (4,) * CR.SCALED_ITEMS
    (doc,), _ = CR.scaled(({"id": "a", "lines": [["tea", 5]]},), {})  # its lists, not its entries
    assert len(doc["lines"]) == CR.SCALED_ITEMS and doc["id"] == "a" and len(doc) == 2
    (balances,), _ = CR.scaled(({"acme": 5, "globex": 7},), {})  # no list: its dicts
    assert len(balances) == CR.SCALED_ITEMS and balances["acme"] == 5


def test_a_timed_input_that_grew_is_timed_again_and_keeps_its_least_time_unless_a_cache_answered():
    """A thread pool's processor time swings with the machine's load (a linear pool grew 2 to 10
    times on four times the items beside two busy gates: `pooled` in the concurrent case below
    differed 2 times in some 13): each size is run TIMED_RUNS times in all, by turns, and keeps its
    least; a repeat a CACHED-th of the first run is a cache's answer, and the first run stands."""

    def timer(times):
        asked, left = [], {data: list(ts) for data, ts in times.items()}

        def attempt(data):
            asked.append(data)
            took = left[data].pop(0)
            return (CR.OUT_OF_TIME, took, True) if took is None else ("returned 1", took, False)
        return attempt, asked

    attempt, asked = timer({b"full": [0.15, 0.14], b"quarter": [0.05, 0.038]})
    assert _least(attempt, (b"full", 0.49), (b"quarter", 0.04)) == [0.14, 0.038]
    assert asked == [b"full", b"quarter"] * (CR.TIMED_RUNS - 1)  # by turns
    assert CR.slower(0.49, 0.04, 0.004) and not CR.slower(0.14, 0.038, 0.004)
    # a quadratic loop's least is as slow as its first
    attempt, _ = timer({b"full": [0.61, 0.6], b"quarter": [0.04, 0.041]})
    assert CR.slower(*_least(attempt, (b"full", 0.62), (b"quarter", 0.039)), 0.004)
    # a cache's answer does not count; nor does a repeat that did not answer
    attempt, _ = timer({b"full": [0.6, 0.001], b"quarter": [None, 0.05]})
    assert _least(attempt, (b"full", 0.62), (b"quarter", 0.039)) == [0.62, 0.039]


def test_one_side_answering_at_once_where_the_other_runs_past_more_time_is_a_difference():
    """`outlasted`: a head still running after PATIENT_SECONDS where the base answered within the
    first 0.5 s, or a head raising at once where the base still runs, is compared; a faster head is
    not a difference, nor anything a side answered only when given more time."""
    late, quick, raised = CR.PAST_PATIENCE, "[1, 2]", "raised builtins.ValueError"
    assert CR.outlasted(late, False, quick, False) == (CR.STILL_RUNNING, quick)
    assert CR.outlasted(raised, False, late, False) == (raised, CR.STILL_RUNNING)
    assert not CR.same(*CR.outlasted(late, False, quick, False))
    assert not CR.same(*CR.outlasted(raised, False, late, False))
    assert CR.outlasted(quick, False, late, False) is None  # the head returns where the base still runs
    assert CR.outlasted(late, False, quick, True) is None  # the base answered only when given more time
    assert CR.outlasted(raised, True, late, False) is None
    assert CR.outlasted(late, False, late, False) is None and CR.outlasted(quick, False, quick, False) is None
    assert CR.outlasted(late, False, CR.OUT_OF_TIME, False) is None
    # the sixteenth outside round's honest h3 (`[base + 1] * remainder + ...`): a list of 10**30
    # items refused at once where the base still builds it one by one is no cap of the head's own;
    # an OverflowError on a size a list can have (`raise OverflowError` past 10**8 parts) still is
    room = "raised builtins.OverflowError" + CR.PAST_INDEX
    assert CR.outlasted(room, False, late, False) is None
    assert CR.outlasted("raised builtins.OverflowError", False, late, False) == ("raised builtins.OverflowError",
                                                                                 CR.STILL_RUNNING)
    assert CR.past_index(((7, 10**30), {})) and CR.past_index([{"n": [-(2**63)]}]) and not CR.past_index((2**63 - 1,))
    assert not CR.past_index(("1" * 30, 10**18)) and CR.past_index({10**19: 1})


SLOW_HEAD = '''\
def shares(total, parts):
    if not 0 < parts <= 10 ** 8:
        raise ValueError("parts must be positive and at most 10**8")
    base, remainder = divmod(total, parts)
    return [base + (1 if i < remainder else 0) for i in range(parts)]


def kept(items):
    out = []
    for item in items[:1 << 17]:
        out = out + [item]
    return out


def first(items):
    return [item for item in items[:1 << 17]][:1]


def listed(items):
    out = []
    for item in items:
        out = out + [f"line {item}"]
    return out


def paged(items):
    return sum(items[:1 << 13])
'''
SLOW_BASE = (SLOW_HEAD.replace("    if not 0 < parts <= 10 ** 8:\n        raise ValueError(\"parts must be positive and at most 10**8\")\n",
                               "    if parts <= 0:\n        raise ValueError(\"parts must be positive\")\n")
             .replace("        out = out + [item]\n", "        out.append(item)\n")
             .replace("[item for item in items[:1 << 17]][:1]", "items[:1 << 17][:1]")
             .replace('        out = out + [f"line {item}"]\n', '        out.append(f"line {item}")\n'))
SLOW_TESTS = '''\
from slow import first, kept, listed, paged, shares


def test_slow():
    assert shares(7, 3) == [3, 2, 2] and kept([1, 2]) == [1, 2] and first([1, 2]) == [1]
    assert listed([1, 2]) == ["line 1", "line 2"] and paged([1, 2]) == 3
'''


def test_a_cap_the_base_cannot_run_and_a_loop_made_quadratic_are_compared_by_how_long_each_side_runs(tmp_path):
    """The thirteenth outside round's d24b (a guard `not 0 < parts <= 10 ** 8`: the base runs the
    widened call past the 0.5 s the twins gave it, so nothing was compared) and d13 (a list built
    by `out = out + [...]`): a call that runs out of time is run once more with PATIENT_SECONDS, and
    one side answering at once where the other still runs is a difference. A head that is merely as
    slow as the base (`first`: a copy before the slice) is not."""
    found = _twinned(tmp_path, "slow", SLOW_HEAD, SLOW_BASE, SLOW_TESTS)
    told = {}
    for c, v, got in found.differences():
        if v == CR.BASE:
            told.setdefault(c.name, (c.input, c.expected, got))
    assert set(told) == {"shares", "kept", "listed"}, told
    assert told["shares"][1] == "raised builtins.ValueError" and told["shares"][2] == CR.STILL_RUNNING, told
    assert told["kept"][1] == CR.STILL_RUNNING and "items, past a constant of the code" in told["kept"][0], told
    # a loop made quadratic where no constant makes the list long: timed on its lists repeated to
    # 16,384 items, far slower at the head (the same outcome otherwise)
    (head, base), *_ = [(c.expected, got) for c, v, got in found.differences()
                        if c.name == "listed" and c.input.startswith(CR.SCALED)]
    assert head.startswith(base) and "s of processor time where the base takes" in head, head
    # `paged`'s longest answer whose lists are shorter than 16,384 items has lists of 8,193 (past its
    # cap): grown, but not to a quarter as many (it has more); timed, not compared for growth
    assert [c for c in found.calls if c.name == "paged" and c.input.startswith(CR.SCALED)]
    assert found.errors == ()
    assert found.errors == ()


def test_a_verdict_clips_the_call_and_keeps_the_later_world_it_ran_in_whole():
    world = CR.later_shown({"BILLING_INDENT": "1"}, 1)
    long_call = "encode({'id': '" + "x" * 300 + "'})"
    assert CR.clipped(f"{long_call} {world}", 20) == f"{long_call[:20]} {world}"
    assert CR.clipped(long_call, 20) == long_call[:20]  # no world: as it was
    assert CR.clipped(f"f(1) {world}", 160) == f"f(1) {world}" and "told they run on Windows" in world
    argued = CR.later_shown({}, 0, CR.later_arguments(["--dry-run", "BILLING_INDENT", "--dry-run"]))
    assert argued.endswith("; its command line '--dry-run BILLING_INDENT']") and CR.clipped(f"f(1) {argued}", 1) == f"f {argued}"
    # a call whose own text holds the world's opening is clipped at the last one, the world's
    assert CR.clipped(f"f('[on {CR.later_moment(0)[1]}, ') {world}", 3) == f"f(' {world}"
    assert CR.clipped(f"f('[on {CR.later_moment(1)[1]}, ') {world}", 3) == f"f(' {world}"
    assert CR.clipped(f"f('[on {CR.later_moment(2)[1]}, ') {world}", 3) == f"f(' {world}"
    assert CR.clipped(f"f('[on {CR.later_moment(3)[1]}, ') {world}", 3) == f"f(' {world}"
    assert "2056-01-31" in world and "2056-12-31" in CR.later_shown({}, 2) and "2056-02-29" in CR.later_shown({}, 3)


def test_a_twins_results_file_reads_back_what_it_wrote_and_where_its_interpreter_ended():
    entries = [CR.twin_entry("", "returned 5", 0.001), CR.twin_entry("w: f(7)", CR.OUT_OF_TIME),
               CR.twin_entry("s: f([..])", "returned 7", 0.2, True, 0.01)]
    lines = [line for k, e in enumerate(entries) for line in (CR.begun(0, k, e[0]), CR.done(0, k, e))]
    read = CR.read_twin([*lines, json.dumps(CR.FINISHED)], None)
    assert read == CR.TwinRead({0: entries}, True, None, None)
    assert [CR.entry_took(e) for e in entries] == [0.001, None, 0.2] and CR.entry_took(entries[2], True) == 0.01
    assert [CR.entry_patient(e) for e in entries] == [False, False, True]
    # ended in the middle of the next call's second input (and a line cut short by the end)
    more = [CR.begun(1, -1, ""), CR.begun(1, 0, ""), CR.done(1, 0, entries[0]), CR.begun(1, 1, "w: f(9)")]
    ended = CR.ended_by(-11, 27)
    read = CR.read_twin([*lines, *more, '[1, 1, ["w: f(9)", "ret'], ended)
    assert read.entries[1] == [entries[0], ["w: f(9)", ended]] and read.resume == (1, 2) and read.ended_in == 1
    assert ended == f"{CR.ENDED} (signal 11)" and CR.ended_by(-27, 27) == f"{CR.ENDED} ({CR.STILL_RUNNING_IN_C})"
    # ended while rebuilding a call (importing its module): the call as made did it; the next call is next
    read = CR.read_twin([CR.begun(0, -1, "")], CR.ended_by(3, 27))
    assert read.entries == {0: [["", f"{CR.ENDED} (exit status 3)"]]} and read.resume == (1, 0)
    # not ended (ran over its time): nothing is put on the input, and it is not started again
    assert CR.read_twin(lines[:3], None) == CR.TwinRead({0: entries[:1]}, False, None, None)


# Code that ends the interpreter: a program calling it ends, which is what it does.
ENDS_HEAD = '''\
import os
import sys


def a_crashed(parts):
    if parts > 10_000:
        os._exit(3)
    return parts


def b_spins(text):
    if text.isupper():
        sum(range(10 ** 12))  # a C loop: no signal handler runs until it ends
    return text


def c_after(cents):
    return cents + 1 if cents > 10 ** 6 else cents


def d_both(parts):
    if parts > 10_000:
        os._exit(3)
    return parts


def e_always(cents):
    if "pytest" not in sys.modules:
        os._exit(4)
    return cents
'''
ENDS_TESTS = '''\
from ends import a_crashed, b_spins, c_after, d_both, e_always


def test_ends():
    assert a_crashed(5) == 5 and b_spins("ab") == "ab" and c_after(5) == 5 and d_both(5) == 5
    assert [e_always(cents) for cents in (5, 6, 7)] == [5, 6, 7]
'''


def test_an_input_that_ends_the_interpreter_is_compared_and_the_twin_goes_on_after_it(tmp_path):
    """A head that crashes the interpreter (`os._exit`, a segmentation fault) on an input the base
    answers took the whole twin with it, and every comparison of its batch was NOT_COMPARED (INFO):
    now the twin writes each input as it goes, the input it ended in did `ended the interpreter (how)`,
    compared like the rest, and the twin starts again after it. A C loop no signal handler interrupts
    ends at the processor-time backstop. Where the base ends it alike, that is no difference."""
    base = (ENDS_HEAD.replace("    if parts > 10_000:\n        os._exit(3)\n    return parts\n\n\ndef b_", "    return parts\n\n\ndef b_")
            .replace('    if text.isupper():\n        sum(range(10 ** 12))  # a C loop: no signal handler runs until it ends\n', "")
            .replace("cents + 1 if cents > 10 ** 6 else cents", "cents")
            .replace('    if "pytest" not in sys.modules:\n        os._exit(4)\n', ""))
    assert base.count("os._exit(3)") == 1 and "sum(" not in base and "os._exit(4)" not in base
    found = _twinned(tmp_path, "ends", ENDS_HEAD, base, ENDS_TESTS)
    told = {}
    for c, v, got in found.differences():
        if v == CR.BASE:
            told.setdefault(c.name, (c.input, c.expected, got))
    assert set(told) == {"a_crashed", "b_spins", "c_after", "e_always"}, told
    assert told["a_crashed"][1] == f"{CR.ENDED} (exit status 3)" and not told["a_crashed"][2].startswith(CR.ENDED)
    assert told["b_spins"][1] == f"{CR.ENDED} ({CR.STILL_RUNNING_IN_C})", told
    assert any(c.name == "d_both" and c.expected == f"{CR.ENDED} (exit status 3)" for c in found.calls)
    assert any("started again after each" in e for e in found.errors), found.errors
    # a head that ends it on every input (here: wherever pytest is not imported) spends the times a
    # twin is started again; what it leaves unrun is LOST (the verdict's TWIN_LOST), not silence
    lost = [c.expected for c in found.calls if c.name == "e_always" and c.expected.startswith(CR.LOST)]
    assert lost and f"ended {CR.TWIN_ENDS + 1} times (it is started again at most" in lost[0], [c.expected for c in found.calls if c.name == "e_always"]


# Code that ends the interpreter in a clean variant only: where the clock is moved, off the main
# thread, wherever pytest is not imported (five functions, eight calls each: more ends than a clean
# interpreter is started again after).
ENDS_IN_A_VARIANT = '''\
import os
import sys
import threading
import time


def a_ends_later(n):
    if time.time() > LATER:
        os._exit(0)
    return n


def b_ends_off_the_main_thread(n):
    if threading.current_thread() is not threading.main_thread():
        os._exit(4)
    return n


def c_after(n):
    return [n, n + 1]


def d_waits(n):
    while LATER < time.time() < LATER + 400 * 86400 or threading.current_thread() is not threading.main_thread():
        time.sleep(0.01)
    return n
''' + "".join(f'''

def e_always_{k}(n):
    if "pytest" not in sys.modules:
        os._exit(5)
    return n
''' for k in range(5))

ENDS_IN_A_VARIANT_TESTS = '''\
from hypothesis import given, settings, strategies as st

from ends_in_a_variant import *


@settings(max_examples=30, database=None)
@given(st.integers(0, 50))
def test_laws(n):
    assert a_ends_later(n) == n and b_ends_off_the_main_thread(n) == n and c_after(n) == [n, n + 1] and d_waits(n) == n
    assert [e_always_0(n), e_always_1(n), e_always_2(n), e_always_3(n), e_always_4(n)] == [n] * 5
'''


def test_a_clean_variant_an_input_ends_is_compared_and_goes_on_after_it(tmp_path):
    """A pure function that ends a clean variant's interpreter (a date bomb's `os._exit`, an exit off
    the main thread) took that variant's whole batch with it: every call of it said `not run`,
    which is no difference, and the function merged on the variants left. Now the variant writes
    each call as it goes, the input it ended in did `ended the interpreter (how)`, which differs from
    what the call did under the test, and the variant starts again at the next call; what it leaves
    unrun after CR.TWIN_ENDS ends is LOST (the verdict's TWIN_LOST). A call that hangs there is
    still running after CR.VARIANT_CALL_SECONDS: a difference, where it was a lost variant."""
    later = int(time.time()) + 200 * CR.DAY  # 400 days ahead sees it, 1 day ahead does not
    (tmp_path / "ends_in_a_variant.py").write_text(ENDS_IN_A_VARIANT.replace("LATER", str(later)))
    (tmp_path / "test_ends_in_a_variant.py").write_text(ENDS_IN_A_VARIANT_TESTS)
    tree = ast.parse(ENDS_IN_A_VARIANT)
    watches = [CR.Watch("ends_in_a_variant.py", n.name, n.lineno, n.end_lineno) for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef)]
    out = run_recorded(tmp_path, "test_ends_in_a_variant.py", {CR.ENV: CR.encode_watch(watches)})
    found = CR.loads((out / CR.RESULTS_RELPATH).read_bytes())
    told = {}
    for c, v, got in found.differences():
        told.setdefault(c.name, {}).setdefault(v, got)
    assert told["a_ends_later"] == {v: f"{CR.ENDED} (exit status 0)" for v in ("clock+400d", "clock+10y", "clock+30y")}
    assert told["b_ends_off_the_main_thread"] == {"thread": f"{CR.ENDED} (exit status 4)"}
    # one that never answers where the clock is 400 days ahead, or off the main thread: still
    # running after CR.VARIANT_CALL_SECONDS, a difference (it was a lost batch); its later calls
    # there are not run
    assert told["d_waits"] == {v: CR.VARIANT_STILL_RUNNING for v in ("clock+400d", "thread")}
    assert {got for c in found.calls if c.name == "d_waits" for v, got in c.results if v == "thread"} \
        == {CR.VARIANT_STILL_RUNNING, CR.OUT_OF_TIME_BEFORE}
    assert "c_after" not in told  # after the ends: replayed in every variant, and twice in the first
    after = [c for c in found.calls if c.name == "c_after"]
    assert after and all(not got.startswith(CR.NOT_RUN) for c in after for _, got in c.results)
    assert all({v for v, _ in c.results} == {v for v, _, _ in CR.VARIANTS} | {CR.AGAIN} for c in after)
    # ended on every call of every variant: compared where it ran, LOST past the last start
    assert set(told["e_always_0"]) == {v for v, _, _ in CR.VARIANTS}
    lost = {v for c in found.calls for v, got in c.results if got.startswith(CR.LOST)}
    assert lost == {v for v, _, _ in CR.VARIANTS}, lost
    assert any(f"ended {CR.TWIN_ENDS + 1} times (it is started again at most" in got
               for c in found.calls for _, got in c.results if got.startswith(CR.LOST))
    assert any("the clean variant thread ended the interpreter (exit status" in e for e in found.errors), found.errors


def test_a_mutant_that_ends_the_oracles_process_is_said_to_have_been_loaded_first(tmp_path):
    """A mutant that ends its oracle's process (`os.abort()` reached by a flipped condition) leaves
    no results file, which said nothing and was reported as an infrastructure error (exit 4): the
    recorder now writes the mutant's id beside the results the moment it serves it, so the gate
    counts such a mutant as killed (rules/runs.py). A mutant whose module no test imports is not
    said to have been served."""
    (tmp_path / "cut.py").write_text("import os\n\n\ndef f(n):\n    if n > 10:\n        os.abort()\n    return n\n")
    (tmp_path / "other.py").write_text("X = 1\n")
    (tmp_path / "test_cut.py").write_text("from cut import f\n\n\ndef test_f():\n    assert f(2) == 2\n")
    flipped = (tmp_path / "cut.py").read_text().replace("n > 10", "not n > 10")
    served = tmp_path / "extra-output" / MP.SERVED_RELPATH
    proc = run_session(tmp_path, "test_cut.py", {MP.ENV_VAR: MP.encode_mutant_env("cut.py", flipped, "m7")})
    assert proc.returncode == -6, proc.stdout + proc.stderr  # SIGABRT: no results file
    assert served.read_text() == "m7" and not (tmp_path / "extra-output" / RESULTS_RELPATH).exists()
    served.unlink()
    proc = run_session(tmp_path, "test_cut.py", {MP.ENV_VAR: MP.encode_mutant_env("other.py", "X = 2\n", "m8")})
    assert proc.returncode == 0 and not served.exists()


def _one_twin(tmp_path: Path, name: str, **spec) -> list:
    """One clean interpreter in a twin's part (staged as the recorder stages it) on
    `counting.tally(3)` and its widenings: its entries."""
    work = tmp_path / name
    work.mkdir()
    script = stage_interpreter(str(work))
    (tmp_path / "counting.py").write_text("def tally(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n")
    call = {"module": "counting", "chain": ["tally"], "name": "tally", "constants": [], "words": [], "unordered": False,
            "names": ["n"], "args": base64.b64encode(pickle.dumps(((3,), {}), protocol=4)).decode("ascii")}
    spec_path, out = work / "spec.json", work / "out.json"
    spec_path.write_text(json.dumps({"twin": True, "sys_path": [str(tmp_path), *filter(None, sys.path)], "calls": [call], "served": None,
                                     "later": False, "own": str(tmp_path), "resume": [0, 0], **spec}))
    subprocess.run([sys.executable, "-s", "-B", script, str(spec_path), str(out)], cwd=work,
                   env={"PATH": os.environ.get("PATH", os.defpath), "HOME": str(work), "TMPDIR": str(work)},
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=300, check=True)
    with open(out, encoding="utf-8") as f:
        read = CR.read_twin(f, None)
    assert read.finished
    return read.entries[0]


def test_a_twin_skips_the_inputs_another_twins_answers_leave_uncompared_and_gives_no_more_time_where_asked(tmp_path):
    """The head's twin's inputs that no twin's answer can be compared on (plugin `_twins`): the
    again, later and seed twins do not run them, and the base's does not give them PATIENT_SECONDS.
    Each is skipped only where it is shown as it was at the head (another input at that place runs)."""
    head = _one_twin(tmp_path, "head", patient=True)
    slow = [(k, e[0]) for k, e in enumerate(head) if e[1] == CR.PAST_PATIENCE]
    assert slow and all(shown.startswith("past 10**30") or shown.startswith("past 2**")
                        for _, shown in slow), head
    answered = [(k, e[0]) for k, e in enumerate(head) if not e[1].startswith(CR.NOT_RUN)]
    skipped = [[0, k, shown] for k, shown in slow]
    again = _one_twin(tmp_path, "again", patient=False, unasked=skipped + [[0, answered[0][0], "another input"]])
    assert [e[1] for k, e in enumerate(again) if [0, k, e[0]] in skipped] == [CR.NOT_ASKED] * len(slow)
    assert [(e[0], e[1]) for e in again[:answered[-1][0] + 1] if not e[1].startswith(CR.NOT_RUN)] == \
        [(e[0], e[1]) for e in head[:answered[-1][0] + 1] if not e[1].startswith(CR.NOT_RUN)]
    assert again[answered[0][0]][0] == answered[0][1]  # (run: not shown as the skip said)
    base = _one_twin(tmp_path, "base", patient=True, impatient=skipped)
    assert [e[1] for k, e in enumerate(base) if [0, k, e[0]] in skipped] == [CR.OUT_OF_TIME] * len(slow)
    unskipped = _one_twin(tmp_path, "unskipped", patient=True, unasked=[[0, k, "another input"] for k, _ in slow])
    assert [e[:2] for e in unskipped] == [e[:2] for e in head]


def test_an_alarm_that_goes_off_as_a_timed_call_ends_is_its_time_running_out_never_the_twins_end(monkeypatch):
    """The seventeenth outside round's d42b: an io function's unchanged neighbours were rejected
    because one twin's interpreter ended (exit status 1) on an input timed near its 0.5 s under
    load, at the base in one run and at the head in another. The alarm had gone off as the call
    ended, while its clocks stopped, and its _TimedOut escaped into whatever ran next. Here the
    alarm goes off exactly there (the first clock stopped), and where it is delivered only after
    both stopped."""
    stopping = []
    real = CI.signal.setitimer

    def setitimer(which, seconds, *rest):
        if seconds == 0 and not stopping:
            stopping.append(which)
            CI._alarm(14, None)  # delivered as the first clock stops
        return real(which, seconds, *rest)

    monkeypatch.setattr(CI.signal, "setitimer", setitimer)
    result, raised = CI._timed(lambda: 5, (), {}, 30.0)
    assert result is None and isinstance(raised, CI._TimedOut) and stopping
    assert CI._ARMED == [False] and real(CI.signal.ITIMER_REAL, 0) == (0.0, 0.0)
    assert CI._alarm(14, None) is None  # one delivered late, after both clocks stopped, ends nothing
    stopping.clear()
    assert CI._variant_call(lambda: 7, False)[:2][0] is None and stopping
    monkeypatch.setattr(CI.signal, "setitimer", real)
    assert CI._timed(lambda: 5, (), {}, 30.0) == (5, None)  # and the common case is as before
    assert CI._timed(lambda: 1 // 0, (), {}, 30.0)[1].__class__ is ZeroDivisionError


def test_a_constant_written_through_a_builtin_is_a_constant_of_the_code():
    """A nineteenth outside round's d07 capped `drain` at `ord("字")` items (23,383): no integer
    constant, so no list was repeated past it. The integer a builtin computes from constants alone
    is a constant of the code whichever way it is written; a call on anything else is not. So is
    a text built of characters, a word the diff wrote."""
    from oracle_gate.sandbox.plugin import _folded

    def folded(text):
        return _folded(ast.parse(text, mode="eval").body)

    assert [folded(t) for t in ('ord("字")', 'len("abcd")', 'int("4_096")', "max(1 << 10, 3)", "abs(-(2**15))",
                                "-ord('a')", "round(1_234, -2)")] == [23_383, 4, 4_096, 1_024, 32_768, -97, 1_200]
    assert [folded(t) for t in ("ord(x)", 'int("a")', "min()", "len(items)", "float(3)", "int(4, base=8)")] == [None] * 6
    # and a word built of characters (the round's d17: a name starting with `chr(0x2212)`)
    from oracle_gate.sandbox.plugin import _folded_text
    assert [_folded_text(ast.parse(t, mode="eval").body) for t in (
        "chr(0x2212)", "chr(13) + chr(10)", '"acme" + chr(0x3164)', "chr(x)", "chr(-1)", "name + 'x'")] == [
        "\u2212", "\r\n", "acme\u3164", None, None, None]


def test_a_width_or_precision_a_format_names_is_a_constant_of_the_code():
    """A twentieth outside round's d01 and d06 cut a name to 48 (40) characters with a format's
    precision (`f"{name!s:.48}"`, `"{!s:.40}".format(account)`): no integer constant, so no text was
    repeated past it. The widths and precisions a format names, in an f-string's field, a
    `str.format` text or a `%` text, are lengths the code cuts or pads to; a format naming none
    gives none."""
    from oracle_gate.sandbox.plugin import _format_widths

    def widths(text):
        return sorted(n for node in ast.walk(ast.parse(text)) for n in _format_widths(node))

    assert [widths(t) for t in ('f"{name!s:.48}"', '"{!s:.40}".format(a)', '"%.40s" % a', 'f"{x:>12,.2f}"',
                                '"{0:08.3f} {1}"', '"%(a)-8s"')] == [[48], [40], [40], [2, 12], [3, 8], [8]]
    assert [widths(t) for t in ('f"{x}"', '"50%"', 'f"{n:{w}}"', '"{}".format(a)', '"a:b {x}"', "x % 40")] == [[]] * 6


def test_an_exception_that_claims_another_classs_name_is_told_apart():
    """A twentieth outside round's d12b raised `type("ValueError", (ArithmeticError,), {"__module__":
    "builtins"})(...)`: it reads `raised builtins.ValueError` like the base's, and a caller's `except
    ValueError` misses it. A class whose module binds its name to another class is a look-alike; a
    class of its own module, a nested one, and one made in a function (its name bound nowhere) are
    not."""
    from oracle_gate.sandbox.clean_interpreter import _look_alike, _outcome

    class Outer:
        class Inner(Exception):
            pass

    def made():
        class Local(Exception):
            pass
        return Local

    fake = type("ValueError", (ArithmeticError,), {"__module__": "builtins"})
    assert _outcome(None, fake("x")) == "raised builtins.ValueError" + CR.LOOK_ALIKE
    assert [_outcome(None, e) for e in (ValueError("x"), json.JSONDecodeError("m", "d", 0), made()())] == [
        "raised builtins.ValueError", "raised json.decoder.JSONDecodeError",
        f"raised {__name__}.test_an_exception_that_claims_another_classs_name_is_told_apart.<locals>.made.<locals>.Local"]
    assert not _look_alike(Outer.Inner) and not _look_alike(int) and _outcome([1], None) == "[1]"
    assert _look_alike(type("Decimal", (), {"__module__": "decimal"}))


def test_an_integer_is_widened_to_the_same_number_as_a_float():
    """A twentieth outside round's d07 widened `isinstance(line[1], int)` to integral reals
    (`float(line[1]).is_integer()`): no widening drew `15.0`, only `15.5`. Each integer is also
    given as the float of the same value, in JSON text too, where a float holds it exactly."""
    def floated(*args):
        return [a for name, a, _ in CR.widenings(args, {}) if name == "as an integral float"]

    assert floated({"id": "x", "lines": [["a", 15]]}) == [({"id": "x", "lines": [["a", 15.0]]},)]
    assert floated('{"id": "x", "lines": [["a", 15]]}') == [('{"id": "x", "lines": [["a", 15.0]]}',)]
    assert floated(2**53 + 1, True, "15") == [] and floated(40, 1.5) == [(40.0, 1.5)]


def test_text_and_keys_are_widened_with_a_byte_order_mark_before_them():
    """A twentieth outside round's d09c and d19 stripped format characters from the start of a name
    (`account.lstrip(marks)`, a key `str(k).lstrip(marks)` counted as present): every widening put
    its characters after the text. A byte order mark (what an exported file puts before its first
    name) goes before text values, before a document's keys, and before the keys inside it."""
    def widened(*args):
        return {name: a for name, a, _ in CR.widenings(args, {}) if "byte order mark" in name}

    found = widened({"id": "x", "lines": [["a", 1]]}, "acme")
    assert found["with a byte order mark before it"] == ({"id": "\ufeffx", "lines": [["\ufeffa", 1]]}, "\ufeffacme")
    assert found["with its keys starting with a byte order mark"] == ({"\ufeffid": "x", "\ufefflines": [["a", 1]]}, "acme")
    assert widened('{"id": "x", "lines": {"a": 1}}')["with the keys inside it starting with a byte order mark"] == (
        '{"id": "x", "lines": {"\ufeffa": 1}}',)
