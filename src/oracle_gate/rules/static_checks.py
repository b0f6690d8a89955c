"""What the gate reads and finds before anything runs: the changed sources at base and head, the
inputs the comparison takes (markers, cosmetic edits, pytest configuration, copies, moved code,
lockfile changes), and the static findings (drift, test-aware code, tautologies, ledgers,
exclusions, source encodings)."""
from __future__ import annotations

import dataclasses
import datetime
import os
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Union

from pants.engine.fs import DigestContents, PathGlobs
from pants.engine.rules import Get, MultiGet
from pants.source.source_root import SourceRoot, SourceRootRequest

from oracle_gate.core.judge import verdict as V
from oracle_gate.core.ladder.ledger import Ledger, LedgerError, check_ledger, parse_ledger, suite_size
from oracle_gate.core.ladder.markers import added_markers, judge_config_change, judges_a_test
from oracle_gate.core.ladder.tautology import Finding as TautologyFinding, data_readers, tautology_findings
from oracle_gate.core.ladder.testaware import (Finding as TestAwareFinding, assert_effects, checks_then_waits,
                                              finally_exits, import_fallbacks, lossy_memos, machine_reads,
                                              message_effects, removed_locks, shared_results, shared_scratch,
                                              split_sections, test_aware_findings)
from oracle_gate.core.lanes import compare as C
from oracle_gate.core.lanes import facts as F
from oracle_gate.core.lanes.baseline import Baseline, BaselineError
from oracle_gate.core.lanes.compare import Policy
from oracle_gate.core.lanes.dependencies import changed_projects, resolve_lockfiles
from oracle_gate.core.source.stdlib import CONCURRENCY_NAMES
from oracle_gate.core.source.symbols import (MODULE, READABLE_ENCODINGS, SourceError, changed_data, changed_symbols,
                                             copied_code, declared_encoding, defined_names, rebinding_imports)
from oracle_gate.rules.git_diff import GitDiff, GitDiffError, base_files_defining, base_texts, ignored_by_gitignore


async def lock_changes(diff: GitDiff, base: F.Facts, head: F.Facts) -> Dict[str, Tuple[str, Optional[FrozenSet[str]]]]:
    """The lockfiles (of the base's or the head's configuration) this diff changed, with the
    projects each change affects."""
    locks = {**resolve_lockfiles(head.option_map), **resolve_lockfiles(base.option_map)}
    changed = sorted({p for c in diff.changes for p in (c.path, c.old_path) if p in locks})
    if not changed:
        return {}
    before, after = base_texts(diff, changed), await head_texts(changed)
    return {p: (locks[p], changed_projects(before.get(p), after.get(p))) for p in changed}


async def head_texts(paths: Sequence[str]) -> Dict[str, str]:
    wanted = sorted({p for p in paths if not p.startswith("../")})
    if not wanted:
        return {}
    contents = await Get(DigestContents, PathGlobs(wanted))
    return {fc.path: fc.content.decode("utf-8", errors="replace") for fc in contents}


def stale_ignores(build_root: str, diff: GitDiff, head: F.Facts) -> Optional[str]:
    """`.gitignore` when the diff changed it and the engine still sees a file its rules now hide: a
    daemon restarts on a .gitignore change only once its watcher has seen it."""
    if not head.option("GLOBAL.pants_ignore_use_gitignore", True):
        return None
    if not any(os.path.basename(p) == ".gitignore" for c in diff.changes for p in (c.path, c.old_path) if p):
        return None
    try:
        hidden = ignored_by_gitignore(build_root, [p for t in head.targets for p in t.paths])
    except GitDiffError:
        return None
    return ".gitignore" if hidden else None


def stale_file(build_root: str, engine_view: Mapping[str, Optional[str]]) -> Optional[str]:
    """The first changed file whose content on disk differs from what the engine read, if any: a
    daemon whose file watcher has not caught up would judge the old content."""
    for path, text in sorted(engine_view.items()):
        try:  # bytes, decoded as the engine's are: text mode would turn CRLF and CR into LF
            with open(os.path.join(build_root, path), "rb") as f:
                on_disk = f.read().decode("utf-8", errors="replace")
        except OSError:
            on_disk = None
        if text is not None and on_disk != text:
            return path
    return None


def is_py(path: str) -> bool:
    return path.endswith(".py")


