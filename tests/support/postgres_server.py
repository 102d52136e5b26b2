"""A real PostgreSQL server for tests: initdb and pg_ctl in a temp folder, a free loopback port.

The binaries are Debian's (``apt-get install postgresql``: /usr/lib/postgresql/NN/bin). For
pgvector, a Debian ``postgresql-NN-pgvector`` is used when one is installed; Debian bookworm has
no such package, so otherwise the PostgreSQL 16 + pgvector 0.6 build inside the ``pgserver``
wheel (PyPI, in the ``test`` extra) is used: only its binaries, started the same way as
Debian's, never its Python API.

:class:`PostgresServer` is a server a test can stop (``fast`` or ``immediate``: the latter is a
crash as far as the database is concerned) and start again on the same port and data folder,
for outage tests. Such tests start their own server; the session's shared one (fixture
``postgres_server`` in tests/conftest.py) is never stopped by a test.

PostgreSQL refuses to run as root, so when the tests run as root (CI in a container), the
server runs as the ``postgres`` user the Debian package creates (or ``nobody``), in a folder
under /tmp that user owns.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

#: The superuser initdb creates; it connects with trust auth over loopback only.
SUPERUSER = "memex"
STARTUP_TIMEOUT_S = 60
REQUIRED_ENV = "MEMEX_POSTGRES_REQUIRED"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _has_vector(share_dir: Path) -> bool:
    return (share_dir / "extension" / "vector.control").exists()


def _debian_bins() -> list[tuple[Path, Path]]:
    """(bin dir, share dir) of each Debian PostgreSQL, newest first."""
    found = []
    for bin_dir in Path("/usr/lib/postgresql").glob("*/bin"):
        version = bin_dir.parent.name
        if (bin_dir / "initdb").exists() and version.isdigit():
            found.append((int(version), bin_dir, Path("/usr/share/postgresql") / version))
    return [(b, s) for _, b, s in sorted(found, reverse=True)]


def _pgserver_bin() -> Path | None:
    """The bin folder of the PostgreSQL build shipped inside the ``pgserver`` wheel."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return bin_dir if (bin_dir / "initdb").exists() else None


def find_postgres_bin(need_vector: bool = False) -> Path | None:
    """A folder holding initdb, pg_ctl and postgres (with the ``vector`` extension if asked)."""
    for bin_dir, share_dir in _debian_bins():
        if not need_vector or _has_vector(share_dir):
            return bin_dir
    if need_vector:
        return _pgserver_bin()
    return None


def missing_reason(need_vector: bool = False) -> str:
    if need_vector:
        return (
            "no PostgreSQL with pgvector here: install Debian's postgresql-NN-pgvector, or the "
            "test extra (pip install -e '.[test]', which brings the pgserver wheel's build)"
        )
    return "no PostgreSQL server binaries here: apt-get install postgresql (as .ci/run does)"


def _server_user() -> pwd.struct_passwd | None:
    """The user the server runs as when the tests run as root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and there is no 'postgres' or 'nobody' user to run as")


class PostgresServer:
    """One PostgreSQL cluster in its own folder, listening on 127.0.0.1 only."""

    def __init__(self, bin_dir: Path, root: Path | None = None) -> None:
        self.user = _server_user()
        self.root = Path(root or tempfile.mkdtemp(prefix="memex-pg-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.bin_dir = self._runnable(bin_dir)
        self.data = self.root / "data"
        self.sockets = self.root / "sockets"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self._databases = itertools.count(1)
        self._own(self.root)
        self.sockets.mkdir(exist_ok=True)
        self._own(self.sockets)

    # -- running as another user -----------------------------------------------------

    def _runnable(self, bin_dir: Path) -> Path:
        """``bin_dir``, or a copy of its installation the server user can read and run (a
        wheel's build may sit under folders only root can enter)."""
        if self.user is None or bin_dir.is_relative_to("/usr"):
            return bin_dir
        # Keep the wheel's layout: its binaries find their libraries through an RPATH of
        # $ORIGIN/../../../pgserver.libs (auditwheel's folder beside the package).
        install = bin_dir.parent
        copy = self.root / install.parent.name / install.name
        if not copy.exists():
            shutil.copytree(install, copy, symlinks=True)
            for libs in install.parent.parent.glob("*.libs"):
                shutil.copytree(libs, self.root / libs.name, symlinks=True)
        return copy / "bin"

    def _own(self, path: Path) -> None:
        if self.user is None:
            return
        for folder, _dirs, files in os.walk(path):
            os.chown(folder, self.user.pw_uid, self.user.pw_gid)
            for name in files:
                os.chown(os.path.join(folder, name), self.user.pw_uid, self.user.pw_gid)

    def _as_server_user(self) -> dict[str, Any]:
        """subprocess's own ``user``/``group`` (root is dropped in C between fork and exec),
        not a ``preexec_fn``: Python code run in the child of a threaded process can deadlock
        before exec (a test that restarts the server while 8 threads write hung in CI)."""
        user = self.user
        if user is None:
            return {}
        return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, LC_ALL="C", LANG="C")
        env.pop("PGDATA", None)
        result = subprocess.run(
            [str(self.bin_dir / args[0]), *args[1:]],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            cwd=self.root,
            **self._as_server_user(),  # drops root: PostgreSQL refuses it
            timeout=STARTUP_TIMEOUT_S + 30,
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed (exit {result.returncode}): {result.stderr.strip()}"
            )
        return result

    # -- lifecycle ---------------------------------------------------------------------

    def init(self) -> PostgresServer:
        if not (self.data / "PG_VERSION").exists():
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            )
        return self

    def start(self) -> PostgresServer:
        """Start (initdb first if needed) and wait until it accepts connections."""
        self.init()
        # Durability settings are for tests only: fsync off loses nothing unless the machine
        # itself crashes, and an "immediate" stop is still a crash to the database.
        options = " ".join(
            [
                f"-p {self.port}",
                "-c listen_addresses=127.0.0.1",
                f"-k {self.sockets}",
                "-c fsync=off",
                "-c full_page_writes=off",
                "-c max_connections=200",
                "-c shared_buffers=64MB",
            ]
        )
        result = self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            str(STARTUP_TIMEOUT_S),
            "start",
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"PostgreSQL did not start ({self.bin_dir}): {result.stderr.strip()}\n"
                f"{self.log_tail()}"
            )
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop: ``fast`` (clean) or ``immediate`` (no shutdown checkpoint: a crash)."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self, mode: str = "fast") -> PostgresServer:
        self.stop(mode)
        return self.start()

    def running(self) -> bool:
        result = self._run("pg_ctl", "-D", str(self.data), "status", check=False)
        return result.returncode == 0

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # -- databases ---------------------------------------------------------------------

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def execute(self, sql: str, dbname: str = "postgres") -> None:
        """One statement in autocommit (CREATE DATABASE cannot run in a transaction)."""
        import psycopg

        with psycopg.connect(self.url(dbname), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.encode())  # test-only SQL, names we made

    def create_database(self, name: str | None = None) -> str:
        """A fresh empty database; returns its URL."""
        name = name or f"test_{next(self._databases)}"
        self.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def wait_until_accepting(self, timeout: float = STARTUP_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready = self._run(
                "pg_isready", "-h", "127.0.0.1", "-p", str(self.port), "-q", check=False
            )
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL on port {self.port} did not come up:\n{self.log_tail()}")
