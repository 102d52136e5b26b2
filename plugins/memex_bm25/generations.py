"""A generation of the keyword index on disk: its format, its folders read into a
:class:`~memex_bm25.memory_index.MemoryIndex`, and a new one written from it.

A generation is a base folder, a delta folder and the manifest naming both (see
:mod:`memex_bm25.storage`); a flush writes the delta (and the base only after a
merge) as new folders, then swaps the manifest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from memex_bm25 import storage
from memex_bm25.memory_index import MemoryIndex
from memex_bm25.pending import TABLES
from memex_bm25.segment import Segment
from memex_bm25.tables import StringTable
from memex_core.crashpoints import crash_point

FORMAT = "memex-bm25"
#: Version 2 added the owner, collection and private columns. Version 1 indexes
#: still load (as the operator's corpus: owner "", collection "", not private)
#: and are rewritten as version 2 on their next flush; an older memex refuses a
#: version 2 index (asking for a rebuild) rather than ignore ``private``.
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)


def check_format(root: Path, manifest: dict[str, Any]) -> int:
    """The manifest's format version, or ``ValueError`` when this memex cannot read it."""
    version = manifest.get("version")
    if manifest.get("format") != FORMAT or version not in READABLE_VERSIONS:
        raise ValueError(
            f"{root / storage.MANIFEST} is format {manifest.get('format')!r} "
            f"version {version!r}, expected {FORMAT!r} {FORMAT_VERSION}"
        )
    return int(version)


def read_contents(index: MemoryIndex, root: Path, manifest: dict[str, Any], version: int) -> None:
    """Fill the empty ``index`` with the folders ``manifest`` names (``ValueError`` and
    ``OSError`` when they are damaged or do not match it)."""
    base_dir, delta_dir = root / manifest["base"], root / manifest["delta"]
    base_vocab = storage.load_json(base_dir, "vocab")
    vocab = StringTable(base_vocab + storage.load_json(delta_dir, "vocab"), len(base_vocab))
    base_tables = storage.load_json(base_dir, "tables")
    delta_tables = storage.load_json(delta_dir, "tables")
    old_format = version == 1
    if old_format:
        for written in (base_tables, delta_tables):
            for name in TABLES:
                written.setdefault(name, [])
    tables = {
        name: StringTable(base_tables[name] + delta_tables[name], len(base_tables[name]))
        for name in TABLES
    }

    def operator_corpus(column: str) -> int | bool:
        # Everything indexed before scopes existed is the operator's corpus.
        return False if column == "private" else tables[column].code("")

    missing = operator_corpus if old_format else None
    base, delta = Segment.load(base_dir, missing), Segment.load(delta_dir, missing)
    df = np.asarray(storage.load_array(delta_dir, "df", writable=True), dtype=np.int64)
    deleted_slots = storage.load_array(delta_dir, "deleted", writable=True)
    if (
        base.n_docs != manifest["base_docs"]
        or delta.n_docs != manifest["delta_docs"]
        or len(vocab) != manifest["vocabulary"]
        or len(df) != len(vocab)
        or max(base.n_terms, delta.n_terms) > len(vocab)
    ):
        raise ValueError(f"generation {int(manifest['generation'])} does not match its manifest")

    index.base, index.delta, index.df = base, delta, df
    index.vocab, index.tables = vocab, tables
    index.deleted = np.zeros(base.n_docs + delta.n_docs, dtype=bool)
    index.deleted[deleted_slots] = True
    index.n_deleted = len(deleted_slots)
    index.n_live = len(index.deleted) - index.n_deleted
    index.n_private = int(np.count_nonzero(base.docs.private)) + int(
        np.count_nonzero(delta.docs.private)
    )
    lengths = index.columns().doc_len
    index.total_len = int(lengths.sum(dtype=np.int64)) - int(
        lengths[deleted_slots].sum(dtype=np.int64)
    )
    # A version-1 base lacks the scope columns on disk: the next flush rewrites it,
    # so every folder a version-2 manifest names has them.
    index.base_dirty = old_format


def write_base(index: MemoryIndex, folder: Path) -> None:
    """The base segment and the string-table entries it uses (the frozen part)."""
    index.base.save(folder)
    storage.save_json(folder, "vocab", index.vocab.values[: index.vocab.frozen])
    storage.save_json(
        folder, "tables", {name: t.values[: t.frozen] for name, t in index.tables.items()}
    )


def write_delta(index: MemoryIndex, folder: Path) -> None:
    """The delta segment, the table entries since the base, frequencies and tombstones."""
    index.delta.save(folder)
    storage.save_json(folder, "vocab", index.vocab.tail)
    storage.save_json(folder, "tables", {name: t.tail for name, t in index.tables.items()})
    storage.save_array(folder, "df", index.df)
    storage.save_array(folder, "deleted", np.flatnonzero(index.deleted).astype(np.int64))


def write_generation(
    root: Path,
    index: MemoryIndex,
    generation: int,
    tokenizer_config: dict[str, Any],
    known_base: tuple[str, storage.Checksums | None] | None,
) -> tuple[str, str, dict[str, storage.Checksums]]:
    """Write generation ``generation`` of ``index`` under ``root`` and switch the manifest
    to it: a new delta folder, and a new base folder unless ``known_base`` (the name of
    the base on disk, and its checksums if known) still holds the base. Returns the
    base's and the delta's folder names and their checksums."""
    sums: dict[str, storage.Checksums] = {}
    if known_base is None:
        base_name, sums[base_name] = storage.write_folder(
            root, f"base-{generation:06d}", lambda folder: write_base(index, folder)
        )
    else:
        base_name, base_sums = known_base
        if base_sums is not None:
            sums[base_name] = base_sums
    delta_name, sums[delta_name] = storage.write_folder(
        root, f"delta-{generation:06d}", lambda folder: write_delta(index, folder)
    )
    crash_point("bm25.folder_written")
    storage.write_manifest(
        root,
        {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "generation": generation,
            "tokenizer": tokenizer_config,
            "base": base_name,
            "delta": delta_name,
            "base_docs": index.base.n_docs,
            "delta_docs": index.delta.n_docs,
            "vocabulary": len(index.vocab),
            "live_docs": index.n_live,
            "checksums": sums,
        },
    )
    crash_point("bm25.manifest_written")
    return base_name, delta_name, sums


def generation_on_disk(root: Path) -> int:
    """The generation the manifest under ``root`` names (0 when none can be read)."""
    try:
        manifest = storage.read_manifest(root) or {}
        return int(manifest.get("generation", 0))
    except (OSError, ValueError, TypeError):
        return 0
