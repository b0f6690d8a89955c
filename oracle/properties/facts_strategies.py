"""Hypothesis strategies shared by the core's properties (not a test file itself).

- `trees()`: a small repository as plain data (`Tree`): production files with regions, tests of
  class P (properties), L (a plain test reaching a locked fixture through the dependents graph)
  and E, drafts, test plumbing, fixtures, a ledger, options, and the edges between them. A tree
  turns into `Facts` the way the Pants rules build them (generators, evaluated field digests,
  locked digests and ledger texts), so a head is derived from a base by editing the tree and the
  effect of every edit is known.
- `gate_inputs()`: a `GateInput` for `verdict.evaluate` (a comparison, recorded runs, changed
  symbols, ledgers, mutants), small enough to be judged by hand.
"""
from __future__ import annotations

import copy
import datetime
import hashlib
import posixpath
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from hypothesis import strategies as st

from oracle_gate.core.classes import RegionKind
from oracle_gate.core.judge.verdict import Case, ChangedSymbolEvidence, GateInput, MutantResult, OracleRun
from oracle_gate.core.ladder.ledger import FreezeEntry, Ledger
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.compare import Comparison, Finding, RegionPlan
from oracle_gate.core.lanes.facts import Facts, TargetFact, make_facts

KINDS = tuple(k.value for k in RegionKind)
FLOOR_RANK = {None: -1, **{k.value: k.floor.rank for k in RegionKind}}
LEDGER_PATH = "oracle/freeze-ledger.json"
EMPTY_LEDGER = '{"version": 1, "entries": []}'
TODAY = datetime.date(2026, 11, 30)


def digest(value: Any) -> str:
    """An evaluated field's digest, as the rules compute it (repr of the value)."""
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def _generator(path: str) -> str:
    d = posixpath.dirname(path)
    return f"{d}:{posixpath.basename(d)}"


