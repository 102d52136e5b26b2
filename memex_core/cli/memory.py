"""Agent memory on the command line: remember, recall, memories, history, restore, forget,
undelete, dream and the access log.

``remember`` and ``recall`` act as an agent bound to one user (named ``cli``
unless ``--agent`` says otherwise), so they see exactly what such an agent
would. The rest act as the operator, who sees every user's memory, revisions
and the log. Every call is recorded in the access log (``memex log``).
Rendering lives in :mod:`memex_core.cli.memory_render`.

With ``MEMEX_URL`` and ``MEMEX_API_KEY`` set, the commands run on that ``memex
serve`` (see :func:`memex_core.cli.context.remote_client`). An agent key acts
for its own user: ``--user`` defaults to it and may not name another;
``memories``, ``forget``, ``undelete`` and ``dream`` cover that user's memory;
``history``, ``restore``, ``log``, purging and ``remember --operator`` need
the operator secret in ``MEMEX_API_KEY``. The access log names the key, not
``--agent``.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from memex_core.cli.context import API_KEY_ENV, URL_ENV, format_option, open_memex, remote_client
from memex_core.errors import MemexError, UnknownIdError

ACTOR_NAME = "cli"
NOT_FOUND_HINT = (
    "`memex memories --deleted` lists memory ids; storage paths look like "
    "users/<user>/notes.md or shared/notes.md."
)
CONVERSATION_SHAPE = 'a list of {"role": ..., "content": ...} messages, or {"messages": [...]}'


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


@contextmanager
def _hinted(ref: str) -> Iterator[None]:
    """An unknown memory names the reference and says where ids come from."""
    try:
        yield
    except UnknownIdError as exc:  # MemoryNotFound, or a memex serve's 404
        if str(exc).startswith("No memory"):
            raise MemexError(f"No memory {ref!r}. {NOT_FOUND_HINT}") from exc
        raise


# -- local or remote ----------------------------------------------------------------------------


def _agent_key_user(ctx: click.Context) -> str | None:
    """The user of the agent key the commands run with on a memex serve; None when they
    run on a local home or with the operator secret."""
    client = remote_client(ctx)
    if client is None:
        return None
    identity = client.whoami()
    return identity.user_id if identity.kind == "agent" else None


def _key_refuses(ctx: click.Context, command: str, user_id: str | None) -> None:
    """Refuse ``user_id`` if it is not the agent key's own user (nothing to refuse locally)."""
    own = _agent_key_user(ctx)
    if own is not None and user_id is not None and user_id != own:
        raise MemexError(
            f"`memex {command}` runs on a memex serve with an agent key of user {own!r} "
            f"(${API_KEY_ENV}), which cannot reach the memory of {user_id!r}: use a key of "
            f"user {user_id!r}, or leave --user out."
        )


def _operator(ctx: click.Context, command: str, name: str = ACTOR_NAME) -> Any:
    """The operator's memory handle: the local home's, or a memex serve's when
    ``MEMEX_API_KEY`` holds the operator secret (an agent key is refused)."""
    client = remote_client(ctx)
    if client is None:
        return open_memex(ctx).operator(name)
    own = _agent_key_user(ctx)
    if own is not None:
        raise MemexError(
            f"`memex {command}` is the operator's, and ${API_KEY_ENV} holds an agent key of "
            f"user {own!r}. Put the operator secret in ${API_KEY_ENV}, or unset ${URL_ENV} to "
            "use a local home."
        )
    return client.operator(name)


def _keeper(ctx: click.Context, command: str, user_id: str | None) -> Any:
    """Who lists, forgets, undeletes and dreams: the operator (every user's memory), or on
    a memex serve with an agent key that key's user's memory."""
    _key_refuses(ctx, command, user_id)
    client = remote_client(ctx)
    if client is not None and _agent_key_user(ctx) is not None:
        return client.agent()
    return _operator(ctx, command)


def _agent(ctx: click.Context, command: str, user_id: str | None, agent_name: str) -> Any:
    """``user_id``'s agent named ``agent_name``; on a memex serve with an agent key, the
    key's user (the default) and the key's name."""
    _key_refuses(ctx, command, user_id)
    client = remote_client(ctx)
    if client is None:
        if user_id is None:
            raise click.UsageError("Missing option '--user' / '-u'.")
        return open_memex(ctx).agent(user_id, name=agent_name)
    if _agent_key_user(ctx) is not None:
        return client.agent()
    if user_id is None:
        raise click.UsageError(
            "Missing option '--user' / '-u' (with the operator secret, say whose memory)."
        )
    return client.operator().agent(user_id, name=agent_name)


