"""The MCP server: memex's tools and prompts on the official SDK's ``MCPServer``.

Only :mod:`memex_mcp.command` imports this module, after checking that the SDK
is installed. Tool bodies live in :mod:`memex_mcp.tools`; here they get their
descriptions (which tell an agent when to use which), their annotations, their
input and output schemas, and a single worker: memex's ``Memex`` object and its
indexes are not safe to use from several threads at once, so every call runs on
a worker thread one at a time while the event loop keeps serving the transport.
"""

# No ``from __future__ import annotations``: the SDK reads the tools' annotations at runtime,
# and the remember tool's ``kind`` description is built from a local.
import difflib
import functools
import logging
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict

from memex_core.errors import MemexError
from memex_mcp import prompts
from memex_mcp.tools import MAX_IDS, MemexTools, Output

SERVER_NAME = "memex"

INSTRUCTIONS = """\
memex searches past AI conversations, agent transcripts, notes and long-term memory, serving \
{scope}.
Work in small steps so you read only what you need:
1. `search` returns compact hits (id, title, snippet, why it matched); 5 by default.
2. `timeline` shows what surrounds a promising hit in its conversation or note.
3. `get` returns the few fragments you need verbatim, by id.
`context` assembles background on a topic in one call, within a character budget.
`explore` walks an Obsidian note's links. `remember` stores a durable fact for later sessions;
`recall` reads remembered facts: current ones, or as they stood on a date (as_of).
`ask` answers a question from memory and the current repository's code together.
Ids are long: copy them whole from a result."""

SOURCE_HELP = (
    "Only these source kinds, e.g. chatgpt, claude_ai, claude_code, codex, obsidian, memory "
    "(the user's remembered facts), code (a repository's code that ask indexed: searched only "
    "when named here)."
)
SINCE_HELP = "Only material from this time on: a date (2024-05-01) or an age (12h, 7d, 2w, 1y)."
UNTIL_HELP = "Only material up to this time (inclusive): a date or an age, like since."
TAGS_HELP = (
    "Only notes with one of these tags or a tag nested under it (Obsidian tags, without "
    "'#'): 'project' matches #project and #project/memex."
)
COLLECTION_HELP = (
    "Only memory in this collection and those below it (e.g. 'work:acme'); the ingested "
    "corpus has no collections, so naming one searches memory only."
)

# Parameters several tools take, described once (the SDK reads them at runtime).
SearchMode = Annotated[
    Literal["hybrid", "keyword", "semantic"],
    Field(description="hybrid (default), keyword for exact terms, semantic for meaning."),
]
Collection = Annotated[str | None, Field(description=COLLECTION_HELP)]

SEARCH = """\
Search the user's past conversations, agent transcripts, notes and remembered facts \
(keyword + meaning, fused). Start here.
By default it returns up to 5 compact hits (id, title, snippet, why it matched), cheap to scan. \
Then call `timeline` on a promising hit's id to read it in its conversation, and `get` for the \
full text of the few you need. Set concise=false only when you need every hit's full text now.
A phrase such as "last week" or "in March" in the query becomes a time filter.
Remembered facts come back current only; with as_of, those that held on that date, with \
include_superseded every one, each then marked with when it held. `recall` reads remembered \
facts alone."""

TIMELINE = """\
Show the turns (or note sections) just before and after one fragment, in order, the fragment \
marked '>>'. Use it after `search` to read a hit in its conversation without fetching the whole \
thing. fragment_id is a hit's full id."""

GET = """\
Return fragments whole, by id: use it last, for the few hits you need verbatim. Ids come from \
`search`, `timeline` or `context`; memory ids (mem_...) from `remember` return the stored memory. \
Ids not found are listed as missing."""

EXPLORE = """\
Show an Obsidian note's links: the notes it links to, the notes that link to it (with the \
linking sentence), and similar notes that are not linked yet. Use it to walk a knowledge base \
from a note found with `search` (source 'obsidian'). note is the note's path in the vault \
('Projects/Alpha.md'), its title or an alias."""

