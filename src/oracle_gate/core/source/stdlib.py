"""What the standard library's modules are, and which of their names compute from their arguments
alone: what a `pure` region's code may read (core/ladder/testaware.py's `machine_reads`).

An allowlist, not a list of channels: a name of the standard library reads the machine, the process
or the world (its clock, platform, interpreter flags, files, threads, memory, environment) unless it
is named here as computing from its arguments alone. Names outside the standard library (the
repository's own, an installed package's) are judged where they are defined, not here. Pure and
stdlib only.
"""
from __future__ import annotations

import functools
import importlib
import types
from typing import Any, FrozenSet, Iterable

# The standard library's top-level modules (`sys.stdlib_module_names` of CPython 3.10, which 3.9
# lacks), private ones included.
STDLIB_MODULES = frozenset({
    "__future__", "_abc", "_aix_support", "_ast", "_asyncio", "_bisect", "_blake2", "_bootsubprocess", "_bz2",
    "_codecs", "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw",
    "_collections", "_collections_abc", "_compat_pickle", "_compression", "_contextvars", "_crypt", "_csv",
    "_ctypes", "_curses", "_curses_panel", "_datetime", "_dbm", "_decimal", "_elementtree", "_frozen_importlib",
    "_frozen_importlib_external", "_functools", "_gdbm", "_hashlib", "_heapq", "_imp", "_io", "_json", "_locale",
    "_lsprof", "_lzma", "_markupbase", "_md5", "_msi", "_multibytecodec", "_multiprocessing", "_opcode",
    "_operator", "_osx_support", "_overlapped", "_pickle", "_posixshmem", "_posixsubprocess", "_py_abc",
    "_pydecimal", "_pyio", "_queue", "_random", "_scproxy", "_sha1", "_sha256", "_sha3", "_sha512", "_signal",
    "_sitebuiltins", "_socket", "_sqlite3", "_sre", "_ssl", "_stat", "_statistics", "_string", "_strptime",
    "_struct", "_symtable", "_thread", "_threading_local", "_tkinter", "_tracemalloc", "_uuid", "_warnings",
    "_weakref", "_weakrefset", "_winapi", "_zoneinfo", "abc", "aifc", "antigravity", "argparse", "array", "ast",
    "asynchat", "asyncio", "asyncore", "atexit", "audioop", "base64", "bdb", "binascii", "binhex", "bisect",
    "builtins", "bz2", "cProfile", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs", "codeop",
    "collections", "colorsys", "compileall", "concurrent", "configparser", "contextlib", "contextvars", "copy",
    "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal", "difflib", "dis",
    "distutils", "doctest", "email", "encodings", "ensurepip", "enum", "errno", "faulthandler", "fcntl", "filecmp",
    "fileinput", "fnmatch", "fractions", "ftplib", "functools", "gc", "genericpath", "getopt", "getpass", "gettext",
    "glob", "graphlib", "grp", "gzip", "hashlib", "heapq", "hmac", "html", "http", "idlelib", "imaplib", "imghdr",
    "imp", "importlib", "inspect", "io", "ipaddress", "itertools", "json", "keyword", "lib2to3", "linecache",
    "locale", "logging", "lzma", "mailbox", "mailcap", "marshal", "math", "mimetypes", "mmap", "modulefinder",
    "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt", "ntpath", "nturl2path", "numbers",
    "opcode", "operator", "optparse", "os", "ossaudiodev", "pathlib", "pdb", "pickle", "pickletools", "pipes",
    "pkgutil", "platform", "plistlib", "poplib", "posix", "posixpath", "pprint", "profile", "pstats", "pty", "pwd",
    "py_compile", "pyclbr", "pydoc", "pydoc_data", "pyexpat", "queue", "quopri", "random", "re", "readline",
    "reprlib", "resource", "rlcompleter", "runpy", "sched", "secrets", "select", "selectors", "shelve", "shlex",
    "shutil", "signal", "site", "smtpd", "smtplib", "sndhdr", "socket", "socketserver", "spwd", "sqlite3",
    "sre_compile", "sre_constants", "sre_parse", "ssl", "stat", "statistics", "string", "stringprep", "struct",
    "subprocess", "sunau", "symtable", "sys", "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile",
    "termios", "textwrap", "this", "threading", "time", "timeit", "tkinter", "token", "tokenize", "trace",
    "traceback", "tracemalloc", "tty", "turtle", "turtledemo", "types", "typing", "unicodedata", "unittest",
    "urllib", "uu", "uuid", "venv", "warnings", "wave", "weakref", "webbrowser", "winreg", "winsound", "wsgiref",
    "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo"
})
# Modules whose every name computes from its arguments alone (but READS_IN_PURE_MODULES).
PURE_MODULES = frozenset({
    "__future__", "abc", "array", "ast", "base64", "binascii", "bisect", "bz2", "calendar", "cmath", "codecs",
    "collections", "colorsys", "contextlib", "copy", "copyreg", "csv", "dataclasses", "datetime", "decimal",
    "difflib", "enum", "errno", "fnmatch", "fractions", "functools", "graphlib", "hashlib", "heapq", "hmac",
    "html", "io", "ipaddress", "itertools", "json", "keyword", "lzma", "marshal", "math", "numbers",
    "operator", "pickle", "pprint", "quopri", "re", "reprlib", "shlex", "stat", "statistics", "string",
    "stringprep", "struct", "textwrap", "token", "tokenize", "types", "typing", "unicodedata", "warnings",
    "weakref", "xml", "zlib", "zoneinfo", "configparser", "email",
})
# Their names that read the clock, the files or the process's state.
READS_IN_PURE_MODULES = frozenset({
    "datetime.datetime.now", "datetime.datetime.today", "datetime.datetime.utcnow", "datetime.date.today",
    "datetime.datetime.fromtimestamp", "datetime.date.fromtimestamp",
    # the machine's zone: a naive time's timestamp, a time moved into the local zone
    "datetime.datetime.timestamp", "datetime.datetime.astimezone", "io.open", "io.open_code", "io.FileIO",
    "codecs.open", "bz2.open", "bz2.BZ2File", "lzma.open", "lzma.LZMAFile", "xml.etree.ElementTree.parse",
    "xml.etree.ElementTree.iterparse", "xml.dom.minidom.parse", "xml.sax.parse",
    # the thread's decimal context: its precision, rounding and traps, set by the program
    "decimal.getcontext", "decimal.setcontext", "decimal.DefaultContext",
    # the process's codec registry: what another call registered is what an `errors=` name means
    # (a nineteenth round's d37 made every strict decode replace from a pure `split`)
    "codecs.register", "codecs.register_error", "codecs.lookup_error", "codecs.unregister",
})
# The names of other modules that compute from their arguments alone (or name a constant of the
# language, not of the machine: `sys.maxsize` is the machine's word, a seventeenth round's 32-bit bomb).
PURE_NAMES_ELSEWHERE = frozenset({
    "sys.maxunicode", "sys.float_info", "sys.intern", "sys.exc_info", "sys.stdout.write", "sys.stderr.write",
    "sys.stdout.flush", "sys.stderr.flush", "os.fspath", "os.PathLike", "os.path.join", "os.path.split", "os.path.splitext",
    "os.path.basename", "os.path.dirname", "os.path.normpath", "os.path.normcase", "os.path.isabs",
    "os.path.commonpath", "os.path.commonprefix", "os.path.splitdrive", "posixpath.join", "posixpath.split",
    "posixpath.splitext", "posixpath.basename", "posixpath.dirname", "posixpath.normpath", "posixpath.isabs",
    "pathlib.PurePath", "pathlib.PurePosixPath", "pathlib.PureWindowsPath", "random.Random", "uuid.UUID",
    "uuid.uuid3", "uuid.uuid5", "uuid.NAMESPACE_DNS", "uuid.NAMESPACE_URL", "uuid.NAMESPACE_OID",
    "uuid.NAMESPACE_X500", "urllib.parse", "time.struct_time", "gzip.decompress", "traceback.format_exception_only",
    # an object's own facts (its class, its signature), not the interpreter's
    "inspect.signature", "inspect.Signature", "inspect.Parameter", "inspect.getmro", "inspect.isclass",
    "inspect.isfunction", "inspect.ismethod", "inspect.isgenerator", "inspect.isgeneratorfunction",
    "inspect.iscoroutinefunction", "inspect.isawaitable", "inspect.isabstract", "inspect.isbuiltin",
    "inspect.isroutine", "inspect.ismodule", "inspect.getattr_static", "inspect.unwrap", "inspect.cleandoc",
    "inspect.getfullargspec",
    # constants of the protocol, and the module's own name (`logging.getLogger(__spec__.name)`)
    "http.HTTPStatus", "http.HTTPMethod", "__spec__.name", "__spec__.parent",
    # logging: the calls that say something (what a message says is never judged) and its levels and
    # classes; not what a logger holds (its level, handlers, filters: the process's configuration)
    "logging.getLogger", "logging.debug", "logging.info", "logging.warning", "logging.warn", "logging.error",
    "logging.exception", "logging.critical", "logging.log", "logging.NOTSET", "logging.DEBUG", "logging.INFO",
    "logging.WARNING", "logging.WARN", "logging.ERROR", "logging.CRITICAL", "logging.FATAL", "logging.LoggerAdapter",
    "logging.Formatter", "logging.Handler", "logging.NullHandler", "logging.StreamHandler", "logging.Filter",
    "logging.LogRecord", "logging.getLevelName", "logging.getLogger().name", "logging.getLogger().getChild",
    *(f"logging.getLogger().{said}" for said in ("debug", "info", "warning", "warn", "error", "exception",
                                                  "critical", "log")),
    # a lock a function makes to serialise its own work reads nothing
    "threading.Lock", "threading.RLock", "_thread.allocate_lock", "queue.Empty", "queue.Full",
})
# What a `concurrent` region's code may read besides: its threads, queues and processes, how many
# CPUs it may use (to size a pool), and the clocks its timeouts wait on.
CONCURRENCY_NAMES = frozenset({
    "threading", "_thread", "queue", "concurrent.futures", "multiprocessing", "asyncio", "contextvars",
    "selectors", "os.cpu_count", "os.sched_getaffinity", "time.monotonic", "time.monotonic_ns",
    "time.perf_counter", "time.perf_counter_ns", "time.sleep", "time.time", "time.time_ns",
})
# Calls whose result is an object of the process's state (a logger: its level, handlers and filters
# are what the program's configuration set), by what code that reads it is said to read
# (`log = logging.getLogger(__name__)`; `log.level` reads `logging.getLogger().level`).
STATE_RESULTS = {"logging.getLogger": "logging.getLogger()", "logging.getLogger().getChild": "logging.getLogger()",
                 "logging.LoggerAdapter": "logging.getLogger()"}
