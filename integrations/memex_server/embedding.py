"""Query embeddings for concurrent searches: made before memex's call lock, several at once.

Every call into memex runs under its call lock (:mod:`memex_core.threads`: searches share
it, as many at a time as there are cores), and embedding a query with MiniLM is most of a
hybrid search (about 18 of 32 ms of CPU at 100,000 fragments on this project's 2-core
machine). So a search route first has its query embedded *outside* the lock
(:meth:`QueryEmbeddings.prepared`), where the queries of concurrent requests can be
embedded together:

* whoever finds a free slot embeds every query waiting, in one call of the embedder's
  optional ``embed_queries(texts)`` (MiniLM, measured per query through numpy, 1: 21 ms
  of CPU, 4 together: 12 ms, 8: 11 ms); an embedder without ``embed_queries`` embeds the
  waiting queries one by one, still outside the lock;
* at start, :meth:`QueryEmbeddings.warm` calls the embedder's optional ``warm_queries()``
  on a background thread (``memex serve`` waits for it before it listens): this process
  lives long, so MiniLM loads its ONNX Runtime query session, which embeds one query for
  ~13 ms of CPU instead of numpy's ~20 (a single-client hybrid search over SciFact: 20.6
  ms of CPU instead of 29.8), and batches for about what numpy's stacked pass costs, while
  holding the GIL for none of it (see ``memex_minilm.embedder.MiniLMEmbedder.
  embed_queries``);
* there are half as many slots as cores (at least one), so that queries wait for a slot
  and form batches while searches use the other cores: with 8 clients on 2 cores, one
  slot made batches of 3.3 queries on average and cost 30 ms of CPU per search against
  two slots' 1.3 queries and 40 ms (44 against 35 searches/s, in-process stand-in of the
  server, rounds interleaved);
* the vector is handed to memex through :class:`PreparedEmbedder`, installed over memex's
  own embedder, which answers ``embed_query(text)`` with the vector prepared for that text
  by the calling thread, and embeds as before anything else (a query the time phrases
  rewrote differently, a write's duplicate check).

The search itself is unchanged: same code, same vector up to float32 rounding (in a batch,
or through ONNX Runtime rather than numpy, MiniLM's vectors differ from a cold process's
by at most ~2e-7, see the service benchmark for the effect on results).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

#: Queries embedded in one forward pass at most.
MAX_BATCH = 16

_prepared = threading.local()


class PreparedEmbedder:
    """memex's embedder, answering ``embed_query`` from vectors this thread prepared."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.dimension: int = inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        ready: dict[str, Any] | None = getattr(_prepared, "vectors", None)
        if ready is not None and text in ready:
            return ready[text]
        return self.inner.embed_query(text)

    def __getattr__(self, name: str) -> Any:  # optional methods of the embedder
        return getattr(self.inner, name)


class _Job:
    __slots__ = ("done", "error", "text", "vector", "wake")

    def __init__(self, text: str) -> None:
        self.text = text
        self.vector: Any = None
        self.error: BaseException | None = None
        self.done = False
        #: Set when the job is done, or when its thread is handed a slot to run a batch.
        self.wake = threading.Event()


class QueryEmbeddings:
    """Embeds queries for request threads, batching those that wait at the same time."""

    def __init__(self, embedder: Any, *, slots: int | None = None, max_batch: int = MAX_BATCH):
        self.embedder = embedder
        self.slots = slots or max(1, _cores() // 2)
        self.max_batch = max_batch
        self._batch: Callable[[list[str]], Sequence[Any]] | None = getattr(
            embedder, "embed_queries", None
        )
        self._lock = threading.Lock()
        self._waiting: list[_Job] = []
        self._running = 0
        self.batches = 0  # forward passes so far, and the queries they embedded
        self.embedded = 0
        self._warmed = threading.Event()
        #: Why the warm-up failed, if it did (searches meet the failure again and report it).
        self.warm_error: BaseException | None = None

    def warm(self) -> None:
        """Start the embedder's optional ``warm_queries()`` on a background thread: this
        process lives long, so what embeds queries may load now, and the first search need
        not pay for it. :meth:`engine` waits for it."""
        warm_queries = getattr(self.embedder, "warm_queries", None)
        if warm_queries is None:
            self._warmed.set()
            return

        def run() -> None:
            try:
                warm_queries()
            except Exception as exc:
                self.warm_error = exc
            finally:
                self._warmed.set()

        threading.Thread(target=run, name="memex-warm-queries", daemon=True).start()

    def engine(self, timeout: float | None = None) -> str:
        """What embeds queries, once the warm-up is done (waiting up to ``timeout``):
        the embedder's ``query_engine`` ("onnx-fp32/cpu", "numpy/cpu") or its name."""
        self._warmed.wait(timeout)
        if self.warm_error is not None:
            return f"unavailable ({type(self.warm_error).__name__}: {self.warm_error})"
        engine = getattr(self.embedder, "query_engine", None)
        return str(engine) if engine is not None else str(self.embedder.name)

    def embed(self, text: str) -> Any:
        """``embed_query(text)``, batched with the other threads' waiting queries.

        A thread that finds a free slot runs a batch of everything waiting, then hands the
        slot to the oldest job still waiting (waking that one thread, not every waiter:
        with a dozen request threads, waking all to find the slot taken costs a GIL
        hand-off each)."""
        job = _Job(text)
        with self._lock:
            self._waiting.append(job)
            leading = self._running < self.slots
            if leading:
                self._running += 1
        while not job.done:
            if not leading:
                job.wake.wait()
                if job.done:
                    break
                # Handed a slot: this job is the oldest waiting, so its batch holds it.
            with self._lock:
                batch = self._waiting[: self.max_batch]
                del self._waiting[: len(batch)]
            self._run(batch)
            with self._lock:
                if self._waiting:
                    self._waiting[0].wake.set()  # the slot passes on, still counted
                else:
                    self._running -= 1
            leading = False
        if job.error is not None:
            raise job.error
        return job.vector

    def _run(self, batch: list[_Job]) -> None:
        try:
            texts = [job.text for job in batch]
            if self._batch is not None and len(texts) > 1:
                vectors = list(self._batch(texts))
            else:
                vectors = [self.embedder.embed_query(t) for t in texts]
            for job, vector in zip(batch, vectors, strict=True):
                job.vector = vector
        except BaseException as exc:  # every waiting request learns of it
            for job in batch:
                job.error = exc
        finally:
            for job in batch:
                job.done = True
                job.wake.set()
            self.batches += 1
            self.embedded += len(batch)

    @contextmanager
    def prepared(self, texts: Sequence[str]) -> Iterator[None]:
        """Within the block, memex's ``embed_query`` on this thread finds ``texts`` embedded.

        Best effort: if embedding fails here, memex embeds under its lock as before and
        reports the failure the way it always does."""
        vectors: dict[str, Any] = {}
        for text in dict.fromkeys(texts):
            try:
                vectors[text] = self.embed(text)
            except Exception:
                break
        _prepared.vectors = vectors
        try:
            yield
        finally:
            _prepared.vectors = None


def _cores() -> int:
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def search_text(query: str, *, time_phrases: bool, time_filtered: bool) -> str:
    """The text ``Memex.search`` embeds for ``query``: without its time phrase when it reads
    one as a filter (see :meth:`memex_core.api.Memex.search`)."""
    if time_phrases and not time_filtered:
        from memex_core.query_time_phrases import extract_time_phrase

        phrase = extract_time_phrase(query)
        if phrase is not None and phrase.query.strip():
            return phrase.query
    return query
