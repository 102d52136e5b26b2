"""Resolve a link as written (``[[Note]]``, ``[[Folder/Note]]``, ``![[img.png]]``) to a file path.

Pure: it works on the list of a folder's files and its notes' aliases, no I/O.
The order follows Obsidian, first match wins:

1. an empty target (``[[#Heading]]``) is the linking note itself;
2. ``./x`` and ``../x`` are relative to the linking note's folder, and only that;
3. the exact vault-relative path, with ``.md`` added or as written (same case
   first, then ignoring case, as Obsidian does on every platform);
4. the same relative to the linking note's folder (``[[Security and privacy]]``
   from ``Obsidian Sync/...`` finds ``Obsidian Sync/Security and privacy.md``);
5. any file whose path ends with the target, compared case-insensitively
   (a bare name is a basename match); among several, the shortest path wins
   (fewest folders, then fewest characters, then alphabetical, so the choice
   never depends on listing order);
6. an alias of a note, case-insensitively (same tie-break).

Anything else is unresolved (``None``). Headings and block ids are not part of
the target and are not checked here.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

NOTE_SUFFIX = ".md"


def _shortest_first(path: str) -> tuple[int, int, str]:
    return (path.count("/"), len(path), path)


def _normalise(target: str) -> str:
    """Trim, use ``/`` separators, drop a leading ``/`` (paths are vault-relative)."""
    return target.strip().replace("\\", "/").lstrip("/")


def _names(path: str) -> tuple[str, ...]:
    """The lowercase names a file answers to: its path, and without ``.md`` for a note."""
    lowered = path.lower()
    if lowered.endswith(NOTE_SUFFIX):
        return lowered, lowered[: -len(NOTE_SUFFIX)]
    return (lowered,)


class LinkResolver:
    """Resolves link targets within one folder (a vault).

    ``files`` are all the folder's files, relative and ``/``-separated (notes
    and attachments); ``aliases`` maps a note's path to its aliases.
    """

    def __init__(self, files: Iterable[str], aliases: Mapping[str, Iterable[str]]) -> None:
        self._files = set(files)
        self._by_lower: dict[str, str] = {}
        for path in sorted(self._files):  # sorted: case variants resolve the same every time
            self._by_lower.setdefault(path.lower(), path)
        self._by_basename: dict[str, list[str]] = {}
        for path in self._files:
            for name in _names(path):
                basename = name.rsplit("/", 1)[-1]
                self._by_basename.setdefault(basename, []).append(path)
        self._by_alias: dict[str, list[str]] = {}
        for path, names in aliases.items():
            for alias in names:
                key = _normalise(alias).lower()
                if key:
                    self._by_alias.setdefault(key, []).append(path)

    def _exact(self, path: str) -> str | None:
        for candidate in (path + NOTE_SUFFIX, path):
            if candidate in self._files:
                return candidate
        for candidate in (path + NOTE_SUFFIX, path):
            if candidate.lower() in self._by_lower:
                return self._by_lower[candidate.lower()]
        return None

    def _by_suffix(self, target: str) -> str | None:
        lowered = target.lower()
        basename = lowered.rsplit("/", 1)[-1]
        matches = {
            path
            for path in self._by_basename.get(basename, ())
            if any(name == lowered or name.endswith("/" + lowered) for name in _names(path))
        }
        return min(matches, key=_shortest_first) if matches else None

    def _by_alias_name(self, target: str) -> str | None:
        lowered = target.lower()
        matches = set(self._by_alias.get(lowered, ()))
        if not matches and lowered.endswith(NOTE_SUFFIX):
            matches = set(self._by_alias.get(lowered[: -len(NOTE_SUFFIX)], ()))
        return min(matches, key=_shortest_first) if matches else None

    def resolve(self, target: str, from_path: str) -> str | None:
        """The path of the file ``target`` points at from note ``from_path``, or ``None``."""
        wanted = _normalise(target)
        if not wanted:
            return from_path
        folder = posixpath.dirname(from_path)
        if wanted.startswith(("./", "../")):
            joined = posixpath.normpath(posixpath.join(folder, wanted))
            escapes = joined == ".." or joined.startswith("../")
            return None if escapes else self._exact(joined)
        found = self._exact(wanted)
        if found is None and folder:
            found = self._exact(f"{folder}/{wanted}")
        return found or self._by_suffix(wanted) or self._by_alias_name(wanted)