@dataclass(frozen=True)
class Sources:
    base: Mapping[str, Optional[str]]
    head: Mapping[str, Optional[str]]


def marker_paths(base: F.Facts, changes: Sequence[C.Change], src: Sources) -> FrozenSet[str]:
    out = set()
    for c in changes:
        b_text, h_text = src.base.get(c.old_path or c.path), src.head.get(c.path)
        owners = base.owners(c.old_path or c.path)
        if not is_py(c.path) or b_text is None or h_text is None:
            continue
        if not any(t.is_test or t.role == F.TEST_UTIL for t in owners):
            continue
        try:
            if added_markers(b_text, h_text):
                out.add(c.path)
        except SourceError:
            out.add(c.path)  # unparsable test code cannot be judged: fail closed
    return frozenset(out)


def cosmetic(changes: Sequence[C.Change], src: Sources) -> FrozenSet[str]:
    """Modified Python files whose code is the same at base and head (comments, formatting and
    docstrings only): judged by what they change, which is nothing."""
    out = set()
    for c in changes:
        if c.status != "M" or c.link is not None or not is_py(c.path) or os.path.basename(c.path) == "conftest.py":
            continue
        before, after = src.base.get(c.path), src.head.get(c.path)
        if before is None or after is None:
            continue
        try:
            if not changed_symbols(before, after) and not added_markers(before, after):
                out.add(c.path)
        except SourceError:
            continue
    return frozenset(out)


# pytest reads these words; a change our parser does not attribute to a pytest section but whose
# text mentions them is one we cannot vouch for (pytest's own ini reader is more lenient).
_PYTEST_WORDS = ("pytest", "hypothesis", "addopts", "testpaths", "python_files", "python_functions", "-p ")


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def config_findings(changes: Sequence[C.Change], src: Sources, base: F.Facts, head: F.Facts) -> List[C.Finding]:
    """Changes to files pytest reads as configuration, judged by the sections pytest reads; and,
    failing closed, any change we cannot attribute for sure. A file above no test that existed at
    the base and remains at head (a removed package's own pytest section; a new package's, above
    only the tests the diff adds, which are new oracles judged with the settings they arrive with)
    judges nothing. A test the diff moved is the test it was."""
    out = []
    existed = {t.paths[0] for t in base.targets if t.is_test and t.paths}
    moved_from = {c.path: c.old_path for c in changes if c.old_path}
    remaining = [t.paths[0] for t in head.targets if t.is_test and t.paths
                 and (t.paths[0] in existed or moved_from.get(t.paths[0]) in existed)]
    for c in changes:
        name = os.path.basename(c.path)
        if name not in C.PYTEST_CONFIGS or not judges_a_test(c.path, remaining):
            continue
        # A renamed file is compared with what it was: settings that move with their tests are unchanged.
        before, after = src.base.get(c.old_path or c.path), src.head.get(c.path)
        try:
            found = judge_config_change(c.path, before, after)
        except ValueError as e:
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {c.path} cannot be read: {e}", c.path))
            continue
        out += [C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {f.line}", c.path) for f in found]
        if found:
            continue
        changed = set((after or "").splitlines()) ^ set((before or "").splitlines())
        if name == "pytest.ini" or _CONTROL.search(after or "") or any(
                w in line.lower() for line in changed for w in _PYTEST_WORDS):
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {c.path}: changed text pytest may read "
                                                  f"(cannot be attributed to a section it ignores)", c.path))
    return out


# Set by the `./pants` launcher when it runs the gate under the merge base's configuration files and
# plugin (its judge mode): the base commit it resolved.
JUDGE_COMMIT_ENV = "ORACLE_GATE_JUDGE_COMMIT"


def judged_under_base_hint(diff: GitDiff, judge_commit: str) -> str:
    """Why a head may not evaluate under the base's configuration, and the way out."""
    changed = sorted({c.path for c in diff.changes if C.is_pants_config(c.path)})
    if not judge_commit or not changed:
        return ""
    return (f" (evaluated under the base's configuration; the head changes {', '.join(changed)}: land the "
            f"configuration change first, alone, then what needs it)")


