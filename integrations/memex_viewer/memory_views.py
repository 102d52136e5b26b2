"""What the memory pages show, computed from records: the collection tree, status labels,
and the diff between two revisions.

No web framework here, and no memex call: pure functions over names and text, so the
escaping of the diff can be tested on its own.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from markupsafe import Markup, escape

#: What a memory's stored status is called on the pages ("deleted" is what forget does).
STATUS_LABELS = {"active": "active", "invalidated": "invalidated", "deleted": "forgotten"}

#: A word diff of texts longer than this many tokens falls back to lines: SequenceMatcher
#: is quadratic in the worst case, and a page must not hang on a long memory file.
WORD_DIFF_TOKENS = 4000

_TOKENS = re.compile(r"\s+|[^\s]+")


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, status)


@dataclass
class TreeNode:
    """One level of a hierarchical collection name (``company:engineering:alice``)."""

    label: str  # this level's segment
    name: str  # the full collection name up to this level
    exists: bool = False  # memory is stored under exactly this name (not only below it)
    children: list[TreeNode] = field(default_factory=list)

    def contains(self, name: str) -> bool:
        """Whether ``name`` is this node or below it (the node is open when it is)."""
        return name == self.name or name.startswith(self.name + ":")


def collection_tree(names: Iterable[str]) -> list[TreeNode]:
    """The collection names as a tree, children sorted; the unnamed collection ``""`` is a
    root of its own."""
    roots: list[TreeNode] = []
    index: dict[str, TreeNode] = {}
    for name in sorted(set(names)):
        if name == "":
            roots.insert(0, TreeNode("(no collection)", "", exists=True))
            index[""] = roots[0]
            continue
        parts = name.split(":")
        siblings = roots
        for depth in range(1, len(parts) + 1):
            full = ":".join(parts[:depth])
            if full not in index:
                index[full] = TreeNode(parts[depth - 1], full)
                siblings.append(index[full])
            siblings = index[full].children
        index[name].exists = True
    return roots


def _tokens(text: str) -> list[str]:
    return _TOKENS.findall(text)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def diff_markup(old: str, new: str) -> Markup:
    """``new`` against ``old`` as HTML: unchanged text as is, removed text in ``<del>``,
    added text in ``<ins>``. Every piece of stored text is escaped first and the marks
    are put around the escaped pieces, so nothing stored can open or close a tag."""
    a, b = _tokens(old), _tokens(new)
    if len(a) + len(b) > WORD_DIFF_TOKENS:
        a, b = _lines(old), _lines(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        removed, added = "".join(a[i1:i2]), "".join(b[j1:j2])
        if op == "equal":
            out.append(str(escape(added)))
            continue
        if removed:
            out.append(f"<del>{escape(removed)}</del>")
        if added:
            out.append(f"<ins>{escape(added)}</ins>")
    return Markup("".join(out))


def diff_counts(old: str, new: str) -> tuple[int, int]:
    """(words added, words removed) between two texts, for a one-line summary."""
    a = [t for t in _tokens(old) if not t.isspace()]
    b = [t for t in _tokens(new) if not t.isspace()]
    added = removed = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed
