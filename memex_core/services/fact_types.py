"""Loading custom fact types from a YAML or TOML file.

YAML (``.yaml`` / ``.yml``)::

    extends_defaults: true        # optional: add to mem0's seven instead of replacing them
    fact_types:
      - name: pet
        description: The user's pets, their names and needs.
        examples: ["User has a beagle called Rex"]

TOML (``.toml``)::

    extends_defaults = true
    [[fact_types]]
    name = "pet"
    description = "The user's pets, their names and needs."
    examples = ["User has a beagle called Rex"]

With ``extends_defaults`` an entry named like a default type (``health``...)
replaces that default in place; without it the file's types are the whole list.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from memex_core.domain.contracts import FactType
from memex_core.domain.memory.facts import DEFAULT_FACT_TYPES, FACT_TYPE_NAME
from memex_core.errors import MemexError

_TOP_KEYS = ("fact_types", "extends_defaults")
_ENTRY_KEYS = ("name", "description", "examples")


class FactTypesError(MemexError):
    """A fact types file cannot be used. The message names the file, the entry and the fix."""

    def __init__(self, path: Path, reason: str, entry: str | None = None) -> None:
        self.path = path
        self.reason = reason
        self.entry = entry
        where = f"{path}" + (f" ({entry})" if entry else "")
        super().__init__(f"{where}: {reason}")


def load_fact_types(path: str | Path) -> tuple[FactType, ...]:
    """Read the fact types a YAML or TOML file defines (see the module docstring)."""
    file = Path(path).expanduser()
    data = _read(file)
    if not isinstance(data, Mapping):
        raise FactTypesError(file, f"expected a table with a `fact_types` list; {_EXAMPLE_HINT}")
    unknown = sorted(str(k) for k in data if k not in _TOP_KEYS)
    if unknown:
        raise FactTypesError(
            file,
            f"unknown top-level key(s) {', '.join(unknown)}; the known keys are "
            f"{', '.join(_TOP_KEYS)}.",
        )
    extends = data.get("extends_defaults", False)
    if not isinstance(extends, bool):
        raise FactTypesError(
            file, f"extends_defaults = {extends!r}: use true or false (default false)."
        )
    entries = data.get("fact_types")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise FactTypesError(file, f"`fact_types` must be a list; {_EXAMPLE_HINT}")
    if not entries and not extends:
        raise FactTypesError(
            file,
            "defines no fact types; add entries under `fact_types`, or set "
            "extends_defaults = true to use the defaults.",
        )
    loaded = _entries(file, entries)
    if not extends:
        return tuple(loaded)
    replacing = {t.name: t for t in loaded}
    merged = [replacing.pop(t.name, t) for t in DEFAULT_FACT_TYPES]
    return (*merged, *(t for t in loaded if t.name in replacing))


_EXAMPLE_HINT = (
    "for example (YAML) `fact_types: [{name: pet, description: The user's pets}]` "
    'or (TOML) `[[fact_types]]` `name = "pet"` `description = "The user\'s pets"`.'
)


def _read(file: Path) -> Any:
    suffix = file.suffix.lower()
    if suffix not in (".yaml", ".yml", ".toml"):
        raise FactTypesError(
            file, "unknown file type; name the file *.yaml, *.yml or *.toml to say which it is."
        )
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FactTypesError(file, "no such file; check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FactTypesError(file, f"cannot read it ({exc}).") from exc
    if suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise FactTypesError(file, f"invalid TOML: {exc}. Fix the syntax.") from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise FactTypesError(file, f"invalid YAML: {problem}. Fix the syntax.", at) from exc


def _entries(file: Path, entries: list[Any]) -> list[FactType]:
    seen: dict[str, int] = {}
    types: list[FactType] = []
    for number, entry in enumerate(entries, start=1):
        label = f"fact_types entry {number}"
        if not isinstance(entry, Mapping):
            raise FactTypesError(
                file, "each entry must be a table with `name` and `description`.", label
            )
        name = entry.get("name")
        if isinstance(name, str):
            label += f" {name!r}"
        unknown = sorted(str(k) for k in entry if k not in _ENTRY_KEYS)
        if unknown:
            raise FactTypesError(
                file,
                f"unknown key(s) {', '.join(unknown)}; an entry has {', '.join(_ENTRY_KEYS)}.",
                label,
            )
        if not isinstance(name, str) or not name:
            raise FactTypesError(file, 'missing `name`; add e.g. name = "pet".', label)
        if not FACT_TYPE_NAME.fullmatch(name):
            suggestion = "_".join("".join(c if c.isalnum() else " " for c in name).split())
            raise FactTypesError(
                file,
                "a name is lower-case letters, digits and _, starting with a letter "
                f"([a-z][a-z0-9_]*); rename it, e.g. {suggestion.lower() or 'pet'!r}.",
                label,
            )
        if name in seen:
            raise FactTypesError(
                file,
                f"duplicate name {name!r} (entry {seen[name]} has it too); "
                "rename one or merge them.",
                label,
            )
        seen[name] = number
        description = entry.get("description")
        if not isinstance(description, str) or not description.strip():
            raise FactTypesError(
                file,
                "missing `description`; add one sentence saying what belongs in this type "
                "(extractors show it to the model).",
                label,
            )
        examples = entry.get("examples", [])
        if isinstance(examples, str):
            examples = [examples]
        if not isinstance(examples, list) or not all(
            isinstance(e, str) and e.strip() for e in examples
        ):
            raise FactTypesError(
                file,
                '`examples` must be a list of non-empty strings, e.g. ["User has a cat"].',
                label,
            )
        types.append(FactType(name, description.strip(), tuple(e.strip() for e in examples)))
    return types