# Builtins that read the interpreter's state or the world (and the module's own file).
READING_BUILTINS = frozenset({
    "open", "input", "globals", "locals", "exec", "eval", "breakpoint",
    "__file__", "__spec__", "__loader__", "__cached__", "__path__", "__builtins__",
})


# Of READS_IN_PURE_MODULES, those that read only the machine's time zone where a zone is not passed,
# by the arguments that pass it (that many by position, or `tz=`): `datetime.fromtimestamp(t,
# tz=timezone.utc)`, `d.astimezone(timezone.utc)` read nothing.
ZONED = {"fromtimestamp": 2, "astimezone": 1}
# The interpreter's version: read where a comparison decides a branch (`if sys.version_info >= (3,
# 10):`, which the mutation rules judge branch by branch), a read anywhere else (`5_000 * (1 -
# sys.version_info[1] // 10)`: the oracles ran on one version, and a result keyed on it is judged
# on that version's answer alone).
VERSION_NAMES = frozenset({"sys.version_info", "sys.hexversion"})
# Attributes that reach what an object's code runs in (its module's globals, the builtins, frames,
# the classes loaded): a name through one reads whatever the interpreter holds (`os.path.join.__globals__
# ["sys"]`, `"{0.__globals__[sys]}".format(f)`).
REFLECTION = frozenset({"__globals__", "__builtins__", "__subclasses__", "__closure__", "__code__", "__loader__",
                        "__spec__", "__import__", "f_globals", "f_locals", "f_back", "f_builtins", "gi_frame",
                        "cr_frame", "tb_frame"})
