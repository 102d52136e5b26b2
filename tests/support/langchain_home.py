"""A memex home for the LangChain tests: a corpus, two users' memory and shared memory.

Imported by the ``test_langchain_*`` modules; ``test_langchain_home`` checks that the
home holds what they rely on. Every fragment of bob's says ``BOBSECRET`` and
shares words with the queries the isolation tests send, so a leak cannot hide
behind a query that simply does not match.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from memex_core.api import Memex
from memex_core.domain import Fragment, Provenance, fragment_id
from tests.support.component_doubles import fast_memex

DAY = 86400.0
#: 2024-03-01T00:00:00Z; corpus turns are one day apart from here.
START = datetime(2024, 3, 1, tzinfo=UTC).timestamp()

#: (conversation id, title, source kind, [(role, text)]) of the operator's corpus.
CORPUS: list[tuple[str, str, str, list[tuple[str, str]]]] = [
    (
        "conv-sqlite",
        "SQLite locking",
        "chatgpt",
        [
            ("user", "Why does sqlite say database is locked when two writers commit?"),
            ("assistant", "SQLite allows one writer at a time; use WAL mode and a busy timeout."),
            ("user", "The sqlite database is locked again during the nightly backup."),
            ("assistant", "Back up the sqlite database with the online backup API, not cp."),
        ],
    ),
    (
        "conv-deploy",
        "Friday deploys",
        "claude_code",
        [
            ("user", "Deploy the service on Friday after the sqlite migration."),
            ("assistant", "The deploy script runs migrations, then restarts the workers."),
            ("tool", "deploy.sh: migrations applied, 3 workers restarted"),
        ],
    ),
    (
        "conv-garden",
        "Tomato garden",
        "chatgpt",
        [
            ("user", "When should I plant tomatoes in a cold spring?"),
            ("assistant", "Plant tomatoes after the last frost, when nights stay above 10C."),
        ],
    ),
    (
        "conv-rust",
        "Rust lifetimes",
        "claude_ai",
        [
            ("user", "Explain rust lifetimes and the borrow checker."),
            ("assistant", "Lifetimes tell the borrow checker how long references live."),
        ],
    ),
]

ALICE_FACTS = [
    ("Alice prefers tea over coffee", "acme:support"),
    ("Alice's sqlite database is locked by her backup job", "acme:support"),
    ("Alice handles sqlite tickets for the EU region", "acme:support:eu"),
    ("Alice closed the sqlite renewal deal", "acme:sales"),
    ("Alice keeps sqlite notes in the supportx wiki", "acme:supportx"),
]
ALICE_PRIVATE = "Alice's sqlite password hint is the name of her cat"
BOB_FACTS = [
    ("BOBSECRET bob's sqlite database is locked on every deploy", "acme:support"),
    ("BOBSECRET bob prefers coffee and tea with sqlite", "acme:support:eu"),
    ("BOBSECRET bob plants tomatoes on Friday", ""),
]
SHARED_FAQ = "Shared FAQ: a locked sqlite database usually means a long transaction."


def corpus_fragments() -> list[Fragment]:
    out = []
    turn = 0
    for conversation, title, kind, turns in CORPUS:
        for index, (role, text) in enumerate(turns):
            locator = f"{conversation}/{index}"
            timestamp = START + turn * DAY
            turn += 1
            out.append(
                Fragment(
                    id=fragment_id(kind, conversation, locator, text),
                    conversation_id=conversation,
                    role=role,
                    content=text,
                    provenance=Provenance(
                        source_kind=kind,
                        source_path=f"/exports/{kind}.json",
                        source_id=conversation,
                        locator=locator,
                        timestamp=timestamp,
                    ),
                    timestamp=timestamp,
                    title=title,
                )
            )
    return out


def build_home(home: Path) -> Memex:
    """A fast Memex on ``home`` holding the corpus, alice's, bob's and shared memory."""
    mx = fast_memex(home)
    mx.add_fragments(corpus_fragments(), origin="test:langchain")
    alice = mx.agent("alice")
    for text, collection in ALICE_FACTS:
        alice.remember(text, collection=collection)
    alice.remember(ALICE_PRIVATE, collection="acme:support", private=True)
    alice.write("user/notes/sqlite.md", "Alice's sqlite checklist: WAL mode, busy timeout.")
    bob = mx.agent("bob")
    for text, collection in BOB_FACTS:
        bob.remember(text, collection=collection)
    bob.write("user/notes/sqlite.md", "BOBSECRET bob's sqlite checklist: locked database fixes.")
    mx.operator().write("shared/faq.md", SHARED_FAQ, collection="acme:support")
    return mx
