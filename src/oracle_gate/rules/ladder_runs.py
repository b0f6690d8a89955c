"""The ladder's runs after the oracles: the clean room (R2_cleanroom) and mutants (R3_numbness),
each planned from the verdict so far and run through `rules.runs`."""
from __future__ import annotations

import ast
import dataclasses
from typing import AbstractSet, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from pants.engine.addresses import Addresses, UnparsedAddressInputs
from pants.engine.rules import Get, MultiGet
from pants.engine.target import Targets

from oracle_gate.core.judge import verdict as V
from oracle_gate.core.ladder.mutants import (FileToMutate, MutationUnsupported, changed_lines, line_mutants, moved_in,
                                             removed_lines)
from oracle_gate.core.lanes import compare as C
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.compare import Policy
from oracle_gate.core.protocol import cleanroom as CR
from oracle_gate.core.protocol.mutant_payload import MutantTooLarge, encode_mutant_env
from oracle_gate.core.source.symbols import MODULE, SourceError, enclosing, shadows_builtin, short_name, symbol_for_code
from oracle_gate.core.source.symbols import symbols as all_symbols
from oracle_gate.rules.runs import CleanroomRun, CleanroomRunRequest, Jail, MutantRun, MutantRunRequest
from oracle_gate.rules.static_checks import Sources, is_py


async def targets_of(addresses: Iterable[str]) -> Targets:
    parsed = await Get(Addresses, UnparsedAddressInputs(sorted(addresses), owning_address=None,
                                                         description_of_origin="the oracle-gate run plan"))
    return await Get(Targets, Addresses(parsed))


def _judges_of(comp: C.Comparison, verdict: V.Verdict, runs: Sequence[V.OracleRun], batches: Sequence,
               judged_at_e: AbstractSet[str] = frozenset(),
               ) -> Callable[[str, V.ChangedSymbolEvidence], Tuple[str, ...]]:
    """The P and L voters that executed a changed symbol, strongest first (and its class-E voters,
    in the files of `judged_at_e`): existing code is judged by the base's voters; code new in this
    diff by new oracles too."""
    batched = {a for addresses, _ in batches for a in addresses}
    executed = {r.address: r.executed for r in runs}
    classes = comp.judge_classes
    strong = (V.OracleClass.PROPERTY, V.OracleClass.LOCKED)

    def judges_of(path: str, sym: V.ChangedSymbolEvidence) -> Tuple[str, ...]:
        new_code = sym.change == "added" and sym.newly_judgeable
        judges = (*verdict.voters, *verdict.newcomers) if new_code else verdict.voters
        allowed = (*strong, V.OracleClass.EQUALITY) if path in judged_at_e else strong
        return tuple(sorted(
            (a for a in judges if (path, sym.needs) in executed.get(a, frozenset())
             and classes.get(a) in allowed and a in batched),
            key=lambda a: (-classes[a].rank, a)))

    return judges_of


P_FLOOR_KINDS = ("pure", "schema")
# Regions whose changed functions are compared with the base's on their voters' calls, widened
# (core/protocol/cleanroom.py): the P-floor kinds (replayed for purity too), the L kinds, and the
# concurrent kind where a call returns, its lists compared as multisets (the interleaving orders
# them; `CR.Watch.unordered`).
COMPARED_KINDS = (*P_FLOOR_KINDS, "state", "io", "concurrent")
UNORDERED_KINDS = ("concurrent",)


def _base_sources(comp: C.Comparison, symbols: Sequence[V.ChangedSymbolEvidence], src: Sources,
                  ) -> Tuple[Dict[str, str], str, str]:
    """The base's sources of the diff's changed production files, for the base's twin interpreter:
    those with a changed symbol to compare first (all of them, or none: why), then the others (the
    code they import) while the encoded value stays under its limit; and that value. A file renamed
    or copied from a base file (and changed) has that file's base source under its new path: code
    moved into a new module while it changes is compared with what it was."""
    kinds = {r.path: r.kind for r in comp.regions}
    before = {r.path: r.before_path for r in comp.regions if r.before_path}
    changed = {p: b for p in kinds if is_py(p) and (b := src.base.get(before.get(p, p))) is not None
               and src.head.get(p) not in (None, b)}
    watched = sorted({s.path for s in symbols if s.path in changed and kinds[s.path] in COMPARED_KINDS})
    try:
        chosen = {p: changed[p] for p in watched}
        value = CR.encode_base(chosen) if chosen else ""
    except ValueError as e:
        return {p: changed[p] for p in watched}, "", str(e)
    for p in sorted(set(changed) - set(watched)):
        try:
            value = CR.encode_base({**chosen, p: changed[p]})
            chosen[p] = changed[p]
        except ValueError:
            break  # full
    return chosen, value, ""


