"""The viewer's search page leaves out the code ``memex ask`` indexed unless its source
filter names ``code`` (issue 32 item 1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from memex_core.api import Memex
from tests.support.code_home import QUERY, CodeHome, build_code_home
from tests.support.viewer_fixtures import SECRET, client_for, sign_in  # skips without fastapi

CODE_FILES = ("store/db.py", "tests/test_db.py", "docs/locking.md")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    built: CodeHome = build_code_home(tmp_path_factory.mktemp("viewer-code"))
    with Memex(built.home) as mx:
        client = client_for(mx)
        sign_in(client, SECRET)
        yield client


@pytest.mark.parametrize("mode", ["dig", "keyword"])
def test_search_page_shows_memory_not_code(client: TestClient, mode: str) -> None:
    page = client.get("/", params={"q": QUERY, "mode": mode, "limit": "3"})
    assert page.status_code == 200, page.text[:300]
    assert "Busy timeout" in page.text
    assert not [name for name in CODE_FILES if name in page.text]
    named = client.get("/", params={"q": QUERY, "mode": mode, "source": "code"})
    assert [name for name in CODE_FILES if name in named.text]


def test_corpus_page_counts_code_apart(client: TestClient) -> None:
    page = client.get("/corpus")
    assert page.status_code == 200, page.text[:300]
    assert "in 4 conversations and notes" in page.text and "; 2 notes with" in page.text
    assert "files of 1 repository, indexed by <code>memex ask</code>" in page.text


def test_notes_index_lists_notes_not_code_files(client: TestClient) -> None:
    page = client.get("/notes")
    assert page.status_code == 200, page.text[:300]
    assert "Locking.md" in page.text and "Timeouts.md" in page.text
    assert not [name for name in CODE_FILES if name in page.text]