def judged_config_findings(diff: GitDiff, build_root: str) -> List[C.Finding]:
    """Under the base's configuration the head's Pants configuration files are evidence only: what
    they set differently is read from their text (with the TOML reader Pants itself uses)."""
    # Pants' own configuration reader, always next to Pants (no target of ours owns it).
    import toml  # pants: no-infer-dep

    paths = sorted({p for c in diff.changes for p in (c.path, c.old_path)
                    if p and not p.startswith("../") and C.is_pants_config(p)})
    before = base_texts(diff, paths)
    out: List[C.Finding] = []
    for path in paths:
        try:
            with open(os.path.join(build_root, path), encoding="utf-8") as f:
                after: Optional[str] = f.read()
        except FileNotFoundError:
            after = None
        except (OSError, UnicodeDecodeError) as e:
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {path} cannot be read: {e}", path))
            continue
        try:
            parsed = [toml.loads(t) if t is not None else None for t in (before.get(path), after)]
        except (toml.TomlDecodeError, TypeError, ValueError) as e:
            out.append(C.Finding("CONFIG_CHANGE", f"CONFIG_CHANGE {path} cannot be read as TOML: {e}", path))
            continue
        out += C.config_file_changes(path, parsed[0], parsed[1])
    return out


def _test_aware(base: F.Facts, comp: C.Comparison, src: Sources, oracle_paths: Sequence[str],
                lane: str) -> List[C.Finding]:
    out = []
    for region in comp.regions:
        if region.status in ("audited", "dependency") or not is_py(region.path):
            continue  # its code did not change
        declared = base.by_address.get(region.address)
        if declared is not None and declared.test_tooling:
            continue  # the base says this is test tooling (a pytest plugin, a harness)
        head = src.head.get(region.path)
        if head is None:
            continue
        base_text = src.base.get(region.before_path or region.path)
        try:
            found = test_aware_findings(region.path, base_text, head, oracle_paths)
            exits = finally_exits(region.path, base_text, head)
            effects = assert_effects(region.path, base_text, head)
            acts = message_effects(region.path, base_text, head)
            # a law over calls (no caller's change reaches another's result) only P/L oracles state
            laws = region.required in ("P", "L")
            shared = shared_results(region.path, base_text, head) if laws else ()
            scratch = shared_scratch(region.path, base_text, head) if laws else ()
            unlocked = removed_locks(region.path, base_text, head) if laws else ()
            split = split_sections(region.path, base_text, head) if laws else ()
            memos = lossy_memos(region.path, base_text, head) if laws else ()
            waits = checks_then_waits(region.path, base_text, head) if laws else ()
            fallbacks = import_fallbacks(region.path, base_text, head)
            purest = _purest(region) if laws else None
            reads = machine_reads(region.path, base_text, head, _MAY_READ[purest][1]) if purest else ()
        except SourceError as e:
            out.append(C.Finding("TEST_AWARE_CODE", f"TEST_AWARE_CODE {region.path}: cannot be parsed ({e})", region.path))
            continue
        out.extend(test_aware_finding(f) for f in found)
        out.extend(C.Finding("FINALLY_EXIT", f"FINALLY_EXIT {f.path}:{f.line} {f.what} (PEP 765): a raise before it "
                             f"never reaches a caller; return after the `try` statement", f.path, f.line) for f in exits)
        out.extend(C.Finding("ASSERT_EFFECT", f"ASSERT_EFFECT {f.path}:{f.line} {f.what}: production under -O runs "
                             f"without it; do the work in a statement of its own and assert on its result", f.path, f.line)
                   for f in effects)
        code, said = _agent_lane_only("LOCK_REMOVED", lane)
        out.extend(C.Finding(code, f"{said} {f.path}:{f.line} "
                             f"{f.what} (it did at the base): a race is what oracles see least, every mutant still dies "
                             f"in a run that interleaves well; keep the lock, or take the change through the human lane",
                             f.path, f.line) for f in unlocked)
        code, said = _agent_lane_only("LOCK_SPLIT", lane)
        out.extend(C.Finding(code, f"{said} {f.path}:{f.line} {f.what}: another thread can change it in between, so "
                             f"the second section acts on a stale read (a race no run that interleaves well shows); "
                             f"hold the lock once around the read and the change, or take the change through the "
                             f"human lane", f.path, f.line) for f in split)
        code, said = _agent_lane_only("CHECK_THEN_WAIT", lane)
        out.extend(C.Finding(code, f"{said} {f.path}:{f.line} {f.what}: another thread can take the item (or the "
                             f"slot) in between, and this one then waits forever (a deadlock no run that interleaves "
                             f"well shows); take without blocking and handle `queue.Empty` (or `queue.Full`), or take "
                             f"the change through the human lane", f.path, f.line) for f in waits)
        code, said = _agent_lane_only("IMPORT_FALLBACK", lane)
        out.extend(C.Finding(code, f"{said} {f.path}:{f.line} {f.what}: the oracles ran only the code this machine "
                             f"has, and a machine with the other runs code no oracle ran; depend on one of them, or "
                             f"take the change through the human lane", f.path, f.line) for f in fallbacks)
        code, said = _agent_lane_only("MACHINE_READ", lane)
        out.extend(C.Finding(code, f"{said} {f.path}:{f.line} {f.what}, in a {purest} region: its result "
                             f"may depend on {_MAY_READ[purest or 'pure'][0]} only, and the oracles judged it on one "
                             f"machine at one time, whatever else it reads; pass the fact in as an argument, read it "
                             f"in an io or state region, or take the change through the human lane", f.path, f.line)
                   for f in reads)
        code, said = _agent_lane_only("MEMO_KEY", lane)
        out.extend(C.Finding(code, f"{said} {f.path}:{f.line} {f.what}: two calls whose keys collide get one "
                             f"result, while each call alone, and every sample without a colliding pair, is right; key "
                             f"it on the arguments (a tuple of them), or take the change through the human lane",
                             f.path, f.line) for f in memos)
        out.extend(C.Finding("SHARED_RESULT", f"SHARED_RESULT {f.path}:{f.line} {f.what}, and one caller's change "
                             f"to it is every later caller's result; return a copy or an immutable value", f.path,
                             f.line) for f in shared)
        out.extend(C.Finding("SHARED_RESULT", f"SHARED_RESULT {f.path}:{f.line} {f.what}: two calls at once (threads, "
                             f"or a call made while one runs) work in one object; make it in the call", f.path, f.line)
                   for f in scratch)
        out.extend(C.Finding("MESSAGE_EFFECT", f"MESSAGE_EFFECT {f.path}:{f.line} {f.what}: what a message says is "
                             f"never judged, so it may not do anything; do the work in a statement of its own", f.path,
                             f.line) for f in acts)
    return out


