"""``memex serve`` while another process holds the home for a write: a write is 503 with
what to do, and reads go on (its own server, not the errors module's)."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import (
    MemexClient,
    ServiceUnavailableError,
)
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    Raw,
    assert_clean_response,
    error_of,
    keyword_only_home,
    served,
)

# -- 503 -----------------------------------------------------------------------------------------


def test_a_write_while_another_process_holds_the_home_is_503_and_reads_go_on(
    tmp_path: Path,
) -> None:
    """Another process (say ``memex ingest``) holds ``write.lock``: a write waits
    MEMEX_LOCK_TIMEOUT, then answers 503 ``write_locked`` with Retry-After and whom it waited
    for; reads answer; nothing of the refused write is stored; after the holder is done the
    same write goes through."""
    home = keyword_only_home(tmp_path / "home")
    with served(home, env={"MEMEX_LOCK_TIMEOUT": "0.2"}) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        key = op.create_key("alice", name="a")["key"]
        raw = Raw(service.url, key)
        assert_clean_response(raw.post("/v1/memory/remember", {"text": "Alice likes tea"}))
        fd = os.open(home / "write.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            os.pwrite(fd, b"pid 4242: memex ingest export.zip", 0)
            refused = raw.post("/v1/memory/remember", {"text": "Alice likes coffee"})
            status, code, message = error_of(refused)
            assert (status, code) == (503, "write_locked")
            assert refused.headers["retry-after"].isdigit()
            assert "pid 4242: memex ingest export.zip" in message
            assert "MEMEX_LOCK_TIMEOUT" in message
            alice = MemexClient(service.url, api_key=key, timeout=CLIENT_TIMEOUT).agent()
            with pytest.raises(ServiceUnavailableError) as caught:
                alice.write("user/x.md", "Alice's file")
            assert caught.value.code == "write_locked"
            hits = assert_clean_response(raw.post("/v1/memory/search", {"query": "tea"}))
            assert [h["text"] for h in hits] == ["Alice likes tea"]
            assert assert_clean_response(Raw(service.url).get("/healthz")) == {"status": "ok"}
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        listed = assert_clean_response(raw.post("/v1/memory/list", {}))
        assert [m["content"] for m in listed] == ["Alice likes tea"]
        assert_clean_response(raw.post("/v1/memory/remember", {"text": "Alice likes coffee"}))
        assert alice.write("user/x.md", "Alice's file").path == "user/x.md"


def test_reads_are_answered_while_a_write_waits_for_another_process(tmp_path: Path) -> None:
    """A write waiting for another process's write lock waits outside the server's call
    lock: searches, gets and lists are answered meanwhile, and the write lands once the
    holder lets go."""
    home = keyword_only_home(tmp_path / "home")
    with served(home, env={"MEMEX_LOCK_TIMEOUT": "120"}) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        key = op.create_key("alice", name="a")["key"]
        raw = Raw(service.url, key)
        assert_clean_response(raw.post("/v1/memory/remember", {"text": "Alice likes tea"}))
        fd = os.open(home / "write.lock", os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        pending: dict[str, object] = {}
        writer = threading.Thread(
            target=lambda: pending.update(
                answer=Raw(service.url, key).post(
                    "/v1/memory/remember", {"text": "Alice likes coffee"}
                )
            )
        )
        try:
            writer.start()
            for _ in range(3):
                hits = assert_clean_response(raw.post("/v1/memory/search", {"query": "tea"}))
                assert [h["text"] for h in hits] == ["Alice likes tea"]
                assert len(assert_clean_response(raw.post("/v1/memory/list", {}))) == 1
                found = assert_clean_response(raw.post("/v1/search", {"query": "tea"}))
                assert found["results"]
            assert writer.is_alive() and "answer" not in pending  # still waiting
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        writer.join(timeout=CLIENT_TIMEOUT)
        answer = pending["answer"]
        assert isinstance(answer, httpx.Response)
        assert_clean_response(answer)
        listed = assert_clean_response(raw.post("/v1/memory/list", {}))
        assert sorted(m["content"] for m in listed) == ["Alice likes coffee", "Alice likes tea"]
