"""``memex_llamaindex.MemexMemoryBlock``: scope per session, storing, recalling, isolation.

The block is exercised both directly (``aput``/``aget`` as ``Memory`` calls
them) and inside ``llama_index.core.memory.Memory`` next to a
``StaticMemoryBlock``, with a word-count tokenizer and small token limits so
that flushing really happens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.llms.types import ChatMessage, TextBlock, ToolCallBlock
from llama_index.core.memory import Memory, StaticMemoryBlock
from llama_index.core.storage.chat_store.sql import MessageStatus

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_llamaindex import MemexMemoryBlock, SessionScope
from memex_llamaindex.memory_block import SCOPE_KWARGS
from tests.support.component_doubles import fast_memex

SESSIONS = {
    "alice-web": SessionScope("alice", "support"),
    "alice-app": SessionScope("alice", "support"),
    "bob-web": SessionScope("bob", "support"),
    "guest": None,
}


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    memex = fast_memex(tmp_path / "home")
    yield memex
    memex.close()


@pytest.fixture
def block(mx: Memex) -> MemexMemoryBlock:
    return MemexMemoryBlock(memex=mx, session_scope=SESSIONS.__getitem__)


def user(text: str, **extra: Any) -> ChatMessage:
    return ChatMessage(role="user", content=text, additional_kwargs=extra)


def assistant(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def stored(mx: Memex, user_id: str) -> list[Any]:
    return mx.operator().list(user_id=user_id)


def stored_text(mx: Memex, user_id: str) -> str:
    return "\n".join(r.content for r in stored(mx, user_id))


def put(block: MemexMemoryBlock, messages: list[ChatMessage], session: str | None) -> None:
    asyncio.run(block.aput(messages, from_short_term_memory=True, session_id=session))


def get(
    block: MemexMemoryBlock, messages: list[ChatMessage], session: str | None, **kw: Any
) -> str:
    return asyncio.run(block.aget(messages, session_id=session, **kw))


# -- configuration --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},  # whose memory?
        {"user": "alice", "session_scope": SESSIONS.get},  # both
        {"user": "../bob"},
        {"user": "users/bob"},
        {"user": "alice", "collection": "a::b"},
        {"user": "alice", "mode": "fuzzy"},
        {"user": "alice", "similarity_top_k": 0},
        {"user": "alice", "query_window": 0},
        {"user": "alice", "roles": ("user", "robot")},
    ],
)
def test_configuration_mistakes_fail_when_built(mx: Memex, options: dict[str, Any]) -> None:
    with pytest.raises(MemexError):
        MemexMemoryBlock(memex=mx, **options)


@pytest.mark.parametrize(
    "bad", [lambda: SessionScope("../bob"), lambda: SessionScope("alice", "acme:*")]
)
def test_session_scopes_are_validated(bad: Any) -> None:
    with pytest.raises(MemexError):
        bad()


def test_scope_for_a_session(mx: Memex) -> None:
    mapped = MemexMemoryBlock(
        memex=mx,
        collection="desk",
        session_scope={"s1": "alice", "s2": SessionScope("bob", "sales"), "s3": None}.__getitem__,
    )
    assert mapped.scope_for("s1") == SessionScope("alice", "desk")  # a bare user id
    assert mapped.scope_for("s2") == SessionScope("bob", "sales")
    assert mapped.scope_for("s3") is None
    with pytest.raises(KeyError):  # the application's mapping decides about strangers
        mapped.scope_for("s4")
    with pytest.raises(MemexError, match="session_id"):
        mapped.scope_for(None)
    fixed = MemexMemoryBlock(memex=mx, user="carol", collection="home")
    assert fixed.scope_for(None) == fixed.scope_for("any") == SessionScope("carol", "home")
    odd = MemexMemoryBlock(memex=mx, session_scope=lambda s: 42)
    with pytest.raises(MemexError, match="returned int"):
        odd.scope_for("s1")
    bad_user = MemexMemoryBlock(memex=mx, session_scope=lambda s: "../bob")
    with pytest.raises(MemexError):
        bad_user.scope_for("s1")


def test_the_memex_and_the_mapping_stay_out_of_serialisation(block: MemexMemoryBlock) -> None:
    dumped = block.model_dump()
    assert "memex" not in dumped and "session_scope" not in dumped
    assert dumped["name"] == "memex" and dumped["similarity_top_k"] == 5


# -- storing ----------------------------------------------------------------------------


def test_flushed_messages_become_the_session_users_conversation_memory(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    put(
        block,
        [user("I drink jasmine tea every morning"), assistant("Noted, jasmine tea")],
        "alice-web",
    )

    records = stored(mx, "alice")
    conversation = next(r for r in records if r.kind == "conversation")
    assert conversation.content == (
        "user: I drink jasmine tea every morning\n\nassistant: Noted, jasmine tea"
    )
    assert {(r.owner, r.collection) for r in records} == {("users/alice", "support")}
    assert stored(mx, "bob") == []


def test_each_message_goes_to_its_own_sessions_user(mx: Memex, block: MemexMemoryBlock) -> None:
    """Called directly, the block trusts each message's session stamp, one group at a time."""
    messages = [
        user("alice says jasmine", session_id="alice-web"),
        user("bob says espresso", session_id="bob-web"),
        user("alice says marina", session_id="alice-app"),
    ]
    asyncio.run(block.aput(messages))
    assert "jasmine" in stored_text(mx, "alice") and "marina" in stored_text(mx, "alice")
    assert "espresso" not in stored_text(mx, "alice")
    assert "espresso" in stored_text(mx, "bob") and "jasmine" not in stored_text(mx, "bob")


