"""The ``memex migrate`` command: options, the home's write lock, and what it prints.

Only click is imported with this module (it is added to the command line at every
``memex`` start); the engine and psycopg load when the command runs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memex_core.cli.opening import format_option, number_option, quiet_option

if TYPE_CHECKING:
    from memex_postgres.migration.engine import MigrationReport, TargetSchema

URL_ENV = "MEMEX_CATALOG_URL"


@click.command()
@click.option(
    "--to",
    "url",
    envvar=URL_ENV,
    required=True,
    metavar="URL",
    help="The PostgreSQL database to copy into, e.g. postgresql://memex@db:5432/memex "
    f"(default: ${URL_ENV}). It must be empty, or hold an earlier, interrupted copy of this "
    "home. Keep the password out of it with ~/.pgpass or PGPASSWORD.",
)
@number_option(
    "--batch-size",
    5000,
    "Rows per transaction (each is committed with the progress that lets a rerun resume).",
)
@click.option(
    "--apply-config",
    is_flag=True,
    help="After a verified copy, also write the [catalog] lines into the home's config.toml, "
    "so this home uses the database from now on.",
)
@quiet_option("No progress bars.")
@format_option("text", "json")
def migrate(
    ctx: click.Context,
    url: str,
    batch_size: int,
    apply_config: bool,
    quiet: bool,
    output_format: str,
) -> None:
    """Copy this home's catalog from SQLite into PostgreSQL.

    Every table is copied in batches, then each table's row count and checksum
    are compared on both sides. Interrupted, it resumes where it stopped when run
    again. The home is only read (its write lock is held, so nothing ingests
    meanwhile); at the end the command prints the lines that point the home at
    the database. The keyword index and the vectors stay valid: no rebuild.
    """
    from memex_core.catalog.lock import WriteLock
    from memex_core.config import load_config
    from memex_core.errors import MemexError
    from memex_postgres.migration.display import TableBars
    from memex_postgres.migration.engine import Migration
    from memex_postgres.migration.source import SqliteSource
    from memex_postgres.migration.target import PostgresTarget
    from memex_postgres.urls import check_url

    check_url(url)
    _mask_in_argv(url)
    config = load_config((ctx.find_root().obj or {}).get("home"))
    if not config.catalog_path.is_file():
        raise MemexError(
            f"{config.catalog_path}: there is no catalog here, so nothing to migrate. Point "
            "--home (or MEMEX_HOME) at the home you ingested into."
        )
    schema = target_schema()
    bars = TableBars(quiet or output_format == "json")
    with WriteLock(config.home):
        source = SqliteSource(config.catalog_path)
        try:
            target = PostgresTarget(url, schema.writer_lock_key)
            try:
                report = Migration(
                    source,
                    target,
                    schema,
                    home=config.home,
                    batch_size=batch_size,
                    observer=bars,
                ).run()
            finally:
                bars.close()
                target.close()
        finally:
            source.close()
    applied = None
    if apply_config and report.ok:
        applied = write_config(config.config_path, url)
    if output_format == "json":
        click.echo(json.dumps(_as_json(report, config.config_path, applied), indent=2))
    else:
        click.echo(render(report, config.config_path, applied))
    if not report.ok:
        ctx.exit(1)


def target_schema() -> TargetSchema:
    """The postgres catalog component's schema: its migrations, version and writer lock."""
    from memex_postgres.migration.engine import TargetSchema
    from memex_postgres.migration.target import missing_driver
    from memex_postgres.schema import LATEST_VERSION

    try:
        from memex_postgres.connection import WRITER_LOCK_KEY
    except ImportError as exc:  # psycopg or psycopg_pool
        raise missing_driver() from exc

    return TargetSchema(create_schema, LATEST_VERSION, WRITER_LOCK_KEY)


def create_schema(url: str) -> None:
    """Create (or bring up to date) the catalog's tables in the database at ``url``, as the
    postgres catalog does when a home first opens it."""
    from memex_postgres.catalog import PostgresCatalog

    catalog = PostgresCatalog(url, pool_size=1)
    try:
        catalog.migrate()
    finally:
        catalog.close()


def _mask_in_argv(url: str) -> None:
    """The home's write lock records this command line for other processes to show; it
    must not carry the database password there."""
    from memex_postgres.urls import has_password, mask_password

    if has_password(url):
        sys.argv = [mask_password(a) if a == url else a for a in sys.argv]
        sys.argv = [
            f"--to={mask_password(a[5:])}" if a.startswith("--to=") else a for a in sys.argv
        ]


