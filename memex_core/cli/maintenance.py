"""``memex backfill`` and ``memex rebuild``: bring the indexes up to the catalog."""

from __future__ import annotations

import json

import click

from memex_core.cli.opening import format_option, number_option, open_memex, quiet_option
from memex_core.cli.progress import RichProgress


@click.command()
@number_option(
    "--batch-size", 256, "Fragments embedded per batch (each batch is recorded when stored)."
)
@quiet_option()
@format_option("panel", "json")
def backfill(ctx: click.Context, batch_size: int, quiet: bool, output_format: str) -> None:
    """Embed every fragment that has no vector yet. Interrupt and rerun at will."""
    mx = open_memex(ctx)
    done = mx.backfill(
        batch_size=batch_size, progress=RichProgress(quiet or output_format == "json")
    )
    if output_format == "json":
        click.echo(json.dumps({"embedded": done}))
    else:
        click.echo(f"Embedded {done:,} fragment(s)." if done else "Nothing to embed.")


@click.command()
@click.option(
    "--keyword/--no-keyword", default=True, show_default=True, help="Rebuild the keyword index."
)
@click.option(
    "--vectors", is_flag=True, help="Also re-embed everything (needed after changing the embedder)."
)
@quiet_option()
@format_option("panel", "json")
def rebuild(
    ctx: click.Context, keyword: bool, vectors: bool, quiet: bool, output_format: str
) -> None:
    """Recreate indexes from the catalog, which is the record of truth."""
    mx = open_memex(ctx)
    done = mx.rebuild(
        keyword=keyword, vectors=vectors, progress=RichProgress(quiet or output_format == "json")
    )
    if output_format == "json":
        click.echo(json.dumps(done))
    else:
        for name, count in done.items():
            click.echo(f"Rebuilt {name} index: {count:,} fragment(s).")