def test_memory_restamps_a_forged_session_id(mx: Memex, block: MemexMemoryBlock) -> None:
    """A message that claims bob's session, put into alice's Memory, is alice's."""
    memory = Memory.from_defaults(
        session_id="alice-web",
        token_limit=20,
        token_flush_size=5,
        tokenizer_fn=str.split,
        memory_blocks=[block],
    )

    async def chat() -> None:
        await memory.aput(user("Please file this under bob: forged zanzibar", session_id="bob-web"))
        await memory.aput(assistant("I cannot do that, it is yours"))
        await memory.aput(user("ok then, what else is new today my friend"))

    asyncio.run(chat())
    assert "zanzibar" in stored_text(mx, "alice")
    assert stored(mx, "bob") == []


def test_anonymous_sessions_store_and_read_nothing(mx: Memex, block: MemexMemoryBlock) -> None:
    put(block, [user("guest secret jasmine")], "guest")
    assert mx.operator().list() == []
    put(block, [user("alice jasmine")], "alice-web")
    assert get(block, [user("jasmine")], "guest") == ""


def test_a_session_without_a_user_mapping_fails_loudly(block: MemexMemoryBlock) -> None:
    with pytest.raises(MemexError, match="session"):
        asyncio.run(block.aput([user("who am I?")]))  # no session stamp, no fixed user


def test_only_the_chosen_roles_with_text_are_stored(mx: Memex) -> None:
    block = MemexMemoryBlock(memex=mx, user="alice", roles=("user", "tool"))
    call = ToolCallBlock(tool_call_id="c1", tool_name="weather", tool_kwargs={"city": "Lisbon"})
    put(
        block,
        [
            ChatMessage(role="system", content="You are a bot"),
            user("weather in Lisbon?"),
            ChatMessage(role="assistant", blocks=[call]),  # a tool call: no text
            ChatMessage(role="tool", content="sunny", additional_kwargs={"tool_call_id": "c1"}),
            assistant("It is sunny"),
            user("   "),
        ],
        "s",
    )
    conversation = next(r for r in stored(mx, "alice") if r.kind == "conversation")
    assert conversation.content == "user: weather in Lisbon?\n\ntool: sunny"


def test_private_spans_and_secrets_never_reach_memex(mx: Memex, block: MemexMemoryBlock) -> None:
    put(
        block,
        [user("My locker is 12 <private>and the code is 4711</private> at the gym")],
        "alice-web",
    )
    text = stored_text(mx, "alice")
    assert "locker is 12" in text and "4711" not in text


