"""The catalog contract, part 2, on every engine: memory records and revisions, isolation by
scope, the access log, agent keys, folder documents and the link graph.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from memex_core.catalog import SqlCatalog
from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain import Fragment, Provenance
from memex_core.domain.agent_keys import AgentKey, StoredSecret
from memex_core.domain.contracts import ParsedDocument
from memex_core.domain.links import Link
from memex_core.domain.memory.records import (
    ACTIVE,
    AGENT,
    DELETED,
    MEMORY_SOURCE,
    OPERATOR,
    Actor,
    MemoryRecord,
    MemoryWrite,
    Revision,
    Scope,
)
from memex_core.domain.search_options import make_filters
from memex_core.errors import MemexError

OPERATOR_SCOPE = Scope(Actor(OPERATOR, "root"), None, None)


def agent_scope(user: str) -> Scope:
    owner = f"users/{user}"
    return Scope(Actor(AGENT, f"bot-{user}", user), (owner, "shared"), (owner,))


def memory_fragment(memory_id: str, owner: str, text: str, n: int = 0) -> Fragment:
    return Fragment(
        id=f"{memory_id}-f{n}",
        conversation_id=memory_id,
        role="memory",
        content=text,
        provenance=Provenance(MEMORY_SOURCE, memory_id, memory_id, "0", 1.0),
        timestamp=1.0,
        owner=owner,
    )


def write(
    catalog: SqlCatalog,
    memory_id: str,
    owner: str,
    text: str,
    *,
    revision: int = 1,
    status: str = ACTIVE,
    created_at: float = 100.0,
    path: str | None = None,
    links: tuple[tuple[str, str | None], ...] = (),
    scope: Scope = OPERATOR_SCOPE,
) -> tuple[list[Fragment], list[str]]:
    record = MemoryRecord(
        id=memory_id,
        owner=owner,
        collection="",
        path=path,
        kind="fact",
        status=status,
        revision=revision,
        private=False,
        created_at=created_at,
        updated_at=created_at + revision,
        content=text,
    )
    revision_row = Revision(
        memory_id=memory_id,
        revision=revision,
        content=text,
        kind="fact",
        status=status,
        action="create" if revision == 1 else "update",
        actor=scope.actor.label,
        created_at=created_at + revision,
        reason="because",
        tool_call_id="call-1",
        sources=("src-a",),
        redactions=1,
    )
    fragments = [memory_fragment(memory_id, owner, text, revision)] if status == ACTIVE else []
    return catalog.write_memory(
        scope,
        MemoryWrite(
            record, revision_row, fingerprint=f"fp-{text}", fragments=fragments, links=links
        ),
    )


# -- memory --------------------------------------------------------------------------------


def test_a_memory_is_written_revised_and_read_back(catalog: SqlCatalog) -> None:
    new, removed = write(catalog, "m1", "users/alice", "likes tea")
    assert [f.id for f in new] == ["m1-f1"] and removed == []
    new, removed = write(catalog, "m1", "users/alice", "likes green tea", revision=2)
    assert [f.id for f in new] == ["m1-f2"] and removed == ["m1-f1"]
    record = catalog.memory(OPERATOR_SCOPE, "m1")
    assert record is not None and record.revision == 2 and record.content == "likes green tea"
    history = catalog.revisions(OPERATOR_SCOPE, "m1")
    assert [(r.revision, r.content) for r in history] == [(1, "likes tea"), (2, "likes green tea")]
    assert history[0].sources == ("src-a",) and history[0].redactions == 1
    assert history[0].tool_call_id == "call-1" and history[0].reason == "because"
    assert catalog.memories_by_fragment(OPERATOR_SCOPE, ["m1-f2", "nope"]) == {"m1-f2": "m1"}
    assert catalog.memory_drift().missing_revision == []


def test_a_fact_ended_by_its_own_words_round_trips_with_no_successor(
    catalog: SqlCatalog,
) -> None:
    # "Alice lived in Rome in 2019", told later: ended, superseded by nothing (issue 30)
    write(catalog, "m1", "users/alice", "Alice lived in Rome in 2019")
    record = catalog.memory(OPERATOR_SCOPE, "m1")
    assert record is not None
    ended = replace(record, revision=2, valid_from=10.0, valid_until=20.0, superseded_by=None)
    revision = Revision("m1", 2, ended.content, "fact", ACTIVE, "supersede", "root", 102.0)
    catalog.write_memory(
        OPERATOR_SCOPE, MemoryWrite(ended, revision, fingerprint="fp-rome", keep_fragments=True)
    )
    back = catalog.memory(OPERATOR_SCOPE, "m1")
    assert back is not None and not back.is_current
    assert (back.valid_from, back.valid_until, back.superseded_by) == (10.0, 20.0, None)
    assert catalog.memory_validity(["m1"]) == {"m1": (10.0, 20.0)}
    assert catalog.superseded_memories()
    assert [r.id for r in catalog.supersession_chain(OPERATOR_SCOPE, "m1")] == ["m1"]


def test_memory_successors_name_what_closed_each_closed_memory(catalog: SqlCatalog) -> None:
    # A search links the facts of one chain among its hits (issue 30: reading by time)
    write(catalog, "m1", "users/alice", "Alice lives in Paris")
    write(catalog, "m2", "users/alice", "Alice moved to Berlin")
    record = catalog.memory(OPERATOR_SCOPE, "m1")
    assert record is not None
    closed = replace(record, revision=2, valid_from=10.0, valid_until=20.0, superseded_by="m2")
    revision = Revision("m1", 2, closed.content, "fact", ACTIVE, "supersede", "root", 102.0)
    catalog.write_memory(
        OPERATOR_SCOPE, MemoryWrite(closed, revision, fingerprint="fp-paris", keep_fragments=True)
    )
    assert catalog.memory_successors(["m1", "m2", "nope", "m1"]) == {"m1": "m2"}
    assert catalog.memory_successors([]) == {}


def test_a_fact_that_ends_before_it_starts_is_never_stored(catalog: SqlCatalog) -> None:
    # An inverted interval (issue 30: "Until mid-2023 ...", told in 2024, stored from when it
    # was said) could never be found by time: refused where every record is written.
    write(catalog, "m1", "users/alice", "Until mid-2023 we paged through PagerDuty")
    record = catalog.memory(OPERATOR_SCOPE, "m1")
    assert record is not None
    revision = Revision("m1", 2, record.content, "fact", ACTIVE, "supersede", "root", 102.0)
    for valid_from, valid_until in [(30.0, 20.0), (None, 50.0)]:  # None: from 100 (recorded)
        inverted = replace(record, revision=2, valid_from=valid_from, valid_until=valid_until)
        with pytest.raises(ValueError, match="before it starts"):
            catalog.write_memory(
                OPERATOR_SCOPE, MemoryWrite(inverted, revision, "fp", keep_fragments=True)
            )
    assert catalog.memory(OPERATOR_SCOPE, "m1") == record  # nothing written
    # One stored so before the guard (start: when said) reads as start unknown, so reading
    # by time finds it and forgetting or editing it writes it back right.
    with catalog.transaction() as db:
        db.execute("UPDATE memories SET valid_from = 100.0, valid_until = 50.0")
    legacy = catalog.memory(OPERATOR_SCOPE, "m1")
    assert legacy is not None and (legacy.valid_from, legacy.valid_until) == (0.0, 50.0)
    assert catalog.memory_validity(["m1"]) == {"m1": (0.0, 50.0)}
    unknown = replace(record, revision=2, valid_from=0.0, valid_until=20.0)  # start unknown
    catalog.write_memory(OPERATOR_SCOPE, MemoryWrite(unknown, revision, "fp", keep_fragments=True))
    assert catalog.memory_validity(["m1"]) == {"m1": (0.0, 20.0)}


def test_memories_list_oldest_first_in_insertion_order_within_an_instant(
    catalog: SqlCatalog,
) -> None:
    for memory_id in ("mz", "ma", "mm"):  # same created_at, ids out of order
        write(catalog, memory_id, "users/alice", f"text {memory_id}", created_at=5.0)
    write(catalog, "m0", "users/alice", "earlier", created_at=1.0)
    listed = [m.id for m in catalog.memories(OPERATOR_SCOPE)]
    assert listed == ["m0", "mz", "ma", "mm"]
    assert [m.id for m in catalog.memories(OPERATOR_SCOPE, limit=2, offset=1)] == ["mz", "ma"]
    assert [m.id for m in catalog.memories(OPERATOR_SCOPE, fingerprint="fp-earlier")] == ["m0"]
    assert catalog.memories(OPERATOR_SCOPE, collections=[]) == []
    assert catalog.count_memories() == 4


def test_an_agent_reaches_only_its_own_and_shared_memory(catalog: SqlCatalog) -> None:
    write(catalog, "a1", "users/alice", "alice's")
    write(catalog, "b1", "users/bob", "bob's")
    write(catalog, "s1", "shared", "everyone's")
    alice = agent_scope("alice")
    assert catalog.memory(alice, "b1") is None
    assert catalog.revisions(alice, "b1") == []
    assert {m.id for m in catalog.memories(alice)} == {"a1", "s1"}
    assert {m.id for m in catalog.memories(alice, owners=["users/bob"])} == set()
    assert catalog.memory_ids_with_prefix(alice, "", 10) == []
    assert catalog.memory_ids_with_prefix(alice, "b", 10) == []
    assert catalog.memory_ids_with_prefix(OPERATOR_SCOPE, "b", 10) == ["b1"]
    assert catalog.memories_by_fragment(alice, ["b1-f1", "a1-f1"]) == {"a1-f1": "a1"}
    assert catalog.memory_owners() == ["shared", "users/alice", "users/bob"]
    assert catalog.memory_collections(alice) == [""]
    with pytest.raises(MemoryAccessDenied):
        write(catalog, "a2", "users/bob", "forged", scope=alice)
    with pytest.raises(MemoryAccessDenied, match="change owner"):
        write(catalog, "b1", "users/alice", "stolen", revision=2)
    assert catalog.memory(OPERATOR_SCOPE, "a2") is None


def test_deleting_a_memory_retires_its_fragments_and_keeps_its_history(
    catalog: SqlCatalog,
) -> None:
    write(catalog, "m1", "users/alice", "secret plan")
    new, removed = write(catalog, "m1", "users/alice", "secret plan", revision=2, status=DELETED)
    assert new == [] and removed == ["m1-f1"]
    assert catalog.memories(OPERATOR_SCOPE) == []
    assert [m.id for m in catalog.memories(OPERATOR_SCOPE, statuses=[DELETED])] == ["m1"]
    assert len(catalog.revisions(OPERATOR_SCOPE, "m1")) == 2
    assert "m1-f1" in catalog.pending_vector_deletes()


def test_memory_files_link_to_each_other_both_ways(catalog: SqlCatalog) -> None:
    owner = "users/alice"
    write(catalog, "ma", owner, "see [[b]]", path=f"{owner}/a.md", links=(("b", f"{owner}/b.md"),))
    assert [row.target_memory for row in catalog.memory_outlinks(OPERATOR_SCOPE, "ma")] == [None]
    write(catalog, "mb", owner, "note b", path=f"{owner}/b.md")
    out = catalog.memory_outlinks(OPERATOR_SCOPE, "ma")
    assert [(r.target, r.target_path, r.target_memory) for r in out] == [
        ("b", f"{owner}/b.md", "mb")
    ]
    back = catalog.memory_backlinks(OPERATOR_SCOPE, "mb")
    assert [(r.source_memory, r.source_path) for r in back] == [("ma", f"{owner}/a.md")]
    found = catalog.memory_at_path(OPERATOR_SCOPE, f"{owner}/b.md")
    assert found is not None and found.id == "mb"
    assert catalog.memory_at_path(agent_scope("bob"), f"{owner}/b.md") is None
    with pytest.raises(MemoryAccessDenied):
        write(catalog, "mc", owner, "x", path="users/bob/c.md")


def test_purge_removes_everything_but_the_audit_line(catalog: SqlCatalog) -> None:
    write(catalog, "m1", "users/alice", "to purge")
    catalog.log_access(
        actor_kind=AGENT, actor="bot", user_id="alice", action="read", target="m1", detail={"q": 1}
    )
    with pytest.raises(MemoryAccessDenied):
        catalog.purge_memories(agent_scope("alice"), ["m1"])
    assert catalog.purge_memories(OPERATOR_SCOPE, ["m1"]) == ["m1-f1"]
    assert catalog.memory(OPERATOR_SCOPE, "m1") is None
    assert catalog.query("SELECT COUNT(*) FROM memory_revisions")[1] == [(0,)]
    entry = catalog.access_log()[0]
    assert (entry.target, entry.detail) == ("[purged]", {})


def test_memory_drift_and_its_repairs(catalog: SqlCatalog) -> None:
    write(catalog, "m1", "users/alice", "fine")
    with catalog.transaction() as db:
        db.execute("UPDATE fragments SET owner = 'users/eve' WHERE id = 'm1-f1'")
    drift = catalog.memory_drift()
    assert drift.scope_mismatch == ["m1-f1"]
    catalog.copy_memory_scope(drift.scope_mismatch)
    assert catalog.memory_drift().scope_mismatch == []


# -- the access log -------------------------------------------------------------------------


def test_the_access_log_keeps_every_call_newest_first(catalog: SqlCatalog) -> None:
    first = catalog.log_access(
        actor_kind=AGENT, actor="bot", user_id="alice", action="search", target="tea"
    )
    second = catalog.log_access(
        actor_kind=OPERATOR,
        actor="root",
        user_id=None,
        action="purge",
        target="half \ud800 surrogate",
        tool_call_id="t-9",
        outcome="denied",
        detail={"why": "ünïcode"},
    )
    assert second > first
    entries = catalog.access_log()
    assert [e.id for e in entries] == [second, first]
    assert entries[0].target == "half \\ud800 surrogate" and entries[0].detail == {"why": "ünïcode"}
    assert [e.id for e in catalog.access_log(user_id="alice")] == [first]
    assert [e.id for e in catalog.access_log(outcome="denied", tool_call_id="t-9")] == [second]
    assert catalog.access_log(since=entries[0].at + 1) == []
    assert catalog.scrub_access_log("alice") == 1
    assert catalog.access_log(user_id="alice")[0].target == "[purged]"


# -- agent keys ------------------------------------------------------------------------------


def key(key_id: str, name: str, created_at: float = 1.0) -> AgentKey:
    return AgentKey(id=key_id, name=name, user_id="alice", collection="work", created_at=created_at)


def test_agent_keys_are_stored_listed_revoked_and_touched(catalog: SqlCatalog) -> None:
    catalog.add_agent_key(key("k1", "bot", 1.0), StoredSecret("salt", "hash"))
    catalog.add_agent_key(key("k2", "other", 2.0), StoredSecret("s2", "h2"))
    found = catalog.agent_key("k1")
    assert found is not None
    assert found[0] == key("k1", "bot", 1.0) and found[1] == StoredSecret("salt", "hash")
    assert catalog.agent_key("nope") is None
    with pytest.raises(MemexError, match="already named 'bot'"):
        catalog.add_agent_key(key("k3", "bot"), StoredSecret("s", "h"))
    assert catalog.revoke_agent_key("k1", at=5.0)
    assert not catalog.revoke_agent_key("k1", at=6.0)
    catalog.add_agent_key(key("k3", "bot", 3.0), StoredSecret("s", "h"))  # the name is free again
    assert [k.id for k in catalog.agent_keys()] == ["k2", "k3"]
    assert [k.id for k in catalog.agent_keys(include_revoked=True)] == ["k1", "k2", "k3"]
    catalog.touch_agent_key("k2", at=9.5)
    touched = catalog.agent_key("k2")
    assert touched is not None and touched[0].last_used_at == 9.5


# -- folder documents and the link graph ---------------------------------------------------


def note(doc_id: str, path: str, text: str, links: list[Link] | None = None) -> ParsedDocument:
    fragments = [
        Fragment(
            id=f"{doc_id}-{n}",
            conversation_id=doc_id,
            role="note",
            content=f"{text} {n}",
            provenance=Provenance("obsidian", f"/vault/{path}", doc_id, f"#{n}", 1.0),
            timestamp=1.0,
            title=path,
        )
        for n in range(2)
    ]
    return ParsedDocument(
        id=doc_id,
        path=path,
        title=path.removesuffix(".md"),
        fragments=fragments,
        links=links or [],
        aliases=("Alias " + doc_id,),
        tags=("t",),
        properties={"k": [1, "v"]},
        timestamp=1.0,
    )


def store(catalog: SqlCatalog, document: ParsedDocument, sha: str = "1") -> Any:
    run = catalog.start_run("sync")
    return catalog.store_document(
        run_id=run,
        root="/vault",
        source_kind="obsidian",
        document=document,
        sha256=sha,
        size=10,
        mtime_ns=7,
    )


def test_documents_are_stored_replaced_and_removed_whole(catalog: SqlCatalog) -> None:
    new, removed = store(catalog, note("d1", "A.md", "alpha"))
    assert len(new) == 2 and removed == []
    assert catalog.links_stale("/vault")
    catalog.links_resolved("/vault")
    assert not catalog.links_stale("/vault")
    changed = note("d1", "A.md", "alpha")
    changed.fragments[1] = Fragment(**{**changed.fragments[1].__dict__, "id": "d1-new"})
    new, removed = store(catalog, changed, sha="2")
    assert [f.id for f in new] == ["d1-new"] and removed == ["d1-1"]
    assert catalog.links_stale("/vault")
    stored = catalog.documents_under("/vault")["A.md"]
    assert (stored.sha256, stored.aliases, stored.tags) == ("2", ("Alias d1",), ("t",))
    assert stored.properties == {"k": [1, "v"]} and stored.mtime_ns == 7
    catalog.touch_document("d1", 99)
    document = catalog.document("d1")
    assert document is not None and document.mtime_ns == 99
    assert [d.id for d in catalog.find_documents("alias d1")] == ["d1"]
    assert catalog.remove_document("d1") == ["d1-0", "d1-new"]
    assert catalog.count_documents() == 0 and catalog.count_fragments() == 0


def test_documents_are_found_by_tag_nested_and_in_any_case(catalog: SqlCatalog) -> None:
    """What the tag filter resolves to, on every catalog engine (issue 32, item 11)."""
    store(catalog, replace(note("d1", "A.md", "alpha"), tags=("Project/memex", "x")))
    store(catalog, replace(note("d2", "B.md", "beta"), tags=("projects",)))
    store(catalog, replace(note("d3", "C.md", "gamma"), tags=()))
    assert [d.id for d in catalog.documents_tagged(("project",))] == ["d1"]
    assert [d.id for d in catalog.documents_tagged(("x", "projects"))] == ["d1", "d2"]
    assert catalog.documents_tagged(("project/memex/deep",)) == []
    assert catalog.document_tags() == {"project/memex": 1, "projects": 1, "x": 1}
    resolved = catalog.resolve_tags(make_filters(tag="project", role="note"))
    assert resolved == make_filters(conversation="d1", role="note")
    assert catalog.resolve_tags(make_filters(tag="project", conversation="d2")) is None


def test_links_resolve_and_count_backlinks(catalog: SqlCatalog) -> None:
    store(catalog, note("d1", "A.md", "alpha", [Link("d1-0", "B"), Link("d1-1", "Missing")]))
    store(catalog, note("d2", "B.md", "beta", [Link("d2-0", "A", heading="H")]))
    rows = catalog.links_under("/vault")
    assert [(r[1], r[2]) for r in rows] == [("A.md", "B"), ("A.md", "Missing"), ("B.md", "A")]
    targets = {"B": ("B.md", "d2"), "A": ("A.md", "d1")}
    catalog.set_link_targets(
        (*targets.get(target, (None, None)), link_id) for link_id, _, target, _, _ in rows
    )
    assert catalog.count_links() == (3, 1)
    assert [link.target_document for link in catalog.outlinks("d1")] == ["d2", None]
    assert [link.source_document for link in catalog.backlinks("d2")] == ["d1"]
    assert catalog.backlink_counts(["d2-0", "d1-0", "none"]) == {"d2-0": 1, "d1-0": 1, "none": 0}
    assert set(catalog.documents(["d1", "d2", "x"])) == {"d1", "d2"}
    assert catalog.corpus_documents(1) == [("d1", "A.md", "A")]


def test_turn_windows_read_dialogue_turns_in_order(catalog: SqlCatalog) -> None:
    turns = [
        Fragment(
            id=f"t{n}",
            conversation_id="conv",
            role="user" if n % 2 == 0 else "assistant",
            content=f"turn {n}",
            provenance=Provenance("test", "/c.json", f"t{n}", str(n), float(n)),
            timestamp=float(n),
            metadata={"message_id": f"msg{n // 2}"},
        )
        for n in range(6)
    ]
    run = catalog.start_run("t")
    catalog.add_file(run_id=run, path="/c.json", sha256="1", size=1, source_kind="test",
                     fragments=turns)  # fmt: skip
    windows, starts = catalog.turn_windows(["t5"], lookback=2)
    assert starts == {"conv": 3}
    assert [(t.id, t.message) for t in windows["conv"]] == [
        ("t3", "msg1"),
        ("t4", "msg2"),
        ("t5", "msg2"),
    ]
    whole, starts = catalog.turn_windows(["t1"], lookback=None)
    assert starts == {"conv": 0} and len(whole["conv"]) == 6


def test_recent_fragments_newest_first_with_filters(catalog: SqlCatalog) -> None:
    from memex_core.domain import SearchFilters

    fragments = [
        Fragment(
            id=f"r{n}",
            conversation_id="c",
            role="user",
            content="x",
            provenance=Provenance("test", "/r", f"r{n}", "0", None if n == 0 else float(n)),
            timestamp=None if n == 0 else float(n),
            private=n == 2,
        )
        for n in range(4)
    ]
    run = catalog.start_run("t")
    catalog.add_file(run_id=run, path="/r", sha256="1", size=1, source_kind="test",
                     fragments=fragments)  # fmt: skip
    assert [f.id for f in catalog.recent_fragments(10)] == ["r3", "r1", "r0"]
    shown = catalog.recent_fragments(10, filters=SearchFilters(include_private=True, since=2.0))
    assert [f.id for f in shown] == ["r3", "r2"]
    assert [f.id for f in catalog.recent_fragments(1, offset=1)] == ["r1"]
