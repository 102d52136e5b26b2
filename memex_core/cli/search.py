"""``memex dig`` (hybrid), ``memex keyword`` and ``memex semantic``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

from memex_core.cli.opening import (
    config_default,
    format_option,
    limit_option,
    open_memex,
    option_group,
    remote_client,
)
from memex_core.errors import MemexError
from memex_core.services.search import DEFAULT_SEMANTIC_WEIGHT

if TYPE_CHECKING:
    from memex_core.cli.remote import RemoteClient
    from memex_core.domain.search_options import SearchOptions
    from memex_core.services.search import SearchResults

FILTER_HELP = {
    "source": "Only this source kind (repeatable), e.g. chatgpt, claude_ai, claude_code, codex, "
    "obsidian; code (what memex ask indexed) is searched only when named here.",
    "conversation": "Only this conversation id (repeatable).",
    "role": "Only this role (repeatable): user, assistant, system, tool, note.",
    "since": "Only fragments at or after this time: 2024-05-01, 2024-05-01T09:30, 7d, 12h.",
    "until": "Only fragments at or before this time (a bare date includes the whole day).",
    "tag": "Only notes with this tag or one nested under it (repeatable): project matches "
    "#project and #project/memex.",
}


search_options = option_group(
    click.argument("query"),
    limit_option(10, "How many results."),
    click.option("--source", multiple=True, help=FILTER_HELP["source"]),
    click.option("--conversation", multiple=True, help=FILTER_HELP["conversation"]),
    click.option("--role", multiple=True, help=FILTER_HELP["role"]),
    click.option("--since", help=FILTER_HELP["since"]),
    click.option("--until", help=FILTER_HELP["until"]),
    click.option("--tag", multiple=True, help=FILTER_HELP["tag"]),
    click.option(
        "--concise",
        is_flag=True,
        help="Compact hits (id, title, snippet, score, why it matched): scan many, then "
        "`memex timeline ID` or `memex get ID`.",
    ),
    click.option(
        "--include-private",
        is_flag=True,
        help="Also search memories marked private (left out unless asked for).",
    ),
    click.option(
        "--no-time-phrases",
        is_flag=True,
        help='Do not read phrases like "last week" or "in March" as a time filter.',
    ),
    format_option("panel", "json", "ids"),
)

#: ``--no-floor`` and ``--min-similarity``: the relevance floor of ``dig`` and ``semantic``
#: (``keyword`` shows what holds the words and has none).
floor_options = option_group(
    click.option(
        "--no-floor",
        is_flag=True,
        help="Show the nearest neighbours even when nothing carries evidence (turns off "
        "the relevance floor, [search] min_semantic_similarity).",
    ),
    click.option(
        "--min-similarity",
        type=click.FloatRange(-1.0, 1.0),
        default=None,
        help="Relevance floor for this search: the cosine similarity a hit found by "
        "meaning alone must reach (default: [search] min_semantic_similarity, auto).",
    ),
)


def run_search(
    ctx: click.Context, mode: str, query: str, limit: int, output_format: str, **options: Any
) -> None:
    """One search, mapped from the command line once (:func:`command_line_search`) and run
    on the local home or, with ``MEMEX_URL`` set, on that ``memex serve``."""
    client = remote_client(ctx)
    concise = options.pop("concise")
    floor_flag = floor_alias(options)
    tuning = {"semantic_weight": options.pop("semantic_weight", None)}
    if client is not None:
        refuse_local_tuning({**tuning, "min_similarity": options.get("min_similarity")})
    search = command_line_search(query, mode, limit, options)
    if client is not None:
        view = client.view()
        results = view.search(search)
        print_results(results, query, concise, output_format)
        if not len(results):
            for line in remote_guidance(client, view, search):
                click.echo(line, err=True)
        return
    mx = open_memex(ctx)
    refuse_unknown_sources(mx, search.source or ())
    try:
        filters = search.filters()
    except ValueError as exc:
        raise MemexError(str(exc)) from exc
    results = mx.search(search, filters=filters, **tuning)
    print_results(results, query, concise, output_format)
    if not len(results):
        # A floor set on the command line is named as the flag that set it.
        named = floor_flag is not None and results.below_floor > 0
        for line in mx.explain_empty(query, mode, filters, None if named else results):
            click.echo(line, err=True)
        if named:
            click.echo(
                f"{floor_flag} {results.floor:g} left out {results.below_floor} hit(s) whose "
                "similarity is below it: lower it, or leave it out for the configured floor.",
                err=True,
            )


def floor_alias(options: dict[str, Any]) -> str | None:
    """The flag that set this search's floor, if one did: ``--min-similarity``, or the
    ``--min-score`` it replaces (in ``semantic`` both cut hits below a cosine similarity;
    the old one is kept, hidden, as another name)."""
    old = options.pop("min_score", None)
    if old is not None:
        if options.get("min_similarity") is not None:
            raise click.UsageError("Give --min-similarity (or its old name --min-score), not both.")
        options["min_similarity"] = old
        return "--min-score"
    return "--min-similarity" if options.get("min_similarity") is not None else None


def refuse_unknown_sources(mx: Any, asked: Iterable[str]) -> None:
    """A ``--source`` that no installed source reads and no fragment comes from is a typo:
    name it, the known ones and the nearest, rather than blame the filter for no hits."""
    from difflib import get_close_matches

    from memex_core.domain.memory.records import MEMORY_SOURCE

    asked = [asked] if isinstance(asked, str) else list(asked)
    if not asked:
        return
    known = {r.name for r in mx.registry.registrations("source")} | {MEMORY_SOURCE}
    unknown = [name for name in asked if name not in known]
    if unknown:
        known |= set(mx.catalog.group_counts("source_kind"))  # a plugin since uninstalled
        unknown = [name for name in unknown if name not in known]
    if unknown:
        near = get_close_matches(unknown[0], sorted(known), n=1)
        hint = f" Did you mean --source {near[0]}?" if near else ""
        raise MemexError(
            f"Unknown source {unknown[0]!r} for --source.{hint} Known sources: "
            f"{', '.join(sorted(known))}."
        )


def command_line_search(
    query: str, mode: str, limit: int, options: dict[str, Any]
) -> SearchOptions:
    """The :class:`SearchOptions` the search options on the command line ask for (the same
    for a local home and a ``memex serve``)."""
    from memex_core.domain.search_options import SearchOptions

    floor = floor_option(options.pop("no_floor", False), options.pop("min_similarity", None))
    return SearchOptions(
        query,
        mode,
        limit,
        source=options.pop("source") or None,
        conversation=options.pop("conversation") or None,
        role=options.pop("role") or None,
        since=options.pop("since"),
        until=options.pop("until"),
        tag=options.pop("tag") or None,
        include_private=options.pop("include_private"),
        time_phrases=not options.pop("no_time_phrases"),
        floor=floor,
    )


def floor_option(no_floor: bool, min_similarity: float | None) -> str | float | None:
    """The floor ``--no-floor`` / ``--min-similarity`` ask for (None: the configured one)."""
    if no_floor and min_similarity is not None:
        raise click.UsageError("Give --no-floor or --min-similarity, not both.")
    if no_floor:
        return "off"
    return min_similarity


def refuse_local_tuning(tuning: dict[str, Any]) -> None:
    """``--semantic-weight``, ``--min-score`` and ``--min-similarity`` tune a search where
    the index is: a ``memex serve`` (``MEMEX_URL``) uses its own settings, so they are
    refused there rather than ignored."""
    from memex_core.cli.opening import URL_ENV

    for name, value in tuning.items():
        if value is not None:
            flag = "--" + name.replace("_", "-")
            raise click.UsageError(
                f"{flag} tunes a search where the index is; memex serve uses its own "
                f"[search] settings. Leave {flag} out, or unset ${URL_ENV} to search a local home."
            )


def remote_guidance(client: RemoteClient, view: Any, search: SearchOptions) -> list[str]:
    """The server's guidance for a search that found nothing, within what the credentials
    reach: the lines a local search (or the viewer) prints for that reach."""
    from memex_core.errors import UnknownIdError

    try:
        lines: list[str] = view.explain_empty(search)
    except UnknownIdError:  # a 404: a server from before POST /v1/search/explain
        lines = []
    return lines or [f"No results in what these credentials reach at {client.url}."]


def print_results(results: SearchResults, query: str, concise: bool, output_format: str) -> None:
    """Notes on stderr, then the results as ``--format`` and ``--concise`` say."""
    from memex_core.cli.render import print_compact, print_panels, results_json
    from memex_core.domain.disclosure import compact_hit, query_terms

    for note in results.notes:
        click.echo(f"Note: {note}", err=True)
    if concise and output_format != "ids":
        terms = query_terms(query)
        hits = [compact_hit(r, terms) for r in results]
        if output_format == "json":
            # Compact hits stay small: the key appears only when semantic search failed.
            extra = {"fallback": results.fallback} if results.fallback else {}
            dicts = [{**h.to_dict(), **extra} for h in hits]
            click.echo(json.dumps(dicts, indent=2, ensure_ascii=False))
        else:
            print_compact(hits)
    elif output_format == "json":
        click.echo(results_json(results, results.fallback))
    elif output_format == "ids":
        for result in results:
            click.echo(result.id)
    else:
        print_panels(list(results), query)


@click.command()
@search_options
@floor_options
@click.option(
    "--semantic-weight",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    show_default=config_default(DEFAULT_SEMANTIC_WEIGHT, "[search] semantic_weight"),
    help="Share of the semantic signal in the fusion, 0..1 (0 = keyword only, 1 = semantic only).",
)
def dig(ctx: click.Context, query: str, limit: int, output_format: str, **options: Any) -> None:
    """Hybrid search: keyword (BM25) and semantic rankings fused by reciprocal rank.

    Each result shows its fused score and where each signal ranked it.
    """
    run_search(ctx, "hybrid", query, limit, output_format, **options)


@click.command()
@search_options
def keyword(ctx: click.Context, query: str, limit: int, output_format: str, **options: Any) -> None:
    """Keyword search (BM25): exact words, names, error messages, identifiers."""
    run_search(ctx, "keyword", query, limit, output_format, **options)


@click.command()
@search_options
@floor_options
@click.option(
    "--min-score",
    type=click.FloatRange(-1.0, 1.0),
    default=None,
    hidden=True,  # the old name of --min-similarity, which does the same cut and explains it
    help="Deprecated: the old name of --min-similarity.",
)
def semantic(
    ctx: click.Context, query: str, limit: int, output_format: str, **options: Any
) -> None:
    """Semantic search: meaning rather than words, by embedding similarity."""
    run_search(ctx, "semantic", query, limit, output_format, **options)
