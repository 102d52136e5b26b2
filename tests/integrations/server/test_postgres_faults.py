"""Faults of a shared PostgreSQL catalog: the server stopped (``immediate``: a crash to the
database) and started again in the middle of an ingest and of a burst of memory writes over
HTTP, and one of two ``memex serve`` replicas SIGKILLed in the middle of writes.

What must hold: each write lands whole or fails with a clean error (no traceback; over HTTP a
JSON error with a stable code), a rerun finishes the job, nothing is lost or doubled, the
doctor is clean after; the surviving replica keeps answering and the killed one catches up
when it starts again.

Each test that stops PostgreSQL starts its own server (tests/support/postgres_server.py), never the
session's. Homes are keyword-only: vectors are not what is under test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.memex_service import running_service
from tests.support.postgres_server import PostgresServer, find_postgres_bin, missing_reason

psycopg = pytest.importorskip("psycopg")
pytest.importorskip("httpx")

from memex_client import MemexClient  # noqa: E402
from memex_client.errors import MemexClientError  # noqa: E402

pytestmark = pytest.mark.slow

MEMEX = (sys.executable, "-m", "memex_core")
TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A PostgreSQL of this test's own, which it may stop and start."""
    bin_dir = find_postgres_bin()
    if bin_dir is None:
        if os.environ.get("MEMEX_POSTGRES_REQUIRED") == "1":
            pytest.fail(missing_reason())
        pytest.skip(missing_reason())
    server = PostgresServer(bin_dir).start()
    try:
        yield server
    finally:
        server.destroy()


def postgres_home(home: Path, url: str, serve: str = "") -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[embedder]\nuse = "none"\n'
        '[catalog]\nuse = "postgres"\n'
        # A down server is said at once rather than after the default 10 s.
        f'[catalog.postgres]\nurl = "{url}"\nconnect_timeout = 2\n{serve}',
        encoding="utf-8",
    )
    return home


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "MEMEX_CATALOG_URL"}


def memex(home: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MEMEX, "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=environment(),
        timeout=timeout,
    )


def scalar(url: str, sql: str) -> Any:
    """One value, or None while the table does not exist yet."""
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            row = conn.execute(sql).fetchone()
    except psycopg.errors.UndefinedTable:
        return None
    return row[0] if row else None


def doctor_clean(home: Path) -> dict[str, Any]:
    result = memex(home, "doctor", "--format", "json", "--quiet")
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["healthy"], report["findings"]
    return report


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not within {timeout:g} s: {what}"
        time.sleep(0.05)


# -- an ingest -----------------------------------------------------------------------------


def notes_vault(folder: Path, notes: int) -> Path:
    (folder / ".obsidian").mkdir(parents=True)
    for n in range(notes):
        sub = folder / f"area-{n % 7}"
        sub.mkdir(exist_ok=True)
        (sub / f"Note {n}.md").write_text(
            f"# Note {n}\n\nThe otter {n} fishes at dawn.\n\n## Details\n\nRiver stone {n}.\n",
            encoding="utf-8",
        )
    return folder


