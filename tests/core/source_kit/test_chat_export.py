"""memex_core.sources.chat_export: the part of a chat-export source that is not the service's."""

from __future__ import annotations

from memex_core.sources.chat_export import ExportedConversation, record_id, stable_id


def test_record_id_takes_the_first_non_empty_field_then_the_key() -> None:
    record = {"conversation_id": "", "id": "abc"}
    assert record_id(record, "k", ("conversation_id", "id")) == "abc"
    assert record_id({"id": 7}, "k", ("id",)) == "k"
    assert record_id({}, "", ("id",)) is None and record_id({}, None, ("id",)) is None


def test_stable_id_is_the_same_on_every_run_and_separates_parts() -> None:
    assert stable_id("chatgpt", ("a", None)) == stable_id("chatgpt", ("a", None))
    assert stable_id("chatgpt", ("ab", "c")) != stable_id("chatgpt", ("a", "bc"))
    assert stable_id("claude", ("\ud800",)).startswith("claude-")  # lone surrogates hash too


def test_a_message_without_time_gets_the_conversation_time() -> None:
    chat = ExportedConversation("chatgpt", "x.json", "c1", "Title", 100.0, 4000)
    assert chat.message_time(None) == 100.0
    assert chat.message_time(0) == 0.0  # the epoch is a time, not a missing one
    [fragment] = chat.fragments(message_id="m", role="user", text="hi", timestamp=5.0, metadata={})
    assert (fragment.conversation_id, fragment.title, fragment.timestamp) == ("c1", "Title", 5.0)
    assert fragment.provenance.source_kind == "chatgpt"
