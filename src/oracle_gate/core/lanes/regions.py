"""Region suggestions: a kind for each production code target from what it imports and what it
is, and the smallest region table that gives every target its suggested kind.

Pure and stdlib only. Two halves:

1. `suggest(facts)` classifies one target from its facts (the absolute dotted names it imports,
   its file name, whether it is a test utility) into `pure | state | io | concurrent | schema`
   with a one-line reason naming the evidence. `imports_of_source` extracts those names from a
   Python source (`ast`, or a token scan for syntax newer than the running Python; relative
   imports resolved, `os.makedirs`-style uses recorded).
2. `table_from_suggestions(kinds, existing)` turns per-file kinds into `[oracle-gate].regions`
   entries: directory trees (`dir/**`) where one kind covers most files, single files for the
   exceptions (`plan` is the exact optimiser over the directory tree); `table_region` resolves a
   path the way the facts rule does.

A suggestion is advice. Regions only take effect once the table (or a BUILD field) sets them, and
the gate treats any change of a region as a human-reviewed change (CONFIG_CHANGE, or an
oracle-lane BUILD edit), so a patch cannot lower its own floor by adding an import.
"""
from __future__ import annotations

import ast
import io
import posixpath
import tokenize
from collections import Counter
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from ..classes import REGION_KINDS

# Precedence, lowest first. When a target shows evidence of several kinds it gets the highest:
# - state and io (floor L) rank above concurrent, schema and pure (floor P): a module that talks
#   to a database, a socket or the file system cannot be judged hermetically by laws over
#   generated inputs alone; what it exchanges with the outside has to be pinned (a locked fixture,
#   a recorded trace). Calling an aiohttp handler "concurrent" because it also imports asyncio
#   would ask for an oracle that cannot run without the network.
# - state above io: a database or cache client does I/O too, but what its oracle must capture is
#   the stored data (seed and expected state), the more specific claim.
# - concurrent above schema: interleavings are behaviour; a module that schedules tasks and also
#   declares pydantic models needs laws about the scheduling more than about the shapes.
# - schema above pure: a contract is pure code whose laws are round trips and validation.
# The order is total, so the suggested kind is the maximum over the evidence: adding evidence
# never lowers it (monotone) and the input order never matters (deterministic).
PRECEDENCE: Tuple[str, ...] = ("pure", "schema", "concurrent", "io", "state")
RANK: Dict[str, int] = {kind: i for i, kind in enumerate(PRECEDENCE)}
assert set(PRECEDENCE) == set(REGION_KINDS), "regions.PRECEDENCE must list every region kind"


@dataclass(frozen=True)
class Rule:
    """`pattern` matches an imported dotted name equal to it or below it (`a.b` matches `a.b`
    and `a.b.c`, not `a.bc`); a trailing `*` on the first component matches by prefix
    (`psycopg*` matches `psycopg2.extras`)."""

    pattern: str
    kind: str
    what: str

    def __post_init__(self) -> None:
        if self.kind not in RANK:
            raise ValueError(f"region rule {self.pattern!r}: unknown region kind {self.kind!r}")

    def matches(self, name: str) -> bool:
        if self.pattern.endswith("*") and "." not in self.pattern:
            return name.split(".", 1)[0].startswith(self.pattern[:-1])
        return name == self.pattern or name.startswith(self.pattern + ".")


def _rules(kind: str, what: str, patterns: str) -> Tuple[Rule, ...]:
    return tuple(Rule(p, kind, what) for p in patterns.split())


