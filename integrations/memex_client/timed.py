"""Memory records and hits as the server writes them, back into the Python API's dataclasses.

The server sends a fact's ``valid_from``, ``valid_until`` and ``recorded_at`` as ISO 8601
in UTC (as ``to_dict()`` and ``--format json`` do); the dataclasses hold epoch seconds.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain.memory.timestamps import iso_utc, to_epoch

TIME_FIELDS = ("valid_from", "valid_until", "recorded_at")


def epoch_times(data: Any) -> Any:
    """``data`` (a record or hit as JSON, or a list of them) with its times in epoch
    seconds. A record's ``valid_from`` equal to its record time is that time exactly
    (ISO 8601 keeps microseconds only)."""
    if isinstance(data, list):
        return [epoch_times(item) for item in data]
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for name in TIME_FIELDS:
        value = out.get(name)
        if isinstance(value, str):
            out[name] = to_epoch(value, name)
    created = data.get("created_at")
    if isinstance(created, int | float) and data.get("valid_from") == iso_utc(created):
        out["valid_from"] = float(created)
    return out
