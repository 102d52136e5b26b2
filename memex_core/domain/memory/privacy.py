"""``<private>...</private>`` blocks: text a person marked as never to be stored.

Memory writes strip these blocks before anything else sees the text. The rules
fail closed, because a block that leaks is worse than a note that loses a line:

* Tags match in any case and may carry attributes: ``<PRIVATE reason="pin">``.
* Nested blocks are removed as one span, from the outermost opening tag to the
  closing tag that balances it.
* An opening tag that is never closed (or never even finished with ``>``) hides
  everything after it, to the end of the text.
* A closing tag with no opening tag is removed on its own; the text around it
  stays. A self-closing ``<private/>`` opens nothing and is removed likewise.
* Only ``private`` itself is a tag: ``<privateer>`` and ``<private-notes>`` are
  ordinary text.

Where a block was, the spaces around it collapse: a block inside a line leaves
one space (none before ``,.;:!?)``), a block on lines of its own leaves no blank
lines beyond those that were already there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ``<`` [spaces] [``/``] [spaces] ``private`` [attributes] ``>``. A tag cut short
# ends where the next ``<`` starts or at the end of the text: an unfinished opening
# tag still hides what follows it, and an unfinished stray tag cannot swallow the
# opening tag after it.
_TAG = re.compile(
    r"<\s*(?P<close>/)?\s*private(?=[\s/<>]|\Z)(?P<attrs>[^<>]*)(?P<end>>|(?=<)|\Z)",
    re.IGNORECASE,
)
_NO_SPACE_BEFORE = frozenset(",.;:!?)]}")


@dataclass(frozen=True)
class PrivateStripped:
    """Text with its private blocks removed; ``removed`` counts the blocks."""

    text: str
    removed: int = 0


def has_private_marker(text: str) -> bool:
    """Whether ``text`` has any ``<private>`` or ``</private>`` tag."""
    return _TAG.search(text) is not None


def strip_private(text: str) -> PrivateStripped:
    """Remove every private block (see the module docstring for the exact rules).

    The result never contains a tag: if closing a gap brings the pieces of a new
    one together (``<`` + ``private>``), that is stripped too, so stripping twice
    changes nothing.
    """
    result = _strip_once(text)
    # Each pass that finds a tag makes the text shorter, so this ends.
    while has_private_marker(result.text):
        again = _strip_once(result.text)
        result = PrivateStripped(again.text, result.removed + again.removed)
    return result


def _strip_once(text: str) -> PrivateStripped:
    spans: list[tuple[int, int]] = []  # what to cut, in order
    removed = 0
    depth = 0
    start = 0
    for tag in _TAG.finditer(text):
        closing = tag.group("close") is not None
        self_closing = (
            not closing and tag.group("end") == ">" and tag.group("attrs").rstrip().endswith("/")
        )
        if depth == 0:
            if closing or self_closing:
                spans.append((tag.start(), tag.end()))  # stray tag: drop it alone
            else:
                start = tag.start()
                depth = 1
        elif closing:
            depth -= 1
            if depth == 0:
                spans.append((start, tag.end()))
                removed += 1
        elif not self_closing:
            depth += 1
    if depth:
        spans.append((start, len(text)))
        removed += 1
    if not spans:
        return PrivateStripped(text, 0)
    return PrivateStripped(_join_around(text, spans), removed)


def _join_around(text: str, spans: list[tuple[int, int]]) -> str:
    """The text outside ``spans``, with the whitespace at each cut collapsed."""
    kept = []
    position = 0
    for begin, end in spans:
        kept.append(text[position:begin])
        position = end
    kept.append(text[position:])
    result = kept[0]
    for piece in kept[1:]:
        result = _join(result, piece)
    return result


def _join(left: str, right: str) -> str:
    left = left.rstrip(" \t")
    right = right.lstrip(" \t")
    if not left:
        return right.lstrip()
    if not right:
        return left
    if left.endswith("\n") or right.startswith(("\n", "\r\n")):
        # The block had lines of its own: keep the larger of the two line breaks
        # around it, so "a\n<block>\nb" is "a\nb" and paragraphs stay paragraphs.
        tail = left[len(left.rstrip("\r\n")) :]
        head = right[: len(right) - len(right.lstrip("\r\n"))]
        newline = "\r\n" if "\r\n" in tail + head else "\n"
        extra = max(0, head.count("\n") - tail.count("\n"))
        return left + newline * extra + right[len(head) :]
    if right[0] in _NO_SPACE_BEFORE:
        return left + right
    return f"{left} {right}"