async def cleanroom_checks(comp: C.Comparison, symbols: Sequence[V.ChangedSymbolEvidence], verdict: V.Verdict,
                     runs: Sequence[V.OracleRun], src: Sources, batches: Sequence, jail: Jail,
                     compare_base: bool = True) -> Tuple[V.CleanroomCheck, ...]:
    """Every changed function of a pure, schema, state, io or concurrent region that a P or L voter executed:
    the strongest such voter's calls into it, sampled and replayed in clean interpreters
    (core/protocol/cleanroom.py), for purity where the region promises it, and against the base's
    code on the same and widened inputs where the file has a base."""
    metadata_of = {a: md for addresses, md in batches for a in addresses}
    judges_of = _judges_of(comp, verdict, runs, batches)
    kinds = {r.path: r.kind for r in comp.regions}
    base_sources, base_env, too_large = _base_sources(comp, symbols, src) if compare_base else ({}, "", "")
    wanted: Dict[str, List[Tuple[V.ChangedSymbolEvidence, CR.Watch]]] = {}
    derived: Set[Tuple[str, str]] = set()  # functions watched because module-level or class-level code changed
    unsent: List[V.CleanroomCheck] = []  # functions only the base could judge, whose sources were too large to send
    tables: Dict[str, Dict[str, Tuple[str, Tuple[int, int]]]] = {}  # path -> its symbols, parsed once
    for sym in symbols:
        text = src.head.get(sym.path)
        if sym.change == "deleted" or kinds.get(sym.path) not in COMPARED_KINDS or text is None:
            continue
        pure = kinds[sym.path] in P_FLOOR_KINDS
        if not pure and sym.path not in base_sources:
            continue  # compared with the base only: nothing to compare with
        if sym.path not in tables:
            try:
                tables[sym.path] = all_symbols(text)
            except (SourceError, SyntaxError, ValueError):
                tables[sym.path] = {}
        table = tables[sym.path]
        if sym.qualname == MODULE or sym.kind == "class":
            # Module-level code can rebind or wrap any function of the module at import (say, only
            # where it is not under a test): every function of it a voter ran is replayed too. A
            # class's own statements (`__slots__`, a decorator, a class attribute) change what its
            # objects are: every method of it a voter ran is.
            within = "" if sym.qualname == MODULE else sym.qualname + "."
            found = [V.ChangedSymbolEvidence(sym.path, q, kind, "changed", q) for q, (kind, _) in sorted(table.items())
                     if kind in ("function", "method") and q == enclosing(q) and q.startswith(within)
                     and not any(s.path == sym.path and s.qualname == q for s in symbols)]
            derived.update((f.path, f.qualname) for f in found)
        elif sym.kind in ("function", "method"):
            # judged with the function it is nested in where that one changed too
            outer = enclosing(sym.qualname)
            judged_with_outer = outer != sym.qualname and any(s.path == sym.path and s.qualname == outer for s in symbols)
            found = [] if judged_with_outer else [sym]
        else:
            continue
        for f in found:
            voters = judges_of(f.path, f)
            through = enclosing(f.qualname)  # a nested function: the calls of the one it is part of
            if voters and through in table and not pure and too_large:
                unsent.append(V.CleanroomCheck(f.path, f.qualname, voters[0], 0, kind=kinds[f.path],
                                               not_compared=too_large))
            elif voters and through in table:
                first, last = table[through][1]
                wanted.setdefault(voters[0], []).append(
                    (f, CR.Watch(f.path, short_name(through), first, last, pure, kinds[f.path] in UNORDERED_KINDS)))
    if not wanted:
        return tuple(unsent)
    order = sorted(wanted)
    by_address = {t.address.spec: t for t in await targets_of(order)}
    done = await MultiGet(
        Get(CleanroomRun, CleanroomRunRequest(by_address[a], metadata_of[a], CR.encode_watch(w for _, w in wanted[a]),
                                              jail, base_env))
        for a in order)
    out = unsent
    for address, run in zip(order, done):
        for sym, _ in wanted[address]:
            text = src.head[sym.path]

            def mine(path: str, line: int, name: str) -> bool:
                return path == sym.path and symbol_for_code(text, line, name) == enclosing(sym.qualname)

            if run.results is None:
                out.append(V.CleanroomCheck(sym.path, sym.qualname, address, 0, why_not=run.error, kind=kinds[sym.path],
                                            not_compared=run.error if sym.path in base_sources else ""))
                continue
            calls = [c for c in run.results.calls if mine(c.path, c.line, c.name)]
            replayed = [c for c in calls if any(not got.startswith(CR.NOT_RUN) for _, got in c.results)]
            if (sym.path, sym.qualname) in derived and not replayed:
                continue  # an unchanged function: judged where it can be replayed, never required to be
            why = "; ".join(
                [u.why for u in run.results.unreplayed if mine(u.path, u.line, u.name)]
                + [got[len(CR.NOT_RUN):] for c in calls[:1] for _, got in c.results[:1] if got.startswith(CR.NOT_RUN)]
                + ([f"not compared with the base: {too_large}"] if too_large else [])
            ) or "its voter made no call to it while a test ran"
            twins = [got for c in calls for v, got in c.results if v == CR.BASE]
            compared = len([got for got in twins if not got.startswith(CR.NOT_RUN)])
            not_compared = "" if compared or (sym.path not in base_sources and not too_large) else (
                too_large or "; ".join(dict.fromkeys(got[len(CR.NOT_RUN):] for got in twins[:3])) or why)
            # calls a twin or a clean variant left unrun (CR.LOST)
            lost = next((t[len(CR.LOST):] for c in calls for _, got in c.results
                         for t in (c.expected, got) if t.startswith(CR.LOST)), "")
            out.append(V.CleanroomCheck(
                sym.path, sym.qualname, address, len(replayed),
                tuple((c.input, v, c.expected, got) for c in replayed for v, got in c.results if not CR.same(c.expected, got)),
                why_not=why if not replayed else "", kind=kinds[sym.path], compared=compared, not_compared=not_compared,
                lost=lost))
    return tuple(out)


