"""The unit of memory: a fragment of a conversation, and where it came from.

Pure data: nothing here imports storage, model or framework code.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

#: Roles a fragment may carry. Sources map their own vocabulary onto these.
ROLES = ("user", "assistant", "system", "tool", "note")


@dataclass(frozen=True)
class Provenance:
    """Where a fragment came from, precisely enough to find it again.

    ``source_path`` is the file (or folder) that was ingested, ``source_id`` the
    identity of the item inside it that the source itself uses (a conversation
    or message id), and ``locator`` pinpoints the fragment inside the source
    (for example ``conversations.json#conv-1/msg-7/chunk-2``).
    """

    source_kind: str
    source_path: str
    source_id: str
    locator: str
    timestamp: float | None = None


@dataclass(frozen=True)
class Fragment:
    """One searchable piece of a conversation: a message, or one chunk of a long one.

    ``timestamp`` is seconds since the epoch (UTC) or ``None`` when the source
    does not say. ``metadata`` holds source-specific extras that must be JSON
    serialisable; chunking information lives there too (``chunk_index``,
    ``chunk_count``, ``prev_id``, ``next_id``).

    ``index_text``, when set, is what the indexes see instead of ``content``:
    a compacted tool output, or a note section prefixed with its note title and
    heading. ``content`` always keeps the full text for ``get``.

    ``owner``, ``collection`` and ``private`` scope agent memory. ``owner`` is
    ``""`` for the operator's own corpus (ingested exports, vaults), or the
    storage prefix of a memory's owner: ``users/<user_id>`` or ``shared``.
    ``collection`` is a hierarchical name (``company:engineering:alice``) or
    ``""``. Every index stores all three so that scope filters apply before
    top-k; a ``private`` fragment is left out of searches unless asked for.
    """

    id: str
    conversation_id: str
    role: str
    content: str
    provenance: Provenance
    timestamp: float | None = None
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    index_text: str | None = field(default=None, compare=False)
    owner: str = ""
    collection: str = ""
    private: bool = False

    @property
    def source_kind(self) -> str:
        return self.provenance.source_kind

    @property
    def searchable_text(self) -> str:
        """The text keyword and vector indexes are built from."""
        return self.index_text if self.index_text is not None else self.content


def fragment_id(source_kind: str, conversation_id: str, locator: str, content: str) -> str:
    """A stable fragment id derived from the source identity and the content.

    The same message read from the same source, even from a different copy of
    the export file, always yields the same id, so ingesting twice adds nothing.
    Changed content yields a new id (the old text stays in the catalog).
    """
    digest = hashlib.blake2b(digest_size=16)
    for part in (source_kind, conversation_id, locator, content):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()
