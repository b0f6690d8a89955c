import sys
import textwrap
import types

import pytest

from oracle_gate.core.source.symbols import (ChangedSymbol, SourceError, changed_symbols, enclosing, symbol_for_code,
                                           symbols)


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def changes(base, head):
    return [(c.qualname, c.kind, c.change) for c in changed_symbols(base, head)]


BASE = src('''
    """A module."""
    import functools

    RATE = 5


    def deco(f):
        return f


    @deco
    def tax(cents):
        """Tax in cents."""
        return cents * RATE


    class Store:
        limit = 10

        def credit(self, n):
            def check(v):
                return v > 0
            assert check(n)
            return n

        @property
        def total(self):
            return 0

        @total.setter
        def total(self, value):
            pass
    ''')


def test_known_symbols_and_their_lines():
    assert symbols(BASE) == {
        "<module>": ("module", (1, 32)),
        "deco": ("function", (7, 8)),
        "tax": ("function", (11, 14)),
        "Store": ("class", (17, 32)),
        "Store.credit": ("method", (20, 24)),
        "Store.credit.<locals>.check": ("function", (21, 22)),
        "Store.total": ("method", (26, 32)),
    }


def test_the_same_source_has_no_changes_and_docstrings_comments_do_not_count():
    assert changed_symbols(BASE, BASE) == ()
    edited = BASE.replace('"""Tax in cents."""', '"""Tax, rounded."""  # a comment').replace(
        "return cents * RATE", "return (cents  *  RATE)  # same")
    assert changed_symbols(BASE, edited) == ()
    assert changed_symbols(BASE, edited.replace('"""A module."""\n', "")) == ()


def test_a_decorator_change_changes_the_function():
    assert changes(BASE, BASE.replace("@deco\ndef tax", "@functools.lru_cache()\ndef tax")) == [
        ("tax", "function", "changed")]
    assert changes(BASE, BASE.replace("@deco\ndef tax", "def tax")) == [("tax", "function", "changed")]


def test_a_rename_is_a_deletion_and_an_addition():
    assert changes(BASE, BASE.replace("def tax(", "def vat(")) == [("tax", "function", "deleted"),
                                                                   ("vat", "function", "added")]


def test_a_changed_nested_function_reports_the_innermost_symbol_only():
    inner = BASE.replace("return v > 0", "return v >= 0")
    assert changes(BASE, inner) == [("Store.credit.<locals>.check", "function", "changed")]
    outer = BASE.replace("assert check(n)", "assert check(n + 1)")
    assert changes(BASE, outer) == [("Store.credit", "method", "changed")]
    both = inner.replace("assert check(n)", "assert check(n + 1)")
    assert changes(BASE, both) == [("Store.credit", "method", "changed"),
                                   ("Store.credit.<locals>.check", "function", "changed")]


def test_class_body_statements_belong_to_the_class_and_module_statements_to_module():
    assert changes(BASE, BASE.replace("limit = 10", "limit = 11")) == [("Store", "class", "changed")]
    assert changes(BASE, BASE.replace("class Store:", "class Store(object):")) == [("Store", "class", "changed")]
    assert changes(BASE, BASE.replace("RATE = 5", "RATE = 6")) == [("<module>", "module", "changed")]
    assert changes(BASE, BASE.replace("import functools\n", "")) == [("<module>", "module", "changed")]


def test_a_property_setter_is_part_of_the_same_symbol():
    assert changes(BASE, BASE.replace("        pass\n", "        raise AttributeError\n")) == [
        ("Store.total", "method", "changed")]


def test_moving_functions_and_methods_around_changes_nothing():
    moved = BASE.replace("RATE = 5\n", "").replace("import functools\n", "import functools\nRATE = 5\n")
    assert changed_symbols(BASE, moved) == ()
    swapped = src('''
        def b():
            return 2
        def a():
            return 1
        ''')
    assert changed_symbols("def a():\n    return 1\ndef b():\n    return 2\n", swapped) == ()


def test_a_method_moved_to_another_class_is_deleted_there_and_added_here():
    base = "class A:\n    def m(self):\n        return 1\nclass B:\n    pass\n"
    head = "class A:\n    pass\nclass B:\n    def m(self):\n        return 1\n"
    assert changes(base, head) == [("A.m", "method", "deleted"), ("B.m", "method", "added")]


def test_added_and_deleted_files():
    assert changes(None, "def f():\n    pass\n") == [("f", "function", "added")]
    assert changes(None, "import os\ndef f():\n    pass\n") == [("<module>", "module", "added"),
                                                             ("f", "function", "added")]
    assert changes("X = 1\n", None) == [("<module>", "module", "deleted")]
    assert changes(None, "") == []
    assert changes("", "import os\n") == [("<module>", "module", "changed")]
    added = changed_symbols(None, "def f():\n    pass\n")[0]
    assert added == ChangedSymbol("f", "function", "added", (1, 2), None)


