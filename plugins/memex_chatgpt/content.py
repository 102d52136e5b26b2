"""Turn one ChatGPT export message into searchable text, a memex role and metadata.

Only ``text`` content has string ``parts``; other content types carry their
fields directly (``code`` has ``text``, ``tether_quote`` has ``title``/``url``/
``text``...). Anything we do not know is still rendered from its string
fields, and non-text pieces (images, files, unknown part types) become short
placeholders such as ``[image: file-service://file-abc]`` and are listed in
``metadata["non_text_parts"]``, so nothing crashes and nothing vanishes silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memex_core.source_kit import Segment

#: Content types that hold the model's private reasoning, kept out of search by default.
REASONING_TYPES = frozenset({"thoughts", "reasoning_recap"})

_POINTER_LABELS = {
    "image_asset_pointer": "image",
    "file_asset_pointer": "file",
    "audio_asset_pointer": "audio",
    "real_time_user_audio_video_asset_pointer": "audio/video",
    "video_container_asset_pointer": "video",
}

_ROLE_MAP = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "tool": "tool",
    "developer": "system",
}


@dataclass
class RenderedMessage(Segment):
    """A message ready for ``message_fragments``; ``text`` may be empty (then it is skipped)."""

    hidden: bool = False
    reasoning: bool = False


def _as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _pointer_id(pointer: str) -> str:
    return pointer.split("://", 1)[-1]


class _Renderer:
    """Collects text pieces and notes about non-text parts for one message."""

    def __init__(self, attachment_names: dict[str, str]) -> None:
        self.attachment_names = attachment_names
        self.pieces: list[str] = []
        self.non_text: list[str] = []
        self.mentioned_attachments: set[str] = set()

    def add(self, text: object) -> None:
        if isinstance(text, str) and text.strip():
            self.pieces.append(text.strip())

    def part(self, part: object) -> None:
        if part is None:
            return
        if isinstance(part, str):
            self.add(part)
            return
        if not isinstance(part, dict):
            self.add(json.dumps(part, ensure_ascii=False))
            return
        kind = str(part.get("content_type") or "unknown")
        pointer = part.get("asset_pointer")
        if isinstance(pointer, str):
            label = _POINTER_LABELS.get(kind, "file")
            name = self.attachment_names.get(_pointer_id(pointer))
            if name:
                self.mentioned_attachments.add(_pointer_id(pointer))
            self.pieces.append(f"[{label}: {name or pointer}]")
            self.non_text.append(f"{kind}: {pointer}")
        elif isinstance(part.get("text"), str):
            # text parts of multimodal messages and audio transcriptions
            self.add(part["text"])
            if kind not in ("text", "audio_transcription"):
                self.non_text.append(kind)
        else:
            self.pieces.append(f"[{kind}]")
            self.non_text.append(kind)

    def fields(self, content: dict[str, Any], *names: str) -> None:
        for name in names:
            self.add(content.get(name))

    def text(self) -> str:
        return "\n\n".join(self.pieces)


def _render_content(content: dict[str, Any], renderer: _Renderer) -> None:
    kind = content.get("content_type")
    parts = content.get("parts")
    if isinstance(parts, list):
        for part in parts:
            renderer.part(part)
        return
    if kind in ("code", "execution_output"):
        renderer.fields(content, "text")
    elif kind == "tether_browsing_display":
        renderer.fields(content, "result", "summary")
    elif kind == "tether_quote":
        renderer.fields(content, "title", "url", "text")
    elif kind == "system_error":
        renderer.fields(content, "name", "text")
    elif kind == "user_editable_context":
        renderer.fields(content, "user_profile", "user_instructions")
    elif kind == "model_editable_context":
        renderer.fields(content, "model_set_context")
    elif kind == "thoughts":
        for thought in content.get("thoughts") or []:
            renderer.fields(_as_dict(thought), "summary", "content")
    elif kind == "reasoning_recap":
        renderer.fields(content, "content")
    else:
        # Unknown type: keep whatever prose it carries, note that we did not know it.
        for name, value in content.items():
            if name != "content_type":
                renderer.add(value)
        renderer.non_text.append(f"content_type {kind}")


def _citations(metadata: dict[str, Any]) -> list[dict[str, str]]:
    found = []
    for citation in metadata.get("citations") or []:
        meta = _as_dict(_as_dict(citation).get("metadata"))
        entry = {key: meta[key] for key in ("title", "url") if isinstance(meta.get(key), str)}
        if entry:
            found.append(entry)
    return found


def render_message(message: dict[str, Any]) -> RenderedMessage:
    """Render one ``mapping[...]["message"]`` object (never raises on odd shapes)."""
    author = _as_dict(message.get("author"))
    content = _as_dict(message.get("content"))
    metadata = _as_dict(message.get("metadata"))
    author_role = str(author.get("role") or "unknown")
    role = _ROLE_MAP.get(author_role, "assistant")
    kind = content.get("content_type") or "text"
    recipient = message.get("recipient")

    attachments = [_as_dict(item) for item in metadata.get("attachments") or []]
    names = {
        str(item["id"]): str(item["name"])
        for item in attachments
        if item.get("id") is not None and item.get("name")
    }
    renderer = _Renderer(names)
    _render_content(content, renderer)
    # Attachments not shown by a pointer part still deserve a line: their names are searchable.
    for item in attachments:
        if item.get("name") and str(item.get("id")) not in renderer.mentioned_attachments:
            renderer.pieces.append(f"[attachment: {item['name']}]")

    extra: dict[str, Any] = {"content_type": kind}
    if author_role != role:
        extra["author_role"] = author_role
    if isinstance(author.get("name"), str):
        extra["author_name"] = author["name"]
    if isinstance(metadata.get("model_slug"), str):
        extra["model_slug"] = metadata["model_slug"]
    if isinstance(recipient, str) and recipient != "all":
        extra["recipient"] = recipient
    if role == "assistant" and (("recipient" in extra) or kind == "code"):
        extra["tool_call"] = True
    if kind == "code" and isinstance(content.get("language"), str):
        extra["language"] = content["language"]
    if attachments:
        extra["attachments"] = [str(item.get("name") or item.get("id")) for item in attachments]
    if renderer.non_text:
        extra["non_text_parts"] = renderer.non_text
    citations = _citations(metadata)
    if citations:
        extra["citations"] = citations

    text = renderer.text()
    hidden = bool(metadata.get("is_visually_hidden_from_conversation")) or (
        role == "system" and not text
    )
    return RenderedMessage(
        role=role,
        text=text,
        metadata=extra,
        hidden=hidden,
        reasoning=isinstance(kind, str) and kind in REASONING_TYPES,
    )
