"""Region suggestions: a kind for each production target from what it imports and what it is, and
the shortest BUILD edit that gives every target its suggested kind.

Pure and stdlib only. Two halves:

1. `suggest(facts)` classifies one target from its facts (the absolute dotted names it imports,
   its file name, whether it is a test utility) into `pure | state | io | concurrent | schema`
   with a one-line reason naming the evidence. `imports_of_source` extracts those names from a
   Python source (`ast`, or a token scan for syntax newer than the running Python; relative
   imports resolved, `os.makedirs`-style uses recorded).
2. `build_edits(generators, existing)` turns per-file kinds, grouped by the target generator that
   owns them, into edits: `__defaults__` at the directories where one kind covers most targets,
   a generator's own `oracle_region=` where that is shorter, `overrides` for the exceptions. The
   edits are data (`Edit`: which BUILD file, which target, which file, old and new value);
   `render_edits` prints them; `apply_edits` and `effective_kinds` evaluate them the way Pants
   resolves the field, so a caller (and the properties) can check the round trip.

A suggestion is advice. Regions only take effect when a BUILD edit sets them, and the gate treats
any BUILD edit touching `oracle_region` as an oracle-lane (human-reviewed) change, so a patch
cannot lower its own floor by adding an import.
"""
from __future__ import annotations

import ast
import io
import posixpath
import tokenize
from collections import Counter
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .classes import REGION_KINDS

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