# What a region of each kind may read (core/source/stdlib.py): its arguments and the standard
# library's pure names; a concurrent one, its threads and clocks too. A state or io region reads the
# world by its kind (its database, its files, its configuration), and is not judged so,
# nor a region whose judges are a baseline's class-E tests (a kind adoption suggested for want of
# other evidence is no claim its code was ever pure: backend.ai's "pure" modules make ids and read
# clocks), like every law over calls.
_MAY_READ = {"pure": ("its arguments", frozenset()), "schema": ("its arguments", frozenset()),
             "concurrent": ("its arguments, its threads and the clocks it waits on", CONCURRENCY_NAMES)}


def _purest(region: C.RegionPlan) -> Optional[str]:
    """Of the kinds a region had at the base and has at the head, the one whose reads are
    narrowest (pure, schema, concurrent), if any."""
    kinds = {region.kind, region.head_kind}
    return next((k for k in _MAY_READ if k in kinds), None)


def _agent_lane_only(code: str, lane: str) -> Tuple[str, str]:
    """A finding's code and how its line starts: `code` in the agent lane; in the human lane a
    `NOTE` a reviewer reads (a race or a lossy memo key is what a person judges)."""
    return (code, code) if lane == C.AGENT else ("NOTE", f"NOTE reviewed: {code}")


def test_aware_finding(f: TestAwareFinding) -> C.Finding:
    """One line of code that can tell it is under test, found statically or by what a session left."""
    return C.Finding("TEST_AWARE_CODE", f"TEST_AWARE_CODE {f.path}:{f.line} {f.what}", f.path, f.line)


test_aware_finding.__test__ = False  # type: ignore[attr-defined]  # a name pytest would collect


def _tautologies(comp: C.Comparison, head: F.Facts, src: Sources, production: Mapping[str, str],
                 policy: Policy, diff_code: FrozenSet[str]) -> List[C.Finding]:
    out = []
    for oc in comp.oracle_changes:
        if oc.what in ("deleted", "lost") or not is_py(oc.path):
            continue
        owner = C.one_owner(head.owners(oc.path), [F.PROPERTY, F.TEST])
        text = src.head.get(oc.path)
        if owner is None or text is None or head.oracle_class(owner.address) is None:
            continue
        try:
            found = tautology_findings(text, production, diff_code)
        except SourceError as e:
            found = ()
            out.append(C.Finding("TAUTOLOGY", f"TAUTOLOGY {oc.path} cannot be parsed ({e})", oc.path))
        out.extend(_tautology(oc.path, f, policy) for f in found)
    return out


