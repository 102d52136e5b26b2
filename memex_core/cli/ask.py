"""``memex ask``: memory and the current repository's code in one labelled context pack,
answered with citations when a chat model is configured."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memex_core.cli.opening import format_option, open_memex, quiet_option
from memex_core.services.context import MIN_ITEM_CHARS

if TYPE_CHECKING:
    from memex_core.services.ask_fusion import AskResult


def _default_repo(mx: object) -> Path | None:
    """The git work tree the current directory is in, or None (memory only)."""
    from memex_core.domain import SourceError
    from memex_core.facade.ask_workflow import code_source

    source = code_source(mx)  # type: ignore[arg-type]
    if source is None:
        return None
    try:
        return Path(source.repository_root(Path(os.getcwd())))
    except SourceError:
        return None


@click.command(name="ask")
@click.argument("question")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=str),
    help="A git repository whose code to search with memory (default: the one the current "
    "directory is in; outside any, memory only).",
)
@click.option("--no-repo", is_flag=True, help="Search memory only, even inside a repository.")
@click.option(
    "--budget",
    "-b",
    type=click.IntRange(MIN_ITEM_CHARS),
    default=None,
    help=f"Most characters of text the pack may hold (default: [ask] budget, 6000; at least "
    f"{MIN_ITEM_CHARS}: the smallest piece a pack takes; as `memex context --budget`).",
)
@click.option(
    "--no-answer", is_flag=True, help="Only the pack, even when a chat model is configured."
)
@click.option(
    "--embed",
    "embed_all",
    is_flag=True,
    help="Embed all of the repository's code before searching (minutes the first time), "
    "not only what the question reaches; later asks then match all of it by meaning.",
)
@quiet_option("No progress bars, and no estimate before indexing the code.")
@format_option("panel", "json")
def ask(
    ctx: click.Context,
    question: str,
    repo: str | None,
    no_repo: bool,
    budget: int | None,
    no_answer: bool,
    embed_all: bool,
    quiet: bool,
    output_format: str,
) -> None:
    """Ask QUESTION of your memory and your repository's code together.

    \b
    Brings the repository's code index up to date (only files whose git blob
    changed are read again), searches memory (everything ingested that is not
    code) and the code as two pools, and fuses them into one pack of numbered
    items, each labelled memory or code with its reason, location and id
    (`memex get ID` shows it whole). With [ask] chat_model in config.toml the
    model also answers, citing the items as [1], [2]...

    \b
    The first ask of a repository says how many files it will index and about
    how long, then indexes them for keyword search and embeds only the code
    the question reaches (the rest as later questions reach it, or all at once
    with --embed or `memex backfill`). Ctrl-C keeps what was done; asking again
    finishes it.
    """
    from memex_core.cli.progress import RichProgress
    from memex_core.facade.code_index import IndexInterrupted

    mx = open_memex(ctx)
    chosen: str | Path | None = None if no_repo else (repo or _default_repo(mx))
    silent = quiet or output_format == "json"
    try:
        result = mx.ask(
            question,
            repo=chosen,
            budget_chars=budget,
            answer=not no_answer,
            progress=RichProgress(silent),
            embed_progress=RichProgress(silent),
            embed_all=embed_all,
            announce=None if quiet else lambda line: click.echo(line, err=True),
        )
    except IndexInterrupted as stopped:
        # Caught here: click would turn the KeyboardInterrupt into a bare "Aborted.".
        click.echo(str(stopped), err=True)
        ctx.exit(130)
    if output_format == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print_ask(result)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)


def print_ask(result: AskResult) -> None:
    """The pack as plain text (paths and texts are user data: printed as written)."""
    where = f"memory + code of {result.repo}" if result.repo else "memory only"
    click.echo(f"Ask: {result.question}")
    click.echo(
        f"Searched: {where}; {len(result.items)} item(s), "
        f"{result.used_chars:,} of {result.budget_chars:,} characters"
    )
    index = result.index
    if index:
        if index.get("changed") or index.get("removed"):
            click.echo(
                f"Code index: {index.get('changed', 0):,} file(s) read again, "
                f"{index.get('removed', 0):,} removed, {index.get('seconds', 0):.2f} s"
            )
        else:
            click.echo(
                f"Code index: up to date ({index.get('files', 0):,} files, "
                f"{index.get('seconds', 0):.2f} s)"
            )
    for item in result.items:
        click.echo("")
        click.echo(f"[{item.number}] {item.kind}  {item.location}  ({item.source})")
        click.echo(f"    {item.title}")
        click.echo(f"    why: {item.reason}")
        cut = "  (cut: memex get ID for all of it)" if item.truncated else ""
        click.echo(f"    id: {item.id}{cut}")
        for line in item.text.splitlines():
            click.echo(f"    | {line}")
    if result.answer is not None:
        click.echo("")
        click.echo(f"Answer ({result.model}):")
        click.echo(result.answer)
