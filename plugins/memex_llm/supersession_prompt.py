"""What the ``llm`` supersession judge asks a chat model, and how its reply is read.

The model sees the new fact and the earlier facts the rules could not judge, numbered 1..n
(a model copies a small number reliably, it mangles long ids), and answers with the numbers
the new fact replaces. Plain strings and a pydantic check, no model code.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from memex_core.domain.memory.validity import TimedFact, start_unknown
from memex_llm.errors import InvalidReply
from memex_llm.parsing import _validate as validate
from memex_llm.parsing import first_json_object

SYSTEM = """You keep a person's memory up to date. Facts change over time: when a new fact \
updates or contradicts an earlier one about the same subject and the same attribute (where \
someone lives or works, their job, a preference, a plan's date, a tool's version, a name, a \
relationship, a status, a count), the earlier fact stops being current.

You are given one new fact and some earlier facts, each with a number. List the numbers of \
the earlier facts that the new fact makes no longer true.

- Close only facts about the same subject AND the same attribute. "Alice lives in Berlin" \
does not close "Alice likes Berlin's museums" or "Alice visited Paris".
- Things a person can have many of (likes, hobbies, friends, places visited, languages) \
close only when the new fact ends that very one ("Alice no longer plays tennis").
- A fact about an earlier time ("Alice lived in Rome in 2019") closes nothing that came later.
- When unsure, close nothing.

Reply with one JSON object and nothing else, no prose and no code fence:
{"closes": [<numbers>], "reason": "<one short sentence>"}"""


def _since(seconds: float) -> str:
    """'true from 2024-03-01', or 'start unknown' for a fact whose words give only its end
    (stored from the epoch: never shown to a model as 1970)."""
    if start_unknown(seconds):
        return "start unknown"
    return f"true from {datetime.fromtimestamp(seconds, UTC).date().isoformat()}"


def user_prompt(new: TimedFact, earlier: Sequence[TimedFact]) -> str:
    lines = [
        f"[{n}] {fact.text} ({_since(fact.valid_from)})" for n, fact in enumerate(earlier, start=1)
    ]
    return f"New fact ({_since(new.valid_from)}): {new.text}\n\nEarlier facts:\n" + "\n".join(lines)


class ClosingReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    closes: list[int] = Field(default_factory=list)
    reason: str = ""


def parse_closings(reply: str, count: int) -> ClosingReply:
    """The numbers the model closes, each 1..``count``; an :class:`InvalidReply` otherwise."""
    parsed = validate(ClosingReply, first_json_object(reply, "closes"))
    wrong = [n for n in parsed.closes if not 1 <= n <= count]
    if wrong:
        raise InvalidReply(
            f"closes has {', '.join(map(str, wrong))}, but the earlier facts are numbered "
            f"1 to {count}; use those numbers (or [] to close nothing)."
        )
    parsed.closes = sorted(set(parsed.closes))
    return parsed
