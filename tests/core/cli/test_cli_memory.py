"""The agent-memory commands as a user drives them: remember, recall, memories, history,
restore, forget (and purge), undelete, dream and log.

Each invocation opens its own Memex on a temp MEMEX_HOME, like separate shell
commands. The redactor, extractor and consolidator are small deterministic
doubles registered through the public hooks, so the decisions are known.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.config import Config, load_config
from memex_core.domain import (
    ConsolidationDecision,
    FactType,
    Fragment,
    MemoryFact,
    Redaction,
    SimilarMemory,
)
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from tests.support.cli_runs import Run, memex_runner
from tests.support.component_doubles import DoublesPlugin

KEY = "AKIAIOSFODNN7EXAMPLE"


class KeyRedactor:
    def redact(self, text: str) -> Redaction:
        found = re.findall(r"AKIA[0-9A-Z]{16}", text)
        return Redaction(re.sub(r"AKIA[0-9A-Z]{16}", "[REDACTED]", text), ("AWS key",) * len(found))


class SentenceExtractor:
    """Every user sentence starting with 'I ' becomes a preference."""

    def extract(
        self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]
    ) -> list[MemoryFact]:
        return [
            MemoryFact("User " + s.strip()[2:], "preference", (f.id,))
            for f in fragments
            if f.role == "user"
            for s in f.content.split(".")
            if s.strip().startswith("I ")
        ]


class WordingConsolidator:
    """ADD without similar memories; 'no longer' contradicts the closest (DELETE), 'now'
    rewrites it (UPDATE), anything else repeats it (NONE)."""

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        if not similar:
            return ConsolidationDecision("ADD", fact, reason="nothing similar")
        target = similar[0].memory_id
        if "no longer" in fact.text:
            return ConsolidationDecision("DELETE", fact, target, reason="contradicts")
        if " now " in fact.text:
            return ConsolidationDecision("UPDATE", fact, target, "newer", text=fact.text)
        return ConsolidationDecision("NONE", fact, target, reason="says the same")


class MemoryDoubles:
    @hookimpl
    def register_redactors(self, register: Any) -> None:
        register("test-keys", lambda context: KeyRedactor())

    @hookimpl
    def register_extractors(self, register: Any) -> None:
        register("test-sentences", lambda context: SentenceExtractor())

    @hookimpl
    def register_consolidators(self, register: Any) -> None:
        register("test-wording", lambda context: WordingConsolidator())


def memory_memex(home: Path) -> Memex:
    """``fast_memex`` plus the memory doubles above."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    registry.register_plugin(MemoryDoubles(), name="memory-doubles")
    components = {
        **load_config(home).components,
        "embedder": "hashing",
        "vector_store": "memory",
        "redactor": "test-keys",
        "extractor": "test-sentences",
        "consolidator": "test-wording",
        # The consolidator double decides alone here; facts that supersede others (which
        # are added, closing the earlier ones) are tests/core/cli/test_cli_timeline.py's.
        "supersession_judge": "none",
    }
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


