"""A LlamaIndex agent workflow with memex as its long-term memory.

A ``FunctionAgent`` runs on a scripted function-calling LLM (LlamaIndex's own
``MockFunctionCallingLLM`` driven by a deterministic script that records every
prompt it receives). Each session has its own ``Memory`` with a small token
limit, so old turns are flushed to the blocks: a ``StaticMemoryBlock`` and one
shared ``MemexMemoryBlock`` serving every session and user.

The tests check that flushed turns land in memex under the session's user and
collection, that a later session of the same user finds them in the prompt the
LLM receives, and that another user's sessions (run one after the other or at
the same time) never see them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory, StaticMemoryBlock
from llama_index.core.tools import FunctionTool

from memex_core.api import Memex
from memex_llamaindex import MemexMemoryBlock, SessionScope
from tests.support.component_doubles import fast_memex

SESSIONS = {"alice-1": "alice", "alice-2": "alice", "bob-1": "bob", "bob-2": "bob"}
ALICE_TURNS = [
    "I always drink green tea with jasmine in the morning",
    "My cat is called Miso and she is three years old",
    "What is the weather in Lisbon today",
    "I am planning a kayak trip on the Tagus river",
    "Thanks, that is all for now",
]
BOB_TURNS = [
    "I drink espresso with oat milk before work",
    "My dog is called Rufus and he loves the beach",
    "I am preparing for the Berlin marathon in September",
    "Thanks, bye",
]
ALICE_WORDS = ("jasmine", "Miso", "Tagus", "kayak")
BOB_WORDS = ("espresso", "Rufus", "Berlin", "marathon")
# Matches alice's turns word for word ("tea", "morning", "cat", "called", "trip", "river")
# without naming any of ALICE_WORDS: if her memories leaked, this would pull them in.
PROBE = "What tea do I drink in the morning, what is my cat called, where is my river trip?"
PROBE_BOTH = PROBE + " Do I have a dog? What coffee before work?"


class Script:
    """A deterministic stand-in for an LLM: it records each prompt and answers by rule.

    A question about the weather gets a tool call; a tool result gets a forecast;
    anything else is answered with the first memory memex put in the system
    prompt, or acknowledged when there is none.
    """

    def __init__(self) -> None:
        self.prompts: list[list[ChatMessage]] = []
        self.calls = 0

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.prompts.append([m.model_copy(deep=True) for m in messages])
        self.calls += 1
        last = messages[-1]
        if last.role == MessageRole.TOOL:
            return ChatMessage(role="assistant", content=f"The forecast: {last.content}")
        city = re.search(r"weather in (\w+)", last.content or "")
        if city and kwargs.get("tools"):
            call = ToolCallBlock(
                tool_call_id=f"call-{self.calls}",
                tool_name="get_weather",
                tool_kwargs={"city": city.group(1)},
            )
            return ChatMessage(role="assistant", blocks=[call])
        remembered = memex_lines(messages)
        if remembered:
            return ChatMessage(role="assistant", content=f"I remember: {remembered[0]}")
        return ChatMessage(role="assistant", content=f"Noted: {last.content}")


def system_text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(
        block.text
        for m in messages
        if m.role == MessageRole.SYSTEM
        for block in m.blocks
        if isinstance(block, TextBlock)
    )


def memex_lines(messages: Sequence[ChatMessage]) -> list[str]:
    """The lines of the ``<memex>`` section Memory rendered into the system prompt."""
    found = re.search(r"<memex>\n(.*?)\n</memex>", system_text(messages), re.S)
    return [line for line in found.group(1).splitlines() if line.strip()] if found else []


def get_weather(city: str) -> str:
    """The weather forecast for a city."""
    return f"sunny and 24C in {city}"


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    memex = fast_memex(tmp_path / "home")
    yield memex
    memex.close()


@pytest.fixture
def block(mx: Memex) -> MemexMemoryBlock:
    return MemexMemoryBlock(
        memex=mx, session_scope=lambda session: SessionScope(SESSIONS[session], "support")
    )


def new_memory(session: str, block: MemexMemoryBlock) -> Memory:
    """A session's memory: words count as tokens and the limit is small, so old turns
    are flushed to the blocks after a few exchanges."""
    return Memory.from_defaults(
        session_id=session,
        token_limit=60,
        token_flush_size=15,
        tokenizer_fn=str.split,
        memory_blocks=[
            StaticMemoryBlock(name="policy", static_content="Refunds are possible for 30 days."),
            block,
        ],
    )


def new_agent() -> tuple[FunctionAgent, Script]:
    script = Script()
    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(get_weather)],
        llm=MockFunctionCallingLLM(response_generator=script),
        system_prompt="You are a helpful support assistant.",
    )
    return agent, script


async def converse(agent: FunctionAgent, memory: Memory, turns: Sequence[str]) -> list[str]:
    return [str(await agent.run(user_msg=text, memory=memory)) for text in turns]


def stored(mx: Memex, user: str) -> str:
    """Everything memex holds for ``user`` (as the operator sees it)."""
    return "\n".join(record.content for record in mx.operator().list(user_id=user))


def test_flushed_turns_land_under_the_sessions_user_and_collection(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    agent, _ = new_agent()
    replies = asyncio.run(converse(agent, new_memory("alice-1", block), ALICE_TURNS))

    assert replies[2] == "The forecast: sunny and 24C in Lisbon"  # the tool really ran
    records = mx.operator().list(user_id="alice")
    conversations = [r for r in records if r.kind == "conversation"]
    assert conversations, "no turn was flushed: the token limit did not bite"
    assert {r.collection for r in records} == {"support"}
    assert {r.owner for r in records} == {"users/alice"}
    text = stored(mx, "alice")
    assert "user: I always drink green tea with jasmine" in text
    assert "assistant: Noted: I always drink green tea" in text
    assert "tool" not in {line.split(":")[0] for line in text.splitlines()}  # roles=user,assistant
    # memex extracted facts from the flushed conversation, filed alike
    assert any(r.kind != "conversation" and "jasmine" in r.content for r in records)
    assert mx.operator().list(user_id="bob") == []


def test_a_later_session_gets_the_users_memories_in_the_prompt(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    agent, script = new_agent()

    async def scenario() -> str:
        await converse(agent, new_memory("alice-1", block), ALICE_TURNS)
        script.prompts.clear()
        later = new_memory("alice-2", block)  # a new session: empty chat history
        return (await converse(agent, later, ["Which tea with jasmine do I drink?"]))[0]

    reply = asyncio.run(scenario())

    prompt = script.prompts[-1]
    lines = memex_lines(prompt)
    assert any("green tea with jasmine" in line for line in lines), lines
    assert "Refunds are possible for 30 days." in system_text(prompt)  # the other block too
    assert reply.startswith("I remember: ") and "jasmine" in reply
    # the chat history the LLM got is this session's only
    assert [m.content for m in prompt if m.role == MessageRole.USER] == [
        "Which tea with jasmine do I drink?"
    ]


def test_another_user_never_sees_them(mx: Memex, block: MemexMemoryBlock) -> None:
    agent, script = new_agent()

    async def scenario() -> None:
        await converse(agent, new_memory("alice-1", block), ALICE_TURNS)
        script.prompts.clear()
        bob = new_memory("bob-1", block)
        await converse(agent, bob, [PROBE, *BOB_TURNS])
        await converse(agent, new_memory("bob-2", block), [PROBE])

    asyncio.run(scenario())

    bob_prompts = "\n".join(system_text(p) for p in script.prompts)
    assert not any(word in bob_prompts for word in ALICE_WORDS)
    assert any(word in bob_prompts for word in BOB_WORDS)  # bob's own memory does work
    assert not any(word in stored(mx, "bob") for word in ALICE_WORDS)
    assert not any(word in stored(mx, "alice") for word in BOB_WORDS)


def test_concurrent_sessions_of_two_users_share_one_block_without_leaking(
    mx: Memex, block: MemexMemoryBlock
) -> None:
    agent, script = new_agent()

    async def scenario() -> None:
        await asyncio.gather(
            converse(agent, new_memory("alice-1", block), ALICE_TURNS),
            converse(agent, new_memory("bob-1", block), BOB_TURNS),
        )
        script.prompts.clear()
        await asyncio.gather(
            converse(agent, new_memory("alice-2", block), [PROBE_BOTH]),
            converse(agent, new_memory("bob-2", block), [PROBE_BOTH]),
        )

    asyncio.run(scenario())

    assert any(w in stored(mx, "alice") for w in ALICE_WORDS)
    assert any(w in stored(mx, "bob") for w in BOB_WORDS)
    assert not any(w in stored(mx, "alice") for w in BOB_WORDS)
    assert not any(w in stored(mx, "bob") for w in ALICE_WORDS)
    by_user: dict[str, str] = {}
    for prompt in script.prompts:
        lines = "\n".join(memex_lines(prompt))
        if any(w in lines for w in ALICE_WORDS):
            by_user.setdefault("alice", "")
            assert not any(w in lines for w in BOB_WORDS), lines
        if any(w in lines for w in BOB_WORDS):
            by_user.setdefault("bob", "")
    assert set(by_user) == {"alice", "bob"}  # both recalled their own memories