def test_postgres_stopped_in_the_middle_of_an_ingest(
    own_server: PostgresServer, tmp_path: Path
) -> None:
    notes = 600
    vault = notes_vault(tmp_path / "vault", notes)
    url = own_server.create_database()
    home = postgres_home(tmp_path / "home", url)
    ingest = subprocess.Popen(
        [*MEMEX, "--home", str(home), "ingest", "--quiet", str(vault)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    try:
        wait_until(
            lambda: (scalar(url, "SELECT COUNT(*) FROM documents") or 0) >= 60,
            120,
            "the ingest committed 60 notes",
        )
        own_server.stop("immediate")
        out, err = ingest.communicate(timeout=120)
    finally:
        if ingest.poll() is None:
            ingest.kill()
            ingest.wait()
    assert ingest.returncode != 0
    assert TRACEBACK not in err and TRACEBACK not in out
    assert f"127.0.0.1:{own_server.port}/" in err and "PostgreSQL catalog" in err, err[-2000:]

    own_server.start()
    committed = scalar(url, "SELECT COUNT(*) FROM documents")
    assert 60 <= committed < notes  # it stopped in the middle
    rerun = memex(home, "ingest", "--quiet", "--format", "json", str(vault))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    outcomes = json.loads(rerun.stdout)
    unchanged = sum(1 for f in outcomes["files"] if f["status"] == "unchanged")
    assert unchanged >= committed  # what was committed whole is not read again

    # Nothing lost, nothing doubled: every note once, each with its two sections.
    assert scalar(url, "SELECT COUNT(*) FROM documents") == notes
    assert scalar(url, "SELECT COUNT(*) FROM fragments") == 2 * notes
    assert scalar(url, "SELECT COUNT(DISTINCT content) FROM fragments") == 2 * notes
    assert scalar(url, "SELECT COUNT(*) FROM ingest_runs WHERE status = 'running'") == 0
    report = doctor_clean(home)
    assert report["counts"]["keyword_documents"] == 2 * notes


# -- a burst of memory writes over HTTP --------------------------------------------------


def fact(n: int) -> str:
    return f"fact {n}: the heron zq{n:04d}x waits by the reeds"


class Burst:
    """Memory writes by path (a rerun of one is the same write, never a second memory) from
    threads, each outcome kept: "ok", or the error code the server answered with."""

    def __init__(self, clients: list[MemexClient]) -> None:
        self.clients = clients
        self.outcomes: dict[int, str] = {}
        self.lock = threading.Lock()

    def write(self, n: int, client: MemexClient | None = None) -> str:
        target = client or self.clients[n % len(self.clients)]
        try:
            target.operator().write(f"shared/facts/{n}.md", fact(n))
            outcome = "ok"
        except MemexClientError as exc:
            outcome = exc.code
            assert TRACEBACK not in str(exc), str(exc)
        with self.lock:
            self.outcomes[n] = outcome
        return outcome

    def any_failed(self) -> bool:
        with self.lock:
            return any(outcome != "ok" for outcome in self.outcomes.values())

    def failed(self) -> list[int]:
        return sorted(n for n, outcome in self.outcomes.items() if outcome != "ok")


def found_everywhere(clients: list[MemexClient], writes: int) -> None:
    for client in clients:
        hits = client.operator().search("heron", mode="keyword", limit=writes)
        assert sorted(h.text for h in hits) == sorted(fact(n) for n in range(writes))


def assert_written_once(url: str, writes: int) -> None:
    assert scalar(url, "SELECT COUNT(*) FROM memories") == writes
    assert scalar(url, "SELECT COUNT(*) FROM memories WHERE status = 'active'") == writes
    assert scalar(url, "SELECT COUNT(*) FROM fragments") == writes
    assert scalar(url, "SELECT COUNT(DISTINCT content) FROM fragments") == writes


def test_postgres_stopped_in_the_middle_of_a_write_burst(
    own_server: PostgresServer, tmp_path: Path
) -> None:
    writes = 200
    url = own_server.create_database()
    home = postgres_home(tmp_path / "home", url)
    with running_service(home, env={"MEMEX_CATALOG_URL": ""}) as service:
        client = MemexClient(service.url, admin_secret=service.admin_secret, timeout=60)
        burst = Burst([client])

        def restart_midway() -> None:
            wait_until(lambda: len(burst.outcomes) >= 60, 120, "60 writes answered")
            own_server.stop("immediate")
            wait_until(burst.any_failed, 60, "a write failed during the outage")
            own_server.start()

        outage = threading.Thread(target=restart_midway)
        outage.start()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(burst.write, range(writes)))
        outage.join()
        failed = burst.failed()
        codes = {burst.outcomes[n] for n in failed}
        assert failed, "the outage failed no write: stop the server earlier"
        assert codes <= {"catalog_unavailable"}, codes
        # The rerun: the same writes again, now that the server is back.
        wait_until(lambda: client.ready().get("catalog") == "ok", 30, "the catalog answers")
        for n in failed:
            assert burst.write(n) == "ok"
        wait_until(lambda: client.ready()["keyword_lag"] == 0, 10, "the replica caught up")
        found_everywhere([client], writes)
        assert_written_once(url, writes)
        log = service.output()
        assert TRACEBACK not in log, log[-3000:]
        client.close()
    doctor_clean(home)


# -- a replica killed mid-write ------------------------------------------------------------


def test_a_replica_killed_mid_write_and_started_again(postgres_url: str, tmp_path: Path) -> None:
    writes = 200
    env = {"MEMEX_CATALOG_URL": ""}
    first = postgres_home(tmp_path / "host-a", postgres_url)
    second = postgres_home(tmp_path / "host-b", postgres_url)
    with running_service(second, env=env) as survivor:
        survivor_client = MemexClient(survivor.url, admin_secret=survivor.admin_secret)
        with running_service(first, env=env) as victim:
            victim_client = MemexClient(victim.url, admin_secret=victim.admin_secret, timeout=10)
            burst = Burst([victim_client, survivor_client])

            def kill_midway() -> None:
                wait_until(lambda: len(burst.outcomes) >= 60, 120, "60 writes answered")
                os.kill(victim.process.pid, signal.SIGKILL)

            killer = threading.Thread(target=kill_midway)
            killer.start()
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(burst.write, range(writes)))
            killer.join()
            victim.process.wait(10)
            victim_client.close()
        # The survivor kept answering: every write sent to it landed.
        assert all(burst.outcomes[n] == "ok" for n in range(1, writes, 2))
        lost = burst.failed()
        assert lost and all(n % 2 == 0 for n in lost)
        # The rerun goes to the survivor.
        for n in lost:
            assert burst.write(n, survivor_client) == "ok"
        # The killed replica starts again on the same home and catches up.
        with running_service(first, env=env) as again:
            again_client = MemexClient(again.url, admin_secret=again.admin_secret)
            wait_until(
                lambda: again_client.ready()["keyword_lag"] == 0, 10, "the restarted caught up"
            )
            found_everywhere([again_client, survivor_client], writes)
            again_client.close()
        survivor_client.close()
    assert_written_once(postgres_url, writes)
    doctor_clean(first)
    doctor_clean(second)


