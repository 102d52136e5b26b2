"""Two ``memex serve`` replicas on one memory: two homes, one PostgreSQL catalog, one ``chroma
run`` server for the vectors (or none), written to concurrently over HTTP.

1,000 memory writes spread over both replicas from 16 client threads (``memex_client``):
each write is found through the replica that took it as soon as it returns
(read-your-writes), and through either replica once the other has followed, within the
documented lag (``[serve] max_lag_s``, 5 s); none is lost or doubled (memories and
fragments counted in the catalog), and both homes' doctors are clean.

The test runs twice: keyword-only (``[embedder] use = "none"``: the catalog, the change
journal and each replica's keyword index following it, nothing else), and with the default
MiniLM embedder and one ``chroma run`` server shared by both replicas, where every fact must
also have its one vector in the shared store (the doctors compare the catalog with the
server) and a hybrid search through either replica finds it.
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

from tests.support.chroma_server import chroma_server_url  # noqa: F401 (a fixture)
from tests.support.memex_service import Service, running_service

psycopg = pytest.importorskip("psycopg")
pytest.importorskip("httpx")

from memex_client import MemexClient  # noqa: E402

pytestmark = pytest.mark.slow

WRITES = 1000
THREADS = 16
MAX_LAG_S = 5.0
MEMEX = (sys.executable, "-m", "memex_core")


def replica_home(home: Path, url: str, chroma_url: str | None = None) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    vectors = (
        f'[vector.chroma]\nurl = "{chroma_url}"\n' if chroma_url else '[embedder]\nuse = "none"\n'
    )
    (home / "config.toml").write_text(
        vectors + '[catalog]\nuse = "postgres"\n'
        f'[catalog.postgres]\nurl = "{url}"\n'
        f"[serve]\nmax_lag_s = {MAX_LAG_S}\n",
        encoding="utf-8",
    )
    return home


@pytest.fixture(params=["keyword_only", "chroma_server"])
def vectors(request: pytest.FixtureRequest) -> str | None:
    """None (keyword-only replicas), or the URL of one chroma server both replicas share."""
    if request.param == "keyword_only":
        return None
    url: str = request.getfixturevalue("chroma_server_url")
    return url


@pytest.fixture
def two_replicas(
    postgres_url: str, vectors: str | None, tmp_path: Path
) -> Iterator[tuple[Service, Service]]:
    env = {"MEMEX_CATALOG_URL": "", "MEMEX_CHROMA_URL": ""}
    with ExitStack() as stack:
        first = stack.enter_context(
            running_service(replica_home(tmp_path / "host-a", postgres_url, vectors), env=env)
        )
        second = stack.enter_context(
            running_service(replica_home(tmp_path / "host-b", postgres_url, vectors), env=env)
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


def server_logs(tmp_path: Path) -> str:
    """The end of each replica's log: what a failed write says on the server's side."""
    tails = []
    for host in ("host-a", "host-b"):
        log = tmp_path / host / "serve.log"
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        tails.append(f"--- {host}/serve.log ---\n" + "\n".join(text.splitlines()[-60:]))
    return "\n".join(tails)


def test_a_thousand_writes_over_two_replicas(
    two_replicas: tuple[Service, Service], postgres_url: str, vectors: str | None, tmp_path: Path
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
    assert not failures, "\n".join([*failures[:5], server_logs(tmp_path)])
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
        if vectors is not None:  # each fact embedded once, in the shared store
            embedded = conn.execute("SELECT COUNT(*) FROM fragments WHERE embedded_by IS NOT NULL")
            assert embedded.fetchone() == (WRITES,)

    if vectors is not None:  # meaning and words together, through either replica
        for n in range(0, WRITES, 97):
            for client in clients:
                found = client.operator().search(fact(n), user_id="alice", mode="hybrid", limit=3)
                assert found and found[0].text == fact(n), (n, [h.text for h in found])

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
