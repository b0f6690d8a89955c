"""Known cases of the mutation engine: the billing example's changed symbols, an always-equal
`__eq__`, the budget split, the environment value and the NUMB line.

The billing sources are copied here as they are in examples/billing/src/billing, so the cases
pin the engine on that exact text without a dependency on the example project.
"""
import ast
import base64
import itertools
import json
import textwrap
import zlib

import pytest

from oracle_gate.core.ladder.mutants import (KINDS, FileToMutate, changed_lines, inert, line_mutants, message_parts, moved_in, mutant_id,
                                             mutants, named_literals, removed_lines, removed_rejections)
from oracle_gate.core.protocol.mutant_payload import (ENV_VAR, MAX_ENV_CHARS, MutantTooLarge, decode_mutant_env,
                                                      encode_mutant_env)

MONEY = '''"""Splitting money without losing a cent (pure)."""
from typing import List


def split(total_cents: int, parts: int) -> List[int]:
    if parts <= 0:
        raise ValueError("parts must be positive")
    base, remainder = divmod(total_cents, parts)
    return [base + (1 if i < remainder else 0) for i in range(parts)]
'''

TAX = '''"""Tax on an amount in cents, at a rate in basis points (pure)."""


def tax(cents: int, rate_bp: int) -> int:
    if cents < 0 or rate_bp < 0:
        raise ValueError("amounts and rates are non-negative")
    return (cents * rate_bp + 5_000) // 10_000


def amount_due(cents: int, rate_bp: int) -> int:
    return cents + tax(cents, rate_bp)
'''

STORE_HEAD = '''"""An account store with credits and debits (state)."""
import json
from typing import Dict


class Store:
    def __init__(self, balances: Dict[str, int]) -> None:
        self.balances = dict(balances)

'''
APPLY_CREDIT = '''    def apply_credit(self, account: str, cents: int) -> int:
        if cents <= 0:
            raise ValueError("a credit is positive")
        self.balances[account] = self.balances.get(account, 0) + cents
        return self.balances[account]
'''
STORE = STORE_HEAD + APPLY_CREDIT

# The attack of issue 11: decode returns an object whose `__eq__` always says True.
ALWAYS_EQUAL = '''"""Invoice wire format (io): decode returns an always-equal object."""
import json


class Invoice(dict):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash(self["id"])


def decode(text):
    doc = json.loads(text)
    lines = [(str(name), int(cents)) for name, cents in doc["lines"]]
    if any(cents < 0 for _, cents in lines):
        raise ValueError("an invoice line cannot be negative")
    return Invoice({"id": str(doc["id"])})
'''


def load(source, name="mutant"):
    namespace = {"__name__": name}
    exec(compile(source, name + ".py", "exec"), namespace)
    return namespace


def outcome(function, *args):
    try:
        return ("ok", function(*args))
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        return ("raised", type(exc).__name__, str(exc))


def descriptions(found):
    return [(m.symbol, m.operator, m.description) for m in found]


def test_money_split_mutants_are_pinned():
    found = mutants(MONEY, "src/billing/money.py", [("split", (5, 9))], 50)
    assert descriptions(found) == [
        ("split", "compare", "`<=` -> `<` at line 6"),
        ("split", "condition", "`parts <= 0` -> `not (parts <= 0)` at line 6"),
        ("split", "arith", "`+` -> `-` at line 9"),
        ("split", "return", "`return [base + (1 if i < remainder else 0) f...` -> `return None` at line 9"),
        ("split", "off_by_one", "`parts` -> `(parts) - 1` at line 9"),
        ("split", "constant", "`0` -> `1` at line 6"),
        ("split", "remove", "`base, remainder = divmod(total_cents,...` -> `pass` at line 8"),
        ("split", "compare", "`<=` -> `>` at line 6"),
        ("split", "condition", "`i < remainder` -> `not (i < remainder)` at line 9"),
        ("split", "off_by_one", "`parts` -> `(parts) + 1` at line 9"),
        ("split", "constant", "`1` -> `0` at line 9"),
        ("split", "compare", "`<` -> `<=` at line 9"),
        ("split", "constant", "`1` -> `2` at line 9"),
        ("split", "compare", "`<` -> `>=` at line 9"),
        ("split", "constant", "`0` -> `1` at line 9"),
    ]  # the raise (line 7) is arid: its guard's condition is mutated instead
    boundary = next(m for m in found if m.description == "`<=` -> `<` at line 6")
    assert boundary.source.splitlines()[5] == "    if parts < 0:"
    assert boundary.source.replace("parts < 0", "parts <= 0", 1) == MONEY


def test_every_money_split_mutant_is_a_real_fault():
    """A full-comparison oracle over a small grid kills all of them: none is equivalent."""
    original = load(MONEY)["split"]
    grid = list(itertools.product(range(-7, 12), range(-2, 6)))
    for mutant in mutants(MONEY, "src/billing/money.py", [("split", (5, 9))], 50):
        changed = load(mutant.source)["split"]
        assert any(outcome(original, *args) != outcome(changed, *args) for args in grid), mutant.description


def test_tax_mutants_cover_the_rounding_and_the_guard():
    found = mutants(TAX, "src/billing/tax.py", [("tax", (4, 7))], 50)
    wanted = {
        "`<` -> `<=` at line 5",
        "`or` -> `and` at line 5",
        "`cents < 0 or rate_bp < 0` -> `not (cents < 0 or rate_bp < 0)` at line 5",
        "`*` -> `/` at line 7",
        "`+` -> `-` at line 7",
        "`//` -> `/` at line 7",
        "`5_000` -> `5001` at line 7",
        "`10_000` -> `10001` at line 7",
        "`return (cents * rate_bp + 5_000) // 10_000` -> `return None` at line 7",
    }  # the raise at line 6 is arid
    assert wanted <= {m.description for m in found}
    assert {m.symbol for m in found} == {"tax"}
    assert all(4 <= m.line <= 7 for m in found)
    original = load(TAX)["tax"]
    grid = list(itertools.product((-1, 0, 1, 3, 4999, 5000, 10_000, 12_345), (-1, 0, 1, 2, 7, 10_000)))
    for mutant in found:
        changed = load(mutant.source)["tax"]
        assert any(outcome(original, *args) != outcome(changed, *args) for args in grid), mutant.description


def test_store_apply_credit_mutants_stay_inside_the_method():
    found = mutants(STORE, "src/billing/store.py", [("Store.apply_credit", (10, 14))], 50)
    wanted = {
        "`<=` -> `<` at line 11",
        "`+` -> `-` at line 13",
        "`self.balances[account] = self.balance...` -> `pass` at line 13",
        "`return self.balances[account]` -> `return None` at line 14",
    }
    assert wanted <= {m.description for m in found}
    head = STORE_HEAD.splitlines()
    for mutant in found:
        assert mutant.symbol == "Store.apply_credit"
        assert mutant.source.splitlines()[: len(head)] == head
        assert len(mutant.source.splitlines()) == len(STORE.splitlines())


def test_always_equal_eq_gets_the_opposite_constant_and_not_implemented():
    targets = [("Invoice.__eq__", (6, 7)), ("Invoice.__hash__", (9, 10)), ("decode", (13, 18))]
    found = mutants(ALWAYS_EQUAL, "src/billing/invoice_io.py", targets, 50)
    eq = {m.description for m in found if m.symbol == "Invoice.__eq__"}
    assert "`__eq__` body -> `return False` at line 7" in eq
    assert "`__eq__` body -> `return NotImplemented` at line 7" in eq
    assert not any("-> `return True`" in d for d in eq)  # the same as the original: no mutant
    assert "`__hash__` body -> `return id(self)` at line 10" in {m.description for m in found}
    assert {m.symbol for m in found} == {"Invoice.__eq__", "Invoice.__hash__", "decode"}
    # Run them against the round-trip property the attack slipped past.
    invoices = [{"id": "a", "lines": [("x", 1), ("y", 0)]}, {"id": "b", "lines": []}]

    def round_trips(namespace):
        encode = lambda inv: json.dumps({"id": inv["id"], "lines": [list(x) for x in inv["lines"]]})
        try:
            return all(namespace["decode"](encode(inv)) == inv for inv in invoices)
        except Exception:  # noqa: BLE001 - a crash kills the mutant
            return False

    assert round_trips(load(ALWAYS_EQUAL))
    survived = {}
    for mutant in found:
        kept = survived.setdefault(mutant.symbol, [0, 0])
        kept[0] += round_trips(load(mutant.source))
        kept[1] += 1
    assert survived["Invoice.__eq__"][0] == 0  # the property does test equality
    assert survived["Invoice.__hash__"] == [4, 4]  # every __hash__ mutant survived: numb


