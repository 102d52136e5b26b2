"""Agent memory through the two handles: remember, files, revisions, privacy, log, purge, dream."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memex_core.api import Memex, make_filters
from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain import (
    ConsolidationDecision,
    FactType,
    Fragment,
    MemoryFact,
    SimilarMemory,
)
from memex_core.errors import MemexError
from memex_core.handles import MemoryNotFound
from tests.support.component_doubles import fast_memex
from tests.support.supersession_doubles import timed_memex


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    memex = fast_memex(tmp_path / "home")
    yield memex
    memex.close()


def texts(hits: Sequence[object]) -> list[str]:
    return [h.text for h in hits]  # type: ignore[attr-defined]


class ScriptedConsolidator:
    """Returns the decisions it was given, in order, and records what it was shown."""

    def __init__(self, *decisions: tuple[str, int | None, str | None]) -> None:
        self.script = list(decisions)
        self.seen: list[tuple[MemoryFact, list[SimilarMemory]]] = []

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        self.seen.append((fact, list(similar)))
        action, index, text = self.script.pop(0)
        target = similar[index].memory_id if index is not None else None
        return ConsolidationDecision(action, fact, target, reason="scripted", text=text)


class SentenceExtractor:
    """Every user sentence that starts with 'I ' becomes a fact."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[Fragment], list[FactType]]] = []

    def extract(
        self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]
    ) -> list[MemoryFact]:
        self.calls.append((list(fragments), list(fact_types)))
        facts = []
        for fragment in fragments:
            if fragment.role != "user":
                continue
            for sentence in fragment.content.split("."):
                if sentence.strip().startswith("I "):
                    text = "User " + sentence.strip()[2:]
                    facts.append(MemoryFact(text, "preference", (fragment.id,)))
        return facts


# -- remember and search --------------------------------------------------------------------


def test_a_fact_is_found_by_its_user_and_by_no_other(mx: Memex) -> None:
    alice, bob = mx.agent("alice"), mx.agent("bob")
    result = alice.remember("Alice prefers green tea over coffee", collection="acme:support")
    assert [d.decision.action for d in result.decisions] == ["ADD"]
    assert texts(alice.search("green tea")) == ["Alice prefers green tea over coffee"]
    assert bob.search("green tea") == []
    assert bob.search("green tea", user_id="alice") == []
    assert mx.operator().search("green tea")[0].memory_id == result.memory_ids[0]


def test_remembering_the_same_fact_twice_stores_it_once(mx: Memex) -> None:
    alice = mx.agent("alice")
    first = alice.remember("Alice prefers green tea.")
    again = alice.remember("  alice PREFERS green tea ")
    assert again.decisions[0].decision.action == "NONE"
    assert again.memory_ids == first.memory_ids
    assert len(alice.list()) == 1


def test_collection_prefix_covers_children_and_full_name_only_itself(mx: Memex) -> None:
    alice = mx.agent("alice")
    alice.remember("deploys happen on tuesday", collection="company:engineering")
    alice.remember("alice reviews deploys", collection="company:engineering:alice")
    alice.remember("deploys freeze in december", collection="company:engineeringx")
    prefix = texts(alice.search("deploys", collection="company:engineering"))
    assert sorted(prefix) == ["alice reviews deploys", "deploys happen on tuesday"]
    leaf = texts(alice.search("deploys", collection="company:engineering:alice"))
    assert leaf == ["alice reviews deploys"]
    assert alice.search("deploys", collection="company:nothing") == []
    assert len(alice.list("company")) == 3
    assert len(alice.list("company:engineering")) == 2


def test_handle_default_collection_is_used_for_writes_and_reads(mx: Memex) -> None:
    bot = mx.agent("alice", collection="acme:support")
    bot.remember("alice uses the enterprise plan")
    assert bot.list()[0].collection == "acme:support"
    other = mx.agent("alice", collection="acme:sales")
    assert other.search("enterprise plan") == []