# Widely used public libraries only, never one repository's own: a team's in-house clients are
# placed by the region table adoption writes (`[oracle-gate].regions`), which a reviewer edits.
# Only direct evidence counts: a module importing a first-party wrapper (`myapp.db`) is not
# `state` because the wrapper is; the wrapper is. Propagating kinds along imports would make
# nearly every module of a service `state` and say nothing about where the effects are.
DEFAULT_RULES: Tuple[Rule, ...] = (
    *_rules("state", "database client",
            "sqlalchemy alembic psycopg* asyncpg aiomysql pymysql MySQLdb aiosqlite sqlite3 "
            "pymongo motor peewee tortoise sqlmodel databases django.db cassandra aiopg"),
    *_rules("state", "cache or key-value store client",
            "redis aioredis etcd* aioetcd3 pymemcache aiomcache memcache kazoo dbm shelve"),
    *_rules("io", "HTTP client or server",
            "aiohttp requests httpx urllib.request urllib3 http.client http.server pycurl "
            "aiohttp_cors aiohttp_sse starlette fastapi flask tornado uvicorn"),
    *_rules("io", "network socket or RPC",
            "socket ssl select selectors asyncssh paramiko grpc websockets websocket zmq aiozmq "
            "aiodns dns ftplib smtplib aiosmtplib imaplib xmlrpc.client aiokafka kafka "
            "pika aio_pika"),
    *_rules("io", "cloud or container API",
            "boto3 botocore aiobotocore docker aiodocker kubernetes kubernetes_asyncio"),
    *_rules("io", "subprocess", "subprocess pty"),
    *_rules("io", "file system",
            "shutil tempfile aiofiles glob fcntl mmap tarfile zipfile "
            "os.open os.remove os.unlink os.rename os.replace os.mkdir os.makedirs os.rmdir "
            "os.removedirs os.scandir os.listdir os.walk os.chmod os.chown os.symlink os.link "
            "os.truncate os.fsync os.sendfile os.system os.popen os.spawnv os.execv"),
    *_rules("concurrent", "async or parallel runtime",
            "asyncio threading _thread multiprocessing concurrent.futures queue trio anyio "
            "curio gevent eventlet uvloop async_timeout aiojobs janus"),
    *_rules("schema", "data contract library",
            "pydantic pydantic_core marshmallow trafaret jsonschema fastjsonschema google.protobuf "
            "msgspec cattrs cattr dataclasses_json graphene strawberry fastavro avro voluptuous "
            "cerberus"),
)

# A Python module with one of these stems is a contract (models, types, schema) whatever it imports.
SCHEMA_STEMS = frozenset({"models", "model", "schema", "schemas", "types", "typing_ext", "contract",
                          "contracts", "dto", "dtos", "messages", "protocol", "spec"})
# Asset files (resources, files) that declare a contract.
SCHEMA_ASSET_SUFFIXES = (".proto", ".avsc", ".avdl", ".graphql", ".gql", ".thrift", ".xsd", ".fbs",
                         ".schema.json", ".openapi.json", ".openapi.yaml")


@dataclass(frozen=True)
class TargetFacts:
    """What the suggestion looks at. `imports`: absolute dotted names, for `from a import b`
    both `a` and `a.b` (as `imports_of_source` gives them); `path` from the build root."""

    address: str
    path: str
    imports: FrozenSet[str] = frozenset()
    test_util: bool = False

    @property
    def file_name(self) -> str:
        return posixpath.basename(self.path)


@dataclass(frozen=True)
class Suggestion:
    address: str
    path: str
    kind: str
    reason: str


def _file_evidence(name: str) -> Optional[str]:
    lower = name.lower()
    if lower.endswith(".py"):
        stem = lower[:-3]
        if stem.endswith("_pb2") or stem.endswith("_pb2_grpc"):
            return f"generated protobuf module {name}"
        if stem in SCHEMA_STEMS:
            return f"contract module named {name}"
        return None
    for suffix in SCHEMA_ASSET_SUFFIXES:
        if lower.endswith(suffix):
            return f"schema asset {name}"
    if lower.endswith(".json") and "schema" in lower:
        return f"schema asset {name}"
    return None


def suggest(facts: TargetFacts, rules: Sequence[Rule] = DEFAULT_RULES) -> Suggestion:
    """The kind of highest precedence among the evidence, and a reason naming it."""
    evidence: Dict[str, List[str]] = {}
    matched: List[Tuple[str, Rule]] = []
    for name in sorted(facts.imports):  # a parent sorts before its children
        rule = next((r for r in rules if r.matches(name)), None)
        if rule is None:
            continue
        # `from a import b` gives `a` and `a.b`: one piece of evidence when one rule matches both.
        if not any(r == rule and name.startswith(m + ".") for m, r in matched):
            evidence.setdefault(rule.kind, []).append(f"imports {name} ({rule.what})")
        matched.append((name, rule))
    by_name = _file_evidence(facts.file_name)
    if by_name is not None:
        evidence.setdefault("schema", []).insert(0, by_name)
    if not evidence:
        kind = "pure"
        reason = "no state, I/O, concurrency or contract evidence"
        if facts.path.endswith(".py"):
            reason += f" in {len(facts.imports)} imports"
    else:
        kind = max(evidence, key=RANK.__getitem__)
        found = evidence[kind]
        reason = found[0]
        others = len(found) - 1 + sum(len(v) for k, v in evidence.items() if k != kind)
        if others:
            reason += f" (+{others} more evidence)"
    if facts.test_util:
        reason += "; test utility"
    return Suggestion(facts.address, facts.path, kind, reason)


