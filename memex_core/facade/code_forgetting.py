"""Forgetting a repository's code (``Memex.forget_code``, ``memex forget --source code``).

``memex ask`` indexes a repository's tracked files as the ``code`` source; searches leave
that code out unless they name it (``NAMED_ONLY_SOURCES``), and this removes it: every
document of the repository (or of every repository) goes from the catalog, its fragments
from the keyword index, and their vectors from the vector store. Nothing else is touched;
``memex ask`` indexes the repository again when asked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memex_core.errors import MemexError, VectorStoreUnavailableError

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents

#: The source ``memex ask`` indexes a repository's code with (memex_code's SOURCE_KIND).
CODE = "code"


@dataclass
class ForgottenRepository:
    root: str
    files: int
    fragments: int


@dataclass
class ForgottenCode:
    """What ``forget_code`` removed: per repository, its files and fragments."""

    repositories: list[ForgottenRepository] = field(default_factory=list)
    vectors_deleted: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def files(self) -> int:
        return sum(r.files for r in self.repositories)

    @property
    def fragments(self) -> int:
        return sum(r.fragments for r in self.repositories)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(files=self.files, fragments=self.fragments)
        return data


def chosen_roots(indexed: dict[str, int], repo: str | Path | None) -> list[str]:
    """The indexed repository folders ``repo`` names (the folder itself, one inside it, or
    a path inside the repository); every one when ``repo`` is None. A clear error naming
    the indexed ones when it names none."""
    if repo is None:
        return sorted(indexed)
    given = Path(repo).expanduser()
    wanted = given.resolve() if given.exists() else given.absolute()
    found = [r for r in indexed if wanted == Path(r) or wanted.is_relative_to(r)]
    if found:
        return found
    known = ", ".join(sorted(indexed)) or "none"
    raise MemexError(
        f"--repo {repo}: no code of that repository is indexed (indexed repositories: "
        f"{known}). `memex corpus` counts the code held."
    )


def forget_code(parts: HomeComponents, repo: str | Path | None) -> ForgottenCode:
    """See :meth:`memex_core.api.Memex.forget_code`."""
    catalog = parts.catalog
    done = ForgottenCode()
    with parts.writing("ingest"):
        roots = chosen_roots(catalog.source_roots(CODE), repo)
        sync = parts.keyword_sync
        sync.catch_up()  # another process may have written since this one opened
        removed: list[str] = []
        for root in roots:
            documents = [d for d in catalog.documents_under(root).values() if d.source_kind == CODE]
            gone: list[str] = []
            for document in documents:
                gone += catalog.remove_document(document.id)
            done.repositories.append(ForgottenRepository(root, len(documents), len(gone)))
            removed += gone
        if removed:
            sync.keyword.delete(removed)
            sync.keyword.flush()
        sync.own_changes_applied()
        sync.flushed()
        if removed and parts.semantic_unavailable_reason() is None:
            try:
                done.vectors_deleted = parts.apply_vector_deletes()
                parts.settle_vectors()
            except VectorStoreUnavailableError as exc:
                done.notes.append(
                    f"{exc} Their vectors are deleted at the next `memex ingest` or "
                    "`memex backfill`; searches never show them meanwhile (the catalog "
                    "no longer holds them)."
                )
    if not roots:
        done.notes.append("no repository's code is indexed; nothing to forget")
    return done
