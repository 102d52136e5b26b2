"""Errors of the ``llm`` plugin. Kept free of langchain so the plugin loads without it."""

from __future__ import annotations

from memex_core.errors import MemexError


class LLMSettingError(MemexError):
    """An ``[extractor.llm]`` / ``[consolidator.llm]`` setting is missing or unusable."""


class ModelOutputError(MemexError):
    """The chat model's reply was still invalid after the retries.

    ``problem`` says what was wrong, ``reply`` is the last reply in full and
    ``attempts`` how many replies were tried.
    """

    def __init__(self, message: str, *, problem: str, reply: str, attempts: int) -> None:
        super().__init__(message)
        self.problem = problem
        self.reply = reply
        self.attempts = attempts


class InvalidReply(ValueError):
    """One reply failed to parse or validate; the message is sent back to the model."""
