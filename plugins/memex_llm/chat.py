"""Asking a chat model for JSON, with one corrective retry.

Only ``chat_model.invoke(messages)`` is used, never ``with_structured_output``:
structured output is implemented differently by each provider (tool calls,
JSON mode, grammars) and not at all by many local and fake models, and the
checks that matter here (fact types and memory numbers of *this* prompt) have
to run on the reply anyway. Plain JSON in text works with every chat model;
an invalid reply is sent back once with what was wrong, which fixes most
slips (a code fence, a misspelt type, an invented number).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from memex_llm import prompts
from memex_llm.errors import InvalidReply, ModelOutputError

_Result = TypeVar("_Result")

#: How much of a bad reply an error message shows.
REPLY_PREVIEW = 300


def reply_text(reply: Any) -> str:
    """The text of a chat model's reply: a string, or the text blocks of a content list."""
    content = getattr(reply, "content", reply)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return str(content)


def model_label(chat_model: Any) -> str:
    """A short name for error messages: the model name when the object has one."""
    for attribute in ("model_name", "model", "model_id"):
        value = getattr(chat_model, attribute, None)
        if isinstance(value, str) and value:
            return f"{type(chat_model).__name__} ({value})"
    return type(chat_model).__name__


class AnsweringChatModel:
    """A langchain-core chat model as memex's ``ChatModel`` contract: what ``memex ask``
    sends its context pack to (registered through ``register_chat_models``)."""

    def __init__(self, chat_model: Any) -> None:
        self.chat_model = chat_model

    @property
    def label(self) -> str:
        return model_label(self.chat_model)

    def reply(self, system: str, prompt: str) -> str:
        return reply_text(self.chat_model.invoke([SystemMessage(system), HumanMessage(prompt)]))


def ask_json(
    chat_model: Any,
    messages: Sequence[BaseMessage],
    parse: Callable[[str], _Result],
    *,
    max_retries: int,
    task: str,
    fallback_hint: str,
) -> _Result:
    """Invoke the model and parse its reply; on an invalid reply, retry up to ``max_retries``
    times with the original messages, that reply and what was wrong with it.

    Raises :class:`ModelOutputError` naming the problem and showing the reply's start.
    """
    conversation = list(messages)
    problem, text = "", ""
    attempts = max_retries + 1
    for _attempt in range(attempts):
        text = reply_text(chat_model.invoke(conversation))
        try:
            return parse(text)
        except InvalidReply as exc:
            problem = str(exc)
        conversation = [*messages, AIMessage(content=text), HumanMessage(prompts.retry(problem))]
    preview = text[:REPLY_PREVIEW] + ("..." if len(text) > REPLY_PREVIEW else "")
    raise ModelOutputError(
        f"{model_label(chat_model)} gave no usable {task} after {attempts} "
        f"{'reply' if attempts == 1 else 'replies'}: {problem} "
        f"Its last reply began: {preview!r}. Use a model that follows JSON instructions "
        f"better, allow more retries (max_retries), or {fallback_hint}.",
        problem=problem,
        reply=text,
        attempts=attempts,
    )
