"""LlamaIndex chat messages as memex conversation turns, and as a search query."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from llama_index.core.base.llms.types import ChatMessage, TextBlock

from memex_core.services.agent_memory import Message

#: LlamaIndex's roles (``MessageRole``) in memex's vocabulary (``memex_core.domain.ROLES``).
ROLE_MAP = {
    "user": "user",
    "assistant": "assistant",
    "chatbot": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


def role_of(message: ChatMessage) -> str:
    role = getattr(message.role, "value", message.role)
    return ROLE_MAP.get(str(role), "note")


def text_of(message: ChatMessage) -> str:
    """The message's text blocks (tool-call requests, images and thinking carry none)."""
    return "\n".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()


def to_turns(messages: Iterable[ChatMessage], roles: Sequence[str]) -> list[Message]:
    """The messages worth remembering: those in ``roles`` (memex names) that hold text."""
    turns = []
    for message in messages:
        role, text = role_of(message), text_of(message)
        if role in roles and text:
            turns.append(Message(role, text))
    return turns


def query_from(messages: Sequence[ChatMessage], window: int, max_chars: int = 1000) -> str:
    """What to search memory for: the text of the last ``window`` user/assistant messages,
    latest first (so truncation keeps the newest), at most ``max_chars``."""
    picked: list[str] = []
    for message in reversed(messages):
        if len(picked) >= window:
            break
        if role_of(message) in ("user", "assistant") and (text := text_of(message)):
            picked.append(text)
    return "\n".join(picked)[:max_chars].strip()


__all__ = ["ROLE_MAP", "query_from", "role_of", "text_of", "to_turns"]