def _tautology(path: str, f: TautologyFinding, policy: Policy) -> C.Finding:
    if policy.lane == C.HUMAN and policy.accept_tautology:
        return C.Finding("NOTE", f"NOTE tautology accepted on review: {path}::{f.test} {f.why}", path)
    return C.Finding("TAUTOLOGY", f"TAUTOLOGY {path}::{f.test} {f.why}", path)


@dataclass(frozen=True)
class DataReads:
    """Production data the diff changes, by dotted name (`billing.schema.REQUIRED`), the head's
    source of the modules that hold it, and the head's text of every P/L oracle test file (the
    base's and the head's): what the check that no oracle takes its values from changed data reads."""

    changed: FrozenSet[str] = frozenset()
    production: Mapping[str, str] = dataclasses.field(default_factory=dict)
    oracles: Mapping[str, str] = dataclasses.field(default_factory=dict)


async def data_reads(base: F.Facts, head: F.Facts, comp: C.Comparison, src: Sources) -> DataReads:
    changed: Dict[str, FrozenSet[str]] = {}
    for region in comp.regions:
        if region.status in ("audited", "deleted", "dependency") or not is_py(region.path):
            continue
        try:
            names = changed_data(src.base.get(region.before_path) if region.before_path else None,
                                 src.head.get(region.path))
        except SourceError:
            continue  # reported where the file is judged
        if names:
            changed[region.path] = names
    if not changed:
        return DataReads()
    paths = sorted(changed)
    roots = await MultiGet(Get(SourceRoot, SourceRootRequest, SourceRootRequest.for_file(p)) for p in paths)
    dotted, production = set(), {}
    for path, root in zip(paths, roots):
        module, _ = F.module_of(path, root.path)
        if module and src.head.get(path) is not None:
            production[module] = src.head[path]
            dotted |= {f"{module}.{name}" for name in changed[path]}
    laws = (V.OracleClass.PROPERTY, V.OracleClass.LOCKED)
    oracles = sorted({p for facts in (base, head) for t in facts.targets
                      if t.is_test and facts.oracle_class(t.address) in laws for p in t.paths if is_py(p)})
    return DataReads(frozenset(dotted), production, await head_texts(oracles) if dotted else {})


def _data_readers(reads: DataReads, policy: Policy) -> List[C.Finding]:
    out = []
    for path, text in sorted(reads.oracles.items()):
        if not any(name.rsplit(".", 1)[-1] in text for name in reads.changed):
            continue
        try:
            found = data_readers(text, reads.production, reads.changed)
        except SourceError:
            continue  # a test file that does not parse fails where it runs
        out.extend(_tautology(path, f, policy) for f in found)
    return out


def _drift(head: F.Facts) -> List[C.Finding]:
    out = []
    for t in head.targets:
        if t.sha256 is None or not t.paths:
            continue
        actual = head.text_map.get(f"sha256:{t.paths[0]}")
        if actual != t.sha256:
            code = "BASELINE_DRIFT" if t.role == F.BASELINE else "FIXTURE_DRIFT"
            out.append(C.Finding(code, f"{code} {t.address} expected={t.sha256[:12]} actual={(actual or 'missing')[:12]}",
                                 t.paths[0]))
    return out


def _excluded(head: F.Facts, comp: C.Comparison, policy: Policy) -> List[C.Finding]:
    """Excluded tests that would have covered a judged region: listed, never voting."""
    excluded = set(comp.excluded)
    found = sorted({t.address for r in comp.regions if r.address in head.by_address
                    for t in head.covering_tests(r.address) if t.address in excluded})
    tags = set(policy.exclude_tags)

    def why(a: str) -> str:
        matched = sorted(set(head.by_address[a].tags) & tags)
        return f"tags: {', '.join(matched)}" if matched else "exclude_globs"

    return [C.Finding("EXCLUDED", f"EXCLUDED {a} ({why(a)}): never runs, never votes") for a in found]