def test_eq_with_a_real_body_gets_both_constants():
    source = textwrap.dedent('''\
        class Money:
            def __init__(self, cents):
                self.cents = cents

            def __eq__(self, other):
                """Equal amounts."""
                return isinstance(other, Money) and self.cents == other.cents

            def __lt__(self, other):
                return self.cents < other.cents
        ''')
    found = mutants(source, "money.py", [("Money.__eq__", (5, 7)), ("Money.__lt__", (9, 10))], 40)
    by_symbol = {}
    for m in found:
        by_symbol.setdefault(m.symbol, set()).add(m.description)
    assert {
        "`__eq__` body -> `return True` at line 7",
        "`__eq__` body -> `return False` at line 7",
        "`__eq__` body -> `return NotImplemented` at line 7",
        "`and` -> `or` at line 7",
        "`==` -> `!=` at line 7",
    } <= by_symbol["Money.__eq__"]
    assert "`__lt__` body -> `return NotImplemented` at line 10" in by_symbol["Money.__lt__"]
    assert "`return self.cents < other.cents` -> `return not (self.cents < other.cents)` at line 10" in by_symbol[
        "Money.__lt__"
    ]
    for m in found:  # the docstring survives every mutant
        assert '"""Equal amounts."""' in m.source


def test_the_budget_is_shared_round_robin():
    targets = [("tax", (4, 7)), ("amount_due", (10, 11))]
    assert [m.symbol for m in mutants(TAX, "tax.py", targets, 4)] == ["tax", "amount_due", "tax", "amount_due"]
    full = mutants(TAX, "tax.py", targets, 100)
    counts = {s: sum(m.symbol == s for m in full) for s, _ in targets}
    assert counts["amount_due"] == 2  # `+` -> `-` and `return None`: then tax takes the rest
    assert [m.symbol for m in full[:5]] == ["tax", "amount_due", "tax", "amount_due", "tax"]
    assert mutants(TAX, "tax.py", targets, 0) == ()
    # Within one symbol the turn goes through the operator kinds before repeating one.
    first = [m.operator for m in mutants(MONEY, "money.py", [("split", (5, 9))], 7)]
    assert first == [k for k in KINDS if k in set(first)]


def test_nested_ranges_give_a_node_to_the_innermost_symbol():
    targets = [("Store", (6, 14)), ("Store.apply_credit", (10, 14))]
    found = mutants(STORE, "store.py", targets, 100)
    assert {m.symbol for m in found if m.line >= 10} == {"Store.apply_credit"}
    assert {m.symbol for m in found if m.line < 10} == {"Store"}
    assert len({m.source for m in found}) == len(found)


def test_a_multi_line_value_keeps_every_line_number():
    source = textwrap.dedent('''\
        def total(items):
            return sum(
                item.cents
                for item in items
            )


        def after():
            return 1
        ''')
    found = mutants(source, "m.py", [("total", (1, 5))], 20)
    gone = next(m for m in found if m.operator == "return")
    assert gone.description == "`return sum( item.cents for item in items )` -> `return None` at line 2"
    assert len(gone.source.splitlines()) == len(source.splitlines())
    assert load(gone.source)["after"].__code__.co_firstlineno == 8
    assert load(gone.source)["total"]([]) is None


def test_ids_are_stable_short_hashes():
    found = mutants(MONEY, "src/billing/money.py", [("split", (5, 9))], 3)
    assert [len(m.id) for m in found] == [12, 12, 12]
    assert found[0].id == mutant_id("src/billing/money.py", "split", "compare", "6:13-6:15", "<")
    other_path = mutants(MONEY, "src/other/money.py", [("split", (5, 9))], 3)
    assert [m.source for m in other_path] == [m.source for m in found]
    assert not {m.id for m in other_path} & {m.id for m in found}


@pytest.mark.parametrize(
    "targets, message",
    [
        ([("f", (0, 3))], "target must be (symbol, (start_line, end_line)), got ('f', (0, 3))"),
        ([("f", (4, 3))], "target must be (symbol, (start_line, end_line)), got ('f', (4, 3))"),
        ([("", (1, 3))], "target must be (symbol, (start_line, end_line)), got ('', (1, 3))"),
        (["f"], "target must be (symbol, (start_line, end_line)), got 'f'"),
    ],
)
def test_bad_targets_are_one_line_errors(targets, message):
    with pytest.raises(ValueError) as info:
        mutants(MONEY, "money.py", targets, 5)
    assert str(info.value) == message


def test_bad_source_and_budget_are_one_line_errors():
    with pytest.raises(ValueError, match=r"^cannot parse broken\.py: line 1 "):
        mutants("def f(:\n", "broken.py", [("f", (1, 1))], 5)
    with pytest.raises(ValueError, match="max_mutants must be a non-negative integer, got -1"):
        mutants(MONEY, "money.py", [("split", (5, 9))], -1)


def test_env_value_round_trips_and_is_bounded():
    value = encode_mutant_env("src/billing/money.py", MONEY, "036667466722")
    assert ENV_VAR == "ORACLE_GATE_MUTANT"
    assert value.isascii() and "\n" not in value
    assert decode_mutant_env(value) == {"path": "src/billing/money.py", "source": MONEY, "id": "036667466722"}
    # Incompressible text past the limit is refused with a reason the gate can print.
    noise = "".join(f"{n * 2654435761 % 2 ** 32:08x}" for n in range(40_000))
    with pytest.raises(MutantTooLarge, match=r"^mutant m1 of big\.py: ORACLE_GATE_MUTANT would be \d+ characters, "
                                             rf"over the {MAX_ENV_CHARS} limit$"):
        encode_mutant_env("big.py", f"X = {noise!r}\n", "m1")


@pytest.mark.parametrize(
    "value, reason",
    [
        ("", "empty"),
        ("not base64!", "not base64"),
        ("aGVsbG8=", "not zlib data"),
        (base64.b64encode(zlib.compress(b"\xff")).decode(), "not UTF-8 JSON"),
        (base64.b64encode(zlib.compress(b"[1]")).decode(), "expected exactly the keys id, path, source"),
        (base64.b64encode(zlib.compress(b'{"id": "m", "path": "/x.py", "source": ""}')).decode(),
         "mutant path must be a build-root-relative .py path, got '/x.py'"),
    ],
)
def test_env_value_garbage_is_a_clear_error(value, reason):
    with pytest.raises(ValueError) as info:
        decode_mutant_env(value)
    assert str(info.value) == f"ORACLE_GATE_MUTANT is not a mutant payload: {reason}"


def test_env_paths_must_be_build_root_relative_python_files():
    for path in ("/abs/m.py", "../m.py", "pkg/m.txt"):
        with pytest.raises(ValueError, match="mutant path"):
            encode_mutant_env(path, "x = 1\n", "id")


def test_arid_code_is_never_mutated():
    """Lines that cannot change a result anyone compares (Petrović and Ivanković, ICSE-SEIP 2018)."""
    source = textwrap.dedent('''\
        import logging

        from .money import split

        __all__ = ["split", "share"]
        log = logging.getLogger(__name__)


        def share(total, parts):
            log.info("sharing %d in %d", total, parts)
            print("sharing", total)
            logging.debug("parts=%d", parts)
            if parts > 100:
                raise ValueError(f"too many parts: {parts}")
            assert parts > 0, "parts must be positive"
            return split(total, parts)
        ''')
    lines = changed_lines(None, source)
    plan = line_mutants([FileToMutate("pkg/shim.py", source, (("<module>", (1, 6)), ("share", (9, 16))), lines)],
                        100, 100)
    mutated = sorted({m.line for _, m in plan.mutants})
    assert mutated == [6, 13, 15, 16], [m.description for _, m in plan.mutants]  # not 1, 3, 5, 10, 11, 12, 14
    # a raise and an assert's message are arid; the conditions and the assert itself are not
    assert [m.description for _, m in plan.mutants if m.operator == "constant"] == [
        "`100` -> `101` at line 13", "`0` -> `1` at line 15"]


def test_every_changed_line_gets_its_first_mutant_before_any_line_gets_a_second():
    base = MONEY
    head = MONEY.replace("base, remainder = divmod(total_cents, parts)", "base, remainder = divmod(total_cents, parts)  #")
    head = head.replace("if parts <= 0:", "if parts < 1:")
    lines = changed_lines(base, head)
    assert lines == {6, 8}
    plan = line_mutants([FileToMutate("src/billing/money.py", head, (("split", (5, 9)),), lines)], 2, 4)
    assert sorted(m.line for _, m in plan.mutants) == [6, 8] and plan.not_mutated == ()
    short = line_mutants([FileToMutate("src/billing/money.py", head, (("split", (5, 9)),), lines)], 1, 4)
    assert [m.line for _, m in short.mutants] == [6] and short.not_mutated == (("src/billing/money.py", 8, "split"),)


def test_a_line_whose_only_change_is_a_functions_annotation_is_not_changed():
    """An honest patch that makes a function a generator writes `-> Iterator[int]` on its def line:
    its default `4`, which the diff did not touch and no test leaves out, is not judged as new."""
    base = "def drain(items: List[int], workers: int = 4) -> List[int]:\n    return list(items)\n"
    head = base.replace("-> List[int]", "-> Iterator[int]").replace("    return list(items)", "    yield from items")
    assert changed_lines(base, head) == {2}
    assert changed_lines(base, head.replace("int = 4", "int = 5")) == {1, 2}
    wrapped = "def f(a: Dict[\n        str, int], b=1) -> int:\n    return a\n"
    assert changed_lines(wrapped, wrapped.replace("str, int", "str, float")) == set()
    assert changed_lines(wrapped, wrapped.replace("b=1", "b=2")) == {2}
    # a variable's annotation stays: a dataclass reads its fields from them
    field = "@dataclass\nclass C:\n    x: int = 0\n"
    assert changed_lines(field, field.replace("x: int", "x: ClassVar[int]")) == {3}
    # what does not parse is compared as it is
    assert changed_lines("def f(:\n", "def f(: \n") == {1}


