"""JSON read from an export, whole or one value at a time, with errors that say where.

A top-level list (every real export) is parsed one entry at a time, so memory
follows the largest entry, not the file. Exports must be UTF-8: a byte that is
not is an error naming its offset (the file is damaged, and guessing would
index garbage); a JSON escape for half a surrogate pair becomes U+FFFD.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memex_core.domain import SourceError
from memex_core.sources.export_files import READ_CHUNK, GuardedReader, open_stream
from memex_core.sources.limits import DEFAULT_LIMITS, DEFAULT_MEMBER, ExportLimits
from memex_core.sources.text import SURROGATE_ESCAPE, replace_lone_surrogates

_JSON = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: An error this close to the end of what was read may only mean "read more".
_TAIL = 16


def _not_utf8(path: str | Path, inside: str, offset: int) -> SourceError:
    return SourceError(
        path,
        f"not UTF-8 text (bad byte at offset {offset}); exports are UTF-8, "
        "so the file is probably damaged or not an export",
        f"{inside}byte {offset}",
    )


def describe_json_error(message: str) -> str:
    """:class:`json.JSONDecodeError`'s ``msg`` as a phrase that stands alone.

    The decoder's messages expect a position after them ("Unterminated string
    starting at", "Invalid control character at"); memex gives the line and column
    separately, so the dangling words go: "unterminated string".
    """
    phrase = message.removesuffix(" at").removesuffix(" starting").strip()
    return phrase[:1].lower() + phrase[1:]


def _invalid_json(path: str | Path, reason: str, location: str) -> SourceError:
    return SourceError(
        path,
        f"invalid JSON ({reason}); the file may be truncated or edited by hand: "
        "download or extract the export again",
        location,
    )


class _JsonText:
    """The decoded text of a byte stream, read on demand, parsed one JSON value at a time.

    Only the unparsed tail is kept (plus one read), so memory follows the
    largest single value. Line and column are tracked across the dropped text
    so errors point at the file, not the buffer.
    """

    def __init__(self, reader: GuardedReader, path: str | Path, inside: str) -> None:
        self.reader = reader
        self.path = path
        self.inside = inside
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.text = ""
        self.pos = 0
        self.eof = False
        self.bytes_in = 0  # bytes handed to the decoder so far
        self.line = 1  # line of text[0]
        self.column = 0  # characters between the start of that line and text[0]
        self.started = False

    # reading

    def more(self, size: int = READ_CHUNK) -> bool:
        """Read about ``size`` more bytes; False once the stream is exhausted."""
        if self.eof:
            return False
        raw = self.reader.read(size)
        pending = len(self.decoder.getstate()[0])
        try:
            chunk = self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise _not_utf8(self.path, self.inside, self.bytes_in - pending + exc.start) from exc
        self.bytes_in += len(raw)
        if not self.started and (chunk or not raw):
            chunk = chunk.removeprefix("\ufeff")
            self.started = True
        self.text += chunk
        if not raw:
            self.eof = True
        return bool(raw)

    def compact(self) -> None:
        """Drop the parsed text once it is worth the copy."""
        if self.pos < READ_CHUNK:
            return
        newlines = self.text.count("\n", 0, self.pos)
        if newlines:
            self.line += newlines
            self.column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1)
        else:
            self.column += self.pos
        self.text = self.text[self.pos :]
        self.pos = 0

    def location(self, index: int) -> str:
        newlines = self.text.count("\n", 0, index)
        # Columns count from the last line end; on the first line, from the dropped text too.
        line_start = self.text.rfind("\n", 0, index)
        column = index - line_start if newlines else self.column + index + 1
        return f"{self.inside}line {self.line + newlines}, column {column}"

    def error(self, reason: str, index: int, what: str = "") -> SourceError:
        return _invalid_json(
            self.path, reason + (f" in {what}" if what else ""), self.location(index)
        )

    # parsing

    def peek(self) -> str:
        """The next character after whitespace (consumed), or ``""`` at the end."""
        while True:
            self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def value(self, what: str = "") -> Any:
        """Parse the value at the current position, reading as much as it needs."""
        while True:
            start = self.pos
            try:
                value, end = _JSON.raw_decode(self.text, start)
            except json.JSONDecodeError as exc:
                incomplete = exc.msg.startswith("Unterminated string") or (
                    exc.pos >= len(self.text) - _TAIL
                )
                if incomplete and not self.eof:
                    # Grow geometrically so a huge value is re-parsed O(log n) times.
                    self.more(max(READ_CHUNK, 2 * (len(self.text) - start)))
                    continue
                raise self.error(describe_json_error(exc.msg), exc.pos, what) from exc
            except RecursionError as exc:
                reason = "JSON nested too deeply to be an export" + (f" in {what}" if what else "")
                raise SourceError(self.path, reason, self.location(start)) from exc
            except ValueError as exc:  # e.g. an integer of more than 4300 digits
                raise self.error(str(exc), start, what) from exc
            if isinstance(value, int | float) and end == len(self.text) and not self.eof:
                self.more()  # a number at the end of what was read may go on
                continue
            if SURROGATE_ESCAPE.search(self.text, start, end):
                value = replace_lone_surrogates(value)
            self.pos = end
            return value

    def expect_end(self) -> None:
        """Nothing but whitespace may follow the top-level value."""
        if self.peek():
            raise self.error("extra data after the end of the JSON value", self.pos)


def iter_top_level(
    path: str | Path, member_name: str, limits: ExportLimits
) -> Iterator[tuple[bool, int, Any]]:
    """``(in_list, index, value)``: each element of a top-level list, read one at a time,
    or the whole top-level value once (``in_list`` False) when it is not a list."""
    with open_stream(path, member_name, limits) as (reader, inside):
        text = _JsonText(reader, path, inside)
        first = text.peek()
        if first != "[":
            if first == "":
                raise text.error("the file is empty", text.pos)
            yield False, 0, text.value()
            text.expect_end()
            return
        text.pos += 1
        if text.peek() == "]":
            text.pos += 1
            text.expect_end()
            return
        index = 0
        while True:
            what = f"conversation {index + 1}"
            yield True, index, text.value(what)
            index += 1
            following = text.peek()
            if following == ",":
                text.pos += 1
                text.peek()
            elif following == "]":
                text.pos += 1
                break
            elif following == "":
                raise text.error("the file ends inside the list: it was cut short", text.pos)
            else:
                raise text.error("expecting ',' or ']' after a list entry", text.pos, what)
            text.compact()
        text.expect_end()


def load_json(path: str | Path, member: str = DEFAULT_MEMBER) -> Any:
    """Parse a JSON file, or ``member`` inside a zip export, whole.

    Invalid JSON raises :class:`SourceError` whose location gives the line and
    column, so the user can look at the broken spot. For big exports prefer
    :func:`iter_export`, which keeps one conversation in memory at a time.
    """
    entries: list[Any] = []
    for in_list, _, value in iter_top_level(path, member, DEFAULT_LIMITS):
        if not in_list:
            return value
        entries.append(value)
    return entries


def find_json_key(text: str, key: str) -> int:
    """Offset of ``"key":`` used as an object key in (possibly truncated) JSON text, or -1.

    Occurrences inside string values do not count: there the quotes would be escaped.
    """
    match = re.search(r'(?<!\\)"' + re.escape(key) + r'"\s*:', text)
    return match.start() if match else -1