def base_baseline(base: F.Facts) -> Optional[object]:
    """The base's baseline (None when the repository has none; a string when it is unusable)."""
    owners = [t for t in base.targets if t.role == F.BASELINE]
    if not owners:
        return None
    t = owners[0]
    text = base.text_map.get(t.paths[0]) if t.paths else None
    if text is None or base.text_map.get(f"sha256:{t.paths[0]}") != t.sha256:
        return f"BASELINE_DRIFT {t.address}: the base's baseline does not match its sha256 lock"
    try:
        return Baseline.loads(text)
    except BaselineError as e:
        return f"BASELINE_DRIFT {t.address}: {e}"


def ledgers_of(base: F.Facts, head: F.Facts, comp: C.Comparison, policy: Policy, today: datetime.date):
    """The ledgers that judge this run: the base's (the head's in the human lane), their problems,
    and the rows the diff adds."""
    judging = head if policy.lane == C.HUMAN else base
    test_paths = [t.paths[0] for t in base.targets if t.is_test and t.paths]
    ledgers: List[Ledger] = []
    errors: List[str] = []
    for t in judging.targets:
        if t.role != F.FREEZE_LEDGER or not t.paths:
            continue
        ledger, problems = check_ledger(judging.text_map.get(t.paths[0]), t.paths[0], int(policy.max_freeze_days),
                                        today, suite_size(t.governs, test_paths))
        errors += problems
        if ledger is not None:
            ledgers.append(ledger)
    base_rows = {(e.signature, e.test, e.exception) for t in base.targets if t.role == F.FREEZE_LEDGER and t.paths
                 for e in _safe_entries(base.text_map.get(t.paths[0]), t.paths[0])}
    new_rows = tuple(e for l in ledgers for e in l.entries if (e.signature, e.test, e.exception) not in base_rows)
    return tuple(ledgers), tuple(errors), new_rows if judging is head else ()


def _safe_entries(text: Optional[str], path: str):
    try:
        return parse_ledger(text or "", path, 10**6).entries
    except LedgerError:
        return ()


def empty_files(diff: GitDiff, build_root: str) -> FrozenSet[str]:
    """Changed files other than Python that are empty (or absent) at the base and at head: there
    is nothing in them to run or to read."""
    paths = [c.path for c in diff.changes if not is_py(c.path) and not c.old_path and c.link is None
             and not c.path.startswith("../")]
    if not paths:
        return frozenset()

    def empty_at_head(path: str) -> bool:
        full = os.path.join(build_root, path)
        return not os.path.lexists(full) or (os.path.isfile(full) and not os.path.islink(full)
                                             and os.path.getsize(full) == 0)

    at_head = [p for p in paths if empty_at_head(p)]
    return frozenset(p for p, text in base_texts(diff, at_head).items() if not text)


def vetted_copies(changes: Sequence[C.Change], src: Sources) -> Tuple[C.Change, ...]:
    """Git's copies, less those whose imports bind a name under another name or over a builtin
    as their source's do not (`from decimal import Decimal as int`): that code does not do what
    its source did, and is new code."""
    out = []
    for c in changes:
        head, source = src.head.get(c.path), src.base.get(c.copied_from or "")
        if c.copied_from and is_py(c.path) and head is not None and source is not None:
            try:
                rebound = rebinding_imports(head, [source])
            except SourceError:
                rebound = ("?",)
            if rebound:
                c = dataclasses.replace(c, copied_from=None)
        out.append(c)
    return tuple(out)


def moved_code(diff: GitDiff, base: F.Facts, head: F.Facts, src: Sources) -> Dict[str, Tuple[str, ...]]:
    """Added production files whose code all comes from base production files (moved or copied
    out of them: core/source/symbols.copied_code), looked for in the base files that define one of their
    names (git grep)."""
    added: Dict[str, Tuple[str, FrozenSet[str]]] = {}
    for c in diff.changes:
        text = src.head.get(c.path)
        if c.status != "A" or c.copied_from or not is_py(c.path) or text is None or base.owners(c.path) \
                or C.one_owner(head.owners(c.path), [F.PRODUCTION]) is None:
            continue
        try:
            names = defined_names(text)
        except SourceError:
            continue
        if names:
            added[c.path] = (text, names)
    if not added:
        return {}
    try:
        found = base_files_defining(diff, frozenset().union(*(names for _, names in added.values())))
    except GitDiffError:
        return {}  # no sources found: each owes its full floor
    texts = {p: t for p, t in base_texts(diff, [p for p in found if C.one_owner(base.owners(p), [F.PRODUCTION])]).items()
             if t is not None}
    out: Dict[str, Tuple[str, ...]] = {}
    for path, (text, _) in sorted(added.items()):
        try:
            sources = copied_code(text, texts)
        except SourceError:
            continue
        if sources:
            out[path] = sources
    return out


