"""``memex ingest``: read exports into the catalog and indexes."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from memex_core.catalog.lock import DEFAULT_TIMEOUT_S
from memex_core.cli.opening import format_option, open_memex, option_group, quiet_option
from memex_core.cli.progress import RichProgress
from memex_core.domain import IngestReport

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rich.console import Console

    from memex_core.api import Memex


#: How ``ingest`` and ``sync`` write: embed now or not, progress bars, wait for the lock or not.
write_options = option_group(
    click.option(
        "--no-embed", is_flag=True, help="Skip embedding now; run `memex backfill` later."
    ),
    quiet_option("No progress bars."),
    click.option(
        "--no-wait",
        is_flag=True,
        help="Fail at once if another memex process is writing to this home, instead of "
        f"waiting (MEMEX_LOCK_TIMEOUT seconds, default {DEFAULT_TIMEOUT_S:g}).",
    ),
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@write_options
@click.option(
    "--source",
    "source_name",
    help="Read with this source only; `--source code REPO` indexes a git repository's "
    "tracked files as code (never done without it; searched only with --source code).",
)
@format_option("panel", "json")
def ingest(
    ctx: click.Context,
    paths: tuple[str, ...],
    no_embed: bool,
    quiet: bool,
    no_wait: bool,
    source_name: str | None,
    output_format: str,
) -> None:
    """Ingest exports: files, folders (searched recursively) or export .zip files.

    \b
    Recognised: ChatGPT and Claude.ai exports (conversations.json or the .zip),
    Claude Code transcripts (~/.claude/projects), Codex rollouts
    (~/.codex/sessions), Obsidian vaults (a folder), and whatever installed
    plugins add (see `memex sources`). Files already ingested with the same
    content are skipped; a vault is synced (changed notes replaced, deleted
    ones removed). A bad file is reported and the others go on; files in a
    folder that no source reads, and items skipped inside a file (an entry that
    is not a conversation, a note's broken frontmatter), are listed with the
    reason. Exit status 1 if any file failed, which includes a folder with
    nothing readable in it and a file in which every item was skipped.
    """
    mx = _writer(ctx, no_wait)
    progress = _progress(no_embed, quiet, output_format)
    with _kept_on_interrupt(progress):
        report = mx.ingest(*paths, source=source_name, **progress)
    _measure_floor(mx, report)
    print_report(report, output_format, no_embed)


@click.command()
@write_options
@format_option("panel", "json")
def sync(
    ctx: click.Context, no_embed: bool, quiet: bool, no_wait: bool, output_format: str
) -> None:
    """Re-read the paths listed in config.toml and ingest only what changed.

    \b
    $MEMEX_HOME/config.toml:
      [sync]
      paths = ["~/notes", "~/.claude/projects", "~/.codex/sessions"]
    Unchanged files are skipped by size and time, then by hash; changed notes
    are replaced and deleted notes removed; transcripts that grew are updated.
    """
    mx = _writer(ctx, no_wait)
    progress = _progress(no_embed, quiet, output_format)
    with _kept_on_interrupt(progress):
        report = mx.sync(**progress)
    _measure_floor(mx, report)
    print_report(report, output_format, no_embed)


#: Skipped files and items listed one by one; past this, one line says how many more.
SHOWN_SKIPS = 20


def _writer(ctx: click.Context, no_wait: bool) -> Memex:
    """The home to write to; with ``--no-wait``, one that fails at once when another
    process holds the write lock."""
    mx = open_memex(ctx)
    if no_wait:
        mx.lock.timeout = 0
    return mx


def _measure_floor(mx: Memex, report: IngestReport) -> None:
    """Calibrate the relevance floor now, when vectors were just written and the embedder
    is loaded: otherwise the first search of the home measures it (once, recorded in the
    catalog), loading the document encoder for it, ~1.3 s of that first ``memex dig``."""
    if not report.embedded:
        return
    try:
        mx.relevance_floor()
    except Exception:  # the first search measures it again, and says why
        return


def _kept_on_interrupt(progress: dict[str, Any]) -> AbstractContextManager[None]:
    """Ctrl-C says which files were kept and how to finish (see memex_core.cli.interrupt)."""
    from memex_core.cli.interrupt import ingest_interrupted, on_interrupt

    return on_interrupt(
        lambda: ingest_interrupted(progress["progress"], progress["embed_progress"])
    )


def _progress(no_embed: bool, quiet: bool, output_format: str) -> dict[str, Any]:
    """``embed`` and the two progress bars of ``ingest`` and ``sync`` (none for JSON)."""
    silent = quiet or output_format == "json"
    return {
        "embed": not no_embed,
        "progress": RichProgress(silent),
        "embed_progress": RichProgress(silent),
    }


def print_report(report: IngestReport, output_format: str, no_embed: bool) -> None:
    """The ingest summary; exits with status 1 if any file failed.

    Paths, errors and skip reasons are user data: printed as plain text (a file
    named ``export[bold].json`` keeps its brackets) and never wrapped by rich, so a
    long path stays on one line for the terminal to wrap and for scripts to read.
    """
    statuses = ("new", "updated", "unchanged", "removed", "skipped", "failed")
    if output_format == "json":
        summary: dict[str, object] = {status: report.count(status) for status in statuses}
        summary.update(
            fragments_added=report.fragments_added,
            fragments_removed=report.fragments_removed,
            embedded=report.embedded,
            embedding_skipped=report.embedding_skipped_reason,
            files=[vars(f) for f in report.files],
            skipped_items=report.skipped,
            private_spans_removed=report.private_spans_removed,
            secrets_redacted=dict(sorted(report.secrets_redacted.items())),
            redaction_skipped=report.redaction_skipped_reason,
        )
        click.echo(json.dumps(summary, indent=2))
    else:
        _print_summary(report, no_embed)
    if report.failed:
        sys.exit(1)


def _print_summary(report: IngestReport, no_embed: bool) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(soft_wrap=True, highlight=False)
    changes = "".join(
        f", {report.count(s)} {s}" for s in ("updated", "removed", "skipped") if report.count(s)
    )
    removed = f", {report.fragments_removed:,} removed" if report.fragments_removed else ""
    console.print(
        Text.assemble(
            (str(report.count("new")), "bold"),
            f" new{changes}, {report.count('unchanged')} unchanged, ",
            (f"{report.count('failed')} failed", "red" if report.failed else "green"),
            f" file(s); {report.fragments_added:,} fragment(s) added{removed}, "
            f"{report.embedded:,} embedded.",
        )
    )
    if privacy := _privacy_line(report):
        console.print(privacy)
    if report.redaction_skipped_reason:
        console.print(
            Text.assemble(
                ("Secrets not redacted:", "yellow"), f" {report.redaction_skipped_reason}"
            )
        )
    for line in _skipped_files(report):
        console.print(Text.assemble(("skipped", "yellow"), f" {line}"))
    for message in report.skipped[:SHOWN_SKIPS]:
        console.print(Text(message, style="yellow"))
    _more(console, len(report.skipped), "skipped item(s)")
    for outcome in report.failed:
        console.print(Text.assemble(("failed", "red"), f" {outcome.path}: {outcome.error}"))
    if report.embedding_skipped_reason and not no_embed:
        console.print(
            Text.assemble(("Embedding skipped:", "yellow"), f" {report.embedding_skipped_reason}")
        )


def _privacy_line(report: IngestReport) -> str:
    """What was kept out of storage: private spans and secrets (kinds only, never values)."""
    parts = []
    if report.private_spans_removed:
        parts.append(f"{report.private_spans_removed:,} <private> span(s) dropped")
    if report.secrets_redacted:
        kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(report.secrets_redacted.items()))
        parts.append(f"{sum(report.secrets_redacted.values()):,} secret(s) redacted ({kinds})")
    if not parts:
        return ""
    # rich would read a bare "[ingest]" as a style tag and drop it.
    return "Not stored: " + "; ".join(parts) + r" (\[ingest] redact_secrets in config.toml)."


#: Past this many files skipped for one reason, they are counted on one line.
GROUPED_SKIPS = 3


def _skipped_files(report: IngestReport) -> list[str]:
    """One line per skipped file, or per reason when many files share it (a folder of
    images must not print a line per image on every `memex sync`)."""
    by_reason: dict[str, list[str]] = {}
    for outcome in report.files:
        if outcome.status == "skipped":
            by_reason.setdefault(outcome.error or "not read", []).append(outcome.path)
    lines = []
    for reason, paths in by_reason.items():
        if len(paths) > GROUPED_SKIPS:
            examples = ", ".join(paths[:GROUPED_SKIPS])
            lines.append(
                f"{len(paths):,} files: {reason} (e.g. {examples}; --format json lists all)"
            )
        else:
            lines.extend(f"{path}: {reason}" for path in paths)
    return lines


def _more(console: Console, total: int, what: str) -> None:
    if total > SHOWN_SKIPS:
        console.print(
            f"... and {total - SHOWN_SKIPS:,} more {what}; `--format json` lists them all"
        )
