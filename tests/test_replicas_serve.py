"""Two ``memex serve`` replicas on one memory: two homes, one PostgreSQL catalog, one ``chroma
run`` server for the vectors... or none (see below), written to concurrently over HTTP.

1,000 memory writes spread over both replicas from 16 client threads (``memex_client``):
each write is found through the replica that took it as soon as it returns
(read-your-writes), and through either replica once the other has followed, within the
documented lag (``[serve] max_lag_s``, 5 s); none is lost or doubled (memories and
fragments counted in the catalog), and both homes' doctors are clean.

The replicas are keyword-only (``[embedder] use = "none"``): what is under test is the
catalog, the change journal and each replica's keyword index following it; embedding 1,000
facts with a real model on two shared cores would take most of the time budget and prove
nothing more about replicas (shared vectors are tested with a Chroma server in
tests/test_chroma_server.py and with pgvector in tests/test_pgvector_*.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.memex_service import Service, running_service

psycopg = pytest.importorskip("psycopg")
pytest.importorskip("httpx")

from memex_client import MemexClient  # noqa: E402

pytestmark = pytest.mark.slow

WRITES = 1000
THREADS = 16
MAX_LAG_S = 5.0
MEMEX = (sys.executable, "-m", "memex_core")


def replica_home(home: Path, url: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[embedder]\nuse = "none"\n'
        '[catalog]\nuse = "postgres"\n'
        f'[catalog.postgres]\nurl = "{url}"\n'
        f"[serve]\nmax_lag_s = {MAX_LAG_S}\n",
        encoding="utf-8",
    )
    return home


@pytest.fixture
def two_replicas(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Service, Service]]:
    env = {"MEMEX_CATALOG_URL": ""}
    with ExitStack() as stack:
        first = stack.enter_context(
            running_service(replica_home(tmp_path / "host-a", postgres_url), env=env)
        )
        second = stack.enter_context(
            running_service(replica_home(tmp_path / "host-b", postgres_url), env=env)
        )
        yield first, second


def token(n: int) -> str:
    """A word found in write ``n`` only."""
    return f"zq{n:04d}x"


def fact(n: int) -> str:
    return f"fact {n}: the heron {token(n)} waits by the reeds"


def hits(client: MemexClient, word: str) -> int:
    found = client.operator().search(word, user_id="alice", mode="keyword", limit=5)
    return len(found)


def test_a_thousand_writes_over_two_replicas(
    two_replicas: tuple[Service, Service], postgres_url: str
) -> None:
    services = two_replicas
    clients = [MemexClient(s.url, admin_secret=s.admin_secret, timeout=120) for s in services]
    not_found_at_once: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()

    def write(n: int) -> None:
        client = clients[n % 2]
        try:
            client.operator().remember(fact(n), user_id="alice")
            if hits(client, token(n)) != 1:  # read-your-writes on the replica written to
                with lock:
                    not_found_at_once.append(n)
        except Exception as exc:  # collected: one failure must not hide the others
            with lock:
                failures.append(f"{n}: {type(exc).__name__}: {exc}")

    started = time.monotonic()
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(write, range(WRITES)))
    burst = time.monotonic() - started
    assert not failures, failures[:5]
    assert not not_found_at_once, not_found_at_once[:10]

    # Both replicas follow every write within the documented lag.
    ended = time.monotonic()
    while True:
        reports = [c.ready() for c in clients]
        if all(r["keyword_lag"] == 0 for r in reports):
            break
        assert time.monotonic() - ended < MAX_LAG_S, reports
        time.sleep(0.05)
    caught_up = time.monotonic() - ended

    # Every write, through either replica: the one word all facts share finds them all.
    for client in clients:
        every = client.operator().search("heron", user_id="alice", mode="keyword", limit=WRITES)
        texts = sorted(hit.text for hit in every)
        assert texts == sorted(fact(n) for n in range(WRITES))

    with psycopg.connect(postgres_url) as conn:
        memories = conn.execute("SELECT COUNT(*) FROM memories").fetchone()
        revisions = conn.execute("SELECT COUNT(*), COUNT(DISTINCT content) FROM memory_revisions")
        fragments = conn.execute("SELECT COUNT(*), COUNT(DISTINCT content) FROM fragments")
        assert memories == (WRITES,)
        assert revisions.fetchone() == (WRITES, WRITES)
        assert fragments.fetchone() == (WRITES, WRITES)

    for service in services:
        doctor = subprocess.run(
            [*MEMEX, "--home", str(service.home), "doctor", "--format", "json", "--quiet"],
            capture_output=True,
            text=True,
            env={**_env(), "MEMEX_CATALOG_URL": ""},
            timeout=120,
        )
        report = json.loads(doctor.stdout)
        assert doctor.returncode == 0 and report["healthy"], report["findings"]
        assert report["counts"]["keyword_documents"] == WRITES
    for client in clients:
        client.close()
    print(f"\n{WRITES} writes over 2 replicas: {burst:.1f} s; caught up {caught_up:.2f} s after")


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
