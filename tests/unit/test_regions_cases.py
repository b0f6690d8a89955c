"""Region suggestions and BUILD edits, known cases."""
import pytest

from oracle_gate.core.regions import (
    Edit,
    Generator,
    RegionConfig,
    Rule,
    TargetFacts,
    apply_edits,
    build_edits,
    effective_kinds,
    generator_for,
    imports_of_source,
    kind_counts,
    render_edits,
    suggest,
    suggest_all,
)


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
    (("etcetra.client",), "state"),
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


# -- BUILD edits ------------------------------------------------------------------------------
def gens():
    return [
        generator_for("src/app", "app", "python_sources", {"a.py": "pure", "b.py": "pure", "db.py": "state"}),
        generator_for("src/app/api", "api", "python_sources", {"h.py": "io", "v.py": "io", "w.py": "pure"}),
        generator_for("src/lib", "lib", "python_sources", {"x.py": "pure", "y.py": "pure"}),
        generator_for("src/lib", "proto", "resource", {"api.proto": "schema"}),
        generator_for("tests", "utils", "python_test_utils", {"conftest.py": "io", "helpers.py": "pure"}),
    ]


def test_shortest_edit_from_scratch():
    edits = build_edits(gens())
    assert render_edits(edits) == {
        "BUILD": '__defaults__(all=dict(oracle_region="pure"), extend=True)\n',
        "src/app/BUILD": 'python_sources(name="app", overrides={"db.py": {"oracle_region": "state"}})\n',
        "src/app/api/BUILD": 'python_sources(name="api", oracle_region="io", '
                             'overrides={"w.py": {"oracle_region": "pure"}})\n',
        "src/lib/BUILD": 'resource(name="proto", oracle_region="schema")\n',
        # python_test_utils takes the field only through overrides, and __defaults__ do not reach it
        "tests/BUILD": 'python_test_utils(name="utils", overrides={"helpers.py": {"oracle_region": "pure"}, '
                       '"conftest.py": {"oracle_region": "io"}})\n',
    }
    assert len(edits) == 7
    final = apply_edits(RegionConfig(), edits)
    assert all(effective_kinds(final, gens())[(g.address, f)] == k for g in gens() for f, k in g.files)


def test_overrides_of_one_kind_share_a_key():
    g = Generator("d", "d", "python_sources", (("a.py", "pure"), ("b.py", "io"), ("c.py", "io"), ("e.py", "pure"),
                                               ("f.py", "pure")), reached_by_defaults=False)
    assert render_edits(build_edits([g])) == {
        "d/BUILD": 'python_sources(name="d", oracle_region="pure", '
                   'overrides={("b.py", "c.py"): {"oracle_region": "io"}})\n'}


def test_existing_settings_are_kept_when_right_and_fixed_when_wrong():
    existing = RegionConfig.of(defaults={"": "pure"}, overrides={("src/app:app", "db.py"): "io"},
                               fields={"src/other:other": "io"})
    edits = build_edits(gens(), existing)
    assert Edit("src/app", "override", "src/app:app", "python_sources", "db.py", "io", "state") in edits
    assert not any(e.statement == "defaults" for e in edits)  # the root default already says pure
    assert not any(e.target == "src/other:other" for e in edits)  # not ours: untouched
    assert build_edits(gens(), apply_edits(existing, edits)) == []  # nothing left to do


def test_removing_a_setting_renders_a_comment():
    g = generator_for("src/app", "app", "python_sources", {"a.py": "io", "b.py": "io"})
    existing = RegionConfig.of(fields={"src/app:app": "io"}, overrides={("src/app:app", "b.py"): "pure"})
    edits = build_edits([g], existing)
    assert edits == [Edit("src/app", "override", "src/app:app", "python_sources", "b.py", "pure", None)]
    assert render_edits(edits) == {
        "src/app/BUILD": '# python_sources(name="app"): remove overrides["b.py"].oracle_region (was "pure")\n'}


def test_bad_input_is_a_one_line_error():
    with pytest.raises(ValueError, match="unknown region kind 'fast'"):
        build_edits([generator_for("d", "d", "python_sources", {"a.py": "fast"})])
    with pytest.raises(ValueError, match="given twice"):
        build_edits([generator_for("d", "d", "python_sources", {}), generator_for("d", "d", "python_sources", {})])
    with pytest.raises(ValueError, match="accepts neither"):
        build_edits([Generator("d", "d", "thing", (("a.py", "pure"),), field_on_generator=False,
                               accepts_overrides=False)])
    with pytest.raises(ValueError, match="unknown region kind 'fast'"):
        Rule("x", "fast", "speed")
    with pytest.raises(ValueError, match="expects 'io', found None"):
        apply_edits(RegionConfig(), [Edit("d", "field", "d:d", "python_sources", None, "io", "pure")])
