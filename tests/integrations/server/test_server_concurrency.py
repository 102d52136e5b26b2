"""32 clients against one ``memex serve`` for a while: nothing lost, nothing doubled.

Each of 32 threads has its own :class:`~memex_client.MemexClient` (eight keys of four
users) and, until the time is up (``MEMEX_CONCURRENCY_SECONDS``: 20 in the suite, which
already gives hundreds of writes and thousands of requests; 60 for the minute the test's
name promises, as a soak), remembers
facts and writes files with unique texts, searches memory and the view, and lists. Then:

* every acknowledged write is in its user's memory exactly once, with its text;
* a write that failed is either absent or there once, whole (never twice, never a
  memory without its fragments);
* every error was a clean HTTP status with a stable code (no 500, no connection reset,
  no non-JSON answer);
* a search finds what was acknowledged, and ``memex doctor`` on the home is healthy once
  the server has stopped.

Marked slow (about 25-40 s at the default); the figures it measured are printed (``pytest -s``).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import MemexClient
from memex_client.errors import MemexClientError
from memex_server.errors import CODES
from tests.support.server_fixtures import CatalogReader, keyword_only_home, served

pytestmark = pytest.mark.slow

THREADS = 32
USERS = ("ana", "ben", "cleo", "dev")
KEYS_PER_USER = 2
SECONDS = float(os.environ.get("MEMEX_CONCURRENCY_SECONDS", "20"))
#: Statuses a busy server may answer with, cleanly (a writer holding the home: 503).
CLEAN_STATUSES = {503}
#: Of the 32, these give up after IMPATIENT_TIMEOUT: their writes fail on the client while
#: the server may still complete them, which is how a write lands unacknowledged.
#: (The server finishes an abandoned request anyway, so they pause after giving up rather
#: than pile work up for the others.)
IMPATIENT = 2
IMPATIENT_TIMEOUT = 0.3
IMPATIENT_PAUSE = 2.0


@dataclass
class Attempt:
    user: str
    kind: str  # "remember" or "write"
    text: str
    path: str | None = None
    memory_id: str | None = None  # set when acknowledged


@dataclass
class Tally:
    attempts: list[Attempt] = field(default_factory=list)
    errors: list[tuple[str, int, str, str]] = field(default_factory=list)  # op, status, code, msg
    broken: list[str] = field(default_factory=list)  # anything that is not a clean status
    gave_up: int = 0  # an impatient client's own timeouts
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    lock: threading.Lock = field(default_factory=threading.Lock)


def worker(
    number: int,
    url: str,
    key: str,
    user: str,
    deadline: float,
    tally: Tally,
    start: threading.Event,
) -> None:
    rng = random.Random(number)
    impatient = number < IMPATIENT
    client = MemexClient(url, api_key=key, timeout=300.0)
    memory = client.agent()
    view = client.view()
    if impatient:  # same key, a client that does not wait
        hasty = MemexClient(url, api_key=key, timeout=IMPATIENT_TIMEOUT)
        hasty._identity = client.whoami()
        memory = hasty.agent()
    mine: list[str] = []
    start.wait()
    sequence = 0
    while time.monotonic() < deadline:
        sequence += 1
        token = f"tok{number}x{sequence}x{uuid.uuid4().hex[:8]}"
        roll = rng.random() * (0.55 if impatient else 1.0)  # the impatient only write
        attempt: Attempt | None = None
        began = time.perf_counter()
        op = "?"
        try:
            if roll < 0.35:
                op = "remember"
                attempt = Attempt(user, op, f"Fact {token} from worker {number}")
                with tally.lock:
                    tally.attempts.append(attempt)
                result = memory.remember(attempt.text)
                [attempt.memory_id] = result.memory_ids
                mine.append(token)
            elif roll < 0.55:
                op = "write"
                path = f"user/w{number}/n{sequence}.md"
                attempt = Attempt(user, op, f"File {token} by worker {number}", path)
                with tally.lock:
                    tally.attempts.append(attempt)
                attempt.memory_id = memory.write(path, attempt.text).id
                mine.append(token)
            elif roll < 0.80:
                op = "memory-search"
                query = rng.choice(mine) if mine and rng.random() < 0.7 else "fact worker file"
                memory.search(query, limit=5, mode="keyword" if rng.random() < 0.5 else "hybrid")
            elif roll < 0.90:
                op = "view-search"
                view.search(rng.choice(mine) if mine else "worker", limit=5)
            else:
                op = "list"
                memory.list(limit=50, offset=rng.randrange(0, 50))
        except MemexClientError as exc:
            if impatient and exc.code == "unreachable" and "Timeout" in str(exc):
                with tally.lock:
                    tally.gave_up += 1
                time.sleep(IMPATIENT_PAUSE)
                continue
            with tally.lock:
                tally.errors.append((op, exc.status, exc.code, str(exc)[:200]))
                if exc.status not in CLEAN_STATUSES or exc.code not in CODES:
                    tally.broken.append(f"{op}: {exc.status} {exc.code}: {str(exc)[:300]}")
        except Exception as exc:  # not a clean HTTP answer at all
            with tally.lock:
                tally.broken.append(f"{op}: {type(exc).__name__}: {str(exc)[:300]}")
        finally:
            with tally.lock:
                tally.latencies[op].append(time.perf_counter() - began)
    client.close()


def all_memories(operator: Any, user: str) -> list[Any]:
    out: list[Any] = []
    while True:
        page = operator.list(user_id=user, include_deleted=True, limit=1000, offset=len(out))
        out.extend(page)
        if len(page) < 1000:
            return out


def test_32_clients_for_a_minute_lose_and_double_nothing(tmp_path: Path) -> None:
    home = keyword_only_home(tmp_path / "home")
    tally = Tally()
    with served(home) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=300.0)
        keys = [
            (user, op.create_key(user, name=f"{user}-bot-{n}")["key"])
            for user in USERS
            for n in range(KEYS_PER_USER)
        ]
        start = threading.Event()
        began = time.monotonic()
        deadline = began + SECONDS
        threads = [
            threading.Thread(
                target=worker,
                args=(n, service.url, keys[n % len(keys)][1], keys[n % len(keys)][0]),
                kwargs={"deadline": deadline, "tally": tally, "start": start},
                daemon=True,
            )
            for n in range(THREADS)
        ]
        for thread in threads:
            thread.start()
        start.set()
        for thread in threads:
            thread.join(timeout=SECONDS + 600)
        assert not any(t.is_alive() for t in threads), "a client hung"
        elapsed = time.monotonic() - began

        assert not tally.broken, "\n".join(tally.broken[:20])
        operator = op.operator()
        acknowledged = [a for a in tally.attempts if a.memory_id is not None]
        failed = [a for a in tally.attempts if a.memory_id is None]
        assert len(acknowledged) >= THREADS, "too few writes to say anything"
        landed = 0  # writes that failed on the client and were completed by the server
        for user in USERS:
            stored = all_memories(operator, user)
            by_id = Counter(m.id for m in stored)
            assert not [i for i, n in by_id.items() if n > 1], "a memory listed twice"
            texts = Counter(m.content for m in stored)
            attempted = [a for a in tally.attempts if a.user == user]
            for attempt in attempted:
                if attempt.memory_id is not None:
                    assert texts[attempt.text] == 1, attempt  # there, once
                    assert attempt.memory_id in by_id, attempt
                else:
                    assert texts[attempt.text] <= 1, attempt  # maybe there, never twice
                    landed += texts[attempt.text]
            attempted_texts = {a.text for a in attempted}
            assert set(texts) <= attempted_texts, set(texts) - attempted_texts  # nothing else
        # Every memory, acknowledged or not, is whole: its one fragment is in the catalog.
        catalog = CatalogReader(home)
        fragments = Counter(
            str(c)
            for (c,) in catalog.rows("SELECT conversation_id FROM fragments WHERE owner != ''")
        )
        memories = [str(i) for (i,) in catalog.rows("SELECT id FROM memories")]
        assert sorted(fragments) == sorted(memories)
        assert set(fragments.values()) == {1}
        for attempt in acknowledged:
            assert attempt.memory_id is not None
            assert fragments[attempt.memory_id] == 1, attempt
        sample = random.Random(0).sample(acknowledged, min(40, len(acknowledged)))
        for attempt in sample:
            token = attempt.text.split()[1]
            hits = operator.search(token, user_id=attempt.user, mode="keyword", limit=5)
            assert attempt.memory_id in {h.memory_id for h in hits}, attempt
        ready = op.ready()
        assert ready["ready"] is True, ready

    doctor = subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), "doctor", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(doctor.stdout)
    assert doctor.returncode == 0 and report["healthy"] is True, doctor.stdout[-2000:]

    lines = [
        f"{THREADS} clients, {len(keys)} keys of {len(USERS)} users, {elapsed:.1f} s:",
        f"  writes acknowledged {len(acknowledged)}, failed {len(failed)} (of which landed "
        f"{landed}), impatient timeouts {tally.gave_up}, errors {len(tally.errors)} "
        f"({Counter((e[1], e[2]) for e in tally.errors)})",
    ]
    for op_name, times in sorted(tally.latencies.items()):
        ordered = sorted(times)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        lines.append(
            f"  {op_name:14} n={len(times):5}  {len(times) / elapsed:6.1f}/s  "
            f"p50 {statistics.median(times) * 1000:7.1f} ms  p95 {p95 * 1000:7.1f} ms"
        )
    print("\n".join(lines))
