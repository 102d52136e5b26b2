"""``memex serve`` follows the catalog: its keyword index takes in what other processes and
replicas write, within a bounded lag, and says when it is behind.

A background thread wakes when the catalog says something changed (PostgreSQL's
``LISTEN memex_changes``, when the catalog offers a listener) or every
``[serve] follow_interval`` seconds (default 0.5; the only way on SQLite), replays the
change journal into the keyword index in memory under the server's call lock
(:meth:`~memex_core.services.indexing.KeywordSync.follow`), and now and then flushes the
index to disk under the home's write lock (every ``flush_changes`` entries or
``flush_interval`` seconds), which also records this replica's place in the journal.

A long journal (another host ingested a big export, this replica was paused) is replayed
``[serve] replay_chunk`` entries (default 2,000) per hold of the call lock, letting go of
it between chunks, so searches are answered meanwhile instead of waiting for the whole
catch-up.

Every tick that reaches the journal's head, even one with nothing to replay, marks the
replica as caught up, so the lag a search sees (:meth:`Follower.lag`) is at most how long
ago the follower last reached the head: a follower that stopped, cannot keep up or is
still replaying a backlog shows a growing lag, and past ``[serve] max_lag_s`` (default
5 s) searches answer 503 ``replica_behind`` instead of stale results
(:func:`memex_server.state.ServerState.fresh_call`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memex_core.errors import MemexError
from memex_core.services.indexing import REPLAY_CHUNK

if TYPE_CHECKING:
    from memex_core.api import Memex
    from memex_core.services.indexing import KeywordLag

log = logging.getLogger("memex_server.follower")

DEFAULT_FOLLOW_INTERVAL_S = 0.5
DEFAULT_MAX_LAG_S = 5.0
DEFAULT_FLUSH_CHANGES = 1000
DEFAULT_FLUSH_INTERVAL_S = 30.0
#: After a failed tick (catalog unreachable), wait this long, doubling up to the maximum.
_RETRY_S, _RETRY_MAX_S = 0.5, 5.0
#: Pause between two chunks of a backlog, the call lock free. Python's locks are not fair:
#: a thread that lets go and takes the lock again at once nearly always wins over the
#: threads waiting for it, so without a pause no search would get in between.
_CHUNK_PAUSE_S = 0.002


class ChangeListener(Protocol):
    """Wakes a follower when the catalog journals a change (``memex_postgres.follow``)."""

    def wait(self, timeout: float) -> bool:
        """Block until a change is announced (True) or ``timeout`` seconds pass (False)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class FollowSettings:
    """The ``[serve]`` table of config.toml, as far as following goes."""

    follow_interval: float = DEFAULT_FOLLOW_INTERVAL_S
    max_lag_s: float = DEFAULT_MAX_LAG_S
    flush_changes: int = DEFAULT_FLUSH_CHANGES
    flush_interval: float = DEFAULT_FLUSH_INTERVAL_S
    replay_chunk: int = REPLAY_CHUNK

    @classmethod
    def from_table(cls, table: Mapping[str, Any], config_path: Path | str) -> FollowSettings:
        def number(key: str, default: float, minimum: float) -> float:
            raw = table.get(key, default)
            ok = isinstance(raw, int | float) and not isinstance(raw, bool) and raw >= minimum
            if not ok:
                raise MemexError(
                    f"[serve] {key} = {raw!r} in {config_path} is not a number of at least "
                    f"{minimum:g}. {_MEANING[key]} Default: {default:g}."
                )
            return float(raw)

        return cls(
            follow_interval=number("follow_interval", DEFAULT_FOLLOW_INTERVAL_S, 0.01),
            max_lag_s=number("max_lag_s", DEFAULT_MAX_LAG_S, 0.0),
            flush_changes=int(number("flush_changes", DEFAULT_FLUSH_CHANGES, 1)),
            flush_interval=number("flush_interval", DEFAULT_FLUSH_INTERVAL_S, 0.1),
            replay_chunk=int(number("replay_chunk", REPLAY_CHUNK, 1)),
        )


_MEANING = {
    "follow_interval": "It is how often, in seconds, the server checks the catalog for "
    "changes other processes made (PostgreSQL also wakes it at once).",
    "max_lag_s": "It is how far behind the catalog, in seconds, the server may be before its "
    "searches answer 503 replica_behind instead of possibly stale results.",
    "flush_changes": "It is how many replayed changes the server keeps in memory before it "
    "writes its keyword index to disk.",
    "flush_interval": "It is how often, in seconds, the server writes replayed changes of "
    "its keyword index to disk (and tells the catalog how far it got).",
    "replay_chunk": "It is how many catalog changes the server replays into its keyword "
    "index at a time before letting waiting searches in.",
}