CONTEXT = """\
Assemble background on a topic in one call, within a character budget: search hits first, \
then the notes they link to, then recent material, each item saying why it is there. Use it \
at the start of a task when you need broad context fast; to dig into something specific, \
prefer `search` -> `timeline` -> `get`. Remembered facts are current ones unless as_of or \
include_superseded asks otherwise (each is then marked with when it held)."""

ASK = """\
Ask a question of the user's memory and of the code of a git repository together, in one \
call: numbered items, each labelled memory or code (code with path:lines and symbol), within \
a character budget, and an answer citing the items as [1], [2] when the user configured a \
chat model. Use it for questions about a codebase that past work may explain ("why does X \
do Y", "where is Z computed"). repo defaults to the repository the server runs in; its \
changed files are indexed first. Then `get` returns an item whole by its id."""

REMEMBER = """\
Store one durable fact in the user's long-term memory so that later sessions find it with \
`search`: a preference, a decision and its reason, a name, a convention, a fact about a \
project. Write one short sentence that stands on its own (name the subject) per call. \
Exact repeats are recognised and not stored twice; likely secrets are redacted and \
<private>...</private> spans dropped. It never deletes earlier memories: a fact that updates \
one (Alice moved to Berlin) closes it, and `recall` still finds it with as_of."""

RECALL = """\
Look up the user's remembered facts (from `remember`), each with when it held: valid_from, \
valid_until and superseded_by. By default only current facts: a fact replaced by a later one \
(Alice moved from Paris to Berlin) is left out. as_of (a date, 2024-05-01, or an ISO 8601 \
time) answers with the facts that held then; include_superseded=true with every fact, \
superseded ones too. To search conversations and notes as well, use `search`."""

INCLUDE_SUPERSEDED_HELP = "Every remembered fact, superseded ones too, each with when it held."
AS_OF_HELP = (
    "The facts that held at this time: an ISO 8601 date (2024-05-01) or time "
    "(2024-05-01T09:30:00Z); default: current facts only."
)
AsOf = Annotated[str | None, Field(description=AS_OF_HELP)]
IncludeSuperseded = Annotated[bool, Field(description=INCLUDE_SUPERSEDED_HELP)]

HANDOVER = (
    "Summarise recent work on a topic for the next agent: goal, state, decisions, open "
    "questions and next steps, built from what memex holds about it."
)
UPDATE_KNOWLEDGE = (
    "Ask the agent to store the durable facts it learned this session in long-term memory "
    "(one `remember` call per fact, without repeating known ones)."
)


# -- structured output shapes (published as each tool's outputSchema) ---------------------------


class SearchOutput(TypedDict):
    query: str
    mode: str
    concise: bool
    hits: list[dict[str, Any]]
    notes: list[str]


class TimelineOutput(TypedDict):
    anchor_id: str
    conversation_id: str
    title: str
    items: list[dict[str, Any]]


class GetOutput(TypedDict):
    fragments: list[dict[str, Any]]
    memories: list[dict[str, Any]]
    missing: list[str]


class ExploreOutput(TypedDict):
    note: dict[str, Any]
    outlinks: list[dict[str, Any]]
    backlinks: list[dict[str, Any]]
    similar: list[dict[str, Any]]
    notes: list[str]


class ContextOutput(TypedDict):
    query: str
    budget_chars: int
    used_chars: int
    items: list[dict[str, Any]]


class AskOutput(TypedDict):
    question: str
    repo: str | None
    budget_chars: int
    used_chars: int
    items: list[dict[str, Any]]
    answer: str | None
    model: str | None
    citations: list[int]
    invalid_citations: list[int]
    index: dict[str, Any]
    notes: list[str]


class RecallOutput(TypedDict):
    query: str
    as_of: str | None
    include_superseded: bool
    hits: list[dict[str, Any]]


