"""``memex ask``'s code index: a repository's tracked files brought up to date, cheaply the
first time, with what it will cost said before it starts.

Measured on this repository (docs/benchmarks-ask-first-run.md): reading and keyword-indexing
its ~800 tracked files costs some 13 s, and embedding all of their ~8,800 fragments with
MiniLM some ten minutes more on 2 cores. So ``ask`` indexes every changed
file for keyword search only (parse, redact, BM25: no embedding), then embeds just the
fragments the question reaches (its keyword hits, then the rest of those hits' files, at
most :data:`FIRST_EMBED` fragments) and searches hybrid: the meaning-based signal ranks
what it has vectors for, which grows with every question. ``memex ask --embed`` embeds the
rest of the repository (as does ``memex backfill``, or any ingest that embeds); from then
on every ask has the whole repository in both signals.

Before indexing, the caller is told how many files, how large, and roughly how long
(:class:`IndexPlan`, from the rates measured above). A Ctrl-C keeps every file indexed and
every batch embedded so far (each is committed as it is done) and raises
:class:`IndexInterrupted`, whose message says what was kept; the same ask again finishes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memex_core.domain import SourceError
from memex_core.errors import MemexError
from memex_core.services.ask_fusion import CODE
from memex_core.services.file_reading import collect_skips
from memex_core.services.ports import Progress

if TYPE_CHECKING:
    from memex_core.facade.protocols import AskingHome

#: Most fragments a plain ask embeds for its question (its keyword hits first, then the
#: rest of their files): about 10 s of MiniLM on 2 shared cores.
FIRST_EMBED = 128
#: Keyword hits a question's reach is taken from (the hybrid search's candidate depth).
REACH_DEPTH = 40
#: Rates measured on 2 shared cores (docs/benchmarks-ask-first-run.md), for the estimate
#: said before indexing: read, redact and keyword-index bytes per second of source...
KEYWORD_BYTES_PER_S = 150_000
#: ... fragments a file yields per KB of source (code chunks at definitions)...
FRAGMENTS_PER_KB = 1.0
#: ... and fragments MiniLM embeds per second.
EMBED_PER_S = 15.0

Announce = Callable[[str], None]


class IndexInterrupted(KeyboardInterrupt):
    """Ctrl-C while ask indexed or embedded: ``str()`` says what was kept and how to
    finish. A KeyboardInterrupt still, so callers that stop on one stop on this."""


def duration(seconds: float) -> str:
    """``about 40 s`` / ``about 6 min``: an estimate, rounded as one."""
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5)} s"
    return f"about {round(seconds / 60)} min"


def size(nbytes: int) -> str:
    if nbytes >= 1_000_000:
        return f"{nbytes / 1_000_000:.1f} MB"
    return f"{max(1, round(nbytes / 1000))} KB"


@dataclass
class IndexPlan:
    """What bringing ``root``'s code index up to date will do, known before it starts."""

    root: Path
    files: int  # tracked files that can be indexed
    changed: list[str]  # new or changed since the last index (all of them the first time)
    gone: list[str]  # indexed, no longer tracked
    changed_bytes: int
    first: bool  # nothing of this repository was indexed yet
    skipped: list[str] = field(default_factory=list)

    @property
    def needed(self) -> bool:
        return bool(self.changed or self.gone)

    def keyword_seconds(self) -> float:
        return self.changed_bytes / KEYWORD_BYTES_PER_S

    def announcement(self) -> str:
        what = (
            f"{len(self.changed):,} tracked files ({size(self.changed_bytes)}), the first time"
            if self.first
            else f"{len(self.changed):,} changed file(s) ({size(self.changed_bytes)})"
        )
        if self.gone:
            what += f", {len(self.gone):,} removed"
        return (
            f"Indexing {self.root} as code for keyword search: {what}; "
            f"{duration(self.keyword_seconds())} at the rate measured on 2 cores. "
            "Ctrl-C keeps what is done; the same command finishes it."
        )


def plan_code_index(mx: AskingHome, source: Any, root: Path) -> IndexPlan:
    """List ``root``'s tracked files (one ``git ls-files``) and compare them with the index."""
    with collect_skips() as skipped:
        try:
            scan = source.scan(root)
        except SourceError as exc:
            raise MemexError(str(exc)) from exc
    stored = mx.catalog.documents_under(str(root))
    present = set(scan.documents)
    changed = [
        rel
        for rel in scan.documents
        if rel not in stored or stored[rel].sha256 != scan.fingerprints.get(rel)
    ]
    nbytes = 0
    for rel in changed:
        # A file gone since git listed it is the ingest's to report.
        with contextlib.suppress(OSError):
            nbytes += (root / rel).stat().st_size
    return IndexPlan(
        root=root,
        files=len(scan.documents),
        changed=changed,
        gone=[rel for rel in stored if rel not in present],
        changed_bytes=nbytes,
        first=not stored,
        skipped=list(skipped),
    )


