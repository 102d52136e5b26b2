"""Other languages cut at definitions through tree-sitter, when its wheels are installed.

Uses ``tree-sitter`` and the grammar wheels the tree-sitter organisation publishes on PyPI
(``tree-sitter-javascript``, ``-typescript``, ``-go``, ``-rust``: the ``code`` extra). They
ship compiled grammars, so nothing is fetched at run time; ``tree-sitter-language-pack``
1.x was not used because it downloads grammars on first use. A language whose grammar
is not installed (or a file that does not parse) falls back to blank-line blocks.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

from memex_code.chunks import DEFAULT_CHUNK_CHARS, CodeChunk, cap_chunk, module_chunks

#: language -> (grammar module, function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
}

#: Node types that are a definition of their own (a chunk).
DEFINITIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "method_definition",
        "interface_declaration",
        "enum_declaration",
        "type_alias_declaration",
        "method_declaration",
        "type_declaration",
        "function_item",
        "impl_item",
        "struct_item",
        "enum_item",
        "trait_item",
        "mod_item",
    }
)
#: Definitions whose body holds further definitions (methods) chunked on their own.
CONTAINERS = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "impl_item",
        "trait_item",
        "mod_item",
    }
)
#: Definitions of a type (a struct, an enum, an alias) rather than of a function.
TYPES = frozenset(
    {
        "type_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "struct_item",
        "enum_item",
    }
)
#: Wrappers to look through (``export function f``; ``const f = () => ...``).
WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declarator"})


@cache
def parser_for(language: str) -> Any | None:
    """A tree-sitter parser for ``language``, or None when tree-sitter or its grammar is
    not installed (``pip install 'memex[code]'``)."""
    if language not in GRAMMARS:
        return None
    module_name, function = GRAMMARS[language]
    try:
        import tree_sitter

        grammar: Callable[[], Any] = getattr(importlib.import_module(module_name), function)
        return tree_sitter.Parser(tree_sitter.Language(grammar()))
    except (ImportError, AttributeError, ValueError, TypeError):
        return None


def treesitter_chunks(
    text: str, language: str, *, max_chars: int = DEFAULT_CHUNK_CHARS
) -> list[CodeChunk] | None:
    """The chunks of ``text`` in ``language``, or None when no parser serves it (or the
    file has parse errors at the top level: blank-line blocks read it more faithfully)."""
    parser = parser_for(language)
    if parser is None:
        return None
    data = text.encode("utf-8")
    tree = parser.parse(data)
    if tree.root_node.has_error:
        return None
    lines = text.split("\n")
    found: list[CodeChunk] = []
    covered: set[int] = set()
    _walk(tree.root_node.children, "", data, lines, found, covered)
    found.extend(module_chunks(lines, covered, max_chars=max_chars))
    capped = [piece for chunk in found for piece in cap_chunk(chunk, max_chars)]
    return sorted(capped, key=lambda c: (c.start, c.end))


def _name(node: Any, data: bytes) -> str:
    named = node.child_by_field_name("name") or node.child_by_field_name("type")
    if named is None and node.type == "type_declaration":  # Go: type X struct {...}
        spec = next((c for c in node.named_children if c.type == "type_spec"), None)
        named = spec.child_by_field_name("name") if spec is not None else None
    if named is None:
        return node.type
    return data[named.start_byte : named.end_byte].decode("utf-8", "replace")


def _receiver(node: Any, data: bytes) -> str:
    """Go: the receiver type of a method (``func (s *Store) Get``) -> ``Store.``."""
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ""
    words = data[receiver.start_byte : receiver.end_byte].decode("utf-8", "replace")
    name = words.strip("()").split()[-1].lstrip("*") if words.strip("()").split() else ""
    return f"{name}." if name else ""


def _walk(
    nodes: list[Any],
    prefix: str,
    data: bytes,
    lines: list[str],
    found: list[CodeChunk],
    covered: set[int],
) -> None:
    for node in nodes:
        if node.type in WRAPPERS:
            inner = [c for c in node.named_children if c.type in DEFINITIONS | WRAPPERS]
            value = node.child_by_field_name("value")
            is_function = value is not None and "function" in value.type
            if node.type == "variable_declarator" and is_function:
                _add(node, f"{prefix}{_name(node, data)}", "function", lines, found, covered)
            else:
                _walk(inner, prefix, data, lines, found, covered)
            continue
        if node.type not in DEFINITIONS:
            continue
        name = f"{prefix}{_receiver(node, data)}{_name(node, data)}"
        if node.type in CONTAINERS:
            body = node.child_by_field_name("body")
            inner_covered: set[int] = set()
            if body is not None:
                _walk(body.named_children, f"{name}.", data, lines, found, inner_covered)
            start, end = node.start_point[0] + 1, node.end_point[0] + 1
            own = [n for n in range(start, end + 1) if n not in inner_covered]
            text = "\n".join(lines[n - 1] for n in own)
            found.append(CodeChunk(name, "class", start, end, text))
            covered.update(range(start, end + 1))
            continue
        method = prefix or node.type in ("method_definition", "method_declaration")
        kind = "type" if node.type in TYPES else "method" if method else "function"
        _add(node, name, kind, lines, found, covered)


def _add(
    node: Any, name: str, kind: str, lines: list[str], found: list[CodeChunk], covered: set[int]
) -> None:
    start, end = node.start_point[0] + 1, node.end_point[0] + 1
    while start > 1 and lines[start - 2].lstrip().startswith(("//", "/*", "*", "#[")):
        start -= 1  # doc comments and attributes go with what they describe
    if any(n in covered for n in range(start, end + 1)):
        start = node.start_point[0] + 1
    found.append(CodeChunk(name, kind, start, end, "\n".join(lines[start - 1 : end])))
    covered.update(range(start, end + 1))
