"""What a home holds, in a form two homes can be compared by: every stored fragment with
all that ingest decides about it."""

from __future__ import annotations

import json
from typing import Any

from memex_core.api import Memex


def fragments(mx: Memex) -> dict[str, tuple[Any, ...]]:
    """Every stored fragment but session summaries, with all that ingest decides."""
    ids = [row[0] for row in mx.query("SELECT id FROM fragments", limit=None)[1]]
    return {
        f.id: (
            f.conversation_id,
            f.role,
            f.content,
            f.provenance,
            f.timestamp,
            f.title,
            json.dumps(f.metadata, sort_keys=True),
            f.index_text,
            f.owner,
            f.collection,
            f.private,
        )
        for f in mx.get(ids)
        if not f.metadata.get("is_session_summary")
    }
