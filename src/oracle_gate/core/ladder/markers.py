"""Flake markers read from syntax, never from words.

A marker is anything in test code that can weaken an outcome: a skip, skipif, xfail, flaky or
timeout mark (decorator, `pytestmark`, `pytest.param(marks=...)`, `add_marker`), a call that skips,
xfails or ends the session, a raised skip exception, an empty parametrization, Hypothesis settings
that shrink or relax the search, rerun keywords, a collection or run hook, and names pytest reads
to drop tests (`collect_ignore`, `__test__`). Names are resolved through imports and aliases, so
`import pytest as pt`, `from pytest import mark`, `m = pytest.mark; @m.skip` and
`getattr(pytest.mark, "skip")` are all the same marker; words in comments and strings never are.

`judge_config_change` does the same for the configuration files pytest, Hypothesis and coverage
read: it names each changed key of a section they read, and ignores every other section.
"""
from __future__ import annotations

import ast
import configparser
import json
import posixpath
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, Iterator, Optional, Set, Tuple

from ..source.symbols import NAMED, Names, SourceError, argument, bounded, constant, parse, render

KINDS = ("skip", "skipif", "xfail", "importorskip", "flaky", "timeout", "rerun", "settings", "exit", "hook",
         "deselect", "plugin")

# Callables (as canonical dotted names) whose use is a marker, by kind.
CALLABLE_MARKERS = {
    "pytest.mark.skip": "skip",
    "pytest.mark.skipif": "skipif",
    "pytest.mark.xfail": "xfail",
    "pytest.mark.flaky": "flaky",
    "pytest.mark.timeout": "timeout",
    "unittest.skip": "skip",
    "unittest.skipIf": "skipif",
    "unittest.skipUnless": "skipif",
    "unittest.expectedFailure": "xfail",
    "flaky.flaky": "flaky",
    "pytest.skip": "skip",
    "pytest.xfail": "xfail",
    "pytest.importorskip": "importorskip",
    "pytest.exit": "exit",
    "sys.exit": "exit",
    "os._exit": "exit",
    "os.abort": "exit",
    "_thread.interrupt_main": "exit",
    "exit": "exit",  # the builtins
    "quit": "exit",
}
MARK_NAMES = {name.rsplit(".", 1)[1]: kind for name, kind in CALLABLE_MARKERS.items() if name.startswith("pytest.mark.")}
RAISED_MARKERS = {
    "unittest.SkipTest": "skip",
    "pytest.skip.Exception": "skip",
    "pytest.xfail.Exception": "xfail",
    "pytest.exit.Exception": "exit",
    "SystemExit": "exit",
    "KeyboardInterrupt": "exit",
}
# Arguments that only explain (a reason or message): changing them adds no marker.
REASON_KEYWORDS = ("reason", "msg")
REASON_POSITIONS = {"pytest.skip": 0, "pytest.xfail": 0, "pytest.exit": 0, "unittest.skip": 0,
                    "pytest.mark.skip": 0, "unittest.skipIf": 1, "unittest.skipUnless": 1}
RERUN_KEYWORDS = ("reruns", "reruns_delay", "max_runs", "min_passes", "only_rerun", "rerun_except")
SETTINGS_KEYWORDS = ("max_examples", "deadline", "suppress_health_check", "phases", "derandomize",
                     "stateful_step_count")
SETTINGS_CALLS = ("hypothesis.settings", "hypothesis.settings.register_profile")
MARK_FACTORIES = ("pytest.Mark", "pytest.MarkDecorator", "_pytest.mark.structures.Mark")
# Hooks that can drop, reshape or re-judge items or outcomes.
HOOKS = frozenset({
    "pytest_collection_modifyitems", "pytest_deselected", "pytest_ignore_collect", "pytest_collect_file",
    "pytest_pycollect_makeitem", "pytest_pycollect_makemodule", "pytest_collection", "pytest_make_collect_report",
    "pytest_pyfunc_call", "pytest_sessionfinish", "pytest_report_teststatus", "pytest_fixture_setup",
})
HOOK_PREFIXES = ("pytest_runtest_",)
DESELECT_NAMES = ("collect_ignore", "collect_ignore_glob")