# Names that read the machine where called with no argument at all: an unseeded generator seeds
# itself from the system's entropy (`random.Random()`; `Random(seed)` reads nothing), a decimal
# context made from the thread's (`decimal.localcontext()`: its rounding and traps are what the
# program set; `localcontext(Context(...))` reads nothing).
UNSEEDED = frozenset({"random.Random", "decimal.localcontext"})
# Generators whose draws depend on every draw before: one the module holds (`_JITTER =
# random.Random(5)`), called from a function, gives each call what the calls before it left.
MODULE_GENERATORS = frozenset({"random.Random"})
# The pure modules' classes with class methods among READS_IN_PURE_MODULES: an instance, or an
# instance the class holds, reaches them too (`datetime.date(2020, 1, 1).today()`,
# `datetime.datetime.min.now()`).
READING_CLASSES = frozenset({"datetime.date", "datetime.datetime"})
_CLASS_READERS = {c: frozenset(n[len(c) + 1:] for n in READS_IN_PURE_MODULES if n.rpartition(".")[0] == c)
                  for c in READING_CLASSES}
# A format's directives that the locale fills in: a number's `n` (its digits grouped and its point
# as the locale writes them), and strftime's names and forms of days, months, times and dates.
LOCALE_DIRECTIVES = ("%a", "%A", "%b", "%B", "%c", "%p", "%x", "%X")