@dataclass
class Tree:
    """A repository as data. Keys are addresses; file targets' addresses are their paths except
    fixtures (`oracle/fixtures:fN`) and plumbing (`tests/conftest.py:test_utils`)."""

    production: Dict[str, Optional[str]]  # path -> oracle_region
    tests: Dict[str, str]  # path -> role: F.TEST, F.PROPERTY or F.DRAFT
    fixtures: Dict[str, str]  # address -> sha256 (path: oracle/fixtures/<name>.json)
    utils: Dict[str, str]  # address -> path
    edges: Set[Tuple[str, str]]  # (dependency, user)
    skip: Set[str] = field(default_factory=set)
    options: Dict[str, Any] = field(default_factory=dict)
    ledger: bool = True
    requirements: Dict[str, str] = field(default_factory=dict)  # address (`3rdparty:<name>`) -> pinned version

    def copy(self) -> "Tree":
        return copy.deepcopy(self)

    # -- views ----------------------------------------------------------------------------------
    @staticmethod
    def fixture_path(address: str) -> str:
        return f"oracle/fixtures/{address.split(':', 1)[1]}.json"

    def addresses(self) -> Set[str]:
        return set(self.production) | set(self.tests) | set(self.fixtures) | set(self.utils) | set(self.requirements)

    def users(self, address: str) -> Set[str]:
        return {u for d, u in self.edges if d == address}

    def reach(self, roots: Iterable[str]) -> Set[str]:
        """Transitive dependents of `roots` (the roots excluded unless reached again)."""
        seen: Set[str] = set()
        todo = list(roots)
        while todo:
            for u in self.users(todo.pop()):
                if u not in seen:
                    seen.add(u)
                    todo.append(u)
        return seen - set(roots)

    def locked(self) -> Set[str]:
        """Tests that reach a locked fixture (class L when they are plain tests)."""
        return {t for t in self.reach(self.fixtures) if t in self.tests}

    def oracle_class(self, path: str) -> Optional[str]:
        role = self.tests.get(path)
        if role == F.PROPERTY:
            return "P"
        if role == F.DRAFT:
            return "D"
        if role == F.TEST:
            return "L" if path in self.locked() else "E"
        return None

    def judges(self) -> Set[str]:
        """Class P and L tests: the oracles."""
        return {t for t in self.tests if self.oracle_class(t) in ("P", "L")}

    def covering(self, production: str) -> Set[str]:
        return {t for t in self.reach([production]) if t in self.tests}

    # -- edits ------------------------------------------------------------------------------------
    def remove(self, address: str) -> None:
        """The target is gone (its file deleted or owned by nothing): so are its edges."""
        for table in (self.production, self.tests, self.fixtures, self.utils):
            table.pop(address, None)
        self.edges = {(d, u) for d, u in self.edges if address not in (d, u)}
        self.skip.discard(address)

    # -- facts -------------------------------------------------------------------------------------
    def facts(self, commit: Optional[str] = None) -> Facts:
        targets: List[TargetFact] = []
        dependents: Dict[str, Set[str]] = {}
        for d, u in self.edges:
            dependents.setdefault(d, set()).add(u)
        generators: Dict[str, str] = {}
        for path, region in self.production.items():
            targets.append(TargetFact(path, "python_source", F.PRODUCTION, (path,), region=region,
                                      fields=(("oracle_region", digest(region)), ("source", digest(path)))))
            generators[_generator(path)] = "python_sources"
        aliases = {F.TEST: ("python_test", "python_tests"), F.PROPERTY: ("oracle_property", "oracle_properties"),
                   F.DRAFT: ("oracle_draft", "oracle_drafts")}
        for path, role in self.tests.items():
            alias, gen_alias = aliases[role]
            skip = path in self.skip
            fields = [("skip_tests", digest(skip)), ("source", digest(path))]
            if role == F.PROPERTY:
                fields.append(("min_examples", digest(200)))
            targets.append(TargetFact(path, alias, role, (path,), skip=skip, fields=tuple(sorted(fields)),
                                      min_examples=200 if role == F.PROPERTY else None))
            generators[_generator(path)] = gen_alias
        for gen, alias in generators.items():
            targets.append(TargetFact(gen, alias, F.GENERATOR, fields=(("sources", digest(alias)),)))
        for path in list(self.production) + list(self.tests):
            dependents.setdefault(path, set()).add(_generator(path))  # a generator depends on what it generates
        texts: Dict[str, str] = {}
        for address, sha in self.fixtures.items():
            path = self.fixture_path(address)
            targets.append(TargetFact(address, "locked_fixture", F.LOCKED_FIXTURE, (path,), sha256=sha,
                                      fields=(("sha256", digest(sha)), ("source", digest(path)))))
            texts[f"sha256:{path}"] = sha
        for address, path in self.utils.items():
            targets.append(TargetFact(address, "python_source", F.TEST_UTIL, (path,), fields=(("source", digest(path)),)))
        for address, version in self.requirements.items():
            name = address.split(":", 1)[1]
            targets.append(TargetFact(address, "python_requirement", F.DEPENDENCY, requirements=(name,),
                                      fields=(("requirements", digest(f"{name}=={version}")),)))
        if self.ledger:
            targets.append(TargetFact("oracle:ledger", "freeze_ledger", F.FREEZE_LEDGER, (LEDGER_PATH,), governs=("",),
                                      fields=(("governs", digest(("",))), ("source", digest(LEDGER_PATH)))))
            texts[LEDGER_PATH] = EMPTY_LEDGER
        return make_facts(targets, {k: sorted(v) for k, v in dependents.items()}, self.options, texts, commit=commit)


# -- generated trees ----------------------------------------------------------------------------------

region_kinds = st.sampled_from(KINDS + (None,))
option_values = st.one_of(st.booleans(), st.integers(-3, 3), st.text("abc", max_size=3),
                          st.lists(st.text("abc", max_size=3), max_size=2))
JUDGE_OPTIONS = ("oracle-gate.other_globs", "oracle-gate.exclude_tags", "pytest.args", "python-infer.imports",
                 "GLOBAL.pants_ignore", "test.timeout_default", "GLOBAL.build_ignore")