def test_remember_a_conversation_stores_turns_and_extracted_facts(mx: Memex) -> None:
    alice = mx.agent("alice", name="chat-bot")
    extractor = SentenceExtractor()
    result = alice.remember(
        messages=[
            {"role": "user", "content": "I prefer window seats. What flights are there?"},
            {"role": "assistant", "content": "There are two flights on Monday."},
        ],
        extractor=extractor,
        tool_call_id="call-7",
    )
    assert result.conversation_id is not None
    assert [d.decision.fact.text for d in result.decisions] == ["User prefer window seats"]
    fragments, fact_types = extractor.calls[0]
    assert [f.role for f in fragments] == ["user", "assistant"]
    assert {t.name for t in fact_types} >= {"preference", "plan"}
    fact = alice.get(result.memory_ids[0])
    assert fact.kind == "preference"
    history = mx.operator().history(fact.id)
    assert history[0].sources == (fragments[0].id,)
    assert history[0].tool_call_id == "call-7"
    assert "two flights" in " ".join(texts(alice.search("flights monday")))


def test_remember_needs_a_fact_or_a_conversation(mx: Memex) -> None:
    with pytest.raises(MemexError, match="either a fact"):
        mx.agent("alice").remember()


# -- consolidation at write time ----------------------------------------------------------------


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[Memex]:
    """The consolidator decides alone: no supersession judge (a fact that supersedes an
    earlier one is added and closes it: tests/core/services/test_supersession.py)."""
    memex = timed_memex(tmp_path / "home", supersession_judge="none")
    yield memex
    memex.close()


def test_update_from_the_consolidator_writes_a_revision(plain: Memex) -> None:
    mx = plain
    alice = mx.agent("alice")
    first = alice.remember("Alice lives in Lisbon, Portugal").memory_ids[0]
    consolidator = ScriptedConsolidator(("UPDATE", 0, "Alice lives in Porto since May"))
    result = alice.remember(
        "Alice now lives in Porto, Portugal", consolidate=True, consolidator=consolidator
    )
    fact, similar = consolidator.seen[0]
    assert fact.text == "Alice now lives in Porto, Portugal"
    assert [s.memory_id for s in similar] == [first]
    assert all(s.similarity >= 0.5 for s in similar)
    assert result.memory_ids == [first]
    assert alice.get(first).content == "Alice lives in Porto since May"
    revisions = mx.operator().history(first)
    assert [(r.revision, r.action, r.content) for r in revisions] == [
        (1, "create", "Alice lives in Lisbon, Portugal"),
        (2, "update", "Alice lives in Porto since May"),
    ]
    assert texts(alice.search("Lisbon", mode="keyword")) == []


def test_delete_from_the_consolidator_invalidates_and_adds(plain: Memex) -> None:
    mx = plain
    alice = mx.agent("alice")
    old = alice.remember("Alice likes spicy food").memory_ids[0]
    consolidator = ScriptedConsolidator(("DELETE", 0, None))
    result = alice.remember(
        "Alice no longer likes spicy food", consolidate=True, consolidator=consolidator
    )
    new = result.memory_ids[0]
    assert new != old
    assert alice.get(old).status == "invalidated"
    assert alice.get(new).content == "Alice no longer likes spicy food"
    assert mx.operator().history(old)[-1].reason.startswith("contradicted")
    assert [h.memory_id for h in alice.search("spicy food")] == [new]


def test_similar_memories_below_the_threshold_are_not_shown(mx: Memex) -> None:
    alice = mx.agent("alice")
    alice.remember("Alice plays the cello in an orchestra")
    consolidator = ScriptedConsolidator(("ADD", None, None))
    alice.remember(
        "The quarterly budget is due on Friday", consolidate=True, consolidator=consolidator
    )
    assert consolidator.seen[0][1] == []


