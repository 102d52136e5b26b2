"""What each index sees of a fragment, derived from the catalog alone.

Turn context (:mod:`memex_core.domain.turn_context`) makes the keyword index,
and optionally the vector index, see a conversation turn with the turns before
it. Ingest, ``add_fragments``, the keyword index's catch-up, ``memex rebuild``,
``memex backfill`` and ``memex doctor --repair`` all compute it here from the
catalog's order of the conversation, so they index the same text.

The setting an index was built with is recorded in the catalog
(``keyword_context`` and ``vector_context``) and keeps applying to that index
until ``memex rebuild`` rebuilds it with the configured one: an index never
mixes turns indexed two ways. A home indexed before turn context existed
records ``off``. While config.toml asks for something else, searches say so
(:func:`pending_changes`) and ``memex doctor`` reports it.

A turn is indexed once, with the turns before it at that moment. Conversations grow
at the end, so that is nearly always final; a turn whose earlier turn is later
replaced (a re-read transcript whose unfinished turn changed) keeps the context it
was indexed with until ``memex rebuild``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from memex_core.domain import Fragment, KeywordStore, SearchFilters, SignalHit
from memex_core.domain.turn_context import (
    LEGACY_SIGNATURE,
    IndexContext,
    TurnContext,
    TurnText,
    is_turn,
    with_context,
)

KEYWORD_CONTEXT_SETTING = "keyword_context"
VECTOR_CONTEXT_SETTING = "vector_context"


#: Positions read before a batch's first turn in a conversation, tried in turn: the first
#: covers a few earlier turns of one or two chunks each; a conversation whose window holds
#: too few messages (long messages split into many chunks) is read again further back,
#: and at last whole (None).
LOOKBACK_POSITIONS = (8, 64, None)


class TurnCatalog(Protocol):
    def turn_windows(
        self, fragment_ids: Sequence[str], lookback: int | None
    ) -> tuple[dict[str, list[TurnText]], dict[str, int]]: ...

    def count_fragments(self) -> int: ...

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...


def _recorded(catalog: TurnCatalog, key: str, configured: TurnContext) -> TurnContext:
    value = catalog.get_setting(key)
    if value is not None:
        parsed = TurnContext.from_signature(value)
        if parsed is not None:
            return parsed
    elif catalog.count_fragments() == 0:
        return configured  # nothing indexed yet: the first write records the configured one
    return TurnContext(0)  # indexed before turn context existed (or an unreadable record)


def recorded_context(catalog: TurnCatalog, configured: IndexContext) -> IndexContext:
    """The turn context each index of this home was built with (what new fragments get)."""
    return IndexContext(
        keyword=_recorded(catalog, KEYWORD_CONTEXT_SETTING, configured.keyword),
        vectors=_recorded(catalog, VECTOR_CONTEXT_SETTING, configured.vectors),
    )


def settle_context(catalog: TurnCatalog, configured: IndexContext) -> IndexContext:
    """Record what the indexes are built with, if not yet recorded. Call holding the write
    lock, before a write adds fragments (an empty home takes the configured setting)."""
    current = recorded_context(catalog, configured)
    for key, context in (
        (KEYWORD_CONTEXT_SETTING, current.keyword),
        (VECTOR_CONTEXT_SETTING, current.vectors),
    ):
        if catalog.get_setting(key) != context.signature():
            catalog.set_setting(key, context.signature())
    return current


def record_keyword_context(catalog: TurnCatalog, context: TurnContext) -> None:
    """After rebuilding the keyword index with ``context``."""
    catalog.set_setting(KEYWORD_CONTEXT_SETTING, context.signature())


def record_vector_context(catalog: TurnCatalog, context: TurnContext) -> None:
    """After clearing the vectors, before embedding everything with ``context``."""
    catalog.set_setting(VECTOR_CONTEXT_SETTING, context.signature())


def _setting(name: str, context: TurnContext) -> str:
    return f"{name}_context_turns = {context.turns}" + (
        f", context_chars = {context.chars}" if context.enabled else ""
    )


def _difference(built: str, name: str, recorded: TurnContext, configured: TurnContext) -> str:
    """What differs between how an index was built and what config.toml asks for;
    ``built`` opens the sentence ("The keyword index was built")."""
    if (recorded.turns, recorded.chars) == (configured.turns, configured.chars):
        if configured.titles:  # an index built before conversation titles were indexed
            return (
                f"{built} before conversation titles were indexed with each turn, so a "
                "search for a chat's title misses its turns."
            )
        return (
            f"{built} with conversation titles, but config.toml [index] has keyword_titles = false."
        )
    return (
        f"{built} with {_setting(name, recorded)} ({recorded.describe()}), "
        f"but config.toml [index] asks for {_setting(name, configured)}."
    )


#: Per index: the attribute of :class:`IndexContext`, how a sentence names what was built,
#: how it names the setting, and what happens until a rebuild.
_PENDING = (
    (
        "keyword",
        "The keyword index was built",
        "keyword",
        " New fragments are indexed as before until `memex rebuild` re-indexes "
        "everything with the new setting.",
    ),
    (
        "vectors",
        "The vectors were built",
        "vector",
        " New fragments are embedded as before until `memex rebuild --vectors` "
        "re-embeds everything with the new setting.",
    ),
)


def pending_changes(recorded: IndexContext, configured: IndexContext) -> list[tuple[str, str]]:
    """(index, sentence) for each index built with another turn context than configured."""
    out = []
    for index, built, name, until in _PENDING:
        was, wanted = getattr(recorded, index), getattr(configured, index)
        if was != wanted and (was.enabled or wanted.enabled):
            out.append((index, _difference(built, name, was, wanted) + until))
    return out


class IndexTexts:
    """Adds turn context to fragments on their way into an index."""

    def __init__(self, catalog: TurnCatalog, context: Callable[[], IndexContext]) -> None:
        self.catalog = catalog
        # Read at each use: what the home records can change under a long-lived process
        # (another one rebuilds), and an index must keep one setting throughout.
        self.context = context

    def _apply(self, fragments: Iterable[Fragment], context: TurnContext) -> list[Fragment]:
        batch = list(fragments)
        if not context.enabled:
            return batch
        turns = [f for f in batch if is_turn(f)]
        if not turns:
            return batch
        # Only the end of a long conversation that a batch continues is read, not all of it.
        ids = {f.id for f in turns}
        windows: dict[str, list[TurnText]] = {}
        pending = list(ids)
        for lookback in LOOKBACK_POSITIONS:
            found, starts = self.catalog.turn_windows(pending, lookback)
            windows.update(found)
            short = {
                conversation
                for conversation, start in starts.items()
                if start > 0 and not _reaches_back(found.get(conversation, []), ids, context.turns)
            }
            pending = [f.id for f in turns if f.conversation_id in short]
            if not pending:
                break
        return with_context(batch, windows, context)

    def for_keyword(self, fragments: Iterable[Fragment]) -> list[Fragment]:
        return self._apply(fragments, self.context().keyword)

    def for_vectors(self, fragments: Iterable[Fragment]) -> list[Fragment]:
        return self._apply(fragments, self.context().vectors)


def _reaches_back(window: Sequence[TurnText], ids: set[str], turns: int) -> bool:
    """Whether ``window`` holds ``turns`` messages before its first turn among ``ids``."""
    first = next((i for i, turn in enumerate(window) if turn.id in ids), None)
    if first is None:
        return True  # none of them is a turn the window holds: nothing to look back from
    own = window[first].message
    return len({turn.message for turn in window[:first] if turn.message != own}) >= turns


class ContextualKeywordStore:
    """A keyword store that indexes fragments with their turn context.

    Every other call, and any optional method of the wrapped store (``refresh``,
    ``verify``...), goes to the wrapped store unchanged.
    """

    def __init__(self, inner: KeywordStore, texts: IndexTexts) -> None:
        self.inner = inner
        self.texts = texts

    def add(self, fragments: Sequence[Fragment]) -> int:
        return self.inner.add(self.texts.for_keyword(fragments))

    def delete(self, ids: Iterable[str]) -> int:
        return self.inner.delete(ids)

    def search(self, query: str, limit: int, filters: SearchFilters) -> list[SignalHit]:
        return self.inner.search(query, limit, filters)

    def count(self) -> int:
        return self.inner.count()

    def ids(self) -> set[str]:
        return self.inner.ids()

    def flush(self) -> None:
        self.inner.flush()

    def clear(self) -> None:
        self.inner.clear()

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


__all__ = [
    "KEYWORD_CONTEXT_SETTING",
    "LEGACY_SIGNATURE",
    "VECTOR_CONTEXT_SETTING",
    "ContextualKeywordStore",
    "IndexTexts",
    "pending_changes",
    "record_keyword_context",
    "record_vector_context",
    "recorded_context",
    "settle_context",
]