def _can_prompt() -> bool:
    """Whether a person can answer a prompt (never wait on a pipe or a script)."""
    return sys.stdin.isatty()


# -- remember ------------------------------------------------------------------------------------


def read_conversation(source: str) -> list[dict[str, Any]]:
    """Messages from a JSON file (or ``-`` for stdin), checked message by message."""
    name = "stdin" if source == "-" else source
    try:
        if source == "-":
            raw = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as handle:
                raw = handle.read()
    except OSError as exc:
        raise MemexError(f"{name}: cannot read the conversation: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        from memex_core.source_kit import describe_json_error

        raise MemexError(
            f"{name}: not JSON (line {exc.lineno}, column {exc.colno}: "
            f"{describe_json_error(exc.msg)}). "
            f"Give {CONVERSATION_SHAPE}."
        ) from exc
    if isinstance(data, dict) and "messages" in data:
        data = data["messages"]
    if not isinstance(data, list) or not data:
        raise MemexError(f"{name}: expected {CONVERSATION_SHAPE}, with at least one message.")
    messages = []
    for position, item in enumerate(data, start=1):
        where = f"{name}: message {position}"
        if not isinstance(item, dict):
            raise MemexError(f"{where} is not an object; give {CONVERSATION_SHAPE}.")
        role, content = item.get("role"), item.get("content")
        if not isinstance(role, str) or not role.strip():
            raise MemexError(f'{where} has no "role" (e.g. "user" or "assistant").')
        if not isinstance(content, str):
            raise MemexError(f'{where} has no "content" text.')
        message: dict[str, Any] = {"role": role.strip(), "content": content}
        if item.get("timestamp") is not None:
            message["timestamp"] = _timestamp(item["timestamp"], where)
        messages.append(message)
    return messages


def _timestamp(value: Any, where: str) -> float:
    from memex_core.domain.time_bounds import parse_time_bound

    try:
        moment = parse_time_bound(value)
    except (ValueError, TypeError) as exc:
        raise MemexError(f'{where}: "timestamp" {exc}') from exc
    assert moment is not None
    return moment


@click.command()
@click.argument("text", required=False)
@click.option(
    "--user",
    "-u",
    "user_id",
    help="Whose memory this is (a user id). Required, except with an agent key on a memex "
    "serve ($MEMEX_URL), whose user it is.",
)
@click.option(
    "--collection",
    "-c",
    default="",
    help="Where it goes, e.g. acme:support (hierarchical, ':'-separated; none if not given).",
)
@click.option(
    "--kind",
    default="misc",
    show_default=True,
    help="Fact type of TEXT, e.g. preference, plan, professional.",
)
@click.option("--private", is_flag=True, help="Keep it out of search unless asked for.")
@click.option(
    "--consolidate",
    is_flag=True,
    help="Compare with similar memories first: ADD, UPDATE, DELETE or NONE.",
)
@click.option(
    "--conversation",
    metavar="FILE|-",
    help=f"Remember a conversation from a JSON file ('-' for stdin): {CONVERSATION_SHAPE}. "
    "It is stored whole and the extractor turns it into facts.",
)
@click.option(
    "--agent",
    "agent_name",
    default=ACTOR_NAME,
    show_default=True,
    metavar="NAME",
    help="Name recorded for the writer in revisions and the access log.",
)
@click.option("--operator", is_flag=True, help="Write as the operator instead of as an agent.")
@click.option("--tool-call-id", help="The agent's tool call id, kept in the access log.")
@format_option("panel", "json")
@click.pass_context
def remember(
    ctx: click.Context,
    text: str | None,
    user_id: str | None,
    collection: str,
    kind: str,
    private: bool,
    consolidate: bool,
    conversation: str | None,
    agent_name: str,
    operator: bool,
    tool_call_id: str | None,
    output_format: str,
) -> None:
    """Remember a fact (TEXT, or '-' to read it from stdin) or a conversation for a user.

    \b
    Examples:
      memex remember "Alice prefers green tea" --user alice -c acme:support
      memex remember --conversation chat.json --user alice --consolidate
    <private>...</private> spans are never stored and likely secrets are
    redacted. Prints each decision (ADD, or NONE when already remembered) with
    the memory id.
    """
    from memex_core.cli.memory_render import print_remembered
    from memex_core.domain.memory.facts import FACT_TYPE_NAME

    if (text is None) == (conversation is None):
        raise click.UsageError("Give either TEXT (a fact) or --conversation FILE, not both.")
    if not FACT_TYPE_NAME.fullmatch(kind):
        raise click.BadParameter(
            f"{kind!r}: use lowercase letters, digits and '_' (e.g. preference).",
            param_hint="--kind",
        )
    if text == "-":
        text = sys.stdin.read()
    messages = read_conversation(conversation) if conversation is not None else None
    options: dict[str, Any] = {
        "messages": messages,
        "collection": collection,
        "kind": kind,
        "private": private,
        "consolidate": consolidate,
        "tool_call_id": tool_call_id,
    }
    if operator:
        if user_id is None:
            raise click.UsageError("Missing option '--user' / '-u'.")
        result = _operator(ctx, "remember --operator", agent_name).remember(
            text, user_id=user_id, **options
        )
        who = f"operator:{agent_name}"
    else:
        agent = _agent(ctx, "remember", user_id, agent_name)
        result = agent.remember(text, **options)
        user_id = agent.user_id
        who = f"agent:{getattr(agent, 'name', agent_name)}"
    if output_format == "json":
        _echo_json({"user_id": user_id, "collection": collection, **result.to_dict()})
    else:
        where = f" in {collection}" if collection else ""
        print_remembered(result, f"Remembered for {user_id}{where} as {who}")


@click.command()
@click.argument("query")
@click.option(
    "--user",
    "-u",
    "user_id",
    help="Search as this user's agent. Required, except with an agent key on a memex serve "
    "($MEMEX_URL), whose user it is.",
)
@click.option("--collection", "-c", default="", help="Only this collection and those below it.")
@click.option("--include-private", is_flag=True, help="Include memories stored as private.")
@click.option(
    "--limit", "-n", default=10, show_default=True, type=click.IntRange(1), help="Most hits."
)
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "keyword", "semantic"]),
    default="hybrid",
    show_default=True,
)
@click.option(
    "--agent",
    "agent_name",
    default=ACTOR_NAME,
    show_default=True,
    metavar="NAME",
    help="Name of the searching agent in the access log.",
)
@format_option("panel", "json")
@click.pass_context
def recall(
    ctx: click.Context,
    query: str,
    user_id: str | None,
    collection: str,
    include_private: bool,
    limit: int,
    mode: str,
    agent_name: str,
    output_format: str,
) -> None:
    """Search memory as the user's agent would: their memory and shared memory, nothing else."""
    from memex_core.cli.memory_render import print_hits

    agent = _agent(ctx, "recall", user_id, agent_name)
    hits = agent.search(
        query,
        limit=limit,
        mode=mode,
        collection=collection or None,
        include_private=include_private,
    )
    if output_format == "json":
        _echo_json([h.to_dict() for h in hits])
    else:
        print_hits(hits)


