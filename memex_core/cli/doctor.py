"""``memex doctor``: are the catalog, keyword index and vector store in agreement?"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from memex_core.cli.opening import format_option, open_memex, quiet_option
from memex_core.cli.progress import RichProgress

if TYPE_CHECKING:
    from memex_core.services.doctor import DoctorReport

_STYLE = {"error": "bold red", "damage": "bold red", "drift": "yellow", "note": "cyan"}
_COUNT_LABELS = {
    "fragments": "Catalog fragments",
    "keyword_documents": "Keyword documents",
    "vectors": "Vectors",
    "embedded": "Fragments marked embedded",
    "pending_vector_deletes": "Vector deletes queued",
    "changes_not_flushed": "Catalog changes not flushed to the keyword index",
    "journal_head": "Change journal: newest entry",
    "keyword_flushed_to": "Change journal: keyword index on disk at",
    "journal_pruned_to": "Change journal: pruned up to",
    "memories": "Memories",
    "schema_version": "Catalog schema version",
}


@click.command()
@click.option(
    "--repair",
    is_flag=True,
    help="Fix drift from the catalog: add missing keyword documents and vectors, delete "
    "orphans, rebuild a damaged keyword index. Nothing in the catalog is lost.",
)
@quiet_option()
@format_option("panel", "json")
def doctor(ctx: click.Context, repair: bool, quiet: bool, output_format: str) -> None:
    """Check the catalog, keyword index and vector store against each other.

    \b
    Compares them by id: fragments missing from an index, orphans an index
    holds that the catalog does not, vectors of another embedder, queued
    vector deletes, memory rows that disagree with their fragments, a damaged
    index file. Exit status 0 when healthy, 1 when drift or damage remains or
    the catalog cannot be reached (an error finding, JSON too).
      memex doctor            report only
      memex doctor --repair   fix drift from the catalog, then check again
    """
    from memex_core.services.doctor import plugin_findings

    mx = open_memex(ctx)
    report = mx.doctor(repair=repair, progress=RichProgress(quiet or output_format == "json"))
    indexes_healthy = report.healthy  # what --repair can fix; plugin findings say their fix
    # Checks of what plugins keep beside the indexes (the capture spool...): read-only.
    report.final.findings.extend(plugin_findings(mx.registry.doctor_checks(), mx.home))
    if output_format == "json":
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print(report, indexes_healthy)
    if not report.healthy:
        sys.exit(1)


def _print(report: DoctorReport, indexes_healthy: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from memex_core.cli.render import esc

    console = Console()
    table = Table(title=f"memex doctor: {esc(report.home)}", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    for key, label in _COUNT_LABELS.items():
        if key in report.final.counts:
            value = report.final.counts[key]
            table.add_row(label, "unreadable" if value is None else f"{value:,}")
    if report.final.counts:  # none when the catalog could not be reached
        console.print(table)
    if report.before is not None:
        if report.repairs:
            console.print("[bold]Repaired:[/]")
            for action in report.repairs:
                console.print(f"  - {esc(action)}", highlight=False)
        else:
            console.print("Nothing needed repairing.")
    for finding in report.findings:
        style = _STYLE.get(finding.severity, "")
        console.print(f"[{style}]{finding.severity}[/] {esc(finding.summary)}", highlight=False)
        if finding.sample:
            console.print(f"    e.g. {esc(', '.join(finding.sample))}", highlight=False)
        console.print(f"    {esc(finding.fix)}", style="dim", highlight=False)
    if report.healthy:
        console.print("[green]Healthy:[/] the catalog and both indexes agree.")
    elif (
        report.before is None
        and not indexes_healthy
        and not report.final.get("catalog.unreachable")
    ):  # nothing was compared, so nothing for --repair
        console.print("Run `memex doctor --repair` to fix the drift from the catalog.")
