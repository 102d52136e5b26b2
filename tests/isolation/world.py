"""The isolation home: bob's and carol's memories with their canaries, alice's own, the
operator's shared files and a corpus fragment; every surface of the matrix reads this home.

For bob: facts, files (``users/bob/secret.md``), private and deleted memories, memories in
collections ``acme:bob`` and ``acme``, a remembered conversation and a fact worded exactly
like one of alice's; carol has her own; the operator has shared files, a shared fact closed
by a later one (:func:`shared_chain`) and a corpus fragment.
The canaries and attack tables are in ``tests/support/memory_attacks.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain import (
    ConsolidationDecision,
    Fragment,
    MemoryFact,
    Provenance,
    SimilarMemory,
    fragment_id,
)
from memex_core.domain.contracts import FactType, Redaction
from memex_core.domain.memory.records import SHARED_OWNER
from memex_core.domain.memory.timestamps import to_epoch
from memex_core.handles import AgentMemory
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from tests.support.component_doubles import DoublesPlugin
from tests.support.memory_attacks import BOB_CANARY, BOB_HIDDEN, CAROL_CANARY, CORPUS_CANARY

ALICE, ALICE_OWNER, ALICE_BOT = "alice", "users/alice", "alice-bot"
READABLE = (ALICE_OWNER, "shared")
SAME_TEXT = "Everyone on the team likes the espresso machine"
#: The shared chain: a shared fact (Leeds) closed by a later shared fact (York).
SHARED_OLD, SHARED_NEW = "Dana Whitfield lives in Leeds", "Dana Whitfield moved to York"
UNKNOWN_ID = "mem_0123456789abcdef0123"
UNKNOWN_FRAGMENT = "0" * 32


class PlainRedactor:
    """Stores text as given: isolation must not depend on what a redactor removes."""

    def redact(self, text: str) -> Redaction:
        return Redaction(text)


class IsolationPlugin:
    @hookimpl
    def register_redactors(self, register: Any) -> None:
        register("isolation-plain", lambda context: PlainRedactor())


class NoFacts:
    """An extractor that finds nothing (the conversation itself is what is stored)."""

    def extract(self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]) -> list[Any]:
        return []


def isolation_memex(home: Path, *, plugins: dict[str, Any] | None = None, **chosen: str) -> Memex:
    """``fast_memex`` plus a pass-through redactor (no model, no secrets plugin needed);
    ``plugins`` (name -> plugin) registered too and ``chosen`` components picked."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    registry.register_plugin(IsolationPlugin(), name="isolation")
    for name, plugin in (plugins or {}).items():
        registry.register_plugin(plugin, name=name)
    base = load_config(home)
    components = {
        **base.components,
        "embedder": "hashing",
        "vector_store": "memory",
        "redactor": "isolation-plain",
        **chosen,
    }
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


@dataclass
class Home:
    mx: Memex
    ids: dict[str, str] = field(default_factory=dict)

    def alice(self, **kwargs: Any) -> AgentMemory:
        return self.mx.agent(ALICE, name=ALICE_BOT, **kwargs)

    def bob(self) -> AgentMemory:
        return self.mx.agent("bob", name="bob-bot")

    def memory_rows(self) -> list[tuple[Any, ...]]:
        return self.mx.query(
            "SELECT id, owner, collection, path, kind, status, revision, private, fingerprint, "
            "created_at, updated_at FROM memories ORDER BY id"
        )[1]

    def owners(self) -> dict[str, str]:
        """Memory id -> owner, for every memory in the home."""
        return {row[0]: row[1] for row in self.memory_rows()}

    def foreign_ids(self) -> set[str]:
        return {i for i, owner in self.owners().items() if owner not in READABLE}