def test_a_target_the_consolidator_invents_becomes_an_add(mx: Memex) -> None:
    class Inventor:
        def decide(
            self, fact: MemoryFact, similar: Sequence[SimilarMemory]
        ) -> ConsolidationDecision:
            return ConsolidationDecision("UPDATE", fact, "mem_doesnotexist", reason="model said so")

    result = mx.agent("alice").remember(
        "Alice has a dog", consolidate=True, consolidator=Inventor()
    )
    assert result.decisions[0].decision.action == "ADD"
    assert "not found" in result.decisions[0].decision.reason


# -- memory files, links, revisions ----------------------------------------------------------------


def test_files_use_virtual_paths_and_link_into_the_graph(mx: Memex) -> None:
    alice = mx.agent("alice")
    alice.write("user/projects.md", "Working on [[user/roadmap.md]] and [[shared/handbook]].")
    links = alice.links("user/projects.md")
    assert [(o["target"], o["memory_id"]) for o in links.outlinks] == [
        ("user/roadmap.md", None),
        ("shared/handbook", None),
    ]
    roadmap = alice.write("user/roadmap.md", "Q3: ship the memory API")
    assert roadmap.path == "user/roadmap.md"
    assert alice.links("user/projects.md").outlinks[0]["memory_id"] == roadmap.id
    back = alice.links("user/roadmap.md").backlinks
    assert back == [{"path": "user/projects.md", "memory_id": alice.get("user/projects.md").id}]
    # stored under the user's own folder, and in the shared link graph
    assert mx.operator().get("users/alice/roadmap.md").id == roadmap.id
    documents = dict(mx.query("SELECT path, source_kind FROM documents")[1])
    assert documents["users/alice/roadmap.md"] == "memory"


def test_rewriting_a_file_keeps_every_revision_and_restore_brings_one_back(mx: Memex) -> None:
    alice = mx.agent("alice")
    alice.write("user/todo.md", "buy milk")
    alice.write("user/todo.md", "buy oat milk")
    operator = mx.operator()
    record = operator.get("users/alice/todo.md")
    assert [r.content for r in operator.history(record.id)] == ["buy milk", "buy oat milk"]
    restored = operator.restore(record.id, 1)
    assert (restored.revision, restored.content) == (3, "buy milk")
    assert operator.history(record.id)[-1].action == "restore"
    assert texts(alice.search("oat", mode="keyword")) == []
    with pytest.raises(MemoryNotFound, match="no revision 9"):
        operator.restore(record.id, 9)


def test_forget_and_undelete(mx: Memex) -> None:
    alice = mx.agent("alice")
    memory_id = alice.remember("Alice's locker code is in the blue notebook").memory_ids[0]
    forgotten = alice.forget(memory_id, reason="user asked")
    assert forgotten.status == "deleted"
    assert alice.search("locker notebook") == []
    assert alice.list() == []
    assert [m.id for m in alice.list(include_deleted=True)] == [memory_id]
    back = alice.undelete(memory_id)
    assert back.status == "active"
    assert [h.memory_id for h in alice.search("locker notebook")] == [memory_id]
    actions = [r.action for r in mx.operator().history(memory_id)]
    assert actions == ["create", "delete", "undelete"]


