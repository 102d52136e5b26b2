"""``memex query`` and ``memex sql``: read-only SQL over the catalog."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import click

from memex_core.cli.opening import format_option, open_memex
from memex_core.errors import MemexError


def _render(columns: list[str], rows: list[tuple[Any, ...]], output_format: str) -> str:
    if output_format == "json":
        return json.dumps(
            [dict(zip(columns, row, strict=True)) for row in rows],
            indent=2,
            ensure_ascii=False,
            default=str,
        )
    if output_format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(columns)
        writer.writerows(rows)
        return buffer.getvalue().rstrip("\n")
    from rich.console import Console
    from rich.table import Table

    from memex_core.cli.render import esc

    # Cells are stored text: escaped, so a value holding [bold] or [/] prints as written.
    table = Table(*(esc(c) for c in columns))
    for row in rows:
        table.add_row(*("NULL" if v is None else esc(str(v)[:200]) for v in row))
    console = Console()
    with console.capture() as captured:
        console.print(table)
        console.print(f"[dim]{len(rows)} row(s)[/]")
    return captured.get().rstrip("\n")


@click.command()
@click.argument("statement")
@format_option("table", "json", "csv")
def query(ctx: click.Context, statement: str, output_format: str) -> None:
    """Run a read-only SQL query on the catalog (see `memex schema` for tables).

    \b
    Example:
      memex query "SELECT role, COUNT(*) FROM fragments GROUP BY role"
    """
    columns, rows = open_memex(ctx).query(statement)
    click.echo(_render(columns, rows, output_format))


@click.command()
@click.pass_context
def sql(ctx: click.Context) -> None:
    """Interactive read-only SQL shell on the catalog. End with Ctrl-D or `.quit`."""
    mx = open_memex(ctx)
    click.echo(
        f"memex catalog at {mx.catalog.location} (read-only). Tables: fragments, "
        "conversations, ingest_runs, ingested_files. `.schema` shows them; `.quit` exits."
    )
    buffer = ""
    while True:
        try:
            line = input("memex> " if not buffer else "   ...> ")
        except EOFError:
            click.echo()
            return
        stripped = line.strip()
        if not buffer and stripped in (".quit", ".exit"):
            return
        if not buffer and stripped == ".schema":
            click.echo(mx.catalog.schema_sql())
            continue
        buffer = f"{buffer}\n{line}" if buffer else line
        if not buffer.rstrip().endswith(";"):
            continue
        statement, buffer = buffer.rstrip().rstrip(";"), ""
        try:
            columns, rows = mx.query(statement)
        except MemexError as exc:
            click.echo(f"Error: {exc}", err=True)
            continue
        click.echo(_render(columns, rows, "table"))