async def mutation(comp: C.Comparison, symbols: Sequence[V.ChangedSymbolEvidence], verdict: V.Verdict,
                    runs: Sequence[V.OracleRun], src: Sources, batches: Sequence, policy: Policy,
                    head: F.Facts, jail: Jail, checks: Sequence[V.CleanroomCheck] = (),
                    ) -> Tuple[Tuple[V.MutantResult, ...], Tuple[Tuple[str, int, str], ...]]:
    """Mutants of every changed line of the changed symbols a voter (P or L) executed, each run
    against those voters until one kills it, and a line's further mutants only while none killed
    has settled it; and the mutable changed lines the budget did not reach. In the agent lane a
    region judged at class E (its baseline: adoption found only example tests) is judged the same
    way by its class-E voters: every changed line there must be one they notice. A mutant no voter
    noticed, in a file whose changed functions the clean room found doing what the base's code did
    (`checks`), is run in the head's twin interpreters beside the base's: one they tell apart is
    killed by the base's code (`V.BASE_JUDGE`)."""
    metadata_of = {a: md for addresses, md in batches for a in addresses}
    judged_at_e = frozenset(r.path for r in comp.regions if r.required == V.OracleClass.EQUALITY.value) \
        if policy.lane == C.AGENT else frozenset()
    voters_of = _judges_of(comp, verdict, runs, batches, judged_at_e)

    by_path: Dict[str, List[V.ChangedSymbolEvidence]] = {}
    for s in symbols:
        if s.change != "deleted":
            by_path.setdefault(s.path, []).append(s)
    files: List[FileToMutate] = []
    judges: Dict[Tuple[str, str], Tuple[str, ...]] = {}
    old_path = {r.path: r.before_path or r.path for r in comp.regions}
    removed = {p: removed_lines(text, src.head.get(p)) for p, text in src.base.items() if is_py(p) and text}
    for path, syms in sorted(by_path.items()):
        text = src.head.get(path)
        if text is None:
            continue
        syms = [s for s in syms if voters_of(path, s)]  # a symbol no voter ran is UNEXERCISED, not numb
        judges.update({(path, s.qualname): voters_of(path, s) for s in syms})
        lines = _symbol_lines(text, [s.qualname for s in syms if s.qualname != MODULE])
        ranges = [(s.qualname, lines[s.qualname]) for s in syms if s.qualname in lines]
        if any(s.qualname == MODULE for s in syms):
            # Module-level code: only its changed top-level statements (a lambda bound to a name,
            # a constant), never the defs around them.
            ranges += [(MODULE, r) for r in _module_ranges(src.base.get(path), text)]
        if ranges:
            before = old_path.get(path, path)
            lines = changed_lines(src.base.get(before), text)
            elsewhere = frozenset().union(*(r for p, r in removed.items() if p != before))
            # A removed rejection is put back, and an added condition or a conditional expression's
            # branch judged alone, where voters state laws (P or L floors); not in a region judged
            # by class-E tests at adoption.
            files.append(FileToMutate(path, text, tuple(ranges), lines - moved_in(text, lines, elsewhere),
                                      src.base.get(before), laws=path not in judged_at_e))
    try:
        plan = line_mutants(files, int(policy.mutation_budget), int(policy.mutants_per_symbol))
    except (MutationUnsupported, SourceError, SyntaxError, ValueError):  # ValueError: cannot parse it
        return (), ()
    planned: List[Tuple[V.MutantResult, str]] = []  # (the result if it survives, the env value)
    results: List[V.MutantResult] = []
    for path, m in plan.mutants:
        voters = judges[(path, m.symbol)]
        try:
            env_value = encode_mutant_env(path, m.source, m.id)
        except MutantTooLarge:
            results.append(V.MutantResult(path, m.symbol, m.id, m.description, "not_run", line=m.line, unit=m.unit))
            continue
        planned.append((V.MutantResult(path, m.symbol, m.id, m.description, "survived", voters, m.coarse, m.line, m.unit),
                        env_value))
    # Waves: each unit's (changed line's, or statement's) first mutant, then the second of each unit
    # not yet settled, and so on. A unit is settled once a mutant killed shows it judged (no outcome
    # of its others could make it NUMB: V.unit_settled), so its further mutants are not run; code only
    # new oracles judge runs them all (its value mutants are counted: V._numbness).
    every_one = {(s.path, s.symbol) for s, _ in planned if set(s.oracles) <= set(verdict.newcomers)}
    units: Dict[Tuple[str, int, str, str], List[Tuple[V.MutantResult, str]]] = {}
    for m, env_value in planned:
        units.setdefault(V.mutant_unit(m), []).append((m, env_value))
    outcomes: Dict[str, List[MutantRun]] = {}

    def ran(unit: Sequence[Tuple[V.MutantResult, str]]) -> List[V.MutantResult]:
        return [dataclasses.replace(m, status=_mutant_status(outcomes[m.mutant_id]))
                for m, _ in unit if m.mutant_id in outcomes]

    for wave in range(max(map(len, units.values()), default=0)):
        outcomes.update(await _against_voters(
            [unit[wave] for unit in units.values() if wave < len(unit)
             and ((unit[wave][0].path, unit[wave][0].symbol) in every_one
                  or not V.unit_settled(ran(unit), [m for m, _ in unit]))],
            metadata_of, policy, jail))
    results += ran(planned)
    told = await _told_from_base([(m, env) for m, env in planned if any(
        r.mutant_id == m.mutant_id and r.status == "survived" for r in results)], checks, comp, symbols, src, batches,
        jail) if policy.compare_base else set()
    results = [dataclasses.replace(m, status="killed", oracles=(*m.oracles, V.BASE_JUDGE))
               if m.mutant_id in told else m for m in results]
    return tuple(results), plan.not_mutated


