"""A small Pants repository shaped like lablup/backend.ai, for adoption tests.

`new_monorepo(tmp)` writes it as a fresh git repository with one commit on `main` and returns a
`harness.Repo`. It is the state a user starts adoption from: plain `python_tests` only (class E
everywhere, no properties, no locked fixtures, no ledger, no `oracle_region`), with what made
adoption hard in the real repository:

- a `src/ai/backend/<package>` layout, one `python_sources(name="src")` per package, a resource;
- one module of each region kind: `common/types.py` (shared value types), `common/utils.py`
  (pure helpers), `manager/db.py` (sqlite3 store: state), `manager/models.py` (row contracts:
  schema), `manager/scheduler.py` (asyncio: concurrent), `client/http.py` (HTTP client: io),
  `client/config.py` (pure);
- `python_test_utils` twice: `src/ai/backend/testutils` (helpers) and `tests/manager/conftest.py`
  (a fixture over a `files` fixture directory);
- tracked files no target owns: `MANIFEST.in`, a PEP 561 `py.typed` marker in a package directory
  that also holds code, a Gradle-built generator under `codegen/`, an empty `tests/__init__.py` marker;
- environment-bound tests: a `skipif` on an unset variable, a `skipif` on a missing `docker`
  binary (passes where docker is on the sandbox PATH), an `xfail` while etcd is absent, and a
  test that fails because the manager it talks to is not running (127.0.0.1, an unused port).

`./pants test ::` (the repository's own behaviour, `EXPECTED` below): every target passes except
`tests/client/test_http.py`, whose one failure is the missing service.
"""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Dict, Optional

from e2e.harness import LAUNCHER, PLUGIN_SRC, Repo

# Outcome per test (pytest node id) under `pants test ::` without a service: "passed",
# "skipped", "xfailed", "failed", or "passed|skipped" (the docker test: on the PATH or not).
EXPECTED: Dict[str, str] = {
    "tests/common/test_types.py::test_slot_parse_and_format_round_trip": "passed",
    "tests/common/test_types.py::test_slot_addition": "passed",
    "tests/common/test_types.py::test_slot_fits": "passed",
    "tests/common/test_types.py::test_status_is_terminal": "passed",
    "tests/common/test_utils.py::test_parse_size": "passed",
    "tests/common/test_utils.py::test_chunked": "passed",
    "tests/manager/test_db.py::test_add_and_get": "passed",
    "tests/manager/test_db.py::test_status_update": "passed",
    "tests/manager/test_db.py::test_seeded_sessions": "passed",
    "tests/manager/test_models.py::test_row_round_trip": "passed",
    "tests/manager/test_models.py::test_rejects_negative_memory": "passed",
    "tests/manager/test_scheduler.py::test_schedule_respects_capacity": "passed",
    "tests/manager/test_scheduler.py::test_dispatcher_runs_every_job": "passed",
    "tests/manager/test_config_sync.py::test_watch_etcd_prefix": "xfailed",
    "tests/client/test_config.py::test_config_from_env": "passed",
    "tests/client/test_config.py::test_config_defaults": "passed",
    "tests/client/test_http.py::test_build_url": "passed",
    "tests/client/test_http.py::test_status_of_running_manager": "failed",
    "tests/client/test_http.py::test_against_live_endpoint": "skipped",
    "tests/client/test_http.py::test_docker_cli_present": "passed|skipped",
}

# Production targets and the region kind each one is shaped as (what a suggestion should find).
SHAPES: Dict[str, str] = {
    "src/ai/backend/common/__init__.py": "pure",
    "src/ai/backend/common/sample-config.json": "pure",
    "src/ai/backend/common/types.py": "schema",
    "src/ai/backend/common/utils.py": "pure",
    "src/ai/backend/manager/__init__.py": "pure",
    "src/ai/backend/manager/db.py": "state",
    "src/ai/backend/manager/models.py": "schema",
    "src/ai/backend/manager/scheduler.py": "concurrent",
    "src/ai/backend/client/__init__.py": "pure",
    "src/ai/backend/client/config.py": "pure",
    "src/ai/backend/client/http.py": "io",
    "src/ai/backend/testutils/__init__.py": "pure",
    "src/ai/backend/testutils/bootstrap.py": "io",
}


def _pants_toml() -> str:
    return textwrap.dedent(f"""\
        [GLOBAL]
        pants_version = "2.17.1"
        pythonpath = ["{PLUGIN_SRC}"]
        backend_packages = ["pants.backend.python", "oracle_gate"]
        ignore_warnings = ["DEPRECATED: Running Pants in an external Python interpreter"]

        [source]
        root_patterns = ["/src", "/tests"]

        [python]
        interpreter_constraints = ["CPython==3.9.*"]

        [python-infer]
        use_rust_parser = true

        [pytest]
        args = ["-v"]
        """)


