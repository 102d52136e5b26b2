"""``memex corpus``, ``memex sources``, ``memex plugins``, ``memex schema``."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import click

from memex_core.cli.opening import format_option, open_memex
from memex_core.cli.render import esc, iso


@click.command()
@format_option("panel", "json")
def corpus(ctx: click.Context, output_format: str) -> None:
    """What memex holds: fragments, conversations, notes and links, embedding coverage, sources.

    A repository's code (indexed by `memex ask`) is counted apart, on its own row, not
    among the conversations, notes and roles.
    """
    mx = open_memex(ctx)
    stats = mx.stats()
    floor = floor_summary(mx)
    if output_format == "json":
        data = asdict(stats)
        data["home"] = str(mx.home)
        data["relevance_floor"] = floor
        click.echo(json.dumps(data, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"memex corpus at {esc(mx.home)}", show_header=False)
    coverage = stats.embedded / stats.fragments if stats.fragments else 0.0
    code = stats.code.get("fragments", 0)
    rows = [
        ("fragments", f"{stats.fragments:,}" + (f" ({code:,} of them code)" if code else "")),
        ("conversations", f"{stats.conversations:,}"),
        ("notes", f"{stats.documents:,}"),
        ("links", f"{stats.links:,} ({stats.unresolved_links:,} unresolved)"),
        *([("code", describe_code(stats.code))] if code else []),
        ("keyword indexed", f"{stats.keyword_indexed:,}"),
        ("embedded", f"{stats.embedded:,} ({coverage:.0%})"),
        ("embedder", f"{stats.embedder} ({stats.dimension} dims)" if stats.embedder else "none"),
        ("relevance floor", describe_floor(floor)),
        ("span", f"{iso(stats.first_timestamp) or '-'} .. {iso(stats.last_timestamp) or '-'}"),
    ]
    rows += [(f"source {k}", f"{v:,}") for k, v in stats.by_source.items()]
    rows += [(f"role {k}", f"{v:,}") for k, v in stats.by_role.items()]
    for key, value in rows:
        table.add_row(esc(key), esc(value))
    Console().print(table)


def describe_code(code: dict[str, int]) -> str:
    """The code row: what `memex ask` indexed, which only a search naming it reaches."""
    repos = code.get("repositories", 0)
    return (
        f"{code.get('fragments', 0):,} fragments in {code.get('files', 0):,} files of "
        f"{repos:,} {'repository' if repos == 1 else 'repositories'} (searched only with "
        "--source code; memex forget --source code --repo PATH removes it)"
    )


def floor_summary(mx: Any) -> dict[str, Any]:
    """``[search] min_semantic_similarity`` and the calibration recorded for this home (read,
    never measured here: the first hybrid or semantic search measures it)."""
    recorded = mx.recorded_floor()
    return {
        "setting": str(mx.config.search_setting("min_semantic_similarity", "auto")),
        "calibrated": recorded.value if recorded else None,
        "calibrated_for": recorded.embedder if recorded else None,
        "method": recorded.method if recorded else None,
    }


def describe_floor(floor: dict[str, Any]) -> str:
    calibrated = (
        f"calibrated {floor['calibrated']:.3f} for {floor['calibrated_for']}"
        if floor["calibrated"] is not None
        else "not calibrated yet (the first search does it)"
    )
    return f"{floor['setting']} ({calibrated})"


@click.command()
@format_option("panel", "json")
def sources(ctx: click.Context, output_format: str) -> None:
    """Source adapters that can be ingested, and the files already ingested."""
    mx = open_memex(ctx)
    adapters = [r.describe() for r in mx.registry.registrations("source")]
    files = mx.catalog.ingested_files()
    if output_format == "json":
        click.echo(json.dumps({"sources": adapters, "files": files}, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="Source adapters")
    for column in ("name", "plugin", "status", "accepts"):
        table.add_column(column)
    for a in adapters:
        status = "available" if a["available"] else f"unavailable: {a['install_hint']}"
        table.add_row(*(esc(v) for v in (a["name"], a["plugin"], status, a["description"])))
    console.print(table)
    if files:
        ingested = Table(title="Ingested files")
        for column in ("source", "fragments", "ingested"):
            ingested.add_column(column, no_wrap=True)
        ingested.add_column("path", overflow="fold")  # a path is wrapped, never cut
        for f in files:
            ingested.add_row(
                esc(f["source_kind"]),
                f"{f['fragments']:,}",
                (iso(f["ingested_at"]) or "")[:16],
                esc(f["path"]),
            )
        console.print(ingested)


@click.command()
@format_option("panel", "json")
def plugins(ctx: click.Context, output_format: str) -> None:
    """Installed plugins and the components they register (available or not, and why)."""
    mx = open_memex(ctx)
    rows = [r.describe() for r in mx.registry.registrations()]
    broken = [{"plugin": b.name, "error": b.error} for b in mx.registry.broken]
    if output_format == "json":
        click.echo(json.dumps({"components": rows, "broken": broken}, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="memex plugins")
    for column in ("kind", "name", "plugin", "status"):
        table.add_column(column)
    for row in rows:
        status = (
            "[green]available[/]"
            if row["available"]
            else (f"[yellow]unavailable[/]: {esc(row['install_hint'])}")
        )
        table.add_row(esc(row["kind"]), esc(row["name"]), esc(row["plugin"]), status)
    console = Console()
    console.print(table)
    for b in broken:
        console.print(f"[red]plugin {esc(b['plugin'])} failed to load:[/] {esc(b['error'])}")


@click.command()
@click.pass_context
def schema(ctx: click.Context) -> None:
    """Print the catalog's SQL schema (for `memex query`)."""
    click.echo(open_memex(ctx).catalog.schema_sql())
