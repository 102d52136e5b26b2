"""``MemexStore``: LangGraph's long-term memory store (``BaseStore``) over memex agent memory.

>>> from langgraph.graph import StateGraph                               # doctest: +SKIP
>>> store = MemexStore(Memex("~/.memex"))                                # doctest: +SKIP
>>> store.put(("alice", "prefs"), "drink", {"likes": "tea"})             # doctest: +SKIP
>>> store.search(("alice",), query="what does she drink")                # doctest: +SKIP
>>> graph = builder.compile(store=store)                                 # doctest: +SKIP

How LangGraph's model maps onto memex's:

* A namespace is ``(user_id, *collection)``: the label at ``user_label`` (0 by
  default, so ``("alice", "prefs")``; set ``user_label=1`` for LangGraph's other
  common shape ``("memories", "alice")``) names the memex user, the others, in
  order, the collection (``("alice", "acme", "support")`` -> ``acme:support``).
  A namespace prefix searches that collection and the ones below it, exactly as
  a memex collection prefix does. Labels must be valid collection segments
  (ASCII letters, digits, ``_``, ``-``, starting with a letter or digit).
* An item is a memory file of that user at ``user/langgraph/<labels>/<key>``
  holding the value as JSON; keys other than ``[A-Za-z0-9][A-Za-z0-9_-]*`` are
  stored base32-encoded behind a ``~``. So items get memex's revisions (``put``
  writes a new one, ``delete`` is a soft delete an operator can undo), the
  access log, secret redaction (a value's secrets are stored as
  ``[REDACTED:<type>]``) and hybrid search; and they are the user's memory
  everywhere else in memex (``memex memory``, MCP, ``MemexRetriever(user=...)``).
* ``search(query=...)`` is memex's hybrid search over the items' JSON; the
  ``filter`` applies to values afterwards (``$eq``, ``$ne``, ``$gt``, ``$gte``,
  ``$lt``, ``$lte`` as in LangGraph's own stores). Without a query, items come
  newest first. ``put(index=...)`` is accepted and ignored: memex indexes every
  memory. TTLs are not supported.

A store built with ``user="alice"`` serves alice only: an operation naming
another user raises :class:`~memex_langchain.scope.ScopeError`. A store without
a user serves whichever user each namespace names; it is the application's
store (LangGraph compiles one store into a graph) and is trusted like an
operator, so never let a model choose its namespaces.

The store may also keep its items in a ``memex serve``: give it a
``memex_client.MemexClient`` instead of a ``Memex``. A client with an agent key
serves the key's user only (as ``user=`` would; naming another raises
``ScopeError``); one with the operator secret serves every user, like a store
without a user over a local home. Each put is then one HTTP request, which the
server indexes at once (the local store's batching of index updates is the
server's business).

``MemexStore(..., as_of=...)`` (or ``store.at(when)``) reads the items as they stood at a
time: each item's revision that was current then (items are memory files, revised rather
than superseded; see :mod:`memex_langchain.store_as_of`). Such a store writes nothing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memex_core.domain.memory.namespaces import SEPARATOR, InvalidCollection, validate_collection
from memex_core.domain.memory.paths import validate_user_id
from memex_core.domain.memory.records import (
    ACTIVE,
    FILE_KIND,
    USERS_PREFIX,
    MemoryRecord,
    Revision,
)
from memex_core.domain.memory.timestamps import Moment, iso_utc, to_epoch
from memex_core.errors import MemexError, UnknownIdError
from memex_core.memex_like import acting_user, identity_of, is_remote
from memex_langchain.scope import ScopeError
from memex_langchain.store_as_of import PastRevisions, revision_at, word_score

if TYPE_CHECKING:
    from memex_core.memex_like import MemexLike, MemoryLike

#: The folder under ``user/`` that holds a store's items.
FOLDER = "langgraph"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,199}")
#: Memory records read per page when listing a namespace.
_PAGE = 500


def encode_key(key: str) -> str:
    """A path segment for ``key``: the key itself when plain, else ``~`` + base32hex."""
    if not isinstance(key, str) or not key:
        raise MemexError(f"a store key must be non-empty text, not {key!r}")
    if _PLAIN_KEY.fullmatch(key):
        return key
    encoded = base64.b32hexencode(key.encode("utf-8")).decode("ascii").rstrip("=").lower()
    if len(encoded) > 250:
        raise MemexError(
            f"store key {key[:40]!r}... is too long ({len(key.encode())} bytes); keep keys "
            "under 150 bytes, or use a hash of it as the key."
        )
    return f"~{encoded}"


def decode_key(segment: str) -> str:
    if not segment.startswith("~"):
        return segment
    body = segment[1:].upper()
    return base64.b32hexdecode(body + "=" * (-len(body) % 8)).decode("utf-8")


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


class MemexStore(BaseStore):
    """LangGraph ``BaseStore`` whose items are memex memory files (see the module doc)."""

    supports_ttl = False

    def __init__(
        self,
        memex: MemexLike,
        *,
        user: str | None = None,
        user_label: int = 0,
        agent_name: str = "langgraph",
        as_of: Moment | None = None,
    ) -> None:
        if user is not None:
            validate_user_id(user)
        if user_label < 0:
            raise ValueError("user_label is the index of the user id in a namespace: 0 or more")
        self.memex = memex
        self.user = user
        self.user_label = user_label
        self.agent_name = agent_name
        self._bound: tuple[str | None] | None = None  # the user, once the memex is asked
        #: Items as they stood at this time (epoch seconds), or None: as they are now.
        self.as_of = None if as_of is None else to_epoch(as_of, "as_of")
        self._past = PastRevisions(memex)

    def at(self, when: Moment) -> MemexStore:
        """This store reading the items as they stood at ``when`` (a datetime, an ISO 8601
        date or time, or epoch seconds); it writes nothing."""
        return MemexStore(
            self.memex,
            user=self.user,
            user_label=self.user_label,
            agent_name=self.agent_name,
            as_of=when,
        )

    def _bound_user(self) -> str | None:
        """The one user this store serves: ``user``, or an agent key's user (a remote
        memex whose key fixes the user). None: every user its namespaces name."""
        if self._bound is None:
            bound = self.user
            identity = identity_of(self.memex)
            if identity is not None and identity.kind == "agent":
                bound = acting_user(self.memex, self.user, what="This MemexStore", error=ScopeError)
            self._bound = (bound,)
        return self._bound[0]

    # -- namespaces ------------------------------------------------------------------------

    def _split(self, namespace: tuple[str, ...], *, prefix: bool = False) -> tuple[str, str]:
        """(user id, collection) of a namespace; a prefix may stop right after the user."""
        labels = tuple(namespace)
        for label in labels:
            if not isinstance(label, str) or not label or "." in label:
                raise InvalidNamespaceError(
                    f"Invalid namespace {labels}: labels are non-empty strings without '.'."
                )
        if len(labels) <= self.user_label:
            what = "search prefix" if prefix else "namespace"
            example = ("...",) * self.user_label + ("<user_id>",)
            raise InvalidNamespaceError(
                f"The {what} {labels} names no user: MemexStore keeps each user's items "
                f"apart, and reads the user id from label {self.user_label} "
                f"(e.g. {example}). Put the user id there."
            )
        user = labels[self.user_label]
        try:
            validate_user_id(user)
        except MemexError as exc:
            raise InvalidNamespaceError(str(exc)) from None
        bound = self._bound_user()
        if bound is not None and user != bound:
            how = (
                "a client with a key of theirs"
                if self.user is None
                else f"a MemexStore(user={user!r}), or one without a user that serves every "
                "user its namespaces name"
            )
            raise ScopeError(
                f"This store is bound to user {bound!r} and cannot reach {user!r}'s "
                f"memory (namespace {labels}). Use {how}."
            )
        rest = labels[: self.user_label] + labels[self.user_label + 1 :]
        try:
            collection = validate_collection(SEPARATOR.join(rest))
        except InvalidCollection as exc:
            raise InvalidNamespaceError(
                f"Namespace {labels} cannot be a memex collection: {exc}"
            ) from None
        return user, collection

    def _namespace(self, user: str, collection: str) -> tuple[str, ...]:
        rest = collection.split(SEPARATOR) if collection else []
        return (*rest[: self.user_label], user, *rest[self.user_label :])

    def _memory(self, user: str) -> MemoryLike:
        view = self.memex.view(user, name=self.agent_name, corpus=False)
        assert view.memory is not None  # a view with a user has its memory handle
        return view.memory

    def _path(self, collection: str, key: str) -> str:
        folders = "/".join(collection.split(SEPARATOR)) if collection else ""
        return "/".join(p for p in ("user", FOLDER, folders, encode_key(key)) if p)

    # -- records <-> items -------------------------------------------------------------------

    def _is_item(self, record: MemoryRecord, user: str, *, any_status: bool = False) -> bool:
        return (
            record.kind == FILE_KIND
            and (any_status or record.status == ACTIVE)
            and record.owner == f"{USERS_PREFIX}{user}"
            and record.path is not None
            and record.path.startswith(f"user/{FOLDER}/")
        )

    def _item(self, record: MemoryRecord, user: str, score: float | None = None) -> SearchItem:
        return SearchItem(**self._fields(record, user), score=score)

    def _fields(
        self, record: MemoryRecord, user: str, revision: Revision | None = None
    ) -> dict[str, Any]:
        """What an item (plain or found by a search) holds for a memory file: its current
        text, or that of ``revision`` (the one current at ``as_of``)."""
        assert record.path is not None
        content = record.content if revision is None else revision.content
        try:
            value = json.loads(content)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            # Redaction or a <private> span made the stored text something else: show it.
            value = {"content": content}
        return {
            "namespace": self._namespace(user, record.collection),
            "key": decode_key(record.path.rsplit("/", 1)[1]),
            "value": value,
            "created_at": _time(record.created_at),
            "updated_at": _time(record.updated_at if revision is None else revision.created_at),
        }

    def _then(self, record: MemoryRecord, user: str) -> Revision | None:
        """The revision of a store item current at ``as_of``, or None (not there then)."""
        if not self._is_item(record, user, any_status=True):
            return None
        assert self.as_of is not None
        return revision_at(self._past.of(record.id), self.as_of)

    # -- operations ---------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; each sees the writes of those before it.

        A run of consecutive puts updates the indexes once, at its end (a memory
        write alone flushes the keyword index each time, which dominates its cost).
        """
        results: list[Result] = []
        with self.memex.call_lock:  # one caller at a time (memex_core.threads)
            for is_put, run in itertools.groupby(ops, key=lambda op: isinstance(op, PutOp)):
                if not is_put:
                    results.extend(self._run(op) for op in run)
                    continue
                with self._puts_held():
                    results.extend(self._run(op) for op in run)
        return results

    def _puts_held(self) -> contextlib.AbstractContextManager[Any]:
        """A local home's write lock and held index updates around a run of puts; nothing
        for a remote memex (each write is a request the server indexes)."""
        if is_remote(self.memex):
            return contextlib.nullcontext()
        memex: Any = self.memex  # a local Memex: its lock and index updater
        stack = contextlib.ExitStack()
        stack.enter_context(memex.lock)
        stack.enter_context(memex.memory_indexes().held())
        return stack

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # memex is synchronous (SQLite, BM25, an embedder): run the batch in a worker thread.
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"MemexStore cannot run {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        user, collection = self._split(op.namespace)
        memory = self._memory(user)
        try:
            record = memory.get(self._path(collection, op.key))
        except MemexError:  # MemoryNotFound, or a key that cannot be a path
            return None
        if self.as_of is not None:
            then = self._then(record, user)
            return None if then is None else Item(**self._fields(record, user, then))
        if not self._is_item(record, user):
            return None
        return Item(**self._fields(record, user))

    def _put(self, op: PutOp) -> None:
        if op.namespace and op.namespace[0] == "langgraph":
            raise InvalidNamespaceError('A namespace cannot start with "langgraph".')
        user, collection = self._split(op.namespace)
        if self.as_of is not None:
            raise MemexError(
                f"This MemexStore reads the items as of {iso_utc(self.as_of)} and writes "
                "nothing: put through a MemexStore without as_of."
            )
        memory = self._memory(user)
        path = self._path(collection, op.key)
        if op.value is None:
            # Deleting what is not there is not an error in LangGraph.
            with contextlib.suppress(UnknownIdError):  # MemoryNotFound, or a remote 404
                memory.forget(path, reason="deleted from the LangGraph store")
            return
        if not isinstance(op.value, Mapping):
            raise ValueError(f"a store value must be a dict, not {type(op.value).__name__}")
        content = json.dumps(dict(op.value), ensure_ascii=False, sort_keys=True, default=str)
        memory.write(path, content, collection=collection, reason="LangGraph store put")

    def _records(
        self, user: str, collection: str, *, deleted: bool = False
    ) -> Iterator[MemoryRecord]:
        memory = self._memory(user)
        offset = 0
        while True:
            page = memory.list(
                collection, kind=FILE_KIND, include_deleted=deleted, limit=_PAGE, offset=offset
            )
            yield from (r for r in page if self._is_item(r, user, any_status=deleted))
            if len(page) < _PAGE:
                return
            offset += _PAGE

    def _search(self, op: SearchOp) -> list[SearchItem]:
        user, collection = self._split(op.namespace_prefix, prefix=True)
        wanted = op.offset + op.limit
        if op.limit <= 0:
            return []
        if self.as_of is not None:
            return self._search_then(op, user, collection)[op.offset : wanted]
        if not op.query:
            records = sorted(
                self._records(user, collection), key=lambda r: (-r.updated_at, r.path or "")
            )
            items = [self._item(r, user) for r in records]
            return [i for i in items if _matches(i.value, op.filter)][op.offset : wanted]
        memory = self._memory(user)
        fetch = max(50, wanted * 4)
        while True:
            hits = memory.search(op.query, limit=fetch, collection=collection)
            found: list[SearchItem] = []
            seen: set[str] = set()
            for hit in hits:  # best first; a long value has several fragments
                if hit.memory_id in seen:
                    continue
                seen.add(hit.memory_id)
                try:
                    record = memory.get(hit.memory_id)
                except MemexError:
                    continue
                if self._is_item(record, user):
                    item = self._item(record, user, score=hit.score)
                    if _matches(item.value, op.filter):
                        found.append(item)
            if len(found) >= wanted or len(hits) < fetch:
                return found[op.offset : wanted]
            fetch *= 4

    def _search_then(self, op: SearchOp, user: str, collection: str) -> list[SearchItem]:
        """The items of the namespace as they stood at ``as_of`` that pass the filter: by
        the query's words when there is a query (memex's index holds current text only),
        else newest first, as now."""
        items: list[SearchItem] = []
        for record in self._records(user, collection, deleted=True):
            then = self._then(record, user)
            if then is None:
                continue
            score = word_score(op.query, then.content) if op.query else None
            if score == 0.0:
                continue
            item = SearchItem(**self._fields(record, user, then), score=score)
            if _matches(item.value, op.filter):
                items.append(item)
        return sorted(items, key=lambda i: (-(i.score or 0.0), -i.updated_at.timestamp(), i.key))

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        users = self._users_for(op.match_conditions or ())
        namespaces: set[tuple[str, ...]] = set()
        for user in users:
            for record in self._records(user, ""):
                namespaces.add(self._namespace(user, record.collection))
        matching = [
            ns for ns in namespaces if all(_does_match(c, ns) for c in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            matching = list({ns[: op.max_depth] for ns in matching})
        return sorted(matching)[op.offset : op.offset + op.limit]

    def _users_for(self, conditions: Iterable[MatchCondition]) -> list[str]:
        """The users a listing covers: the bound one, one a prefix names, or every user."""
        bound = self._bound_user()
        if bound is not None:
            return [bound]
        for condition in conditions:
            path = tuple(condition.path)
            if condition.match_type == "prefix" and len(path) > self.user_label:
                label = path[self.user_label]
                if label != "*":
                    try:
                        return [validate_user_id(label)]
                    except MemexError:
                        return []
        if is_remote(self.memex):
            owners = self._remote_owners()
        else:
            owners = self.memex.catalog.memory_owners()  # type: ignore[attr-defined]
        return [o[len(USERS_PREFIX) :] for o in owners if o.startswith(USERS_PREFIX)]

    def _remote_owners(self) -> list[str]:
        """Every owner of a store item in a ``memex serve``: needs the operator secret."""
        operator = getattr(self.memex, "operator", None)
        identity = identity_of(self.memex)
        if operator is None or identity is None or identity.kind != "operator":
            raise ScopeError(
                "Listing namespaces across users needs the operator: give this MemexStore a "
                "client with admin_secret=..., or a prefix that names the user."
            )
        memory = operator()
        owners: set[str] = set()
        offset = 0
        while True:
            page = memory.list(kind=FILE_KIND, limit=_PAGE, offset=offset)
            # The operator sees storage paths: users/<user>/langgraph/...
            owners.update(
                r.owner
                for r in page
                if r.path is not None and r.path.startswith(f"{r.owner}/{FOLDER}/")
            )
            if len(page) < _PAGE:
                return sorted(owners)
            offset += _PAGE


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's prefix/suffix matching, with ``*`` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(p == "*" or n == p for n, p in pairs)


def _matches(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """Whether ``value`` passes a LangGraph filter (exact values and ``$``-operators)."""
    return not conditions or all(_compare(value.get(k), v) for k, v in conditions.items())


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(actual, op, operand) for op, operand in wanted.items())
        return isinstance(actual, Mapping) and all(
            _compare(actual.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _operator(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(actual == operand)
    if operator == "$ne":
        return bool(actual != operand)
    comparisons = {
        "$gt": lambda a, b: a > b,
        "$gte": lambda a, b: a >= b,
        "$lt": lambda a, b: a < b,
        "$lte": lambda a, b: a <= b,
    }
    if operator not in comparisons:
        raise ValueError(
            f"Unsupported filter operator {operator!r}: use $eq, $ne, $gt, $gte, $lt, $lte"
        )
    try:
        return bool(comparisons[operator](float(actual), float(operand)))
    except (TypeError, ValueError):
        return False  # a missing or non-numeric value never passes a comparison
