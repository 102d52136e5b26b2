"""The ask workflow behind ``Memex.ask`` (and ``memex ask``): bring a repository's code index
up to date, search memory and code as two pools, fuse them into one labelled pack (the pure
packing and citation checks are :mod:`memex_core.services.ask_fusion`; the command is
:mod:`memex_core.cli.ask`), and answer with citations when ``[ask]`` names a chat model,
built by the chat-model component a plugin registers (``register_chat_models``).

The code index is brought up to date cheaply first: the ``code`` source lists the tracked
files with their git blob hashes (one ``git ls-files``) and they are compared with the
stored ones; only when something changed does an ingest run, for keyword search only, and
then the fragments the question reaches are embedded (all of them with ``embed_all``):
see :mod:`memex_core.facade.code_index`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memex_core.domain import ChatModel, PluginContext, SourceError
from memex_core.errors import MemexError, require_query
from memex_core.facade.code_index import (
    Announce,
    coverage_note,
    embed_code,
    reached_fragments,
    update_code_index,
)
from memex_core.plugins import PluginUnavailable
from memex_core.services.ask_fusion import (
    CODE,
    DEFAULT_BUDGET,
    DEFAULT_ITEM_CHARS,
    DEFAULT_POOL_LIMIT,
    AskResult,
    answer_prompt,
    check_citations,
    fuse_pools,
    pack_items,
)
from memex_core.services.context import MIN_ITEM_CHARS
from memex_core.services.ports import Progress

if TYPE_CHECKING:
    from memex_core.domain.search_results import SearchResults
    from memex_core.facade.protocols import AskingHome

#: search(query, mode, limit, **filter_options): Memex.search, or an AgentView's (scoped).
SearchFn = Callable[..., "SearchResults"]

CONFIG_EXAMPLE = (
    "[ask]\n"
    "budget = 6000\n"
    'chat_model = "langchain_openai:ChatOpenAI"\n'
    'chat_model_args = { model = "gpt-4o-mini", temperature = 0 }'
)
_MODEL_KEYS = ("chat_model", "chat_model_args", "max_retries")
#: The registered chat model (``register_chat_models``) built with the ``[ask]`` model keys.
CHAT_MODEL = "llm"
_KNOWN_KEYS = (*_MODEL_KEYS, "budget", "item_chars", "pool_limit")


def ask_settings(mx: AskingHome) -> dict[str, Any]:
    """The ``[ask]`` table, checked: unknown keys and non-positive numbers name the fix."""
    table = dict(mx.config.table("ask"))
    unknown = sorted(set(table) - set(_KNOWN_KEYS))
    if unknown:
        raise MemexError(
            f"{mx.config.config_path} [ask]: unknown setting(s) {', '.join(unknown)}; known are "
            f"{', '.join(_KNOWN_KEYS)}. For example:\n\n{CONFIG_EXAMPLE}"
        )
    for key, default in (
        ("budget", DEFAULT_BUDGET),
        ("item_chars", DEFAULT_ITEM_CHARS),
        ("pool_limit", DEFAULT_POOL_LIMIT),
    ):
        value = table.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise MemexError(
                f"{mx.config.config_path} [ask]: {key} = {value!r} must be a whole number, "
                f"1 or more (default {default})."
            )
        table[key] = value
    return table


def code_source(mx: AskingHome) -> Any | None:
    """The ``code`` source built with ``[source.code]``, or None when it is not installed."""
    for reg in mx.registry.registrations("source"):
        if reg.name == CODE and reg.available:
            return reg.factory(PluginContext(mx.home, mx.config.source_settings(CODE)))
    return None


def repository_root(source: Any, path: str | Path) -> Path:
    """The git work tree's top folder for ``path``; a clear error when it is none."""
    try:
        return Path(source.repository_root(Path(path).expanduser()))
    except SourceError as exc:
        raise MemexError(f"--repo {path}: {exc.reason}") from exc


