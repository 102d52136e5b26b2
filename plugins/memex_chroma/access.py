"""Several processes on one chroma folder: one writer or many readers at a time.

chroma's embedded client (``PersistentClient``) is made for one process. Measured
with chromadb 1.5.9 on a 64-d collection that another process was filling
(``tests/core/test_concurrency.py`` keeps the safe side of this true):

- a client that stays open while another process writes answers from what it
  loaded: after the writer had finished, only 30-40% of exact-match queries found
  their own vector, and they never recovered; no error was raised;
- a client opened while another process wrote crashed its process (SIGSEGV) or made
  the *writer's* upsert fail ("Error in compaction: Failed to apply logs to the
  metadata segment", "attempt to write a readonly database");
- three processes opening the folder at once after a writer was killed mid-upsert
  once left the collection unreadable until it was rebuilt ("Failed to apply logs to
  the hnsw segment writer").

So every operation on the folder holds an ``flock`` on ``memex-access.lock`` inside
it: shared to read, exclusive to write and to open a client (opening may replay a
killed writer's log). Each write leaves a new token in the file; a process whose
client was opened under another token closes and reopens it first (about 20 ms),
so it sees what the writer stored. With both rules, readers in other processes got
every exact match right, during and after a write, in the same experiment.

A read that must open a client opens a :class:`~memex_chroma.reader.FolderReader`
when its store offers one (chroma's engine without the ``chromadb`` package, which takes
most of a cold search's time to import); a write, or a caller that wants chromadb's own
client, replaces it first, under the exclusive lock as any reopening.

A write holds the lock for one upsert call (at most chroma's batch size), so a
search waits milliseconds, never for a whole ingest. The kernel drops the lock of a
process that dies. A chroma server (``MEMEX_CHROMA_URL``) needs none of this.

chromadb shares one in-memory system among all the clients of a folder in a
process, so closing one client does not refresh the others. The client therefore
belongs to the folder's :class:`FolderAccess`, one per folder per process, which
every store on that folder uses.

Threads of one process: reads share the client (chroma's Rust ``query`` and ``get``
release the GIL, so concurrent searches use every core) under one shared ``flock``
that the first reader takes and the last one lets go; a write, or a read that must
reopen the client, waits for them and holds the folder alone.

So that a steady stream of overlapping searches never keeps another process's writer
out, a process about to wait for the exclusive ``flock`` first holds ``memex-access.intent``
exclusively; readers join a shared hold already taken only while nobody holds that
file (a non-blocking probe), otherwise they wait for the hold to be let go, and the
writer goes first. A process that does not announce itself (an older memex) still gets
a turn: a shared hold takes in new readers for :data:`SHARED_HOLD_MAX_S` at most.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from memex_core.rwlock import ReadWriteLock

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

    from memex_chroma.reader import FolderReader

    Client = ClientAPI | FolderReader

#: The lock and token file, inside the chroma folder (chroma ignores files it did not make).
LOCK_NAME = "memex-access.lock"
#: Held exclusively by a process waiting to write (see the module docstring).
INTENT_NAME = "memex-access.intent"
_TOKEN_BYTES = 64
#: How long one shared flock takes in new readers before it is let go, for writers that
#: do not announce themselves (see above).
SHARED_HOLD_MAX_S = 1.0


class FolderAccess:
    """The lock, change token and chroma client of one folder, shared in this process.

    Get it with :meth:`attach` and give it back with :meth:`detach`. Operations nest
    (an upsert asks the batch size); the outermost one takes the lock. A readers-writer
    lock orders this process's threads (``flock`` on one file description would turn one
    thread's exclusive lock into another's shared one): readers share the one shared
    ``flock``, a writer holds both alone.
    """

    _shared: ClassVar[dict[Path, FolderAccess]] = {}
    _registry = threading.Lock()

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / LOCK_NAME
        self.users = 0
        self._threads = ReadWriteLock()
        # Readers inside a shared flock right now, and when it was taken.
        self._sharing = threading.Condition()
        self._readers = 0
        self._shared_since = 0.0
        self._reading = threading.local()  # .depth: this thread's shared operations
        self._fd: int | None = None
        self._intent_fd: int | None = None
        self._client: Client | None = None
        self._token = ""
        self._depth = 0
        self._exclusive = False
        self._wrote = False
        #: Bumped whenever the client is replaced, so stores drop collections they cached.
        self.generation = 0

    @classmethod
    def attach(cls, folder: Path) -> FolderAccess:
        key = folder.expanduser().resolve()
        with cls._registry:
            access = cls._shared.get(key)
            if access is None:
                access = cls._shared[key] = cls(key)
            access.users += 1
            return access

    def detach(self) -> None:
        """One store is done; the last one closes the client and the lock file."""
        with FolderAccess._registry, self._threads:
            self.users -= 1
            if self.users > 0:
                return
            FolderAccess._shared.pop(self.folder, None)
            self._close_client()
            for fd in (self._fd, self._intent_fd):
                if fd is not None:
                    os.close(fd)
            self._fd = self._intent_fd = None

    @property
    def client(self) -> Client:
        """The client, inside :meth:`operation` only."""
        if self._client is None:
            raise RuntimeError("the chroma client is only available inside an operation")
        return self._client

    @property
    def token(self) -> str:
        """The change token the client reflects: a new one after every write to the folder,
        by any process (so what was read under one token holds while it lasts)."""
        return self._token

    @contextmanager
    def operation(
        self,
        opener: Callable[[], ClientAPI],
        *,
        write: bool,
        reader: Callable[[], Client] | None = None,
    ) -> Iterator[None]:
        """Hold the folder for one operation: shared to read, exclusive to write.

        Opens the client (exclusively) when there is none, and reopens it when another
        process wrote since it was opened. A write leaves a new token, even one that
        failed half-way, so other processes reopen rather than trust what they hold.
        Reads of several threads run at once (see the module docstring).

        ``reader`` (reads only) opens the client when one must be opened; without it, and
        for a write, a client that only reads is replaced with ``opener``'s.
        """
        reader = None if write else reader
        nested = getattr(self._reading, "depth", 0)
        if not write and (
            nested or (not self._threads.held_exclusive() and self._enter_shared(reader))
        ):
            self._reading.depth = nested + 1
            try:
                yield
            finally:
                self._reading.depth = nested
                if not nested:
                    self._leave_shared()
            return
        with self._threads:
            if self._depth:
                if write and not self._exclusive:
                    self._upgrade()
                    self._refresh(opener)  # another process may have written meanwhile
                elif write and not self._usable(None):
                    self._refresh(opener)  # a client that only reads: chromadb's own
                self._wrote = self._wrote or write
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._exclusive = write or not self._usable(reader)
            self._wrote = write
            if self._exclusive:
                self._flock_exclusive()
            else:
                self._flock(fcntl.LOCK_SH)
            self._depth = 1
            failed = False
            try:
                self._refresh(opener, reader)
                yield
            except BaseException:
                failed = True
                raise
            finally:
                self._depth = 0
                try:
                    if self._wrote:
                        self._leave_token(failed)
                finally:
                    self._flock(fcntl.LOCK_UN)

    def _usable(self, reader: Callable[[], Client] | None) -> bool:
        """Whether the open client serves an operation given ``reader`` (token aside)."""
        if self._client is None:
            return False
        return reader is not None or not getattr(self._client, "reads_only", False)

    def _enter_shared(self, reader: Callable[[], Client] | None) -> bool:
        """Join the shared hold (taking the shared flock if this is the first reader);
        False, holding nothing, when the client must be opened or reopened first."""
        while True:
            self._threads.acquire_shared()  # waits while a thread of this process writes
            try:
                with self._sharing:
                    if not self._readers:
                        self._flock(fcntl.LOCK_SH)  # waits while another process writes
                        if not self._usable(reader) or self._read_token() != self._token:
                            self._flock(fcntl.LOCK_UN)
                            self._threads.release_shared()
                            return False
                        self._shared_since = time.monotonic()
                        self._readers = 1
                        return True
                    young = time.monotonic() - self._shared_since <= SHARED_HOLD_MAX_S
                    if young and self._usable(reader) and not self._writer_waiting():
                        self._readers += 1
                        return True
            except BaseException:
                self._threads.release_shared()
                raise
            # A writer waits elsewhere (or the hold is old): let it go, then take it again.
            self._threads.release_shared()
            with self._sharing:
                while self._readers:
                    self._sharing.wait()

    def _leave_shared(self) -> None:
        try:
            with self._sharing:
                self._readers -= 1
                if not self._readers:
                    self._flock(fcntl.LOCK_UN)
                    self._sharing.notify_all()
        finally:
            self._threads.release_shared()

    def _leave_token(self, failed: bool) -> None:
        try:
            self._token = self._new_token()
        except OSError:
            # A full disk can refuse even these bytes; the operation's own error matters more.
            if not failed:
                raise

    def _refresh(
        self, opener: Callable[[], ClientAPI], reader: Callable[[], Client] | None = None
    ) -> None:
        token = self._read_token()
        if self._usable(reader) and token == self._token:
            return
        if not self._exclusive:  # not atomic: another writer may slip in, so re-read
            self._upgrade()
            token = self._read_token()
        self._close_client()
        self._client = (reader or opener)()
        self._token = token
        self.generation += 1

    def _close_client(self) -> None:
        # close() lives on chromadb's Client, not on the ClientAPI interface.
        close = getattr(self._client, "close", None)
        if close is not None:
            close()
        self._client = None

    def _writer_waiting(self) -> bool:
        """Whether another process announced it waits to write (holds the intent file).
        Asked under ``_sharing`` while this process holds the folder shared, so no thread
        of it holds the intent file meanwhile (flock on one file description is shared by
        its threads: a probe would turn a holder's exclusive lock into a shared one)."""
        fd = self._intent()
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False

    def _upgrade(self) -> None:
        """From the shared flock to the exclusive one. The shared hold is let go *before*
        announcing: a writer elsewhere holds the intent file while it waits for the shared
        holds to end, so waiting for the intent file while still holding one would leave both
        waiting for ever (flock detects no deadlock). Seen in CI as a run that hung: a reader
        refreshing its client against a writer in another process."""
        self._flock(fcntl.LOCK_UN)
        self._flock_exclusive()
        self._exclusive = True

    def _flock_exclusive(self) -> None:
        """The exclusive flock, announced (intent file held) while waiting for it, so that
        readers elsewhere stop joining their shared hold and let go."""
        fd = self._intent()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            self._flock(fcntl.LOCK_EX)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _intent(self) -> int:
        if self._intent_fd is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._intent_fd = os.open(self.folder / INTENT_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        return self._intent_fd

    def _file(self) -> int:
        if self._fd is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        return self._fd

    def _flock(self, operation: int) -> None:
        fcntl.flock(self._file(), operation)

    def _read_token(self) -> str:
        return os.pread(self._file(), _TOKEN_BYTES, 0).decode("ascii", "replace").strip()

    def _new_token(self) -> str:
        token = uuid.uuid4().hex
        fd = self._file()
        os.pwrite(fd, token.encode("ascii"), 0)
        os.ftruncate(fd, len(token))
        return token
