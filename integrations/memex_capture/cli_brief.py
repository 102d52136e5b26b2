"""``memex capture brief`` and ``memex capture summarize``: the brief and summaries by hand.

The worker writes both by itself at Stop/SessionEnd; these commands show what a
session will be given at its start (``brief``) and summarize any stored session,
ingested or captured (``summarize``). They join the ``capture`` group of
:mod:`memex_capture.cli_capture`.
"""

from __future__ import annotations

import json
import os

import click

from memex_core.cli.opening import format_option, open_memex
from memex_core.errors import MemexError


@click.command()
@click.option(
    "--project",
    type=click.Path(file_okay=False),
    help="The folder a session would start in (default: the current folder); its project "
    "is its git repository, else the folder itself.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=200),
    help="Characters the brief may take, header included (default: [capture] "
    "session_start_budget, 2000).",
)
@click.option(
    "--write",
    is_flag=True,
    help="Also write it where the SessionStart hook reads it (what the worker does).",
)
@format_option("text", "json")
def brief(
    ctx: click.Context, project: str | None, budget: int | None, write: bool, output_format: str
) -> None:
    """Show the memory a new agent session in a project is given at its start.

    \b
    The last sessions' summaries come first (those that ran in this very folder
    before the project's others), then search hits in the project's own sessions
    and notes, then recent prompts; each item with its reason and id.
    """
    from memex_capture import layout
    from memex_capture.briefing import build_brief, write_brief

    folder, root = layout.folder_and_root(project or os.getcwd())
    mx = open_memex(ctx)
    found = build_brief(mx, root, budget=budget, cwd=folder)
    if write:
        path = write_brief(mx, str(mx.home), root, folder)
        click.echo(
            f"written to {path}" if not found.is_empty else f"nothing to tell: {path} removed",
            err=True,
        )
    if output_format == "json":
        click.echo(json.dumps({**found.to_dict(), "text": found.render()}, indent=2))
    elif found.is_empty:
        click.echo(
            f"memex holds no session or note of the project {root} yet (a session belongs "
            "to it when its transcript's cwd lies in that folder or its git repository).",
            err=True,
        )
    else:
        click.echo(found.render(), nl=False)


@click.command()
@click.argument("session_id")
@click.option("--no-embed", is_flag=True, help="Store it without embedding it now.")
@format_option("text", "json")
def summarize(ctx: click.Context, session_id: str, no_embed: bool, output_format: str) -> None:
    """Summarize a stored session (captured or ingested), store the summary and print it.

    SESSION_ID is the session's conversation id (Claude Code's sessionId, Codex's
    session id), as `memex timeline` and search results show it. A summary stored
    before is replaced.
    """
    from memex_capture.summary import write_session_summary

    mx = open_memex(ctx)
    fragment = write_session_summary(mx, session_id, embed=not no_embed)
    if fragment is None:
        raise MemexError(
            f"No session {session_id!r} in {mx.home}: give a conversation id from a search "
            "(`memex dig WORDS --concise` shows it), and ingest the transcript first if "
            "memex does not hold it (`memex ingest PATH`)."
        )
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "id": fragment.id,
                    "session_id": session_id,
                    "summarizer": fragment.metadata.get("summarizer"),
                    "text": fragment.content,
                },
                indent=2,
            )
        )
    else:
        click.echo(fragment.content)
        click.echo(f"(stored as {fragment.id})", err=True)


COMMANDS = (brief, summarize)
