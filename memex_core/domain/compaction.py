"""Compact long tool output before it is indexed.

A 4,000-line test log would drown every search in noise, yet its useful parts
are few: how it started, the lines that signal trouble, and how it ended. The
catalog keeps the full text; only the indexed text is compacted.
"""

from __future__ import annotations

import re

#: Characters of tool output indexed by default; settable per source as ``tool_output_budget``.
DEFAULT_TOOL_OUTPUT_BUDGET = 1500

_TROUBLE = re.compile(
    r"error|\berr\b|warning|warn\b|fail|traceback|exception|panic|fatal|denied|not found"
    r"|exit(?:ed)?(?: with)?(?: code| status)?[ :=]*[1-9]|exit code|returncode|segmentation fault",
    re.IGNORECASE,
)
_OMITTED = "[... {n} lines omitted ...]"


def is_trouble_line(line: str) -> bool:
    """Whether a line signals a problem (an error, warning, failure, traceback or exit code)."""
    return bool(_TROUBLE.search(line))


def compact_tool_output(text: str, budget_chars: int = DEFAULT_TOOL_OUTPUT_BUDGET) -> str:
    """Head, the trouble lines, and the tail of ``text``, within about ``budget_chars``.

    Text already within budget is returned unchanged. Otherwise a quarter of the
    budget goes to the head, a quarter to the tail and the rest to trouble lines
    in their original order; gaps are marked with how many lines were left out.
    Single lines longer than their share are cut.
    """
    if budget_chars <= 0:
        return ""
    if len(text) <= budget_chars:
        return text
    lines = text.splitlines()
    if len(lines) <= 1:
        half = max(budget_chars // 2 - 8, 1)
        cut = f"{text[:half]} [...] {text[-half:]}"
        return cut if len(cut) < len(text) else text[:budget_chars]

    head_budget = tail_budget = budget_chars // 4
    middle_budget = budget_chars - head_budget - tail_budget

    def take(indices: range | list[int], budget: int) -> list[int]:
        taken: list[int] = []
        used = 0
        for i in indices:
            cost = min(len(lines[i]), budget) + 1
            if used + cost > budget and taken:
                break
            taken.append(i)
            used += cost
        return taken

    head = take(range(len(lines)), head_budget)
    tail = take(range(len(lines) - 1, head[-1], -1), tail_budget)
    chosen = set(head) | set(tail)
    middle = [i for i in range(len(lines)) if i not in chosen and is_trouble_line(lines[i])]
    chosen |= set(take(middle, middle_budget))

    out: list[str] = []
    previous = -1
    for i in sorted(chosen):
        if i > previous + 1:
            out.append(_OMITTED.format(n=i - previous - 1))
        line = lines[i]
        limit = max(budget_chars // 4, 40)
        out.append(line if len(line) <= limit else line[: limit - 5] + " [...]")
        previous = i
    if previous < len(lines) - 1:
        out.append(_OMITTED.format(n=len(lines) - 1 - previous))
    compacted = "\n".join(out)
    # With a tiny budget the omission markers can outweigh what they replace.
    return compacted if len(compacted) < len(text) else text[:budget_chars]