async def _against_voters(planned: Sequence[Tuple[V.MutantResult, str]], metadata_of: Dict[str, object],
                          policy: Policy, jail: Jail) -> Dict[str, List[MutantRun]]:
    """Each mutant against its strongest voter, in rounds: only those no voter has killed yet go on
    to their next voter."""
    pending = [(survivor, env_value, list(survivor.oracles)) for survivor, env_value in planned]
    outcomes: Dict[str, List[MutantRun]] = {}
    while pending:
        targets = await targets_of({voters[0] for _, _, voters in pending})
        by_address = {t.address.spec: t for t in targets}
        round_runs = await MultiGet(
            Get(MutantRun, MutantRunRequest(by_address[voters[0]], metadata_of[voters[0]], env_value,
                                            survivor.mutant_id, int(policy.mutation_timeout), jail))
            for survivor, env_value, voters in pending
        )
        next_round = []
        for (survivor, env_value, voters), run in zip(pending, round_runs):
            outcomes.setdefault(survivor.mutant_id, []).append(run)
            if not (run.served and run.killed) and len(voters) > 1:
                next_round.append((survivor, env_value, voters[1:]))
        pending = next_round
    return outcomes


def _mutant_status(runs: Sequence[MutantRun]) -> str:
    served = [o for o in runs if o.served]
    if any(o.killed for o in served):
        return "killed"
    if any(o.error for o in runs):
        return "error"  # a voter's session left no results: neither killed nor survived
    return "survived" if served else "not_run"


