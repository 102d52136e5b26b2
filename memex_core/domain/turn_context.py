"""Indexing a conversation turn together with the turns before it.

A reply such as "yes, the blue one, Tuesday" means little on its own; the
question it answers holds the words a later search uses. With turn context the
indexes see each user or assistant turn preceded by the end of the turns before
it in its conversation. ``content`` (what ``get``, ``timeline`` and search
results show) never changes; only what an index is built from does.

Only dialogue turns (roles ``user`` and ``assistant``) of ingested
conversations take and give context: notes, tool output, system messages and
agent memory are indexed as they are. In the keyword index the conversation's
title comes with the turns (a chat named "Кириллица и 日本語" is found by its
name), once, like a context line, unless the turn's text already starts with
it; the vectors see no title (not measured to help MiniLM). All chunks of one
message share the same context (the turns before the message), and an earlier
message counts once however many chunks it was split into.

Pure logic: the order of a conversation's turns comes from the catalog (see
:mod:`memex_core.services.index_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memex_core.domain.fragment import Fragment
from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.settings_table import SettingsTable, is_whole_number

#: Roles whose fragments are conversation turns.
DIALOGUE_ROLES = ("user", "assistant")
#: Measured defaults (docs/benchmarks.md): two earlier turns lift LoCoMo keyword recall@10
#: from 0.61 to 0.69; in the vectors the same context lowers MiniLM's recall, so the
#: vector index sees each turn alone unless configured otherwise.
DEFAULT_KEYWORD_TURNS = 2
DEFAULT_VECTOR_TURNS = 0
#: The end of each earlier turn that is kept (a long answer before a short follow-up
#: would otherwise drown the follow-up's own words).
DEFAULT_CONTEXT_CHARS = 300
#: How many times a turn's own text is indexed after its context: the context's words
#: count half as much as the turn's own (a field weight, in BM25F terms), so a short
#: follow-up does not outrank the turn that holds the words. Measured: LoCoMo keyword
#: recall@10 0.689 with the own text once, 0.713 twice, 0.718 three times.
OWN_TEXT_REPEATS = 2
#: What the indexes of a home were built with before turn context existed.
LEGACY_SIGNATURE = "off"

_FIRST_SPACE = re.compile(r"\s")


class TurnContextSettingError(ValueError):
    """A ``[index]`` value of config.toml that cannot be used."""


@dataclass(frozen=True)
class TurnContext:
    """How many earlier turns an index sees with each turn, and how much of each (0 turns:
    each turn is indexed exactly as stored), and whether it sees the conversation's title
    (an index recorded before titles were indexed reads back with ``titles=False``)."""

    turns: int = 0
    chars: int = DEFAULT_CONTEXT_CHARS
    titles: bool = True

    @property
    def enabled(self) -> bool:
        return self.turns > 0 and self.chars > 0

    def signature(self) -> str:
        """What the catalog records (``off`` or ``turns=2,chars=300,own=2``)."""
        if not self.enabled:
            return LEGACY_SIGNATURE
        title = ",title=1" if self.titles else ""
        return f"turns={self.turns},chars={self.chars},own={OWN_TEXT_REPEATS}{title}"

    @classmethod
    def from_signature(cls, text: str) -> TurnContext | None:
        """The setting a :meth:`signature` names, or None if it names none."""
        if text == LEGACY_SIGNATURE:
            return cls(0)
        try:
            parts = dict(item.split("=", 1) for item in text.split(","))
            if int(parts["own"]) != OWN_TEXT_REPEATS:
                return None  # built by a memex that weighed the context differently
            titles = parts.get("title") == "1"
            return cls(int(parts["turns"]), int(parts["chars"]), titles)
        except (KeyError, ValueError):
            return None

    def describe(self) -> str:
        if not self.enabled:
            return "no earlier turns"
        turns = "1 earlier turn" if self.turns == 1 else f"{self.turns} earlier turns"
        text = f"{turns}, up to {self.chars} characters each"
        return text + (", and the conversation's title" if self.titles else ", without titles")


@dataclass(frozen=True)
class IndexContext:
    """Turn context of each index: the keyword index and the vector index."""

    keyword: TurnContext = TurnContext(DEFAULT_KEYWORD_TURNS)
    vectors: TurnContext = TurnContext(DEFAULT_VECTOR_TURNS, titles=False)


def parse_index_table(table: Mapping[str, Any]) -> IndexContext:
    """The ``[index]`` table of config.toml over the defaults, checked."""
    known = ("keyword_context_turns", "vector_context_turns", "context_chars", "keyword_titles")
    index = SettingsTable("config.toml [index]", TurnContextSettingError, known=known)
    index.checked(table)

    def count(key: str, default: int) -> int:
        value = table.get(key, default)
        if not is_whole_number(value) or value < 0:
            raise index.invalid(key, value, "a whole number, 0 or more")
        return value

    chars = count("context_chars", DEFAULT_CONTEXT_CHARS)
    titles = table.get("keyword_titles", True)
    if not isinstance(titles, bool):
        raise index.invalid("keyword_titles", titles, "true or false")
    return IndexContext(
        keyword=TurnContext(count("keyword_context_turns", DEFAULT_KEYWORD_TURNS), chars, titles),
        vectors=TurnContext(
            count("vector_context_turns", DEFAULT_VECTOR_TURNS), chars, titles=False
        ),
    )


def is_turn(fragment: Fragment) -> bool:
    """Whether ``fragment`` is a conversation turn (takes and gives context)."""
    return fragment.role in DIALOGUE_ROLES and fragment.source_kind != MEMORY_SOURCE


@dataclass(frozen=True)
class TurnText:
    """One dialogue fragment in its conversation's order: its id, the message it belongs
    to (chunks of one message share it), the text the indexes see of it, and when the
    catalog stored it (its insertion order)."""

    id: str
    message: str
    text: str
    stored: int = 0


def tail(text: str, chars: int) -> str:
    """The last ``chars`` characters of ``text``, starting at a word (a cut word would
    index as a different word)."""
    text = text.strip()
    if len(text) <= chars:
        return text
    cut = text[-chars:]
    space = _FIRST_SPACE.search(cut)
    return cut[space.end() :].lstrip() if space and text[-chars - 1].strip() else cut


def earlier_turns(order: Sequence[TurnText], index: int, turns: int) -> list[str]:
    """The texts of up to ``turns`` messages before ``order[index]``'s message, oldest
    first; a message split into chunks is one turn, its chunks joined.

    Only turns stored before it count: then a turn's context is the same whenever it is
    indexed (at ingest, or later by a rebuild, a repair or a rerun after a crash), even
    when a later file adds turns to the same conversation."""
    own = order[index].message
    stored = order[index].stored
    found: list[list[str]] = []
    current: str | None = None
    for position in range(index - 1, -1, -1):
        item = order[position]
        if item.message == own or item.stored > stored:
            continue  # an earlier chunk of the same message, or stored after it
        if item.message != current:
            if len(found) == turns:
                break
            found.append([])
            current = item.message
        found[-1].append(item.text)
    return ["\n".join(reversed(chunks)) for chunks in reversed(found)]


def _title_line(fragment: Fragment) -> str:
    """The conversation's title as a context line, or empty when there is none or the
    turn's text already starts with it (an abstract stored as "title + text")."""
    title = (fragment.title or "").strip()
    if not title or fragment.searchable_text.lstrip().startswith(title):
        return ""
    return title


