"""Build small, format-faithful ChatGPT exports in tests (mapping tree, current_node)."""

from __future__ import annotations

import json
from pathlib import Path

Message = tuple[str, str, float]  # role, text, create_time


def chatgpt_conversation(conv_id: str, title: str, messages: list[Message]) -> dict:
    mapping: dict[str, dict] = {
        "root": {"id": "root", "message": None, "parent": None, "children": []}
    }
    parent = "root"
    for n, (role, text, created) in enumerate(messages):
        node = f"{conv_id}-n{n}"
        mapping[parent]["children"].append(node)
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {
                "id": node,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": created,
                "update_time": None,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "end_turn": True,
                "weight": 1.0,
                "metadata": {},
                "recipient": "all",
            },
        }
        parent = node
    return {
        "title": title,
        "create_time": messages[0][2] if messages else None,
        "update_time": messages[-1][2] if messages else None,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": conv_id,
        "id": conv_id,
    }


DAY = 86400.0
T0 = 1_704_067_200.0  # 2024-01-01T00:00:00Z

CONVERSATIONS = [
    chatgpt_conversation(
        "conv-sqlite",
        "SQLite locking",
        [
            ("user", "My app says database is locked when two processes write to SQLite.", T0),
            (
                "assistant",
                "Enable WAL mode with PRAGMA journal_mode=WAL and set a busy_timeout "
                "so writers wait instead of failing with SQLITE_BUSY.",
                T0 + 60,
            ),
        ],
    ),
    chatgpt_conversation(
        "conv-bread",
        "Sourdough",
        [
            (
                "user",
                "How long should sourdough bread proof overnight in the fridge?",
                T0 + 30 * DAY,
            ),
            (
                "assistant",
                "A cold retard of 12 to 16 hours develops flavour; bake straight from "
                "the fridge in a preheated dutch oven.",
                T0 + 30 * DAY + 60,
            ),
        ],
    ),
    chatgpt_conversation(
        "conv-lisbon",
        "Trip to Lisbon",
        [
            (
                "user",
                "Plan three days in Lisbon with trams, pastries and a day trip to Sintra.",
                T0 + 200 * DAY,
            ),
            (
                "assistant",
                "Day one: tram 28 through Alfama and pastel de nata in Belém. Day two: "
                "Sintra palaces. Day three: LX Factory and sunset at a miradouro.",
                T0 + 200 * DAY + 60,
            ),
        ],
    ),
]


def write_chatgpt_export(path: Path, conversations: list[dict] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversations if conversations is not None else CONVERSATIONS))
    return path


def app_turn(text: str, *, timestamp: float | None = T0) -> list:
    """One user turn built in code, as an app hands it to ``Memex.add_fragments``."""
    from memex_core.domain.chunking import message_fragments

    return list(
        message_fragments(
            source_kind="app",
            source_path="app:test",
            conversation_id="s1",
            message_id="t1",
            role="user",
            text=text,
            timestamp=timestamp,
            title=None,
        )
    )