@pytest.fixture
def run(memex_home: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    return memex_runner(monkeypatch, memory_memex)


@pytest.fixture
def api(memex_home: Path) -> Iterator[Memex]:
    memex = memory_memex(memex_home)
    yield memex
    memex.close()


def as_json(result: Result) -> Any:
    return json.loads(result.stdout)


def remember(run: Run, text: str, *options: str) -> str:
    out = as_json(run("remember", text, "--user", "alice", "--format", "json", *options))
    return str(out["decisions"][0]["memory_id"])


def flat(result: Result) -> str:
    return " ".join(result.output.split())


def test_every_command_has_help(run: Run) -> None:
    for command in (
        "remember",
        "recall",
        "memories",
        "history",
        "restore",
        "forget",
        "undelete",
        "dream",
        "log",
    ):
        assert "--format" in run(command, "--help").output


# -- remember ----------------------------------------------------------------------------------


def test_remember_a_fact_then_the_same_again(run: Run) -> None:
    first = as_json(
        run(
            "remember",
            "Alice prefers green tea",
            "-u",
            "alice",
            "-c",
            "acme:support",
            "--format",
            "json",
        )
    )
    assert (first["user_id"], first["collection"]) == ("alice", "acme:support")
    [decision] = first["decisions"]
    assert decision["action"] == "ADD" and decision["memory_id"].startswith("mem_")
    args = ("remember", "alice PREFERS green tea ", "-u", "alice", "-c", "acme:support")
    [repeat] = as_json(run(*args, "--format", "json"))["decisions"]
    assert (repeat["action"], repeat["memory_id"]) == ("NONE", decision["memory_id"])
    assert repeat["reason"] == f"already remembered as {decision['memory_id']}"
    panel = run(*args)
    assert "NONE" in panel.output and decision["memory_id"] in panel.output


def test_remember_redacts_secrets_and_drops_private_spans(run: Run) -> None:
    text = f"Deploy key {KEY} for staging <private>salary 93k</private> bucket"
    out = as_json(run("remember", text, "-u", "alice", "--format", "json"))
    assert (out["redacted"], out["private_removed"]) == (["AWS key"], 1)
    [stored] = as_json(run("memories", "--format", "json"))
    assert KEY not in stored["content"] and "93k" not in stored["content"]
    panel = flat(run("remember", f"another {KEY} <private>x</private>", "-u", "alice"))
    assert "Redacted 1 likely secret(s): AWS key" in panel
    assert "Left out 1 <private> span(s)" in panel


def test_remember_text_from_stdin_with_kind_private_and_operator(run: Run) -> None:
    out = as_json(
        run(
            "remember",
            "-",
            "-u",
            "bob",
            "--kind",
            "health",
            "--private",
            "--operator",
            "--agent",
            "admin",
            "--format",
            "json",
            input="Bob is allergic to peanuts\n",
        )
    )
    memory_id = out["decisions"][0]["memory_id"]
    [record] = as_json(run("memories", "--user", "bob", "--format", "json"))
    assert (record["id"], record["kind"], record["private"]) == (memory_id, "health", True)
    [entry] = as_json(run("log", "--action", "remember", "--format", "json"))
    assert (entry["actor_kind"], entry["actor"], entry["user_id"]) == ("operator", "admin", "bob")


def test_remember_a_conversation_from_a_file_and_from_stdin(run: Run, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {"role": "user", "content": "I prefer window seats. Any flights?", "id": 3},
                {"role": "assistant", "content": "Two flights on Monday.", "timestamp": 1.7e9},
            ]
        )
    )
    out = as_json(run("remember", "--conversation", str(chat), "-u", "alice", "--format", "json"))
    assert out["conversation_id"].startswith("mem_")
    assert [(d["action"], d["fact"]) for d in out["decisions"]] == [
        ("ADD", "User prefer window seats")
    ]
    piped = {"messages": [{"role": "user", "content": "I run every morning."}]}
    out = as_json(
        run(
            "remember",
            "--conversation",
            "-",
            "-u",
            "alice",
            "--format",
            "json",
            input=json.dumps(piped),
        )
    )
    assert out["decisions"][0]["fact"] == "User run every morning"
    kinds = sorted(r["kind"] for r in as_json(run("memories", "--format", "json")))
    assert kinds == ["conversation", "conversation", "preference", "preference"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"messages": ', "chat.json: not JSON (line 1, column 14"),
        ('{"turns": []}', 'chat.json: expected a list of {"role"'),
        ("[]", "with at least one message"),
        ('[{"role": "user", "content": "hi"}, "oops"]', "chat.json: message 2 is not an object"),
        ('[{"content": "hi"}]', 'chat.json: message 1 has no "role"'),
        ('[{"role": "user", "content": 5}]', 'message 1 has no "content" text'),
        ('[{"role": "user", "content": "hi", "timestamp": "soon"}]', "cannot read 'soon'"),
    ],
)
def test_a_bad_conversation_file_names_the_file_and_the_message(
    run: Run, tmp_path: Path, content: str, message: str
) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(content)
    out = run("remember", "--conversation", str(chat), "-u", "alice", code=1)
    assert message in flat(out)