# -- operator: listing, history, restore -----------------------------------------------


@click.command()
@click.option("--user", "-u", "user_id", help="Only this user's memory (everyone's if not given).")
@click.option("--collection", "-c", default="", help="Only this collection and those below it.")
@click.option("--kind", help="Only this kind (a fact type, file or conversation).")
@click.option("--deleted", is_flag=True, help="Include deleted and invalidated memories.")
@click.option(
    "--limit", "-n", default=100, show_default=True, type=click.IntRange(1), help="Most memories."
)
@format_option("panel", "json")
@click.pass_context
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

    records = _keeper(ctx, "memories", user_id).list(
        collection or None,
        include_deleted=deleted,
        kind=kind,
        limit=limit,
        user_id=user_id,
    )
    if output_format == "json":
        _echo_json([r.to_dict() for r in records])
    else:
        print_memories(records, limit)


@click.command()
@click.argument("ref")
@click.option("--full", is_flag=True, help="Show whole contents, not snippets.")
@format_option("panel", "json")
@click.pass_context
def history(ctx: click.Context, ref: str, full: bool, output_format: str) -> None:
    """Every revision of a memory, oldest first.

    REF is a memory id (mem_...) or a storage path (users/alice/notes.md,
    shared/handbook.md).
    """
    from memex_core.cli.memory_render import print_history

    with _hinted(ref):
        revisions = _operator(ctx, "history").history(ref)
    if output_format == "json":
        _echo_json([r.to_dict() for r in revisions])
    else:
        print_history(revisions, full)


