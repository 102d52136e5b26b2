"""Search filters: memex's own keywords, or LlamaIndex ``MetadataFilters`` on node metadata.

Both forms end up as the keyword arguments of :func:`memex_core.api.make_filters`
(``source``, ``conversation``, ``role``, ``since``, ``until``, ``tag``) and nothing else:
scope (user, collection, owners, private memory) is never a filter here, it is
fixed when the retriever is built, so a filter can narrow a search but never
widen it.

``MetadataFilters`` use the keys the retriever's nodes carry in ``metadata``:
``source_kind``, ``conversation_id`` and ``role`` (``==`` or ``in``),
``timestamp`` (``>``, ``>=``, ``<``, ``<=``, epoch seconds) and a note's ``tags``
(``contains``, ``any``, ``==`` or ``in``; a tag matches the tags nested under it), joined
with AND.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from memex_core.api import make_filters
from memex_core.errors import MemexError

#: The keyword filters memex understands (those of ``make_filters``).
FILTER_KEYS = ("source", "conversation", "role", "since", "until", "tag")

#: Node metadata key -> memex filter keyword, for equality / membership filters.
_MATCH_KEYS = {
    "source_kind": "source",
    "source": "source",
    "conversation_id": "conversation",
    "conversation": "conversation",
    "role": "role",
    "tags": "tag",
    "tag": "tag",
}
_TIME_KEY = "timestamp"
_SUPPORTED = (
    "source_kind, conversation_id and role (== or in), timestamp (>, >=, <, <=), "
    "tags (contains, any, == or in)"
)
#: The operators a list-valued key (a note's tags) also takes: one tag, or any of several.
_ONE_OF_LIST = (FilterOperator.CONTAINS,)
_ANY_OF_LIST = (FilterOperator.ANY,)

Filters = Mapping[str, Any] | MetadataFilters


def filter_options(filters: Filters | None) -> dict[str, Any]:
    """The ``make_filters`` keyword arguments for ``filters``; a :class:`MemexError` saying
    what is accepted when they cannot be expressed (never silently dropped)."""
    if filters is None:
        return {}
    if isinstance(filters, MetadataFilters):
        options = _from_metadata_filters(filters)
    elif isinstance(filters, Mapping):
        options = _from_mapping(filters)
    else:
        raise MemexError(
            f"filters must be a dict of {', '.join(FILTER_KEYS)} or LlamaIndex MetadataFilters, "
            f"not {type(filters).__name__}"
        )
    try:  # check the values now, so a bad date fails when the retriever is built
        make_filters(**options)
    except (TypeError, ValueError) as exc:
        raise MemexError(f"invalid filter value: {exc}") from exc
    return options


def _from_mapping(filters: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(str(k) for k in filters if k not in FILTER_KEYS)
    if unknown:
        raise MemexError(
            f"unknown filter {', '.join(map(repr, unknown))}: filters are "
            f"{', '.join(FILTER_KEYS)}. Scope (user, collection, corpus, private memory) is "
            "set when the retriever is built, never through filters."
        )
    return {k: v for k, v in filters.items() if v is not None}


def _from_metadata_filters(filters: MetadataFilters) -> dict[str, Any]:
    if filters.condition not in (None, FilterCondition.AND) and len(filters.filters) > 1:
        raise MemexError(
            f"memex combines metadata filters with AND only, not {filters.condition}; "
            "run one retriever per alternative instead"
        )
    options: dict[str, Any] = {}
    for item in filters.filters:
        if not isinstance(item, MetadataFilter):  # nested MetadataFilters
            raise MemexError("nested MetadataFilters are not supported: give one flat AND list")
        if item.key == _TIME_KEY:
            _time_bound(item, options)
        elif item.key in _MATCH_KEYS:
            _match(item, options)
        else:
            raise MemexError(
                f"cannot filter on metadata key {item.key!r}: memex filters on {_SUPPORTED}"
            )
    return options


def _match(item: MetadataFilter, options: dict[str, Any]) -> None:
    name = _MATCH_KEYS[item.key]
    if name in options:
        raise MemexError(f"{item.key!r} is filtered twice: give one filter (use 'in' for several)")
    listed = name == "tag"
    one = (FilterOperator.EQ, *(_ONE_OF_LIST if listed else ()))
    several = (FilterOperator.IN, *(_ANY_OF_LIST if listed else ()))
    if item.operator in one and isinstance(item.value, str):
        options[name] = item.value
    elif item.operator in several and isinstance(item.value, list):
        options[name] = [str(v) for v in item.value]
    else:
        raise MemexError(
            f"{item.key!r} {item.operator.value} {item.value!r}: memex matches {item.key} "
            "with == (one text value) or in (a list)"
        )


def _time_bound(item: MetadataFilter, options: dict[str, Any]) -> None:
    value = item.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MemexError(f"timestamp filters take epoch seconds, not {value!r}")
    bound = float(value)
    # memex's bounds are inclusive: a strict comparison moves to the next float.
    if item.operator in (FilterOperator.GT, FilterOperator.GTE):
        name = "since"
        bound = math.nextafter(bound, math.inf) if item.operator == FilterOperator.GT else bound
    elif item.operator in (FilterOperator.LT, FilterOperator.LTE):
        name = "until"
        bound = math.nextafter(bound, -math.inf) if item.operator == FilterOperator.LT else bound
    else:
        raise MemexError(f"timestamp {item.operator.value}: memex filters time with >, >=, <, <=")
    if name in options:
        raise MemexError(f"timestamp has two {name} bounds: give one")
    options[name] = bound


__all__ = ["FILTER_KEYS", "Filters", "filter_options"]