# -- a job lock lost to a restart ------------------------------------------------------------


class BlockingConsolidator:
    """Keeps the first fact; for the second, waits until told, then says it repeats the
    first (a write: the second is retired). Stands for a model call that takes a while."""

    def __init__(self) -> None:
        self.deciding = threading.Event()
        self.go = threading.Event()
        self.first: str | None = None

    def decide(self, fact: Any, similar: Any) -> Any:
        from memex_core.domain.contracts import ADD, NONE, ConsolidationDecision

        if self.first is None:
            self.first = fact.source_fragment_ids[0]
            return ConsolidationDecision(ADD, fact, reason="first")
        self.deciding.set()
        assert self.go.wait(120)
        return ConsolidationDecision(NONE, fact, target_id=self.first, reason="a repeat")


def test_a_job_lock_lost_to_a_restart_stops_the_job(
    own_server: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL restarts (pg_ctl) while a dream holds its job lock and waits for its
    consolidator: the session holding the lock is gone, and with it the lock, though the
    catalog's pool reconnects at once. The dream's next commit fails, rolled back, saying
    it lost the 'dream' lock and to rerun, instead of writing without the lock; the rerun
    finishes. The same for an ingest's batch (add_fragments) under a lost 'ingest' lock."""
    from memex_core.api import Memex
    from memex_core.domain import Fragment, Provenance
    from memex_postgres.locks import DatabaseLock, JobLockLostError

    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)
    url = own_server.create_database()
    mx = Memex(postgres_home(tmp_path / "home", url))
    alice = mx.agent("alice")
    for text in ("Alice likes green tea", "Alice really likes green tea"):
        alice.remember(text)
    consolidator = BlockingConsolidator()
    outcome: dict[str, Any] = {}

    def dream() -> None:
        try:
            outcome["report"] = alice.dream(consolidator=consolidator)
        except Exception as exc:  # what the test is about
            outcome["error"] = exc

    dreamer = threading.Thread(target=dream)
    dreamer.start()
    try:
        assert consolidator.deciding.wait(60), "the dream never reached its second fact"
        own_server.restart("fast")
        # The lock went with the restart: another host could start a dream now.
        other = DatabaseLock(url, "dream", notify=None)
        assert other.try_acquire()
        other.close()
    finally:
        consolidator.go.set()
        dreamer.join(120)
    error = outcome.get("error")
    assert isinstance(error, JobLockLostError), outcome
    message = str(error)
    assert "Lost the 'dream' lock" in message and f"127.0.0.1:{own_server.port}/" in message
    assert "restarted" in message and "again" in message
    active = scalar(url, "SELECT COUNT(*) FROM memories WHERE status = 'active'")
    assert active == 2  # the retirement was rolled back
    report = alice.dream()  # the rerun takes the lock anew and writes
    assert report.examined == 2

    batch = [
        Fragment(
            id=f"lost-{n}",
            conversation_id="lost",
            role="user",
            content=f"passage {n} about the heron",
            provenance=Provenance("api", "test", f"lost-{n}", f"lost#{n}"),
        )
        for n in range(3)
    ]
    with pytest.raises(JobLockLostError, match="Lost the 'ingest' lock"), mx.writing("ingest"):
        own_server.restart("fast")
        mx.add_fragments(batch, origin="test:lost", embed=False)
    assert scalar(url, "SELECT COUNT(*) FROM fragments WHERE id LIKE 'lost-%'") == 0
    assert mx.add_fragments(batch, origin="test:lost", embed=False) == 3  # the rerun
    mx.close()


# -- memex doctor against a server that does not answer --------------------------------------


def test_doctor_reports_an_unreachable_catalog_server(
    own_server: PostgresServer, tmp_path: Path
) -> None:
    """The catalog's server is down: `memex doctor` (text and JSON) reports it as the
    error finding catalog.unreachable naming host:port/database, never the password, with
    the fix, and exits 1 as for any other error finding; no traceback."""
    url = own_server.create_database()
    database = url.rsplit("/", 1)[1]
    home = postgres_home(tmp_path / "home", url.replace("memex@", "memex:s3cret@"))
    doctor_clean(home)
    own_server.stop("fast")
    text = memex(home, "doctor", "--quiet")
    as_json = memex(home, "doctor", "--quiet", "--format", "json")
    server = f"127.0.0.1:{own_server.port}/{database}"
    for result in (text, as_json):
        assert result.returncode == 1, result.stderr
        everything = result.stdout + result.stderr
        assert TRACEBACK not in everything and "s3cret" not in everything
    assert server in text.stdout and "error" in text.stdout and "--repair" not in text.stdout
    report = json.loads(as_json.stdout)
    assert report["healthy"] is False
    assert [f["code"] for f in report["findings"]] == ["catalog.unreachable"]
    (finding,) = report["findings"]
    assert finding["severity"] == "error" and server in finding["summary"]
    assert "MEMEX_CATALOG_URL" in finding["fix"] and "running" in finding["fix"]
    own_server.start()
    doctor_clean(home)