@click.command()
@click.argument("ref")
@click.argument("revision", type=click.IntRange(1))
@format_option("panel", "json")
@click.pass_context
def restore(ctx: click.Context, ref: str, revision: int, output_format: str) -> None:
    """Make REVISION of a memory current again (written as a new revision; see `memex history`)."""
    from memex_core.cli.memory_render import print_record

    with _hinted(ref):
        record = _operator(ctx, "restore").restore(ref, revision)
    if output_format == "json":
        _echo_json(record.to_dict())
    else:
        print_record(record, f"Restored revision {revision} of")


@click.command()
@click.argument("ref")
@format_option("panel", "json")
@click.pass_context
def undelete(ctx: click.Context, ref: str, output_format: str) -> None:
    """Bring back a deleted or invalidated memory as it was (a new revision)."""
    from memex_core.cli.memory_render import print_record

    with _hinted(ref):
        record = _keeper(ctx, "undelete", None).undelete(ref)
    if output_format == "json":
        _echo_json(record.to_dict())
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
@format_option("panel", "json")
@click.pass_context
def forget(
    ctx: click.Context,
    refs: tuple[str, ...],
    reason: str,
    purge: bool,
    user_id: str | None,
    confirm: str | None,
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
    """
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

    operator = _keeper(ctx, "forget", None)
    for ref in refs:  # every reference must resolve before anything is deleted
        with _hinted(ref):
            operator.get(ref)
    records = [operator.forget(ref, reason=reason) for ref in refs]
    if output_format == "json":
        _echo_json([r.to_dict() for r in records])
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
    from memex_core.domain.memory.paths import validate_user_id

    operator = _operator(ctx, "forget --purge")
    if user_id is not None:
        validate_user_id(user_id)
        count = _count_memories(operator, user_id)
        expected = user_id
        what = f"all memory of user {user_id!r} ({count} memories) and their access log entries"
    else:
        chosen: dict[str, str] = {}  # memory id -> the reference naming it first
        for ref in refs:
            with _hinted(ref):
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
    purged = operator.purge(memory_ids=refs, user_id=user_id, confirm=confirm)
    if output_format == "json":
        _echo_json({"purged": purged, "user_id": user_id, "memory_ids": list(refs)})
    else:
        click.echo(
            f"Purged {purged} memories: every revision, fragment, vector and link. "
            "The access log records that a purge happened."
        )


# -- dream and the log ----------------------------------------------------------------------------


@click.command()
@click.option("--user", "-u", "user_id", help="Only this user's memory (everyone's if not given).")
@click.option("--collection", "-c", default="", help="Only this collection and those below it.")
@click.option("--dry-run", is_flag=True, help="Decide and show the plan, write nothing.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@format_option("panel", "json")
@click.pass_context
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
    repeat. Changes are revisions (`memex history`, `memex undelete`).
    Runs as the operator.
    """
    from memex_core.cli.memory_render import dream_json, print_dream
    from memex_core.cli.progress import RichProgress

    report = _keeper(ctx, "dream", user_id).dream(
        collection or None,
        dry_run=dry_run,
        user_id=user_id,
        progress=RichProgress(quiet or output_format == "json"),
    )
    if output_format == "json":
        _echo_json(dream_json(report))
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
@click.option(
    "--limit", "-n", default=50, show_default=True, type=click.IntRange(1), help="Most entries."
)
@format_option("panel", "json")
@click.pass_context
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
    from memex_core.domain.time_bounds import parse_time_bound

    try:
        bounds = {
            "since": parse_time_bound(since),
            "until": parse_time_bound(until, end_of_day=True),
        }
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--since/--until") from exc
    entries = _operator(ctx, "log").access_log(**filters, **bounds, limit=limit)
    if output_format == "json":
        _echo_json(log_json(entries))
    else:
        print_log(entries, limit)


COMMANDS = (remember, recall, memories, history, restore, forget, undelete, dream, log)
