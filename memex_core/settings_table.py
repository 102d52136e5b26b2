"""A component's own table of config.toml, checked with one wording for every table.

Each component that takes settings (``[keyword.bm25]``, ``[source.codex]``,
``[ranker.hubs]``, ``[capture]`` ...) does the same two checks before it is built:
a key it does not know is refused with the list of the keys it does know, and a
value that does not fit is refused naming the key, the value as written and what
to write instead. :class:`SettingsTable` does both, so a user reads the same kind
of message whichever table they got wrong, and a new component gets them for free::

    from memex_core.settings_table import SettingsTable, is_number

    TABLE = SettingsTable(
        "config.toml [ranker.hubs]",
        HubsSettingError,
        hints={"k": "a non-negative number (default 10)", "boost": "..."},
    )

    def parse_settings(settings):
        settings = TABLE.checked(settings)   # unknown keys: "... has unknown setting(s) ..."
        values = TABLE.values(settings, lambda key, value: is_number(value) and value >= 0)
        return HubsSettings(**values)        # a bad value: "... k = -1: use a non-negative ..."

This module imports nothing of memex: the domain, services and plugins may all use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: What the "known settings" list is introduced with, unless a table says otherwise.
KNOWN_LABEL = "known settings are:"


def is_number(value: Any) -> bool:
    """An int or a float, and not a bool: ``k = true`` in TOML is a typo, not 1."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """:func:`is_number` and neither ``nan`` nor ``inf`` (both are valid TOML floats)."""
    return is_number(value) and math.isfinite(value)


def is_whole_number(value: Any) -> bool:
    """An int, and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def positive_seconds(
    settings: Mapping[str, Any],
    key: str,
    default: float,
    *,
    table: str,
    error: Callable[[str], Exception],
) -> float:
    """``settings[key]`` (``default`` when absent) as a positive number of seconds.

    Raises ``error``: ``"[<table>] <key> in config.toml must be a positive number of
    seconds, got <value!r>. Fix or remove it (the default is <default>)."``
    """
    value = settings.get(key, default)
    if not is_number(value) or value <= 0:
        raise error(
            f"[{table}] {key} in config.toml must be a positive number of seconds, got "
            f"{value!r}. Fix or remove it (the default is {default:g})."
        )
    return float(value)


def not_a_table(path: object, name: str, example: str) -> str:
    """``"<path>: `<name>` must be a table, e.g. [<name>] <example>"``: config.toml gave
    ``name`` a value where a table of settings belongs."""
    return f"{path}: `{name}` must be a table, e.g. [{name}] {example}"


def unknown_settings(
    settings: Mapping[str, Any], known: Iterable[str], *, known_label: str = KNOWN_LABEL
) -> str | None:
    """``"unknown setting(s) a, b; known settings are: x, y."``, or None when all are known.

    For a table whose messages are worded around it (see :class:`SettingsTable` for
    the usual ``"<table> has ..."``).
    """
    known = tuple(known)
    unknown = sorted(set(settings) - set(known))
    if not unknown:
        return None
    return f"unknown setting(s) {', '.join(unknown)}; {known_label} {', '.join(known)}."


@dataclass(frozen=True)
class SettingsTable:
    """One config.toml table: where it is (as messages name it), its keys and its error.

    ``where`` opens every message (``"config.toml [source.codex]"``, or a file's path
    and table). ``hints`` maps each key to what a valid value is; ``known`` lists the
    keys when there are no hints. ``error`` is the :class:`~memex_core.errors.MemexError`
    subclass raised, so callers can catch the component's own error.
    """

    where: str
    error: Callable[[str], Exception]
    hints: Mapping[str, str] = field(default_factory=dict)
    known: tuple[str, ...] = ()
    known_label: str = KNOWN_LABEL

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys the table may hold, in the order messages list them."""
        return self.known or tuple(self.hints)

    def checked(self, settings: Mapping[str, Any] | None) -> dict[str, Any]:
        """A copy of ``settings`` (None: empty) once every key in it is known.

        Raises ``error``: ``"<where> has unknown setting(s) a; known settings are: x, y."``
        """
        table = dict(settings or {})
        problem = unknown_settings(table, self.keys, known_label=self.known_label)
        if problem:
            raise self.error(f"{self.where} has {problem}")
        return table

    def invalid(self, key: str, value: Any, hint: str | None = None) -> Exception:
        """``error`` saying ``"<where> <key> = <value!r>: use <hint>."`` (hint: ``hints[key]``)."""
        return self.error(f"{self.where} {key} = {value!r}: use {hint or self.hints[key]}.")

    def values(
        self,
        settings: Mapping[str, Any],
        valid: Callable[[str, Any], bool],
        *,
        order: Iterable[str] | None = None,
        skip: Iterable[str] = (),
    ) -> dict[str, Any]:
        """The values of ``settings`` (but ``skip``), each one ``valid(key, value)`` accepts.

        The first that it refuses raises :meth:`invalid`. They are checked in the order
        they were written, or in ``order`` (keys not present are passed over).
        """
        skipped = set(skip)
        keys = list(settings) if order is None else [key for key in order if key in settings]
        checked: dict[str, Any] = {}
        for key in keys:
            if key in skipped:
                continue
            value = settings[key]
            if not valid(key, value):
                raise self.invalid(key, value)
            checked[key] = value
        return checked