def update_code_index(
    mx: AskingHome,
    source: Any,
    root: Path,
    progress: Progress | None = None,
    embed_progress: Progress | None = None,
    *,
    embed: bool = True,
    announce: Announce | None = None,
) -> dict[str, Any]:
    """Index ``root``'s tracked files as code, only what changed; what happened, counted.
    ``embed=False`` leaves the vectors to :func:`embed_reached` / :func:`embed_repository`
    (ask's default); ``announce`` is told what will be indexed and how long, first."""
    started = time.perf_counter()
    plan = plan_code_index(mx, source, root)
    summary: dict[str, Any] = {
        "root": str(root),
        "files": plan.files,
        "skipped_files": len(plan.skipped),
        "changed": len(plan.changed),
        "removed": len(plan.gone),
    }
    if plan.needed:
        if announce is not None:
            announce(plan.announcement())
        try:
            report = mx.ingest(
                root, source=CODE, embed=embed, progress=progress, embed_progress=embed_progress
            )
        except KeyboardInterrupt as exc:
            done = plan.files - len(plan_code_index(mx, source, root).changed)
            raise IndexInterrupted(
                f"Interrupted: {done:,} of {plan.files:,} files of {root} are indexed and "
                "kept; run the same `memex ask` again to index the rest."
            ) from exc
        summary.update(
            fragments_added=report.fragments_added,
            fragments_removed=report.fragments_removed,
            embedded=report.embedded,
            failed=[f"{f.path}: {f.error}" for f in report.files if f.status == "failed"],
            skipped=report.skipped,
        )
        if embed and report.embedding_skipped_reason:
            summary["embedding_skipped"] = report.embedding_skipped_reason
    else:
        summary["skipped"] = plan.skipped
    summary["seconds"] = round(time.perf_counter() - started, 3)
    return summary


def code_fragment_ids(mx: AskingHome, root: Path) -> list[str]:
    """Every fragment id of ``root``'s indexed files."""
    return [fragment for fragment, _by in _marks(mx, root)]


def _marks(mx: AskingHome, root: Path) -> list[tuple[str, str | None]]:
    documents = [record.id for record in mx.catalog.documents_under(str(root)).values()]
    return mx.catalog.embedding_marks(documents)


def reached_fragments(
    search: Callable[..., Any], question: str, document_ids: Sequence[str], mx: AskingHome
) -> list[str]:
    """What a question reaches in the code: its keyword hits, then the other fragments of
    those hits' files in rank order, at most :data:`FIRST_EMBED`."""
    found = search(
        question,
        "keyword",
        REACH_DEPTH,
        source=(CODE,),
        conversation=tuple(document_ids),
        time_phrases=False,
    )
    hits = [r.fragment for r in found.results]
    ids = dict.fromkeys(f.id for f in hits)
    for document in dict.fromkeys(f.conversation_id for f in hits):
        if len(ids) >= FIRST_EMBED:
            break
        ids.update(dict.fromkeys(f.id for f in mx.catalog.conversation_fragments(document)))
    return list(ids)[:FIRST_EMBED]


def embed_code(
    mx: AskingHome,
    root: Path,
    reach: Callable[[], list[str]] | None,
    progress: Progress | None,
    announce: Announce | None,
) -> dict[str, int]:
    """Embed what ``reach()`` returns of ``root``'s code, or with ``reach=None``
    (``--embed``) all of it, announced first; only fragments without a vector are embedded,
    and nothing is looked for when the repository has them all. Returns its vector
    coverage: ``embedded_now``, ``with_vectors``, ``fragments``. Ctrl-C keeps every batch
    done and raises :class:`IndexInterrupted`."""
    name = mx.embedder.name
    marks = _marks(mx, root)
    missing = [fragment for fragment, by in marks if by != name]
    if not missing:
        return {"embedded_now": 0, "with_vectors": len(marks), "fragments": len(marks)}
    if reach is None and announce is not None:
        announce(
            f"Embedding {len(missing):,} code fragment(s) of {root}: "
            f"{duration(len(missing) / EMBED_PER_S)} at the rate measured on 2 cores. "
            "Ctrl-C keeps what is done; the same command finishes it."
        )
    try:
        done = mx.embed_fragments(missing if reach is None else reach(), progress=progress)
    except KeyboardInterrupt as exc:
        left = sum(1 for _fragment, by in _marks(mx, root) if by != name)
        again = "the same `memex ask`" if reach is not None else "`memex ask --embed QUESTION`"
        raise IndexInterrupted(
            f"Interrupted while embedding: {len(marks) - left:,} of {len(marks):,} code "
            f"fragments of {root} have vectors (kept; keyword search has them all); "
            f"{again} again embeds the rest."
        ) from exc
    with_vectors = len(marks) - len(missing) + done
    return {"embedded_now": done, "with_vectors": with_vectors, "fragments": len(marks)}


def coverage_note(coverage: dict[str, int], root: Path) -> str | None:
    """Said while part of the repository has no vectors yet: what that means, the fix."""
    left = coverage["fragments"] - coverage["with_vectors"]
    if left <= 0:
        return None
    return (
        f"code vectors: {coverage['with_vectors']:,} of {coverage['fragments']:,} fragments "
        f"of {root} (those earlier questions and this one reached), so matching by meaning "
        f"covers only those and keyword search covers all; `memex ask --embed QUESTION` "
        f"embeds the other {left:,} ({duration(left / EMBED_PER_S)}), as does `memex backfill`"
    )
