"""Python files cut at function and class boundaries, through the standard library's ``ast``.

Every top-level function is a chunk; a class is a chunk (its header, docstring and class
attributes) and each of its methods another, named ``Class.method``; nested classes recurse
(``Outer.Inner.method``). Decorators and the comment lines right above a definition go with
it; docstrings stay inside it. Functions nested in functions stay in their parent. What is
left (imports, constants, a ``__main__`` guard) becomes ``<module>`` chunks. A file that does
not parse is cut by blank lines instead (:func:`memex_code.chunks.blank_line_blocks`).
"""

from __future__ import annotations

import ast

from memex_code.chunks import (
    DEFAULT_CHUNK_CHARS,
    CodeChunk,
    blank_line_blocks,
    cap_chunk,
    module_chunks,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def python_chunks(text: str, *, max_chars: int = DEFAULT_CHUNK_CHARS) -> list[CodeChunk]:
    """The chunks of Python source ``text``, in line order."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte in the source
        return blank_line_blocks(text, max_chars=max_chars)
    lines = text.split("\n")
    found: list[CodeChunk] = []
    covered: set[int] = set()
    _definitions(tree.body, "", lines, found, covered)
    found.extend(module_chunks(lines, covered, max_chars=max_chars))
    capped = [piece for chunk in found for piece in cap_chunk(chunk, max_chars)]
    return sorted(capped, key=lambda c: (c.start, c.end))


def _first_line(node: ast.stmt, lines: list[str]) -> int:
    """Where a definition starts: its first decorator, or comment lines right above it."""
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    return first


def _definitions(
    body: list[ast.stmt],
    prefix: str,
    lines: list[str],
    found: list[CodeChunk],
    covered: set[int],
) -> None:
    for node in body:
        if not isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        start, end = _first_line(node, lines), node.end_lineno or node.lineno
        name = f"{prefix}{node.name}"
        if isinstance(node, _FUNCTIONS):
            kind = "method" if prefix else "function"
            found.append(CodeChunk(name, kind, start, end, "\n".join(lines[start - 1 : end])))
            covered.update(range(start, end + 1))
            continue
        inner: set[int] = set()
        _definitions(node.body, f"{name}.", lines, found, inner)
        own = [n for n in range(start, end + 1) if n not in inner]
        text = "\n".join(lines[n - 1] for n in own)
        found.append(CodeChunk(name, "class", start, end, text))
        covered.update(range(start, end + 1))
