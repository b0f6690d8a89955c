"""Region suggestions and the region table, known cases."""
import pytest

from oracle_gate.core.lanes.regions import (Rule, TargetFacts, imports_of_source, kind_counts, suggest, suggest_all,
                                            table_from_suggestions, table_key_error, table_region)


def kind(path="src/pkg/mod.py", imports=(), test_util=False):
    return suggest(TargetFacts("src/pkg:pkg", path, frozenset(imports), test_util)).kind


def reason(path="src/pkg/mod.py", imports=(), test_util=False):
    return suggest(TargetFacts("src/pkg:pkg", path, frozenset(imports), test_util)).reason


@pytest.mark.parametrize("imports, expected", [
    ((), "pure"),
    (("json", "typing", "os", "os.path", "pathlib", "urllib.parse", "http", "http.HTTPStatus", "yarl"), "pure"),
    (("sqlalchemy.orm",), "state"),
    (("psycopg2.extras",), "state"),
    (("asyncpg",), "state"),
    (("etcd3",), "state"),
    (("redis.asyncio",), "state"),
    (("sqlite3",), "state"),
    (("aiohttp", "asyncio"), "io"),
    (("urllib.request",), "io"),
    (("http.client",), "io"),
    (("socket",), "io"),
    (("subprocess",), "io"),
    (("os", "os.makedirs"), "io"),
    (("boto3",), "io"),
    (("aiodocker.docker",), "io"),
    (("asyncio",), "concurrent"),
    (("concurrent.futures",), "concurrent"),
    (("threading", "pydantic"), "concurrent"),
    (("pydantic",), "schema"),
    (("trafaret",), "schema"),
    (("google.protobuf.message",), "schema"),
    (("sqlalchemy", "aiohttp", "asyncio", "pydantic"), "state"),
    (("requestsx", "socketserverx", "asyncio_extra", "pydanticx"), "pure"),  # prefixes are not names
])
def test_kind_from_imports(imports, expected):
    assert kind(imports=imports) == expected


def test_kind_from_file_name():
    assert kind("src/pkg/models.py", ["dataclasses"]) == "schema"
    assert kind("src/pkg/types.py", ["enum", "typing"]) == "schema"
    assert kind("src/pkg/types.py", ["sqlalchemy"]) == "state"  # evidence of a higher kind wins
    assert kind("src/pkg/agent_pb2.py") == "schema"
    assert kind("src/pkg/service_pb2_grpc.py", ["grpc"]) == "io"
    assert kind("src/pkg/dataclasses_util.py", ["dataclasses", "attrs"]) == "pure"  # not a contract by name
    assert kind("src/pkg/api.proto") == "schema"
    assert kind("src/pkg/event.schema.json") == "schema"
    assert kind("src/pkg/sample-config.json") == "pure"
    assert kind("src/pkg/logo.svg") == "pure"


def test_reasons_name_the_evidence():
    assert reason(imports=["sqlalchemy", "sqlalchemy.orm", "sqlalchemy.orm.Session"]) == \
        "imports sqlalchemy (database client)"
    assert reason(imports=["aiohttp", "aiohttp.web", "asyncio", "redis"]) == \
        "imports redis (cache or key-value store client) (+2 more evidence)"
    assert reason("src/pkg/models.py", ["pydantic"]) == "contract module named models.py (+1 more evidence)"
    assert reason(imports=["json", "typing"]) == "no state, I/O, concurrency or contract evidence in 2 imports"
    assert reason("src/pkg/conftest.py", ["socket"], test_util=True) == \
        "imports socket (network socket or RPC); test utility"
    assert reason("src/pkg/data.csv") == "no state, I/O, concurrency or contract evidence"


def test_custom_rules_and_wildcards():
    rules = (Rule("myapp.db", "state", "first-party database layer"), Rule("mq*", "io", "queue"))
    facts = TargetFacts("a:a", "a/x.py", frozenset({"myapp.db.session", "mqtt"}))
    s = suggest(facts, rules)
    assert (s.kind, s.reason) == ("state", "imports myapp.db.session (first-party database layer) (+1 more evidence)")
    assert suggest(TargetFacts("a:a", "a/x.py", frozenset({"myapp.dbx"})), rules).kind == "pure"


def test_suggest_all_sorted_and_counted():
    facts = [TargetFacts("b:b", "b/x.py", frozenset({"asyncio"})), TargetFacts("a:a", "a/x.py")]
    out = suggest_all(facts)
    assert [s.address for s in out] == ["a:a", "b:b"]
    assert kind_counts(out) == {"pure": 1, "schema": 0, "concurrent": 1, "io": 0, "state": 0}


