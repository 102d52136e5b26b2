"""Reading a chat model's reply: the JSON object in it, checked against what was asked.

Models wrap JSON in prose or code fences, invent fact types and ids, and stop
mid-object. :func:`first_json_object` copes with the wrapping; the pydantic
models check the shape; the ``check_*`` functions check the values against
the fact types and memory numbers of this very prompt. Every failure is an
:class:`InvalidReply` whose message is written to be sent back to the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memex_core.domain.contracts import CONSOLIDATION_ACTIONS, DELETE, UPDATE
from memex_llm.errors import InvalidReply

_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)


def strip_fences(reply: str) -> str:
    """The inside of the first ``` fence (closed or cut off), or the reply as it is."""
    match = _FENCE.search(reply)
    return match.group(1) if match else reply


def first_json_object(reply: str, required: str) -> dict[str, Any]:
    """The first JSON object in ``reply`` that has the key ``required``.

    Objects without it (a brace in the prose, a nested item of a truncated
    reply) are passed over; when none is found the error says whether the JSON
    looked cut off.
    """
    text = strip_fences(reply)
    decoder = json.JSONDecoder()
    first_error: json.JSONDecodeError | None = None
    for brace in re.finditer(r"\{", text):
        try:
            value, _end = decoder.raw_decode(text, brace.start())
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
            continue
        if isinstance(value, dict) and required in value:
            return value
    if first_error is not None:
        cut = first_error.msg.startswith("Unterminated") or first_error.pos >= len(text.rstrip())
        detail = "it looks cut off" if cut else f"{first_error.msg} at character {first_error.pos}"
        raise InvalidReply(f'the JSON object with "{required}" is not valid JSON ({detail}).')
    raise InvalidReply(f'the reply holds no JSON object with a "{required}" key.')


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in error.errors()
    )


_Model = TypeVar("_Model", bound=BaseModel)


def _validate(model: type[_Model], data: dict[str, Any]) -> _Model:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidReply(_problems(exc) + ".") from None


# --- extraction --------------------------------------------------------------------------------


class ExtractedFact(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str
    type: str
    turns: list[int] = Field(default_factory=list)


class ExtractionReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    facts: list[ExtractedFact]


def parse_extraction(reply: str, type_names: Sequence[str], turn_count: int) -> list[ExtractedFact]:
    """The facts in an extraction reply; every type one of ``type_names``, turns 1..turn_count."""
    parsed = _validate(ExtractionReply, first_json_object(reply, "facts"))
    problems = []
    known = {name.casefold(): name for name in type_names}
    for n, item in enumerate(parsed.facts):
        item.text = item.text.strip()
        if not item.text:
            problems.append(f"facts[{n}].text is empty")
        name = known.get(item.type.strip().casefold())
        if name is None:
            problems.append(
                f"facts[{n}].type is {item.type!r}, which is not one of the fact types "
                f"({', '.join(type_names)})"
            )
        else:
            item.type = name
        wrong = [t for t in item.turns if not 1 <= t <= turn_count]
        if wrong:
            problems.append(
                f"facts[{n}].turns has {', '.join(map(str, wrong))}, but the turns are "
                f"numbered 1 to {turn_count}"
            )
    if problems:
        raise InvalidReply("; ".join(problems) + ".")
    return parsed.facts


# --- consolidation -----------------------------------------------------------------------------


class DecisionReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: str
    target: int | None = None
    text: str | None = None
    reason: str = ""


def parse_decision(reply: str, targets: Collection[int]) -> DecisionReply:
    """The decision in a consolidation reply; ``target`` one of ``targets`` where one is needed."""
    parsed = _validate(DecisionReply, first_json_object(reply, "action"))
    parsed.action = parsed.action.strip().upper()
    problems = []
    if parsed.action not in CONSOLIDATION_ACTIONS:
        problems.append(
            f"action is {parsed.action!r}; it must be one of {', '.join(CONSOLIDATION_ACTIONS)}"
        )
    numbers = f"1 to {max(targets)}" if targets else "none"
    if parsed.target is not None and parsed.target not in targets:
        problems.append(
            f"target is {parsed.target}, but the memories are numbered {numbers}; use one of "
            "those numbers (or null for ADD)"
        )
    elif parsed.target is None and parsed.action in (UPDATE, DELETE):
        problems.append(f"{parsed.action} needs a target: the number of the memory it changes")
    if parsed.action == UPDATE and parsed.text is not None and not parsed.text.strip():
        problems.append("UPDATE needs the merged statement in text")
    if problems:
        raise InvalidReply("; ".join(problems) + ".")
    return parsed
