"""The bodies the routes take. Unknown fields are refused (422), so a misspelt filter or a
``user_id`` sent to an agent route fails loudly instead of being ignored."""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator
from pydantic_core import PydanticCustomError

from memex_core.domain.memory.timestamps import InvalidMoment, to_epoch
from memex_core.domain.search_options import SearchOptions

#: The names a request shares with :class:`SearchOptions` (query, mode, limit, filters, ...).
_OPTION_NAMES = frozenset(SearchOptions.__dataclass_fields__)

Mode = Literal["hybrid", "keyword", "semantic"]
TimeBound = str | float | None
Texts = str | list[str] | None

MAX_LIMIT = 1000
MAX_IDS = 1000


def _refuse_surrogates(value: Any) -> None:
    """JSON's ``\\ud800`` escapes decode to lone surrogates, which no UTF-8 text holds: the
    request is refused (422) instead of failing later when a response echoes it (500)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "text holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which is "
                "not Unicode text; send valid UTF-8"
            ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_surrogates(key)
            _refuse_surrogates(item)
    elif isinstance(value, list):
        for item in value:
            _refuse_surrogates(item)


class Body(BaseModel):
    # NaN and infinities (Python's JSON parser takes them) are refused like any bad number.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _unicode_only(cls, data: Any) -> Any:
        _refuse_surrogates(data)
        return data


def readable_moment(value: Any, name: str) -> Any:
    """``value`` if it is a time memory reads (``as_of``, ``at``); a bad one is refused
    (422) with the one line that says how to write it."""
    if value is not None:
        try:
            to_epoch(value, name)
        except InvalidMoment as exc:
            raise PydanticCustomError("invalid_time", str(exc)) from None
    return value


class SearchBody(Body):
    """A body that asks for a search: :meth:`search_options` is the one place a route's
    request becomes the :class:`SearchOptions` the views take."""

    def search_options(self) -> SearchOptions:
        """The search this body asks for: its fields that are search options (what it
        leaves out keeps the option's default)."""
        given = {name: getattr(self, name) for name in type(self).model_fields}
        return SearchOptions(**{k: v for k, v in given.items() if k in _OPTION_NAMES})


class ByTime(SearchBody):
    """A search that reads memory facts by time (issue 30)."""

    as_of: str | float | None = Field(
        None,
        description="Memory facts valid at this time (ISO 8601 date or time, UTC if no "
        "zone; or epoch seconds), superseded ones included; default: current facts only.",
    )
    include_superseded: bool = Field(
        False, description="Every memory fact, superseded ones too, each with its validity."
    )

    @field_validator("as_of")
    @classmethod
    def _as_of(cls, value: Any) -> Any:
        return readable_moment(value, "as_of")


class Filters(ByTime):
    source: Texts = Field(None, description="Source kind(s): chatgpt, claude_ai, obsidian, ...")
    conversation: Texts = Field(None, description="Conversation id(s).")
    role: Texts = Field(None, description="Role(s): user, assistant, tool, note, ...")
    since: TimeBound = Field(
        None, description="From this time: ISO date, epoch seconds, or a phrase like 'last week'."
    )
    until: TimeBound = Field(None, description="Up to this time (inclusive), as since.")
    tag: Texts = Field(
        None,
        description="Tag(s) of notes: a note with one of them or a tag nested under it "
        "('project' matches #project/memex).",
    )


class SearchRequest(Filters):
    query: str = Field(..., description="What to look for.")
    mode: Mode = "hybrid"
    limit: int = Field(10, ge=1, le=MAX_LIMIT)
    collection: str | None = Field(None, description="Memory collection prefix (narrows).")
    include_private: bool = False
    time_phrases: bool = Field(True, description="Read 'last week' in the query as a filter.")
    corpus: bool = Field(True, description="False: memory only, not the ingested corpus.")
    floor: Literal["auto", "off"] | float | None = Field(
        None,
        description="Relevance floor for this search: 'auto', 'off' or a cosine similarity "
        "(default: the server's [search] min_semantic_similarity).",
    )


class GetRequest(Body):
    ids: list[str] = Field(..., max_length=MAX_IDS, description="Fragment ids from a search.")


class TimelineRequest(Body):
    fragment_id: str
    before: int = Field(3, ge=0, le=200)
    after: int = Field(3, ge=0, le=200)


class ExploreRequest(Body):
    note: str = Field(..., description="A note's path, title, alias or id.")
    similar: int = Field(5, ge=0, le=100)


class ContextRequest(Filters):
    query: str
    budget_chars: int = Field(4000, ge=200, le=200_000)
    mode: Mode = "hybrid"
    collection: str | None = None
    time_phrases: bool = True
    corpus: bool = True


# -- memory ------------------------------------------------------------------------------------


class RefRequest(Body):
    ref: str = Field(..., description="A memory id (mem_...) or path (user/notes.md).")


class ListRequest(Body):
    collection: str | None = None
    include_deleted: bool = False
    kind: str | None = None
    limit: int = Field(100, ge=1, le=MAX_LIMIT)
    offset: int = Field(0, ge=0)


class MemorySearchRequest(ByTime):
    query: str
    limit: int = Field(10, ge=1, le=MAX_LIMIT)
    mode: Mode = "hybrid"
    collection: str | None = None
    include_private: bool = False
    since: float | None = None
    until: float | None = None


class Message(Body):
    role: str
    content: str
    timestamp: float | None = None


class RememberRequest(Body):
    text: str | None = Field(None, description="A fact; or give messages.")
    messages: list[Message] | None = Field(None, description="A conversation to learn from.")
    collection: str | None = None
    kind: str = "misc"
    private: bool = False
    consolidate: bool = Field(False, description="Run each fact through the consolidator.")
    at: str | float | None = Field(
        None,
        description="When the fact was said or became true (ISO 8601, UTC if no zone; or "
        "epoch seconds); default now. A fact that updates an earlier one closes it from then.",
    )

    @field_validator("at")
    @classmethod
    def _at(cls, value: Any) -> Any:
        return readable_moment(value, "at")


class WriteRequest(Body):
    path: str
    content: str
    collection: str | None = None
    private: bool = False
    reason: str = ""


class ForgetRequest(RefRequest):
    reason: str = ""


class DreamRequest(Body):
    collection: str | None = None
    dry_run: bool = False


class DreamPlanRequest(Body):
    collection: str | None = None


class DreamApplyRequest(DreamPlanRequest):
    digest: str = Field(
        ...,
        max_length=64,
        description="The digest of the plan that was reviewed (from .../dream/plan).",
    )


class CollectionsRequest(Body):
    pass


# -- operator ----------------------------------------------------------------------------------


class OperatorRefRequest(RefRequest):
    pass


@functools.cache
def operator_body(agent_body: type[Body]) -> type[Body]:
    """The body an operator sends to an agent route's twin under ``/v1/admin/memory``
    (``Operator<Name>``): the agent's fields and ``user_id``, whose memory it is (an
    agent's key fixes the user instead)."""
    return create_model(
        f"Operator{agent_body.__name__}", __base__=agent_body, user_id=(str | None, None)
    )


class RestoreRequest(RefRequest):
    revision: int = Field(..., ge=1)


class PurgeRequest(Body):
    memory_ids: list[str] = Field(default_factory=list, max_length=MAX_IDS)
    user_id: str | None = None
    confirm: str = Field(
        ...,
        description="The user_id again; or the memory id when purging one; or, for "
        "several, how many: '3 memories' when purging three.",
    )


class AccessLogRequest(Body):
    user_id: str | None = None
    actor: str | None = None
    actor_kind: Literal["agent", "operator"] | None = None
    action: str | None = None
    outcome: str | None = None
    tool_call_id: str | None = None
    since: float | None = None
    until: float | None = None
    limit: int = Field(100, ge=1, le=10_000)


class KeyCreateRequest(Body):
    user: str = Field(..., description="The user the key acts for.")
    name: str = Field(..., description="Shown in the access log as the actor.")
    collection: str = Field("", description="Bound the key to this collection and below.")
    corpus: bool = Field(True, description="May read the operator's ingested corpus.")


class KeyRevokeRequest(Body):
    key: str = Field(..., description="The key's id or name.")
