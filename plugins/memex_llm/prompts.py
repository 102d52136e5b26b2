"""The prompts the ``llm`` extractor and consolidator send. Plain strings, no model code.

Both ask for one JSON object and nothing else. The consolidator numbers the
similar memories 1..n and asks for that number back (mem0 does the same): a
model copies a small integer reliably, while it mangles or invents long ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from memex_core.domain.contracts import FactType, MemoryFact, SimilarMemory
from memex_core.domain.fragment import Fragment


def _quoted(examples: Sequence[str]) -> str:
    return "; ".join(f'"{e}"' for e in examples)


def fact_type_lines(fact_types: Sequence[FactType]) -> str:
    """One line per fact type: name, description, examples."""
    lines = []
    for fact_type in fact_types:
        line = f"- {fact_type.name}: {fact_type.description}"
        if fact_type.examples:
            line += f" Examples: {_quoted(fact_type.examples)}."
        lines.append(line)
    return "\n".join(lines)


def extraction_system(fact_types: Sequence[FactType]) -> str:
    names = ", ".join(t.name for t in fact_types)
    return f"""You read a conversation and pick out the facts about the user that are \
worth remembering in later conversations.

Fact types (put the name in "type"):
{fact_type_lines(fact_types)}

Rules:
- Take facts only from what the user says (turns marked "user" or "note"). Assistant \
turns are context: never take a fact from them.
- One fact per item, short, in the third person, starting with "User" \
(for example "User is allergic to peanuts").
- Leave out greetings, questions, requests to the assistant and details of the task \
at hand that will not matter later.
- Do not repeat a fact. If nothing is worth remembering, reply {{"facts": []}}.
- "turns" lists the numbers of the turns the fact comes from.

Reply with one JSON object and nothing else, no prose and no code fence:
{{"facts": [{{"text": "User ...", "type": "<one of: {names}>", "turns": [1]}}]}}"""


def extraction_user(turns: Sequence[Fragment]) -> str:
    lines = [
        f"[{n}] {fragment.role}: {fragment.content.strip()}"
        for n, fragment in enumerate(turns, start=1)
    ]
    return "Conversation:\n" + "\n".join(lines)


CONSOLIDATION_SYSTEM = """You keep a user's memory consistent. You are given one new \
fact and the existing memories most similar to it, each with a number. Decide one action:

- ADD: the new fact is new information. Store it.
- UPDATE: the new fact refines or extends memory N (same subject, more or newer detail). \
"text" is the merged statement that replaces memory N.
- DELETE: the new fact contradicts memory N, which is no longer true. Memory N is \
invalidated; "text" is what to store instead (usually the new fact), or "" to store nothing.
- NONE: memory N already says this. Nothing changes.

"target" is the number of the memory the action is about, exactly as shown; null for ADD.

Reply with one JSON object and nothing else, no prose and no code fence:
{"action": "ADD" | "UPDATE" | "DELETE" | "NONE", "target": <memory number or null>, \
"text": "<the text to store, or null>", "reason": "<one short sentence>"}"""


def consolidation_user(fact: MemoryFact, similar: Sequence[SimilarMemory]) -> str:
    lines = [
        f"[{n}] {memory.text} (type: {memory.kind}, similarity {memory.similarity:.2f})"
        for n, memory in enumerate(similar, start=1)
    ]
    return f"New fact (type: {fact.kind}): {fact.text}\n\nExisting memories:\n" + "\n".join(lines)


def retry(problem: str) -> str:
    """What the model is told after an invalid reply (its reply precedes this message)."""
    return (
        f"That reply could not be used: {problem}\n"
        "Reply again with only the corrected JSON object, following the format above."
    )
