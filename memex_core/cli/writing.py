"""``memex ingest``: read exports into the catalog and indexes."""

from __future__ import annotations

import json
import sys

import click

from memex_core.cli.context import format_option, open_memex
from memex_core.cli.progress import RichProgress


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--no-embed", is_flag=True, help="Skip embedding now; run `memex backfill` later.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@format_option("panel", "json")
@click.pass_context
def ingest(
    ctx: click.Context, paths: tuple[str, ...], no_embed: bool, quiet: bool, output_format: str
) -> None:
    """Ingest exports: files, folders (searched recursively) or export .zip files.

    \b
    Recognised: ChatGPT and Claude.ai exports (conversations.json or the .zip),
    and whatever installed plugins add (see `memex sources`). Files already
    ingested with the same content are skipped; a bad file is reported and the
    others go on. Exit status 1 if any file failed.
    """
    mx = open_memex(ctx)
    report = mx.ingest(
        *paths,
        embed=not no_embed,
        progress=RichProgress(quiet or output_format == "json"),
        embed_progress=RichProgress(quiet or output_format == "json"),
    )
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "new": report.count("new"),
                    "unchanged": report.count("unchanged"),
                    "failed": report.count("failed"),
                    "fragments_added": report.fragments_added,
                    "embedded": report.embedded,
                    "embedding_skipped": report.embedding_skipped_reason,
                    "files": [vars(f) for f in report.files],
                },
                indent=2,
            )
        )
    else:
        from rich.console import Console

        console = Console()
        console.print(
            f"[bold]{report.count('new')}[/] new, {report.count('unchanged')} unchanged, "
            f"[{'red' if report.failed else 'green'}]{report.count('failed')} failed[/] "
            f"file(s); {report.fragments_added:,} fragment(s) added, "
            f"{report.embedded:,} embedded."
        )
        for outcome in report.failed:
            console.print(f"[red]failed[/] {outcome.path}: {outcome.error}", highlight=False)
        if report.embedding_skipped_reason and not no_embed:
            console.print(f"[yellow]Embedding skipped:[/] {report.embedding_skipped_reason}")
    if report.failed:
        sys.exit(1)
