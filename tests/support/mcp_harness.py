"""Shared plumbing for the MCP server tests (no tests here): a small home, how to launch
``memex mcp``, and an MCP client session on it through the official SDK.

The home is keyword-only (``[embedder] use = "none"``) so a server starts in about a
second; the server runs in a subprocess exactly as an MCP client would launch it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from memex_core.api import Memex
from tests.support.export_builders import write_chatgpt_export

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'memex[mcp]')")

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

import memex_mcp

#: Every MCP exchange in a test finishes well within this, or the test fails.
SESSION_TIMEOUT = 60.0

# Until the `mcp` entry point is installed, register the plugin from code, as the
# registry offers to applications, and run the same CLI.
BOOTSTRAP = """
import sys
import memex_mcp
from memex_core import cli
from memex_core.plugins import load_registry

registry = load_registry()
registry.register_plugin(memex_mcp, name="mcp")
registry.add_commands(cli.cli)
cli.main(sys.argv[1:])
"""

VAULT = {
    ".obsidian/app.json": "{}",
    "Projects/Alpha.md": "# Alpha\n\nAlpha builds on [[Beta]] for its storage and caching.\n",
    "Beta.md": "# Beta\n\nBeta is the storage layer that [[Alpha]] uses. See also [[Gamma]].\n",
}


@dataclass(frozen=True)
class Home:
    """A memex home with a corpus, and memory for alice, bob and everyone (shared)."""

    path: Path
    corpus_fragment: str  # the first turn of the SQLite conversation
    bob_fact: str  # bob's memory id of his secret codename fact
    bob_fact_fragment: str
    bob_file: str  # bob's memory file user/plans.md
    bob_file_fragment: str
    alice_fact: str


def build_home(root: Path) -> Home:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    inputs = root.parent / f"{root.name}-inputs"
    export = write_chatgpt_export(inputs / "conversations.json")
    vault = inputs / "vault"
    for name, text in VAULT.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text, encoding="utf-8")
    with Memex(root) as mx:
        mx.ingest(export, vault)
        bob = mx.agent("bob")
        bob_fact = bob.remember(
            "Bob's launch codename is bluebird", collection="acme:secret"
        ).memory_ids[0]
        bob_file = bob.write("user/plans.md", "The bluebird launch plan: ship in May.").id
        alice_fact = (
            mx.agent("alice")
            .remember("Alice prefers green tea", collection="acme:support")
            .memory_ids[0]
        )
        mx.operator().write("shared/handbook.md", "Deploys happen on Tuesdays after standup.")
        catalog = mx.catalog
        return Home(
            path=root,
            corpus_fragment=catalog.conversation_fragments("conv-sqlite")[0].id,
            bob_fact=bob_fact,
            bob_fact_fragment=catalog.conversation_fragments(bob_fact)[0].id,
            bob_file=bob_file,
            bob_file_fragment=catalog.conversation_fragments(bob_file)[0].id,
            alice_fact=alice_fact,
        )


def memex_command(home: Path, *args: str) -> list[str]:
    """argv for ``memex --home HOME <args>``, via the entry point when it is installed."""
    installed = any(ep.name == "mcp" for ep in entry_points(group="memex"))
    prefix = ["-m", "memex_core"] if installed else ["-c", BOOTSTRAP]
    return [sys.executable, *prefix, "--home", str(home), *args]


def server_env(**extra: str) -> dict[str, str]:
    """What the server process needs besides the SDK's safe default environment."""
    package_root = str(Path(memex_mcp.__file__).resolve().parent.parent)
    paths = [package_root, os.environ.get("PYTHONPATH", "")]
    return {"PYTHONPATH": os.pathsep.join(p for p in paths if p), **extra}


@asynccontextmanager
async def mcp_session(home: Path, *args: str, log: Path | None = None) -> AsyncIterator[Any]:
    """An initialised :class:`mcp.ClientSession` on ``memex mcp <args>`` over stdio."""
    command = memex_command(home, "mcp", *args)
    params = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    log = log or home.parent / "mcp-server.log"
    with log.open("a", encoding="utf-8") as errlog, anyio.fail_after(SESSION_TIMEOUT):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def run(body: Any) -> None:
    """Run an async test body (``async def body() -> None``) to completion, re-raising a
    failure inside the client's task groups as itself so pytest shows the assertion."""
    try:
        anyio.run(body)
    except BaseExceptionGroup as group:
        while isinstance(group, BaseExceptionGroup) and len(group.exceptions) == 1:
            group = group.exceptions[0]
        raise group from None


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")