def test_definitions_in_blocks_keep_their_qualnames():
    base = "import sys\nif sys.version_info >= (3, 8):\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n"
    assert set(symbols(base)) == {"<module>", "f"}
    assert changes(base, base.replace("return 2", "return 3")) == [("f", "function", "changed")]
    moved_out = "import sys\ndef f():\n    return 1\n"
    assert ("<module>", "module", "changed") in changes(base, moved_out)


def test_unparsable_source_is_a_source_error_with_one_line():
    with pytest.raises(SourceError) as e:
        changed_symbols("def f(:\n", None)
    assert "\n" not in str(e.value) and ":1:" in str(e.value)
    with pytest.raises(SourceError):
        symbols("x = '\0'\x00")
    with pytest.raises(SourceError):
        symbol_for_code("class\n", 1, "<module>" + "x")
    deep = "x = " + " + ".join(["1"] * 5000) + "\n"  # parses, but deeper than any analysis recurses
    with pytest.raises(SourceError, match="nested too deeply"):
        changed_symbols(None, deep)


CODE = src('''
    import functools


    @functools.lru_cache(
        maxsize=None)
    def f(x, key=lambda v: v * 2):
        return [i for i in range(x)]


    class C:
        items = [j for j in range(3)]

        @staticmethod
        @functools.lru_cache()
        def m():
            def inner():
                return (k for k in range(2))
            return inner


    g = lambda: 1
    ''')


def walk(code, out):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.append((const.co_firstlineno, const.co_name))
            walk(const, out)
    return out


def test_code_objects_map_to_symbols():
    assert symbol_for_code(CODE, 4, "f") == "f"  # the first decorator's line, as on 3.8+
    if sys.version_info >= (3, 8):  # where the AST knows the def line of a decorated def
        assert symbol_for_code(CODE, 6, "f") == "f"
    assert symbol_for_code(CODE, 6, "<lambda>") == "f"  # a default argument belongs to its def
    assert symbol_for_code(CODE, 7, "<listcomp>") == "f"
    assert symbol_for_code(CODE, 10, "C") == "C"
    assert symbol_for_code(CODE, 11, "<listcomp>") == "C"
    assert symbol_for_code(CODE, 13, "m") == "C.m"
    assert symbol_for_code(CODE, 16, "inner") == "C.m.<locals>.inner"
    assert symbol_for_code(CODE, 17, "<genexpr>") == "C.m.<locals>.inner"
    assert symbol_for_code(CODE, 21, "<lambda>") == "<module>"
    assert symbol_for_code(CODE, 1, "<module>") == "<module>"
    assert symbol_for_code(CODE, 99, "missing") is None
    assert symbol_for_code(CODE, 8, "f") is None
    assert symbol_for_code(CODE, 17, "<unknown-kind>") == "C.m.<locals>.inner"


def test_every_real_code_object_of_a_known_module_maps_and_real_qualnames_agree():
    compiled = compile(CODE, "m.py", "exec")
    mapped = {(line, name): symbol_for_code(CODE, line, name) for line, name in walk(compiled, [])}
    assert None not in mapped.values()
    namespace = {}
    exec(compiled, namespace)
    c = namespace["C"]
    inner = c.m()
    for obj in (namespace["f"].__wrapped__, c.m.__wrapped__, inner):
        code = obj.__code__
        assert symbol_for_code(CODE, code.co_firstlineno, code.co_name) == obj.__qualname__


def test_names_used_by_changed_code_include_calls_attributes_and_imports():
    from oracle_gate.core.source.symbols import names_used

    source = ("from billing.weights import split_weighted as sw\nimport os\n\nLIMIT = os.cpu_count()\n\n\n"
              "def split(total, parts):\n    if parts > 1000:\n        return _big_split(total, parts)\n"
              "    return helpers.even(total, parts)\n\n\ndef other():\n    return unrelated()\n")
    assert {"_big_split", "even", "helpers", "total"} <= names_used(source, ["split"])
    assert "unrelated" not in names_used(source, ["split"])
    assert {"split_weighted", "sw", "cpu_count", "LIMIT"} <= names_used(source, ["<module>"])
    assert "_big_split" not in names_used(source, ["<module>"])


def test_a_rename_with_the_same_code_names_the_symbol_it_was_and_a_changed_body_does_not():
    base = "class Q:\n    async def resolve_for_group(self, x):\n        return await x.fetch()\n\n\ndef f(a):\n    return a + 1\n"
    head = base.replace("resolve_for_group", "resolve_for_user_group").replace("def f(a):\n    return a + 1",
                                                                               "def g(a):\n    return a + 2")
    found = {c.qualname: (c.change, c.renamed_from) for c in changed_symbols(base, head)}
    assert found == {"Q.resolve_for_user_group": ("added", "Q.resolve_for_group"), "Q.resolve_for_group": ("deleted", None),
                     "g": ("added", None), "f": ("deleted", None)}


