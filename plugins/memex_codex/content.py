"""Turn the payloads of Codex response items into readable, searchable text.

Nothing here raises on odd shapes: a field of an unexpected type renders as
little as it can (often nothing), so one strange item never stops a session.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from memex_core.domain.session_summary import shorten_line
from memex_core.source_kit import replace_lone_surrogates

_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")
_EXIT_CODE = re.compile(r"^(?:exit code|process exited with code)\s*:?\s*(-?\d+)\b", re.IGNORECASE)


def as_dict(value: object) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one (odd shapes render as nothing)."""
    return value if isinstance(value, dict) else {}


def _clean(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def part_texts(parts: object) -> list[str]:
    """The text of each content part (``input_text``, ``output_text``...); images as ``[image]``."""
    if isinstance(parts, str):
        return [parts.strip()] if parts.strip() else []
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, str):
            if part.strip():
                texts.append(part.strip())
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in _TEXT_PARTS and _clean(part.get("text")):
            texts.append(_clean(part.get("text")))
        elif isinstance(kind, str) and "image" in kind:
            texts.append("[image]")
    return texts


def message_text(payload: dict[str, Any]) -> str:
    """A message's text: its parts joined by blank lines."""
    return "\n\n".join(part_texts(payload.get("content")))


def reasoning_summary(payload: dict[str, Any]) -> str:
    """A ``reasoning`` item's summary text; the (encrypted) reasoning itself is never read."""
    summary = payload.get("summary")
    if not isinstance(summary, list):
        return ""
    return "\n\n".join(
        _clean(part.get("text"))
        for part in summary
        if isinstance(part, dict) and _clean(part.get("text"))
    )


def _render_value(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return shlex.join(value)  # a command vector, as a shell line
    return json.dumps(value, ensure_ascii=False)


def render_arguments(arguments: object) -> str:
    """A call's arguments: ``key: value`` lines for a JSON object, else the text as given.

    Function-call arguments are a JSON string; command vectors such as
    ``["bash", "-lc", "ls -la"]`` read as ``bash -lc 'ls -la'``. Text that is
    not JSON (redacted captures, free-form tool input) is kept verbatim.
    """
    value: object = arguments
    if isinstance(arguments, str):
        try:
            value = replace_lone_surrogates(json.loads(arguments))
        except (ValueError, RecursionError):
            return arguments.strip()
    if isinstance(value, dict):
        return "\n".join(f"{key}: {_render_value(item)}" for key, item in value.items()).strip()
    if value is None:
        return ""
    return _render_value(value).strip()


def tool_call_body(payload: dict[str, Any]) -> tuple[str, str]:
    """``(tool name, body)`` of a call item of any kind."""
    kind = payload.get("type")
    if kind == "custom_tool_call":
        return _clean(payload.get("name")) or "tool", _clean(payload.get("input"))
    if kind == "local_shell_call":
        action = as_dict(payload.get("action"))
        lines = []
        command = action.get("command")
        if command:
            lines.append(f"command: {_render_value(command)}")
        if _clean(action.get("working_directory")):
            lines.append(f"workdir: {_clean(action.get('working_directory'))}")
        return "local_shell", "\n".join(lines)
    if kind == "web_search_call":
        action = as_dict(payload.get("action"))
        fields = {k: v for k, v in action.items() if k != "type" and v}
        return "web_search", render_arguments(fields) if fields else ""
    return _clean(payload.get("name")) or "tool", render_arguments(payload.get("arguments"))


def tool_output(payload: dict[str, Any]) -> tuple[str, int | None]:
    """``(text, exit code or None)`` of an output item.

    ``output`` is plain text in current Codex; older shell tools wrapped it as a
    JSON string ``{"output": ..., "metadata": {"exit_code": ...}}``; custom
    tools may return content parts; some versions use ``{"content": ...}``.
    """
    output = payload.get("output")
    exit_code: int | None = None
    if isinstance(output, str):
        text = output
        stripped = output.lstrip()
        if stripped.startswith("{"):
            try:
                wrapped = replace_lone_surrogates(json.loads(stripped))
            except (ValueError, RecursionError):
                wrapped = None
            if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
                text = wrapped["output"]
                meta = wrapped.get("metadata")
                if isinstance(meta, dict) and _is_int(meta.get("exit_code")):
                    exit_code = meta["exit_code"]
    elif isinstance(output, list):
        text = "\n\n".join(part_texts(output))
    elif isinstance(output, dict):
        inner = output.get("content", output.get("output"))
        text = "\n\n".join(part_texts(inner)) if inner is not None else json.dumps(output)
    elif output is None:
        text = ""
    else:
        text = json.dumps(output, ensure_ascii=False)
    if exit_code is None:
        exit_code = _exit_code_from_text(text)
    return text.strip(), exit_code


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _exit_code_from_text(text: str) -> int | None:
    """``Exit code: N`` / ``Process exited with code N`` in the first lines of an output."""
    for line in text.splitlines()[:3]:
        match = _EXIT_CODE.match(line.strip())
        if match:
            return int(match.group(1))
    return None


def short_title(text: str, limit: int = 80) -> str:
    """The first line of ``text``, whitespace collapsed, cut at a word within ``limit``."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return shorten_line(first, limit)
