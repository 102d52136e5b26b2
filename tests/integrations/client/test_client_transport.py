"""memex_client's transport against small stand-in servers: kept connections reused while
fresh, a connection the server closed replaced without resending anything, and every way
of not reaching memex turned into the client's own errors."""

from __future__ import annotations

import gc
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

pytest.importorskip("httpx", reason="memex_client needs memex[client]")

from memex_client.errors import MemexClientError, ServiceUnavailableError
from memex_client.transport import Transport


class StandIn:
    """A loopback HTTP/1.1 server answering each request with ``answer``; it closes a
    connection after ``per_connection`` requests (0: never), without saying so."""

    def __init__(self, answer: bytes, per_connection: int = 0) -> None:
        self.answer = answer
        self.per_connection = per_connection
        self.connections = 0
        self.closed = threading.Semaphore(0)  # released each time it closes a connection
        self.requests: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        served = 0
        with conn:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(buffer) < length:
                    buffer += conn.recv(65536)
                body, buffer = buffer[:length], buffer[length:]
                self.requests.append(head.split(b"\r\n")[0] + b" " + body)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(self.answer)}\r\n\r\n".encode()
                    + self.answer
                )
                served += 1
                if self.per_connection and served >= self.per_connection:
                    break  # closes the socket, as a server's keep-alive timeout does
        self.closed.release()

    def close(self) -> None:
        self._stop = True
        self.sock.close()


@contextmanager
def stand_in(answer: bytes, per_connection: int = 0) -> Iterator[StandIn]:
    server = StandIn(answer, per_connection)
    try:
        yield server
    finally:
        server.close()


def test_json_calls_reuse_one_kept_connection() -> None:
    with stand_in(b'{"ok": true}') as server:
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        try:
            for n in range(5):
                assert transport.post("/v1/search", {"query": f"q{n}"}) == {"ok": True}
        finally:
            transport.close()
        assert server.connections == 1
        assert [r.split(b" ", 1)[0] for r in server.requests] == [b"POST"] * 5
        assert json.loads(server.requests[-1].split(b" ", 3)[3]) == {"query": "q4"}


def test_a_connection_the_server_closed_is_replaced_and_nothing_is_sent_twice() -> None:
    with stand_in(b'{"ok": true}', per_connection=1) as server:
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        try:
            for n in range(3):
                assert transport.post("/v1/remember", {"text": f"fact {n}"}) == {"ok": True}
                # The server has closed that connection (as its idle timeout does) and
                # the close has reached this machine's socket before the next call.
                assert server.closed.acquire(timeout=10)
        finally:
            transport.close()
        assert server.connections == 3
        assert len(server.requests) == 3  # each write reached the server exactly once


def test_a_server_that_is_not_there_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, not listening: connections are refused
        transport = Transport(f"http://127.0.0.1:{port}", "token")
        with pytest.raises(ServiceUnavailableError) as caught:
            transport.get("/v1/whoami")
    assert caught.value.code == "unreachable"
    assert f"127.0.0.1:{port}" in str(caught.value) and "memex serve" in str(caught.value)


def test_an_answer_that_is_not_json_says_so() -> None:
    with stand_in(b"<html>hello</html>") as server:
        transport = Transport(f"http://127.0.0.1:{server.port}/memex", "token")
        try:
            with pytest.raises(MemexClientError) as caught:
                transport.get("/v1/whoami")
        finally:
            transport.close()
    assert caught.value.code == "not_json"
    assert server.requests[0].startswith(b"GET /memex/v1/whoami HTTP/1.1")


def test_calls_from_several_threads_each_get_their_own_connection() -> None:
    with stand_in(b"[1, 2, 3]") as server:
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        results: list[object] = []

        def call() -> None:
            for _ in range(10):
                results.append(transport.get("/v1/fact-types"))

        threads = [threading.Thread(target=call) for _ in range(4)]
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            transport.close()
        assert results == [[1, 2, 3]] * 40
        assert server.connections == 4


def test_a_thread_that_ends_takes_its_connection_with_it() -> None:
    with stand_in(b"{}") as server:
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        try:
            for _ in range(5):  # a new thread per call, as some programs do
                thread = threading.Thread(target=transport.get, args=("/v1/whoami",))
                thread.start()
                thread.join()
            gc.collect()
            assert transport._fast is not None
            assert transport._fast.open_connections == 0  # no socket left behind
            transport.get("/v1/whoami")
            assert transport._fast.open_connections == 1
        finally:
            transport.close()
        assert server.connections == 6


def test_post_as_reads_the_answer_into_its_type_and_reports_the_rest_as_post_does() -> None:
    from pydantic import ValidationError

    from memex_core.services.search import SearchResults

    answer = {
        "mode": "keyword",
        "results": [],
        "notes": ["a note"],
        "fallback": None,
        "floor": None,
        "below_floor": 2,
    }
    with stand_in(json.dumps(answer).encode()) as server:
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        try:
            found = transport.post_as(SearchResults, "/v1/search", {"query": "q"})
        finally:
            transport.close()
    assert found == SearchResults("keyword", [], ["a note"], None, None, 2)

    with stand_in(b"<html>hello</html>") as server:
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        try:
            with pytest.raises(MemexClientError) as caught:
                transport.post_as(SearchResults, "/v1/search", {"query": "q"})
        finally:
            transport.close()
    assert caught.value.code == "not_json"

    with stand_in(b'{"mode": 3}') as server:  # JSON, not a search's answer: as decode says
        transport = Transport(f"http://127.0.0.1:{server.port}", "token")
        try:
            with pytest.raises(ValidationError):
                transport.post_as(SearchResults, "/v1/search", {"query": "q"})
        finally:
            transport.close()