@dataclass(frozen=True, order=True)
class Marker:
    scope: str  # the qualname of the test, class or hook it sits on, or `<module>`
    kind: str
    detail: str  # the canonical callable and the arguments that matter, never a line number


def _arguments(call: ast.Call, name: str) -> str:
    drop = REASON_POSITIONS.get(name)
    parts = [render(a) for i, a in enumerate(call.args) if i != drop]
    parts += [f"{k.arg}={render(k.value)}" if k.arg else f"**{render(k.value)}"
              for k in call.keywords if k.arg not in REASON_KEYWORDS]
    return ", ".join(parts)


def _marker_name(node: ast.AST, names: Names) -> Optional[str]:
    """The canonical marker callable `node` refers to, if any."""
    for name in sorted(names.resolve(node)):
        for suffix in (".with_args", ".__call__"):
            name = name[: -len(suffix)] if name.endswith(suffix) else name
        if name in CALLABLE_MARKERS:
            return name
    # `<anything>.mark.skip` whose root is unknown is still a pytest mark.
    if (isinstance(node, ast.Attribute) and node.attr in MARK_NAMES and isinstance(node.value, ast.Attribute)
            and node.value.attr == "mark" and not any(n.startswith("pytest.") for n in names.resolve(node))):
        return f"pytest.mark.{node.attr}"
    if isinstance(node, ast.Attribute) and node.attr in ("with_args", "__call__"):
        return _marker_name(node.value, names)
    return None


def _consume(node: ast.AST, consumed: Set[int]) -> None:
    consumed.update(id(n) for n in ast.walk(node))


def _call_markers(call: ast.Call, owner: str, names: Names, consumed: Set[int], depth: int) -> Iterator[Marker]:
    func = call.func
    resolved = names.resolve(func)
    name = _marker_name(func, names)
    if name is not None:
        _consume(func, consumed)
        consumed.add(id(call))
        yield Marker(owner, CALLABLE_MARKERS[name], f"{name}({_arguments(call, name)})")
    for kw in call.keywords:
        if kw.arg in RERUN_KEYWORDS:
            yield Marker(owner, "rerun", f"{kw.arg}={render(kw.value)}")
    if resolved & set(SETTINGS_CALLS):
        yield from _settings_markers(call, owner)
    if "hypothesis.settings.load_profile" in resolved:
        yield Marker(owner, "settings", f"load_profile({_arguments(call, '')})")
    if resolved & set(MARK_FACTORIES) and call.args:
        for mark in names.strings(call.args[0]):
            if mark in MARK_NAMES:
                yield Marker(owner, MARK_NAMES[mark], f"pytest.mark.{mark}")
    if isinstance(func, ast.Attribute):
        if func.attr in ("add_marker", "applymarker") and call.args:
            for mark in names.strings(call.args[0]):
                if mark in MARK_NAMES:
                    yield Marker(owner, MARK_NAMES[mark], f"add_marker({mark})")
        elif func.attr == "skipTest":
            yield Marker(owner, "skip", "skipTest()")
        elif func.attr in ("append", "extend", "insert") and isinstance(func.value, ast.Name) \
                and func.value.id in DESELECT_NAMES:
            yield Marker(owner, "deselect", func.value.id)
    if resolved & {"exec", "eval", "compile"} and call.args and depth < 3:
        for code in names.strings(call.args[0]):  # code run from a string is still code
            try:
                found = _markers(code, depth + 1)
            except SourceError:
                continue
            yield from (Marker(owner, m.kind, m.detail) for m in found)
    parametrize = "pytest.mark.parametrize" in resolved or (isinstance(func, ast.Attribute) and func.attr == "parametrize")
    if parametrize:
        values = argument(call, 1, "argvalues")
        if isinstance(values, (ast.List, ast.Tuple, ast.Set)) and not values.elts:
            yield Marker(owner, "skip", "parametrize(empty)")


def _settings_markers(call: ast.Call, owner: str) -> Iterator[Marker]:
    for kw in call.keywords:
        if kw.arg in SETTINGS_KEYWORDS or kw.arg is None:
            yield Marker(owner, "settings", f"{kw.arg}={render(kw.value)}" if kw.arg else f"**{render(kw.value)}")


