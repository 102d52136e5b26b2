"""Reading a memex archive in tests: its JSON Lines members as rows, by member name."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any


def archive_rows(data: bytes) -> dict[str, list[dict[str, Any]]]:
    """Every ``.jsonl`` member of the archive ``data``, as its rows (dicts)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {
            name: [json.loads(line) for line in archive.read(name).splitlines() if line]
            for name in archive.namelist()
            if name.endswith(".jsonl")
        }
