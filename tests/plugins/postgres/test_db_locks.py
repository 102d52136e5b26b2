"""Job locks in PostgreSQL (plugins/memex_postgres/locks.py): one holder across every process
and host sharing the database, named to whoever waits, freed when the holder dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.errors import WriteLockedError

psycopg = pytest.importorskip("psycopg")

from memex_postgres.locks import DatabaseLock, DatabaseLockError, lock_key  # noqa: E402


@pytest.fixture
def locks() -> Iterator[list[DatabaseLock]]:
    made: list[DatabaseLock] = []
    yield made
    for lock in made:
        lock.close()


def make(locks: list[DatabaseLock], url: str, name: str = "ingest", **kw: object) -> DatabaseLock:
    lock = DatabaseLock(url, name, notify=None, **kw)  # type: ignore[arg-type]
    locks.append(lock)
    return lock


def test_one_holder_and_the_waiter_names_it(postgres_url: str, locks: list[DatabaseLock]) -> None:
    first = make(locks, postgres_url, command="ingest ~/notes")
    told: list[str] = []
    second = DatabaseLock(postgres_url, "ingest", timeout=0.5, notify=told.append)
    locks.append(second)
    assert first.try_acquire()
    assert not second.try_acquire()
    assert second.holder() == f"memex pid {os.getpid()} on {os.uname().nodename}: ingest ~/notes"
    started = time.monotonic()
    with pytest.raises(WriteLockedError) as refused:
        second.acquire()
    assert time.monotonic() - started >= 0.5  # it waited before refusing
    assert "ingest ~/notes" in str(refused.value)
    assert "'ingest' lock" in str(refused.value) and "MEMEX_LOCK_TIMEOUT" in str(refused.value)
    assert len(told) == 1 and "waiting up to 0.5 s" in told[0] and "ingest ~/notes" in told[0]
    first.release()
    assert second.try_acquire()
    assert first.holder() == second.application_name
    second.release()
    assert first.holder() == ""


def test_nesting_and_names(postgres_url: str, locks: list[DatabaseLock]) -> None:
    outer = make(locks, postgres_url)
    other = make(locks, postgres_url, timeout=0)
    assert outer.try_acquire() and outer.try_acquire()
    with outer:  # a third level
        assert outer.held
    outer.release()
    assert not other.try_acquire()  # still held once
    outer.release()
    assert not outer.held
    assert other.try_acquire()
    other.release()
    # Another job's lock is another key.
    vectors = make(locks, postgres_url, "vectors")
    with outer, vectors:
        assert lock_key("ingest") != lock_key("vectors")


def test_no_wait_refuses_at_once(postgres_url: str, locks: list[DatabaseLock]) -> None:
    holder = make(locks, postgres_url)
    waiter = make(locks, postgres_url, timeout=0)
    with holder:
        started = time.monotonic()
        with pytest.raises(WriteLockedError, match="told not to wait"):
            waiter.acquire()
        assert time.monotonic() - started < 5


def test_the_catalogs_transaction_lock_is_another_key(
    postgres_url: str, locks: list[DatabaseLock]
) -> None:
    """The catalog serialises write transactions with pg_advisory_xact_lock(bigint); a job
    lock (two int4) must never block them, whatever the bigint's value."""
    lock = make(locks, postgres_url)
    with lock, psycopg.connect(postgres_url, autocommit=True) as conn:
        classid, objid = lock_key("ingest")
        as_bigint = (classid << 32) | objid  # the same bits as one bigint key
        with conn.transaction():
            got = conn.execute("SELECT pg_try_advisory_xact_lock(%s::int8)", (as_bigint,))
            assert got.fetchone() == (True,)


HOLDER = textwrap.dedent(
    """
    import sys, time
    from memex_postgres.locks import DatabaseLock
    lock = DatabaseLock(sys.argv[1], "ingest", notify=None, command="ingest big-export.zip")
    lock.acquire()
    print("held", flush=True)
    time.sleep(120)
    """
)


