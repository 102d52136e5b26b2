"""The ``llm`` supersession judge: the rules decide what they can, a chat model the rest.

Every ``remember`` offers the judge a new fact and the owner's closest current facts. The
rules judge (:mod:`memex_rules.supersession`) closes what it reads with confidence ("Alice
moved to Berlin" closes "Alice lives in Paris") and names the earlier facts of the same subject
it could not read ("Alice keeps bees" / "Alice gave her hives away"). Only those go to the
model, so a fact the rules settle costs no model call. When the model fails (an error, a
reply still unusable after the retries), the rules' answer stands and a warning is logged:
a memory write never fails for want of a model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from memex_core.domain.memory.validity import Supersession, TimedFact
from memex_llm.model_role import ChatModelRole
from memex_llm.supersession_prompt import SYSTEM, parse_closings, user_prompt

logger = logging.getLogger(__name__)

#: At most this many unsure facts go to the model in one call (the closest first).
MAX_ASKED = 8


class RulesReview(Protocol):
    """What the rules judge's ``review`` returns: its closings and the facts it left open."""

    @property
    def closes(self) -> list[Supersession]: ...

    @property
    def unsure(self) -> list[TimedFact]: ...


class ReviewingJudge(Protocol):
    """A judge that also says which facts it could not decide (the rules judge)."""

    def valid_from(self, text: str, said_at: float) -> float: ...

    def review(self, new: TimedFact, earlier: Sequence[TimedFact]) -> RulesReview: ...


class LLMSupersessionJudge(ChatModelRole):
    """Closes what the rules close, plus what a chat model closes among the facts the rules
    could not judge. ``rules`` is the judge the model backs up (and falls back to)."""

    def __init__(
        self,
        chat_model: Any,
        rules: ReviewingJudge,
        *,
        max_retries: int = 1,
        max_asked: int = MAX_ASKED,
    ) -> None:
        super().__init__(chat_model, max_retries=max_retries)
        if max_asked < 1:
            raise ValueError(f"max_asked must be 1 or more, not {max_asked}")
        self.rules = rules
        self.max_asked = max_asked

    def valid_from(self, text: str, said_at: float) -> float:
        """When ``text`` says its fact began: the rules read it (no model call)."""
        return self.rules.valid_from(text, said_at)

    def valid_until(self, text: str, said_at: float) -> float | None:
        """When ``text`` says its fact stopped holding: the rules read it (no model call);
        None when the rules judge reads no ends."""
        ending = getattr(self.rules, "valid_until", None)
        return ending(text, said_at) if callable(ending) else None

    def answering(self, question: str) -> Callable[[str], bool] | None:
        """The rules' reading of a question (no model call: a search never waits on one);
        None when the rules judge reads no questions or not this one."""
        answering = getattr(self.rules, "answering", None)
        return answering(question) if callable(answering) else None

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        review = self.rules.review(new, earlier)
        closes = list(review.closes)
        unsure = [fact for fact in review.unsure if fact.memory_id][: self.max_asked]
        if not unsure:
            return closes
        try:
            reply = self.ask(
                SYSTEM,
                user_prompt(new, unsure),
                lambda text: parse_closings(text, len(unsure)),
                task="supersession decision",
                fallback_hint='use the rules judge ([supersession] use = "rules")',
            )
        except Exception as exc:  # any provider error: the rules' answer stands
            logger.warning("supersession: the model was not used (%s); the rules decided", exc)
            return closes
        reason = reply.reason.strip() or "the model judged it updated"
        for number in reply.closes:
            fact = unsure[number - 1]
            closes.append(Supersession(str(fact.memory_id), "", f"model: {reason}"))
        return closes
