"""The surfaces the isolation matrix runs through, each an adapter with one small interface.

In the style of langchain-tests' standard suites: one ``surface`` fixture and capability
flags. A case names the capabilities it needs (:func:`on`); it runs on every surface that
has them, and on no other (no skips, so every collected case is a real one). The surfaces:

* ``inprocess``: ``Memex`` handles and views in this process (:class:`InProcess`);
* ``http``: a real ``memex serve`` on 127.0.0.1, with the client and raw HTTP (:class:`Http`);
* ``mcp``: the MCP server's tools, driven in-process through the SDK's client
  (:class:`tests.isolation.surfaces_tools.Mcp`);
* ``viewer``: the web viewer's pages on the same ``memex serve``, signed in with one of
  alice's keys (:class:`tests.isolation.surfaces_tools.Viewer`).

Every surface answers the same questions about its home: who owns what (``rows``),
what alice must not change (``foreign_state``), what alice was told (``reveals_nothing``)
and what the access log says (``last_entry``), so the cases are written once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.errors import MemexError
from memex_core.handles import AgentMemory, MemoryNotFound
from tests.isolation.world import ALICE, ALICE_BOT, ALICE_OWNER, READABLE, Home, Recorder
from tests.support.memory_attacks import BOB_HIDDEN, CORPUS_CANARY, FOREIGN_MARKERS
from tests.support.server_fixtures import CatalogReader, exposed

FOREIGN_STORAGE_PATH = re.compile(r"(?<![/\w])users/(bob|carol)/")
CORPUS_OWNER = ""

#: Capabilities: what a surface offers. A case needs some; it runs where all are offered.
PATHS = "paths"  # get/write/forget/undelete/links by a path
HANDLE = "handle"  # the agent memory handle's Python API (list, remember, dream, links ...)
MEMORY_SEARCH = "memory_search"  # a memory search returning hits with memory ids
ACCESS_LOG = "access_log"  # each attempt is read back from the access log
RAW_HTTP = "raw_http"  # raw requests: bodies, headers, query strings the client never sends
CONSOLIDATOR = "consolidator"  # a consolidator object passed in (in-process only)
CATALOG = "catalog"  # the catalog's scoped methods, called directly
SEARCH_PAGE = "search_page"  # the viewer's search page
AGENTS_FOR_ANY_USER = "agents_for_any_user"  # a handle or server bound to any user id
OTHER_USERS = "other_users"  # the case may act as bob or as the operator in this process
TOOLS = "tools"  # an MCP server's tools, called as a model calls them
PYTHON_REFS = "python_refs"  # refs of any Python type reach the handle (no schema first)


class Surface:
    """What every surface offers the cases; subclasses fill in how."""

    name: ClassVar[str]
    caps: ClassVar[frozenset[str]]
    #: The id operations (get, forget, undelete, links) this surface takes an id to.
    id_operations: ClassVar[tuple[str, ...]] = ()
    #: The reading routes that take a fragment id (fragments, timeline, explore, get).
    fragment_routes: ClassVar[tuple[str, ...]] = ()
    #: The id operations a forged id is tried on (the viewer's URLs cannot carry them all).
    forged_id_operations: ClassVar[tuple[str, ...]] = ()
    #: Whether every id that finds nothing is logged as a refused read with its outcome.
    logs_every_miss: ClassVar[bool] = True
    #: Whether a malformed ref may be refused by a schema before any lookup (422).
    schema_first: ClassVar[bool] = False
    #: The routes that take a note's name (path, title or id).
    note_routes: ClassVar[tuple[str, ...]] = ()
    #: The calls that take a collection: each must refuse an invalid one.
    collection_calls: ClassVar[tuple[str, ...]] = ()
    #: The search routes time bounds go to (``handle``: the handle's own search).
    time_routes: ClassVar[tuple[str, ...]] = ()
    #: Whether semantic search finds anything (a keyword-only server's does not).
    semantic: ClassVar[bool] = True

    #: The access log's actor of alice's agent on this surface.
    actor: str = ALICE_BOT
    ids: dict[str, str]

    # -- the home, seen from outside ----------------------------------------------------------

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def memory_rows(self) -> list[tuple[Any, ...]]:
        return self.rows(
            "SELECT id, owner, collection, path, kind, status, revision, private, fingerprint, "
            "created_at, updated_at FROM memories ORDER BY id"
        )

    def owners(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self.memory_rows()}

    def foreign_ids(self) -> set[str]:
        return {i for i, owner in self.owners().items() if owner not in READABLE}

    def foreign_fragments(self) -> set[str]:
        """Fragments of bob's and carol's (not the corpus, which a corpus key reads)."""
        return {
            str(i)
            for i, owner in self.rows("SELECT id, owner FROM fragments")
            if owner not in (*READABLE, CORPUS_OWNER)
        }

    def fragments_of(self, name: str) -> list[str]:
        """The fragment ids of one of the home's memories (or bob's conversation)."""
        rows = self.rows(
            "SELECT id FROM fragments WHERE conversation_id = ? ORDER BY id", (self.ids[name],)
        )
        return [str(r[0]) for r in rows]

    def foreign_state(self, *, shared: bool = True) -> dict[str, list[Any]]:
        raise NotImplementedError

    def assert_confined(self, *, shared_writable: bool = False) -> None:
        """Alice's memory files live under users/alice/, and alice's agent revised nothing
        else (shared/ too when it is writable)."""
        owners = self.owners()
        paths = self.rows(
            "SELECT path FROM memories WHERE owner = 'users/alice' AND path IS NOT NULL"
        )
        assert all(str(p).startswith("users/alice/") for (p,) in paths), paths
        touched = {
            owners[memory_id]
            for memory_id, actor in self.rows("SELECT memory_id, actor FROM memory_revisions")
            if actor == f"agent:{ALICE_BOT}"
        }
        allowed = {ALICE_OWNER, "shared"} if shared_writable else {ALICE_OWNER}
        assert touched <= allowed, touched

    # -- what alice gets back -----------------------------------------------------------------

    def alice(self, name: str = ALICE_BOT) -> Any:
        raise NotImplementedError

    @staticmethod
    def attempt(handle: Any, operation: str, ref: Any, **kwargs: Any) -> object:
        """Call ``operation`` with ``ref``; an error is returned (anything else propagates)."""
        try:
            if operation == "write":
                return handle.write(ref, "alice's own test note", **kwargs)
            return getattr(handle, operation)(ref, **kwargs)
        except MemexError as exc:
            return exc

    def memory_search(self, query: str, **options: Any) -> list[Any]:
        """Alice's memory search (hits with memory ids); ``name`` picks the agent's name."""
        return list(self.alice(options.pop("name", ALICE_BOT)).search(query, **options))

    def refer(self, operation: str, ref: str) -> object:
        """An id operation (get, forget, undelete, links) on ``ref``: what alice got."""
        raise NotImplementedError

    def answer_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        """A not-found answer with ``ref`` taken out (checked to be a not-found)."""
        raise NotImplementedError

    def fragment_request(self, route: str, fragment: str) -> object:
        raise NotImplementedError

    def fragment_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        """A reading route's answer with the fragment id ``ref`` taken out."""
        raise NotImplementedError

    def refuse_collection(self, call: str, collection: str) -> None:
        """``call`` with an invalid ``collection``: refused, nothing written."""
        raise NotImplementedError

    def logged_action(self, operation: str) -> str:
        return "read" if operation == "get" else operation

    def echo(self, ref: str) -> str:
        """``ref`` as this surface repeats it back (a tool strips what it is given)."""
        return ref

    def note_request(self, route: str, name: str) -> object:
        raise NotImplementedError

    def note_refused(self, result: object) -> bool:
        """Whether ``result`` refuses the name as a note name at all (then not compared)."""
        return False

    def note_shape(self, result: object, name: str) -> tuple[Any, ...]:
        raise NotImplementedError

    def is_refusal(self, result: object) -> bool:
        raise NotImplementedError

    def is_not_found(self, result: object) -> bool:
        raise NotImplementedError

    def outcome_of(self, result: object) -> str:
        raise NotImplementedError

    def assert_reveals_nothing(
        self,
        value: object,
        *,
        typed: Iterable[str] = (),
        own_content: bool = False,
        corpus: bool = False,
    ) -> None:
        """No foreign canary, id, fragment id or storage path in what alice got back.
        ``typed`` is her own input, which an error may repeat; with ``own_content`` the
        value holds alice's own texts (in which she may have written bob's paths);
        ``corpus`` allows the corpus canary (a corpus key reads the corpus)."""
        text = exposed(value)
        for own in sorted(typed, key=len, reverse=True):
            forms = (
                json.dumps(repr(own))[1:-1],
                repr(own),
                json.dumps(own),
                json.dumps(own)[1:-1],
                own,
            )
            for form in forms:
                if form:
                    text = text.replace(form, "")
        markers = [m for m in FOREIGN_MARKERS if not (corpus and m == CORPUS_CANARY)]
        for marker in markers:
            assert marker not in text, f"{marker} leaked: {text[:400]}"
        for memory_id in self.foreign_ids():
            assert memory_id not in text, f"foreign id {memory_id} leaked: {text[:400]}"
        for fragment in self.foreign_fragments():
            assert fragment not in text, f"foreign fragment {fragment} leaked: {text[:400]}"
        if not own_content:  # alice's own "user/users/bob/x.md" is fine
            assert not FOREIGN_STORAGE_PATH.search(text), text[:400]

    def assert_hits_confined(self, hits: Sequence[Any]) -> None:
        """Memory search hits: alice's or shared memories and fragments, no foreign text."""
        owners = self.owners()
        fragment_owners = dict(self.rows("SELECT id, owner FROM fragments"))
        for hit in hits:
            assert owners.get(hit.memory_id) in READABLE, hit
            assert fragment_owners.get(hit.fragment_id) in READABLE, hit
            assert hit.path is None or hit.path.startswith(("user/", "shared/")), hit
            for marker in FOREIGN_MARKERS:
                assert marker not in hit.text, hit

    # -- the access log -----------------------------------------------------------------------

    def log(self, *, actor: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
        """Access-log entries, newest first, as dicts."""
        raise NotImplementedError

    def last_entry(self, actor: str | None = None) -> dict[str, Any]:
        return self.log(actor=actor or self.actor)[0]

    def assert_logged(
        self, action: str, result: object, *, tool_call_id: str | None = None
    ) -> dict[str, Any]:
        """The newest entry of alice's agent is this attempt, with the outcome its result
        implies."""
        entry = self.last_entry()
        got = (entry["actor_kind"], entry["actor"], entry["user_id"], entry["action"])
        assert got == ("agent", self.actor, ALICE, action), entry
        assert entry["outcome"] == self.outcome_of(result), (entry, result)
        if tool_call_id is not None:
            assert entry["tool_call_id"] == tool_call_id, entry
        assert BOB_HIDDEN not in json.dumps(entry, default=str), entry
        return entry


def entry_shape(entry: dict[str, Any], ref: str) -> tuple[Any, ...]:
    """A log entry with the ref taken out: an unknown and a foreign ref must log the same."""
    detail = json.dumps(entry["detail"], sort_keys=True).replace(ref, "<ref>")
    target = (entry["target"] or "").replace(ref, "<ref>")
    return (entry["actor"], entry["user_id"], entry["action"], entry["outcome"], target, detail)


# -- in-process --------------------------------------------------------------------------------


OUTCOMES = {MemoryNotFound: "not_found", MemoryAccessDenied: "denied"}


def expected_outcome(error: MemexError) -> str:
    for kind, outcome in OUTCOMES.items():
        if isinstance(error, kind):
            return outcome
    return "invalid"


class InProcess(Surface):
    """``Memex`` in this process: ``mx.agent("alice")`` and the catalog under it."""

    name = "inprocess"
    caps = frozenset(
        {
            PATHS,
            HANDLE,
            MEMORY_SEARCH,
            ACCESS_LOG,
            CONSOLIDATOR,
            CATALOG,
            AGENTS_FOR_ANY_USER,
            OTHER_USERS,
            PYTHON_REFS,
        }
    )
    id_operations = ("get", "forget", "undelete", "links")
    forged_id_operations = id_operations
    collection_calls = ("handle",)
    time_routes = ("handle",)

    def __init__(self, home: Home) -> None:
        self.home = home
        self.mx = home.mx
        self.ids = home.ids
        self.catalog = CatalogReader(Path(home.mx.config.home))

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        # What the home stored, read through one read-only connection (as the http surface
        # reads its server's catalog): ``mx.query`` opens a connection per call, ten times
        # the cost, and the checks run several queries per case.
        return self.catalog.rows(sql, params)

    def alice(self, name: str = ALICE_BOT, **kwargs: Any) -> AgentMemory:
        return self.mx.agent(ALICE, name=name, **kwargs)

    def bob(self) -> AgentMemory:
        return self.home.bob()

    def foreign_state(self, *, shared: bool = True) -> dict[str, list[Any]]:
        """Everything in the catalog and the vector store that alice must not change."""
        kept = {
            row[0]
            for row in self.memory_rows()
            if row[1] != ALICE_OWNER and (shared or row[1] != "shared")
        }

        def rows(sql: str, column: int) -> list[tuple[Any, ...]]:
            return [r for r in self.rows(sql) if r[column] in kept]

        fragments = [
            r
            for r in self.rows(
                "SELECT id, conversation_id, owner, collection, private, content, index_text "
                "FROM fragments ORDER BY id"
            )
            if r[2] != ALICE_OWNER and (shared or r[2] != "shared")
        ]
        vectors = getattr(self.mx.vector_store, "fragments", {})
        return {
            "memories": [r for r in self.memory_rows() if r[0] in kept],
            "revisions": rows(
                "SELECT memory_id, revision, content, kind, status, action, actor, reason "
                "FROM memory_revisions ORDER BY memory_id, revision",
                0,
            ),
            "fragments": fragments,
            "documents": rows("SELECT id, path, sha256, size FROM documents ORDER BY id", 0),
            "links_out": rows(
                "SELECT source_document, target, target_path, target_document "
                "FROM links ORDER BY id",
                0,
            ),
            "links_in": rows(
                "SELECT target_document, source_document, target FROM links ORDER BY id", 0
            ),
            "vectors": sorted(
                i
                for i, f in vectors.items()
                if f.owner != ALICE_OWNER and (shared or f.owner != "shared")
            ),
        }

    def is_refusal(self, result: object) -> bool:
        return isinstance(result, MemexError)

    def is_not_found(self, result: object) -> bool:
        return isinstance(result, MemoryNotFound)

    def outcome_of(self, result: object) -> str:
        return expected_outcome(result) if isinstance(result, MemexError) else "ok"

    def log(self, *, actor: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
        limit = 1 if actor == ALICE_BOT and user_id is None else 1_000_000
        entries = [e.to_dict() for e in self.mx.catalog.access_log(limit=limit)]
        if limit == 1:  # alice-bot's checks read the newest entry of the whole log
            return entries
        return [
            e
            for e in entries
            if (actor is None or e["actor"] == actor)
            and (user_id is None or e["user_id"] == user_id)
        ]

    def refer(self, operation: str, ref: str) -> object:
        return self.attempt(self.alice(), operation, ref)

    def answer_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        assert isinstance(result, MemoryNotFound), result
        return type(result).__name__, str(result).replace(repr(ref), "<ref>")

    def refuse_collection(self, call: str, collection: str) -> None:
        from memex_core.domain.memory.namespaces import InvalidCollection
        from tests.support.memory_attacks import SEARCH_MODES

        alice = self.alice()
        for mode in SEARCH_MODES:
            with pytest.raises(InvalidCollection):
                alice.search("tea", mode=mode, collection=collection)
            self.assert_logged("search", InvalidCollection(collection, "x"))
        with pytest.raises(InvalidCollection):
            alice.list(collection)
        with pytest.raises(InvalidCollection):
            alice.dream(collection, consolidator=Recorder(), dry_run=True)
        with pytest.raises(InvalidCollection):
            alice.remember("Alice likes tea", collection=collection)
        with pytest.raises(InvalidCollection):
            self.mx.agent(ALICE, collection=collection)


# -- the surface registry ----------------------------------------------------------------------


def registry() -> dict[str, type[Surface]]:
    from tests.isolation.surface_http import Http
    from tests.isolation.surfaces_tools import Mcp, Viewer

    return {s.name: s for s in (InProcess, Http, Mcp, Viewer)}


def on(*needs: str) -> pytest.MarkDecorator:
    """Run the case on every surface that offers all of ``needs``."""
    names = [name for name, kind in registry().items() if set(needs) <= kind.caps]
    assert names, needs
    return pytest.mark.parametrize("surface", names, indirect=True)


def across(
    attribute: str, *needs: str, rows: Sequence[Any] | None = None, argnames: Sequence[str] = ()
) -> pytest.MarkDecorator:
    """Run the case on every surface with ``needs``, once per entry of the surface's own
    ``attribute`` table (id operations, fragment routes, collection calls), times ``rows``
    (plain values or ``pytest.param`` rows, passed as ``argnames``)."""
    params = []
    for name, kind in registry().items():
        if not set(needs) <= kind.caps:
            continue
        for entry in getattr(kind, attribute):
            for row in rows if rows is not None else [None]:
                if row is None:
                    params.append(pytest.param(name, entry, id=f"{name}-{entry}"))
                    continue
                is_param = hasattr(row, "values") and hasattr(row, "marks")
                values = tuple(row.values) if is_param else (row,)
                ident = row.id if is_param and row.id else str(row)
                params.append(pytest.param(name, entry, *values, id=f"{name}-{entry}-{ident}"))
    return pytest.mark.parametrize(("surface", "entry", *argnames), params, indirect=["surface"])