# -- what it prints --------------------------------------------------------------------------


def config_lines(url: str) -> str:
    """The config.toml lines that point a home at ``url`` (written as given: pass the URL
    masked to show them)."""
    # A JSON string is a valid TOML basic string (quotes and backslashes escaped).
    return f'[catalog]\nuse = "postgres"\n\n[catalog.postgres]\nurl = {json.dumps(url)}\n'


def render(report: MigrationReport, config_path: Path, applied: str | None) -> str:
    lines = []
    if report.finished_before:
        verb = "The database already held this home's catalog; brought it up to date:"
    elif report.resumed:
        verb = "Continued an interrupted copy:"
    else:
        verb = "Copied"
    lines.append(
        f"{verb} {report.copied:,} rows of {len(report.tables)} tables into {report.target} in "
        f"{report.copy_seconds:.1f} s ({report.rows_per_s:,.0f} rows/s); verified in "
        f"{report.verify_seconds:.1f} s."
    )
    width = max(len(t.name) for t in report.tables) if report.tables else 5
    lines.append("")
    lines.append(f"  {'table':<{width}}  {'rows':>10}  checksum")
    for t in report.tables:
        if t.ok:
            state = f"{t.source_checksum[:16]}  ok"
        else:
            state = (
                f"MISMATCH: SQLite {t.source_rows:,} rows {t.source_checksum[:16]}, "
                f"PostgreSQL {t.target_rows:,} rows {t.target_checksum[:16]}"
            )
        lines.append(f"  {t.name:<{width}}  {t.source_rows:>10,}  {state}")
    lines.append("")
    if not report.ok:
        names = ", ".join(t.name for t in report.mismatches())
        lines.append(
            f"Verification failed for {names}: the database does not hold an exact copy. Do not "
            "point the home at it. Run memex migrate again to see whether the difference "
            "stays; if it does, migrate into a new, empty database."
        )
        return "\n".join(lines)
    lines.append("Every table's row count and checksum match.")
    lines.append("")
    if applied:
        lines.append(applied)
    else:
        lines.append(f"To use the database, add to {config_path}:")
        lines.append("")
        lines.extend(
            "    " + line if line else "" for line in config_lines(report.target).splitlines()
        )
        lines.append("")
        lines.append(f"or set {URL_ENV}={report.target} in the environment of every memex command.")
    if "***" in report.target:
        lines.append(
            "Put the password where *** stands, or better keep it out of the URL: ~/.pgpass "
            "or PGPASSWORD."
        )
    lines.append(
        "The keyword index and the vectors need no rebuild: every fragment kept its id and the "
        "change journal its numbering, so they match the new catalog as they matched the old "
        "one. catalog.sqlite is left as it was (keep it as a backup until you are happy)."
    )
    return "\n".join(lines)


def _as_json(report: MigrationReport, config_path: Path, applied: str | None) -> dict[str, Any]:
    return {
        "target": report.target,
        "ok": report.ok,
        "resumed": report.resumed,
        "finished_before": report.finished_before,
        "rows": report.rows,
        "copied": report.copied,
        "copy_seconds": round(report.copy_seconds, 3),
        "rows_per_s": round(report.rows_per_s, 1),
        "verify_seconds": round(report.verify_seconds, 3),
        "tables": [t.as_dict() for t in report.tables],
        "config_path": str(config_path),
        "config": config_lines(report.target),
        "env": f"{URL_ENV}={report.target}",
        "config_applied": applied is not None,
    }


def write_config(path: Path, url: str) -> str:
    """Append the [catalog] lines (with the URL as given) to ``path``; refuses to edit a
    file that already has a [catalog] table. Returns what was done, for the output."""
    import tomllib

    from memex_core.errors import MemexError
    from memex_postgres.urls import has_password, mask_password

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        existing = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemexError(f"{path}: invalid TOML ({exc}); not editing it. Fix it first.") from exc
    if "catalog" in existing:
        raise MemexError(
            f"{path} already has a [catalog] table; the copy is verified, but the file was not "
            "edited. Set it by hand to:\n\n" + config_lines(mask_password(url))
        )
    block = "\n# Written by memex migrate: this home's catalog is in PostgreSQL.\n" + config_lines(
        url
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(("\n" if text and not text.endswith("\n") else "") + block)
    note = ""
    if has_password(url):
        os.chmod(path, 0o600)
        note = " It holds the database password, so it is now readable by you only (0600)."
    return f"Wrote the [catalog] lines into {path}; this home now uses the database.{note}"