def test_imports_of_source():
    src = (
        "import os, json as j\n"
        "import concurrent.futures\n"
        "from . import util\n"
        "from ..common import types as t\n"
        "from ...x import *\n"
        "from sqlalchemy.orm import Session\n"
        "def f():\n"
        "    os.makedirs('d')\n"
        "    j.dumps(1)\n"
        "    concurrent.futures.wait([])\n"
    )
    assert imports_of_source(src, "ai.backend.manager.models.base") == {
        "os", "os.makedirs", "json", "json.dumps", "concurrent.futures",
        "ai.backend.manager.models", "ai.backend.manager.models.util",
        "ai.backend.manager.common", "ai.backend.manager.common.types",
        "ai.backend.x", "sqlalchemy.orm", "sqlalchemy.orm.Session",
    }
    # In a package's __init__.py, `.` is the package itself; without a module name, relative imports drop.
    assert imports_of_source("from .x import y\n", "pkg", is_package=True) == {"pkg.x", "pkg.x.y"}
    assert imports_of_source("from .x import y\nimport a\n") == {"a"}
    assert imports_of_source("from .... import y\n", "a.b") == frozenset()  # beyond the top: dropped


def test_imports_of_source_falls_back_to_tokens_on_syntax_this_python_cannot_parse():
    src = (
        "import os\n"
        "from a import (b,\n"
        "    c)\n"
        "from .d import e  # comment\n"
        "if True:\n"
        "    import json as j\n"
        "x = os.getcwd()\n"
        "y = 1 +* 2\n"
        "j.dumps(x)\n"
    )
    assert imports_of_source(src, "p.m") == {"os", "os.getcwd", "a", "a.b", "a.c", "p.d", "p.d.e", "json", "json.dumps"}


def test_imports_of_source_bad_input_is_one_line():
    with pytest.raises(ValueError) as e:
        imports_of_source('import os\n"""never closed\n')
    assert str(e.value).startswith("cannot read Python source:") and "\n" not in str(e.value)


# -- the region table --------------------------------------------------------------------------
KINDS = {"src/app/a.py": "pure", "src/app/b.py": "pure", "src/app/db.py": "state", "src/app/api/h.py": "io",
         "src/app/api/v.py": "io", "src/app/api/w.py": "pure", "src/lib/x.py": "pure", "src/lib/y.py": "pure"}


def test_the_smallest_table_from_scratch():
    assert table_from_suggestions(KINDS) == {
        "**": "pure", "src/app/db.py": "state", "src/app/api/**": "io", "src/app/api/w.py": "pure"}


def test_bad_input_is_a_one_line_error():
    with pytest.raises(ValueError, match="unknown region kind 'fast'"):
        table_from_suggestions({"d/a.py": "fast"})
    with pytest.raises(ValueError, match="unknown region kind 'fast'"):
        Rule("x", "fast", "speed")


def test_the_region_table_gives_the_file_entry_then_the_nearest_tree():
    table = {"**": "pure", "src/app/**": "io", "src/app/models.py": "schema", "src/app/db/**": "state"}
    assert [table_region(table, p) for p in ("setup.py", "src/app/x.py", "src/app/models.py", "src/app/db/q.py",
                                             "src/application.py")] == ["pure", "io", "schema", "state", "pure"]
    assert table_region({"src/**": "io"}, "lib/x.py") is None
    assert [table_key_error(k, "pure") for k in ("**", "src/**", "src/a.py")] == [None, None, None]
    assert all(table_key_error(k, "pure") for k in ("src/*.py", "/abs.py", "src/", "../x.py", "src//a.py", "a/**/b.py"))
    assert "unknown region kind" in table_key_error("src/**", "impure")


def test_a_table_from_suggestions_uses_trees_for_the_majority_and_files_for_exceptions():
    kinds = {"src/app/a.py": "io", "src/app/b.py": "io", "src/app/d.py": "io", "src/app/c.py": "pure", "src/lib/x.py": "pure",
             "src/lib/y.py": "pure"}
    table = table_from_suggestions(kinds)
    assert table == {"**": "pure", "src/app/**": "io", "src/app/c.py": "pure"}
    assert all(table_region(table, p) == k for p, k in kinds.items())
    # Reviewed entries are kept and decide the paths they cover.
    kept = table_from_suggestions(kinds, {"src/app/**": "state"})
    assert kept["src/app/**"] == "state" and table_region(kept, "src/lib/x.py") == "pure"