def suggest_all(targets: Iterable[TargetFacts], rules: Sequence[Rule] = DEFAULT_RULES) -> List[Suggestion]:
    """Suggestions sorted by address (input order does not matter)."""
    return sorted((suggest(t, rules) for t in targets), key=lambda s: (s.address, s.path))


# -- import extraction ----------------------------------------------------------------------------
def imports_of_source(source: str, module: Optional[str] = None, is_package: bool = False) -> FrozenSet[str]:
    """Absolute dotted names a Python source imports: `import a.b` gives `a.b`; `from a import b`
    gives `a` and `a.b`; relative imports are resolved against `module` (the source's dotted name;
    `is_package` for an `__init__.py`) and dropped when it is unknown. A use `m.attr` of a name
    bound by `import m` adds `m.attr`, so `os.makedirs(...)` is evidence of file I/O.

    Syntax this Python cannot parse (a `match` statement read by Python 3.9) falls back to a token
    scan of the import statements. Raises ValueError (one line) only when not even that works."""
    imports, attributes = _import_nodes(source)
    names = set()
    aliases: Dict[str, str] = {}
    package = (module if is_package else module.rpartition(".")[0]) if module else None
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.name)
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    aliases[top] = top
        else:
            if node.level:
                if package is None:
                    continue
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue
                base_parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not base:
                continue
            names.add(base)
            for alias in node.names:
                if alias.name != "*":
                    names.add(f"{base}.{alias.name}")
    for name, attr in attributes:
        if name in aliases:
            names.add(f"{aliases[name]}.{attr}")
    return frozenset(names)


_ImportNode = Union[ast.Import, ast.ImportFrom]


def _import_nodes(source: str) -> Tuple[List[_ImportNode], List[Tuple[str, str]]]:
    """The import statements and the `name.attr` uses of a source."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _scan_tokens(source)
    nodes = list(ast.walk(tree))
    imports = [n for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))]
    attributes = [(n.value.id, n.attr) for n in nodes
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)]
    return imports, attributes


def _scan_tokens(source: str) -> Tuple[List[_ImportNode], List[Tuple[str, str]]]:
    """The same facts from tokens: each logical line that starts with `import` or `from` is parsed
    on its own (an import statement is valid in every Python 3)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError) as e:
        detail = e.args[0] if e.args else type(e).__name__
        raise ValueError(f"cannot read Python source: {detail}") from None
    imports: List[_ImportNode] = []
    attributes: List[Tuple[str, str]] = []
    line: List[tokenize.TokenInfo] = []
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    for tok in tokens:
        if tok.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if tok.type not in skip:
                line.append(tok)
            continue
        if line and line[0].string in ("import", "from"):
            try:
                statement = ast.parse(" ".join(t.string for t in line)).body
            except SyntaxError:
                statement = []
            imports.extend(n for n in statement if isinstance(n, (ast.Import, ast.ImportFrom)))
        else:
            # `name.attr` where `name` is not itself an attribute (as ast.Attribute of ast.Name).
            for i in range(len(line) - 2):
                a, dot, b = line[i], line[i + 1], line[i + 2]
                if (a.type == tokenize.NAME and dot.string == "." and b.type == tokenize.NAME
                        and (i == 0 or line[i - 1].string != ".")):
                    attributes.append((a.string, b.string))
        line = []
    return imports, attributes


def kind_counts(suggestions: Iterable[Suggestion]) -> Dict[str, int]:
    """How many suggestions of each kind, every kind present (zero included), in PRECEDENCE order."""
    c = Counter(s.kind for s in suggestions)
    return {k: c.get(k, 0) for k in PRECEDENCE}