class RememberOutput(TypedDict):
    user_id: str
    collection: str
    conversation_id: str | None
    decisions: list[dict[str, Any]]
    memory_ids: list[str]
    redacted: list[str]
    private_removed: int


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memex")
    except PackageNotFoundError:  # running from a source tree
        return ""


def _reader(title: str) -> ToolAnnotations:
    return ToolAnnotations(title=title, read_only_hint=True, open_world_hint=False)


#: remember only adds: a repeat of a known fact is recognised and stored once (idempotent),
#: and it never updates, invalidates or deletes an earlier memory (not destructive).
REMEMBER_ANNOTATIONS = ToolAnnotations(
    title="Remember a fact",
    read_only_hint=False,
    destructive_hint=False,
    idempotent_hint=True,
    open_world_hint=False,
)

#: ask reads, but first indexes the repository's changed files into the home (not read-only);
#: it replaces only that repository's code, the same way for the same files (idempotent).
ASK_ANNOTATIONS = ToolAnnotations(
    title="Ask memory and code",
    read_only_hint=False,
    destructive_hint=False,
    idempotent_hint=True,
    open_world_hint=False,
)


class Worker:
    """Runs memex calls on a worker thread, one at a time, turning failures into tool errors."""

    def __init__(self) -> None:
        self._limiter: anyio.CapacityLimiter | None = None

    async def run(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if self._limiter is None:  # created in the event loop that uses it
            self._limiter = anyio.CapacityLimiter(1)
        return await anyio.to_thread.run_sync(
            functools.partial(fn, *args, **kwargs), limiter=self._limiter
        )

    async def tool(self, fn: Callable[..., Output], /, **kwargs: Any) -> CallToolResult:
        try:
            text, data = await self.run(fn, **kwargs)
        except (MemexError, ValueError) as exc:
            # Expected failures (unknown id, bad filter, out-of-scope collection) go back to the
            # model as a tool error whose text says what to do next.
            return CallToolResult(content=[_text(str(exc))], is_error=True)
        return CallToolResult(content=[_text(text)], structured_content=data)


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)


def _log() -> logging.Logger:
    """memex's own line on stderr per refused request: one plain line, never a traceback."""
    log = logging.getLogger("memex_mcp")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("memex mcp: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False  # the SDK's handler would draw a box around it
    return log


def _unknown(given: Any, valid: list[str], what: str) -> str | None:
    """Why ``given`` names arguments ``what`` does not take (with the closest valid
    name), or ``None``. The SDK would silently drop them, so a misspelled
    ``budget`` for ``budget_chars`` would quietly fall back to the default."""
    unknown = sorted(set(given or {}) - set(valid))
    if not unknown:
        return None
    guesses = []
    for name in unknown:
        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
        guesses.append(f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name))
    return (
        f"{what} has no argument {', '.join(guesses)}. "
        f"Its arguments are: {', '.join(valid) or 'none'}."
    )


def _phrase(description: str) -> str:
    """A field description as a phrase inside a sentence: no capital, no full stop."""
    text = description.strip().rstrip(".")
    return text[:1].lower() + text[1:]


