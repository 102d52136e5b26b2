"""What one running server holds: the memex home, its keys, the operator secret, and how a
checked caller becomes a view or a memory handle of the Python API."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from memex_core.operator_reader import OperatorReader
from memex_server.caller import Caller
from memex_server.embedding import PreparedEmbedder, QueryEmbeddings, search_text

if TYPE_CHECKING:
    from memex_core.agent_view import AgentView
    from memex_core.api import Memex
    from memex_core.domain.agent_keys import AgentKey
    from memex_core.handles import AgentMemory, OperatorMemory
    from memex_server.follower import Follower, FollowSettings

R = TypeVar("R")


class ServerState:
    def __init__(self, memex: Memex, admin_secret: str) -> None:
        self.memex = memex
        self.keys = memex.agent_keys()
        self.admin_secret = admin_secret
        self.started_at = time.time()
        # `memex serve` warms the query engine before it listens (QueryEmbeddings.warm);
        # an app built only for its schema or a test client starts nothing native here.
        self.queries = _query_embeddings(memex)
        # Request threads that wait for another process's write lock queue here, one at
        # a time, instead of inside the call lock where every reader would wait with them.
        self._writers = threading.Lock()
        #: What keeps the keyword index following the catalog (``memex serve`` starts
        #: one: :meth:`follow`); without one, searches catch up themselves.
        self.follower: Follower | None = None

    def follow(self, settings: FollowSettings | None = None) -> Follower:
        """Start following the catalog in the background (see :mod:`memex_server.follower`)."""
        from memex_server.follower import Follower

        if self.follower is None:
            self.follower = Follower(self.memex, settings).start()
            # On a shared catalog the follower flushes the keyword index now and then, so
            # memory writes need not. A home's own SQLite catalog keeps a flush per write:
            # there, journal entries past the index's flushed place count as drift for
            # `memex doctor` (a writer that died before its flush).
            self.memex.keyword_flush_deferred = bool(self.memex.catalog.shared)
        return self.follower

    def stop_following(self) -> None:
        follower, self.follower = self.follower, None
        if follower is not None:
            follower.stop()
            self.memex.keyword_flush_deferred = False
            follower.flush_now()  # what memory writes left in memory, on disk before exit

    def call(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
        """Run one call into memex holding its call lock: searches alongside each other,
        anything else alone (see :mod:`memex_core.threads`)."""
        with self._locked_for(fn):
            return fn(*args, **kwargs)

    def fresh_call(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
        """:meth:`call` for searches: refused with 503 ``replica_behind`` when the keyword
        index is further behind the catalog than ``[serve] max_lag_s`` allows, rather than
        answering with results that may miss what was written meanwhile."""
        with self._locked_for(fn):
            self.check_fresh()
            return fn(*args, **kwargs)

    def _locked_for(self, fn: Callable[..., Any]) -> AbstractContextManager[Any]:
        """The call lock as ``fn`` needs it: shared for a search (a method marked with
        :func:`memex_core.threads.reads`), when memex allows it; exclusive otherwise."""
        from memex_core.threads import only_reads, reading

        return reading(self.memex) if only_reads(fn) else self.memex.call_lock

    def check_fresh(self) -> None:
        """Raise ``replica_behind`` if the keyword index lags too far. Hold the call lock
        (shared will do: the keyword index's catch-up takes what it needs alone)."""
        sync = self.memex.keyword_sync
        follower = self.follower
        if follower is None:
            # Nothing follows in the background (an app built in code): catch up here.
            sync.refresh()
            sync.follow()
            return
        lag = sync.lag()
        limit = follower.settings.max_lag_s
        if lag.seconds <= limit:
            return
        from memex_server.errors import ReplicaBehind

        why = f" Its follower reports: {follower.error}." if follower.error else ""
        behind = "ever" if lag.seconds == float("inf") else f"{lag.seconds:.1f} s"
        raise ReplicaBehind(
            "replica_behind",
            f"This server's keyword index is {lag.entries:,} catalog change(s) and up to "
            f"{behind} behind the catalog, more than [serve] max_lag_s = {limit:g} s allows, "
            "so it does not answer with possibly stale results. Retry in a moment or ask "
            f"another replica; /readyz shows the lag.{why}",
            entries=lag.entries,
            seconds=lag.seconds,
        )

    def check_key(self, token: str) -> tuple[AgentKey | None, bool]:
        """The live agent key ``token`` is (None if none), and whether it is exactly a
        revoked one. May wait (for a write in progress, for the catalog): run it in a
        worker thread."""
        from memex_core.threads import reading

        with reading(self.memex):
            key = self.keys.verify(token)
            return key, key is None and self.keys.revoked(token)

    def key_at_once(self, token: str) -> AgentKey | None:
        """The live agent key ``token`` is, when that is known without waiting, so that
        the event loop can check a request's key itself instead of handing it to a worker
        thread and back (a thread-pool round trip per request, the larger part of a
        keyword search's cost over HTTP). None when it would wait or write: the catalog is
        a database server (a round trip that may hang), a write holds memex's lock or waits
        for it, the key's last use is due to be written, or the key is not a live one.
        :meth:`check_key` then tells, in a worker thread."""
        from memex_core.threads import reading_now

        with reading_now(self.memex) as held:  # (held: the catalog is open, nothing opens)
            local = held and not self.memex.catalog.shared
            key = self.keys.verify(token, touch=False) if local else None
        if key is None or self.keys.touch_due(key.id):
            return None
        return key

    def write(
        self, fn: Callable[..., R], /, *args: Any, jobs: Sequence[str] = (), **kwargs: Any
    ) -> R:
        """Run a call that writes, as :meth:`call` does, once this process holds the
        home's write lock and the job locks of ``jobs`` (``("dream",)``: on a shared
        catalog, a lock in its database that every host's dream takes).

        While another process writes (a ``memex ingest`` on the same home, an upload
        ingested apart, a dream started on another host), a write request waits for it
        *outside* the call lock, so searches and reads keep being answered; after
        ``MEMEX_LOCK_TIMEOUT`` seconds it fails with ``write_locked`` (503), naming the
        holder, as the CLI would. The call then takes the same locks again, which only
        counts deeper (they nest)."""
        from memex_core.errors import WriteLockedError

        mx = self.memex
        started = time.monotonic()
        with self._writers:
            while True:
                with mx.call_lock:  # the locks' depth counters are not thread-safe
                    taken, busy = _try_all([mx.lock, *(mx.job_lock(job) for job in jobs)])
                    if busy is None:
                        try:
                            return fn(*args, **kwargs)
                        finally:
                            for lock in reversed(taken):
                                lock.release()
                    if time.monotonic() - started >= busy.timeout:
                        raise WriteLockedError(busy.refusal())
                time.sleep(0.05)

    def prepared_query(
        self, query: str, mode: str, *, time_phrases: bool, time_filtered: bool
    ) -> AbstractContextManager[None]:
        """Embed the query a search in the block will embed, before it takes the call lock
        (see :mod:`memex_server.embedding`); nothing for keyword searches."""
        if self.queries is None or mode == "keyword" or not query.strip():
            return nullcontext()
        text = search_text(query, time_phrases=time_phrases, time_filtered=time_filtered)
        return self.queries.prepared([text])

    def reader(self, who: Caller, *, corpus: bool = True) -> AgentView | OperatorReader:
        """What ``who`` reads with: its user's view, or the whole home for the operator.
        ``corpus=False`` narrows an agent to memory; it never widens a key."""
        if who.operator:
            return OperatorReader(self.memex)
        return self.memex.view(
            who.user_id, name=who.name, collection=who.collection, corpus=who.corpus and corpus
        )

    def agent_memory(self, who: Caller) -> AgentMemory:
        assert who.user_id is not None  # auth.agent guarantees it
        if who.collection:  # a key's collection is a bound, not a default
            from memex_server.bounded import BoundAgentMemory

            return BoundAgentMemory(
                self.memex, who.user_id, name=who.name, collection=who.collection
            )
        return self.memex.agent(who.user_id, name=who.name, collection=who.collection)

    def operator_memory(self, who: Caller) -> OperatorMemory:
        return self.memex.operator(who.name)


def _try_all(locks: Sequence[Any]) -> tuple[list[Any], Any]:
    """Take each lock in order without waiting: (all of them, None), or, when one is held
    elsewhere, ([], that one) with those taken before it let go again."""
    taken: list[Any] = []
    for lock in locks:
        if not lock.try_acquire():
            for held in reversed(taken):
                held.release()
            return [], lock
        taken.append(lock)
    return taken, None


def _query_embeddings(memex: Memex) -> QueryEmbeddings | None:
    """Query embeddings outside the call lock, when searches embed queries at all: memex's
    embedder is wrapped so that it finds them (see :mod:`memex_server.embedding`)."""
    from memex_core.services.search import DEFAULT_SEMANTIC_WEIGHT

    weight = memex.config.search_setting("semantic_weight", DEFAULT_SEMANTIC_WEIGHT)
    if memex.semantic_unavailable_reason() is not None or float(weight) <= 0.0:
        return None
    try:
        with memex.call_lock:
            inner = memex.embedder
    except Exception:  # the searches meet the same failure and report it as they always do
        return None
    if isinstance(inner, PreparedEmbedder):
        inner = inner.inner
    else:
        memex.use_embedder(PreparedEmbedder(inner))  # every search reads memex.embedder
    return QueryEmbeddings(inner)