def test_code_moved_verbatim_from_another_file_keeps_its_judging_and_a_reordered_line_does_not():
    base_money = MONEY
    shim = '"""Splitting money (moved)."""\nfrom .splitting import split\n\n__all__ = ["split"]\n'
    new_module = MONEY.replace("if parts <= 0:", "if parts < 1:")  # moved, with one line changed
    removed = removed_lines(base_money, shim)
    assert "base, remainder = divmod(total_cents, parts)" in removed and "" not in removed
    lines = changed_lines(None, new_module)
    assert moved_in(new_module, lines, removed) == lines - {3, 4, 6}  # every moved line but blanks and the changed guard
    # the same text moved within one file is judged: only lines removed from other files count
    assert moved_in(new_module, lines, frozenset()) == frozenset()


def test_each_statement_packed_onto_a_changed_line_gets_its_own_first_mutant():
    source = ("def split(total, parts):\n"
              "    base = total // parts\n"
              "    if parts > 1000: return [base] * parts\n"
              "    return [base] * parts\n\n\n"
              "def credit(self, cents):\n"
              "    self.b = self.b + cents; self.n = self.n + 1\n")
    plan = line_mutants([FileToMutate("m.py", source, (("split", (1, 4)), ("credit", (7, 8))), frozenset({3, 8}))],
                        budget=4, per_symbol=4)
    # one per statement first, whatever the budget: the condition and the branch's return, both assignments
    assert {(m.line, m.unit) for _, m in plan.mutants} == {(3, "3:4"), (3, "3:21"), (8, "8:4"), (8, "8:29")}
    assert plan.not_mutated == ()


def test_a_message_with_code_in_it_is_code():
    """An outside attacker's round (fifth, against bbc16e7): code hidden in log arguments, raise
    messages and causes, a process-wide logging call and an import over a builtin merged as arid.
    The code is mutated; the message text is not, and an inert message is still arid."""
    source = textwrap.dedent('''\
        import logging
        import os
        from math import fsum as sum

        log = logging.getLogger(__name__)
        logging.disable(logging.ERROR)


        def tax(cents, rate_bp, balances, account):
            log.debug("tax on %d cents", cents := min(cents, 10**12), rate_bp)
            log.debug("rendering (umask %o)", os.umask(0))
            log.info("inert %s %d", str(account).upper(), len(balances))
            if cents < 0:
                raise ValueError(f"negative (balance {balances.pop(account, 0)})")
            if rate_bp < 0:
                raise ValueError("negative rate") from balances.clear()
            if rate_bp > 10_000:
                raise ValueError(f"rate {rate_bp!r} above {len(balances)}")
            return f"{[cents][:500]}"
        ''')
    plan = line_mutants([FileToMutate("pkg/tax.py", source, (("<module>", (1, 6)), ("tax", (9, 19))),
                                      changed_lines(None, source))], 100, 100)
    by_line = {}
    for _, m in plan.mutants:
        by_line.setdefault(m.line, []).append(m.description.rsplit(" at line", 1)[0])
    assert by_line[3] == ["`from math import fsum as sum` -> `pass`"]
    assert by_line[6] == ["`logging.disable(logging.ERROR)` -> `pass`"]
    assert "`12` -> `13`" in by_line[10] and not any("XX" in d for d in by_line[10])  # the text is not mutated
    assert by_line[11] == ["`0` -> `1`"]
    assert 12 not in by_line and 18 not in by_line  # inert: arid
    assert by_line[14] == ["`0` -> `1`"]  # the code in the message, not the raise (arid as a raise)
    assert by_line[16] == ["`from balances.clear()` -> ``"]
    assert "`500` -> `501`" in by_line[19]
    assert {1, 2} & set(by_line) == set()  # plain imports are arid


def test_an_except_clause_is_a_branch_its_mutant_lets_the_exception_through():
    source = textwrap.dedent('''\
        import logging


        def parse(data):
            try:
                return int(data)
            except ValueError:
                logging.warning("skipping a malformed value (%d bytes)", len(data))
            except TypeError:
                raise
        ''')
    plan = line_mutants([FileToMutate("pkg/io.py", source, (("parse", (4, 10)),), changed_lines(None, source))],
                        100, 100)
    found = [(m.line, m.description) for _, m in plan.mutants if m.operator == "handler"]
    assert found == [(7, "`except ValueError:` body -> `raise` at line 8")]  # a bare re-raise has nothing to drop
    namespace = {}
    exec(compile([m for _, m in plan.mutants if m.operator == "handler"][0].source, "io.py", "exec"), namespace)
    with pytest.raises(ValueError):
        namespace["parse"]("x")


def test_a_raise_whose_exception_type_the_diff_changed_is_code_and_a_reworded_message_is_not():
    """An outside attacker's round (fifth, against bbc16e7): `raise ValueError(...)` changed to
    another class merged, every raise being arid. Against the base's raises of the same symbol: a
    changed class gets a mutant that raises a plain Exception; a reworded message, a raise new to
    its symbol, and a class the symbol already raised stay arid."""
    base = textwrap.dedent('''\
        def tax(cents, rate_bp):
            if cents < 0:
                raise ValueError("amounts are non-negative")
            if rate_bp < 0:
                raise TypeError("rates are non-negative")
            return cents * rate_bp // 10_000


        def fee(cents):
            return cents // 100
        ''')
    head = (base.replace('raise ValueError("amounts are non-negative")', 'raise LookupError("amounts are non-negative")')
            .replace('raise TypeError("rates are non-negative")', 'raise TypeError("a rate is non-negative")')
            .replace("    return cents // 100", "    if cents > 10**9:\n        raise OverflowError(cents)\n"
                                                "    return cents // 100"))
    lines = changed_lines(base, head)
    assert lines == {3, 5, 10, 11}
    plan = line_mutants([FileToMutate("pkg/tax.py", head, (("tax", (1, 6)), ("fee", (9, 12))), lines, base)], 100, 100)
    described = sorted((m.line, m.operator, m.description) for _, m in plan.mutants if m.line in (3, 5, 11))
    assert described == [(3, "raise_type", "`raise LookupError` -> `raise Exception` at line 3")], described
    mutant = next(m for _, m in plan.mutants if m.operator == "raise_type")
    namespace = {}
    exec(compile(mutant.source, "tax.py", "exec"), namespace)
    with pytest.raises(Exception) as caught:
        namespace["tax"](-1, 0)
    assert type(caught.value) is Exception and str(caught.value) == "amounts are non-negative"
    # without the base (a new file) every raise is new: arid
    assert not [m for _, m in line_mutants([FileToMutate("pkg/tax.py", head, (("tax", (1, 6)),), lines)],
                                           100, 100).mutants if m.operator == "raise_type"]


def test_a_rejection_the_diff_removed_is_put_back_by_a_mutant():
    """An outside attacker's round (fifth, against bbc16e7): a raise replaced by a warning merged:
    removed lines had no mutant. Where a function raised a class at the base that it raises nowhere
    now, a mutant puts the removed statement back before the one in its place, and is judged on its
    own (column -1), whether or not that line changed."""
    base = textwrap.dedent('''\
        import warnings


        class Store:
            def apply_credit(self, account, cents):
                if cents <= 0:
                    raise ValueError("a credit is positive")
                self.balances[account] = self.balances.get(account, 0) + cents
                return self.balances[account]

            def total(self):
                if not self.balances:
                    raise LookupError("no accounts")
                return sum(self.balances.values())

            def debit(self, account, cents):
                if cents > self.balances[account]:
                    raise ValueError("overdrawn")
                self.balances[account] -= cents
        ''')
    head = (base.replace('raise ValueError("a credit is positive")', 'warnings.warn("a credit should be positive")')
            .replace('        if not self.balances:\n            raise LookupError("no accounts")\n', '')
            .replace('raise ValueError("overdrawn")', 'raise ValueError("the account is overdrawn")'))
    lines = changed_lines(base, head)
    targets = (("Store.apply_credit", (5, 9)), ("Store.total", (11, 12)), ("Store.debit", (14, 17)))
    plan = line_mutants([FileToMutate("pkg/store.py", head, targets, lines, base)], 100, 100)
    restored = sorted((m.line, m.unit, m.description) for _, m in plan.mutants if m.operator == "restore")
    assert restored == [
        (7, "7:-1", '`raise ValueError("a credit is positive")` (the diff removed it) put back at line 7'),
        (12, "12:-1", '`if not self.balances:` (the diff removed it) put back at line 12'),
    ], restored  # the reworded message keeps its class: nothing removed there
    namespace = {}
    exec(compile(next(m.source for _, m in plan.mutants if m.line == 12 and m.operator == "restore"), "s.py", "exec"),
         namespace)
    store = namespace["Store"]()
    store.balances = {}
    with pytest.raises(LookupError):
        store.total()
    # the warning in the raise's place is arid: what judges line 7 is the put-back raise alone
    assert [m.operator for _, m in plan.mutants if m.line == 7] == ["restore"]
    # and line 12's return, which the diff did not change, is judged only through the put-back
    assert {m.unit for _, m in plan.mutants if m.line == 12} == {"12:-1"}
    # where restores are off (a region judged by class-E tests at adoption), nothing is put back
    off = line_mutants([FileToMutate("pkg/store.py", head, targets, lines, base, laws=False)], 100, 100)
    assert not [m for _, m in off.mutants if m.operator == "restore"]