# -- recalling ----------------------------------------------------------------------------


def test_aget_recalls_the_users_memories_for_the_latest_messages(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    put(block, [user("I drink jasmine tea every morning")], "alice-web")
    put(block, [user("My cat is called Miso")], "alice-web")

    recalled = get(block, [user("hello"), user("what is my cat called?")], "alice-app")
    lines = recalled.splitlines()
    assert lines and all(line.startswith("- [") for line in lines)
    assert "Miso" in lines[0]
    assert len(lines) == len(set(lines))
    assert get(block, [], "alice-app") == ""
    assert get(block, [ChatMessage(role="system", content="cat")], "alice-app") == ""


def test_the_query_window_picks_the_latest_messages(mx: Memex) -> None:
    block = MemexMemoryBlock(memex=mx, user="alice", query_window=1, mode="keyword")
    put(block, [user("I drink jasmine tea")], None)
    put(block, [user("My cat is called Miso")], None)
    for filler in ("I hike on Sundays", "My car is blue", "I work as a nurse", "I play chess"):
        put(block, [user(filler)], None)  # enough documents for BM25 to weigh rare words
    recalled = get(block, [user("jasmine tea?"), assistant("what about the cat Miso?")], None)
    assert "Miso" in recalled and "jasmine" not in recalled


def test_another_users_memories_are_never_recalled(mx: Memex, block: MemexMemoryBlock) -> None:
    put(block, [user("alice keeps her kayak at the marina zanzibar")], "alice-web")
    assert get(block, [user("kayak marina zanzibar")], "bob-web") == ""
    assert "zanzibar" in get(block, [user("kayak marina zanzibar")], "alice-app")


@pytest.mark.parametrize("key", sorted(SCOPE_KWARGS))
def test_per_call_arguments_cannot_change_the_scope(
    mx: Memex, block: MemexMemoryBlock, key: str
) -> None:
    put(block, [user("bob's zanzibar kayak")], "bob-web")
    with pytest.raises(MemexError, match="session decides"):
        get(block, [user("zanzibar kayak")], "alice-web", **{key: "bob"})


def test_memory_cannot_be_asked_for_another_session(mx: Memex, block: MemexMemoryBlock) -> None:
    put(block, [user("bob's zanzibar kayak")], "bob-web")
    memory = Memory.from_defaults(session_id="alice-web", memory_blocks=[block])
    with pytest.raises(TypeError):  # Memory passes its own session_id; a second one clashes
        asyncio.run(memory.aget(input="zanzibar kayak", session_id="bob-web"))
    with pytest.raises(MemexError):
        asyncio.run(memory.aget(input="zanzibar kayak", user="bob"))
    messages = asyncio.run(memory.aget(input="zanzibar kayak"))
    assert all("zanzibar" not in (m.content or "") for m in messages)


def test_a_search_collection_reads_across_a_users_chats(mx: Memex) -> None:
    scopes = {
        "chat-1": SessionScope("alice", "support:chat-1", "support"),
        "chat-2": SessionScope("alice", "support:chat-2", "support"),
        "chat-3": SessionScope("alice", "support:chat-3"),  # its own chat only
    }
    block = MemexMemoryBlock(memex=mx, session_scope=scopes.__getitem__)
    mx.agent("alice").remember("Alice's sales quota is jasmine-high", collection="sales")
    put(block, [user("I drink jasmine tea")], "chat-1")

    assert {r.collection for r in stored(mx, "alice")} == {"sales", "support:chat-1"}
    recalled = get(block, [user("jasmine")], "chat-2")
    assert "jasmine tea" in recalled and "quota" not in recalled
    assert get(block, [user("jasmine")], "chat-3") == ""


def test_shared_memory_is_recalled_for_everyone(mx: Memex, block: MemexMemoryBlock) -> None:
    mx.operator().write(
        "shared/policy.md", "Refunds within 30 days of the kayak purchase", collection="support"
    )
    assert "Refunds" in get(block, [user("kayak refunds")], "alice-web")
    assert "Refunds" in get(block, [user("kayak refunds")], "bob-web")


def test_atruncate_drops_the_least_relevant_lines(mx: Memex) -> None:
    block = MemexMemoryBlock(memex=mx, user="alice", tokenizer_fn=str.split)
    content = "\n".join(f"- [fact] memory number {i} of six words" for i in range(5))  # 8 each
    shorter = asyncio.run(block.atruncate(content, tokens_to_truncate=12))
    assert shorter == "\n".join(content.splitlines()[:3])  # 16 tokens gone: just enough
    assert asyncio.run(block.atruncate(content, tokens_to_truncate=10_000)) is None
    default = MemexMemoryBlock(memex=mx, user="alice")  # LlamaIndex's default tokenizer
    assert asyncio.run(default.atruncate(content, tokens_to_truncate=1)) == "\n".join(
        content.splitlines()[:4]
    )


# -- inside Memory ----------------------------------------------------------------------------


def new_memory(session: str, block: MemexMemoryBlock, token_limit: int = 40) -> Memory:
    return Memory.from_defaults(
        session_id=session,
        token_limit=token_limit,
        token_flush_size=10,
        tokenizer_fn=str.split,
        memory_blocks=[StaticMemoryBlock(name="policy", static_content="Be brief."), block],
    )


def memory_section(messages: list[ChatMessage]) -> str:
    return "\n".join(
        b.text for m in messages if m.role == "system" for b in m.blocks if isinstance(b, TextBlock)
    )


def test_inside_memory_flushing_stores_and_a_new_session_recalls(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    async def scenario() -> tuple[list[ChatMessage], list[ChatMessage], list[ChatMessage]]:
        first = new_memory("alice-web", block)
        for text in (
            "I drink jasmine tea every single morning",
            "My cat is called Miso and she sleeps a lot",
            "I am planning a kayak trip on the river",
        ):
            await first.aput(user(text))
            await first.aput(assistant(f"Noted: {text}"))
        remaining = await first.aget_all(status=MessageStatus.ACTIVE)
        later = new_memory("alice-app", block)
        await later.aput(user("what is my cat called?"))
        bob = new_memory("bob-web", block)
        await bob.aput(user("what is my cat called?"))
        return remaining, await later.aget(), await bob.aget()

    remaining, alice_prompt, bob_prompt = asyncio.run(scenario())

    assert len(remaining) < 6  # Memory really flushed
    assert "jasmine" in stored_text(mx, "alice")
    section = memory_section(alice_prompt)
    assert "<policy>" in section and "Be brief." in section
    assert "<memex>" in section and "Miso" in section
    assert "Miso" not in memory_section(bob_prompt) and "<policy>" in memory_section(bob_prompt)


def test_a_truncatable_block_shrinks_to_the_token_limit(mx: Memex) -> None:
    block = MemexMemoryBlock(
        memex=mx, user="alice", priority=1, similarity_top_k=10, tokenizer_fn=str.split
    )
    for i in range(8):
        put(block, [user(f"kayak fact number {i} about the river and the marina")], None)
    full = get(block, [user("kayak river marina")], None)

    async def prompt(limit: int) -> str:
        memory = new_memory("alice", block, token_limit=limit)
        await memory.aput(user("kayak river marina"))
        return memory_section(await memory.aget())

    roomy, tight = asyncio.run(prompt(10_000)), asyncio.run(prompt(60))
    assert len(full.splitlines()) > 3
    assert roomy.count("\n- [") == len(full.splitlines())
    assert 0 < tight.count("\n- [") < len(full.splitlines())


def test_one_block_object_keeps_no_state_between_sessions(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    before = block.model_dump()
    put(block, [user("alice kayak zanzibar")], "alice-web")
    get(block, [user("kayak")], "alice-web")
    get(block, [user("kayak")], "bob-web")
    assert block.model_dump() == before
    assert block.__pydantic_private__ in (None, {})
    assert "zanzibar" not in get(block, [user("kayak zanzibar")], "bob-web")
