"""Persistence of the bm25 store: round trips, atomic flushes, readers in other instances."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memex_bm25 import storage
from memex_bm25.errors import IndexUnreadableError
from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import Fragment, Provenance, SearchFilters, SignalHit

NO_FILTERS = SearchFilters()
WORDS = [f"word{i}" for i in range(60)]
QUERIES = ["word1", "word2 word3", "word5 word5 word40", "word59 word0", "missing"]


def fragment(doc_id: str, text: str, ts: float | None = None) -> Fragment:
    return Fragment(
        id=doc_id,
        conversation_id=f"conv-{doc_id[-1]}",
        role="assistant" if doc_id.endswith(("1", "3")) else "user",
        content=text,
        provenance=Provenance("claude_ai", "conversations.json", doc_id, doc_id),
        timestamp=ts,
    )


def corpus(n: int, seed: int = 0, prefix: str = "d") -> list[Fragment]:
    rng = np.random.default_rng(seed)
    return [
        fragment(
            f"{prefix}{i}",
            " ".join(rng.choice(WORDS[: 10 + i % 50], size=rng.integers(1, 20))),
            ts=None if i % 7 == 0 else 1_700_000_000.0 + i,
        )
        for i in range(n)
    ]


def results(store: BM25Store) -> list[list[SignalHit]]:
    filters = [NO_FILTERS, SearchFilters(roles=("user",), since=1_700_000_050.0)]
    return [store.search(q, 20, f) for q in QUERIES for f in filters]


def assert_same_results(a: list[list[SignalHit]], b: list[list[SignalHit]]) -> None:
    assert [[hit.id for hit in hits] for hits in a] == [[hit.id for hit in hits] for hits in b]
    for hits_a, hits_b in zip(a, b, strict=True):
        assert np.allclose([h.score for h in hits_a], [h.score for h in hits_b], rtol=1e-12)


def test_round_trip_keeps_documents_scores_and_filters(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(300))
    store.flush()
    store.add(corpus(40, seed=1, prefix="e"))  # lands in the delta segment
    store.delete(["d3", "d10", "e2"])
    store.flush()
    before = results(store)
    reopened = BM25Store(root)
    assert reopened.count() == store.count() == 337
    assert reopened.ids() == store.ids()
    assert reopened.stats() == store.stats()
    assert_same_results(results(reopened), before)


def test_unflushed_changes_are_not_on_disk(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(50))
    store.flush()
    flushed = results(store)
    store.add(corpus(10, seed=2, prefix="late"))
    store.delete(["d1"])
    reopened = BM25Store(root)
    assert reopened.count() == 50
    assert_same_results(results(reopened), flushed)


def test_files_are_plain_numpy_and_json(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(120))
    store.flush()
    store.add(corpus(5, seed=3, prefix="x"))
    store.flush()
    manifest = json.loads((root / "manifest.json").read_text())
    folders = {p.name for p in root.iterdir() if p.is_dir()}
    assert {manifest["base"], manifest["delta"]} <= folders
    assert all(name.startswith(("base-", "delta-")) for name in folders)
    assert {p.name for p in root.iterdir() if not p.is_dir()} == {"manifest.json"}
    for folder in folders:
        for path in (root / folder).iterdir():
            assert path.suffix in (".npy", ".json"), path
            if path.suffix == ".npy":
                np.load(path, allow_pickle=False)  # raises if anything needed pickle
            else:
                json.loads(path.read_text(encoding="utf-8"))


def test_crash_before_manifest_switch_keeps_old_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(100))
    store.flush()
    old = results(store)

    store.add(corpus(100, seed=5, prefix="new"))  # big enough to merge into a new base
    store.delete(["d5"])

    def crash(src: object, dst: object) -> None:
        raise OSError("simulated crash while switching the manifest")

    monkeypatch.setattr(storage.os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        store.flush()
    monkeypatch.undo()

    reader = BM25Store(root)
    assert reader.count() == 100
    assert_same_results(results(reader), old)

    # The writer still holds its changes and can flush them; leftovers are cleaned up.
    expected = results(store)
    store.flush()
    after = BM25Store(root)
    assert after.count() == 199
    assert_same_results(results(after), expected)
    manifest = json.loads((root / "manifest.json").read_text())
    leftovers = {p.name for p in root.iterdir()} - {"manifest.json"}
    # At most the previous generation survives, for readers that were opening it.
    assert {manifest["base"], manifest["delta"]} <= leftovers
    assert not [name for name in leftovers if name.startswith((".tmp-", ".manifest-"))]


def test_crash_while_writing_arrays_keeps_old_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(80))
    store.flush()
    old = results(store)
    store.add(corpus(30, seed=9, prefix="n"))

    real_save = storage.save_array
    calls = {"n": 0}

    def failing_save(directory: Path, name: str, array: np.ndarray) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        real_save(directory, name, array)

    monkeypatch.setattr(storage, "save_array", failing_save)
    with pytest.raises(OSError, match="disk full"):
        store.flush()
    monkeypatch.undo()
    assert not [p for p in root.iterdir() if p.name.startswith(".tmp-")]
    reader = BM25Store(root)
    assert reader.count() == 80
    assert_same_results(results(reader), old)


def test_reader_picks_up_a_newer_generation(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    writer = BM25Store(root)
    writer.add(corpus(60))
    writer.flush()
    reader = BM25Store(root)
    assert reader.count() == 60
    writer.add([fragment("fresh", "unmistakable")])
    assert reader.search("unmistakable", 5, NO_FILTERS) == []  # not flushed yet
    writer.flush()
    assert [hit.id for hit in reader.search("unmistakable", 5, NO_FILTERS)] == ["fresh"]
    assert reader.count() == 61


def test_reader_retries_when_the_generation_it_read_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bm25"
    writer = BM25Store(root)
    writer.add(corpus(40))
    writer.flush()
    stale = storage.read_manifest(root)
    writer.add(corpus(40, seed=4, prefix="more"))
    writer.flush()
    current = storage.read_manifest(root)
    assert stale is not None and current is not None
    assert stale["delta"] != current["delta"]
    shutil.rmtree(root / stale["delta"])  # a writer collected it after the reader read

    # The reader's first look at the manifest is the stale one; it must retry.
    looks = iter([stale])
    real_read = storage.read_manifest
    monkeypatch.setattr(storage, "read_manifest", lambda path: next(looks, None) or real_read(path))
    assert BM25Store(root).count() == 80


def test_damaged_manifest_asks_for_rebuild_and_clear_recovers(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(20))
    store.flush()
    (root / "manifest.json").write_text("{ not json")
    broken = BM25Store(root)
    with pytest.raises(IndexUnreadableError, match="memex rebuild"):
        broken.search("word1", 5, NO_FILTERS)
    with pytest.raises(IndexUnreadableError, match=str(root)):
        broken.count()
    broken.clear()
    broken.add(corpus(5))
    broken.flush()
    assert BM25Store(root).count() == 5


def test_missing_segment_folder_asks_for_rebuild(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(20))
    store.flush()
    manifest = json.loads((root / "manifest.json").read_text())
    os.rename(root / manifest["base"], root / "moved-away")
    with pytest.raises(IndexUnreadableError, match="memex rebuild"):
        BM25Store(root).count()


def test_clear_is_persisted_by_flush(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root)
    store.add(corpus(30))
    store.flush()
    store.clear()
    assert store.count() == 0
    assert BM25Store(root).count() == 30  # not yet flushed
    store.add(corpus(3, prefix="z"))
    store.flush()
    reopened = BM25Store(root)
    assert reopened.ids() == {"z0", "z1", "z2"}


def test_many_small_flushes_stay_exact_and_merge(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    store = BM25Store(root, Tokenizer(stemmer=None, stopwords=None))
    everything: list[Fragment] = []
    for batch in range(12):
        fragments = corpus(25, seed=batch, prefix=f"b{batch}-")
        everything += fragments
        store.add(fragments)
        store.flush()
        store = BM25Store(root, Tokenizer(stemmer=None, stopwords=None))
    stats = store.stats()
    assert stats["documents"] == 300
    assert stats["base_documents"] > stats["delta_documents"]
    fresh = BM25Store(tmp_path / "fresh", Tokenizer(stemmer=None, stopwords=None))
    fresh.add(everything)
    assert_same_results(results(store), results(fresh))


READER_SCRIPT = """
import sys, time
from pathlib import Path
from memex_bm25.store import BM25Store
from memex_core.domain import SearchFilters
root, stop = Path(sys.argv[1]), Path(sys.argv[2])
seen = []
while not seen or not stop.exists():
    store = BM25Store(root)
    seen.append(store.count())
    store.search("word1 word2", 5, SearchFilters())
    if len(seen) == 1:
        print("ready", flush=True)  # imports done: the writer starts now, reads overlap it
print(" ".join(map(str, seen)))
"""


@pytest.mark.slow
def test_reader_process_never_sees_half_a_flush(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    stop = tmp_path / "stop"
    writer = BM25Store(root, merge_ratio=0.3)
    writer.add(corpus(50, prefix="start"))
    writer.flush()
    reader = subprocess.Popen(
        [sys.executable, "-c", READER_SCRIPT, str(root), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # A loaded machine may take longer to start the reader than the writer takes to
        # flush 40 batches: wait (no sleep) for its first read, so the reads overlap the writes.
        assert reader.stdout is not None and reader.stdout.readline().strip() == "ready"
        for batch in range(40):
            writer.add(corpus(25, seed=batch, prefix=f"b{batch}-"))
            if batch % 3 == 0:
                writer.delete([f"b{batch}-0"])
            writer.flush()
    finally:
        stop.touch()
        out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    counts = [int(value) for value in out.split()]
    assert counts, "the reader never completed a read"
    assert counts == sorted(counts)  # generations only move forward
    # Every count the reader saw is one the writer flushed.
    flushed = {50 + 25 * (b + 1) - (b // 3 + 1) for b in range(40)} | {50}
    assert set(counts) <= flushed