def test_remember_refuses_bad_input_clearly(run: Run, tmp_path: Path) -> None:
    assert "user id '../x'" in flat(run("remember", "fact", "-u", "../x", code=1))
    assert "collection 'a::b'" in flat(run("remember", "fact", "-u", "a", "-c", "a::b", code=1))
    assert "either TEXT" in run("remember", "-u", "alice", code=2).output
    both = run("remember", "fact", "--conversation", "x.json", "-u", "alice", code=2)
    assert "not both" in both.output
    assert "--kind" in run("remember", "fact", "-u", "a", "--kind", "Bad Kind", code=2).output
    missing = tmp_path / "missing.json"
    assert str(missing) in run("remember", "--conversation", str(missing), "-u", "a", code=1).output


def test_remember_consolidate_uses_the_consolidator(run: Run) -> None:
    old = remember(run, "Alice likes spicy food")
    out = as_json(
        run(
            "remember",
            "Alice no longer likes spicy food",
            "-u",
            "alice",
            "--consolidate",
            "--format",
            "json",
        )
    )
    [decision] = out["decisions"]
    assert (decision["action"], decision["target_id"]) == ("DELETE", old)
    statuses = {
        r["id"]: r["status"] for r in as_json(run("memories", "--deleted", "--format", "json"))
    }
    assert statuses[old] == "invalidated" and statuses[decision["memory_id"]] == "active"


# -- recall and memories --------------------------------------------------------------------------


def test_recall_searches_as_the_users_agent(run: Run) -> None:
    tea = remember(run, "Alice prefers green tea", "-c", "acme:support")
    remember(run, "Alice sees a therapist about tea", "--private")
    hits = as_json(run("recall", "green tea", "-u", "alice", "--format", "json"))
    assert [h["memory_id"] for h in hits] == [tea]
    assert set(hits[0]) >= {"memory_id", "path", "kind", "score", "collection", "text"}
    private = as_json(run("recall", "tea", "-u", "alice", "--include-private", "--format", "json"))
    assert len(private) == 2
    assert as_json(run("recall", "green tea", "-u", "bob", "--format", "json")) == []
    narrowed = run("recall", "tea", "-u", "alice", "-c", "acme", "--format", "json")
    assert [h["memory_id"] for h in as_json(narrowed)] == [tea]
    assert tea in run("recall", "tea", "-u", "alice").output
    assert "No memory matches" in run("recall", "tea", "-u", "carol").output


def test_memories_lists_by_user_collection_and_status(run: Run) -> None:
    tea = remember(run, "Alice prefers green tea", "-c", "acme:support")
    run("remember", "Bob prefers coffee", "-u", "bob", "-c", "acme:sales")
    everyone = as_json(run("memories", "--format", "json"))
    assert [(r["user_id"], r["collection"]) for r in everyone] == [
        ("alice", "acme:support"),
        ("bob", "acme:sales"),
    ]
    assert [r["id"] for r in as_json(run("memories", "-u", "alice", "--format", "json"))] == [tea]
    assert len(as_json(run("memories", "-c", "acme", "--format", "json"))) == 2
    assert as_json(run("memories", "-c", "acme:sales", "-u", "alice", "--format", "json")) == []
    run("forget", tea)
    assert [r["id"] for r in as_json(run("memories", "--format", "json"))] != [tea]
    deleted = as_json(run("memories", "--deleted", "-u", "alice", "--format", "json"))
    assert [(r["id"], r["status"]) for r in deleted] == [(tea, "deleted")]
    panel = run("memories", "--deleted", "--limit", "1")
    assert tea in panel.output and "--limit shows more" in flat(panel)
    assert "No memories here" in run("memories", "-u", "nobody").output
    assert "user id 'a b'" in flat(run("memories", "-u", "a b", code=1))


