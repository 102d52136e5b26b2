"""What the llm extractor and consolidator share: a chat model asked for JSON, with retries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.messages import HumanMessage, SystemMessage

from memex_llm.chat import ask_json

_Result = TypeVar("_Result")


class ChatModelRole:
    """A memory role (extractor, consolidator) played by any langchain-core chat model."""

    def __init__(self, chat_model: Any, *, max_retries: int = 1) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}")
        self.chat_model = chat_model
        self.max_retries = max_retries

    def ask(
        self,
        system: str,
        user: str,
        parse: Callable[[str], _Result],
        *,
        task: str,
        fallback_hint: str,
    ) -> _Result:
        """The model's reply to the system and user prompts, parsed (see :func:`ask_json`)."""
        return ask_json(
            self.chat_model,
            [SystemMessage(system), HumanMessage(user)],
            parse,
            max_retries=self.max_retries,
            task=task,
            fallback_hint=fallback_hint,
        )
