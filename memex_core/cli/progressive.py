"""Progressive retrieval for people and agents: ``explore``, ``timeline``, ``get``, ``context``.

Search (``memex dig --concise``) finds candidates cheaply; ``timeline`` shows
what surrounds one; ``get`` returns full text; ``context`` assembles a pack
within a character budget; ``explore`` walks a note's links.

With ``MEMEX_URL`` and ``MEMEX_API_KEY`` set they read a ``memex serve`` (what
the key reaches), as ``memex dig`` then does, so ids from a remote search work
here; ids must then be whole (the service takes no prefixes).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from memex_core.cli.opening import format_option, number_option, open_memex, remote_client
from memex_core.errors import UnknownIdError
from memex_core.services.context import MIN_ITEM_CHARS

if TYPE_CHECKING:
    from memex_core.memex_like import ViewLike


def _remote_view(ctx: click.Context) -> ViewLike | None:
    """What the credentials in ``MEMEX_API_KEY`` read on the ``MEMEX_URL`` service."""
    client = remote_client(ctx)
    return None if client is None else client.view()


@click.command()
@click.argument("note")
@number_option(
    "--similar",
    5,
    "How many similar, unlinked notes to suggest (0: none; needs semantic search).",
    minimum=0,
)
@click.option("--concise", is_flag=True, help="Paths and titles only.")
@format_option("panel", "json")
def explore(ctx: click.Context, note: str, similar: int, concise: bool, output_format: str) -> None:
    """Show a note's links: where it leads, what links to it, and similar unlinked notes.

    NOTE is a path inside the vault ("Folder/Note.md" or without .md), a title,
    an alias, or a note id. Unresolved links (to notes that do not exist) are
    listed with no path.
    """
    remote = _remote_view(ctx)
    if remote is not None:
        found = remote.explore(note, similar)
    else:
        found = open_memex(ctx).explore(note, similar=similar)
    data = found.to_dict(concise)
    if output_format == "json":
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.tree import Tree

    from memex_core.cli.render import esc

    root = Tree(f"[bold]{esc(found.note.title)}[/] [dim]{esc(found.note.path)}[/]")
    out = root.add(f"[green]links to[/] ({len(found.outlinks)})")
    for link in found.outlinks:
        where = esc(link.target_path) if link.target_path else "[red]unresolved[/]"
        kind = " [dim](embed)[/]" if link.kind == "embed" else ""
        out.add(f"{esc(link.label)}{kind} [dim]{where}[/]")
    back = root.add(f"[magenta]linked from[/] ({len(found.backlinks)})")
    for backlink in found.backlinks:
        line = f"{esc(backlink.source_title)} [dim]{esc(backlink.source_path)}[/]"
        back.add(line if concise else f"{line}\n[dim]{esc(backlink.context)}[/]")
    if similar:
        like = root.add(f"[cyan]similar, not linked[/] ({len(found.similar)})")
        for item in found.similar:
            like.add(f"{esc(item.title)} [dim]{esc(item.path)} · {item.score:.2f}[/]")
    Console().print(root)
    for message in found.notes:
        click.echo(f"Note: {message}", err=True)


@click.command()
@click.argument("fragment_id")
@number_option(
    "--before", 3, "How many fragments before it to show (0: none).", short="-b", minimum=0
)
@number_option(
    "--after", 3, "How many fragments after it to show (0: none).", short="-a", minimum=0
)
@format_option("panel", "json")
def timeline(
    ctx: click.Context, fragment_id: str, before: int, after: int, output_format: str
) -> None:
    """Show the turns (or note sections) around a fragment, in order.

    FRAGMENT_ID comes from a search (`memex dig --concise`): the whole id or a
    unique prefix of it. The fragment itself is marked; --before/--after set how
    many neighbours to show.
    """
    from memex_core.cli.render import print_fragments, timeline_to_dict

    remote = _remote_view(ctx)
    if remote is not None:
        found = remote.timeline(fragment_id, before, after)
    else:
        found = open_memex(ctx).timeline(fragment_id, before=before, after=after)
    if output_format == "json":
        click.echo(json.dumps(timeline_to_dict(found), indent=2, ensure_ascii=False))
    else:
        print_fragments(found.fragments, {found.anchor_id: "▶ "})


@click.command()
@click.argument("fragment_ids", nargs=-1, required=True)
@format_option("panel", "json")
def get(ctx: click.Context, fragment_ids: tuple[str, ...], output_format: str) -> None:
    """Show fragments in full, by id.

    Each FRAGMENT_ID is a whole id or a unique prefix of one (4 characters or
    more, as git takes a commit's). An unknown or ambiguous id is an error
    (exit status 1) before anything is printed.
    """
    from memex_core.cli.render import fragment_to_dict, print_fragments

    remote = _remote_view(ctx)
    if remote is not None:
        fragments: list[Any] = remote.get(list(fragment_ids))
        missing = sorted(set(fragment_ids) - {f.id for f in fragments})
        if missing:
            raise UnknownIdError(
                f"No fragment with id {', '.join(map(repr, missing))} in what these credentials "
                "reach. Ids come from a search (`memex dig --concise`); give them whole."
            )
    else:
        mx = open_memex(ctx)
        fragments = mx.get(mx.resolve_ids(fragment_ids))
    if output_format == "json":
        click.echo(
            json.dumps([fragment_to_dict(f) for f in fragments], indent=2, ensure_ascii=False)
        )
    else:
        print_fragments(fragments)


@click.command(name="context")
@click.argument("query")
@number_option(
    "--budget",
    4000,
    f"Most characters of text the pack may hold (at least {MIN_ITEM_CHARS}: the smallest "
    "piece a pack takes; as `memex ask --budget`).",
    short="-b",
    minimum=MIN_ITEM_CHARS,
)
@click.option(
    "--source",
    multiple=True,
    help="Only this source kind (repeatable); code (what memex ask indexed) only when named.",
)
@click.option(
    "--tag",
    multiple=True,
    help="Only notes with this tag or one nested under it (repeatable).",
)
@click.option(
    "--no-time-phrases",
    is_flag=True,
    help='Do not read phrases like "last week" in the query as a time filter.',
)
@format_option("panel", "json")
def context_pack(
    ctx: click.Context,
    query: str,
    budget: int,
    source: tuple[str, ...],
    tag: tuple[str, ...],
    no_time_phrases: bool,
    output_format: str,
) -> None:
    """Assemble context for QUERY within a character budget, each item with its reason.

    \b
    query_match  a search hit for the query
    linked       a note a hit links to
    recency      recent material filling the rest
    Long items are cut around the match; `memex get ID` returns them whole.
    """
    from memex_core.cli.render import print_context
    from memex_core.domain.search_options import SearchOptions

    asked = SearchOptions(
        query, source=source or None, tag=tag or None, time_phrases=not no_time_phrases
    )
    remote = _remote_view(ctx)
    holds_something = True
    if remote is not None:
        pack = remote.context(asked, budget)
    else:
        from memex_core.cli.search import refuse_unknown_sources

        mx = open_memex(ctx)
        refuse_unknown_sources(mx, source)
        pack = mx.context(asked, budget)
        holds_something = not pack.items and mx.catalog.count_fragments() > 0
    if output_format == "json":
        click.echo(json.dumps(pack.to_dict(), indent=2, ensure_ascii=False))
    else:
        print_context(pack)
    if not pack.items and holds_something:
        click.echo(
            "Nothing here seems to be about this query: no search hit cleared the relevance "
            "floor ([search] min_semantic_similarity), so no recent material was added "
            "either. `memex dig QUERY` says why; `memex dig QUERY --no-floor` shows the "
            "nearest anyway.",
            err=True,
        )