def test_a_check_moved_into_a_helper_the_function_calls_is_not_a_removed_rejection():
    base = textwrap.dedent('''\
        def tax(cents, rate_bp):
            if cents < 0 or rate_bp < 0:
                raise ValueError("amounts and rates are non-negative")
            return (cents * rate_bp + 5_000) // 10_000
        ''')
    head = textwrap.dedent('''\
        def _check(cents, rate_bp):
            if cents < 0 or rate_bp < 0:
                raise ValueError("amounts and rates are non-negative")


        def tax(cents, rate_bp):
            _check(cents, rate_bp)
            return (cents * rate_bp + 5_000) // 10_000
        ''')
    assert removed_rejections(base, head, ast.parse(head)) == []
    # the same check in a helper tax no longer calls: removed
    unused = head.replace("    _check(cents, rate_bp)\n", "").replace('"amounts and rates', '"amounts or rates')
    assert [r.text for r in removed_rejections(base, unused, ast.parse(unused))] == [
        'if cents < 0 or rate_bp < 0:\n        raise ValueError("amounts and rates are non-negative")']


def test_a_raise_retyped_in_place_is_judged_once_by_its_type_mutant():
    base = "def tax(cents):\n    if cents < 0:\n        raise ValueError('negative')\n    return cents // 10\n"
    head = base.replace("raise ValueError", "raise ArithmeticError")
    plan = line_mutants([FileToMutate("t.py", head, (("tax", (1, 4)),), changed_lines(base, head), base)], 100, 100)
    assert [m.operator for _, m in plan.mutants] == ["raise_type"]


def test_a_class_renamed_an_alias_spelled_out_or_a_raise_added_beside_the_old_ones_is_no_retype():
    base = textwrap.dedent('''\
        class SmithyException(Exception):
            pass


        def read(stream, n):
            if n < 0:
                raise SmithyException("negative")
            if stream is None:
                raise IOError("closed")
            return stream.read(n)
        ''')
    renamed = (base.replace("SmithyException", "SmithyError")
               .replace('raise IOError("closed")', 'raise OSError("closed")'))
    added = base.replace("    return stream.read(n)", "    if n > 2**20:\n        raise OverflowError(n)\n"
                                                         "    return stream.read(n)")
    for head in (renamed, added):
        plan = line_mutants([FileToMutate("r.py", head, (("read", (5, 12)),), changed_lines(base, head), base)],
                            100, 100)
        assert [m.operator for _, m in plan.mutants if m.operator in ("raise_type", "restore")] == [], head


def test_a_condition_the_diff_added_that_makes_a_raise_rarer_is_judged_on_its_own():
    """A guard made unreachable by an extra condition (`if cents <= 0 and account == "__never__":`)
    merged, tried after the removed-rejection rule: the condition's `and` -> `or` mutant makes every
    credit raise, dies, and cleared the line. An operand the diff added, to a symbol the base had,
    on the side of a raising test that narrows the raise is its own unit, whose mutant drops it
    (`True` in an `and`, `False` in an `or`). A stricter check (an operand that widens a raise or
    a rejection: an outside agent's honest `and not isinstance(x, bool)` in a validator), a
    condition that feeds a value, operands the base had, and a new function's are not."""
    base = textwrap.dedent('''\
        def apply_credit(balances, account, cents):
            if cents <= 0:
                raise ValueError("a credit is positive")
            if account is None or not account:
                raise KeyError(account)
            if isinstance(cents, int):
                pass
            else:
                raise TypeError(cents)
            assert account.isprintable()
            balances[account] = balances.get(account, 0) + cents
            return not (isinstance(cents, int) and cents > 0)
        ''')
    head = (base.replace("if cents <= 0:", 'if cents <= 0 and account == "__never__":')
            .replace("if account is None or not account:", "if not account or account is None or len(account) > 64:")
            .replace("if isinstance(cents, int):", "if isinstance(cents, int) or cents == 0.5:")
            .replace("assert account.isprintable()", "assert account.isprintable() or account[0] == '_'")
            .replace("return not (isinstance(cents, int) and cents > 0)",
                     "return not (isinstance(cents, int) and not isinstance(cents, bool) and cents > 0)")
            + "\n\ndef fresh(a, b):\n    if a > 0 and b > 0:\n        raise ValueError(a)\n")
    lines = changed_lines(base, head)
    targets = (("apply_credit", (1, 12)), ("fresh", (15, 17)))
    plan = line_mutants([FileToMutate("pkg/store.py", head, targets, lines, base)], 100, 100)
    dropped = sorted((m.line, m.unit, m.description) for _, m in plan.mutants if m.operator == "operand")
    assert dropped == [
        (2, "2:22:operand", '`account == "__never__"` -> `True` (a condition the diff added, dropped) at line 2'),
        (6, "6:33:operand", "`cents == 0.5` -> `False` (a condition the diff added, dropped) at line 6"),
        (10, "10:36:operand", "`account[0] == '_'` -> `False` (a condition the diff added, dropped) at line 10"),
    ], dropped  # line 4's new `or` widens the raise; line 12's new `and` feeds a value
    mutant = next(m for _, m in plan.mutants if m.operator == "operand" and m.line == 2)
    namespace = {}
    exec(compile(mutant.source, "store.py", "exec"), namespace)
    with pytest.raises(ValueError):  # the guard is back
        namespace["apply_credit"]({}, "a", 0)
    # each is a unit apart from its statement's other mutants
    assert {m.unit for _, m in plan.mutants if m.line == 2} == {"2:4", "2:22:operand"}
    # a validator made stricter (a rejection, not a raise, and on the side that widens it): not judged alone
    schema = "def problems(x):\n    out = []\n    if not (isinstance(x, int) and x >= 0):\n        out.append(x)\n    return out\n"
    stricter = schema.replace("isinstance(x, int) and", "isinstance(x, int) and not isinstance(x, bool) and")
    plan = line_mutants([FileToMutate("s.py", stricter, (("problems", (1, 5)),), changed_lines(schema, stricter),
                                      schema)], 100, 100)
    assert plan.mutants and not [m for _, m in plan.mutants if m.operator == "operand"]
    # a region judged by class-E tests at adoption: examples state no law a dropped check breaks
    e_judged = line_mutants([FileToMutate("pkg/store.py", head, targets, lines, base, laws=False)], 100, 100)
    assert not [m for _, m in e_judged.mutants if m.operator == "operand"]
    # a new file (no base) is new code: nothing is added to anything
    fresh = line_mutants([FileToMutate("pkg/store.py", head, targets, lines)], 100, 100)
    assert not [m for _, m in fresh.mutants if m.operator == "operand"]


def test_a_filter_or_a_quantified_condition_the_diff_added_is_judged_alone():
    """An eighth outside attacker's round (against dd2bba4): `... .items() if v` in a comprehension
    dropped zero balances, and `any(cents < 0 and not name.startswith("refund") for ...)` let refund
    lines through a guard; both merged (the filter's negation, and the guard's other mutants, die on
    every input). A filter the diff added to a comprehension or generator is its own unit, whose
    mutant drops it (`if True`); an `and` operand inside `any(...)`/`all(...)` of a raising test is
    an operand of that test. Filters the base had, and a new function's, are not."""
    base = textwrap.dedent('''\
        def load(doc):
            return {k: int(v) for k, v in doc.items() if k}


        def decode(lines):
            if any(cents < 0 for _, cents in lines):
                raise ValueError("negative")
            if not all(name for name, _ in lines):
                raise ValueError("unnamed")
            return lines
        ''')
    head = (base.replace("doc.items() if k}", "doc.items() if k if v}")
            .replace("any(cents < 0 for _, cents in lines)", 'any(cents < 0 and not name.startswith("refund") for name, cents in lines)')
            .replace("all(name for name, _ in lines)", "all(name for name, _ in lines if name != '-')")
            + "\n\ndef fresh(xs):\n    return [x for x in xs if x]\n")
    lines = changed_lines(base, head)
    targets = (("load", (1, 2)), ("decode", (5, 10)), ("fresh", (13, 14)))
    plan = line_mutants([FileToMutate("pkg/io.py", head, targets, lines, base)], 100, 100)
    dropped = sorted((m.line, m.description) for _, m in plan.mutants if m.operator == "operand")
    assert dropped == [
        (2, "`if v` -> `if True` (a filter the diff added, dropped) at line 2"),
        (6, "`not name.startswith(\"refund\")` -> `True` (a condition the diff added, dropped) at line 6"),
        (8, "`if name != '-'` -> `if True` (a filter the diff added, dropped) at line 8"),
    ], dropped  # `if k` was there at the base; `fresh` is new code
    namespace = {}
    mutant = next(m for _, m in plan.mutants if m.operator == "operand" and m.line == 2)
    exec(compile(mutant.source, "io.py", "exec"), namespace)
    assert namespace["load"]({"a": 0, "": 1}) == {"a": 0}  # the zero balance is back
    # in a region judged by class-E tests at adoption, no filter is judged alone
    e_judged = line_mutants([FileToMutate("pkg/io.py", head, targets, lines, base, laws=False)], 100, 100)
    assert not [m for _, m in e_judged.mutants if m.operator == "operand"]