# -- history, restore, forget, undelete -----------------------------------------------------------


def test_history_restore_by_id_and_by_storage_path(run: Run, api: Memex) -> None:
    alice = api.agent("alice")
    alice.write("user/todo.md", "buy milk " + "and more " * 20)
    alice.write("user/todo.md", "buy oat milk")
    revisions = as_json(run("history", "users/alice/todo.md", "--format", "json"))
    assert [(r["revision"], r["action"], r["actor"]) for r in revisions] == [
        (1, "create", "agent:agent"),
        (2, "update", "agent:agent"),
    ]
    memory_id = revisions[0]["memory_id"]
    short, full = run("history", memory_id), run("history", memory_id, "--full")
    assert "…" in short.output and "--full shows" in flat(short)
    assert flat(full).count("and more") > flat(short).count("and more")
    restored = as_json(run("restore", memory_id, "1", "--format", "json"))
    assert (restored["revision"], restored["status"]) == (3, "active")
    assert restored["content"].startswith("buy milk")
    assert "Restored revision 2 of" in flat(run("restore", "users/alice/todo.md", "2"))
    assert "no revision 9" in flat(run("restore", memory_id, "9", code=1))
    assert "restore" in [
        r["action"] for r in as_json(run("history", memory_id, "--format", "json"))
    ]


def test_forget_and_undelete(run: Run) -> None:
    memory_id = remember(run, "Alice's locker code is in the blue notebook")
    [forgotten] = as_json(run("forget", memory_id, "--reason", "asked", "--format", "json"))
    assert forgotten["status"] == "deleted"
    assert as_json(run("recall", "locker", "-u", "alice", "--format", "json")) == []
    assert "Undeleted" in run("undelete", memory_id).output
    assert as_json(run("recall", "locker", "-u", "alice", "--format", "json"))
    history = as_json(run("history", memory_id, "--format", "json"))
    assert [(r["action"], r["reason"]) for r in history][1] == ("delete", "asked")
    assert [r["action"] for r in history] == ["create", "delete", "undelete"]


def test_unknown_ids_and_bad_paths_say_what_to_do(run: Run) -> None:
    kept = remember(run, "Alice keeps this")
    for args in (
        ("history", "mem_nope"),
        ("restore", "mem_nope", "1"),
        ("undelete", "mem_nope"),
        ("forget", kept, "mem_nope"),
        ("forget", "--purge", "mem_nope", "--confirm", "mem_nope"),
    ):
        out = flat(run(*args, code=1))
        assert "No memory 'mem_nope'" in out and "memex memories --deleted" in out
    assert [r["status"] for r in as_json(run("memories", "--format", "json"))] == ["active"]
    out = flat(run("history", "../etc/passwd", code=1))
    assert "'..' segment" in out and "users/<user_id>" in out
    assert "virtual path" in flat(run("forget", "user/todo.md", code=1))
    assert "Name the memories" in run("forget", code=2).output


# -- purge ---------------------------------------------------------------------------------------


