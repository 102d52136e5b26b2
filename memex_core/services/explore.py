"""``explore(note)``: where a note leads, what leads to it, and what is like it but unlinked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memex_core.domain import DocumentRecord, ResolvedLink, SearchFilters, SignalHit
from memex_core.domain.disclosure import snippet
from memex_core.domain.exploration import Backlink, Exploration, Outlink, SimilarNote
from memex_core.errors import MemexError, UnknownIdError, VectorStoreUnavailableError
from memex_core.services.ports import GraphPort

#: How much of a note stands for it when looking for similar notes.
_PROFILE_CHARS = 1500

SimilarSearch = Callable[[str, int, SearchFilters], Sequence[SignalHit]]


class Explorer:
    def __init__(self, graph: GraphPort, similar_search: SimilarSearch | None) -> None:
        self.graph = graph
        self.similar_search = similar_search

    def resolve(self, name: str) -> DocumentRecord:
        """The one note ``name`` means (id, path, title or alias), or a clear error."""
        found = self.graph.find_documents(name)
        if not found:
            raise UnknownIdError(
                f"No note called {name!r}. Give its path inside the vault (e.g. "
                "'Folder/Note.md'), its title or an alias; `memex dig --source obsidian "
                f"{name!r}` finds notes by content."
            )
        if len(found) > 1 and len({d.path for d in found}) > 1:
            paths = ", ".join(d.path for d in found[:8])
            raise MemexError(f"{name!r} could mean several notes: {paths}. Give the path.")
        return found[0]

    def explore(self, name: str, similar: int = 5) -> Exploration:
        note = self.resolve(name)
        links = self.graph.outlinks(note.id)
        targets = self.graph.documents([ln.target_document for ln in links if ln.target_document])
        outlinks = [self._outlink(ln, targets) for ln in _dedupe(links)]
        backlinks = self._backlinks(note)
        linked = {o.target_document for o in outlinks} | {b.source_document for b in backlinks}
        out = Exploration(note, outlinks, backlinks, [])
        if similar > 0:
            out.similar = self._similar(note, linked, similar, out.notes)
        return out

    @staticmethod
    def _outlink(link: ResolvedLink, targets: dict[str, DocumentRecord]) -> Outlink:
        doc = targets.get(link.target_document or "")
        return Outlink(
            target=link.target,
            kind=link.kind,
            heading=link.heading,
            block=link.block,
            display=link.display,
            target_path=link.target_path,
            target_title=doc.title if doc else None,
            target_document=link.target_document,
        )

    def _backlinks(self, note: DocumentRecord) -> list[Backlink]:
        links = self.graph.backlinks(note.id)
        sources = self.graph.documents([ln.source_document for ln in links])
        fragments = self.graph.get_many([ln.source_fragment_id for ln in links])
        out: list[Backlink] = []
        seen: set[str] = set()
        for link in links:
            if link.source_document in seen:
                continue  # one entry per linking note; its first link gives the context
            seen.add(link.source_document)
            doc = sources.get(link.source_document)
            fragment = fragments.get(link.source_fragment_id)
            words = [link.display or link.target or note.title]
            out.append(
                Backlink(
                    source_document=link.source_document,
                    source_path=doc.path if doc else "",
                    source_title=doc.title if doc else link.source_document,
                    fragment_id=link.source_fragment_id,
                    context=snippet(fragment.content, words, 160) if fragment else "",
                )
            )
        return out

    def _similar(
        self, note: DocumentRecord, linked: set[str | None], limit: int, notes: list[str]
    ) -> list[SimilarNote]:
        if self.similar_search is None:
            notes.append("similar notes need semantic search (an embedder and a vector store)")
            return []
        fragments = self.graph.conversation_fragments(note.id)
        profile = note.title + "\n" + "\n".join(f.content for f in fragments)
        filters = SearchFilters(source_kinds=(note.source_kind,))
        try:
            hits = self.similar_search(profile[:_PROFILE_CHARS], 10 * limit + 20, filters)
        except VectorStoreUnavailableError as exc:
            notes.append(f"similar notes need semantic search: {exc}")
            return []
        found = self.graph.get_many([h.id for h in hits])
        best: dict[str, float] = {}
        for hit in hits:
            fragment = found.get(hit.id)
            if fragment is None:
                continue
            doc = fragment.conversation_id
            if doc == note.id or doc in linked or doc in best:
                continue
            best[doc] = hit.score
            if len(best) == limit:
                break
        docs = self.graph.documents(list(best))
        return [
            SimilarNote(d, docs[d].path, docs[d].title, round(score, 4))
            for d, score in best.items()
            if d in docs
        ]


def _dedupe(links: list[ResolvedLink]) -> list[ResolvedLink]:
    """One entry per (target, heading, block, kind): a note linking twice is one outlink."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for link in links:
        key = (link.target_path or link.target, link.heading, link.block, link.kind)
        if key not in seen:
            seen.add(key)
            out.append(link)
    return out


__all__ = ["Backlink", "Exploration", "Explorer", "Outlink", "SimilarNote", "SimilarSearch"]