def test_a_raise_retyped_in_place_to_a_class_its_function_raises_elsewhere_is_retyped():
    """Open after the raise-type rule: a class the same function already raised elsewhere at the
    base was no change of type (`ValueError` -> `TypeError` where a later guard raises TypeError).
    A raise rewritten in place that names another class is retyped, whatever else its function
    raises; a reworded message on the same line is not."""
    base = textwrap.dedent('''\
        def tax(cents, rate_bp):
            if cents < 0:
                raise ValueError("amounts are non-negative")
            if not isinstance(rate_bp, int):
                raise TypeError("rates are integers")
            return cents * rate_bp // 10_000
        ''')
    head = base.replace('raise ValueError("amounts are non-negative")', 'raise TypeError("amounts are non-negative")')
    plan = line_mutants([FileToMutate("t.py", head, (("tax", (1, 6)),), changed_lines(base, head), base)], 100, 100)
    assert [(m.line, m.description) for _, m in plan.mutants] == [
        (3, "`raise TypeError` -> `raise Exception` at line 3")]
    reworded = base.replace('"amounts are non-negative"', '"an amount is non-negative"')
    plan = line_mutants([FileToMutate("t.py", reworded, (("tax", (1, 6)),), changed_lines(base, reworded), base)],
                        100, 100)
    assert plan.mutants == ()


def test_each_branch_of_a_conditional_expression_the_diff_wrote_is_judged_on_its_own():
    """An outside attacker's round (sixth, against b32ab40): a value for amounts no property draws
    packed beside the judged formula as a conditional expression (`... if cents < 2**31 else
    cents // 10_000 * rate_bp`), and junk amounts decoded as 0 (`int(c) if ... else 0`), merged: a
    killed mutant of the other branch cleared the line. A branch the diff wrote is its own unit,
    whose mutant puts the other branch in its place; a conditional expression the base had as it
    is, is not judged this way."""
    base = textwrap.dedent('''\
        def tax(cents, rate_bp):
            return (cents * rate_bp + 5_000) // 10_000


        def fee(days):
            return 600 if days > 0 else 0
        ''')
    head = (base.replace("    return (cents * rate_bp + 5_000) // 10_000",
                         "    return (cents * rate_bp + 5_000) // 10_000 if cents < 2**31 else cents // 10_000 * rate_bp")
            .replace("return 600 if days > 0 else 0", "return 600 if days >= 1 else 0"))
    lines = changed_lines(base, head)
    plan = line_mutants([FileToMutate("t.py", head, (("tax", (1, 2)), ("fee", (5, 6))), lines, base)], 100, 100)
    branches = sorted((m.line, m.unit) for _, m in plan.mutants if m.operator == "branch")
    # every branch of a conditional expression the diff wrote or rewrote, each its own unit
    assert branches == [(2, "2:11:branch"), (2, "2:69:branch"), (6, "6:11:branch"), (6, "6:33:branch")], branches
    assert [m.description for _, m in plan.mutants if m.unit == "2:69:branch"] == [
        "`cents // 10_000 * rate_bp` -> `(cents * rate_bp + 5_000) // 10_000` (the other branch of its conditional "
        "expression) at line 2"]
    # one the diff left as it was is not judged alone
    same = base + "\n\ndef extra(x):\n    return x + 1\n"
    plan_same = line_mutants([FileToMutate("t.py", same, (("fee", (5, 6)), ("extra", (9, 10))),
                                           changed_lines(base, same), base)], 100, 100)
    assert not [m for _, m in plan_same.mutants if m.operator == "branch"]
    mutant = next(m for _, m in plan.mutants if m.unit == "2:69:branch")
    namespace = {}
    exec(compile(mutant.source, "t.py", "exec"), namespace)
    assert namespace["tax"](2**31 + 9_999, 825) == (((2**31 + 9_999) * 825 + 5_000) // 10_000)
    # a branch new to a new function is judged too; where E tests judge the region, not alone
    fresh = "def late(days):\n    return 6000 if days > 0 else 0\n"
    plan = line_mutants([FileToMutate("f.py", fresh, (("late", (1, 2)),), changed_lines(None, fresh))], 100, 100)
    assert sorted(m.unit for _, m in plan.mutants if m.operator == "branch") == ["2:11:branch", "2:33:branch"]
    e_judged = line_mutants([FileToMutate("t.py", head, (("tax", (1, 2)),), lines, base, laws=False)], 100, 100)
    assert not [m for _, m in e_judged.mutants if m.operator == "branch"]


def test_a_truth_value_the_diff_wrote_where_a_value_goes_is_judged_held_each_way():
    """An outside attacker's round (sixth, against b32ab40): rounding dropped on newer interpreters
    (`5_000 - 5_000 * (sys.version_info >= (3, 11))`) merged: a truth value the oracles only ever
    see one way, and a killed mutant of its comparison operator cleared the line. A truth value
    the diff writes where a value goes is judged held `True` and held `False`, two units of their
    own; a statement's test, a conditional expression's test and a truth value the base had as it
    is are not judged this way, nor anything in a region class-E tests judge."""
    base = textwrap.dedent('''\
        import sys


        def tax(cents, rate_bp):
            return (cents * rate_bp + 5_000) // 10_000


        def positive(x):
            if x > 0:
                return x > 1
            return 0 if x < -5 else x
        ''')
    head = (base.replace("+ 5_000) // 10_000", "+ 5_000 * (sys.version_info < (3, 13))) // 10_000")
            .replace("if x > 0:", "if x > 0 and x != 7:")
            .replace("return 0 if x < -5 else x", "return 0 if x < -6 else [x, 0][not x]")
            + "\n\ndef weighted(ws):\n    if any(w < 0 for w in ws):\n        raise ValueError(ws)\n"
              "    return [w for w in ws if w > 0], all(isinstance(w, int) for w in ws)\n")
    lines = changed_lines(base, head)
    targets = (("tax", (4, 5)), ("positive", (8, 11)), ("weighted", (14, 17)))
    plan = line_mutants([FileToMutate("t.py", head, targets, lines, base)], 100, 100)
    held = sorted((m.line, m.unit, m.description) for _, m in plan.mutants if m.operator.startswith("held_"))
    assert held == [
        (5, "5:39:held_false", "`sys.version_info < (3, 13)` -> `False` (a truth value the diff wrote, held False) "
                               "at line 5"),
        (5, "5:39:held_true", "`sys.version_info < (3, 13)` -> `True` (a truth value the diff wrote, held True) "
                              "at line 5"),
        (11, "11:35:held_false", "`not x` -> `False` (a truth value the diff wrote, held False) at line 11"),
        (11, "11:35:held_true", "`not x` -> `True` (a truth value the diff wrote, held True) at line 11"),
        (17, "17:37:held_false", "`all(isinstance(w, int) for w in ws)` -> `False` (a truth value the diff wrote, "
                                 "held False) at line 17"),
        (17, "17:37:held_true", "`all(isinstance(w, int) for w in ws)` -> `True` (a truth value the diff wrote, "
                                "held True) at line 17"),
    ], held  # line 9's test, line 11's `x < -6`, line 15's `w < 0` and line 17's `w > 0` are in tests; line
    # 10's `x > 1` the base had; the `isinstance` is inside the outermost truth value, `all(...)`
    mutant = next(m for _, m in plan.mutants if m.unit == "5:39:held_true")
    namespace = {}
    exec(compile(mutant.source, "t.py", "exec"), namespace)
    assert namespace["tax"](1_000, 50) == 5  # held True: the rounding this interpreter sees
    mutant = next(m for _, m in plan.mutants if m.unit == "5:39:held_false")
    namespace = {}
    exec(compile(mutant.source, "t.py", "exec"), namespace)
    assert namespace["tax"](1_000, 50) == 5 and namespace["tax"](1_000, 51) == 5  # held False: no rounding
    assert namespace["tax"](1_000, 55) == 5
    e_judged = line_mutants([FileToMutate("t.py", head, targets, lines, base, laws=False)], 100, 100)
    assert e_judged.mutants and not [m for _, m in e_judged.mutants if m.operator.startswith("held_")]
    # a post-rule variant round (against e8879a3): the comparison spelt `operator.le(a, b)` merged
    spelt = base.replace("+ 5_000) // 10_000", "+ 5_000 * operator.le(cents, 10**12)) // 10_000")
    plan = line_mutants([FileToMutate("t.py", "import operator\n" + spelt, (("tax", (5, 6)),),
                                      changed_lines(base, "import operator\n" + spelt), base)], 100, 100)
    assert sorted(m.unit for _, m in plan.mutants if m.operator.startswith("held_")) == [
        "6:38:held_false", "6:38:held_true"]


def test_a_copy_the_diff_removed_is_put_back_by_a_mutant_of_its_own():
    """An outside attacker's round (sixth, against b32ab40): `self.balances = dict(balances)`
    rewritten as `self.balances = balances` merged: the store now shares the caller's dict, which
    no oracle changes after handing it over, and the dropped statement's kill cleared the line. A
    copy the diff removed from a value a statement stores or returns is put back by a mutant of its
    own (a unit); a copy kept in another form, or a value computed from the object, is not."""
    base = textwrap.dedent('''\
        class Store:
            def __init__(self, balances, lines):
                self.balances = dict(balances)
                self.lines = list(lines)

            def snapshot(self):
                return self.balances.copy()
        ''')
    head = (base.replace("self.balances = dict(balances)", "self.balances = balances or {}")
            .replace("self.lines = list(lines)", "self.lines = [*lines]")
            .replace("return self.balances.copy()", "return self.balances if self.balances else {}"))
    targets = (("Store.__init__", (2, 4)), ("Store.snapshot", (6, 7)))
    plan = line_mutants([FileToMutate("s.py", head, targets, changed_lines(base, head), base)], 100, 100)
    copies = sorted((m.line, m.unit, m.description) for _, m in plan.mutants if m.operator == "copy")
    assert copies == [
        (3, "3:24:copy", "`balances` -> `dict(balances)` (a copy the diff removed, put back) at line 3"),
        (7, "7:15:copy", "`self.balances` -> `self.balances.copy()` (a copy the diff removed, put back) at line 7"),
    ], copies  # line 4 still copies (`[*lines]`)
    mutant = next(m for _, m in plan.mutants if m.unit == "3:24:copy")
    namespace = {}
    exec(compile(mutant.source, "s.py", "exec"), namespace)
    books = {"a": 1}
    store = namespace["Store"](books, [])
    books["a"] = 99
    assert store.balances == {"a": 1}  # the copy is back
    computed = base.replace("self.balances = dict(balances)", "self.balances = {k: v for k, v in balances.items()}")
    plan = line_mutants([FileToMutate("s.py", computed, targets, changed_lines(base, computed), base)], 100, 100)
    assert not [m for _, m in plan.mutants if m.operator == "copy"]
    e_judged = line_mutants([FileToMutate("s.py", head, targets, changed_lines(base, head), base, laws=False)], 100, 100)
    assert not [m for _, m in e_judged.mutants if m.operator == "copy"]
    # a post-rule variant round (against e8879a3): the store spelt `setattr(self, "balances", balances)`
    spelt = base.replace("self.balances = dict(balances)", 'setattr(self, "balances", balances)')
    plan = line_mutants([FileToMutate("s.py", spelt, targets, changed_lines(base, spelt), base)], 100, 100)
    assert [(m.unit, m.description) for _, m in plan.mutants if m.operator == "copy"] == [
        ("3:34:copy", "`balances` -> `dict(balances)` (a copy the diff removed, put back) at line 3")]


def test_an_integer_taken_from_a_true_division_is_judged_against_floor_division():
    """An outside attacker's round (sixth, against b32ab40): `divmod` rewritten as
    `int(total_cents / parts)` merged: wrong for negative totals and past 2**53, which no property
    draws, and every operator mutant of the line died. An integer the diff takes from a true
    division is a unit of its own whose mutant is floor division."""
    base = "def split(total, parts):\n    return divmod(total, parts)\n"
    head = "def split(total, parts):\n    q = int(total / parts)\n    return q, total - q * parts\n"
    plan = line_mutants([FileToMutate("m.py", head, (("split", (1, 3)),), changed_lines(base, head), base)], 100, 100)
    floors = [(m.line, m.unit, m.description) for _, m in plan.mutants if m.operator == "floor_division"]
    assert floors == [(2, "2:8:floor_division", "`int(total / parts)` -> `((total) // (parts))` (floor division, "
                                                "not through a float) at line 2")]
    namespace = {}
    exec(compile(plan.mutants[[m.operator for _, m in plan.mutants].index("floor_division")][1].source, "m.py",
                 "exec"), namespace)
    assert namespace["split"](-7, 2) == (-4, 1) and namespace["split"](2**60 + 1, 3) == divmod(2**60 + 1, 3)
    same = "def split(total, parts):\n    q = total // parts\n    return q, total - q * parts\n"
    plan = line_mutants([FileToMutate("m.py", same, (("split", (1, 3)),), changed_lines(base, same), base)], 100, 100)
    assert not [m for _, m in plan.mutants if m.operator == "floor_division"]
    e_judged = line_mutants([FileToMutate("m.py", head, (("split", (1, 3)),), changed_lines(base, head), base,
                                          laws=False)], 100, 100)
    assert not [m for _, m in e_judged.mutants if m.operator == "floor_division"]
    # a post-rule variant round (against e8879a3): the same division spelt `operator.truediv` or `// 1`
    for spelling in ("math.floor(operator.truediv(total, parts))", "int(total / parts // 1)", "total / parts // 1"):
        other = head.replace("int(total / parts)", spelling)
        plan = line_mutants([FileToMutate("m.py", other, (("split", (1, 3)),), changed_lines(base, other), base)],
                            100, 100)
        floors = [m for _, m in plan.mutants if m.operator == "floor_division"]
        assert [m.unit for m in floors] == ["2:8:floor_division"], spelling
        namespace = {"math": __import__("math"), "operator": __import__("operator")}
        exec(compile(floors[0].source, "m.py", "exec"), namespace)
        assert namespace["split"](2**60 + 1, 3) == divmod(2**60 + 1, 3)


def test_a_log_line_that_fetches_its_logger_and_reads_a_clock_is_arid():
    """An honest debug line as much real code writes it: the logger fetched in the statement
    (`logging.getLogger(__name__).debug(...)`), today's date or the time among its arguments (a
    patch adding one was `NUMB` for its message's mutant). A logger fetched by a call that can do
    more, a message that pops a dict, or one that calls a method of the code's own named like a
    clock's read (`store.now()`), is code."""
    source = textwrap.dedent('''\
        import datetime
        import logging


        def credit(balances, account, cents):
            logging.getLogger(__name__).debug("credit on %s", datetime.date.today())
            logging.getLogger("billing").info("at %s", datetime.datetime.now().isoformat(), extra={"n": len(balances)})
            logging.getLogger(named(balances)).debug("credited")
            logging.getLogger(__name__).debug("popped %s", balances.pop(account, 0))
            logging.getLogger(__name__).debug("at %s", balances.now())
            balances[account] = balances.get(account, 0) + cents
            return balances[account]
        ''')
    plan = line_mutants([FileToMutate("pkg/store.py", source, (("credit", (5, 12)),), changed_lines(None, source))],
                        100, 100)
    assert sorted({m.line for _, m in plan.mutants}) == [9, 11, 12], [m.description for _, m in plan.mutants]
    statements = {n.lineno: n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Expr)}
    assert [line for line in (6, 7, 8, 9, 10) if message_parts(statements[line]) is not None
            and all(inert(p) for p in message_parts(statements[line]))] == [6, 7]