def test_purge_a_user_needs_the_exact_confirmation(run: Run) -> None:
    remember(run, "Alice lives on Rua Augusta")
    run("remember", "Bob lives on Rua Augusta too", "-u", "bob")
    refused = flat(run("forget", "--purge", "--user", "alice", code=1))
    assert "run again with --confirm alice" in refused and "(1 memories)" in refused
    wrong = flat(run("forget", "--purge", "--user", "alice", "--confirm", "yes", code=1))
    assert "'yes' does not match" in wrong and "Nothing was purged" in wrong
    assert len(as_json(run("memories", "--format", "json"))) == 2
    out = as_json(run("forget", "--purge", "-u", "alice", "--confirm", "alice", "--format", "json"))
    assert out["purged"] == 1
    assert [r["user_id"] for r in as_json(run("memories", "--deleted", "--format", "json"))] == [
        "bob"
    ]
    entries = as_json(run("log", "--user", "alice", "--format", "json"))
    assert (entries[0]["action"], entries[0]["detail"]["purged"]) == ("purge", 1)
    assert not any("Augusta" in json.dumps(e) for e in entries)


def test_purge_memories_by_id_confirms_with_the_id_or_the_count(run: Run) -> None:
    first, second = remember(run, "first fact"), remember(run, "second fact here")
    refused = flat(run("forget", "--purge", first, second, code=1))
    assert "--confirm '2 memories'" in refused
    assert "purged 1" not in refused
    out = flat(run("forget", "--purge", first, "--confirm", first))
    assert "Purged 1 memories" in out
    out = flat(run("forget", "--purge", second, second, "--confirm", second))
    assert "Purged 1 memories" in out
    assert as_json(run("memories", "--deleted", "--format", "json")) == []