FILES: Dict[str, str] = {
    ".gitignore": "dist/\n.pants.d/\n.pids/\n__pycache__/\n",
    "requirements.txt": "hypothesis==6.141.1\npytest==7.0.1\n",
    "BUILD": 'python_requirements(name="reqs", source="requirements.txt")\n',
    # Tracked files no Pants target owns: packaging, another build system's generator, test data.
    "MANIFEST.in": "include README.md\n",
    "codegen/build.gradle": "apply plugin: 'java'\n",
    "codegen/src/main/java/Gen.java": "public class Gen {}\n",
    "tests/__init__.py": "",
    # -- common ---------------------------------------------------------------------------
    "src/ai/backend/common/BUILD": textwrap.dedent("""\
        python_sources(name="src", dependencies=[":resources"])

        resources(name="resources", sources=["*.json"])
        """),
    "src/ai/backend/common/__init__.py": '__version__ = "24.03.0"\n',
    "src/ai/backend/common/py.typed": "",
    "src/ai/backend/common/sample-config.json": '{"manager": {"endpoint": "http://127.0.0.1:8081"}}\n',
    "src/ai/backend/common/types.py": textwrap.dedent('''\
        """Value types shared by every package."""
        from __future__ import annotations

        import enum
        from dataclasses import dataclass
        from decimal import Decimal

        from .utils import format_size, parse_size


        class SessionStatus(str, enum.Enum):
            PENDING = "PENDING"
            SCHEDULED = "SCHEDULED"
            RUNNING = "RUNNING"
            TERMINATED = "TERMINATED"

            @property
            def is_terminal(self) -> bool:
                return self is SessionStatus.TERMINATED


        @dataclass(frozen=True)
        class ResourceSlot:
            cpu: Decimal
            mem: int

            @classmethod
            def parse(cls, text: str) -> "ResourceSlot":
                fields = dict(part.split("=", 1) for part in text.split(","))
                return cls(Decimal(fields["cpu"]), parse_size(fields["mem"]))

            def format(self) -> str:
                return f"cpu={self.cpu},mem={format_size(self.mem)}"

            def __add__(self, other: "ResourceSlot") -> "ResourceSlot":
                return ResourceSlot(self.cpu + other.cpu, self.mem + other.mem)

            def fits(self, capacity: "ResourceSlot") -> bool:
                return self.cpu <= capacity.cpu and self.mem <= capacity.mem
        '''),
    "src/ai/backend/common/utils.py": textwrap.dedent('''\
        """Small pure helpers."""
        from __future__ import annotations

        from typing import Iterable, Iterator, List, TypeVar

        T = TypeVar("T")
        _UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}


        def parse_size(text: str) -> int:
            text = text.strip().lower()
            unit = text[-1] if text and text[-1] in _UNITS else ""
            return int(text[: len(text) - len(unit)]) * _UNITS[unit]


        def format_size(size: int) -> str:
            for unit in ("g", "m", "k"):
                if size and size % _UNITS[unit] == 0:
                    return f"{size // _UNITS[unit]}{unit}"
            return str(size)


        def chunked(items: Iterable[T], n: int) -> Iterator[List[T]]:
            chunk: List[T] = []
            for item in items:
                chunk.append(item)
                if len(chunk) == n:
                    yield chunk
                    chunk = []
            if chunk:
                yield chunk


        def clamp_size(size: int, limit: int) -> int:
            """A legacy helper no test calls."""
            return min(size, limit)
        '''),
    # -- manager --------------------------------------------------------------------------
    "src/ai/backend/manager/BUILD": 'python_sources(name="src")\n',
    "src/ai/backend/manager/__init__.py": "",
    "src/ai/backend/manager/models.py": textwrap.dedent('''\
        """Row contracts of the session table."""
        from __future__ import annotations

        from dataclasses import dataclass
        from typing import Tuple

        from ai.backend.common.types import ResourceSlot, SessionStatus


        @dataclass(frozen=True)
        class SessionRow:
            id: str
            owner: str
            status: SessionStatus
            slot: ResourceSlot

            def __post_init__(self) -> None:
                if self.slot.mem < 0 or self.slot.cpu < 0:
                    raise ValueError(f"negative resources in session {self.id}")

            def to_row(self) -> Tuple[str, str, str, str]:
                return (self.id, self.owner, self.status.value, self.slot.format())

            @classmethod
            def from_row(cls, row: Tuple[str, str, str, str]) -> "SessionRow":
                return cls(row[0], row[1], SessionStatus(row[2]), ResourceSlot.parse(row[3]))
        '''),
    "src/ai/backend/manager/db.py": textwrap.dedent('''\
        """The session store (sqlite3 stands in for the real database)."""
        from __future__ import annotations

        import sqlite3
        from typing import List, Optional

        from ai.backend.common.types import SessionStatus

        from .models import SessionRow

        SCHEMA = "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, owner TEXT, status TEXT, slot TEXT)"


        class SessionStore:
            def __init__(self, path: str) -> None:
                self.conn = sqlite3.connect(path)
                self.conn.execute(SCHEMA)

            def add(self, row: SessionRow) -> None:
                with self.conn:
                    self.conn.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)", row.to_row())

            def get(self, session_id: str) -> Optional[SessionRow]:
                found = self.conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
                return SessionRow.from_row(found) if found else None

            def by_status(self, status: SessionStatus) -> List[SessionRow]:
                rows = self.conn.execute("SELECT * FROM sessions WHERE status = ? ORDER BY id", (status.value,))
                return [SessionRow.from_row(r) for r in rows]

            def set_status(self, session_id: str, status: SessionStatus) -> None:
                with self.conn:
                    self.conn.execute("UPDATE sessions SET status = ? WHERE id = ?", (status.value, session_id))

            def close(self) -> None:
                self.conn.close()
        '''),
    "src/ai/backend/manager/scheduler.py": textwrap.dedent('''\
        """Scheduling pending sessions onto a capacity, and a small asyncio job dispatcher."""
        from __future__ import annotations

        import asyncio
        from typing import Awaitable, Callable, List, Sequence

        from ai.backend.common.types import ResourceSlot

        from .models import SessionRow


        def schedule(pending: Sequence[SessionRow], capacity: ResourceSlot) -> List[SessionRow]:
            """First fit in arrival order: the sessions that fit together into `capacity`."""
            chosen: List[SessionRow] = []
            used = ResourceSlot(capacity.cpu - capacity.cpu, 0)
            for row in pending:
                if (used + row.slot).fits(capacity):
                    chosen.append(row)
                    used = used + row.slot
            return chosen


        class Dispatcher:
            """Runs jobs with at most `concurrency` at a time."""

            def __init__(self, concurrency: int) -> None:
                self.concurrency = concurrency

            async def run(self, jobs: Sequence[Callable[[], Awaitable[str]]]) -> List[str]:
                gate = asyncio.Semaphore(self.concurrency)

                async def one(job: Callable[[], Awaitable[str]]) -> str:
                    async with gate:
                        return await job()

                return list(await asyncio.gather(*(one(job) for job in jobs)))
        '''),
    # -- client ---------------------------------------------------------------------------
    "src/ai/backend/client/BUILD": 'python_sources(name="src")\n',
    "src/ai/backend/client/__init__.py": "",
    "src/ai/backend/client/config.py": textwrap.dedent('''\
        """Client configuration from environment variables."""
        from __future__ import annotations

        from dataclasses import dataclass
        from typing import Mapping


        @dataclass(frozen=True)
        class APIConfig:
            endpoint: str = "http://127.0.0.1:8081"
            version: str = "v8"
            timeout: float = 10.0

            @classmethod
            def from_env(cls, env: Mapping[str, str]) -> "APIConfig":
                return cls(
                    endpoint=env.get("BACKEND_ENDPOINT", cls.endpoint).rstrip("/"),
                    version=env.get("BACKEND_API_VERSION", cls.version),
                    timeout=float(env.get("BACKEND_TIMEOUT", cls.timeout)),
                )
        '''),
    "src/ai/backend/client/http.py": textwrap.dedent('''\
        """A minimal HTTP client for the manager API."""
        from __future__ import annotations

        import json
        import urllib.request
        from typing import Any

        from .config import APIConfig


        class ManagerClient:
            def __init__(self, config: APIConfig) -> None:
                self.config = config

            def url(self, path: str) -> str:
                return f"{self.config.endpoint}/{self.config.version}/{path.lstrip('/')}"

            def get_json(self, path: str) -> Any:
                with urllib.request.urlopen(self.url(path), timeout=self.config.timeout) as resp:
                    return json.loads(resp.read().decode())

            def status(self) -> str:
                return self.get_json("status")["status"]
        '''),
    # -- test utilities (a python_test_utils target under src/, like backend.ai's testutils) --
    "src/ai/backend/testutils/BUILD": 'python_test_utils(name="src", sources=["*.py"])\n',
    "src/ai/backend/testutils/__init__.py": "",
    "src/ai/backend/testutils/bootstrap.py": textwrap.dedent('''\
        """Helpers for tests that need services outside the sandbox."""
        from __future__ import annotations

        import os
        import shutil
        import socket


        def unused_port() -> int:
            """A TCP port on 127.0.0.1 that nothing listens on (bound once, then released)."""
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.1", 0))
                return s.getsockname()[1]


        def env_flag(name: str) -> bool:
            return bool(os.environ.get(name))


        def has_docker() -> bool:
            return shutil.which("docker") is not None
        '''),
    # -- tests ----------------------------------------------------------------------------
    "tests/common/BUILD": 'python_tests(name="tests")\n',
    "tests/common/test_types.py": textwrap.dedent('''\
        from decimal import Decimal

        from ai.backend.common.types import ResourceSlot, SessionStatus


        def test_slot_parse_and_format_round_trip():
            slot = ResourceSlot.parse("cpu=2,mem=4g")
            assert slot == ResourceSlot(Decimal(2), 4 * 2**30)
            assert ResourceSlot.parse(slot.format()) == slot


        def test_slot_addition():
            assert ResourceSlot.parse("cpu=1,mem=1g") + ResourceSlot.parse("cpu=0.5,mem=512m") == \\
                ResourceSlot(Decimal("1.5"), 1536 * 2**20)


        def test_slot_fits():
            assert ResourceSlot.parse("cpu=1,mem=1g").fits(ResourceSlot.parse("cpu=2,mem=1g"))
            assert not ResourceSlot.parse("cpu=3,mem=1g").fits(ResourceSlot.parse("cpu=2,mem=8g"))


        def test_status_is_terminal():
            assert [s.value for s in SessionStatus if s.is_terminal] == ["TERMINATED"]
        '''),
    "tests/common/test_utils.py": textwrap.dedent('''\
        from ai.backend.common.utils import chunked, format_size, parse_size


        def test_parse_size():
            assert parse_size("1k") == 1024 and parse_size("3G") == 3 * 2**30 and parse_size("17") == 17
            assert format_size(parse_size("5m")) == "5m"


        def test_chunked():
            assert list(chunked(range(5), 2)) == [[0, 1], [2, 3], [4]]
        '''),
    "tests/manager/BUILD": textwrap.dedent("""\
        python_test_utils(name="test_utils", sources=["conftest.py"], dependencies=[":fixtures"])

        python_tests(name="tests")

        files(name="fixtures", sources=["fixtures/*"])
        """),
    "tests/manager/fixtures/sessions.json": textwrap.dedent("""\
        [
          {"id": "s-1", "owner": "alice", "status": "PENDING", "slot": "cpu=1,mem=1g"},
          {"id": "s-2", "owner": "bob", "status": "RUNNING", "slot": "cpu=2,mem=2g"},
          {"id": "s-3", "owner": "alice", "status": "PENDING", "slot": "cpu=4,mem=8g"}
        ]
        """),
    "tests/manager/conftest.py": textwrap.dedent('''\
        import json
        from pathlib import Path

        import pytest

        from ai.backend.common.types import ResourceSlot, SessionStatus
        from ai.backend.manager.db import SessionStore
        from ai.backend.manager.models import SessionRow

        FIXTURES = Path(__file__).parent / "fixtures"


        @pytest.fixture
        def sample_sessions():
            data = json.loads((FIXTURES / "sessions.json").read_text())
            return [SessionRow(d["id"], d["owner"], SessionStatus(d["status"]), ResourceSlot.parse(d["slot"]))
                    for d in data]


        @pytest.fixture
        def store(tmp_path, sample_sessions):
            db = SessionStore(str(tmp_path / "sessions.sqlite"))
            for row in sample_sessions:
                db.add(row)
            yield db
            db.close()
        '''),
    "tests/manager/test_db.py": textwrap.dedent('''\
        from decimal import Decimal

        from ai.backend.common.types import ResourceSlot, SessionStatus
        from ai.backend.manager.models import SessionRow


        def test_add_and_get(store):
            row = SessionRow("s-9", "carol", SessionStatus.PENDING, ResourceSlot(Decimal(1), 2**30))
            store.add(row)
            assert store.get("s-9") == row
            assert store.get("missing") is None


        def test_status_update(store):
            store.set_status("s-1", SessionStatus.RUNNING)
            assert [r.id for r in store.by_status(SessionStatus.RUNNING)] == ["s-1", "s-2"]


        def test_seeded_sessions(store):
            assert [r.id for r in store.by_status(SessionStatus.PENDING)] == ["s-1", "s-3"]
        '''),
    "tests/manager/test_models.py": textwrap.dedent('''\
        from decimal import Decimal

        import pytest

        from ai.backend.common.types import ResourceSlot, SessionStatus
        from ai.backend.manager.models import SessionRow


        def test_row_round_trip(sample_sessions):
            for row in sample_sessions:
                assert SessionRow.from_row(row.to_row()) == row


        def test_rejects_negative_memory():
            with pytest.raises(ValueError, match="negative resources"):
                SessionRow("s-0", "dave", SessionStatus.PENDING, ResourceSlot(Decimal(1), -1))
        '''),
    "tests/manager/test_scheduler.py": textwrap.dedent('''\
        import asyncio

        from ai.backend.common.types import ResourceSlot
        from ai.backend.manager.scheduler import Dispatcher, schedule


        def test_schedule_respects_capacity(sample_sessions):
            chosen = schedule(sample_sessions, ResourceSlot.parse("cpu=4,mem=4g"))
            assert [r.id for r in chosen] == ["s-1", "s-2"]


        def test_dispatcher_runs_every_job():
            running = []
            peak = []

            def job(i):
                async def run():
                    running.append(i)
                    peak.append(len(running))
                    await asyncio.sleep(0.01)
                    running.remove(i)
                    return f"job-{i}"
                return run

            results = asyncio.run(Dispatcher(concurrency=2).run([job(i) for i in range(5)]))
            assert results == [f"job-{i}" for i in range(5)] and max(peak) == 2
        '''),
    "tests/manager/test_config_sync.py": textwrap.dedent('''\
        import os
        import socket

        import pytest

        from ai.backend.testutils.bootstrap import unused_port


        @pytest.mark.xfail(not os.environ.get("BACKEND_ETCD_ADDR"), reason="etcd is not running",
                           raises=ConnectionRefusedError)
        def test_watch_etcd_prefix():
            host, _, port = (os.environ.get("BACKEND_ETCD_ADDR") or f"127.0.0.1:{unused_port()}").partition(":")
            with socket.create_connection((host, int(port)), timeout=2):
                pass
        '''),
    "tests/client/BUILD": 'python_tests(name="tests")\n',
    "tests/client/test_config.py": textwrap.dedent('''\
        from ai.backend.client.config import APIConfig


        def test_config_from_env():
            config = APIConfig.from_env({"BACKEND_ENDPOINT": "http://mgr:8081/", "BACKEND_TIMEOUT": "2.5"})
            assert (config.endpoint, config.version, config.timeout) == ("http://mgr:8081", "v8", 2.5)


        def test_config_defaults():
            assert APIConfig.from_env({}) == APIConfig()
        '''),
    "tests/client/test_http.py": textwrap.dedent('''\
        import os
        import shutil

        import pytest

        from ai.backend.client.config import APIConfig
        from ai.backend.client.http import ManagerClient
        from ai.backend.testutils.bootstrap import has_docker, unused_port


        def test_build_url():
            client = ManagerClient(APIConfig(endpoint="http://mgr:8081"))
            assert client.url("/status") == "http://mgr:8081/v8/status"


        def test_status_of_running_manager():
            # Needs a running manager; in the sandbox nothing listens there, so it errors.
            client = ManagerClient(APIConfig(endpoint=f"http://127.0.0.1:{unused_port()}", timeout=2))
            assert client.status() == "running"


        @pytest.mark.skipif("BACKEND_TEST_ENDPOINT" not in os.environ, reason="no live manager endpoint")
        def test_against_live_endpoint():
            client = ManagerClient(APIConfig.from_env({"BACKEND_ENDPOINT": os.environ["BACKEND_TEST_ENDPOINT"]}))
            assert client.status() == "running"


        @pytest.mark.skipif(not has_docker(), reason="docker is not installed")
        def test_docker_cli_present():
            assert os.path.isabs(shutil.which("docker"))
        '''),
}


def new_monorepo(tmp: Path, files: Optional[Dict[str, str]] = None, pantsd: bool = False) -> Repo:
    """The backend.ai-shaped repository as a fresh git repository with one commit on `main`;
    `files` are written (over the defaults) before that commit."""
    root = tmp / "monorepo"
    root.mkdir(parents=True)
    repo = Repo(root, pantsd=pantsd)
    repo.write("pants.toml", _pants_toml())
    for rel, text in {**FILES, **(files or {})}.items():
        repo.write(rel, text)
    shutil.copy2(LAUNCHER, root / "pants")
    repo.git("init", "-q", "-b", "main")
    repo.commit("base")
    return repo
