"""``memex forget --source code [--repo PATH]``: forget the code ``memex ask`` indexed.

Searches leave a repository's code out unless they name it; this removes it from the
catalog and both indexes (:meth:`memex_core.api.Memex.forget_code`), on the local home.
"""

from __future__ import annotations

import click

from memex_core.cli.memory_handles import echo_json
from memex_core.cli.opening import open_memex
from memex_core.errors import MemexError

#: The one source ``forget --source`` takes: memory has its own ids and paths.
CODE = "code"


def forget_code(
    ctx: click.Context, source: str | None, repo: str | None, *, mixed: bool, output_format: str
) -> None:
    """Check the options, forget the code, and say what went."""
    if source != CODE:
        given = "--repo without --source code" if source is None else f"--source {source}"
        raise click.UsageError(
            f"{given}: forget takes --source code only (a repository's code that "
            "`memex ask` indexed); memories are forgotten by id or path."
        )
    if mixed:
        raise click.UsageError(
            "--source code forgets a repository's code; REFS, --purge, --user, --reason and "
            "--confirm are for memories. Run them as two commands."
        )
    mx = open_memex(ctx)
    if not hasattr(mx, "forget_code"):
        raise MemexError("forget --source code works on a local home; unset MEMEX_URL.")
    done = mx.forget_code(repo)
    if output_format == "json":
        echo_json(done.to_dict())
        return
    for repository in done.repositories:
        click.echo(
            f"Forgot the code of {repository.root}: {repository.files:,} file(s), "
            f"{repository.fragments:,} fragment(s), from the catalog and both indexes."
        )
    if done.repositories:
        click.echo("`memex ask` in that repository indexes it again.")
    for note in done.notes:
        click.echo(f"note: {note}", err=True)