class MemexMCPServer(MCPServer[Any]):
    """The SDK's server, strict about arguments: an unknown tool or prompt argument is
    refused with the valid names, and a prompt missing a required one gets a clean
    error (and one log line) instead of a traceback on stderr."""

    _tool_params: dict[str, list[str]] | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if self._tool_params is None:
            self._tool_params = {
                tool.name: list((tool.input_schema or {}).get("properties", {}))
                for tool in await self.list_tools()
            }
        valid = self._tool_params.get(name)
        problem = None if valid is None else _unknown(arguments, valid, f"The {name} tool")
        if problem is not None:
            unknown = sorted(set(arguments) - set(valid or ()))
            _log().info("tool %r refused: unknown argument(s) %s", name, unknown)
            return CallToolResult(content=[_text(problem)], is_error=True)
        return await super().call_tool(name, arguments, context)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        known = {prompt.name: prompt for prompt in await self.list_prompts()}
        prompt = known.get(name)
        if prompt is not None:
            declared = prompt.arguments or []
            valid = [arg.name for arg in declared]
            problem = _unknown(arguments, valid, f"The {name} prompt")
            missing = [
                arg.name for arg in declared if arg.required and arg.name not in (arguments or {})
            ]
            if missing and problem is None:
                wanted = [
                    f"{arg.name!r} ({_phrase(arg.description)})"
                    if arg.description
                    else repr(arg.name)
                    for arg in declared
                    if arg.name in missing
                ]
                problem = f"The {name} prompt needs the argument {', '.join(wanted)}."
            if problem is not None:
                _log().info("prompt %r refused: %s", name, problem)
                raise MCPError(INVALID_PARAMS, problem)
        return await super().get_prompt(name, arguments, context)


