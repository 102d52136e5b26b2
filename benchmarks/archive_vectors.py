"""Benchmark: importing an archive with and without its vectors (``memex export
--with-vectors``), one run each, on the default components (MiniLM, chroma).

A home of ``--size`` passages (SciFact sentences and LoCoMo turns,
``benchmarks.fragments.passage_corpus``) is built and embedded, exported twice (with and
without ``--with-vectors``), and each archive imported into a new home, embedding as a
``memex import`` does. Prints the figures as JSON; docs/archives.md quotes them.

Standalone only (minutes of embedding): ``nice python -m benchmarks.archive_vectors
[--size 10000] [--root DIR]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.data import load_locomo, load_scifact
from benchmarks.fragments import passage_corpus
from memex_core.api import Memex


def measure(root: Path, size: int) -> dict[str, Any]:
    out: dict[str, Any] = {"size": size}
    source = Memex(root / "source")
    passages = passage_corpus(load_scifact().docs, load_locomo(), size)
    started = time.perf_counter()
    source.add_fragments(passages, origin="bench", embed=True)
    out["embed_source_s"] = time.perf_counter() - started
    for with_vectors in (True, False):
        name = "vectors" if with_vectors else "plain"
        archive = root / f"{name}.zip"
        started = time.perf_counter()
        source.export_archive(archive, with_vectors=with_vectors)
        out[f"export_{name}_s"] = time.perf_counter() - started
        out[f"archive_{name}_bytes"] = archive.stat().st_size
    source.close()
    for name in ("vectors", "plain"):
        target = Memex(root / f"target-{name}")
        started = time.perf_counter()
        report = target.import_archive(root / f"{name}.zip").to_dict()
        out[f"import_{name}"] = {
            "s": time.perf_counter() - started,
            "rows_s": report["seconds"],
            "index_s": report["index_seconds"],
            "embedded": report["embedded"],
            "vectors_used": report["vectors_used"],
        }
        target.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--root", type=Path, default=None)
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="memex-archive-vectors-"))
    try:
        print(json.dumps(measure(root, args.size), indent=1))
    finally:
        if args.root is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
