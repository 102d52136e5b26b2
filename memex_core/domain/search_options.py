"""What a search is asked with, written once for every surface.

``Memex.search``, the agent and operator views, their memory handles, the remote client's
views, the server's request models and the CLI all take the same options in the same order:
``query, mode, limit`` and then keywords. Each surface builds a :class:`SearchOptions` from
its own arguments (a function's keywords, a JSON body, command-line options) and hands it
down, so a new option is added here and reaches every surface from one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields, replace
from datetime import date, datetime
from typing import Any

from memex_core.domain.filters import SearchFilters
from memex_core.domain.tags import normalize_tag
from memex_core.domain.time_bounds import FilterValueError, parse_time_bound

#: A loose time as every surface accepts it: an ISO date or time, epoch seconds, a
#: ``datetime``/``date``, or a phrase such as "last week" (read by ``parse_time_bound``).
TimeBound = str | float | int | datetime | date | None

#: Text or texts, as a filter takes them: ``"chatgpt"`` or ``["chatgpt", "claude_ai"]``.
Texts = str | Iterable[str] | None

#: The search modes, in the order the help text lists them.
MODES = ("hybrid", "keyword", "semantic")

#: The filters on what a fragment is (as opposed to where it lives or how it is ranked).
FILTER_NAMES = ("source", "conversation", "role", "since", "until", "tag")


@dataclass(frozen=True)
class SearchOptions:
    """One search, as asked.

    ``query`` is what to look for; ``mode`` is ``hybrid`` (default), ``keyword`` or
    ``semantic``; ``limit`` how many results at most. ``collection`` narrows memory to a
    collection prefix. ``source``, ``conversation``, ``role``, ``since`` and ``until`` filter
    fragments (see :func:`memex_core.make_filters`). ``include_private`` lets a user's
    private memories through. ``time_phrases`` reads "last week" in the query as a filter.
    ``floor`` overrides the relevance floor for this search: ``"auto"``, ``"off"`` or a
    cosine similarity; ``None`` keeps the home's setting. ``tag`` keeps notes carrying one
    of these tags or a tag nested under one (``project`` matches ``#project/memex``).
    Memory search alone reads the last two: a memory search answers with current facts;
    ``as_of`` (a date or time) with the facts valid then, ``include_superseded`` with every
    fact, superseded ones too, each with its validity.
    """

    query: str
    mode: str = "hybrid"
    limit: int = 10
    collection: str | None = None
    source: Texts = None
    conversation: Texts = None
    role: Texts = None
    since: TimeBound = None
    until: TimeBound = None
    include_private: bool = False
    time_phrases: bool = True
    floor: str | float | None = None
    tag: Texts = None
    as_of: TimeBound = None
    include_superseded: bool = False

    @classmethod
    def of(cls, query: str, mode: str = "hybrid", limit: int = 10, **options: Any) -> SearchOptions:
        """Options from a surface's arguments; an unknown keyword is a ``TypeError``
        naming it, as a function's own signature would raise."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"unexpected search option(s): {', '.join(unknown)}")
        return cls(query=query, mode=mode, limit=limit, **options)

    @classmethod
    def at_entry(
        cls, query: str | SearchOptions, mode: str = "hybrid", limit: int = 10, **options: Any
    ) -> SearchOptions:
        """What a surface's entry point builds from its arguments, once: ``query`` may be a
        whole :class:`SearchOptions` instead of a query, and then nothing else may be given
        (``mode`` and ``limit`` at their defaults, every other option left unset), so that
        one object passes through a server or the CLI without being spelt out again."""
        if isinstance(query, SearchOptions):
            given = sorted(
                name
                for name, value in options.items()
                if value != _DEFAULTS.get(name, _NOT_AN_OPTION)
            )
            if mode != "hybrid":
                given.insert(0, "mode")
            if limit != 10:
                given.insert(0, "limit")
            if given:
                raise TypeError(
                    "a search given SearchOptions takes no other options; put "
                    f"{', '.join(given)} in the SearchOptions (options.with_changes(...))"
                )
            return query
        return cls.of(query, mode, limit, **options)

    def filter_options(self) -> dict[str, Any]:
        """The fragment filters that are set, as ``make_filters`` takes them."""
        return {
            name: getattr(self, name) for name in FILTER_NAMES if getattr(self, name) is not None
        }

    def filters(self) -> SearchFilters:
        """The :class:`SearchFilters` these options ask for (collections aside: which
        collections a prefix covers is the catalog's to say)."""
        return make_filters(include_private=self.include_private, **self.filter_options())

    def with_changes(self, **changes: Any) -> SearchOptions:
        """A copy with ``changes`` applied (say, another query for a second pass)."""
        return replace(self, **changes)

    def as_dict(self, *, skip_defaults: bool = True) -> dict[str, Any]:
        """The options as a plain mapping (a JSON body, say), defaults left out unless
        ``skip_defaults`` is false; ``query`` is always there."""
        values = asdict(self)
        if not skip_defaults:
            return values
        defaults = {f.name: f.default for f in fields(self)}
        return {
            name: value
            for name, value in values.items()
            if name == "query" or value != defaults[name]
        }


#: Each option's default: a value equal to it counts as left out (``time_phrases=True``
#: given explicitly alongside a SearchOptions is not "another option").
_DEFAULTS = {f.name: f.default for f in fields(SearchOptions)}
_NOT_AN_OPTION = object()


def _as_tuple(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def make_filters(
    *,
    source: Texts = None,
    conversation: Texts = None,
    role: Texts = None,
    since: TimeBound = None,
    until: TimeBound = None,
    include_private: bool = False,
    tag: Texts = None,
) -> SearchFilters:
    """Build :class:`SearchFilters` from user-friendly values (strings or lists, loose times).

    Private memory is left out unless ``include_private``. A value of the wrong
    kind (a number for ``source``, a list holding ``None``, a time that is no
    time) raises :class:`~memex_core.domain.time_bounds.FilterValueError`, which
    is both a :class:`MemexError` and a ``ValueError``, naming the filter.
    """

    def texts(name: str, value: object) -> tuple[str, ...]:
        if isinstance(value, bytes | bytearray) or (
            value is not None and not isinstance(value, str) and not isinstance(value, Iterable)
        ):
            raise FilterValueError(
                f"the {name} filter takes text or a list of texts, not {type(value).__name__}"
            )
        items = _as_tuple(value)
        wrong = [item for item in items if not isinstance(item, str)]
        if wrong:
            raise FilterValueError(
                f"the {name} filter takes text, not {type(wrong[0]).__name__} ({wrong[0]!r:.40})"
            )
        return items

    if not isinstance(include_private, bool):
        raise FilterValueError(f"include_private is true or false, not {include_private!r:.40}")
    return SearchFilters(
        source_kinds=texts("source", source),
        conversation_ids=texts("conversation", conversation),
        roles=texts("role", role),
        since=parse_time_bound(since),
        until=parse_time_bound(until, end_of_day=True),
        include_private=include_private,
        tags=tuple(dict.fromkeys(normalize_tag(t) for t in texts("tag", tag))),
    )