def with_context(
    fragments: Iterable[Fragment],
    conversations: Mapping[str, Sequence[TurnText]],
    context: TurnContext,
) -> list[Fragment]:
    """``fragments`` with ``index_text`` set to their conversation's title (with
    ``context.titles``, unless the text starts with it), their earlier turns (the end of
    each) and their own text, :data:`OWN_TEXT_REPEATS` times.

    ``conversations`` maps a conversation id to its dialogue fragments in order (the
    catalog's order). The first turn of a conversation has no context but its own text
    is repeated all the same, so that every turn's words weigh the same. Fragments that
    are not turns, or are not in ``conversations``, come back unchanged.
    """
    out = list(fragments)
    if not context.enabled:
        return out
    positions: dict[str, dict[str, int]] = {}
    for n, fragment in enumerate(out):
        order = conversations.get(fragment.conversation_id)
        if not order or not is_turn(fragment):
            continue
        where = positions.get(fragment.conversation_id)
        if where is None:
            where = positions[fragment.conversation_id] = {t.id: i for i, t in enumerate(order)}
        index = where.get(fragment.id)
        if index is None:
            continue
        before = [tail(text, context.chars) for text in earlier_turns(order, index, context.turns)]
        own = [fragment.searchable_text] * OWN_TEXT_REPEATS
        title = _title_line(fragment) if context.titles else ""
        out[n] = replace(fragment, index_text="\n".join([t for t in (title, *before) if t] + own))
    return out