UTILS = '''"""Helpers."""
import os

KB = 1024


def parse_size(text):
    return int(text[:-1]) * KB if text.endswith("k") else int(text)


class Sizes:
    def total(self, items):
        return sum(parse_size(i) for i in items)
'''


def test_code_moved_or_copied_out_of_base_files_names_them_and_new_code_names_none():
    from oracle_gate.core.source.symbols import copied_code, defined_names

    moved = 'from .utils import KB\n__all__ = ["parse_size"]\n\n\ndef parse_size(text):\n' \
            '    return int(text[:-1]) * KB if text.endswith("k") else int(text)\n'
    assert defined_names(moved) == frozenset({"parse_size"})
    assert copied_code(moved, {"utils.py": UTILS, "other.py": "def f():\n    return 1\n"}) == ("utils.py",)
    # Its module-level code copied too (the constant), a class with its method, from two files.
    both = "KB = 1024\n\n\ndef f():\n    return 1\n\n\nclass Sizes:\n    def total(self, items):\n" \
           "        return sum(parse_size(i) for i in items)\n"
    assert copied_code(both, {"utils.py": UTILS, "other.py": "def f():\n    return 1\n"}) == ("other.py", "utils.py")
    # Anything new: a changed body, a changed constant, a new function, a renamed one.
    assert copied_code(moved.replace("* KB", "* KB + 1"), {"utils.py": UTILS}) == ()
    assert copied_code("KB = 1000\n" + moved, {"utils.py": UTILS}) == ()
    assert copied_code(moved + "\n\ndef g():\n    return 2\n", {"utils.py": UTILS}) == ()
    assert copied_code(moved.replace("def parse_size", "def parse"), {"utils.py": UTILS}) == ()
    # No def or class: nothing to say it came from anywhere; a base that does not parse is no source.
    assert copied_code("import os\n", {"utils.py": UTILS}) == ()
    assert copied_code(moved, {"utils.py": "def (:\n"}) == ()


def test_moved_code_with_an_import_that_rebinds_a_name_or_an_export_list_that_runs_code_is_new_code():
    from oracle_gate.core.source.symbols import copied_code, declared_encoding, is_export_list, rebinding_imports

    base = "from decimal import Decimal\nimport numpy as np\n\n\ndef f(x):\n    return Decimal(x)\n"
    moved = "from decimal import Decimal\n\n\ndef f(x):\n    return Decimal(x)\n"
    assert copied_code(moved, {"a.py": base}) == ("a.py",)
    assert copied_code(moved.replace("from decimal import Decimal", "from builtins import float as Decimal"),
                       {"a.py": base}) == ()
    assert rebinding_imports("from numbers import Real as int\nimport numpy as np\nfrom .x import sorted\n", [base]) \
        == ("Real as int", "sorted as sorted")  # np is bound as its source binds it
    assert rebinding_imports("from .evil import *\nfrom decimal import *\n", ["from decimal import *\n"]) == (".evil as *",)
    assert copied_code('__all__ = ["f"] + ["g"]\n' + moved, {"a.py": base}) == ("a.py",)
    assert copied_code('__all__ = ["f"] if (f := len) else []\n' + moved, {"a.py": base}) == ()
    (assign,) = __import__("ast").parse('__all__ = ["f"] + [print()][:0]').body
    assert not is_export_list(assign)
    # A declared source encoding, as Python's codecs name it (utf-7 turns a comment into code).
    assert [declared_encoding(t) for t in ("# -*- coding: utf-7 -*-\nx = 1\n", "#!/bin/python\n# coding=latin-1\n",
                                           "x = 1\n# coding: utf-7\n", "# coding: utf-8\n", "x = 1\n")] == \
        ["utf-7", "iso8859-1", None, "utf-8", None]
    # ... on lines as Python's tokenizer splits them: a first line that holds a character
    # `str.splitlines` breaks on (a twentieth outside round's d20b, d22, d24) is one line, and `\r`
    # ends one
    assert [declared_encoding(t) for t in ("# a\x1cb\n# coding: utf-7\n", "# a\u2028b\n# coding: utf-7\n",
                                           "# a\r# coding: utf-7\n", "# a\x1c# coding: utf-7\nx = 1\n# coding: utf-7\n",
                                           "x = 1\x1c\n# coding: utf-7\n")] == ["utf-7", "utf-7", "utf-7", "utf-7", None]


def test_a_nested_function_is_reached_through_the_outermost_function_it_is_in():
    assert enclosing("drain.<locals>.work") == "drain"
    assert enclosing("f.<locals>.g.<locals>.h") == "f"
    assert enclosing("Store.apply.<locals>.check") == "Store.apply"
    assert enclosing("Store.apply") == "Store.apply" and enclosing("f") == "f"