def test_shared_memory_is_read_only_for_agents_unless_rw(
    mx: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    mx.operator().write("shared/handbook.md", "Refunds within 30 days.")
    alice = mx.agent("alice")
    assert texts(alice.search("refunds")) == ["Refunds within 30 days."]
    assert alice.get("shared/handbook.md").path == "shared/handbook.md"
    with pytest.raises(MemoryAccessDenied, match="MEMEX_SHARED_WRITE_MODE=rw"):
        alice.write("shared/handbook.md", "Refunds never.")
    for value in ("RO", "yes", "true", "1", " r w"):
        monkeypatch.setenv("MEMEX_SHARED_WRITE_MODE", value)
        with pytest.raises(MemoryAccessDenied):
            mx.agent("alice").write("shared/handbook.md", "Refunds never.")
    monkeypatch.setenv("MEMEX_SHARED_WRITE_MODE", "rw")
    mx.agent("alice").write("shared/handbook.md", "Refunds within 60 days.")
    assert mx.agent("bob").get("shared/handbook.md").content == "Refunds within 60 days."


# -- privacy -----------------------------------------------------------------------------------


def test_private_spans_are_never_stored(mx: Memex) -> None:
    alice = mx.agent("alice")
    result = alice.remember("Alice's plan <private>her salary is 93k</private> is to move to Porto")
    assert result.private_removed == 1
    memory_id = result.memory_ids[0]
    assert "93k" not in alice.get(memory_id).content
    stored = mx.query(
        "SELECT content FROM memory_revisions UNION ALL SELECT content FROM fragments"
    )
    assert not any("93k" in str(row[0]) for row in stored[1])
    assert alice.search("salary 93k", mode="keyword") == []


def test_secrets_are_redacted_before_storage(mx: Memex) -> None:
    alice = mx.agent("alice")
    key = "AKIAIOSFODNN7EXAMPLE"
    result = alice.remember(f"Alice's deploy key is {key} for the staging bucket")
    assert result.redacted
    content = alice.get(result.memory_ids[0]).content
    assert key not in content and "REDACTED" in content
    rows = mx.query("SELECT content FROM memory_revisions UNION ALL SELECT content FROM fragments")
    assert not any(key in str(r[0]) for r in rows[1])


def test_private_memories_are_left_out_of_search_unless_asked(mx: Memex) -> None:
    alice = mx.agent("alice")
    alice.remember("Alice sees a therapist on Thursdays", private=True)
    alice.remember("Alice runs on Thursdays")
    assert texts(alice.search("Thursdays")) == ["Alice runs on Thursdays"]
    both = texts(alice.search("Thursdays", include_private=True))
    assert sorted(both) == ["Alice runs on Thursdays", "Alice sees a therapist on Thursdays"]
    assert [r.fragment.content for r in mx.search("therapist", mode="keyword")] == []
    asked = mx.search("therapist", limit=1, filters=make_filters(include_private=True))
    assert [r.fragment.content for r in asked] == ["Alice sees a therapist on Thursdays"]


# -- the access log ----------------------------------------------------------------------------


def test_every_read_and_write_is_logged_with_the_tool_call_id(mx: Memex) -> None:
    alice = mx.agent("alice", name="support-bot")
    memory_id = alice.remember("Alice prefers email", tool_call_id="call-1").memory_ids[0]
    alice.search("email", tool_call_id="call-2")
    alice.get(memory_id)
    with pytest.raises(MemoryNotFound):
        mx.agent("bob", name="intruder").get(memory_id, tool_call_id="call-3")
    log = mx.operator().access_log()
    assert [(e.actor, e.action, e.outcome, e.tool_call_id) for e in reversed(log)] == [
        ("support-bot", "remember", "ok", "call-1"),
        ("support-bot", "search", "ok", "call-2"),
        ("support-bot", "read", "ok", None),
        ("intruder", "read", "not_found", "call-3"),
    ]
    assert {e.user_id for e in log} == {"alice", "bob"}
    assert log[-1].detail["memory_ids"] == [memory_id]
    assert len(mx.operator().access_log(actor="intruder")) == 1


# -- purge -------------------------------------------------------------------------------------


def test_purge_needs_confirmation_and_removes_everything(mx: Memex) -> None:
    alice = mx.agent("alice")
    memory_id = alice.remember("Alice's address is 12 Rua Augusta").memory_ids[0]
    alice.write("user/notes.md", "Rua Augusta notes")
    mx.agent("bob").remember("Bob lives on Rua Augusta too")
    operator = mx.operator()
    with pytest.raises(MemexError, match="confirm='alice'"):
        operator.purge(user_id="alice", confirm="yes")
    assert operator.purge(user_id="alice", confirm="alice") == 2
    with pytest.raises(MemoryNotFound):
        operator.get(memory_id)
    rows = mx.query("SELECT COUNT(*) FROM memory_revisions")[1]
    assert rows[0][0] == 1  # bob's only
    assert texts(mx.agent("bob").search("Rua Augusta")) == ["Bob lives on Rua Augusta too"]
    assert [r.fragment.content for r in mx.search("Augusta", mode="keyword")] == [
        "Bob lives on Rua Augusta too"
    ]
    log = operator.access_log(user_id="alice")
    assert log[0].action == "purge"
    assert all("Augusta" not in e.target for e in log)


# -- dream -------------------------------------------------------------------------------------


def test_dream_dry_run_plans_and_changes_nothing(mx: Memex) -> None:
    alice = mx.agent("alice")
    alice.remember("Alice prefers green tea")
    alice.remember("Alice likes to drink green tea")
    consolidator = ScriptedConsolidator(("ADD", None, None), ("NONE", 0, None))
    report = alice.dream(dry_run=True, consolidator=consolidator)
    assert report.counts() == {"ADD": 1, "UPDATE": 0, "DELETE": 0, "NONE": 1}
    assert not any(d.applied for d in report.decisions)
    assert len(alice.list()) == 2
    # the first memory is compared with nothing, the second with the first
    assert consolidator.seen[0][1] == []
    assert [s.text for s in consolidator.seen[1][1]] == ["Alice prefers green tea"]


def test_dream_applies_decisions_as_revisions(mx: Memex) -> None:
    alice = mx.agent("alice")
    first = alice.remember("Alice prefers green tea").memory_ids[0]
    second = alice.remember("Alice likes to drink green tea").memory_ids[0]
    consolidator = ScriptedConsolidator(
        ("ADD", None, None), ("UPDATE", 0, "Alice drinks green tea")
    )
    alice.dream(consolidator=consolidator)
    assert [m.id for m in alice.list()] == [first]
    assert alice.get(first).content == "Alice drinks green tea"
    assert alice.get(second).status == "invalidated"
    assert mx.operator().history(second)[-1].reason.startswith(f"merged into {first}")
    assert alice.undelete(second).status == "active"


# -- the built-in deterministic path ------------------------------------------------------------


def test_default_rules_extract_and_dream_merges_rewordings(mx: Memex) -> None:
    alice = mx.agent("alice", collection="travel")
    result = alice.remember(
        messages=[
            {"role": "user", "content": "I prefer window seats on long flights."},
            {"role": "assistant", "content": "Noted, window seats it is."},
            {"role": "user", "content": "I'm allergic to peanuts."},
        ]
    )
    facts = [d.decision.fact.text for d in result.decisions]
    assert len(facts) == 2 and any("window seat" in f for f in facts)
    alice.remember("The user prefers a window seat on long flights")
    before = [m.content for m in alice.list() if m.kind != "conversation"]
    report = alice.dream()
    after = [m.content for m in alice.list() if m.kind != "conversation"]
    assert len(after) < len(before)
    assert any("peanut" in text for text in after)
    assert report.counts()["NONE"] + report.counts()["UPDATE"] >= 1


def test_fact_types_come_from_the_configured_file(tmp_path: Path) -> None:
    types_file = tmp_path / "types.toml"
    types_file.write_text(
        '[[fact_types]]\nname = "pet"\ndescription = "Pets the user has"\n', encoding="utf-8"
    )
    memex = fast_memex(tmp_path / "home", memory={"fact_types": str(types_file)})
    extractor = SentenceExtractor()
    memex.agent("alice").remember(
        messages=[{"role": "user", "content": "I have a cat."}], extractor=extractor
    )
    assert [t.name for t in extractor.calls[0][1]] == ["pet"]
    memex.close()
