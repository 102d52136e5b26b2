"""A langchain-core chat model that replies with scripted texts, for the ``llm`` plugin's
tests (no model, no network)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class ScriptedChatModel(BaseChatModel):
    """Replies with the scripted texts in turn and records every list of messages it got."""

    replies: list[Any]
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    model_name: str = "scripted-1"

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append(list(messages))
        if not self.replies:
            raise AssertionError("the model was asked more often than scripted")
        reply = AIMessage(content=self.replies.pop(0))
        return ChatResult(generations=[ChatGeneration(message=reply)])


def scripted_model(replies: list[str], model_name: str = "from-config") -> ScriptedChatModel:
    """A factory config.toml can name:
    chat_model = "tests.support.scripted_chat:scripted_model"."""
    return ScriptedChatModel(replies=list(replies), model_name=model_name)


def texts(messages: list[BaseMessage]) -> list[tuple[str, str]]:
    return [(m.type, str(m.content)) for m in messages]
