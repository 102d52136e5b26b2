"""``memex remember`` and ``memex recall``: memory as an agent bound to one user sees it.

They act as an agent named ``cli`` (or ``--agent``) of ``--user``, so they see exactly what
such an agent would; with an agent key on a ``memex serve``, as that key
(:mod:`memex_core.cli.memory_handles`). ``remember --operator`` writes as the operator.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from memex_core.cli.memory_handles import ACTOR_NAME, agent_handle, echo_json, operator_handle
from memex_core.cli.opening import format_option, limit_option
from memex_core.errors import MemexError

F = TypeVar("F", bound=Callable[..., Any])


def agent_name_option(help_text: str) -> Callable[[F], F]:
    """``--agent NAME``: the agent the command acts as (``cli`` unless given)."""
    return click.option(
        "--agent",
        "agent_name",
        default=ACTOR_NAME,
        show_default=True,
        metavar="NAME",
        help=help_text,
    )


CONVERSATION_SHAPE = 'a list of {"role": ..., "content": ...} messages, or {"messages": [...]}'


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
    help="Compare with similar memories first: ADD, UPDATE, DELETE or NONE (a fact that "
    "supersedes an earlier one is always added, closing it).",
)
@click.option(
    "--at",
    "at",
    metavar="DATE",
    help="When the fact was said (ISO 8601 date or time, e.g. 2024-05-01; default now): "
    "it holds from then, or from the time its own words name.",
)
@click.option(
    "--conversation",
    metavar="FILE|-",
    help=f"Remember a conversation from a JSON file ('-' for stdin): {CONVERSATION_SHAPE}. "
    "It is stored whole and the extractor turns it into facts.",
)
@agent_name_option("Name recorded for the writer in revisions and the access log.")
@click.option("--operator", is_flag=True, help="Write as the operator instead of as an agent.")
@click.option("--tool-call-id", help="The agent's tool call id, kept in the access log.")
@format_option("panel", "json")
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
    at: str | None,
) -> None:
    """Remember a fact (TEXT, or '-' to read it from stdin) or a conversation for a user.

    \b
    Examples:
      memex remember "Alice prefers green tea" --user alice -c acme:support
      memex remember --conversation chat.json --user alice --consolidate
      memex remember "Alice moved to Berlin" --user alice --at 2024-05-01
    <private>...</private> spans are never stored and likely secrets are
    redacted. A fact that updates an earlier one of the user's in the same
    collection (where someone lives, a preference, a version...) closes it:
    the earlier fact is kept, valid until then (`memex history ID --chain`).
    This happens with and without --consolidate; --consolidate also merges
    repeats and rewordings. Prints each decision (ADD, or NONE when already
    remembered) with the memory id.
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
    from_stdin = text == "-"
    if from_stdin:
        text = sys.stdin.read()
    if text is not None and not text.strip():
        where = "stdin held no text" if from_stdin else "the text is empty"
        raise MemexError(
            f"Nothing to remember: {where}. Give the fact as TEXT (or '-' to read it from stdin)."
        )
    messages = read_conversation(conversation) if conversation is not None else None
    options: dict[str, Any] = {
        "messages": messages,
        "collection": collection,
        "kind": kind,
        "private": private,
        "consolidate": consolidate,
        "tool_call_id": tool_call_id,
        "at": moment_option(at, "--at"),
    }
    if operator:
        if user_id is None:
            raise click.UsageError("Missing option '--user' / '-u'.")
        result = operator_handle(ctx, "remember --operator", agent_name).remember(
            text, user_id=user_id, **options
        )
        who = f"operator:{agent_name}"
    else:
        agent = agent_handle(ctx, "remember", user_id, agent_name)
        result = agent.remember(text, **options)
        user_id = agent.user_id
        who = f"agent:{getattr(agent, 'name', agent_name)}"
    if output_format == "json":
        echo_json({"user_id": user_id, "collection": collection, **result.to_dict()})
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
@limit_option(10, "Most hits.")
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "keyword", "semantic"]),
    default="hybrid",
    show_default=True,
    help="How to match: hybrid (words and meaning fused, as `memex dig`), keyword (exact "
    "words, BM25) or semantic (meaning, by embedding similarity).",
)
@click.option(
    "--as-of",
    metavar="DATE",
    help="The facts that were valid then (ISO 8601 date or time), superseded ones included.",
)
@click.option(
    "--include-superseded",
    is_flag=True,
    help="Every fact, superseded ones too, each with its validity.",
)
@agent_name_option("Name of the searching agent in the access log.")
@format_option("panel", "json")
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
    as_of: str | None,
    include_superseded: bool,
) -> None:
    """Search memory as the user's agent would: their memory and shared memory, nothing else.

    Current facts only: a fact another superseded is left out unless --as-of asks
    for what was valid at a date or --include-superseded for everything.
    """
    from memex_core.cli.memory_render import print_hits
    from memex_core.domain.search_options import SearchOptions

    asked = SearchOptions(
        query,
        mode,
        limit,
        collection=collection or None,
        include_private=include_private,
        as_of=moment_option(as_of, "--as-of"),
        include_superseded=include_superseded,
    )
    hits = agent_handle(ctx, "recall", user_id, agent_name).search(asked)
    if output_format == "json":
        echo_json([h.to_dict() for h in hits])
    else:
        print_hits(hits)


def moment_option(value: str | None, option: str) -> float | None:
    """A date option read as epoch seconds; a bad one is one clear line (exit 1)."""
    from memex_core.domain.memory.timestamps import to_epoch

    return None if value is None else to_epoch(value, option)