# -- the region table -------------------------------------------------------------------------------
# Adoption writes regions into `[oracle-gate].regions` (a JSON file the option reads with `@`), not
# into BUILD files: BUILD `overrides` for a file break Pants once a commit deletes or renames that
# file, and edits inside upstream's BUILD calls conflict with upstream's next edits. Keys are a
# file path (`src/app/db.py`) or a directory tree (`src/app/**`; `**` is the whole repository); the
# most specific key wins: the file, else the nearest directory. It applies to code targets that
# have no `oracle_region` of their own (a field, `overrides` or `__defaults__` in BUILD wins).
TREE = "**"


def table_key_error(key: str, kind: object) -> Optional[str]:
    """Why `key: kind` is not a valid table entry (None when it is)."""
    if kind not in RANK:
        return f"{key!r}: unknown region kind {kind!r} (one of {', '.join(PRECEDENCE)})"
    path = key[:-len("/" + TREE)] if key.endswith("/" + TREE) else ("" if key == TREE else key)
    parts = path.split("/")
    if key != TREE and (not path or "" in parts or ".." in parts or "." in parts or any(c in path for c in "*?[]")):
        return f"{key!r}: a key is a file path from the build root or a directory tree `dir/**` (`**` for all)"
    return None


def table_region(table: Mapping[str, str], path: str) -> Optional[str]:
    """The kind the table gives `path`: its own entry, else the nearest enclosing `dir/**`."""
    if path in table:
        return table[path]
    d = posixpath.dirname(path)
    while True:
        key = f"{d}/{TREE}" if d else TREE
        if key in table:
            return table[key]
        if not d:
            return None
        d = posixpath.dirname(d)


def _depth(directory: str) -> int:
    return 0 if directory == "" else directory.count("/") + 1


def table_from_suggestions(kinds: Mapping[str, str], existing: Mapping[str, str] = {}) -> Dict[str, str]:  # noqa: B006
    """The smallest table under which every path of `kinds` gets its kind, added to `existing`,
    whose entries are kept (they were reviewed) and win where they already decide a path.

    Exact: a dynamic programme over the directory tree choosing per directory "no entry" or one
    `dir/**` kind, with a file entry for each file its tree gets wrong. Fewest entries first, then
    entries higher up (a tree entry beats a file entry at a tie, so new files get the majority's
    kind); ties go to the first kind in PRECEDENCE."""
    for path, kind in kinds.items():
        if kind not in RANK:
            raise ValueError(f"{path}: unknown region kind {kind!r}")
    todo = {p: k for p, k in kinds.items() if table_region(existing, p) is None}
    files: Dict[str, List[str]] = {}
    children: Dict[str, Set[str]] = {"": set()}
    for path in todo:
        d = posixpath.dirname(path)
        files.setdefault(d, []).append(path)
        while d:
            parent = posixpath.dirname(d)
            children.setdefault(parent, set()).add(d)
            children.setdefault(d, set())
            d = parent
    memo: Dict[Tuple[str, Optional[str]], Tuple[Tuple[int, int], Optional[str]]] = {}

    def solve(d: str, inherited: Optional[str]) -> Tuple[Tuple[int, int], Optional[str]]:
        if (d, inherited) not in memo:
            best: Optional[Tuple[Tuple[int, int], Optional[str]]] = None
            for choice in (None, *PRECEDENCE):
                effective = choice if choice is not None else inherited
                wrong = [p for p in files.get(d, ()) if todo[p] != effective]
                entries = int(choice is not None) + len(wrong)
                depth = (_depth(d) if choice is not None else 0) + len(wrong) * (_depth(d) + 1)
                for c in children[d]:
                    (e, dd), _ = solve(c, effective)
                    entries, depth = entries + e, depth + dd
                if best is None or (entries, depth) < best[0]:
                    best = ((entries, depth), choice)
            memo[(d, inherited)] = best  # type: ignore[assignment]
        return memo[(d, inherited)]

    table = dict(existing)

    def walk(d: str, inherited: Optional[str]) -> None:
        _, choice = solve(d, inherited)
        effective = choice if choice is not None else inherited
        if choice is not None:
            table[f"{d}/{TREE}" if d else TREE] = choice
        table.update({p: todo[p] for p in files.get(d, ()) if todo[p] != effective})
        for c in sorted(children[d]):
            walk(c, effective)

    walk("", None)
    return table
