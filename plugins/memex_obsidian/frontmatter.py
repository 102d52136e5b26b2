"""YAML frontmatter ("properties"): split it from the body and read it safely.

Frontmatter is a YAML block that opens on the note's very first line with
``---`` and closes at the next ``---`` line.
Without a closing line there is no frontmatter: the ``---`` is body text.

It is read with ``yaml.safe_load`` (never arbitrary objects). Broken YAML does
not lose the note: the properties are ignored, the block is still cut from the
body, and a :class:`memex_core.source_kit.SkippedItemWarning` names the file and
line. Values are made JSON-serialisable (dates become ISO strings) because they
are stored as metadata.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from memex_core.source_kit import warn_skipped

_DELIMITER = re.compile(r"^---[ \t]*$")

#: Properties whose value can date the note, in order of preference.
DATE_KEYS = ("date", "created", "updated")


@dataclass(frozen=True)
class Frontmatter:
    """A note split in two: its properties (``{}`` if none or broken) and its body.

    ``body_line`` is the 1-based line of the note where the body starts, so a
    position in the body can be reported as a line of the file.
    """

    data: Mapping[str, Any] = field(default_factory=dict)
    body: str = ""
    body_line: int = 1


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """``(yaml_text or None, body, body_line)`` for a note's text (``\\n`` line ends)."""
    if not text.startswith("---"):
        return None, text, 1
    lines = text.split("\n")
    if not _DELIMITER.match(lines[0]):
        return None, text, 1
    for index in range(1, len(lines)):
        if _DELIMITER.match(lines[index]):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :]), index + 2
    return None, text, 1


#: Most values (scalars, list items, keys) a note's properties may hold once expanded.
#: YAML anchors let a few lines stand for billions of values ("billion laughs");
#: a note's real properties hold a few dozen.
MAX_PROPERTY_VALUES = 10_000

_SURROGATE = re.compile("[\ud800-\udfff]")


class PropertiesTooLarge(ValueError):
    """Frontmatter that expands past :data:`MAX_PROPERTY_VALUES` values, or contains itself."""


def json_safe(value: Any, budget: int = MAX_PROPERTY_VALUES) -> Any:
    """``value`` with YAML's non-JSON types converted: dates to ISO strings, keys to strings.

    Bytes (``!!binary``) become base64 text, sets lists, non-finite floats
    strings and lone surrogates U+FFFD, so the result always survives
    ``json.dumps(..., allow_nan=False)`` and UTF-8. Raises
    :class:`PropertiesTooLarge` when the value holds more than ``budget`` values
    once YAML's shared references are expanded, or contains itself.
    """
    return _Converter(budget).convert(value)


class _Converter:
    def __init__(self, budget: int) -> None:
        self.left = budget
        self.open: set[int] = set()  # containers being converted: meeting one again is a loop

    def convert(self, value: Any) -> Any:
        self.left -= 1
        if self.left < 0:
            raise PropertiesTooLarge(f"more than {MAX_PROPERTY_VALUES} values once expanded")
        if isinstance(value, Mapping | list | tuple | set | frozenset):
            if id(value) in self.open:
                raise PropertiesTooLarge("a value that contains itself")
            self.open.add(id(value))
            try:
                if isinstance(value, Mapping):
                    return {
                        str(self.convert(key)): self.convert(item) for key, item in value.items()
                    }
                return [self.convert(item) for item in value]
            finally:
                self.open.discard(id(value))
        if isinstance(value, datetime | date):
            return value.isoformat()
        if isinstance(value, bytes):
            return base64.b64encode(value).decode("ascii")
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        if isinstance(value, str):
            return _SURROGATE.sub("\ufffd", value)
        if value is None or isinstance(value, int | float | bool):
            return value
        return _SURROGATE.sub("\ufffd", str(value))


def _yaml_line(exc: yaml.YAMLError) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line if mark is not None else None


def read_frontmatter(text: str, path: str | Path) -> Frontmatter:
    """Split and parse a note's frontmatter; warn (naming ``path`` and the line) if it is broken."""
    yaml_text, body, body_line = split_frontmatter(text)
    if yaml_text is None:
        return Frontmatter({}, body, body_line)
    try:
        data = yaml.safe_load(yaml_text)
    except RecursionError:
        warn_skipped(
            path,
            "frontmatter",
            "its frontmatter, nested too deeply to read; the note is still indexed, "
            "without properties",
        )
        return Frontmatter({}, body, body_line)
    except (ValueError, TypeError, OverflowError) as exc:
        # PyYAML's constructors raise these for values that look typed but are not
        # (``date: 0000-00-00``, a timestamp past the year 9999).
        warn_skipped(
            path,
            "frontmatter",
            f"its frontmatter, which holds a value YAML cannot build ({exc}); the note is "
            "still indexed, without properties: fix the YAML between the two --- lines",
        )
        return Frontmatter({}, body, body_line)
    except yaml.YAMLError as exc:
        line = _yaml_line(exc)
        location = f"line {line + 2}" if line is not None else "frontmatter"  # +1 for "---"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        warn_skipped(
            path,
            location,
            f"its frontmatter, which is not valid YAML ({problem}); the note is still "
            "indexed, without properties: fix the YAML between the two --- lines",
        )
        return Frontmatter({}, body, body_line)
    if data is None:
        return Frontmatter({}, body, body_line)
    if not isinstance(data, dict):
        warn_skipped(
            path,
            "line 2",
            f"its frontmatter, a YAML {type(data).__name__} instead of key: value "
            "properties; the note is still indexed, without properties",
        )
        return Frontmatter({}, body, body_line)
    try:
        # Expanded (and made JSON-safe) once, here, so a YAML bomb costs a bounded walk.
        safe = json_safe(data)
    except (PropertiesTooLarge, RecursionError) as exc:
        warn_skipped(
            path,
            "frontmatter",
            f"its frontmatter, which holds {exc}; the note is still indexed, without "
            "properties: simplify the YAML between the two --- lines",
        )
        return Frontmatter({}, body, body_line)
    return Frontmatter(safe, body, body_line)


def aliases_from_property(value: object) -> tuple[str, ...]:
    """The ``aliases`` property as a tuple: a list, a single string, or empty (``aliases:``)."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    aliases = []
    for item in items:
        if item is None or isinstance(item, dict | list):
            continue
        alias = str(json_safe(item)).strip()
        if alias and alias not in aliases:
            aliases.append(alias)
    return tuple(aliases)


def _as_timestamp(value: object) -> float | None:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
    if isinstance(value, str) and value.strip():
        # ISO only: a bare number such as "2024" is a year to a person, not epoch seconds.
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            return _as_timestamp(datetime.fromisoformat(text))
        except ValueError:
            return None
    return None


def frontmatter_timestamp(data: Mapping[str, Any]) -> float | None:
    """Epoch seconds from the first of ``date``/``created``/``updated`` that reads as a date.

    YAML dates and datetimes, and ISO strings (``2024-05-01``, ``2024-05-01T09:30``,
    with ``Z`` or an offset); a date or time without offset is taken as UTC.
    """
    lowered = {str(key).lower(): value for key, value in data.items()}
    for key in DATE_KEYS:
        try:
            stamp = _as_timestamp(lowered.get(key))
        except OverflowError:  # 0001-01-01 with a positive offset falls before year 1
            stamp = None
        if stamp is not None:
            return stamp
    return None
