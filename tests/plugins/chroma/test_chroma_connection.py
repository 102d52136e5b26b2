"""Where the chroma store connects, and how filters become chroma ``where`` clauses."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from memex_chroma.connection import (
    URL_ENV,
    ChromaConfigError,
    ChromaLocation,
    ChromaUnreachableError,
    open_client,
    parse_server_url,
    resolve_location,
)
from memex_chroma.metadata import where_clause
from memex_core.domain import SearchFilters
from memex_core.errors import MemexError


@pytest.mark.parametrize(
    ("url", "host", "port", "ssl"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1", 8000, False),
        ("http://localhost", "localhost", 8000, False),
        ("https://chroma.example.org", "chroma.example.org", 443, True),
        ("https://chroma.example.org:9443/", "chroma.example.org", 9443, True),
        ("http://[::1]:8123", "[::1]", 8123, False),
        ("  http://10.0.0.5:8001  ", "10.0.0.5", 8001, False),
    ],
)
def test_parses_server_urls(url: str, host: str, port: int, ssl: bool) -> None:
    address = parse_server_url(url, "from a test")
    assert (address.host, address.port, address.ssl) == (host, port, ssl)


@pytest.mark.parametrize(
    "url",
    ["127.0.0.1:8000", "ftp://host:21", "http://", "http://host:port", "http://host:8000/chroma"],
)
def test_rejects_unusable_urls_saying_where_they_came_from(url: str) -> None:
    with pytest.raises(ChromaConfigError, match="from MEMEX_CHROMA_URL") as raised:
        parse_server_url(url, "from MEMEX_CHROMA_URL")
    assert isinstance(raised.value, MemexError)
    assert "http://127.0.0.1:8000" in str(raised.value)  # the fix shows a working example


def test_defaults_to_a_folder_under_memex_home(tmp_path: Path) -> None:
    location = resolve_location(tmp_path, {}, environ={})
    assert location == ChromaLocation(path=tmp_path / "index" / "chroma")


def test_settings_can_move_the_folder(tmp_path: Path) -> None:
    location = resolve_location(tmp_path, {"path": str(tmp_path / "elsewhere")}, environ={})
    assert location.path == tmp_path / "elsewhere"


def test_settings_url_selects_a_server(tmp_path: Path) -> None:
    location = resolve_location(tmp_path, {"url": "http://127.0.0.1:9000"}, environ={})
    assert location.path is None
    assert location.server is not None and location.server.port == 9000
    assert "config.toml" in location.server.origin


def test_environment_url_wins_over_settings(tmp_path: Path) -> None:
    environ = {URL_ENV: "http://127.0.0.1:7000"}
    location = resolve_location(tmp_path, {"url": "http://127.0.0.1:9000"}, environ=environ)
    assert location.server is not None and location.server.port == 7000
    assert URL_ENV in location.server.origin


def test_blank_environment_url_is_ignored(tmp_path: Path) -> None:
    assert resolve_location(tmp_path, {}, environ={URL_ENV: " "}).path is not None


def test_reads_the_real_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(URL_ENV, "http://127.0.0.1:7001")
    location = resolve_location(tmp_path, {})
    assert location.server is not None and location.server.port == 7001


def test_unreachable_server_is_a_user_error_with_a_fix() -> None:
    pytest.importorskip("chromadb", reason="chromadb is not installed")
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    location = ChromaLocation(server=parse_server_url(f"http://127.0.0.1:{port}", "from a test"))
    with pytest.raises(ChromaUnreachableError, match=f"unset {URL_ENV}"):
        open_client(location)


def test_where_clause_for_no_filters_is_none() -> None:
    # Scope and private clauses: tests/core/domain/test_scope_filters.py. named_only=(): a
    # home without code, as the reader passes it (code's clause: test_code_named_only.py).
    assert where_clause(SearchFilters(named_only=()), private_stored=False) is None


def test_where_clause_with_one_restriction_is_not_wrapped() -> None:
    clause = where_clause(SearchFilters(roles=("user",), named_only=()), private_stored=False)
    assert clause == {"role": {"$in": ["user"]}}


def test_where_clause_combines_restrictions_with_and() -> None:
    clause = where_clause(
        SearchFilters(source_kinds=("chatgpt",), conversation_ids=("c1", "c2"), since=5, until=9),
        private_stored=False,
    )
    assert clause is not None
    assert clause == {
        "$and": [
            {"source_kind": {"$in": ["chatgpt"]}},
            {"conversation_id": {"$in": ["c1", "c2"]}},
            {"timestamp": {"$gte": 5.0}},
            {"timestamp": {"$lte": 9.0}},
        ]
    }
    # Always floats: chroma keeps int and float metadata apart.
    assert isinstance(clause["$and"][2]["timestamp"]["$gte"], float)
