"""Append-only string tables: the vocabulary and the filter columns' value lists.

A table maps strings to small integer codes (the position of first insertion).
Codes never change while a table lives, so arrays of codes stay valid as the
table grows. The first ``frozen`` values were persisted with the base segment;
the rest travel with each flush of the delta.
"""

from __future__ import annotations

from collections.abc import Iterable


class StringTable:
    def __init__(self, values: Iterable[str] = (), frozen: int | None = None) -> None:
        self.values: list[str] = list(values)
        self.frozen = len(self.values) if frozen is None else frozen
        # Built on first lookup: opening an index for a count or a filter-only
        # question should not pay for hashing a large vocabulary.
        self._index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.values)

    @property
    def index(self) -> dict[str, int]:
        if self._index is None:
            self._index = {value: code for code, value in enumerate(self.values)}
        return self._index

    def lookup(self, value: str) -> int | None:
        return self.index.get(value)

    def code(self, value: str) -> int:
        """The code of ``value``, adding it if new."""
        index = self.index
        found = index.get(value)
        if found is None:
            found = index[value] = len(self.values)
            self.values.append(value)
        return found

    def codes(self, values: Iterable[str]) -> list[int]:
        """Codes for many values at once (the hot loop of indexing)."""
        index = self.index
        table = self.values
        out = []
        for value in values:
            found = index.get(value)
            if found is None:
                found = index[value] = len(table)
                table.append(value)
            out.append(found)
        return out

    @property
    def tail(self) -> list[str]:
        """Values added since the table was last frozen."""
        return self.values[self.frozen :]

    def freeze(self) -> None:
        self.frozen = len(self.values)