def test_a_term_the_diff_added_to_a_sum_the_base_computed_is_judged_on_its_own():
    """A seventeenth outside round's d55 (against a511b30) added `+ 1 // ((cents + 7) % 7 ** 7 + 1)`
    to `tax`'s result: one cent more on one residue in 7**7, an input no property draws. Killed
    mutants of the sum it joins cleared the line, and it merged. A term the diff added to a sum or
    difference the base computed (or a factor, or a bit; to a name or constant the base held too)
    is its own unit, whose mutant drops it; a constant added is not (`cents + 7` is judged with its
    line), nor is a sum the base had as it is, nor one in a region its class-E tests judge, nor a
    term that reads no parameter or local."""
    base = "def tax(cents, rate_bp):\n    return (cents * rate_bp + 5_000) // 10_000\n"
    formula = "(cents * rate_bp + 5_000) // 10_000"
    cases = {
        # (and its modulus, a bound put on `cents + 7`: on every amount drawn, below it)
        f"{formula} + 1 // ((cents + 7) % 7 ** 7 + 1)": ["`1 // ((cents + 7) % 7 ** 7 + 1)` dropped", "`7 ** 7` dropped"],
        f"(cents == 823_536) + {formula}": ["`cents == 823_536` dropped"],
        f"{formula} + (cents == 3) - (rate_bp == 7)": ["`cents == 3` dropped", "`rate_bp == 7` dropped"],
        f"{formula} - cents // 10**9": ["`cents // 10**9` dropped"],
        "(cents * rate_bp + 5_000 + (cents == 3) * 10_000) // 10_000":
            ["`(cents == 3) * 10_000` dropped"],  # the term (its factor beside a constant is no term)
        "(cents * rate_bp + 4_999 + 1) // 10_000": [],  # a constant alone changed: judged with its line
        "(cents * rate_bp + 5_000) // 10_000 + 0 * (cents + 7)": ["`0 * (cents + 7)` dropped"],
        # a term that reads none of the function's parameters or locals is the same on every call:
        # judged with its line (an honest `+ fee(0)` where the base added nothing)
        f"{formula} + fee(0) - LIMIT // 10": [],
        # the same cent as a factor that is 1 but on that residue, or a bit set
        f"{formula} * (1 + 1 // ((cents + 7) % 7 ** 7 + 1))": ["`1 + 1 // ((cents + 7) % 7 ** 7 + 1)` dropped",
                                                              "`7 ** 7` dropped"],
        f"{formula} | (cents == 823_536)": ["`cents == 823_536` dropped"],
        # an eighteenth round's d05: the term taken from the base's constant divisor
        "(cents * rate_bp + 5_000) // (10_000 - 1 // ((cents + 7) % 7 ** 7 + 1))":
            ["`1 // ((cents + 7) % 7 ** 7 + 1)` dropped", "`7 ** 7` dropped"],
    }
    for expr, dropped in cases.items():
        head = base.replace(formula, expr)
        lines = changed_lines(base, head)
        plan = line_mutants([FileToMutate("t.py", head, (("tax", (1, 2)),), lines, base)], 100, 100)
        terms = [m for _, m in plan.mutants if m.operator == "term"]
        assert [m.description.partition(" (a ")[0] for m in terms] == dropped, expr
        for m in terms:  # the mutant is the head without its term
            assert m.description.split("`")[1] not in m.source.splitlines()[1], m.source
            compile(m.source, "t.py", "exec")
    # an eighteenth round's d12: the base's constant in a guard replaced by an expression that is
    # that constant on every amount drawn; its mutant puts the constant back
    guard = "def ok(cents):\n    return cents >= 0\n"
    bomb = guard.replace(">= 0", ">= -(823_543 * (1 // ((cents * 3 + 25) % 7 ** 7 + 1)))")
    plan = line_mutants([FileToMutate("g.py", bomb, (("ok", (1, 2)),), changed_lines(guard, bomb), guard)], 100, 100)
    assert [m.description.partition(" (the base")[0].partition(" (a ")[0] for _, m in plan.mutants
            if m.operator == "term"] == ["`-(823_543 * (1 // ((cents * 3 + 25) %...` -> `0`", "`7 ** 7` dropped"]
    named = guard.replace(">= 0", ">= MINIMUM")  # a module constant for the literal: the same on every call
    plan = line_mutants([FileToMutate("g.py", named, (("ok", (1, 2)),), changed_lines(guard, named), guard)], 100, 100)
    assert not [m for _, m in plan.mutants if m.operator == "term"]
    # where the term is 1 (on one residue in 7**7), the mutant gives the base's value
    d55 = base.replace(formula, f"{formula} + 1 // ((cents + 7) % 7 ** 7 + 1)")
    lines = changed_lines(base, d55)
    plan = line_mutants([FileToMutate("t.py", d55, (("tax", (1, 2)),), lines, base)], 100, 100)
    namespace: dict = {}
    exec(compile(next(m for _, m in plan.mutants if m.operator == "term").source, "t.py", "exec"), namespace)
    assert namespace["tax"](823_536, 825) == (823_536 * 825 + 5_000) // 10_000
    e_judged = line_mutants([FileToMutate("t.py", d55, (("tax", (1, 2)),), lines, base, laws=False)], 100, 100)
    assert not [m for _, m in e_judged.mutants if m.operator == "term"]
    same = base + "\n\ndef extra(x):\n    return x + 1\n"
    kept = line_mutants([FileToMutate("t.py", same, (("extra", (5, 6)),), changed_lines(base, same), base)], 100, 100)
    assert not [m for _, m in kept.mutants if m.operator == "term"]


