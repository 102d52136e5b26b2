"""``memex notes``: the notes of a home's vaults by tag, and the tags they carry."""

from __future__ import annotations

import json

import click

from memex_core.cli.opening import format_option, open_memex, remote_client
from memex_core.errors import MemexError


@click.command()
@click.option(
    "--tag",
    multiple=True,
    help="List the notes with this tag or one nested under it (repeatable): project "
    "matches #project and #project/memex. Without it: every tag and how many notes carry it.",
)
@format_option("panel", "json")
def notes(ctx: click.Context, tag: tuple[str, ...], output_format: str) -> None:
    """Notes by tag (Obsidian's tags: property and inline #tags).

    Search within them with `memex dig QUERY --tag TAG`.
    """
    from memex_core.domain.search_options import make_filters

    if remote_client(ctx) is not None:
        raise MemexError(
            "memex notes reads a local home; unset MEMEX_URL (or give --home) to list its notes."
        )
    mx = open_memex(ctx)
    if not tag:
        counts = mx.catalog.document_tags()
        if output_format == "json":
            click.echo(json.dumps(counts, indent=2, ensure_ascii=False))
        elif not counts:
            click.echo("No note carries a tag (tags come from Obsidian vaults).", err=True)
        else:
            for name, count in counts.items():
                click.echo(f"{count:6,}  #{name}")
        return
    try:
        wanted = make_filters(tag=tag).tags
    except ValueError as exc:
        raise MemexError(str(exc)) from exc
    found = mx.catalog.documents_tagged(wanted)
    if output_format == "json":
        rows = [
            {"id": d.id, "path": d.path, "title": d.title, "tags": list(d.tags), "root": d.root}
            for d in found
        ]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not found:
        click.echo(f"No note carries {', '.join('#' + t for t in wanted)}.", err=True)
        return
    for document in found:
        tags = " ".join("#" + t for t in document.tags)
        click.echo(f"{document.path}  {tags}")