def test_a_killed_holder_frees_the_lock(postgres_url: str, locks: list[DatabaseLock]) -> None:
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, postgres_url],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "held"
        waiter = make(locks, postgres_url, timeout=0)
        assert not waiter.try_acquire()
        expected = f"memex pid {proc.pid} on {os.uname().nodename}: ingest big-export.zip"
        assert waiter.holder() == expected[:63]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        # The server notices the closed socket at once; allow it a moment to end the session.
        deadline = time.monotonic() + 10
        while not waiter.try_acquire():
            assert time.monotonic() < deadline, "a SIGKILLed holder kept the lock"
            time.sleep(0.05)
        waiter.release()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_unreachable_database_is_a_clear_error(locks: list[DatabaseLock]) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    lock = make(locks, f"postgresql://memex:s3cret@127.0.0.1:{port}/team", timeout=0)
    with pytest.raises(DatabaseLockError) as failed:
        lock.acquire()
    message = str(failed.value)
    assert f"127.0.0.1:{port}/team" in message and "s3cret" not in message
    assert "MEMEX_CATALOG_URL" in message


HOME_HOLDER = textwrap.dedent(
    """
    import sys, time
    from memex_core.api import Memex
    sys.argv = ["memex", "ingest", "big-export.zip"]  # what the lock says it is doing
    mx = Memex(sys.stdin.readline().strip())
    with mx.writing("ingest"):
        print("held", flush=True)
        time.sleep(120)
    """
)


def _postgres_home(home: Path, url: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[embedder]\nuse = "none"\n[catalog]\nuse = "postgres"\n'
        f'[catalog.postgres]\nurl = "{url}"\n',
        encoding="utf-8",
    )
    return home