def test_a_divisor_a_shift_a_slice_or_a_clock_the_diff_added_to_a_value_is_judged_on_its_own():
    """An eighteenth outside round (against 399c03d) wrote the residue bomb as a divisor that is 1
    but on one residue (`int(cents) // (1 + 1 // (...))`), a total divided by a term that reads the
    year, and a result sliced by the CPU count or the year (`done[(os.cpu_count() or 1) // 64:]`),
    each merged: a divisor, a shift or a power added on the right, a slice added to a value the base
    held, and a term that reads the machine (not only the function's inputs) are units of their own."""
    base = ("import os\nimport time\n\n\ndef drain(items):\n    done = list(items)\n    return done\n\n\n"
            "def total(b):\n    return sum(b.values())\n")
    cases = {
        ("    return done\n", "    return done[(os.cpu_count() or 1) // 64:]\n"): ["`[(os.cpu_count() or 1) // 64:]` dropped"],
        ("    return done\n", "    return done[:100]\n"): [],  # a constant slice: judged with its line
        # a slice of a value the base did not hold (this raised AttributeError at 4770750)
        ("    return done\n", "    return str(done)[:len(items)]\n"): [],
        ("    return sum(b.values())\n", "    return sum(b.values()) // (1 + 1 // (abs(time.gmtime().tm_year - 2027) + 1))\n"):
            ["`1 + 1 // (abs(time.gmtime().tm_year -...` dropped"],
        ("    return sum(b.values())\n", "    return sum(b.values()) >> len(b) // 1_000\n"): ["`len(b) // 1_000` dropped"],
        ("    return sum(b.values())\n", "    return len(b) // sum(b.values())\n"): [],  # a divisor on the left is no term
    }
    ranges = (("drain", (5, 7)), ("total", (10, 11)))
    for (old, new), dropped in cases.items():
        head = base.replace(old, new)
        plan = line_mutants([FileToMutate("w.py", head, ranges, changed_lines(base, head), base)], 100, 100)
        terms = [m for _, m in plan.mutants if m.operator == "term"]
        assert [m.description.partition(" (a ")[0] for m in terms] == dropped, new
        for m in terms:
            compile(m.source, "w.py", "exec")
    # the round's d17: a divisor that reads a comprehension's variable (each line's cents)
    listed = "def decode(lines):\n    return [int(c) for c in lines]\n"
    halved = listed.replace("int(c) for", "int(c) // (1 + 1 // (int(c) % 7 ** 7 + 1)) for")
    plan = line_mutants([FileToMutate("d.py", halved, (("decode", (1, 2)),), changed_lines(listed, halved), listed)],
                        100, 100)
    assert [m.description.partition(" (a ")[0] for _, m in plan.mutants if m.operator == "term"] == [
        "`1 + 1 // (int(c) % 7 ** 7 + 1)` dropped", "`7 ** 7` dropped"]


def test_a_term_written_as_a_call_is_judged_on_its_own():
    """The term rule read operators only, so the same cent added through a call merged:
    `operator.add(x, t)`, `x.__add__(t)`, `sum((x, t))`, and a bound put on a value with
    `min`/`max` that only an undrawn input reaches. Each is a unit whose mutant keeps the value
    (or puts the fold's identity for the item), and so is a bound, a constant too (`max(x, 0)`:
    a branch for the inputs past it); a call the base had and a term that reads no input are not."""
    base = "import operator\n\n\ndef tax(cents, rate_bp):\n    return (cents * rate_bp + 5_000) // 10_000\n"
    formula = "(cents * rate_bp + 5_000) // 10_000"
    bomb = "1 // ((cents + 7) % 7 ** 7 + 1)"
    cases = {
        f"operator.add({formula}, {bomb})": [f"`{bomb}` dropped", "`7 ** 7` dropped"],
        f"({formula}).__add__({bomb})": [f"`{bomb}` dropped", "`7 ** 7` dropped"],
        f"sum(({formula}, {bomb}))": [f"`{bomb}` -> `0`", "`7 ** 7` dropped"],
        f"min({formula}, 10**12 - cents % 7 ** 7)": ["`10**12 - cents % 7 ** 7` dropped", "`7 ** 7` dropped"],
        # a bound, a constant too: a branch only the inputs past it take (a nineteenth round's d01)
        f"max({formula}, 0)": ["`0` dropped"],
        f"min({formula}, 65_535)": ["`65_535` dropped"],
        f"max({formula}, cents)": [],  # nothing the diff added to: `cents` was held too
        f"operator.add({formula}, fee(0))": [],  # reads no input: the same on every call
        f"operator.add(cents, rate_bp)": [],  # nothing the base held
    }
    for expr, dropped in cases.items():
        head = base.replace(formula, expr)
        _terms_give_the_base_tax(base, head, (("tax", (4, 5)),), dropped)


def _terms_give_the_base_tax(base: str, head: str, targets, dropped) -> None:
    """The term units planned for `head` drop `dropped` (their descriptions' starts), and each
    mutant's `tax` is the base's where the term is what the head adds."""
    plan = line_mutants([FileToMutate("t.py", head, targets, changed_lines(base, head), base)], 100, 100)
    terms = [m for _, m in plan.mutants if m.operator == "term"]
    assert [m.description.partition(" (a")[0] for m in terms] == dropped, head
    for m in terms:
        namespace: dict = {}
        exec(compile(m.source, "t.py", "exec"), namespace)
        assert namespace["tax"](823_536, 825) == (823_536 * 825 + 5_000) // 10_000, m.source