@st.composite
def trees(draw: Any, min_production: int = 1, min_properties: int = 0, min_fixtures: int = 0) -> Tree:
    n_prod = draw(st.integers(min_production, 4))
    production = {f"src/pkg/m{i}.py": draw(region_kinds) for i in range(n_prod)}
    n_props = draw(st.integers(min_properties, 3))
    n_tests = draw(st.integers(0, 4))
    n_drafts = draw(st.integers(0, 1))
    tests: Dict[str, str] = {}
    tests.update({f"oracle/properties/test_{i}_props.py": F.PROPERTY for i in range(n_props)})
    tests.update({f"tests/test_{i}.py": F.TEST for i in range(n_tests)})
    tests.update({f"oracle/drafts/test_{i}_draft.py": F.DRAFT for i in range(n_drafts)})
    fixtures = {f"oracle/fixtures:f{i}": hashlib.sha256(f"fixture {i}".encode()).hexdigest()
                for i in range(draw(st.integers(min_fixtures, 2)))}
    utils = {a: p for a, p in (("tests/conftest.py:test_utils", "tests/conftest.py"),
                               ("tests/helpers.py:test_utils", "tests/helpers.py")) if draw(st.booleans())}
    prods, test_list, fix_list, util_list = sorted(production), sorted(tests), sorted(fixtures), sorted(utils)
    edges: Set[Tuple[str, str]] = set()
    for t in test_list:
        edges |= {(p, t) for p in draw(st.sets(st.sampled_from(prods), max_size=len(prods)))}
        if fix_list and draw(st.booleans()):
            edges.add((draw(st.sampled_from(fix_list)), t))
        if util_list and draw(st.booleans()):
            edges.add((draw(st.sampled_from(util_list)), t))
    for u in util_list:
        edges |= {(p, u) for p in draw(st.sets(st.sampled_from(prods), max_size=2))}
        if fix_list and draw(st.integers(0, 3)) == 0:
            edges.add((draw(st.sampled_from(fix_list)), u))
    if len(prods) > 1:  # production importing production (cycles allowed, as Python allows them)
        pairs = st.tuples(st.sampled_from(prods), st.sampled_from(prods)).filter(lambda x: x[0] != x[1])
        edges |= draw(st.sets(pairs, max_size=3))
    skip = draw(st.sets(st.sampled_from(test_list), max_size=1)) if test_list else set()
    options = draw(st.dictionaries(st.sampled_from(JUDGE_OPTIONS), option_values, max_size=3))
    # Third-party requirements, used by production code or by tests only.
    requirements = {f"3rdparty:r{i}": "1.0" for i in range(draw(st.integers(0, 2)))}
    for r in sorted(requirements):
        edges |= {(r, u) for u in draw(st.sets(st.sampled_from(prods + test_list), max_size=2))}
    return Tree(production, tests, fixtures, utils, edges, skip, options, draw(st.booleans()), requirements)


# -- generated gate inputs ------------------------------------------------------------------------------

SIGNATURES = ("0123456789abcdef", "fedcba9876543210", "00000000000000aa")
EXCEPTIONS = ("AssertionError", "TimeoutError")
ROW_EXCEPTIONS = EXCEPTIONS + ("skip", "xfail")
BAD_OUTCOMES = ("failed", "error", "skipped", "xfailed")
CLASSES = ("P", "P", "L", "E")
SYMBOLS = ("f", "g", "C.m", "<module>")


def rarely(draw: Any, value: Any, default: Any, one_in: int = 8) -> Any:
    """`value` about once in `one_in` draws (shrinking towards `default`)."""
    return value if draw(st.sampled_from(range(one_in))) == one_in - 1 else default


@st.composite
def cases(draw: Any, test_path: str, index: int, noise: int = 3) -> Case:
    outcome = rarely(draw, draw(st.sampled_from(BAD_OUTCOMES)), "passed", noise)
    failed = outcome != "passed"
    return Case(
        nodeid=f"{test_path}::test_{index}",
        outcome=outcome,
        signature=draw(st.sampled_from(SIGNATURES)) if failed else None,
        # the results protocol: a failure's exception type, or the kind of a skip-like outcome
        exception=draw(st.sampled_from(EXCEPTIONS)) if outcome in ("failed", "error") else (
            {"skipped": "skip", "xfailed": "xfail"}.get(outcome)),
        marker="skipif" if outcome == "skipped" else ("xfail" if outcome == "xfailed" else None),
        examples=draw(st.one_of(st.none(), st.integers(100, 300), st.integers(0, 300))),
        exhausted=draw(st.one_of(st.none(), st.booleans())),
    )


@dataclass(frozen=True)
class Oracle:
    address: str
    path: str
    cls: str
    role: str  # voter | demoted | new