# Only direct evidence counts: a module importing a first-party wrapper (`myapp.db`) is not
# `state` because the wrapper is; the wrapper is. Propagating kinds along imports would make
# nearly every module of a service `state` and say nothing about where the effects are.
DEFAULT_RULES: Tuple[Rule, ...] = (
    *_rules("state", "database client",
            "sqlalchemy alembic psycopg* asyncpg aiomysql pymysql MySQLdb aiosqlite sqlite3 "
            "pymongo motor peewee tortoise sqlmodel databases django.db cassandra aiopg"),
    *_rules("state", "cache or key-value store client",
            "redis aioredis etcd* aioetcd3 etcetra pymemcache aiomcache memcache kazoo dbm shelve"),
    *_rules("io", "HTTP client or server",
            "aiohttp requests httpx urllib.request urllib3 http.client http.server pycurl "
            "aiohttp_cors aiohttp_sse starlette fastapi flask tornado uvicorn"),
    *_rules("io", "network socket or RPC",
            "socket ssl select selectors asyncssh paramiko grpc websockets websocket zmq aiozmq "
            "callosum aiodns dns ftplib smtplib aiosmtplib imaplib xmlrpc.client aiokafka kafka "
            "pika aio_pika"),
    *_rules("io", "cloud or container API",
            "boto3 botocore aiobotocore docker aiodocker kubernetes kubernetes_asyncio"),
    *_rules("io", "subprocess", "subprocess pty"),
    *_rules("io", "file system",
            "shutil tempfile aiofiles glob fcntl mmap tarfile zipfile janus_fs "
            "os.open os.remove os.unlink os.rename os.replace os.mkdir os.makedirs os.rmdir "
            "os.removedirs os.scandir os.listdir os.walk os.chmod os.chown os.symlink os.link "
            "os.truncate os.fsync os.sendfile os.system os.popen os.spawnv os.execv"),
    *_rules("concurrent", "async or parallel runtime",
            "asyncio threading _thread multiprocessing concurrent.futures queue trio anyio "
            "curio gevent eventlet uvloop aiotools async_timeout aiojobs janus"),
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


# -- BUILD edits ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Generator:
    """A target generator (or a single-file target) and the kind suggested for each of its files.

    `files`: (file name relative to `directory`, kind) pairs. What the target type accepts:
    `field_on_generator`: `oracle_region=` on the generator itself (false for `python_test_utils`,
    whose generated targets carry the field but the generator does not); `reached_by_defaults`:
    `__defaults__(all=...)` reaches its targets (it only reaches target types that have the field);
    `accepts_overrides`: it has an `overrides` field (false for single-file targets)."""

    directory: str
    name: str
    alias: str
    files: Tuple[Tuple[str, str], ...]
    field_on_generator: bool = True
    reached_by_defaults: bool = True
    accepts_overrides: bool = True

    @property
    def address(self) -> str:
        return f"{self.directory}:{self.name}"

    @property
    def build_file(self) -> str:
        return _build_file(self.directory)


def generator_for(directory: str, name: str, alias: str, kinds: Mapping[str, str]) -> Generator:
    """A Generator with the capabilities Pants 2.17 gives `alias` under this plugin."""
    test_util = alias == "python_test_utils"
    single = alias in ("python_source", "resource", "file")
    return Generator(directory, name, alias, tuple(sorted(kinds.items())),
                     field_on_generator=not test_util, reached_by_defaults=not test_util,
                     accepts_overrides=not single)


@dataclass(frozen=True)
class RegionConfig:
    """Every `oracle_region` setting: `defaults` per directory (`__defaults__(all=...)`),
    `fields` per generator address, `overrides` per (generator address, file)."""

    defaults: Tuple[Tuple[str, str], ...] = ()
    fields: Tuple[Tuple[str, str], ...] = ()
    overrides: Tuple[Tuple[Tuple[str, str], str], ...] = ()

    @staticmethod
    def of(defaults: Optional[Mapping[str, str]] = None, fields: Optional[Mapping[str, str]] = None,
           overrides: Optional[Mapping[Tuple[str, str], str]] = None) -> "RegionConfig":
        return RegionConfig(tuple(sorted((defaults or {}).items())), tuple(sorted((fields or {}).items())),
                            tuple(sorted((overrides or {}).items())))


@dataclass(frozen=True)
class Edit:
    """One change to one `oracle_region` setting. `statement`: `defaults` (the directory's
    `__defaults__(all=...)`), `field` (the generator's own field) or `override` (one file's entry
    in the generator's `overrides`). `new` None removes the setting."""

    directory: str  # of the BUILD file ("" is the build root)
    statement: str
    target: str  # "__defaults__" or the generator's address
    alias: str  # "__defaults__" or the generator's target type
    file: Optional[str]
    old: Optional[str]
    new: Optional[str]

    @property
    def build_file(self) -> str:
        return _build_file(self.directory)


def _build_file(directory: str) -> str:
    return posixpath.join(directory, "BUILD") if directory else "BUILD"


def _parent(directory: str) -> Optional[str]:
    if directory == "":
        return None
    return posixpath.dirname(directory)


def _depth(directory: str) -> int:
    return 0 if directory == "" else directory.count("/") + 1


def _check(generators: Sequence[Generator]) -> None:
    seen = set()
    for g in generators:
        if g.address in seen:
            raise ValueError(f"generator {g.address} given twice")
        seen.add(g.address)
        for f, kind in g.files:
            if kind not in RANK:
                raise ValueError(f"{g.address} {f}: unknown region kind {kind!r}")
        if not g.accepts_overrides and len(g.files) != 1:
            raise ValueError(f"{g.address}: a target without overrides must own exactly one file")
        if not g.accepts_overrides and not g.field_on_generator:
            raise ValueError(f"{g.address}: {g.alias} accepts neither oracle_region nor overrides")


# Compared in order: changed settings, settings in the result, `__defaults__` in the result (a
# generator's own field reaches only its files, so it wins a tie), the sum of their depths (higher
# directories win a tie).
_Cost = Tuple[int, int, int, int]
_CHOICES: Tuple[Optional[str], ...] = (None, *PRECEDENCE)


def _add(a: _Cost, b: _Cost) -> _Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def _setting_cost(old: Optional[str], new: Optional[str], depth: int, defaults: bool = False) -> _Cost:
    present = new is not None
    return (int(old != new), int(present), int(present and defaults), depth if present else 0)


def _generator_plan(g: Generator, inherited: Optional[str], cfg_fields: Mapping[str, str],
                    cfg_overrides: Mapping[Tuple[str, str], str]) -> Tuple[_Cost, Optional[str], Dict[str, str]]:
    """Best (cost, generator field, overrides) for `g` under an inherited default."""
    depth = _depth(g.directory)
    if not g.reached_by_defaults:
        inherited = None
    best: Optional[Tuple[_Cost, Optional[str], Dict[str, str]]] = None
    for own in _CHOICES:
        if own is not None and not g.field_on_generator:
            continue
        effective = own if own is not None else inherited
        cost = _setting_cost(cfg_fields.get(g.address), own, depth + 1)
        overrides: Dict[str, str] = {}
        feasible = True
        for f, kind in g.files:
            old = cfg_overrides.get((g.address, f))
            # An override is needed where the kind differs; a right one that exists is kept.
            want = kind if (kind != effective or old == kind) else None
            if want is not None and not g.accepts_overrides:
                feasible = False
                break
            if want is not None:
                overrides[f] = want
            cost = _add(cost, _setting_cost(old, want, depth + 2))
        if feasible and (best is None or cost < best[0]):
            best = (cost, own, overrides)
    if best is None:
        raise ValueError(f"{g.address}: no setting can give its files their kinds")
    return best


def plan(generators: Sequence[Generator], existing: RegionConfig = RegionConfig()) -> RegionConfig:
    """The region configuration closest to `existing` (fewest changed settings, then fewest
    settings, then settings in higher directories) under which every file of `generators` gets
    its suggested kind. Exact: a dynamic programme over the directory tree, choosing per
    directory "inherit" or one `__defaults__` kind. Ties go to the first kind in PRECEDENCE."""
    _check(generators)
    old_defaults = dict(existing.defaults)
    old_fields = dict(existing.fields)
    old_overrides = dict(existing.overrides)
    by_dir: Dict[str, List[Generator]] = {}
    dirs = {""}
    for g in sorted(generators, key=lambda g: g.address):
        by_dir.setdefault(g.directory, []).append(g)
        d: Optional[str] = g.directory
        while d is not None:
            dirs.add(d)
            d = _parent(d)
    # Existing defaults elsewhere are kept: they reach none of the given generators' files.
    children: Dict[str, List[str]] = {d: [] for d in dirs}
    for d in sorted(dirs):
        p = _parent(d)
        if p is not None:
            children[p].append(d)

    memo: Dict[Tuple[str, Optional[str]], Tuple[_Cost, Optional[str]]] = {}
    gen_memo: Dict[Tuple[str, Optional[str]], Tuple[_Cost, Optional[str], Dict[str, str]]] = {}

    def gen_plan(g: Generator, inherited: Optional[str]) -> Tuple[_Cost, Optional[str], Dict[str, str]]:
        key = (g.address, inherited)
        if key not in gen_memo:
            gen_memo[key] = _generator_plan(g, inherited, old_fields, old_overrides)
        return gen_memo[key]

    def solve(d: str, inherited: Optional[str]) -> Tuple[_Cost, Optional[str]]:
        key = (d, inherited)
        if key in memo:
            return memo[key]
        best: Optional[Tuple[_Cost, Optional[str]]] = None
        for choice in _CHOICES:
            # None: no `__defaults__` here, the parent's (if any) applies.
            effective = choice if choice is not None else inherited
            cost = _setting_cost(old_defaults.get(d), choice, _depth(d), defaults=True)
            for g in by_dir.get(d, ()):
                cost = _add(cost, gen_plan(g, effective)[0])
            for c in children[d]:
                cost = _add(cost, solve(c, effective)[0])
            if best is None or cost < best[0]:
                best = (cost, choice)
        assert best is not None
        memo[key] = best
        return best

    # Settings this plan does not decide are kept as they are.
    given = {g.address for g in generators}
    owned = {(g.address, f) for g in generators for f, _ in g.files}
    defaults: Dict[str, str] = {d: k for d, k in old_defaults.items() if d not in dirs}
    fields: Dict[str, str] = {a: k for a, k in old_fields.items() if a not in given}
    overrides: Dict[Tuple[str, str], str] = {key: k for key, k in old_overrides.items() if key not in owned}

    def walk(d: str, inherited: Optional[str]) -> None:
        _, choice = solve(d, inherited)
        effective = choice if choice is not None else inherited
        if choice is not None:
            defaults[d] = choice
        for g in by_dir.get(d, ()):
            _, own, ovr = gen_plan(g, effective)
            if own is not None:
                fields[g.address] = own
            for f, kind in ovr.items():
                overrides[(g.address, f)] = kind
        for c in children[d]:
            walk(c, effective)

    walk("", None)
    return RegionConfig.of(defaults, fields, overrides)


def diff_configs(generators: Sequence[Generator], old: RegionConfig, new: RegionConfig) -> List[Edit]:
    """The edits that turn `old` into `new`, sorted by BUILD file, then target and file."""
    gens = {g.address: g for g in generators}
    edits: List[Edit] = []
    od, nd = dict(old.defaults), dict(new.defaults)
    for d in sorted(set(od) | set(nd)):
        if od.get(d) != nd.get(d):
            edits.append(Edit(d, "defaults", "__defaults__", "__defaults__", None, od.get(d), nd.get(d)))
    of, nf = dict(old.fields), dict(new.fields)
    for a in sorted(set(of) | set(nf)):
        if of.get(a) != nf.get(a):
            g = gens.get(a)
            edits.append(Edit(_directory_of(a), "field", a, g.alias if g else "?", None, of.get(a), nf.get(a)))
    oo, no = dict(old.overrides), dict(new.overrides)
    for key in sorted(set(oo) | set(no)):
        if oo.get(key) != no.get(key):
            g = gens.get(key[0])
            edits.append(Edit(_directory_of(key[0]), "override", key[0], g.alias if g else "?", key[1],
                              oo.get(key), no.get(key)))
    order = {"defaults": 0, "field": 1, "override": 2}
    return sorted(edits, key=lambda e: (e.build_file, order[e.statement], e.target, e.file or ""))


def _directory_of(address: str) -> str:
    return address.split(":", 1)[0]


def build_edits(generators: Sequence[Generator], existing: RegionConfig = RegionConfig()) -> List[Edit]:
    """The shortest edit of `existing` that gives every file of `generators` its suggested kind.

    `generators` must list every target that carries `oracle_region` below the directories it
    touches: a `__defaults__` also reaches targets not given here."""
    return diff_configs(generators, existing, plan(generators, existing))


def apply_edits(config: RegionConfig, edits: Iterable[Edit]) -> RegionConfig:
    """`config` with `edits` applied (each edit's `old` must match: ValueError otherwise)."""
    defaults, fields, overrides = dict(config.defaults), dict(config.fields), dict(config.overrides)
    for e in edits:
        table: Dict = {"defaults": defaults, "field": fields, "override": overrides}[e.statement]
        key = {"defaults": e.directory, "field": e.target, "override": (e.target, e.file)}[e.statement]
        if table.get(key) != e.old:
            raise ValueError(f"edit of {e.build_file} {e.target} {e.file or ''} expects {e.old!r}, found {table.get(key)!r}")
        if e.new is None:
            table.pop(key, None)
        else:
            table[key] = e.new
    return RegionConfig.of(defaults, fields, overrides)


def effective_kinds(config: RegionConfig, generators: Sequence[Generator]) -> Dict[Tuple[str, str], Optional[str]]:
    """Each file's `oracle_region` as Pants resolves it: its `overrides` entry, else the
    generator's field, else the nearest `__defaults__` at or above its directory (when defaults
    reach the target type), else None."""
    defaults, fields, overrides = dict(config.defaults), dict(config.fields), dict(config.overrides)
    out: Dict[Tuple[str, str], Optional[str]] = {}
    for g in generators:
        inherited: Optional[str] = None
        if g.reached_by_defaults:
            d: Optional[str] = g.directory
            while d is not None:
                if d in defaults:
                    inherited = defaults[d]
                    break
                d = _parent(d)
        own = fields.get(g.address) if g.field_on_generator else None
        for f, _ in g.files:
            ovr = overrides.get((g.address, f)) if g.accepts_overrides else None
            out[(g.address, f)] = ovr if ovr is not None else own if own is not None else inherited
    return out


def render_edits(edits: Sequence[Edit]) -> Dict[str, str]:
    """Per BUILD file, the edit as BUILD text: the `__defaults__` call to add, each generator's
    `oracle_region=` and `overrides` entries (files of one kind share a tuple key), and `# remove`
    comments for settings to delete. Deterministic.

    Where to put it: Pants applies `__defaults__` to the targets declared after the call, so it
    goes at the top of its BUILD file (a new BUILD file where none exists); `extend=True` keeps
    the other defaults the directory inherits (without it, `all=` drops them)."""
    out: Dict[str, List[str]] = {}
    for build_file in sorted({e.build_file for e in edits}):
        lines: List[str] = []
        mine = [e for e in edits if e.build_file == build_file]
        for e in mine:
            if e.statement != "defaults":
                continue
            if e.new is None:
                lines.append(f'# remove oracle_region from __defaults__ (was "{e.old}")')
            else:
                lines.append(f'__defaults__(all=dict(oracle_region="{e.new}"), extend=True)')
        for target in sorted({e.target for e in mine if e.statement != "defaults"}):
            tedits = [e for e in mine if e.target == target and e.statement != "defaults"]
            alias = tedits[0].alias
            name = target.split(":", 1)[1]
            args: List[str] = []
            removals: List[str] = []
            for e in tedits:
                if e.statement == "field":
                    if e.new is None:
                        removals.append(f'oracle_region (was "{e.old}")')
                    else:
                        args.append(f'oracle_region="{e.new}"')
            groups: Dict[str, List[str]] = {}
            for e in tedits:
                if e.statement == "override":
                    if e.new is None:
                        removals.append(f'overrides["{e.file}"].oracle_region (was "{e.old}")')
                    else:
                        groups.setdefault(e.new, []).append(e.file or "")
            if groups:
                entries = []
                for kind in sorted(groups, key=RANK.__getitem__):
                    files = sorted(groups[kind])
                    key = f'"{files[0]}"' if len(files) == 1 else "(" + ", ".join(f'"{f}"' for f in files) + ")"
                    entries.append(f'{key}: {{"oracle_region": "{kind}"}}')
                args.append("overrides={" + ", ".join(entries) + "}")
            if args:
                lines.append(f'{alias}(name="{name}", {", ".join(args)})')
            for r in removals:
                lines.append(f'# {alias}(name="{name}"): remove {r}')
        out[build_file] = "\n".join(lines) + "\n"
    return out


def kind_counts(suggestions: Iterable[Suggestion]) -> Dict[str, int]:
    """How many suggestions of each kind, every kind present (zero included), in PRECEDENCE order."""
    c = Counter(s.kind for s in suggestions)
    return {k: c.get(k, 0) for k in PRECEDENCE}