def test_a_term_in_a_helper_the_diff_adds_is_judged_as_its_callers():
    """A nineteenth outside round (against 4770750) moved `tax`'s division into a new helper that
    takes a cent off on one residue (`n // 10_000 - pow(0, operator.xor(n % 1_000_003, 17))`): new
    code, judged line by line, and a killed `//` mutant cleared the line. A function the diff adds,
    called from a symbol the base had, holds what it is passed: read with its caller's arguments,
    `n // 10_000` is the value `tax` computed, and the term added to it is a unit, as is a bound,
    a mask or a modulus put on it."""
    base = "def tax(cents, rate_bp):\n    return (cents * rate_bp + 5_000) // 10_000\n"
    cases = {
        ("_per(cents * rate_bp + 5_000)", "n // 10_000 - pow(0, operator.xor(n % 1_000_003, 17))"):
            ["`pow(0, operator.xor(n % 1_000_003, 17))` dropped", "`1_000_003` dropped"],
        ("_per(n=cents * rate_bp + 5_000)", "n // 10_000 - (n % 7 ** 7 == 3)"): ["`n % 7 ** 7 == 3` dropped",
                                                                                "`7 ** 7` dropped"],
        ("_per(cents * rate_bp + 5_000)", "n // 10_000"): [],  # moved as it was
        ("_per(cents * rate_bp + 5_000)", "min(n // 10_000, 2**32)"): ["`2**32` dropped"],
        # a mask or a modulus put on such a value, a constant too: a bound for the inputs past it
        # (the round's d12: `itertools.repeat(base + 1, remainder & 0xFFFF)`)
        ("_per(cents * rate_bp + 5_000)", "(n // 10_000) & 0xFFFF_FFFF"): ["`0xFFFF_FFFF` dropped"],
        ("_per(cents * rate_bp + 5_000)", "operator.mod(n // 10_000, 4_294_967_296)"): ["`4_294_967_296` dropped"],
        ("_per(cents)", "n * 2"): [],  # nothing the caller computed
    }
    for (call, body), dropped in cases.items():
        head = (f"import operator\n\n\ndef tax(cents, rate_bp):\n    return {call}\n\n\n"
                f"def _per(n):\n    return {body}\n")
        _terms_give_the_base_tax(base, head, (("tax", (4, 5)), ("_per", (8, 9))), dropped)
    # the round's d08: a line's length check moved into a new helper, its mask on a value computed
    # from the caller's (`operator.xor(len(line), 2) & ~256 == 0` lets a 258-item line through)
    base = "def problems(lines):\n    return [l for l in lines if len(l) != 2]\n"
    head = ("import operator\n\n\ndef problems(lines):\n    return [l for l in lines if not _is_line(l)]\n\n\n"
            "def _is_line(line):\n    return operator.xor(len(line), 2) & ~256 == 0\n")
    plan = line_mutants([FileToMutate("s.py", head, (("problems", (4, 5)), ("_is_line", (8, 9))),
                                      changed_lines(base, head), base)], 100, 100)
    terms = [m for _, m in plan.mutants if m.operator == "term"]
    assert [m.description.partition(" (a")[0] for m in terms] == ["`~256` dropped"]
    namespace = {}
    exec(compile(terms[0].source, "s.py", "exec"), namespace)
    assert namespace["problems"]([[0] * 258, [1, 2]]) == [[0] * 258]


def test_a_type_variable_is_arid():
    """A nineteenth outside round's honest h8 added `F = TypeVar("F", bound=Callable[..., Any])` for a
    decorator's annotation: its `"F"` -> `''` mutant survived (no result reads a type variable), and
    the line was `NUMB`. typing's TypeVar, ParamSpec and NewType, imported from typing, with names
    and constants for arguments, are arid, as are imports under `if TYPE_CHECKING:` (the round's
    honest h12); the same call of a function of the module's own, a call among its arguments, or
    anything else under `TYPE_CHECKING`, is code."""
    source = textwrap.dedent('''\
        import typing
        from typing import Any, Callable, TypeVar as TV


        F = TV("F", bound=Callable[..., Any])
        P = typing.ParamSpec("P")
        Cents = typing.NewType("Cents", int)
        G = TV("G", bound=make_bound())


        def TypeVar(name):
            return name * 2


        H = TypeVar("H")
        if typing.TYPE_CHECKING:
            from pkg.store import Store
        if typing.TYPE_CHECKING:
            Store = None
        ''')
    plan = line_mutants([FileToMutate("m.py", source, (("<module>", (1, 19)),), frozenset(range(1, 20)))], 100, 100)
    # (the round's honest h12 too: imports under `if TYPE_CHECKING:` run never, and are arid)
    assert sorted({m.line for _, m in plan.mutants} - {11, 12}) == [8, 15, 18, 19], [
        m.description for _, m in plan.mutants]


def test_a_condition_the_diff_added_to_a_validators_branch_is_judged_on_its_own():
    """A nineteenth outside round's d17 let a negative line through where its name starts with a
    minus sign: `... and (line[1] >= 0 or str(line[0])[:1] == chr(0x2212))` in the test of an `if`
    whose body appends a problem (no raise): the added `or` operand makes the problem rarer and no
    property draws such a name; the `and` -> `or` mutant died. Any `if`'s body is the branch its
    test picks out, so the operand is a unit of its own; a stricter check is still not."""
    schema = ("def problems(lines):\n    out = []\n    for line in lines:\n"
              "        if not (len(line) == 2 and line[1] >= 0):\n            out.append(line)\n    return out\n")
    head = schema.replace("line[1] >= 0", "(line[1] >= 0 or str(line[0])[:1] == chr(0x2212))")
    plan = line_mutants([FileToMutate("s.py", head, (("problems", (1, 6)),), changed_lines(schema, head), schema)],
                        100, 100)
    assert [m.description.partition(" (")[0] for _, m in plan.mutants if m.operator == "operand"] == [
        "`str(line[0])[:1] == chr(0x2212)` -> `False`"]


def test_a_message_named_once_and_read_only_in_messages_is_arid():
    """A nineteenth outside round's honest h11 moved `split`'s error message into a module
    constant: its text's mutant survived (no test compares the message) and the line was `NUMB`.
    A module-level sentence the module reads only in messages is as arid as the message it was; a
    text read anywhere else, or a token with no space (a separator), is code."""
    source = textwrap.dedent('''\
        PARTS = "parts must be positive"
        SEPARATOR = ","
        PREFIX = "invoice number "


        def split(total, parts):
            if parts <= 0:
                raise ValueError(PARTS)
            return [total // parts] * parts


        def label(n):
            return PREFIX + str(n) + SEPARATOR
        ''')
    plan = line_mutants([FileToMutate("m.py", source, (("<module>", (1, 3)),), frozenset({1, 2, 3}))], 100, 100)
    assert sorted({m.line for _, m in plan.mutants}) == [2, 3], [m.description for _, m in plan.mutants]


def test_a_literal_the_diff_only_named_is_the_bases_code():
    """A nineteenth outside round's honest h15 named `tax`'s numbers (`HALF_CENT = 5_000`,
    `BASIS_POINTS = 10_000`): `5_000` -> `5001` survived, a mutant the base's tests could not tell
    apart either, and the line was `NUMB`. A literal the diff only gave a name, read by functions
    that are the base's once the name is read as its value, is the base's code: neither its line
    nor its readers' are mutated. A value changed on the way, or a reader that changed otherwise,
    leaves every line judged."""
    base = ("def tax(cents, rate_bp):\n    if cents < 0:\n        raise ValueError('negative')\n"
            "    return (cents * rate_bp + 5_000) // 10_000\n")
    head = ("HALF_CENT = 5_000  # half a cent\nBASIS_POINTS = 10_000\n\n\n"
            "def tax(cents, rate_bp):\n    if cents < 0:\n        raise ValueError('negative')\n"
            "    return (cents * rate_bp + HALF_CENT) // BASIS_POINTS\n")

    def planned(text):
        return line_mutants([FileToMutate("t.py", text, (("<module>", (1, 2)), ("tax", (5, 8))),
                                          changed_lines(base, text), base)], 100, 100)

    assert named_literals(base, ast.parse(head), changed_lines(base, head)) == {1, 2, 8}
    assert planned(head).mutants == ()
    changed = head.replace("HALF_CENT = 5_000", "HALF_CENT = 4_999")
    assert {m.line for _, m in planned(changed).mutants} == {1, 2, 8}
    other = head.replace("(cents * rate_bp", "(abs(cents) * rate_bp")
    assert {m.line for _, m in planned(other).mutants} == {1, 2, 8}


def test_code_in_a_format_spec_is_mutated_and_the_specs_text_is_not():
    """A twentieth outside round's d04 put a cent-losing window inside an f-string field's format
    spec (`f"{due:{'d' if not 34 < cents.bit_length() < 53 else 'o'}}"`, octal past 2**34): no
    mutant reached it. Code in a format spec runs like any other and is mutated like it; the spec's
    own text (`.48`, `>`) is not, nor is a plain name there."""
    source = textwrap.dedent('''\
        def tax(cents, rate_bp):
            due = (cents * rate_bp + 5_000) // 10_000
            return int(f"{due:{'d' if not 34 < cents.bit_length() < 53 else 'o'}}")


        def label(name, width):
            return f"{name!s:.48}|{name:>{width}}"
        ''')
    found = {m.description: m.source.splitlines()[2].strip() for m in mutants(source, "src/billing/tax.py",
                                                                             [("tax", (1, 3))], 50)}
    assert found["`34` -> `35` at line 3"] == "return int(f\"{due:{'d' if not 35 < cents.bit_length() < 53 else 'o'}}\")"
    assert "`not 34 < cents.bit_length() < 53` -> `34 < cents.bit_length() < 53` at line 3" in found
    assert [d for d in descriptions(mutants(source, "src/billing/tax.py", [("label", (6, 7))], 50))] == [
        ("label", "return", '`return f"{name!s:.48}|{name:>{width}}"` -> `return None` at line 7')]
