"""Memory records and hits as the API writes them: what ``to_dict()`` gives in Python and
``--format json`` on the command line, so every surface shows a fact's validity alike.

``valid_from`` (when the fact became true), ``valid_until`` (when it stopped; ``null``
while it holds) and ``recorded_at`` (when memex learned it) are ISO 8601 in UTC;
``superseded_by`` is the id of the fact that replaced it. The models below are the
OpenAPI schema of those answers; the routes write the dicts as they are.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any, get_type_hints

from fastapi import Response
from pydantic import BaseModel, Field, create_model

from memex_core.domain.memory.records import MemoryRecord
from memex_core.handles import MemoryHit


class Validity(BaseModel):
    valid_from: str | None = Field(
        None,
        description="When the fact became true (ISO 8601, UTC); its record time if not told; "
        "1970-01-01T00:00:00Z when its start is unknown (its own words give only its end: "
        "'Until mid-2023 we paged through PagerDuty').",
    )
    valid_until: str | None = Field(
        None, description="When it stopped holding (ISO 8601, UTC); null while it holds."
    )
    superseded_by: str | None = Field(
        None,
        description="The memory that replaced it, if any; null for a fact that ended by its "
        "own words ('Back in 2020 prod was on Heroku').",
    )
    recorded_at: str | None = Field(None, description="When memex learned it (ISO 8601, UTC).")


def _mirror(kind: type, doc: str, **more: Any) -> type[Validity]:
    """A model of ``kind``'s fields (a dataclass of the Python API), its times as
    :class:`Validity` writes them, and ``more``: it follows the dataclass as it changes."""
    hints = get_type_hints(kind)
    fields: dict[str, Any] = dict(more)
    for f in dataclasses.fields(kind):
        if f.name in Validity.model_fields:
            continue
        if f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
        elif f.default is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], f.default)
        else:
            fields[f.name] = (hints[f.name], ...)
    return create_model(f"{kind.__name__}Out", __base__=Validity, __doc__=doc, **fields)


MemoryRecordOut = _mirror(
    MemoryRecord,
    "A memory as it stands now (its current revision), with its validity.",
    user_id=(str | None, None),
)
MemoryHitOut = _mirror(MemoryHit, "A memory search hit, with the validity of its fact.")
#: The answers of the routes giving several (a model made at run time is a value to mypy).
RecordsOut: Any = list[MemoryRecordOut]  # type: ignore[valid-type]
HitsOut: Any = list[MemoryHitOut]  # type: ignore[valid-type]


def as_json(value: MemoryRecord | MemoryHit | Iterable[MemoryRecord | MemoryHit]) -> Response:
    """A record or hit (or a list of them) as the API answers it: its ``to_dict()``."""
    data: Any
    if isinstance(value, MemoryRecord | MemoryHit):
        data = value.to_dict()
    else:
        data = [item.to_dict() for item in value]
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return Response(body.encode("utf-8"), media_type="application/json")