def run_ask(
    mx: AskingHome,
    question: str,
    *,
    repo: str | Path | None = None,
    budget_chars: int | None = None,
    search: SearchFn | None = None,
    answer: bool = True,
    index: bool = True,
    progress: Progress | None = None,
    embed_progress: Progress | None = None,
    embed_all: bool = False,
    announce: Announce | None = None,
) -> AskResult:
    """See :meth:`memex_core.api.Memex.ask`."""
    require_query(question)
    settings = ask_settings(mx)
    budget = settings["budget"] if budget_chars is None else budget_chars
    if budget < MIN_ITEM_CHARS:
        raise MemexError(
            f"The budget must be at least {MIN_ITEM_CHARS} characters, the smallest piece a "
            f"pack takes (as a context pack's); {budget} was asked."
        )
    search = search or mx.search
    notes: list[str] = []
    root: Path | None = None
    result = AskResult(question=question, repo=None, budget_chars=budget)
    if repo is not None:
        source = code_source(mx)
        if source is None:
            raise MemexError(
                "the code source is not installed, so memex cannot index a repository; "
                "reinstall memex (pip install -e .) so its `code` plugin is registered"
            )
        root = repository_root(source, repo)
        result.repo = str(root)
        if index:
            result.index = update_code_index(
                mx, source, root, progress, embed=False, announce=announce
            )
    else:
        notes.append("no repository: memory only (run inside a git repository or pass --repo)")
    limit = settings["pool_limit"]
    kinds = tuple(k for k in mx.catalog.group_counts("source_kind") if k != CODE)
    memory_hits = []
    if kinds:
        found = search(question, "hybrid", limit, source=kinds)
        memory_hits = list(found.results)
        notes.extend(n for n in found.notes if n not in notes)
    else:
        notes.append("no memory ingested yet (memex ingest your exports and transcripts)")
    code_hits = []
    if root is not None:
        ids = tuple(d.id for d in mx.catalog.documents_under(str(root)).values())
        if ids and index and mx.semantic_unavailable_reason() is None:
            reach = None if embed_all else lambda: reached_fragments(search, question, ids, mx)
            coverage = embed_code(mx, root, reach, embed_progress, announce)
            result.index.update(coverage)
            note = coverage_note(coverage, root)
            if note:
                notes.append(note)
        if ids:
            # Code has no dates: a time phrase in the question is for memory only.
            found = search(
                question, "hybrid", limit, source=(CODE,), conversation=ids, time_phrases=False
            )
            code_hits = list(found.results)
        else:
            notes.append(f"{root}: no tracked file could be indexed as code")
    result.items = pack_items(
        fuse_pools(memory_hits, code_hits), question, budget, item_chars=settings["item_chars"]
    )
    if not result.items:
        notes.append("nothing in memory or code matched the question")
    if answer and result.items:
        _answer(mx, settings, result, notes)
    if answer and "chat_model" not in settings:
        notes.append(
            "no chat model configured, so here is the context pack without an answer; to get "
            f"answers with citations add to {mx.config.config_path}:\n\n{CONFIG_EXAMPLE}"
        )
    result.notes = notes
    return result


def load_ask_model(mx: AskingHome, settings: dict[str, Any]) -> ChatModel:
    """The chat model ``[ask] chat_model`` names, built by the registered ``llm`` chat model
    (``register_chat_models``) with the ``[ask]`` table's model keys."""
    table = {k: settings[k] for k in _MODEL_KEYS if k in settings}
    try:
        model: ChatModel = mx.registry.build(
            "chat_model", CHAT_MODEL, PluginContext(mx.home, table)
        )
    except PluginUnavailable as exc:
        raise MemexError(f"[ask] chat_model needs a chat model component: {exc}") from exc
    except MemexError as exc:
        raise MemexError(f"{exc}\nFor example:\n\n{CONFIG_EXAMPLE}") from exc
    return model


def _answer(mx: AskingHome, settings: dict[str, Any], result: AskResult, notes: list[str]) -> None:
    if "chat_model" not in settings:
        return
    from memex_core.services.ask_fusion import ANSWER_SYSTEM

    model = load_ask_model(mx, settings)
    result.answer = model.reply(ANSWER_SYSTEM, answer_prompt(result.question, result.items)).strip()
    result.model = model.label
    check = check_citations(result.answer, len(result.items))
    result.citations = check.cited
    result.invalid_citations = check.invalid
    if check.invalid:
        wrong = ", ".join(f"[{n}]" for n in check.invalid)
        notes.append(
            f"the answer cites {wrong}, which the pack does not hold (items 1-"
            f"{len(result.items)}): treat those claims as unsupported"
        )
    elif not check.cited:
        notes.append("the answer cites no item: treat it as unsupported")