def _settings_reference(node: ast.Name, owner: str, names: Names) -> Iterator[Marker]:
    """`relaxed = settings(max_examples=5)` then `@relaxed`: the settings apply where used."""
    for binding in names.bindings(node):
        value = binding[1] if binding[0] == "value" else None
        if isinstance(value, ast.Call) and names.resolve(value.func) & set(SETTINGS_CALLS):
            yield from _settings_markers(value, owner)


def _hook_names(node: ast.AST, names: Names) -> Iterator[str]:
    if node.name in HOOKS or node.name.startswith(HOOK_PREFIXES):
        yield node.name
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and any(n.endswith("hookimpl") for n in names.resolve(decorator.func)):
            for kw in decorator.keywords:
                if kw.arg == "specname":
                    for spec in names.strings(kw.value):
                        if spec in HOOKS or spec.startswith(HOOK_PREFIXES):
                            yield spec


def _assigned_names(node: ast.AST) -> Iterator[Tuple[str, Optional[ast.AST]]]:
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets, value = [node.target], node.value
    else:
        return
    for target in targets:
        for leaf in ast.walk(target):
            if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                yield leaf.id, value
            elif isinstance(leaf, ast.Attribute) and isinstance(leaf.ctx, ast.Store):
                yield leaf.attr, value


@bounded
def flake_markers(source: str) -> FrozenSet[Marker]:
    """Every flake marker in a test or conftest source (SourceError if it does not parse)."""
    return _markers(source, 0)


def _markers(source: str, depth: int) -> FrozenSet[Marker]:
    names = Names(parse(source))
    out: Set[Marker] = set()
    consumed: Set[int] = set()
    for node, owner in names.walk():  # breadth first: a call before its callee
        if isinstance(node, ast.Call):
            out.update(_call_markers(node, owner, names, consumed, depth))
        if isinstance(node, (ast.Name, ast.Attribute, ast.Call)) and id(node) not in consumed \
                and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            name = _marker_name(node, names)  # a reference, or a call that returns a mark (getattr, ...)
            if name is not None:
                _consume(node.func if isinstance(node, ast.Call) else node, consumed)
                out.add(Marker(owner, CALLABLE_MARKERS[name], f"{name}()"))  # `@mark.skip` is `@mark.skip()`
            elif isinstance(node, ast.Name):
                out.update(_settings_reference(node, owner, names))
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            for name in sorted(names.resolve(exc) & set(RAISED_MARKERS)):
                out.add(Marker(owner, RAISED_MARKERS[name], f"raise {name}"))
        elif isinstance(node, NAMED) and not isinstance(node, ast.ClassDef):
            out.update(Marker(owner, "hook", hook) for hook in _hook_names(node, names))
        for assigned, value in _assigned_names(node):
            if assigned in DESELECT_NAMES:
                out.add(Marker(owner, "deselect", assigned))
            elif assigned == "__test__" and not (value is not None and constant(value) == (True, True)):
                out.add(Marker(owner, "deselect", "__test__"))
            elif assigned == "pytest_plugins":
                out.add(Marker(owner, "plugin", f"pytest_plugins={render(value) if value is not None else ''}"))
    return frozenset(out)


def added_markers(base: Optional[str], head: Optional[str]) -> FrozenSet[Marker]:
    """Markers in `head` that `base` does not have on the same scope (None: the file is absent).
    Moving a test or its marker around the file adds nothing."""
    after = flake_markers(head) if head is not None else frozenset()
    before = flake_markers(base) if base is not None else frozenset()
    return after - before


# ---------------------------------------------------------------------------------------------
# Configuration files.

CONFIG_FILES = ("pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", ".coveragerc")
# Sections each INI file's readers (pytest, coverage's run phase and its plugins) take settings from.
INI_SECTIONS = {
    "pytest.ini": ("pytest",),
    "tox.ini": ("pytest", "coverage:run"),
    "setup.cfg": ("tool:pytest", "coverage:run"),
    ".coveragerc": ("run",),
}
# pyproject.toml tables under `tool` that are read at test time: pytest (ini_options and the
# native table of pytest 9), Hypothesis, coverage's run phase.
TOML_WATCHED = (("tool", "pytest"), ("tool", "hypothesis"), ("tool", "coverage", "run"))
PRESENT = "present"


class ConfigError(ValueError):
    """A configuration file this module cannot read. The message is one line."""