@st.composite
def gate_inputs(draw: Any, text: st.SearchStrategy = st.just(""), noise: int = 8) -> GateInput:
    """A comparison with regions and candidate oracles, the runs they left, and the rest of the
    evidence. `text` feeds free text (output tails, details) into reason lines; each kind of bad
    news (a failure, a crash, a static finding, missing infrastructure...) comes about once in
    `noise` draws, so a larger `noise` gives more merges."""
    n_oracles = draw(st.sampled_from((0, 1, 2, 2, 3, 4)))
    oracles = [Oracle(f"tests/t{i}.py", f"tests/t{i}.py", draw(st.sampled_from(CLASSES)),
                      rarely(draw, draw(st.sampled_from(("demoted", "new"))), "voter", noise // 2))
               for i in range(n_oracles)]
    addresses = [o.address for o in oracles]
    regions: List[RegionPlan] = []
    symbols: List[ChangedSymbolEvidence] = []
    for j in range(draw(st.integers(0, 3))):
        path = f"src/m{j}.py"
        kind = rarely(draw, None, draw(st.sampled_from(KINDS)), noise)
        status = draw(st.sampled_from(("changed", "changed", "added", "audited")))
        cands = tuple(sorted(draw(st.sets(st.sampled_from(addresses))))) if addresses else ()
        cands = rarely(draw, cands, tuple(addresses), 3)
        required = RegionKind(kind).floor.value if kind else None
        regions.append(RegionPlan(path, path, status, kind, kind, required, cands, ()))
        for q in sorted(draw(st.sets(st.sampled_from(SYMBOLS), max_size=2))):
            symbols.append(ChangedSymbolEvidence(path, q, "module" if q == "<module>" else "function", "changed", q))
    region_paths = [r.path for r in regions]
    runs: List[OracleRun] = []
    for o in oracles:
        if rarely(draw, True, False, noise // 2 + 1):
            continue  # not run
        n_cases = draw(st.sampled_from((0, 1, 1, 2, 3)))
        run_cases = tuple(draw(cases(o.path, i, noise // 2)) for i in range(n_cases))
        executed = set()
        if region_paths:
            executed = draw(st.sets(st.tuples(st.sampled_from(region_paths), st.sampled_from(SYMBOLS)), max_size=6))
        failed = any(c.outcome in ("failed", "error") for c in run_cases)
        runs.append(OracleRun(
            address=o.address, path=o.path,
            exit_code=rarely(draw, draw(st.sampled_from((0, 1, 2, None))), 1 if failed else 0, noise),
            complete=rarely(draw, False, True, noise),
            cases=run_cases,
            executed=frozenset(executed),
            output_tail=draw(text),
            infra_error=rarely(draw, "resolve failed", "", noise * 2),
        ))
    ledger_rows = []
    for sig in rarely(draw, draw(st.sets(st.sampled_from(SIGNATURES), max_size=2)), (), 4):
        added = TODAY - datetime.timedelta(days=draw(st.integers(0, 20)))
        ledger_rows.append(FreezeEntry(sig, f"test_{draw(st.integers(0, 2))}", draw(st.sampled_from(ROW_EXCEPTIONS)),
                                       "flaky", "team", added, added + datetime.timedelta(days=draw(st.integers(0, 14)))))
    mutants = tuple(
        MutantResult(p, s, f"m{i}", f"mutant {i}", draw(st.sampled_from(("killed", "survived", "not_run", "error"))), (),
                     coarse=draw(st.booleans()), line=draw(st.integers(0, 3)), unit=draw(st.sampled_from(("", "1:4", "1:20"))))
        for i, (p, s) in enumerate(draw(st.lists(st.tuples(st.sampled_from(region_paths), st.sampled_from(SYMBOLS)),
                                                 max_size=4)) if region_paths else [])
    )
    findings: Tuple[Finding, ...] = ()
    if rarely(draw, True, False, noise):
        findings = (Finding("WRITESET", "WRITESET oracle tests/t0.py changed with production src/m0.py", "tests/t0.py"),)
    # a static policy failure may stop the run (the gate then runs nothing, unless --run-all)
    ran_oracles = not (findings and draw(st.booleans()))
    if not ran_oracles:
        runs = []
    comp = Comparison(
        changes=(),
        regions=tuple(regions),
        oracle_changes=(),
        demoted=tuple(o.address for o in oracles if o.role == "demoted"),
        new_tests=tuple(o.address for o in oracles if o.role == "new"),
        excluded=(),
        findings=findings,
        classes=tuple((o.address, o.cls) for o in oracles if o.role == "voter"),
    )
    return GateInput(
        mode=draw(st.sampled_from(("diff", "audit"))),
        comparison=comp,
        runs=tuple(runs),
        symbols=tuple(symbols),
        ledgers=(Ledger(LEDGER_PATH, tuple(ledger_rows)),) if ledger_rows else (),
        baseline_skips=frozenset(draw(st.sets(st.sampled_from(SIGNATURES), max_size=1))),
        min_examples=tuple((o.address, 100) for o in oracles if o.cls == "P"),
        infra_errors=rarely(draw, ("INFRA_ERROR base facts: git failed",), (), noise * 2),
        mutants=mutants,
        mutation_ran=bool(mutants),
        today=TODAY,
        ran_oracles=ran_oracles,
    )

