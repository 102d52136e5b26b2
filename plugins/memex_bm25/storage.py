"""Files on disk: numpy arrays, JSON, generation folders and the manifest that names them.

Layout under the index folder::

    manifest.json            which folders make up the current generation
    base-000007-1a2b3c4d/    the big segment, rewritten only when the delta is merged in
    delta-000012-5e6f7a8b/   the small segment plus everything that changes on every flush

A folder is written under a temporary name, synced, then renamed; the manifest
is replaced last with ``os.replace``. A reader therefore sees either the old or
the new manifest, and every folder a manifest names is complete. Nothing is
pickled: arrays are ``.npy`` files saved with ``allow_pickle=False``.

The manifest also records each file's size and CRC-32, so ``memex doctor`` can
tell a file damaged on disk (bytes garbled after the fact) from a sound one;
opening the index never pays for that check.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

MANIFEST = "manifest.json"

#: Arrays smaller than this are read into memory; larger ones are memory-mapped so
#: that opening a big index costs page faults on the postings a query touches only.
MMAP_MIN_BYTES = 1 << 16

_GENERATED_PREFIXES = ("base-", "delta-", ".tmp-", ".manifest-")


def save_array(directory: Path, name: str, array: np.ndarray) -> None:
    with open(directory / f"{name}.npy", "wb") as handle:
        np.save(handle, np.ascontiguousarray(array), allow_pickle=False)
        handle.flush()
        os.fsync(handle.fileno())


def load_array(directory: Path, name: str, *, writable: bool = False) -> np.ndarray:
    """Load ``name.npy``; big read-only arrays are memory-mapped."""
    path = directory / f"{name}.npy"
    if not writable and path.stat().st_size >= MMAP_MIN_BYTES:
        # A plain ndarray view of the mapping (which it keeps alive): every slice of an
        # np.memmap runs its Python __array_finalize__, and a search takes thousands (the
        # postings of each query term, twice), ~1 ms of a search at 100,000 fragments.
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
        return mapped.view(np.ndarray)
    return np.load(path, allow_pickle=False)


def save_json(directory: Path, name: str, value: Any) -> None:
    with open(directory / f"{name}.json", "w", encoding="utf-8") as handle:
        # dumps, not dump: the one-shot C encoder is several times faster on a big vocabulary.
        handle.write(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        handle.flush()
        os.fsync(handle.fileno())


def load_json(directory: Path, name: str) -> Any:
    with open(directory / f"{name}.json", encoding="utf-8") as handle:
        return json.load(handle)


#: File name -> [size in bytes, CRC-32], for every file of one generation folder.
Checksums = dict[str, list[int]]


def file_checksum(path: Path) -> list[int]:
    crc = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            crc = zlib.crc32(chunk, crc)
    return [path.stat().st_size, crc]


def folder_checksums(folder: Path) -> Checksums:
    return {entry.name: file_checksum(entry) for entry in sorted(folder.iterdir())}


def write_folder(root: Path, name: str, fill: Callable[[Path], None]) -> tuple[str, Checksums]:
    """Create ``root/<name>-<random>`` complete or not at all; returns the folder name and
    the checksums of its files."""
    temporary = root / f".tmp-{uuid.uuid4().hex}"
    temporary.mkdir(parents=True)
    try:
        fill(temporary)
        sums = folder_checksums(temporary)
        _fsync_folder(temporary)
        final = f"{name}-{uuid.uuid4().hex[:8]}"
        os.rename(temporary, root / final)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _fsync_folder(root)
    return final, sums


def damaged_files(root: Path, folder: str, expected: Checksums) -> list[str]:
    """Files of ``root/folder`` that are missing, extra, or differ from their checksums."""
    problems: list[str] = []
    directory = root / folder
    try:
        present = {entry.name for entry in directory.iterdir()}
    except OSError as exc:
        return [f"{folder}/: {exc.strerror or exc}"]
    for name, (size, crc) in sorted(expected.items()):
        if name not in present:
            problems.append(f"{folder}/{name} is missing")
            continue
        try:
            actual_size, actual_crc = file_checksum(directory / name)
        except OSError as exc:
            problems.append(f"{folder}/{name} cannot be read ({exc.strerror or exc})")
            continue
        if actual_size != size:
            problems.append(f"{folder}/{name} has {actual_size} bytes, {size} were written")
        elif actual_crc != crc:
            problems.append(f"{folder}/{name} does not match its checksum (damaged on disk)")
    problems.extend(
        f"{folder}/{name} was not written by memex" for name in sorted(present - set(expected))
    )
    return problems


def read_manifest(root: Path) -> dict[str, Any] | None:
    try:
        with open(root / MANIFEST, encoding="utf-8") as handle:
            value = json.load(handle)
    except FileNotFoundError:
        return None
    if not isinstance(value, dict):
        raise ValueError("the manifest is not a JSON object")
    return value


def write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    """Switch the index to a new generation in one atomic step."""
    temporary = root / f".manifest-{uuid.uuid4().hex}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, root / MANIFEST)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _fsync_folder(root)


def manifest_stamp(root: Path) -> tuple[int, int, int] | None:
    """Identity of the manifest file now on disk, to notice when another process flushed."""
    try:
        stat = (root / MANIFEST).stat()
    except FileNotFoundError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def remove_unreferenced(root: Path, keep: Iterable[str]) -> None:
    """Delete generation folders and temporaries no manifest we care about names.

    Callers keep the previous generation too, so a reader that has just read the
    old manifest can still open its folders. Only one writer runs at a time, so
    any temporary left here belongs to a writer that died.
    """
    kept = set(keep)
    try:
        entries = list(root.iterdir())
    except FileNotFoundError:
        return
    for entry in entries:
        if entry.name in kept or not entry.name.startswith(_GENERATED_PREFIXES):
            continue
        # On Windows a folder another process has mapped cannot go yet: try next flush.
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                entry.unlink()


def _fsync_folder(path: Path) -> None:
    # Makes the renames themselves durable; not possible (nor needed) on Windows.
    if os.name != "posix":
        return
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
