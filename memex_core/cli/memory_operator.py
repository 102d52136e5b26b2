"""Agent memory on the command line: remember, recall, memories, history, restore, forget,
undelete, dream and the access log.

``remember`` and ``recall`` act as an agent bound to one user (named ``cli``
unless ``--agent`` says otherwise), so they see exactly what such an agent
would. The rest act as the operator, who sees every user's memory, revisions
and the log. Every call is recorded in the access log (``memex log``).
Rendering lives in :mod:`memex_core.cli.memory_render`; ``remember`` and ``recall`` in
:mod:`memex_core.cli.memory_agent`; which handle (local or remote) a command acts through
in :mod:`memex_core.cli.memory_handles`. This module holds the operator's commands.

With ``MEMEX_URL`` and ``MEMEX_API_KEY`` set, the commands run on that ``memex
serve`` (see :func:`memex_core.cli.opening.remote_client`). An agent key acts
for its own user: ``--user`` defaults to it and may not name another;
``memories``, ``forget``, ``undelete`` and ``dream`` cover that user's memory;
``history``, ``restore``, ``log``, purging and ``remember --operator`` need
the operator secret in ``MEMEX_API_KEY``. The access log names the key, not
``--agent``.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import click

from memex_core.cli.memory_agent import recall, remember
from memex_core.cli.memory_handles import echo_json, hinted, keeper, operator_handle
from memex_core.cli.opening import format_option, limit_option, quiet_option, time_span
from memex_core.errors import MemexError


def _can_prompt() -> bool:
    """Whether a person can answer a prompt (never wait on a pipe or a script)."""
    return sys.stdin.isatty()


# -- operator: listing, history, restore -----------------------------------------------


@click.command()
@click.option("--user", "-u", "user_id", help="Only this user's memory (everyone's if not given).")
@click.option("--collection", "-c", default="", help="Only this collection and those below it.")
@click.option("--kind", help="Only this kind (a fact type, file or conversation).")
@click.option("--deleted", is_flag=True, help="Include deleted and invalidated memories.")
@limit_option(100, "Most memories.")
@format_option("panel", "json")
def memories(
    ctx: click.Context,
    user_id: str | None,
    collection: str,
    kind: str | None,
    deleted: bool,
    limit: int,
    output_format: str,
) -> None:
    """List stored memories, oldest first (as the operator)."""
    from memex_core.cli.memory_render import print_memories

    records = keeper(ctx, "memories", user_id).list(
        collection or None,
        include_deleted=deleted,
        kind=kind,
        limit=limit,
        user_id=user_id,
    )
    if output_format == "json":
        echo_json([r.to_dict() for r in records])
    else:
        print_memories(records, limit)


@click.command()
@click.argument("ref")
@click.option("--full", is_flag=True, help="Show whole contents, not snippets.")
@click.option(
    "--chain",
    is_flag=True,
    help="The facts this one belongs to in time instead (Paris -> Berlin), oldest first, "
    "each with when it held and what superseded it.",
)
@format_option("panel", "json")
def history(ctx: click.Context, ref: str, full: bool, chain: bool, output_format: str) -> None:
    """Every revision of a memory, oldest first; with --chain, the facts it replaced and
    those that replaced it.

    REF is a memory id (mem_...) or a storage path (users/alice/notes.md,
    shared/handbook.md). A fact that has been superseded, or superseded
    another, also shows that chain above its revisions.
    """
    from memex_core.cli.memory_render import print_chain, print_history

    handle = operator_handle(ctx, "history")
    chain_of = getattr(handle, "chain", None)  # a memex serve's client may not offer it yet
    if chain and chain_of is None:
        raise MemexError("`memex history --chain` is not offered by this memex serve yet.")
    with hinted(ref):
        facts = chain_of(ref) if chain_of is not None else []
        revisions = [] if chain else handle.history(ref)
    if output_format == "json":
        echo_json([r.to_dict() for r in (facts if chain else revisions)])
        return
    if chain or len(facts) > 1:
        print_chain(facts, full)
    if not chain:
        print_history(revisions, full)


@click.command()
@click.argument("ref")
@click.argument("revision", type=click.IntRange(1))
@format_option("panel", "json")
def restore(ctx: click.Context, ref: str, revision: int, output_format: str) -> None:
    """Make REVISION of a memory current again (written as a new revision; see `memex history`)."""
    from memex_core.cli.memory_render import print_record

    with hinted(ref):
        record = operator_handle(ctx, "restore").restore(ref, revision)
    if output_format == "json":
        echo_json(record.to_dict())
    else:
        print_record(record, f"Restored revision {revision} of")


@click.command()
@click.argument("ref")
@format_option("panel", "json")
def undelete(ctx: click.Context, ref: str, output_format: str) -> None:
    """Bring back a deleted or invalidated memory as it was (a new revision)."""
    from memex_core.cli.memory_render import print_record

    with hinted(ref):
        record = keeper(ctx, "undelete", None).undelete(ref)
    if output_format == "json":
        echo_json(record.to_dict())
    else:
        print_record(record, "Undeleted")


# -- forget and purge ---------------------------------------------------------------------------


@click.command()
@click.argument("refs", nargs=-1)
@click.option("--reason", default="", help="Why, kept in the memory's history (soft delete).")
@click.option(
    "--purge",
    is_flag=True,
    help="Hard-delete instead: every revision, fragment, vector and link. Cannot be undone.",
)
@click.option("--user", "-u", "user_id", help="With --purge: all of this user's memory.")
@click.option("--confirm", help="With --purge: repeat what the command asks for.")
@click.option(
    "--source",
    help="code: forget a repository's code that `memex ask` indexed, instead of memories.",
)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=str),
    help="With --source code: only this repository's code (default: every repository's).",
)
@format_option("panel", "json")
def forget(
    ctx: click.Context,
    refs: tuple[str, ...],
    reason: str,
    purge: bool,
    user_id: str | None,
    confirm: str | None,
    source: str | None,
    repo: str | None,
    output_format: str,
) -> None:
    """Forget memories: a soft delete that `memex undelete` reverses.

    \b
    REFS are memory ids (mem_...) or storage paths (users/alice/notes.md).
    For a data-protection request, purge instead (cannot be undone):
      memex forget --purge --user alice --confirm alice
      memex forget --purge mem_0123 --confirm mem_0123
    Without the matching --confirm, nothing is deleted and memex says what to
    type (at a terminal it asks).
    \b
    The code `memex ask` indexed goes with --source code:
      memex forget --source code --repo .
    (searches never show it unless asked; `memex ask` indexes it again).
    """
    if source is not None or repo is not None:
        from memex_core.cli.code_forget import forget_code

        mixed = bool(refs or purge or reason or user_id or confirm)
        forget_code(ctx, source, repo, mixed=mixed, output_format=output_format)
        return
    if not purge:
        if user_id is not None or confirm is not None:
            raise click.UsageError("--user and --confirm go with --purge.")
        if not refs:
            raise click.UsageError("Name the memories to forget (ids or storage paths).")
        _soft_delete(ctx, refs, reason, output_format)
        return
    if reason:
        raise click.UsageError("--reason is kept for soft deletes; a purge keeps no history.")
    if bool(refs) == (user_id is not None):
        raise click.UsageError("--purge needs memory ids/paths or --user, not both.")
    _purge(ctx, refs, user_id, confirm, output_format)


def _soft_delete(
    ctx: click.Context, refs: tuple[str, ...], reason: str, output_format: str
) -> None:
    from memex_core.cli.memory_render import print_record

    operator = keeper(ctx, "forget", None)
    for ref in refs:  # every reference must resolve before anything is deleted
        with hinted(ref):
            operator.get(ref)
    records = [operator.forget(ref, reason=reason) for ref in refs]
    if output_format == "json":
        echo_json([r.to_dict() for r in records])
        return
    for record in records:
        print_record(record, "Forgot")
    click.echo("`memex undelete ID` brings a memory back.")


def _count_memories(operator: Any, user_id: str) -> int:
    """How many memories ``user_id`` has, deleted ones too (a page at a time: a memex
    serve lists at most 1,000 per request)."""
    page_size, offset = 1000, 0
    while True:
        page = operator.list(include_deleted=True, user_id=user_id, limit=page_size, offset=offset)
        offset += len(page)
        if len(page) < page_size:
            return offset


def _purge(
    ctx: click.Context,
    refs: tuple[str, ...],
    user_id: str | None,
    confirm: str | None,
    output_format: str,
) -> None:
    from memex_core.cli.purge_receipt import print_receipt
    from memex_core.domain.memory.paths import validate_user_id

    operator = operator_handle(ctx, "forget --purge")
    if user_id is not None:
        validate_user_id(user_id)
        count = _count_memories(operator, user_id)
        expected = user_id
        what = f"all memory of user {user_id!r} ({count} memories) and their access log entries"
    else:
        chosen: dict[str, str] = {}  # memory id -> the reference naming it first
        for ref in refs:
            with hinted(ref):
                chosen.setdefault(operator.get(ref).id, ref)
        refs = tuple(chosen.values())
        expected = refs[0] if len(refs) == 1 else f"{len(refs)} memories"
        what = ", ".join(chosen)
    if confirm != expected:
        if confirm is None and _can_prompt():
            click.echo(f"Purging cannot be undone. It removes {what}.", err=True)
            typed = click.prompt(
                f"Type {expected} to confirm", default="", show_default=False, err=True
            )
            if typed.strip() != expected:
                raise MemexError("Not confirmed; nothing was purged.")
            confirm = expected
        else:
            given = "" if confirm is None else f" ({confirm!r} does not match)"
            raise MemexError(
                f"Purging cannot be undone; it removes {what}. Nothing was purged{given}. "
                f"To confirm, run again with --confirm {shlex.quote(expected)}"
            )
    receipt = operator.purge_receipt(memory_ids=refs, user_id=user_id, confirm=confirm)
    if output_format == "json":
        echo_json(receipt.to_dict())
    else:
        click.echo(
            f"Purged {receipt.purged} memories: every revision, fragment, vector and link. "
            "The access log records that a purge happened."
        )
        print_receipt(receipt)


# -- dream and the log ----------------------------------------------------------------------------


@click.command()
@click.option("--user", "-u", "user_id", help="Only this user's memory (everyone's if not given).")
@click.option("--collection", "-c", default="", help="Only this collection and those below it.")
@click.option("--dry-run", is_flag=True, help="Decide and show the plan, write nothing.")
@quiet_option()
@format_option("panel", "json")
def dream(
    ctx: click.Context,
    user_id: str | None,
    collection: str,
    dry_run: bool,
    quiet: bool,
    output_format: str,
) -> None:
    """Consolidate stored facts: merge repeats, fold rewordings, retire contradicted ones.

    Each collection's facts are taken oldest first and offered to the
    consolidator with the similar facts before them: ADD keeps a fact, UPDATE
    rewrites an earlier one, DELETE invalidates an earlier one, NONE retires a
    repeat. A fact left standing also closes the earlier facts it supersedes
    (same subject and attribute; --dry-run names them). Changes are revisions
    (`memex history`, `memex undelete`). Runs as the operator.
    """
    from memex_core.cli.memory_render import dream_json, print_dream
    from memex_core.cli.progress import RichProgress

    report = keeper(ctx, "dream", user_id).dream(
        collection or None,
        dry_run=dry_run,
        user_id=user_id,
        progress=RichProgress(quiet or output_format == "json"),
    )
    if output_format == "json":
        echo_json(dream_json(report))
    else:
        print_dream(report)


@click.command(name="log")
@click.option("--user", "-u", "user_id", help="Only entries about this user's memory.")
@click.option("--actor", help="Only this agent or operator name (e.g. cli, support-bot).")
@click.option(
    "--actor-kind", type=click.Choice(["agent", "operator"]), help="Only agents or operators."
)
@click.option(
    "--action", help="Only this action: remember, search, read, write, forget, purge, ..."
)
@click.option("--outcome", help="Only this outcome: ok, not_found, denied, invalid.")
@click.option("--since", help="At or after: 2024-05-01, 2024-05-01T09:30, 7d, 12h.")
@click.option("--until", help="At or before (a bare date includes the whole day).")
@click.option("--tool-call-id", help="Only this tool call.")
@limit_option(50, "Most entries.")
@format_option("panel", "json")
def log(
    ctx: click.Context,
    since: str | None,
    until: str | None,
    limit: int,
    output_format: str,
    **filters: Any,
) -> None:
    """The memory access log, newest first: who read or changed whose memory, and how it went."""
    from memex_core.cli.memory_render import log_json, print_log

    bounds = time_span(since, until)
    entries = operator_handle(ctx, "log").access_log(**filters, **bounds, limit=limit)
    if output_format == "json":
        echo_json(log_json(entries))
    else:
        print_log(entries, limit)


COMMANDS = (remember, recall, memories, history, restore, forget, undelete, dream, log)
