"""The MCP server through the official client, at its edges: a misspelled argument is
refused with the valid names (the SDK drops it silently), a prompt called without its
argument gets a clean error and one log line (not a traceback on stderr), and explore
keeps the heading a link points at."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from memex_core.api import Memex
from tests.support.mcp_harness import Home, build_home, mcp_session, run, text_of

GUIDE = (
    "# Guide\n\nChange the theme in [[Settings#Appearance]], fonts in [[Settings#Editor]], "
    "hotkeys in [[Settings#Hotkeys]] and the rest in [[Settings]]; the table is "
    "![[Settings#^plugins]].\n"
)
SETTINGS = (
    "# Settings\n\n## Appearance\nThemes.\n\n## Editor\nFonts.\n\n## Hotkeys\nKeys.\n\n"
    "| core | plugins |\n^plugins\n"
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("mcp-strict")
    built = build_home(root / "home")
    vault = root / "help"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Guide.md").write_text(GUIDE, encoding="utf-8")
    (vault / "Settings.md").write_text(SETTINGS, encoding="utf-8")
    with Memex(built.path) as mx:
        mx.ingest(vault)
    return built


def server_log(home: Home, name: str) -> Path:
    return home.path.parent / f"{name}.log"


@pytest.mark.parametrize(
    ("tool", "arguments", "hint"),
    [
        ("context", {"query": "sqlite", "budget": 500}, "'budget' (did you mean 'budget_chars'?)"),
        ("search", {"query": "sqlite", "limt": 2}, "'limt' (did you mean 'limit'?)"),
        ("timeline", {"fragment_id": "x", "zzz": 1}, "no argument 'zzz'."),
    ],
)
def test_an_unknown_tool_argument_is_refused_with_the_valid_names(
    home: Home, tool: str, arguments: dict[str, object], hint: str
) -> None:
    log = server_log(home, f"unknown-{tool}")

    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice", log=log) as session:
            result = await session.call_tool(tool, arguments)
            assert result.is_error
            text = text_of(result)
            assert hint in text
            listed = await session.list_tools()
            schema = next(t for t in listed.tools if t.name == tool).input_schema
            assert f"Its arguments are: {', '.join(schema['properties'])}." in text

    run(body)
    lines = log.read_text().splitlines()
    assert sum(f"tool {tool!r} refused" in line for line in lines) == 1
    assert "Traceback" not in log.read_text()


def test_the_right_arguments_still_work(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            result = await session.call_tool("context", {"query": "sqlite", "budget_chars": 500})
            assert not result.is_error
            assert result.structured_content["budget_chars"] == 500

    run(body)


def test_a_prompt_without_its_argument_answers_cleanly(home: Home) -> None:
    log = server_log(home, "prompt")

    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice", log=log) as session:
            with pytest.raises(MCPError) as caught:
                await session.get_prompt("handover", {})
            assert caught.value.message == (
                "The handover prompt needs the argument 'topic' (the work to hand over, in a "
                "few words)."
            )
            with pytest.raises(MCPError, match=r"no argument 'subject'\. Its arguments are: topic"):
                await session.get_prompt("update-knowledge", {"subject": "x"})
            # The server is still there, and the prompt works when asked right.
            prompt = await session.get_prompt("handover", {"topic": "sqlite locking"})
            assert "sqlite locking" in prompt.messages[0].content.text

    run(body)
    text = log.read_text()
    assert "Traceback" not in text and "╭" not in text
    refused = [line for line in text.splitlines() if "refused" in line]
    assert refused == [
        "memex mcp: prompt 'handover' refused: The handover prompt needs the argument "
        "'topic' (the work to hand over, in a few words).",
        "memex mcp: prompt 'update-knowledge' refused: The update-knowledge prompt has no "
        "argument 'subject'. Its arguments are: topic.",
    ]


def test_explore_keeps_the_heading_each_link_points_at(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path) as session:
            result = await session.call_tool("explore", {"note": "Guide"})
            assert not result.is_error
            text = text_of(result)
            for label in ("Settings#Appearance", "Settings#Editor", "Settings#Hotkeys"):
                assert f"  - {label} (Settings.md)" in text
            assert "  - Settings (Settings.md)" in text
            assert "  - Settings#^plugins (embed) (Settings.md)" in text
            concise = await session.call_tool("explore", {"note": "Guide", "concise": True})
            anchors = [link.get("anchor") for link in concise.structured_content["outlinks"]]
            assert sorted(a or "" for a in anchors) == sorted(
                ["#Appearance", "#Editor", "#Hotkeys", "", "#^plugins"]
            )

    run(body)
