"""Render Claude Code content blocks and Claude Code's tagged user lines as plain text.

Message content is a string (a typed prompt) or a list of blocks: ``text``,
``thinking``, ``tool_use``, ``tool_result`` and, rarely, images. Slash commands
and local command output arrive as user lines wrapped in XML-like tags
(``<command-name>/mcp</command-name>``, ``<local-command-stdout>...``); they are
unwrapped here so the index sees ``/mcp`` rather than markup. Terminal colour
codes in command output are removed. Nothing here raises on odd shapes.
"""

from __future__ import annotations

import json
import re
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_TAG = r"<{0}>(.*?)</{0}>"

#: What Claude Code writes for a prompt the user cut short; markers, not words anyone typed.
INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")

#: Tags whose text is output of a command the user ran themselves (``/mcp``, ``!ls``).
_OUTPUT_TAGS = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour and cursor codes."""
    return _ANSI.sub("", text)


def _tag(text: str, name: str) -> str | None:
    match = re.search(_TAG.format(re.escape(name)), text, re.DOTALL)
    return match.group(1).strip() if match else None


def slash_command(text: str) -> str | None:
    """``/name args`` for a ``<command-name>`` line, or a ``! cmd`` for a ``<bash-input>`` one."""
    name = _tag(text, "command-name")
    if name is not None:
        args = _tag(text, "command-args") or ""
        return f"{name} {args}".strip()
    command = _tag(text, "bash-input")
    return f"! {command}" if command is not None else None


def command_output(text: str) -> str | None:
    """The output of a local command line (its tags joined, colour codes removed), or ``None``.

    Only a line made entirely of output tags counts; a prompt that merely
    mentions one is a prompt.
    """
    pattern = "|".join(re.escape(tag) for tag in _OUTPUT_TAGS)
    whole = re.fullmatch(rf"\s*(?:<({pattern})>.*?</\1>\s*)+", text, re.DOTALL)
    if whole is None:
        return None
    pieces = [_tag(text, tag) for tag in _OUTPUT_TAGS]
    return strip_ansi("\n".join(piece for piece in pieces if piece)).strip()


def render_input(value: object) -> str:
    """Tool input as readable text: ``key: value`` lines for flat objects, else JSON."""
    if isinstance(value, dict) and all(
        isinstance(item, str | int | float) or item is None for item in value.values()
    ):
        return "\n".join(f"{key}: {item}" for key, item in value.items())
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)


def trim(text: str) -> str:
    """``text`` without blank lines around it; indentation of its first line stays."""
    return re.sub(r"\A(?:[ \t]*\r?\n)+", "", text).rstrip()


def render_result(value: object) -> str:
    """A ``tool_result`` block's content: a string, or a list of text / image blocks.

    Whitespace inside is kept (a file listing's indentation is part of it).
    """
    if isinstance(value, str):
        return trim(value)
    if value is None:
        return ""
    pieces: list[str] = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str):
            pieces.append(item.strip())
        elif isinstance(item, dict) and item.get("type") == "text":
            pieces.append(trim(str(item.get("text") or "")))
        elif isinstance(item, dict):
            pieces.append(f"[{item.get('type') or 'unknown'}]")
        else:
            pieces.append(json.dumps(item, ensure_ascii=False))
    return "\n\n".join(piece for piece in pieces if piece)


def as_blocks(content: object) -> list[dict[str, Any]]:
    """Message content as a list of block dicts (a string becomes one ``text`` block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [
            item if isinstance(item, dict) else {"type": "text", "text": item}
            for item in content
            if isinstance(item, dict | str)
        ]
    return []