class Follower:
    """Keeps one server's keyword index following the catalog (see the module's doc)."""

    def __init__(
        self,
        memex: Memex,
        settings: FollowSettings | None = None,
        listener: Callable[[], ChangeListener | None] | None = None,
    ) -> None:
        self.memex = memex
        self.settings = settings or FollowSettings()
        self._listener_factory = listener or (lambda: _catalog_listener(memex))
        self._listener: ChangeListener | None = None
        self._stop = threading.Event()
        self._running = threading.Event()  # cleared: paused (tests, maintenance)
        self._running.set()
        # Held across "not paused? then replay": pause() takes it, so no replay that began
        # before pause() returned can take in a change written after it.
        self._replaying = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last_flush = time.monotonic()
        self.error: str | None = None  # why the last tick failed, until one succeeds
        self.ticks = 0

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Follower:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memex-follower", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()

    def pause(self) -> None:
        """Stop replaying (the lag then grows, as with a follower that broke). Returns once
        a replay in progress has ended: nothing written after this returns is replayed
        until :meth:`resume`."""
        with self._replaying:
            self._running.clear()

    def resume(self) -> None:
        self._running.set()

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- what searches ask -----------------------------------------------------------------

    def lag(self) -> KeywordLag:
        """How far the keyword index is behind the catalog now. Hold the call lock."""
        return self.memex.keyword_sync.lag()

    # -- the loop --------------------------------------------------------------------------

    def _run(self) -> None:
        retry = _RETRY_S
        while not self._stop.is_set():
            self._wait()
            if self._stop.is_set():
                return
            try:
                with self._replaying:
                    if not self._running.is_set():
                        continue
                    self.tick()
            except Exception as exc:  # the catalog down, a disk full: retry, say it once
                message = f"{type(exc).__name__}: {exc}"
                if message != self.error:
                    log.warning("memex serve: cannot follow the catalog (%s); retrying", message)
                self.error = message
                self._stop.wait(retry)
                retry = min(retry * 2, _RETRY_MAX_S)
            else:
                if self.error is not None:
                    log.warning("memex serve: following the catalog again")
                self.error = None
                retry = _RETRY_S

    def _wait(self) -> None:
        """Until the catalog announces a change or ``follow_interval`` passes."""
        interval = self.settings.follow_interval
        if self._listener is None:
            try:
                self._listener = self._listener_factory()
            except Exception as exc:  # polling works without it; try again later
                log.debug("no change listener: %s", exc)
        listener = self._listener
        if listener is None:
            self._stop.wait(interval)
            return
        try:
            listener.wait(interval)
        except Exception as exc:  # its connection broke (a restart): poll, reconnect later
            log.debug("change listener failed: %s", exc)
            self._listener = None
            listener.close()
            self._stop.wait(interval)

    def tick(self) -> None:
        """One round: take in what changed, a chunk per hold of the call lock, and flush
        when due."""
        mx = self.memex
        catalog = mx.catalog
        if catalog.shared:
            # Its connections are thread-safe: ask outside the call lock, so that a catalog
            # that does not answer (a server restarting) holds up no request meanwhile.
            catalog.last_fragment_change()
        if self._idle():
            self.ticks += 1
            return
        while True:
            with mx.call_lock:
                sync = mx.keyword_sync
                sync.refresh()  # another process on this home flushed a newer index
                sync.follow(self.settings.replay_chunk)
                if not sync.behind:
                    self.ticks += 1
                    self._flush_if_due(caught_up=True)
                    return
                # Halfway through a backlog: flush only by time, so that a long catch-up
                # cut short (a restart) keeps most of what it replayed; flushing the whole
                # index after every chunk would cost more than the replay.
                self._flush_if_due(caught_up=False)
            # The call lock is free here: waiting searches and writes go first.
            if self._stop.wait(_CHUNK_PAUSE_S) or not self._running.is_set():
                return

    def _idle(self) -> bool:
        """Whether this round has nothing to load, replay or flush, asked under a shared
        hold of the call lock: holding it alone waits for every search in flight and
        holds up the ones that arrive, which twice a second for nothing would cost."""
        from memex_core.threads import reading

        mx = self.memex
        with reading(mx):
            sync = mx.keyword_sync
            changed = getattr(sync.keyword, "changed_on_disk", None)
            return not (
                sync.seen is None
                or sync.behind
                or (callable(changed) and changed())
                or mx.catalog.last_fragment_change() > sync.seen
                or self._flush_due(caught_up=True)
            )

    def _flush_due(self, *, caught_up: bool) -> bool:
        sync = self.memex.keyword_sync
        return (caught_up and sync.unflushed >= self.settings.flush_changes) or (
            time.monotonic() - self._last_flush >= self.settings.flush_interval
        )

    def _flush_if_due(self, *, caught_up: bool) -> None:
        """Flush the index (every ``flush_changes`` entries, or ``flush_interval``
        seconds) if the home's write lock is free. Hold the call lock."""
        mx = self.memex
        sync = mx.keyword_sync
        now = time.monotonic()
        if not self._flush_due(caught_up=caught_up):
            return
        # Never waits: a writer holding the home's lock flushes this index itself.
        if not mx.lock.try_acquire():
            return
        try:
            if sync.unflushed:
                sync.keyword.flush()
            # Also when nothing changed: tells a shared catalog this replica is alive.
            sync.flushed()
        finally:
            mx.lock.release()
        self._last_flush = now

    def flush_now(self) -> None:
        """Flush what this process applied in memory (on shutdown); never waits for the
        home's lock, and a failure only leaves it to be replayed from the journal."""
        mx = self.memex
        try:
            with mx.call_lock:
                sync = mx.keyword_sync
                if not sync.unflushed or not mx.lock.try_acquire():
                    return
                try:
                    sync.keyword.flush()
                    sync.flushed()
                finally:
                    mx.lock.release()
        except Exception as exc:  # the catalog or disk gone at exit: the journal has it all
            log.warning("memex serve: keyword index not flushed at exit (%s)", exc)


def _catalog_listener(memex: Memex) -> ChangeListener | None:
    """The catalog's change listener, when its engine announces changes (PostgreSQL)."""
    make = getattr(memex.catalog, "change_listener", None)
    return make() if callable(make) else None