def build_server(tools: MemexTools) -> MCPServer[Any]:
    """An ``MCPServer`` whose tools and prompts read and write through ``tools``."""
    scope = tools.scope
    server = MemexMCPServer(
        SERVER_NAME,
        title="memex",
        version=_version(),
        instructions=INSTRUCTIONS.format(scope=scope.describe()),
        log_level="WARNING",
    )
    worker = Worker()
    kinds = tools.fact_kinds()

    @server.tool(description=SEARCH, annotations=_reader("Search past work"))
    async def search(
        query: Annotated[str, Field(description="What to look for, in a few words.")],
        limit: Annotated[int, Field(ge=1, le=50, description="Most hits to return.")] = 5,
        concise: Annotated[
            bool,
            Field(description="Compact hits with ids and snippets (true) or full text (false)."),
        ] = True,
        mode: SearchMode = "hybrid",
        source: Annotated[list[str] | None, Field(description=SOURCE_HELP)] = None,
        since: Annotated[str | None, Field(description=SINCE_HELP)] = None,
        until: Annotated[str | None, Field(description=UNTIL_HELP)] = None,
        collection: Collection = None,
        tags: Annotated[list[str] | None, Field(description=TAGS_HELP)] = None,
        as_of: AsOf = None,
        include_superseded: IncludeSuperseded = False,
    ) -> Annotated[CallToolResult, SearchOutput]:
        return await worker.tool(
            tools.search,
            query=query,
            limit=limit,
            concise=concise,
            mode=mode,
            source=source,
            since=since,
            until=until,
            collection=collection,
            tags=tags,
            as_of=as_of,
            include_superseded=include_superseded,
        )

    @server.tool(description=RECALL, annotations=_reader("Recall remembered facts"))
    async def recall(
        query: Annotated[str, Field(description="What to recall, in a few words.")],
        limit: Annotated[int, Field(ge=1, le=50, description="Most facts to return.")] = 5,
        as_of: AsOf = None,
        include_superseded: IncludeSuperseded = False,
        mode: SearchMode = "hybrid",
        collection: Collection = None,
    ) -> Annotated[CallToolResult, RecallOutput]:
        return await worker.tool(
            tools.recall,
            query=query,
            limit=limit,
            as_of=as_of,
            include_superseded=include_superseded,
            mode=mode,
            collection=collection,
        )

    @server.tool(description=TIMELINE, annotations=_reader("Read around a hit"))
    async def timeline(
        fragment_id: Annotated[str, Field(description="A fragment id from search, whole.")],
        before: Annotated[int, Field(ge=0, le=50, description="Fragments to show before.")] = 3,
        after: Annotated[int, Field(ge=0, le=50, description="Fragments to show after.")] = 3,
    ) -> Annotated[CallToolResult, TimelineOutput]:
        return await worker.tool(
            tools.timeline, fragment_id=fragment_id, before=before, after=after
        )

    @server.tool(description=GET, annotations=_reader("Read in full"))
    async def get(
        ids: Annotated[
            list[str],
            Field(
                min_length=1,
                max_length=MAX_IDS,
                description="Fragment ids (or mem_ memory ids), whole, as results gave them.",
            ),
        ],
    ) -> Annotated[CallToolResult, GetOutput]:
        return await worker.tool(tools.get, ids=ids)

    @server.tool(description=EXPLORE, annotations=_reader("Explore a note's links"))
    async def explore(
        note: Annotated[str, Field(description="The note's path in the vault, title or alias.")],
        similar: Annotated[
            int, Field(ge=0, le=20, description="Similar unlinked notes to suggest (0: none).")
        ] = 5,
        concise: Annotated[
            bool, Field(description="Paths and titles only, without the linking sentences.")
        ] = False,
    ) -> Annotated[CallToolResult, ExploreOutput]:
        return await worker.tool(tools.explore, note=note, similar=similar, concise=concise)

    @server.tool(description=CONTEXT, annotations=_reader("Gather context"))
    async def context(
        query: Annotated[str, Field(description="The topic or task, in a few words.")],
        budget_chars: Annotated[
            int, Field(ge=200, le=50_000, description="Most characters of text to return.")
        ] = 4000,
        source: Annotated[list[str] | None, Field(description=SOURCE_HELP)] = None,
        since: Annotated[str | None, Field(description=SINCE_HELP)] = None,
        until: Annotated[str | None, Field(description=UNTIL_HELP)] = None,
        collection: Collection = None,
        tags: Annotated[list[str] | None, Field(description=TAGS_HELP)] = None,
        as_of: AsOf = None,
        include_superseded: IncludeSuperseded = False,
    ) -> Annotated[CallToolResult, ContextOutput]:
        return await worker.tool(
            tools.context,
            query=query,
            budget_chars=budget_chars,
            source=source,
            since=since,
            until=until,
            collection=collection,
            tags=tags,
            as_of=as_of,
            include_superseded=include_superseded,
        )

    @server.tool(description=ASK, annotations=ASK_ANNOTATIONS)
    async def ask(
        question: Annotated[str, Field(description="The question, in a sentence.")],
        repo: Annotated[
            str | None,
            Field(description="A git repository's folder; default: where the server runs."),
        ] = None,
        budget_chars: Annotated[
            int | None,
            Field(ge=200, le=50_000, description="Most characters of text; default: [ask] budget."),
        ] = None,
    ) -> Annotated[CallToolResult, AskOutput]:
        return await worker.tool(tools.ask, question=question, repo=repo, budget_chars=budget_chars)

    @server.tool(description=REMEMBER, annotations=REMEMBER_ANNOTATIONS)
    async def remember(
        text: Annotated[
            str, Field(description="One fact, as a short sentence that stands on its own.")
        ],
        kind: Annotated[
            str, Field(description="What sort of fact: one of " + ", ".join(kinds) + ".")
        ] = "misc",
        collection: Annotated[
            str | None,
            Field(description="Where to file it (e.g. 'work:acme'); default: the server's."),
        ] = None,
    ) -> Annotated[CallToolResult, RememberOutput]:
        return await worker.tool(tools.remember, text=text, collection=collection, kind=kind)

    async def handover(
        topic: Annotated[str, Field(description="The work to hand over, in a few words.")],
    ) -> str:
        return str(await worker.run(prompts.handover, tools, topic))

    async def update_knowledge(
        topic: Annotated[
            str, Field(description="Optional: the topic, to show what is already known.")
        ] = "",
    ) -> str:
        return str(await worker.run(prompts.update_knowledge, tools, topic))

    server.add_prompt(Prompt.from_function(handover, name="handover", description=HANDOVER))
    server.add_prompt(
        Prompt.from_function(
            update_knowledge, name="update-knowledge", description=UPDATE_KNOWLEDGE
        )
    )
    return server
