"""Links between documents: what a note (or memory file) points at, as written.

A :class:`Link` is recorded at ingest exactly as the author wrote it; resolving
its target to a document happens afterwards over the whole folder, because a
note added later can make an old link resolve (see :mod:`memex_core.domain.link_resolution`).
"""

from __future__ import annotations

from dataclasses import dataclass

LINK = "link"
EMBED = "embed"


@dataclass(frozen=True)
class Link:
    """One link found in a fragment.

    ``target`` is the linked name as written, without heading, block or display
    text: ``"Folder/Note"``, ``"Note"``, ``"img.png"``, or ``""`` for a link to a
    heading of the same note (``[[#Heading]]``). ``heading`` keeps nested heading
    paths joined with ``#`` (``"H1#H2"``); ``block`` is a block id without ``^``.
    """

    source_fragment_id: str
    target: str
    kind: str = LINK  # LINK | EMBED
    heading: str | None = None
    block: str | None = None
    display: str | None = None


@dataclass(frozen=True)
class ResolvedLink:
    """A stored link with where it leads: ``target_path`` is ``None`` when nothing matches."""

    source_document: str
    source_fragment_id: str
    target: str
    kind: str
    heading: str | None
    block: str | None
    display: str | None
    target_path: str | None
    target_document: str | None
