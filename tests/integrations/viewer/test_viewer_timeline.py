"""The viewer's memory page shows a fact's chain as a timeline (issue 30): Paris -> Berlin,
oldest first, each with when it held, the replaced one marked superseded with a link to what
replaced it, the current one marked current; stored text escaped; an agent session sees its
own user's chain only and another user's fact is not found; a memory file shows no timeline.

The real ``memex serve`` app through Starlette's TestClient, with the lives-in test judge
(tests/support/supersession_doubles.py). The same page in Chromium: tests/browser/
test_fact_timeline.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

pytest.importorskip("jinja2")
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_server.app import build_app
from tests.support.supersession_doubles import timed_memex
from tests.support.viewer_fixtures import post_signin

SECRET = "operator-secret-for-timeline-tests"
XSS = '<script>alert("x")</script>'


@dataclass
class Moves:
    mx: Memex
    app: object
    alice_key: str
    rome: str
    paris: str
    berlin: str
    bob_oslo: str
    bob_lisbon: str


@pytest.fixture(scope="module")
def moves(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Moves]:
    mx = timed_memex(tmp_path_factory.mktemp("viewer-timeline") / "home")
    ids = [
        mx.remember(text, user=user, at=at).memory_ids[0]
        for user, text, at in (
            ("alice", f"Alice lives in Rome {XSS}", "2023-02-01"),
            ("alice", "Alice lives in Paris", "2024-01-10"),
            ("alice", "Alice moved to Berlin", "2024-06-01"),
            ("bob", "Bob lives in Oslo", "2024-01-10"),
            ("bob", "Bob moved to Lisbon", "2024-06-01"),
        )
    ]
    mx.operator().write("users/alice/notes.md", "Alice's notes")
    _, key = mx.agent_keys().create("alice", name="alice-viewer")
    yield Moves(mx, build_app(mx, admin_secret=SECRET), key, *ids)
    mx.close()


def signed_in(moves: Moves, credential: str) -> TestClient:
    client = TestClient(moves.app)  # type: ignore[arg-type]
    assert post_signin(client, credential).status_code == 303
    return client


def timeline(html: str) -> list[tuple[str, str]]:
    """(memory id, classes) of each fact of the page's timeline, in order."""
    return re.findall(r'data-testid="fact" data-memory-id="([^"]+)" class="([^"]+)"', html)


@pytest.mark.parametrize("who", ["agent", "operator"])
def test_the_chain_is_a_timeline_from_either_end(moves: Moves, who: str) -> None:
    client = signed_in(moves, moves.alice_key if who == "agent" else SECRET)
    for opened in (moves.rome, moves.paris, moves.berlin):
        page = client.get(f"/memory/{opened}")
        assert page.status_code == 200
        facts = timeline(page.text)
        assert [i for i, _ in facts] == [moves.rome, moves.paris, moves.berlin]
        classes = dict(facts)
        assert classes[moves.rome].startswith("superseded")
        assert classes[moves.paris].startswith("superseded")
        assert classes[moves.berlin].startswith("current")
        assert "this" in classes[opened].split()
    html = client.get(f"/memory/{moves.paris}").text
    assert (
        '<time class="valid-from" datetime="2024-01-10T00:00:00+00:00">2024-01-10 00:00 UTC' in html
    )
    assert (
        '<time class="valid-until" datetime="2024-06-01T00:00:00+00:00">2024-06-01 00:00 UTC'
        in html
    )
    assert f'class="superseded-by" href="/memory/{moves.berlin}"' in html
    assert '<span class="current-mark">current</span>' in html
    # The record's own facts say when it held too.
    assert '<dd class="valid-until">' in html


def test_stored_text_is_escaped(moves: Moves) -> None:
    html = signed_in(moves, SECRET).get(f"/memory/{moves.berlin}").text
    assert XSS not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html


def test_an_agent_session_never_sees_another_users_chain(moves: Moves) -> None:
    alice = signed_in(moves, moves.alice_key)
    for bobs in (moves.bob_oslo, moves.bob_lisbon):
        page = alice.get(f"/memory/{bobs}")
        assert page.status_code == 404
        assert "Oslo" not in page.text and "Lisbon" not in page.text
    assert "Oslo" not in alice.get(f"/memory/{moves.paris}").text


def test_a_fact_alone_and_a_memory_file_show_no_timeline(moves: Moves) -> None:
    operator = signed_in(moves, SECRET)
    alone = moves.mx.remember("Alice prefers green tea", user="alice").memory_ids[0]
    html = operator.get(f"/memory/{alone}").text
    assert 'id="fact-timeline"' not in html and '<dd class="valid-from">' in html
    file_id = moves.mx.operator().get("users/alice/notes.md").id
    html = operator.get(f"/memory/{file_id}").text
    assert 'id="fact-timeline"' not in html and '<dd class="valid-from">' not in html