@dataclass(frozen=True, order=True)
class ConfigFinding:
    path: str
    section: str
    key: str  # "" when the section itself appeared or disappeared
    base: Optional[str]  # None: absent at the base
    head: Optional[str]  # None: absent at the head

    @property
    def line(self) -> str:
        where = f"{self.section}.{self.key}" if self.key else f"[{self.section}]"
        return f"{self.path} {where}: {self.base!r} -> {self.head!r}"


def _ini(text: str, path: str, sections: Tuple[str, ...], always: bool) -> Dict[str, Dict[str, str]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False, default_section="\0",
                                       comment_prefixes=("#", ";"), inline_comment_prefixes=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # pytest keys are case-sensitive
    try:
        parser.read_string(text, source=path)
    except configparser.Error as e:
        raise ConfigError(f"{path}: {str(e).splitlines()[0]}") from None
    out = {}
    for section in sections:
        if parser.has_section(section):
            out[section] = {
                key: "\n".join(line.strip() for line in value.splitlines() if line.strip())
                for key, value in parser.items(section, raw=True)
            }
        elif always:  # pytest.ini is the configuration even when it is empty
            out[section] = {}
    return out


def _load_toml(text: str, path: str) -> dict:
    loader = None
    for module in ("tomllib", "tomli", "toml"):
        try:
            loader = __import__(module)
            break
        except ImportError:
            continue
    if loader is None:
        raise ConfigError(f"{path}: reading TOML needs Python 3.11+ (tomllib) or the tomli or toml package")
    try:
        return loader.loads(text)
    except Exception as e:  # each library has its own decode error type
        raise ConfigError(f"{path}: invalid TOML: {str(e).splitlines()[0]}") from None


def _toml(text: str, path: str) -> Dict[str, Dict[str, str]]:
    out: Dict[str, Dict[str, str]] = {}

    def walk(table: dict, where: Tuple[str, ...]) -> None:
        watched = any(where[: len(w)] == w for w in TOML_WATCHED)
        on_the_way = any(w[: len(where)] == where for w in TOML_WATCHED)
        if watched:
            out.setdefault(".".join(where), {})
        for key, value in table.items():
            if isinstance(value, dict) and (watched or on_the_way):
                walk(value, where + (str(key),))
            elif watched:
                out[".".join(where)][str(key)] = json.dumps(value, sort_keys=True, default=str)

    walk(_load_toml(text, path), ())
    return out


def _sections(path: str, text: Optional[str]) -> Dict[str, Dict[str, str]]:
    if text is None:
        return {}
    name = posixpath.basename(path.replace("\\", "/"))
    if name == "pyproject.toml":
        return _toml(text, path)
    return _ini(text, path, INI_SECTIONS[name], always=name == "pytest.ini")


def judges_a_test(config_path: str, test_paths: Iterable[str]) -> bool:
    """pytest reads a configuration file only for tests at or below its directory (it searches
    upwards from the tests it runs): a file above no remaining test weakens no judge."""
    directory = posixpath.dirname(config_path.replace("\\", "/"))
    return not directory or any(p.startswith(directory + "/") for p in test_paths)


def judge_config_change(path: str, base_text: Optional[str], head_text: Optional[str]) -> Tuple[ConfigFinding, ...]:
    """Each changed key (and each appeared or vanished section) of the sections pytest, Hypothesis
    and coverage's run phase read from `path`; changes anywhere else are not findings. None text:
    the file is absent on that side. ConfigError for a file name this does not judge or a file
    that does not parse."""
    name = posixpath.basename(path.replace("\\", "/"))
    if name not in CONFIG_FILES:
        raise ConfigError(f"{path}: not a configuration file this judges (one of {', '.join(CONFIG_FILES)})")
    before, after = _sections(path, base_text), _sections(path, head_text)
    out = []
    for section in sorted(set(before) | set(after)):
        if (section in before) != (section in after):
            out.append(ConfigFinding(path, section, "", PRESENT if section in before else None,
                                     PRESENT if section in after else None))
        b, h = before.get(section, {}), after.get(section, {})
        for key in sorted(set(b) | set(h)):
            if b.get(key) != h.get(key):
                out.append(ConfigFinding(path, section, key, b.get(key), h.get(key)))
    return tuple(out)
