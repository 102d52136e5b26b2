"""``memex export`` and ``memex import``: a home as one archive file, and back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from memex_core.cli.opening import format_option, open_memex, quiet_option, time_span
from memex_core.cli.progress import RichProgress


@click.command("export")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--user", help="Only this user's memory, its revisions and the log about them.")
@click.option("--collection", help="Only this collection (and those under it: work covers work:x).")
@click.option("--source", help="Only fragments of this source kind (chatgpt, obsidian, memory...).")
@click.option("--since", help="Only what is dated at or after: 2024-05-01, 2024-05-01T09:30, 7d.")
@click.option("--until", help="Only what is dated at or before (same forms as --since).")
@click.option("--no-log", "no_log", is_flag=True, help="Leave the memory access log out.")
@click.option(
    "--with-vectors",
    is_flag=True,
    help="Include the vectors, so an import with the same embedder skips embedding.",
)
@quiet_option()
@format_option("panel", "json")
def export_command(
    ctx: click.Context,
    path: Path,
    user: str | None,
    collection: str | None,
    source: str | None,
    since: str | None,
    until: str | None,
    no_log: bool,
    with_vectors: bool,
    quiet: bool,
    output_format: str,
) -> None:
    """Write this home (or the part the options name) to PATH, one archive file.

    The archive is a zip of JSON Lines members (fragments with their provenance,
    conversations, notes and their links, agent memory with every revision, the
    access log, the settings that change how the home is read) and a manifest with
    each member's row count and SHA-256: a backup, a way to move a home to another
    machine or engine (`memex import`), or everything held about one user (--user).
    Memory use stays flat whatever the size of the home. See docs/archives.md.
    """
    bounds = time_span(since, until)
    mx = open_memex(ctx)
    report = mx.export_archive(
        path.expanduser(),
        user=user,
        collection=collection,
        source=source,
        **bounds,
        with_vectors=with_vectors,
        with_log=not no_log,
        progress=RichProgress(quiet or output_format == "json"),
    )
    if output_format == "json":
        click.echo(json.dumps(report.to_dict()))
        return
    rows = ", ".join(f"{n:,} {name.removesuffix('.jsonl')}" for name, n in report.members.items())
    click.echo(f"Wrote {report.target} ({report.bytes:,} bytes of rows): {rows}.")


@click.command("import")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Say what the import would change; write nothing.")
@click.option(
    "--no-embed", is_flag=True, help="Do not embed new fragments now (memex backfill later)."
)
@quiet_option()
@format_option("panel", "json")
def import_command(
    ctx: click.Context, path: Path, dry_run: bool, no_embed: bool, quiet: bool, output_format: str
) -> None:
    """Add the archive at PATH (written by `memex export`) to this home.

    Everything is checked before anything is written (member names, the zip-bomb
    guard, each member's checksum), then the rows go in as one transaction: a refused
    archive leaves the home exactly as it was. Ids are kept, so importing twice adds
    nothing and a newer archive adds only what is new. A row whose id the home holds
    with other content is a conflict: the home's row is kept and the conflict listed
    (a memory at a later revision, or a conversation that went on, is taken from the
    archive). The keyword index is brought up to date and new fragments embedded (or
    given the archive's vectors, when it was exported --with-vectors by the same embedder).
    """
    mx = open_memex(ctx)
    report = mx.import_archive(
        path.expanduser(),
        dry_run=dry_run,
        embed=not no_embed,
        progress=RichProgress(quiet or output_format == "json"),
    )
    if output_format == "json":
        click.echo(json.dumps(report.to_dict()))
        return
    _print_import(report.to_dict())


def _print_import(report: dict[str, Any]) -> None:
    verb = "Would add" if report["dry_run"] else "Added"
    parts = [f"{c['added']:,} {table}" for table, c in report["tables"].items() if c["added"]] or [
        "nothing"
    ]
    click.echo(f"{verb} {', '.join(parts)} from {report['source']}.")
    updated = [f"{c['updated']:,} {t}" for t, c in report["tables"].items() if c["updated"]]
    if updated:
        click.echo(f"{'Would update' if report['dry_run'] else 'Updated'}: {', '.join(updated)}.")
    if report["conflict_count"]:
        click.echo(
            f"{report['conflict_count']:,} conflict(s): the home's row was kept for each "
            "(same id, other content):"
        )
        for conflict in report["conflicts"]:
            key = ", ".join(f"{k}={v}" for k, v in conflict["key"].items())
            click.echo(f"  {conflict['member']}: {key}")
    if report["settings_applied"]:
        done = "would be applied" if report["dry_run"] else "were applied"
        click.echo(f"The archive's read settings (turn context, relevance floor) {done}.")
    if report["vectors_in_archive"]:
        if report["vectors_reason"]:
            click.echo(f"Archive vectors not used: {report['vectors_reason']}.")
        elif report["dry_run"]:
            click.echo(f"Would store {report['vectors_used']:,} vector(s) from the archive.")
        else:
            click.echo(f"Stored {report['vectors_used']:,} vector(s) from the archive.")
    if report["embedded"]:
        click.echo(f"Embedded {report['embedded']:,} fragment(s).")
    elif report["embedding_skipped_reason"] and not report["dry_run"]:
        click.echo(f"Not embedded: {report['embedding_skipped_reason']}.")
