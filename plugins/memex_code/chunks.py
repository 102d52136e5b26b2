"""A chunk of source code: a symbol's lines, and the blank-line fallback that any text gets.

Pure: no parsing library here. The Python chunker (:mod:`memex_code.python_chunks`) and the
tree-sitter one (:mod:`memex_code.treesitter_chunks`) both produce :class:`CodeChunk`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Longest chunk kept whole; a longer function is cut into line windows (parts).
DEFAULT_CHUNK_CHARS = 4000
#: What blank-line blocks are merged up to before a new chunk starts.
BLOCK_TARGET_CHARS = 1500


@dataclass(frozen=True)
class CodeChunk:
    """Lines ``start``..``end`` (1-based, inclusive) of a file, named by ``symbol``.

    ``symbol`` is the qualified name (``Memex.search``), ``"<module>"`` for top-level
    code outside any definition, or ``""`` for a block of a file read as plain text.
    ``text`` is what the chunk shows: usually exactly those lines; a class chunk
    leaves its methods out (they are chunks of their own).
    """

    symbol: str
    kind: str  # "function", "method", "class", "type", "module" or "block"
    start: int
    end: int
    text: str


def cap_chunk(chunk: CodeChunk, max_chars: int = DEFAULT_CHUNK_CHARS) -> list[CodeChunk]:
    """``chunk`` itself, or line windows of at most ``max_chars`` (a line longer than that
    is cut) when it is longer, each naming the same symbol and its own lines."""
    if len(chunk.text) <= max_chars:
        return [chunk]
    lines = chunk.text.split("\n")
    pieces: list[CodeChunk] = []
    buffer: list[str] = []
    size = 0
    first = chunk.start
    for offset, line in enumerate(lines):
        line = line[:max_chars]
        if buffer and size + len(line) + 1 > max_chars:
            pieces.append(_piece(chunk, first, buffer))
            buffer, size, first = [], 0, chunk.start + offset
        buffer.append(line)
        size += len(line) + 1
    if buffer:
        pieces.append(_piece(chunk, first, buffer))
    if chunk.kind == "class":
        # A class chunk's text skips its methods, so its lines are not contiguous:
        # every piece keeps the class's whole span rather than a made-up one.
        return [CodeChunk(p.symbol, p.kind, chunk.start, chunk.end, p.text) for p in pieces]
    return pieces


def _piece(chunk: CodeChunk, first: int, lines: list[str]) -> CodeChunk:
    return CodeChunk(chunk.symbol, chunk.kind, first, first + len(lines) - 1, "\n".join(lines))


def blank_line_blocks(
    text: str, *, target_chars: int = BLOCK_TARGET_CHARS, max_chars: int = DEFAULT_CHUNK_CHARS
) -> list[CodeChunk]:
    """Blocks separated by blank lines, merged up to ``target_chars`` and capped at
    ``max_chars``: the chunking for files no parser reads (and Python that does not parse)."""
    lines = text.split("\n")
    blocks: list[tuple[int, int]] = []  # 0-based inclusive line spans of non-blank runs
    start = None
    for number, line in enumerate(lines):
        if line.strip():
            if start is None:
                start = number
        elif start is not None:
            blocks.append((start, number - 1))
            start = None
    if start is not None:
        blocks.append((start, len(lines) - 1))
    chunks: list[CodeChunk] = []
    current: tuple[int, int] | None = None
    for block in blocks:
        if current is not None:
            merged = (current[0], block[1])
            if _span_chars(lines, merged) <= target_chars:
                current = merged
                continue
            chunks.extend(_block(lines, current, max_chars))
        current = block
    if current is not None:
        chunks.extend(_block(lines, current, max_chars))
    return chunks


def _span_chars(lines: list[str], span: tuple[int, int]) -> int:
    return sum(len(line) + 1 for line in lines[span[0] : span[1] + 1])


def _block(lines: list[str], span: tuple[int, int], max_chars: int) -> list[CodeChunk]:
    text = "\n".join(lines[span[0] : span[1] + 1])
    return cap_chunk(CodeChunk("", "block", span[0] + 1, span[1] + 1, text), max_chars)


def module_chunks(
    lines: list[str], covered: set[int], *, max_chars: int = DEFAULT_CHUNK_CHARS
) -> list[CodeChunk]:
    """The file's top-level code outside every definition (imports, constants, a main
    guard): runs of uncovered lines, as ``<module>`` chunks split at blank lines."""
    chunks: list[CodeChunk] = []
    run: list[int] = []

    def flush() -> None:
        if not run:
            return
        first, last = run[0], run[-1]
        text = "\n".join(lines[first - 1 : last])
        for block in blank_line_blocks(text, max_chars=max_chars):
            chunks.append(
                CodeChunk(
                    "<module>", "module", first + block.start - 1, first + block.end - 1, block.text
                )
            )
        run.clear()

    for number in range(1, len(lines) + 1):
        if number in covered:
            flush()
        else:
            run.append(number)
    flush()
    return chunks