async def production_sources(head: F.Facts, comp: C.Comparison) -> Tuple[Dict[str, str], Dict[str, str]]:
    """Module name -> source of the production modules a changed oracle may call (for the
    tautology check), named through Pants' source roots; and path -> module name."""
    paths = sorted({p for t in head.targets if t.role == F.PRODUCTION for p in t.paths if is_py(p)})
    if not any(is_py(o.path) for o in comp.oracle_changes) or not paths:
        return {}, {}
    texts = await head_texts(paths)
    roots = await MultiGet(Get(SourceRoot, SourceRootRequest, SourceRootRequest.for_file(p)) for p in paths)
    out, modules = {}, {}
    for path, root in zip(paths, roots):
        module, _ = F.module_of(path, root.path)
        if module and path in texts:
            out[module] = texts[path]
            modules[path] = module
    return out, modules


def static_findings(base: F.Facts, head: F.Facts, comp: C.Comparison, src: Sources, policy: Policy,
                     symbols: Sequence[V.ChangedSymbolEvidence], baseline: Union[Baseline, str, None],
                     production: Tuple[Mapping[str, str], Mapping[str, str]],
                     reads: DataReads = DataReads()) -> List[C.Finding]:
    """What the gate finds before anything runs, beyond the comparison: locked-file drift,
    test-aware code, tautologies, baseline drift, exclusions."""
    production_sources, module_of_path = production
    oracle_paths = sorted({p for t in base.targets if (t.is_test and base.oracle_class(t.address) in (
        V.OracleClass.PROPERTY, V.OracleClass.LOCKED)) or t.role in F.LOCK_ROLES for p in t.paths})
    # Production code this diff adds or changes, by dotted name: no oracle may take its expected
    # values from it.
    diff_code = frozenset(f"{module_of_path[s.path]}.{s.qualname}" for s in symbols
                          if s.change in ("added", "changed") and s.qualname != MODULE and s.path in module_of_path)
    findings: List[C.Finding] = [*_drift(head), *_test_aware(base, comp, src, oracle_paths, policy.lane),
                                 *_tautologies(comp, head, src, production_sources, policy, diff_code),
                                 *_data_readers(reads, policy)]
    if isinstance(baseline, str):
        findings.append(C.Finding("BASELINE_DRIFT", baseline))
    findings += _excluded(head, comp, policy)
    for path, text in sorted(src.head.items()):
        encoding = declared_encoding(text) if is_py(path) and text is not None else None
        if encoding is not None and encoding not in READABLE_ENCODINGS:
            findings.append(C.Finding("SOURCE_ENCODING", f"SOURCE_ENCODING {path} declares its source encoding as "
                                      f"{encoding}: the gate reads Python source as UTF-8 and could not judge what "
                                      f"it runs (save it as UTF-8 and drop the declaration)", path))
    return findings


def locked_expected(head: F.Facts) -> Tuple[Tuple[str, str], ...]:
    """What each locked file held when the sandboxes started (the head's bytes; a mismatch with its
    lock is FIXTURE_DRIFT): a different digest after a run means the code under test rewrote it."""
    return tuple(sorted((t.paths[0], head.text_map[f"sha256:{t.paths[0]}"]) for t in head.targets
                        if t.sha256 and t.paths and f"sha256:{t.paths[0]}" in head.text_map))


def min_examples(base: F.Facts, head: F.Facts, comp: C.Comparison) -> Tuple[Tuple[str, int], ...]:
    """The example floor is the base's (lowering `min_examples` is an oracle change); a new property
    judges new code: it meets the strictest floor the base's properties set."""
    floors = tuple(sorted((a, t.min_examples or 0) for a, t in base.by_address.items()
                          if t.role == F.PROPERTY and a in head.by_address))
    standard = max((n for _, n in floors), default=0)
    return floors + tuple((a, max(standard, head.by_address[a].min_examples or 0)) for a, _ in comp.newcomers
                          if head.by_address[a].role == F.PROPERTY)