async def _told_from_base(survivors: Sequence[Tuple[V.MutantResult, str]], checks: Sequence[V.CleanroomCheck],
                          comp: C.Comparison, symbols: Sequence[V.ChangedSymbolEvidence], src: Sources,
                          batches: Sequence, jail: Jail) -> Set[str]:
    """The surviving mutants that the base's code tells apart from the mutant's on the voters'
    calls and their widenings, in files where the clean room compared every changed function it
    could with the base's and found no difference: there the diff kept what the base did, and the
    mutant does not. Each runs in a clean-room session of its file's comparing voter with the
    mutant served to the head's twins (its purity is not judged again)."""
    kinds = {r.path: r.kind for r in comp.regions}
    alike: Dict[str, Dict[str, V.CleanroomCheck]] = {}
    unlike = {c.path for c in checks if any(v == CR.BASE for _, v, _, _ in c.differences)}
    for c in checks:
        if c.compared and c.path not in unlike:
            alike.setdefault(c.path, {})[c.symbol] = c
    wanted = [(m, env) for m, env in survivors if m.path in alike and src.head.get(m.path) is not None]
    if not wanted:
        return set()
    _, base_env, _ = _base_sources(comp, symbols, src)
    if not base_env:
        return set()
    requests: List[Tuple[str, str, str, str]] = []  # (mutant id, voter, watch, mutant env)
    for m, env in wanted:
        here = alike[m.path]
        address = (here.get(m.symbol) or here[min(here)]).address
        try:
            table = all_symbols(src.head[m.path])
        except (SourceError, SyntaxError, ValueError):
            continue
        watches = [CR.Watch(m.path, short_name(enclosing(q)), *table[enclosing(q)][1], kinds.get(m.path) in P_FLOOR_KINDS,
                            kinds.get(m.path) in UNORDERED_KINDS)
                   for q, c in sorted(here.items()) if c.address == address and enclosing(q) in table]
        requests.append((m.mutant_id, address, CR.encode_watch(watches), env))
    if not requests:
        return set()
    metadata_of = {a: md for addresses, md in batches for a in addresses}
    by_address = {t.address.spec: t for t in await targets_of({a for _, a, _, _ in requests})}
    done = await MultiGet(
        Get(CleanroomRun, CleanroomRunRequest(by_address[a], metadata_of[a], watch, jail, base_env, env))
        for _, a, watch, env in requests)
    return {mutant_id for (mutant_id, _, _, _), run in zip(requests, done)
            if run.results is not None and any(v == CR.BASE for _, v, _ in run.results.differences())}


def _module_ranges(base: Optional[str], head: str) -> List[Tuple[int, int]]:
    """Line ranges of the head's top-level statements (outside defs and classes, docstrings and
    imports aside, but an import over a builtin) that the base does not have."""
    def top(source: Optional[str]) -> List[ast.stmt]:
        if source is None:
            return []
        try:
            return [n for n in ast.parse(source).body
                    if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and not (isinstance(n, (ast.Import, ast.ImportFrom)) and not shadows_builtin(n))
                    and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        except SyntaxError:
            return []

    before = [ast.dump(n) for n in top(base)]
    out = []
    for node in top(head):
        dumped = ast.dump(node)
        if dumped in before:
            before.remove(dumped)
            continue
        out.append((node.lineno, getattr(node, "end_lineno", node.lineno)))
    return out


def _symbol_lines(text: str, qualnames: Sequence[str]) -> Dict[str, Tuple[int, int]]:
    table = all_symbols(text)
    return {q: table[q][1] for q in qualnames if q in table}