def test_purge_asks_at_a_terminal(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memex_core.cli.memory_operator._can_prompt", lambda: True)
    remember(run, "Alice fact")
    declined = run("forget", "--purge", "-u", "alice", input="no\n", code=1)
    assert "Type alice to confirm" in declined.output and "Not confirmed" in declined.output
    assert len(as_json(run("memories", "--format", "json"))) == 1
    accepted = run("forget", "--purge", "-u", "alice", input="alice\n")
    assert "Purged 1 memories" in flat(accepted)


def test_forget_option_misuse_is_a_usage_error(run: Run, memex_home: Path) -> None:
    memex_home.mkdir()  # a home to check the user id against (none at all is its own error)
    assert "go with --purge" in run("forget", "mem_x", "--user", "alice", code=2).output
    assert "go with --purge" in run("forget", "mem_x", "--confirm", "x", code=2).output
    assert "not both" in run("forget", "--purge", "mem_x", "-u", "alice", code=2).output
    assert "not both" in run("forget", "--purge", code=2).output
    assert "soft deletes" in run("forget", "--purge", "-u", "a", "--reason", "r", code=2).output
    assert "user id '../x'" in flat(
        run("forget", "--purge", "-u", "../x", "--confirm", "x", code=1)
    )


# -- dream ---------------------------------------------------------------------------------------


def dream_setup(run: Run) -> tuple[str, str, str]:
    tea = remember(run, "Alice prefers green tea")
    again = remember(run, "Alice prefers green tea a lot")
    run("remember", "Bob likes coffee", "-u", "bob")
    return tea, again, as_json(run("memories", "-u", "bob", "--format", "json"))[0]["id"]


def test_dream_dry_run_plans_and_changes_nothing(run: Run) -> None:
    tea, again, _ = dream_setup(run)
    before = run("memories", "--deleted", "--format", "json").stdout
    out = as_json(run("dream", "--dry-run", "--format", "json"))
    assert (out["dry_run"], out["examined"], out["changed"]) == (True, 3, 1)
    assert out["counts"] == {"ADD": 2, "UPDATE": 0, "DELETE": 0, "NONE": 1}
    planned = {d["examined_id"]: d for d in out["decisions"]}
    assert planned[again]["action"] == "NONE" and planned[again]["target_id"] == tea
    assert planned[again]["reason"] == "says the same"
    assert "would be retired" in planned[again]["effect"]
    assert not any(d["applied"] for d in out["decisions"])
    assert run("memories", "--deleted", "--format", "json").stdout == before
    panel = flat(run("dream", "--dry-run", "-u", "alice"))
    assert "dry run" in panel and "1 change(s) planned" in panel and again in panel
    assert run("memories", "--deleted", "--format", "json").stdout == before


def test_dream_applies_and_says_what_changed(run: Run) -> None:
    tea, again, coffee = dream_setup(run)
    panel = flat(run("dream", "--user", "alice"))
    assert again in panel and tea in panel and "retired" in panel and "repeats" in panel
    assert "1 change(s) written as revisions" in panel
    statuses = {
        r["id"]: r["status"] for r in as_json(run("memories", "--deleted", "--format", "json"))
    }
    assert statuses == {tea: "active", again: "invalidated", coffee: "active"}
    assert as_json(run("history", again, "--format", "json"))[-1]["action"] == "invalidate"
    again_out = as_json(run("dream", "--format", "json"))
    assert (again_out["examined"], again_out["changed"]) == (2, 0)
    assert "Nothing to dream over" in run("dream", "-u", "nobody").output


# -- the access log ------------------------------------------------------------------------------


def test_log_newest_first_with_filters(run: Run) -> None:
    memory_id = as_json(
        run(
            "remember",
            "Alice prefers email",
            "-u",
            "alice",
            "--agent",
            "support-bot",
            "--tool-call-id",
            "call-1",
            "--format",
            "json",
        )
    )["decisions"][0]["memory_id"]
    run("recall", "email", "-u", "alice")
    run("history", "mem_missing", code=1)
    entries = as_json(run("log", "--format", "json"))
    assert [(e["actor"], e["action"], e["outcome"]) for e in entries] == [
        ("cli", "history", "not_found"),
        ("cli", "search", "ok"),
        ("support-bot", "remember", "ok"),
    ]
    assert entries[0]["time"].endswith("Z")
    [call] = as_json(run("log", "--tool-call-id", "call-1", "--format", "json"))
    assert call["detail"]["memory_ids"] == [memory_id]
    assert len(as_json(run("log", "--actor", "support-bot", "--format", "json"))) == 1
    assert len(as_json(run("log", "--outcome", "not_found", "--format", "json"))) == 1
    assert len(as_json(run("log", "--actor-kind", "operator", "--format", "json"))) == 1
    assert len(as_json(run("log", "--since", "1h", "--limit", "2", "--format", "json"))) == 2
    assert as_json(run("log", "--until", "2000-01-01", "--format", "json")) == []
    assert as_json(run("log", "--since", "2999-01-01T00:00", "--format", "json")) == []
    panel = flat(run("log", "-u", "alice"))
    assert "remember" in panel and "call-1" in panel and "not_found" not in panel
    assert "cannot read 'soon'" in flat(run("log", "--since", "soon", code=2))
    assert "No access log entries" in run("log", "--actor", "nobody").output


# -- the default components, once installed -------------------------------------------------------


def test_remember_with_the_default_components(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = load_registry()
    for kind, name in (("redactor", "detect_secrets"), ("consolidator", "rules")):
        if name not in {r.name for r in registry.registrations(kind) if r.available}:
            pytest.skip(f"the default {kind} {name!r} is not installed yet")
    from tests.support.component_doubles import fast_memex

    monkeypatch.setattr(
        "memex_core.cli.opening.Memex", lambda home=None: fast_memex(Path(home or memex_home))
    )
    runner = CliRunner()
    args = ["remember", f"Alice's deploy key is {KEY}", "-u", "alice", "--consolidate"]
    result = runner.invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["redacted"] and KEY not in out["decisions"][0]["fact"]


def test_stored_text_is_printed_literally_not_as_markup(run: Run) -> None:
    text = "Alice wrote [bold]this[/] and [/] and [red]"
    memory_id = remember(run, text, "-c", "acme")
    for args in (("memories",), ("recall", "Alice wrote", "-u", "alice"), ("history", memory_id)):
        assert "[bold]this[/]" in run(*args).output
    assert "[bold]this[/]" in run("remember", text + " again", "-u", "alice").output