def test_two_homes_on_one_database_never_ingest_at_once(postgres_url: str, tmp_path: Path) -> None:
    """Two hosts' homes (two folders here) share the catalog: while one ingests, the
    other's ingest waits, then refuses naming it; once the holder is SIGKILLed, it runs."""
    from tests.support.export_builders import write_chatgpt_export

    first = _postgres_home(tmp_path / "host-a", postgres_url)
    second = _postgres_home(tmp_path / "host-b", postgres_url)
    export = write_chatgpt_export(tmp_path / "export" / "conversations.json")
    env = {k: v for k, v in os.environ.items() if k != "MEMEX_CATALOG_URL"}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOME_HOLDER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write(f"{first}\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "held"
        ingest = [sys.executable, "-m", "memex_core", "--home", str(second), "ingest"]
        started = time.monotonic()
        refused = subprocess.run(
            [*ingest, str(export)],
            capture_output=True,
            text=True,
            env={**env, "MEMEX_LOCK_TIMEOUT": "1.5"},
            timeout=120,
        )
        waited = time.monotonic() - started
        assert refused.returncode != 0
        name = f"memex pid {holder.pid} on {os.uname().nodename}: memex ingest big-export.zip"
        assert "waiting up to 1.5 s" in refused.stderr and name[:63] in refused.stderr
        assert "gave up after waiting 1.5 s" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert waited >= 1.5
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        done = subprocess.run(
            [*ingest, str(export)],
            capture_output=True,
            text=True,
            env={**env, "MEMEX_LOCK_TIMEOUT": "10"},
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    with psycopg.connect(postgres_url) as conn:
        (fragments,) = conn.execute("SELECT COUNT(*) FROM fragments").fetchone() or (0,)
        (running,) = conn.execute(
            "SELECT COUNT(*) FROM ingest_runs WHERE status = 'running'"
        ).fetchone() or (0,)
    assert fragments > 0 and running == 0


def test_reads_answer_while_another_hosts_dream_holds_its_lock(
    postgres_url: str, tmp_path: Path
) -> None:
    """A dream started on another host holds the 'dream' lock: this server's dream request
    waits for it outside the call lock, so searches, recalls and lists keep being answered
    meanwhile, and the dream runs once the other host lets go."""
    import httpx

    from tests.support.memex_service import running_service

    home = _postgres_home(tmp_path / "host-a", postgres_url)
    env = {"MEMEX_CATALOG_URL": "", "MEMEX_LOCK_TIMEOUT": "120"}
    with running_service(home, env=env) as service:
        auth = {"Authorization": f"Bearer {service.admin_secret}"}

        def post(path: str, body: dict[str, object], timeout: float = 30) -> httpx.Response:
            return httpx.post(f"{service.url}{path}", json=body, headers=auth, timeout=timeout)

        for fact in ("Alice likes green tea", "Alice likes green tea a lot"):
            assert post("/v1/admin/memory/remember", {"text": fact, "user_id": "alice"}).is_success
        other_host = DatabaseLock(postgres_url, "dream", notify=None, command="dream (host b)")
        other_host.acquire()
        answer: dict[str, httpx.Response] = {}
        dreamer = threading.Thread(
            target=lambda: answer.update(
                dream=post("/v1/admin/memory/dream", {"user_id": "alice"}, timeout=180)
            )
        )
        try:
            dreamer.start()
            # The server asks for the lock on a connection of its own: it is waiting now.
            server_lock = f"memex pid {service.process.pid} on %"
            deadline = time.monotonic() + 30
            with psycopg.connect(postgres_url, autocommit=True) as conn:
                while not conn.execute(
                    "SELECT 1 FROM pg_stat_activity WHERE application_name LIKE %s",
                    (server_lock,),
                ).fetchone():
                    assert time.monotonic() < deadline, "the dream never asked for its lock"
                    time.sleep(0.05)
            for _ in range(3):
                found = post("/v1/search", {"query": "green tea", "mode": "keyword"})
                assert found.status_code == 200 and found.json()["results"]
                recall = post("/v1/admin/memory/search", {"query": "tea", "user_id": "alice"})
                assert recall.status_code == 200 and len(recall.json()) == 2
                listed = post("/v1/admin/memory/list", {"user_id": "alice"})
                assert listed.status_code == 200 and len(listed.json()) == 2
            assert dreamer.is_alive() and "dream" not in answer  # still waiting
        finally:
            other_host.release()
            other_host.close()
        dreamer.join(timeout=180)
        assert answer["dream"].status_code == 200, answer["dream"].text
        assert answer["dream"].json()["examined"] == 2


def test_a_lost_lock_fails_the_holders_next_commit_only(postgres_url: str) -> None:
    """The lock's session ends under the job (here a DBA's pg_terminate_backend; a restart
    in tests/integrations/server/test_postgres_faults.py): the holding thread's next catalog
    commit fails, rolled back, naming the lock; another thread's commits (a server's other
    requests) go on."""
    from memex_postgres.catalog import PostgresCatalog
    from memex_postgres.locks import JobLockLostError

    catalog = PostgresCatalog(postgres_url)
    try:
        catalog.migrate()
        lock = catalog.job_lock("ingest", 0, None)
        assert lock.try_acquire()
        with catalog.transaction() as db:  # held: commits go through
            db.execute("INSERT INTO settings VALUES (?, ?)", ("before", "1"))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s",
                (lock.application_name,),
            )
        elsewhere: list[BaseException] = []

        def other_thread() -> None:
            try:
                with catalog.transaction() as db:
                    db.execute("INSERT INTO settings VALUES (?, ?)", ("other", "1"))
            except BaseException as exc:  # collected for the assertion below
                elsewhere.append(exc)

        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join(30)
        assert elsewhere == []
        lost = pytest.raises(JobLockLostError, match="Lost the 'ingest' lock")
        with lost, catalog.transaction() as db:
            db.execute("INSERT INTO settings VALUES (?, ?)", ("after", "1"))
        assert catalog.get_setting("after") is None and catalog.get_setting("other") == "1"
        assert not lock.held
        lock.release()  # a no-op now
        with catalog.transaction() as db:  # no longer guarded by the lost lock
            db.execute("INSERT INTO settings VALUES (?, ?)", ("later", "1"))
        assert lock.try_acquire()  # taken anew on a new connection
        lock.release()
    finally:
        catalog.close()
