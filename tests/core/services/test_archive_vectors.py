"""Archives that carry their vectors (issue 31, ``memex export --with-vectors``): the round
trip stores the archive's vectors instead of embedding (no embedder call) and gives the same
semantic search ids in the same order; an archive from another embedder, build or turn
context is embedded afresh and the report says why; float32 values survive JSON exactly.
Bad vectors are refused in tests/core/services/test_archive_bad_input.py."""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_core.services.archive_format import MANIFEST, VECTORS
from memex_core.services.archive_vectors import parse_vectors, vector_line
from tests.support.archive_builders import fill_home, members, search_ids
from tests.support.component_doubles import HashingEmbedder, MemoryVectorStore
from tests.support.doctor_home import doctor_memex, stored


@dataclass
class Exported:
    archive: Path
    plain: Path  # the same home without vectors
    searches: dict[str, list[str]]
    vectors: dict[str, np.ndarray]
    fragments: int


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exported]:
    root = tmp_path_factory.mktemp("vectors")
    mx = doctor_memex(root / "source")
    fill_home(mx, root)
    archive, plain = root / "vectors.zip", root / "plain.zip"
    report = mx.export_archive(archive, with_vectors=True)
    assert report.with_vectors and report.members[VECTORS] == report.fragments
    mx.export_archive(plain)
    vectors = {k: v.copy() for k, v in stored(root / "source").vectors.items()}
    yield Exported(archive, plain, search_ids(mx), vectors, report.fragments)
    mx.close()


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Memex]:
    with closing(doctor_memex(tmp_path / "target")) as mx:
        yield mx


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of texts each ``embed_documents`` call was given."""
    calls: list[int] = []
    original = HashingEmbedder.embed_documents

    def counting(self: HashingEmbedder, texts: Sequence[str]) -> np.ndarray:
        calls.append(len(texts))
        return original(self, texts)

    monkeypatch.setattr(HashingEmbedder, "embed_documents", counting)
    return calls


def test_float32_survives_json_exactly() -> None:
    rng = np.random.default_rng(31)
    values = np.concatenate(
        [
            rng.standard_normal(20_000).astype(np.float32),
            np.array([1e-45, -1e-45, 3.4028235e38, 1.1754944e-38, 0.0, -0.0, 1 / 3], np.float32),
        ]
    )
    line = vector_line("f", values.tolist())
    ((_id, back),) = next(parse_vectors(iter([line]), len(values)))
    again = np.asarray(back, dtype=np.float32)
    assert again.tobytes() == values.tobytes()
    assert struct.pack(f"{len(values)}f", *back) == values.tobytes()


def test_the_manifest_names_the_embedder(exported: Exported) -> None:
    with zipfile.ZipFile(exported.archive) as zf:
        manifest = json.loads(zf.read(MANIFEST))
        info = manifest["members"][VECTORS]
        data = zf.read(VECTORS)
    assert manifest["vectors"] == {"embedder": "hashing:64", "build": "", "vector_context": "off"}
    assert info["columns"] == ["id", "vector"] and info["rows"] == data.count(b"\n")
    first = json.loads(data.splitlines()[0])
    assert len(first["vector"]) == 64
    assert np.asarray(first["vector"], np.float32).tobytes() == (
        exported.vectors[first["id"]].tobytes()
    )


def test_round_trip_with_vectors_embeds_nothing(
    exported: Exported, target: Memex, tmp_path: Path, embedded: list[int]
) -> None:
    report = target.import_archive(exported.archive)
    assert embedded == [] and report.embedded == 0
    assert report.vectors_used == exported.fragments == report.vectors_in_archive
    assert report.vectors_reason is None
    held = stored(tmp_path / "target").vectors
    assert {k: v.tobytes() for k, v in held.items()} == {
        k: v.tobytes() for k, v in exported.vectors.items()
    }
    assert search_ids(target) == exported.searches
    again = tmp_path / "again.zip"
    target.export_archive(again, with_vectors=True)
    assert members(again) == members(exported.archive)
    assert target.doctor().healthy


def test_without_vectors_the_import_embeds(
    exported: Exported, target: Memex, embedded: list[int]
) -> None:
    report = target.import_archive(exported.plain)
    assert sum(embedded) == report.embedded == exported.fragments
    assert report.vectors_in_archive == 0 and report.vectors_used == 0
    assert search_ids(target) == exported.searches


def test_dry_run_says_it_would_store_them(
    exported: Exported, target: Memex, tmp_path: Path
) -> None:
    report = target.import_archive(exported.archive, dry_run=True)
    assert report.vectors_used == exported.fragments and report.vectors_reason is None
    assert target.catalog.count_fragments() == 0
    assert stored(tmp_path / "target").count() == 0


def _with_identity(archive: Path, out: Path, **identity: str) -> Path:
    with zipfile.ZipFile(archive) as zf, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for name in zf.namelist():
            data = zf.read(name)
            if name == MANIFEST:
                manifest = json.loads(data)
                manifest["vectors"].update(identity)
                data = json.dumps(manifest).encode()
            new.writestr(name, data)
    return out


@pytest.mark.parametrize(
    ("identity", "said"),
    [
        ({"embedder": "minilm:64"}, "embedder 'minilm:64', this home's is 'hashing:64'"),
        ({"build": "int8"}, "embedder build 'int8'"),
        ({"vector_context": "0"}, "turn context '0'"),
    ],
)
def test_another_embedder_is_embedded_afresh(
    exported: Exported,
    target: Memex,
    tmp_path: Path,
    embedded: list[int],
    identity: dict[str, str],
    said: str,
) -> None:
    other = _with_identity(exported.archive, tmp_path / "other.zip", **identity)
    dry = target.import_archive(other, dry_run=True)
    assert dry.vectors_used == 0 and said in (dry.vectors_reason or "")
    report = target.import_archive(other)
    assert report.vectors_used == 0 and said in (report.vectors_reason or "")
    assert sum(embedded) == report.embedded == exported.fragments
    assert search_ids(target) == exported.searches


def test_only_fragments_the_import_adds_take_a_vector(
    exported: Exported, tmp_path: Path, embedded: list[int]
) -> None:
    """A home that holds some of the fragments keeps their vectors; the rest are stored."""
    home = tmp_path / "half"
    mx = doctor_memex(home)
    try:
        mx.import_archive(exported.plain)
        kept = {k: v.tobytes() for k, v in stored(home).vectors.items()}
        embedded.clear()
        report = mx.import_archive(exported.archive)
        assert report.added == 0 and report.vectors_used == 0 and embedded == []
        assert {k: v.tobytes() for k, v in stored(home).vectors.items()} == kept
    finally:
        mx.close()


def test_a_store_that_cannot_hand_vectors_out_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mx = doctor_memex(tmp_path / "home")
    try:
        mx.agent("alice").remember("Alice keeps a sourdough starter.")
        monkeypatch.delattr(MemoryVectorStore, "stored_vectors")
        with pytest.raises(MemexError, match="cannot hand its vectors out"):
            mx.export_archive(tmp_path / "v.zip", with_vectors=True)
        assert not (tmp_path / "v.zip").exists()
    finally:
        mx.close()


def test_a_home_without_vectors_yet_is_said(tmp_path: Path) -> None:
    mx = doctor_memex(tmp_path / "empty")
    try:
        with pytest.raises(MemexError, match="no vectors yet"):
            mx.export_archive(tmp_path / "v.zip", with_vectors=True)
    finally:
        mx.close()


def test_postgres_with_pgvector_to_sqlite_and_back(
    pgvector_url: str, tmp_path: Path, embedded: list[int]
) -> None:
    """PostgreSQL + pgvector -> SQLite: the vectors are pgvector's float32 values, stored
    without embedding; the home searches exactly as one that embedded the archive afresh
    (pgvector's HNSW and the exact double may order ties apart, so not against the source),
    and the vectors member exports again byte for byte."""
    pytest.importorskip("pgvector")
    from tests.support.component_doubles import (
        hashing_memex_on as postgres_home,  # pgvector + hashing
    )

    archive, again = tmp_path / "pg.zip", tmp_path / "again.zip"
    with closing(postgres_home(tmp_path / "pg", "postgres", pgvector_url)) as pg:
        fill_home(pg, tmp_path)
        report = pg.export_archive(archive, with_vectors=True)
        assert report.members[VECTORS] == report.fragments
    with closing(doctor_memex(tmp_path / "fresh")) as fresh:
        fresh.import_archive(archive, embed=False)
        fresh.backfill()
        searches = search_ids(fresh)
    embedded.clear()
    with closing(doctor_memex(tmp_path / "sqlite")) as lite:
        done = lite.import_archive(archive)
        assert embedded == [] and done.vectors_used == report.fragments
        assert search_ids(lite) == searches
        lite.export_archive(again, with_vectors=True)
    assert members(again) == members(archive)