def through_an_instance(name: str) -> bool:
    """Whether a dotted name reaches a class method of READING_CLASSES that reads the machine
    through something under that class (an instance made of it, a class attribute)."""
    return any(name.startswith(c + ".") and not readers.isdisjoint(name[len(c) + 1:].split("."))
               for c, readers in _CLASS_READERS.items())


def given_a_zone(name: str, call: Any) -> bool:
    """Whether a call (an `ast.Call`) of a ZONED method passes it a zone, by position or `tz=`."""
    method = name.rpartition(".")[2]
    return method in ZONED and (len(call.args) >= ZONED[method] or any(k.arg == "tz" for k in call.keywords))


def locale_formatted(spec: str) -> str:
    """The directive of a format (a format spec, or strftime's format) that the locale fills in, or ""."""
    found = [d for d in LOCALE_DIRECTIVES if d in spec]
    return found[0] if found else "n" if spec.endswith("n") and "%" not in spec else ""


def under(name: str, names: Iterable[str]) -> bool:
    """Whether a dotted name is one of `names` or a name under one."""
    return any(name == n or name.startswith(n + ".") for n in names)


# The roots of the names above, whose modules may be imported to see what a name reaches (each
# computes from its arguments, or is the interpreter's own: importing one does nothing).
_IMPORTABLE = frozenset(n.split(".", 1)[0] for n in (*PURE_MODULES, *PURE_NAMES_ELSEWHERE, *CONCURRENCY_NAMES)
                        if not n.startswith("_")) - {"__spec__"}


@functools.lru_cache(maxsize=4096)
def rerooted(name: str) -> str:
    """A name as the module it passes through names it: `datetime.sys.executable` (the `sys` that
    `datetime` imported) is `sys.executable`, `os.path.os.cpu_count` is `os.cpu_count`; any other
    name as it is. Only modules of _IMPORTABLE are imported to see it."""
    parts = name.split(".")
    if parts[0] not in _IMPORTABLE:
        return name
    try:
        found: object = importlib.import_module(parts[0])
        for i in range(1, len(parts)):
            if not hasattr(found, parts[i]) and isinstance(found, types.ModuleType) and not parts[i].startswith("__"):
                importlib.import_module(".".join(parts[:i + 1]))  # a submodule not imported yet
            found = getattr(found, parts[i])
            if isinstance(found, types.ModuleType) and found.__name__ != ".".join(parts[:i + 1]):
                return rerooted(".".join((found.__name__, *parts[i + 1:])))
    except Exception:  # noqa: BLE001 (a name that is not there reaches no other module)
        return name
    return name


def reads_the_machine(name: str, allowed: FrozenSet[str] = frozenset()) -> bool:
    """Whether a dotted name (as code refers to it, resolved through its imports: `sys.flags.
    no_user_site`, `datetime.date.today`, `open`) reads something other than its arguments: a
    name of the standard library's not named as computing from its arguments alone (nor under
    `allowed`), or a reading builtin, or a name through a reflecting attribute (REFLECTION), or
    one through another module (`datetime.sys`: `rerooted`), or a private name of a pure module
    (its state: `json._default_decoder`). A name outside the standard library is not judged here."""
    if not REFLECTION.isdisjoint(name.split(".")[1:]):
        return True
    name = rerooted(name)
    root = name.split(".", 1)[0]
    if under(name, allowed) or under(name, PURE_NAMES_ELSEWHERE):
        return False
    if root in READING_BUILTINS:
        return True
    if root not in STDLIB_MODULES or root == "builtins":
        return False
    if root in PURE_MODULES and any(p.startswith("_") and not p.startswith("__") for p in name.split(".")[1:]):
        return True  # a module's private state (`json._default_decoder`, which every `json.loads` uses)
    return under(name, READS_IN_PURE_MODULES) or through_an_instance(name) if root in PURE_MODULES else True


def machine_names(names: Iterable[str], allowed: FrozenSet[str] = frozenset()) -> FrozenSet[str]:
    """Of `names`, those that read the machine (but those under `allowed`)."""
    return frozenset(n for n in names if reads_the_machine(n, allowed))