def build_home(mx: Memex) -> Home:
    home = Home(mx)
    ids = home.ids
    operator = mx.operator("admin")
    ids["shared_handbook"] = operator.write(
        "shared/handbook.md", "Team handbook: refunds within thirty days."
    ).id
    ids["shared_retired"] = operator.write("shared/retired.md", "An old shared page.").id
    operator.forget("shared/retired.md")
    ids["shared_old_fact"], ids["shared_new_fact"] = shared_chain(mx)

    bob = home.bob()
    canaries = f"{BOB_CANARY} {BOB_HIDDEN}"
    ids["bob_fact"] = bob.remember(f"Bob prefers oolong tea {canaries}").memory_ids[0]
    ids["bob_file"] = bob.write(
        "user/secret.md",
        f"Bob's secret plan {canaries}: launch codename. See [[shared/handbook]].",
    ).id
    ids["bob_diary"] = bob.write("user/diary.md", f"Bob's diary {canaries}, about [[secret]]").id
    ids["bob_private_fact"] = bob.remember(
        f"Bob sees a therapist {canaries}", private=True
    ).memory_ids[0]
    ids["bob_private_file"] = bob.write(
        "user/private.md", f"Bob's private file {canaries}", private=True
    ).id
    ids["bob_deleted_fact"] = bob.remember(f"Bob's old address {canaries}").memory_ids[0]
    bob.forget(ids["bob_deleted_fact"])
    ids["bob_deleted_file"] = bob.write("user/old.md", f"Bob's old file {canaries}").id
    bob.forget("user/old.md")
    ids["bob_acme_bob"] = bob.remember(
        f"Bob's acme account note {canaries}", collection="acme:bob"
    ).memory_ids[0]
    ids["bob_acme"] = bob.remember(
        f"Bob handles acme billing {canaries}", collection="acme"
    ).memory_ids[0]
    conversation = bob.remember(
        messages=[
            {"role": "user", "content": f"Bob told the bot {canaries}"},
            {"role": "assistant", "content": f"Noted, Bob {canaries}"},
        ],
        extractor=NoFacts(),
    ).conversation_id
    assert conversation is not None
    ids["bob_conversation"] = conversation
    ids["bob_same_as_alice"] = bob.remember(SAME_TEXT, collection="acme").memory_ids[0]

    carol = mx.agent("carol", name="carol-bot")
    ids["carol_fact"] = carol.remember(
        f"Carol prefers mint tea {CAROL_CANARY}", collection="acme:carol"
    ).memory_ids[0]
    ids["carol_file"] = carol.write("user/secret.md", f"Carol's secret {CAROL_CANARY}").id

    alice = home.alice()
    ids["alice_fact"] = alice.remember("Alice prefers green tea").memory_ids[0]
    ids["alice_file"] = alice.write("user/notes.md", "Alice's notes, see [[shared/handbook]]").id
    ids["alice_private"] = alice.remember(
        "Alice's private diary entry about tea", private=True
    ).memory_ids[0]
    ids["alice_same"] = alice.remember(SAME_TEXT, collection="acme").memory_ids[0]
    ids["alice_support"] = alice.remember(
        "Alice answers acme support tickets", collection="acme:support"
    ).memory_ids[0]

    corpus = Fragment(
        id=fragment_id("api", "corpus-1", "0", CORPUS_CANARY),
        conversation_id="corpus-1",
        role="user",
        content=f"Operator corpus text {CORPUS_CANARY} about tea and launch plans",
        provenance=Provenance("api", "test:corpus", "corpus-1", "0", 1_700_000_000.0),
        timestamp=1_700_000_000.0,
    )
    mx.add_fragments([corpus], origin="test:corpus")
    return home


def shared_chain(mx: Memex) -> tuple[str, str]:
    """Two shared facts, the first closed by the second (Leeds, then York). No surface
    remembers a fact into shared memory (an agent's facts are its user's, the operator's
    name a user), so the operator's scope writes them through the memory service, as a
    restored archive or a future surface could: the matrix then checks that a shared fact
    is never closed or reopened by a user's key unless shared memory is writable."""
    service, scope = mx.memory_service(), mx.operator("admin").scope
    made = []
    with mx.writing(), mx.memory_indexes().held():
        for text, at in ((SHARED_OLD, "2023-01-10"), (SHARED_NEW, "2023-06-01")):
            record = service.create(
                scope,
                owner=SHARED_OWNER,
                collection="",
                kind="misc",
                prepared=service.prepare(text),
                at=to_epoch(at),
            )
            made.append(record.id)
    old, new = made
    assert mx.operator().get(old).superseded_by == new  # the world the matrix needs
    return old, new


# -- consolidators ------------------------------------------------------------------------------


class Recorder:
    """A consolidator that records what it is shown: a repeat when there is something similar
    (NONE on the closest), else ADD."""

    def __init__(self) -> None:
        self.seen: list[tuple[MemoryFact, list[SimilarMemory]]] = []

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        self.seen.append((fact, list(similar)))
        if similar:
            return ConsolidationDecision("NONE", fact, similar[0].memory_id, reason="repeat")
        return ConsolidationDecision("ADD", fact, reason="new")


class Hostile:
    """A consolidator (say, a confused or prompt-injected model) that always names one
    foreign memory as the target."""

    def __init__(self, action: str, target_id: str) -> None:
        self.action, self.target_id = action, target_id

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        return ConsolidationDecision(
            self.action, fact, self.target_id, reason="hostile", text="overwritten by alice"
        )


#: Agent routes and a body each accepts (``{ref}`` etc. filled in per test).
AGENT_ROUTES: dict[str, dict[str, Any]] = {
    "/v1/memory/get": {"ref": "user/notes.md"},
    "/v1/memory/chain": {"ref": "user/notes.md"},
    "/v1/memory/list": {},
    "/v1/memory/search": {"query": "tea"},
    "/v1/memory/links": {"ref": "user/notes.md"},
    "/v1/memory/remember": {"text": "Alice probes the server"},
    "/v1/memory/write": {"path": "user/probe.md", "content": "Alice's probe"},
    "/v1/memory/forget": {"ref": UNKNOWN_ID},
    "/v1/memory/undelete": {"ref": UNKNOWN_ID},
    "/v1/memory/dream": {"dry_run": True},
    "/v1/memory/collections": {},
    "/v1/memory/dream/plan": {},
    "/v1/memory/dream/apply": {"digest": "0" * 24},
    "/v1/search": {"query": "tea"},
    "/v1/search/explain": {"query": "zzqxj qqvvkw"},
    "/v1/fragments": {"ids": [UNKNOWN_FRAGMENT]},
    "/v1/timeline": {"fragment_id": UNKNOWN_FRAGMENT},
    "/v1/explore": {"note": "Handbook"},
    "/v1/context": {"query": "tea"},
}
