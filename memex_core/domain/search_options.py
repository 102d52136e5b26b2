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

#: A loose time as every surface accepts it: an ISO date or time, epoch seconds, a
#: ``datetime``/``date``, or a phrase such as "last week" (read by ``parse_time_bound``).
TimeBound = str | float | int | datetime | date | None

#: Text or texts, as a filter takes them: ``"chatgpt"`` or ``["chatgpt", "claude_ai"]``.
Texts = str | Iterable[str] | None

#: The search modes, in the order the help text lists them.
MODES = ("hybrid", "keyword", "semantic")

#: The filters on what a fragment is (as opposed to where it lives or how it is ranked).
FILTER_NAMES = ("source", "conversation", "role", "since", "until")


@dataclass(frozen=True)
class SearchOptions:
    """One search, as asked.

    ``query`` is what to look for; ``mode`` is ``hybrid`` (default), ``keyword`` or
    ``semantic``; ``limit`` how many results at most. ``collection`` narrows memory to a
    collection prefix. ``source``, ``conversation``, ``role``, ``since`` and ``until`` filter
    fragments (see :func:`memex_core.make_filters`). ``include_private`` lets a user's
    private memories through. ``time_phrases`` reads "last week" in the query as a filter.
    ``floor`` overrides the relevance floor for this search: ``"auto"``, ``"off"`` or a
    cosine similarity; ``None`` keeps the home's setting.
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

    @classmethod
    def of(cls, query: str, mode: str = "hybrid", limit: int = 10, **options: Any) -> SearchOptions:
        """Options from a surface's arguments; an unknown keyword is a ``TypeError``
        naming it, as a function's own signature would raise."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"unexpected search option(s): {', '.join(unknown)}")
        return cls(query=query, mode=mode, limit=limit, **options)

    def filter_options(self) -> dict[str, Any]:
        """The fragment filters that are set, as ``make_filters`` takes them."""
        return {name: getattr(self, name) for name in FILTER_NAMES if getattr(self, name) is not None}

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
