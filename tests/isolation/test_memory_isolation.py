"""Agent-memory isolation under attack: an agent bound to alice against bob's (and carol's) memory.

The home holds, for bob: facts, files (``users/bob/secret.md``), private and
deleted memories, memories in collections ``acme:bob`` and ``acme``, a
remembered conversation and a fact worded exactly like one of alice's; carol
has her own; the operator has shared files and a corpus fragment. Every attack
(tables in ``tests/support/memory_attacks.py``) is then checked for what matters:

* nothing of bob's comes back (his canaries, his ids), in results or errors;
* the catalog is unchanged outside ``users/alice/`` (memories, revisions,
  fragments, documents, links and vectors compared before and after);
* a foreign id is answered exactly like an unknown one (no existence oracle);
* the attempt is in the access log with its outcome, and alice's log entries
  never carry bob's content.

Most attacks share one home (``home``, built once per module): each test takes
its own before/after snapshot, and alice's own writes do not disturb the others.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from memex_core.api import Memex
from memex_core.catalog.memory import MemoryAccessDenied, MemoryWrite
from memex_core.config import Config, load_config
from memex_core.domain import (
    ConsolidationDecision,
    Fragment,
    MemoryFact,
    Provenance,
    SimilarMemory,
    fragment_id,
)
from memex_core.domain.contracts import FactType, Redaction
from memex_core.domain.memory.memory_links import resolve_memory_link
from memex_core.domain.memory.namespaces import InvalidCollection
from memex_core.domain.memory.paths import InvalidMemoryPath, InvalidUserId
from memex_core.domain.memory.records import (
    AGENT,
    AccessEntry,
    Actor,
    MemoryRecord,
    Revision,
    Scope,
)
from memex_core.errors import MemexError
from memex_core.handles import SHARED_WRITE_ENV, AgentMemory, MemoryNotFound
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from tests.support.component_doubles import DoublesPlugin
from tests.support.memory_attacks import (
    BOB_CANARY,
    BOB_HIDDEN,
    CANARY_QUERIES,
    CAROL_CANARY,
    CONSOLIDATION_ACTIONS,
    CONSOLIDATION_TARGETS,
    CORPUS_CANARY,
    FOREIGN_MARKERS,
    FOREIGN_MEMORIES,
    FORGED_IDS,
    ID_OPERATIONS,
    INVALID_COLLECTIONS,
    INVALID_USER_IDS,
    LINK_ATTACKS,
    LIST_CALLS,
    LOOKALIKE_USERS,
    NON_TEXT_REFS,
    OPERATOR_ONLY_METHODS,
    OTHER_USER_IDS,
    PATH_ATTACKS,
    PATH_OPERATIONS,
    REMEMBER_FOR_OTHERS,
    SEARCH_MODES,
    SHARED_WRITE_MODES,
    TIME_BOUNDS,
    VALID_COLLECTIONS,
)

ALICE, ALICE_OWNER, ALICE_BOT = "alice", "users/alice", "alice-bot"
READABLE = (ALICE_OWNER, "shared")
SAME_TEXT = "Everyone on the team likes the espresso machine"
UNKNOWN_ID = "mem_0123456789abcdef0123"
FOREIGN_STORAGE_PATH = re.compile(r"(?<![/\w])users/(bob|carol)/")
OUTCOMES = {MemoryNotFound: "not_found", MemoryAccessDenied: "denied"}


# -- the home ----------------------------------------------------------------------------------


class PlainRedactor:
    """Stores text as given: isolation must not depend on what a redactor removes."""

    def redact(self, text: str) -> Redaction:
        return Redaction(text)


class IsolationPlugin:
    @hookimpl
    def register_redactors(self, register: Any) -> None:
        register("isolation-plain", lambda context: PlainRedactor())


class NoFacts:
    """An extractor that finds nothing (the conversation itself is what is stored)."""

    def extract(self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]) -> list[Any]:
        return []


def isolation_memex(home: Path) -> Memex:
    """``fast_memex`` plus a pass-through redactor (no model, no secrets plugin needed)."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    registry.register_plugin(IsolationPlugin(), name="isolation")
    base = load_config(home)
    components = {
        **base.components,
        "embedder": "hashing",
        "vector_store": "memory",
        "redactor": "isolation-plain",
    }
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


@dataclass
class Home:
    mx: Memex
    ids: dict[str, str] = field(default_factory=dict)

    def alice(self, **kwargs: Any) -> AgentMemory:
        return self.mx.agent(ALICE, name=ALICE_BOT, **kwargs)

    def bob(self) -> AgentMemory:
        return self.mx.agent("bob", name="bob-bot")

    def memory_rows(self) -> list[tuple[Any, ...]]:
        return self.mx.query(
            "SELECT id, owner, collection, path, kind, status, revision, private, fingerprint, "
            "created_at, updated_at FROM memories ORDER BY id"
        )[1]

    def owners(self) -> dict[str, str]:
        """Memory id -> owner, for every memory in the home."""
        return {row[0]: row[1] for row in self.memory_rows()}

    def foreign_ids(self) -> set[str]:
        return {i for i, owner in self.owners().items() if owner not in READABLE}


def build_home(mx: Memex) -> Home:
    home = Home(mx)
    ids = home.ids
    operator = mx.operator("admin")
    ids["shared_handbook"] = operator.write(
        "shared/handbook.md", "Team handbook: refunds within thirty days."
    ).id
    ids["shared_retired"] = operator.write("shared/retired.md", "An old shared page.").id
    operator.forget("shared/retired.md")

    bob = home.bob()
    canaries = f"{BOB_CANARY} {BOB_HIDDEN}"
    ids["bob_fact"] = bob.remember(f"Bob prefers oolong tea {canaries}").memory_ids[0]
    ids["bob_file"] = bob.write(
        "user/secret.md",
        f"Bob's secret plan {canaries}: launch codename. See [[shared/handbook]].",
    ).id
    ids["bob_diary"] = bob.write("user/diary.md", f"Bob's diary {canaries}, about [[secret]]").id
    ids["bob_private_fact"] = bob.remember(
        f"Bob sees a therapist {canaries}", private=True
    ).memory_ids[0]
    ids["bob_private_file"] = bob.write(
        "user/private.md", f"Bob's private file {canaries}", private=True
    ).id
    ids["bob_deleted_fact"] = bob.remember(f"Bob's old address {canaries}").memory_ids[0]
    bob.forget(ids["bob_deleted_fact"])
    ids["bob_deleted_file"] = bob.write("user/old.md", f"Bob's old file {canaries}").id
    bob.forget("user/old.md")
    ids["bob_acme_bob"] = bob.remember(
        f"Bob's acme account note {canaries}", collection="acme:bob"
    ).memory_ids[0]
    ids["bob_acme"] = bob.remember(
        f"Bob handles acme billing {canaries}", collection="acme"
    ).memory_ids[0]
    conversation = bob.remember(
        messages=[
            {"role": "user", "content": f"Bob told the bot {canaries}"},
            {"role": "assistant", "content": f"Noted, Bob {canaries}"},
        ],
        extractor=NoFacts(),
    ).conversation_id
    assert conversation is not None
    ids["bob_conversation"] = conversation
    ids["bob_same_as_alice"] = bob.remember(SAME_TEXT, collection="acme").memory_ids[0]

    carol = mx.agent("carol", name="carol-bot")
    ids["carol_fact"] = carol.remember(
        f"Carol prefers mint tea {CAROL_CANARY}", collection="acme:carol"
    ).memory_ids[0]
    ids["carol_file"] = carol.write("user/secret.md", f"Carol's secret {CAROL_CANARY}").id

    alice = home.alice()
    ids["alice_fact"] = alice.remember("Alice prefers green tea").memory_ids[0]
    ids["alice_file"] = alice.write("user/notes.md", "Alice's notes, see [[shared/handbook]]").id
    ids["alice_private"] = alice.remember(
        "Alice's private diary entry about tea", private=True
    ).memory_ids[0]
    ids["alice_same"] = alice.remember(SAME_TEXT, collection="acme").memory_ids[0]
    ids["alice_support"] = alice.remember(
        "Alice answers acme support tickets", collection="acme:support"
    ).memory_ids[0]

    corpus = Fragment(
        id=fragment_id("api", "corpus-1", "0", CORPUS_CANARY),
        conversation_id="corpus-1",
        role="user",
        content=f"Operator corpus text {CORPUS_CANARY} about tea and launch plans",
        provenance=Provenance("api", "test:corpus", "corpus-1", "0", 1_700_000_000.0),
        timestamp=1_700_000_000.0,
    )
    mx.add_fragments([corpus], origin="test:corpus")
    return home


@pytest.fixture(autouse=True)
def _shared_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SHARED_WRITE_ENV, raising=False)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(SHARED_WRITE_ENV, raising=False)
        mx = isolation_memex(tmp_path_factory.mktemp("isolation") / "home")
        built = build_home(mx)
    yield built
    mx.close()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    """A second full home for attacks that legitimately change shared memory (rw mode), so
    that ``home`` keeps alice's agent out of shared/ for every other check."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(SHARED_WRITE_ENV, raising=False)
        mx = isolation_memex(tmp_path_factory.mktemp("scratch") / "home")
        built = build_home(mx)
    yield built
    mx.close()


@pytest.fixture
def tiny(tmp_path: Path) -> Iterator[Home]:
    """A home of its own (one fact each for bob and alice), for tests that need a known
    state. Kept small: every memory write flushes the keyword index to disk."""
    mx = isolation_memex(tmp_path / "home")
    home = Home(mx)
    home.ids["bob_fact"] = home.bob().remember(f"Bob likes oolong {BOB_HIDDEN}").memory_ids[0]
    home.ids["alice_fact"] = home.alice().remember("Alice prefers green tea").memory_ids[0]
    yield home
    mx.close()


# -- what must hold after every attack ---------------------------------------------------------


def foreign_state(home: Home, *, shared: bool = True) -> dict[str, list[Any]]:
    """Everything in the catalog and the vector store that alice must not change."""
    mx = home.mx
    kept = {
        row[0]
        for row in home.memory_rows()
        if row[1] != ALICE_OWNER and (shared or row[1] != "shared")
    }

    def rows(sql: str, column: int) -> list[tuple[Any, ...]]:
        return [r for r in mx.query(sql)[1] if r[column] in kept]

    fragments = [
        r
        for r in mx.query(
            "SELECT id, conversation_id, owner, collection, private, content, index_text "
            "FROM fragments ORDER BY id"
        )[1]
        if r[2] != ALICE_OWNER and (shared or r[2] != "shared")
    ]
    vectors = getattr(mx.vector_store, "fragments", {})
    return {
        "memories": [r for r in home.memory_rows() if r[0] in kept],
        "revisions": rows(
            "SELECT memory_id, revision, content, kind, status, action, actor, reason "
            "FROM memory_revisions ORDER BY memory_id, revision",
            0,
        ),
        "fragments": fragments,
        "documents": rows("SELECT id, path, sha256, size FROM documents ORDER BY id", 0),
        "links_out": rows(
            "SELECT source_document, target, target_path, target_document FROM links ORDER BY id",
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


def assert_alice_confined(home: Home, *, shared_writable: bool = False) -> None:
    """Alice's memory files live under users/alice/, and alice's agent revised nothing else."""
    owners = home.owners()
    paths = home.mx.query(
        "SELECT path FROM memories WHERE owner = 'users/alice' AND path IS NOT NULL"
    )[1]
    assert all(str(p).startswith("users/alice/") for (p,) in paths), paths
    touched = {
        owners[memory_id]
        for memory_id, actor in home.mx.query("SELECT memory_id, actor FROM memory_revisions")[1]
        if actor == f"agent:{ALICE_BOT}"
    }
    allowed = {ALICE_OWNER, "shared"} if shared_writable else {ALICE_OWNER}
    assert touched <= allowed, touched


def exposed(value: object) -> str:
    """Everything an agent can see in a return value or an error, as one string."""
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return json.dumps(to_dict(), default=str, ensure_ascii=False)
    if isinstance(value, list):
        return "\n".join(exposed(v) for v in value)
    return repr(value)


def assert_reveals_nothing(
    home: Home, value: object, *, typed: Sequence[str] = (), own_content: bool = False
) -> None:
    """No foreign canary, id or storage path in what alice got back. ``typed`` is alice's
    own input, which an error message or a link listing may repeat; with ``own_content``
    the value holds alice's own memory texts, in which she may have written bob's paths."""
    text = exposed(value)
    for own in typed:
        text = text.replace(own, "").replace(repr(own), "")
    for marker in FOREIGN_MARKERS:
        assert marker not in text, f"{marker} leaked: {text[:300]}"
    for memory_id in home.foreign_ids():
        assert memory_id not in text, f"foreign id {memory_id} leaked: {text[:300]}"
    if not own_content:  # a storage path of theirs (alice's "user/users/bob/x.md" is fine)
        assert not FOREIGN_STORAGE_PATH.search(text), text[:300]


def assert_hits_confined(home: Home, hits: Sequence[Any]) -> None:
    owners = home.owners()
    fragment_owners = dict(home.mx.query("SELECT id, owner FROM fragments")[1])
    for hit in hits:
        assert owners.get(hit.memory_id) in READABLE, hit
        assert fragment_owners.get(hit.fragment_id) in READABLE, hit
        assert hit.path is None or hit.path.startswith(("user/", "shared/")), hit
        for marker in FOREIGN_MARKERS:
            assert marker not in hit.text, hit


def last_entry(home: Home) -> AccessEntry:
    return home.mx.catalog.access_log(limit=1)[0]


def expected_outcome(error: MemexError) -> str:
    for kind, outcome in OUTCOMES.items():
        if isinstance(error, kind):
            return outcome
    return "invalid"


def assert_logged(home: Home, action: str, result: object) -> AccessEntry:
    """The newest log entry is alice's attempt, with the outcome its result implies."""
    entry = last_entry(home)
    assert (entry.actor_kind, entry.actor, entry.user_id, entry.action) == (
        AGENT,
        ALICE_BOT,
        ALICE,
        action,
    )
    want = expected_outcome(result) if isinstance(result, MemexError) else "ok"
    assert entry.outcome == want, entry
    assert BOB_HIDDEN not in json.dumps(entry.to_dict(), default=str), entry
    return entry


def attempt(handle: AgentMemory, operation: str, ref: Any, **kwargs: Any) -> object:
    """Call ``operation`` with ``ref``; a MemexError is returned (anything else propagates)."""
    try:
        if operation == "write":
            return handle.write(ref, "alice's own test note", **kwargs)
        return getattr(handle, operation)(ref, **kwargs)
    except MemexError as exc:
        return exc


# -- family 1: paths ---------------------------------------------------------------------------


@pytest.mark.parametrize("operation", list(PATH_OPERATIONS))
@pytest.mark.parametrize(("path", "inside"), PATH_ATTACKS)
def test_a_crafted_path_never_reaches_another_users_memory(
    home: Home, path: str, inside: bool, operation: str
) -> None:
    before = foreign_state(home)
    result = attempt(home.alice(), operation, path)
    if not inside:
        assert isinstance(result, MemexError), f"{operation}({path!r}) gave {exposed(result)}"
    elif isinstance(result, MemoryRecord):
        assert result.owner == ALICE_OWNER and result.path == path
    assert_reveals_nothing(home, result, typed=[path])
    assert foreign_state(home) == before
    assert_alice_confined(home)
    assert_logged(home, PATH_OPERATIONS[operation], result)


def test_alices_user_path_is_her_own_even_where_bob_has_the_same_name(home: Home) -> None:
    """``user/secret.md`` names users/alice/secret.md for alice: writing it leaves bob's alone."""
    alice, bob = home.alice(), home.bob()
    before = foreign_state(home)
    written = alice.write("user/secret.md", "Alice's own secret file")
    assert (written.owner, written.path) == (ALICE_OWNER, "user/secret.md")
    assert home.mx.operator().get("users/alice/secret.md").id == written.id
    assert BOB_CANARY in bob.get("user/secret.md").content
    assert alice.get("user/secret.md").content == "Alice's own secret file"
    assert foreign_state(home) == before


@pytest.mark.parametrize("operation", list(PATH_OPERATIONS))
@pytest.mark.parametrize("ref", NON_TEXT_REFS)
def test_a_ref_that_is_not_text_is_refused_and_logged(home: Home, ref: Any, operation: str) -> None:
    before = foreign_state(home)
    result = attempt(home.alice(), operation, ref)
    assert isinstance(result, InvalidMemoryPath), result
    assert foreign_state(home) == before
    assert_logged(home, PATH_OPERATIONS[operation], result)


# -- family 2: ids -----------------------------------------------------------------------------


def not_found_shape(error: object, ref: str) -> tuple[str, str]:
    assert isinstance(error, MemoryNotFound), error
    return type(error).__name__, str(error).replace(repr(ref), "<ref>")


def entry_shape(entry: AccessEntry, ref: str) -> tuple[Any, ...]:
    detail = json.dumps(entry.detail, sort_keys=True).replace(ref, "<ref>")
    return (entry.actor, entry.user_id, entry.action, entry.outcome, detail)


@pytest.mark.parametrize("operation", ID_OPERATIONS)
@pytest.mark.parametrize("name", FOREIGN_MEMORIES)
def test_another_users_id_is_answered_like_an_unknown_id(
    home: Home, name: str, operation: str
) -> None:
    alice = home.alice()
    memory_id = home.ids[name]
    before = foreign_state(home)
    error = attempt(alice, operation, memory_id)
    entry = assert_logged(home, operation if operation != "get" else "read", error)
    control = attempt(alice, operation, UNKNOWN_ID)
    control_entry = last_entry(home)
    assert not_found_shape(error, memory_id) == not_found_shape(control, UNKNOWN_ID)
    assert entry_shape(entry, memory_id) == entry_shape(control_entry, UNKNOWN_ID)
    assert_reveals_nothing(home, error, typed=[memory_id])
    assert foreign_state(home) == before


@pytest.mark.parametrize("operation", ID_OPERATIONS)
@pytest.mark.parametrize("template", FORGED_IDS)
def test_a_forged_id_finds_nothing(home: Home, template: str, operation: str) -> None:
    real = home.ids["bob_fact"]
    ref = template.format(id=real, id_but_last=real[:-1], ID=real.upper())
    alice = home.alice()
    before = foreign_state(home)
    rows_before = len(home.memory_rows())
    error = attempt(alice, operation, ref)
    assert isinstance(error, MemexError), exposed(error)
    entry = assert_logged(home, operation if operation != "get" else "read", error)
    if ref.startswith("mem_"):
        control = attempt(alice, operation, UNKNOWN_ID)
        assert not_found_shape(error, ref) == not_found_shape(control, UNKNOWN_ID)
        assert entry_shape(entry, ref) == entry_shape(last_entry(home), UNKNOWN_ID)
    assert_reveals_nothing(home, error, typed=[ref])
    assert len(home.memory_rows()) == rows_before
    assert foreign_state(home) == before


# -- family 3: search and list -----------------------------------------------------------------


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_searching_for_another_users_words_finds_none_of_them(
    home: Home, query: str, mode: str
) -> None:
    hits = home.alice().search(query, mode=mode, limit=50)
    assert_hits_confined(home, hits)
    if mode == "keyword":
        assert hits == []  # no word of these queries is in anything alice may read
    assert_logged(home, "search", hits)


@pytest.mark.parametrize("user_id", OTHER_USER_IDS)
def test_naming_another_user_reads_nothing_at_all(home: Home, user_id: str) -> None:
    alice = home.alice()
    for mode in SEARCH_MODES:
        assert alice.search("tea", mode=mode, user_id=user_id) == []
        assert last_entry(home).detail.get("hits") == 0
    assert alice.list(user_id=user_id, include_deleted=True) == []
    consolidator = Recorder()
    report = alice.dream(user_id=user_id, consolidator=consolidator, dry_run=True)
    assert (report.examined, consolidator.seen) == (0, [])


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("collection", VALID_COLLECTIONS)
def test_a_collection_prefix_narrows_and_never_widens(
    home: Home, collection: str, mode: str
) -> None:
    alice = home.alice()
    hits = alice.search("tea acme espresso launch plan", mode=mode, collection=collection, limit=50)
    assert_hits_confined(home, hits)
    listed = alice.list(collection, include_deleted=True, limit=1000)
    assert {m.owner for m in listed} <= set(READABLE)
    if collection in ("acme:bob", "acme:carol", "ACME"):
        assert hits == [] and listed == []  # alice has nothing there: bob's are not shown
    if collection == "":
        assert home.ids["alice_fact"] in {m.id for m in listed}


@pytest.mark.parametrize("collection", INVALID_COLLECTIONS)
def test_an_invalid_collection_is_refused_not_widened(home: Home, collection: str) -> None:
    alice = home.alice()
    for mode in SEARCH_MODES:
        with pytest.raises(InvalidCollection):
            alice.search("tea", mode=mode, collection=collection)
        assert_logged(home, "search", InvalidCollection(collection, "x"))
    with pytest.raises(InvalidCollection):
        alice.list(collection)
    with pytest.raises(InvalidCollection):
        alice.dream(collection, consolidator=Recorder(), dry_run=True)
    with pytest.raises(InvalidCollection):
        alice.remember("Alice likes tea", collection=collection)
    with pytest.raises(InvalidCollection):
        home.mx.agent(ALICE, collection=collection)


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_include_private_shows_alices_private_memories_only(home: Home, mode: str) -> None:
    alice = home.alice()
    hits = alice.search(
        "therapist private diary file tea", mode=mode, include_private=True, limit=50
    )
    assert_hits_confined(home, hits)
    found = {h.memory_id for h in hits}
    assert home.ids["alice_private"] in found
    assert not found & {home.ids["bob_private_fact"], home.ids["bob_private_file"]}


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize(("since", "until"), TIME_BOUNDS)
def test_extreme_time_bounds_never_widen_the_owner_filter(
    home: Home, since: float | None, until: float | None, mode: str
) -> None:
    hits = home.alice().search(
        "tea launch plan therapist", mode=mode, since=since, until=until, limit=50
    )
    assert_hits_confined(home, hits)
    if since == 1e308 or until == -1e308:
        assert hits == []  # nothing was written in the far future or the far past


@pytest.mark.parametrize("kwargs", LIST_CALLS)
def test_list_shows_only_alices_and_shared_memory(home: Home, kwargs: dict[str, Any]) -> None:
    listed = home.alice().list(**kwargs)
    foreign = home.foreign_ids()
    assert not {m.id for m in listed} & foreign
    assert {m.owner for m in listed} <= set(READABLE)
    assert_reveals_nothing(home, listed, own_content=True)


def test_default_hybrid_search_returns_no_foreign_fragment_for_any_word_in_the_home(
    home: Home,
) -> None:
    """Every word that occurs anywhere (bob's, carol's, the corpus), searched by alice the
    default way: every hit is checked. (A separate agent name, so that the log checks below
    can tell alice's other agents never typed bob's hidden word.)"""
    contents = home.mx.query("SELECT content FROM fragments")[1]
    words = sorted({w for (c,) in contents for w in re.findall(r"[\w-]{3,}", str(c))})
    assert BOB_HIDDEN in words and len(words) > 30
    alice = home.mx.agent(ALICE, name="vocabulary-probe")
    for word in words:
        assert_hits_confined(home, alice.search(word, limit=50))
    assert_hits_confined(home, alice.search(" ".join(words), limit=100))


def test_a_forged_fragment_claiming_alices_owner_does_not_surface_bobs_memory(
    tiny: Home,
) -> None:
    """Defence in depth: a corpus fragment that claims to be alice's memory but belongs to
    bob's memory id is dropped by the handle's scoped lookup."""
    bob_fact = tiny.ids["bob_fact"]
    forged = Fragment(
        id=fragment_id("memory", bob_fact, "forged", "forged"),
        conversation_id=bob_fact,
        role="note",
        content="forged narwhal fragment",
        provenance=Provenance("memory", "forged", bob_fact, "forged", 1_700_000_000.0),
        timestamp=1_700_000_000.0,
        owner=ALICE_OWNER,
    )
    tiny.mx.add_fragments([forged], origin="test:forged")
    for mode in SEARCH_MODES:
        hits = tiny.alice().search("forged narwhal", mode=mode)
        assert bob_fact not in {h.memory_id for h in hits}
        assert all(h.text != "forged narwhal fragment" for h in hits)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_search_results_do_not_depend_on_other_users_memory(tiny: Home, mode: str) -> None:
    alice = tiny.alice()
    alice.remember("Alice's walrus figurine, a walrus with a walrus hat")
    alice.remember("Alice's kiwi figurine")

    def seen() -> list[tuple[str, float, dict[str, int]]]:
        hits = alice.search("walrus kiwi", mode=mode)
        return [(h.memory_id, round(h.score, 9), h.ranks) for h in hits]

    alone = seen()
    for n in range(3):
        tiny.bob().remember(f"Bob's walrus note number {n}")
    assert seen() == alone  # today: the kiwi figurine overtakes the walrus one


# -- family 4: writes --------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "writable"), SHARED_WRITE_MODES)
def test_shared_memory_is_writable_only_with_rw(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    mode: str | None,
    writable: bool,
) -> None:
    # A successful shared write makes alice's agent an author of shared memory, which the
    # main home's other checks (assert_alice_confined) rightly refuse: use the scratch home.
    home: Home = request.getfixturevalue("scratch" if writable else "home")
    if mode is not None:
        monkeypatch.setenv(SHARED_WRITE_ENV, mode)
    alice = home.alice()
    private_state = foreign_state(home, shared=False)
    shared_state = foreign_state(home)
    target = f"shared/from-alice-{abs(hash(mode)) % 10_000}.md"
    results = [
        attempt(alice, "write", target),
        attempt(alice, "write", "shared/handbook.md"),
    ]
    if writable:
        assert all(isinstance(r, MemoryRecord) and r.owner == "shared" for r in results)
        assert home.mx.operator().get(target).owner == "shared"
        home.mx.operator().write("shared/handbook.md", "Team handbook: refunds within thirty days.")
    else:
        assert all(isinstance(r, MemoryAccessDenied) for r in results), results
        assert_logged(home, "write", results[-1])
        for operation, ref in (("forget", "shared/handbook.md"), ("undelete", "shared/retired.md")):
            result = attempt(alice, operation, ref)
            assert isinstance(result, MemoryAccessDenied), result
            assert_logged(home, operation, result)
        assert foreign_state(home) == shared_state
    assert foreign_state(home, shared=False) == private_state
    assert_alice_confined(home, shared_writable=writable)


@pytest.mark.parametrize("user_id", REMEMBER_FOR_OTHERS)
def test_remember_for_another_user_is_refused(home: Home, user_id: str) -> None:
    before, count = foreign_state(home), len(home.memory_rows())
    text = f"Alice likes liquorice, case {sum(map(ord, user_id))}-{len(user_id)}"
    result = attempt(home.alice(), "remember", text)
    assert not isinstance(result, MemexError)  # sanity: alice may remember for herself
    for call in (
        lambda a: a.remember("Bob now likes liquorice", user_id=user_id),
        lambda a: a.remember(messages=[{"role": "user", "content": "hi"}], user_id=user_id),
    ):
        with pytest.raises(MemexError) as caught:
            call(home.alice())
        assert isinstance(caught.value, MemoryAccessDenied | InvalidUserId)
        assert_logged(home, "remember", caught.value)
    assert len(home.memory_rows()) == count + (0 if isinstance(result, MemexError) else 1)
    assert foreign_state(home) == before


def test_writing_into_bobs_collection_name_stays_alices(scratch: Home) -> None:
    """Collections are labels, not owners: alice's memory in ``acme:bob`` is still hers."""
    home = scratch
    alice, bob = home.alice(), home.bob()
    bob_view = [m.id for m in bob.list("acme:bob", include_deleted=True)]
    before = foreign_state(home)
    fact = alice.remember("Alice visited the acme office", collection="acme:bob").memory_ids[0]
    note = alice.write("user/acme-visit.md", "Acme office visit", collection="acme:bob")
    assert {home.owners()[fact], home.owners()[note.id]} == {ALICE_OWNER}
    assert [m.id for m in bob.list("acme:bob", include_deleted=True)] == bob_view
    assert not {h.memory_id for h in bob.search("acme office visit", collection="acme:bob")} & {
        fact,
        note.id,
    }
    assert foreign_state(home) == before


def link_rows(home: Home, alice: AgentMemory, path: str) -> list[dict[str, Any]]:
    return alice.links(path).outlinks


@pytest.mark.parametrize("target", LINK_ATTACKS)
def test_a_link_to_bobs_file_neither_resolves_nor_shows_as_his_backlink(
    home: Home, target: str
) -> None:
    alice, bob = home.alice(), home.bob()
    bob_backlinks = bob.links("user/secret.md").backlinks
    assert [b["memory_id"] for b in bob_backlinks] == [home.ids["bob_diary"]]
    before = foreign_state(home)
    name = f"user/link-{abs(hash(target)) % 100_000}.md"
    control = target.replace("secret", "nothing-here")
    alice.write(name, f"See [[{target}]] and [[{control}]].")
    attack_row, control_row = link_rows(home, alice, name)
    own = home.owners()
    for row in (attack_row, control_row):
        assert row["memory_id"] is None or own[row["memory_id"]] in READABLE, row
        assert row["path"] is None or row["path"].startswith(("user/", "shared/")), row
    resolved = resolve_memory_link(target, f"{ALICE_OWNER}/x.md")
    if resolved is None or not resolved.startswith(f"{ALICE_OWNER}/"):
        # no oracle: an existing file of bob's looks exactly like a missing one
        assert (attack_row["path"], attack_row["memory_id"]) == (None, None)
        assert (control_row["path"], control_row["memory_id"]) == (None, None)
    assert_reveals_nothing(home, alice.links(name), typed=[target, control])
    assert bob.links("user/secret.md").backlinks == bob_backlinks
    stored = home.mx.query("SELECT source_document, target_path, target_document FROM links")[1]
    note_id = alice.get(name).id
    for source, target_path, target_document in stored:
        if source == note_id:
            assert target_document is None or own.get(target_document) in READABLE
            assert target_path is None or target_path.startswith((f"{ALICE_OWNER}/", "shared/"))
    assert foreign_state(home) == before


def test_a_link_written_before_bobs_file_exists_never_resolves_to_it(tiny: Home) -> None:
    alice, bob = tiny.alice(), tiny.bob()
    targets = ["users/bob/later.md", "../bob/later.md", "user/../../users/bob/later", "later"]
    alice.write("user/early.md", " ".join(f"[[{t}]]" for t in targets))
    later = bob.write("user/later.md", f"Bob's later file {BOB_HIDDEN}")
    outlinks = alice.links("user/early.md").outlinks
    assert [o["target"] for o in outlinks] == targets
    assert later.id not in {o["memory_id"] for o in outlinks}
    assert all(o["path"] is None for o in outlinks)
    assert bob.links("user/later.md").backlinks == []
    assert_reveals_nothing(tiny, alice.links("user/early.md"), typed=targets)


def test_bobs_links_to_shared_files_are_not_alices_backlinks(home: Home) -> None:
    alice = home.alice()
    back = alice.links("shared/handbook.md").backlinks
    assert {b["memory_id"] for b in back} <= {
        i for i, owner in home.owners().items() if owner in READABLE
    }
    assert home.ids["alice_file"] in {b["memory_id"] for b in back}
    assert home.ids["bob_file"] not in {b["memory_id"] for b in back}
    assert_reveals_nothing(home, alice.links("shared/handbook.md"))
    bob_back = home.bob().links("shared/handbook.md").backlinks
    assert home.ids["alice_file"] not in {b["memory_id"] for b in bob_back}


# -- family 5: dream and consolidation ---------------------------------------------------------


class Recorder:
    """A consolidator that records what it is shown: a repeat when there is something similar
    (NONE on the closest), else ADD."""

    def __init__(self) -> None:
        self.seen: list[tuple[MemoryFact, list[SimilarMemory]]] = []

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        self.seen.append((fact, list(similar)))
        if similar:
            return ConsolidationDecision("NONE", fact, similar[0].memory_id, reason="repeat")
        return ConsolidationDecision("ADD", fact, reason="new")


class Hostile:
    """A consolidator (say, a confused or prompt-injected model) that always names one
    foreign memory as the target."""

    def __init__(self, action: str, target_id: str) -> None:
        self.action, self.target_id = action, target_id

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        return ConsolidationDecision(
            self.action, fact, self.target_id, reason="hostile", text="overwritten by alice"
        )


def test_dream_over_identical_texts_never_sees_or_touches_bobs_copy(home: Home) -> None:
    alice = home.alice()
    before = foreign_state(home)
    alice.remember("Everyone on the team really likes the espresso machine", collection="acme")
    recorder = Recorder()
    alice.dream("acme", consolidator=recorder, dry_run=True)
    remembered = Recorder()
    alice.remember(
        "The whole team likes the espresso machine",
        collection="acme",
        consolidate=True,
        consolidator=remembered,
    )
    owners = home.owners()
    seen = recorder.seen + remembered.seen
    assert seen and any(similar for _, similar in seen)
    for fact, similar in seen:
        assert all(owners.get(i, ALICE_OWNER) == ALICE_OWNER for i in fact.source_fragment_ids)
        assert {owners[s.memory_id] for s in similar} <= {ALICE_OWNER}
        assert home.ids["bob_same_as_alice"] not in {s.memory_id for s in similar}
    assert foreign_state(home) == before


@pytest.mark.parametrize("action", CONSOLIDATION_ACTIONS)
@pytest.mark.parametrize("target", CONSOLIDATION_TARGETS)
def test_a_dream_decision_aimed_at_bobs_memory_changes_nothing_of_his(
    home: Home, target: str, action: str
) -> None:
    alice = home.alice()
    active = [m.id for m in alice.list(limit=1000)]
    before = foreign_state(home)
    report = alice.dream(consolidator=Hostile(action, home.ids[target]))
    assert_logged(home, "dream", report)
    assert report.examined >= 1
    for applied in report.decisions:
        assert applied.decision.action == "ADD", applied.to_dict()
        assert "not found" in applied.decision.reason
        assert applied.memory_id is not None
        assert home.owners()[applied.memory_id] == ALICE_OWNER
    assert [m.id for m in alice.list(limit=1000)] == active
    assert foreign_state(home) == before
    assert_alice_confined(home)


@pytest.mark.parametrize("action", CONSOLIDATION_ACTIONS)
@pytest.mark.parametrize("target", CONSOLIDATION_TARGETS)
def test_a_remember_decision_aimed_at_bobs_memory_adds_to_alice_instead(
    home: Home, target: str, action: str
) -> None:
    before = foreign_state(home)
    text = f"Alice learned fact {target} {action}"
    result = home.alice().remember(
        text, consolidate=True, consolidator=Hostile(action, home.ids[target])
    )
    assert_logged(home, "remember", result)
    [applied] = result.decisions
    assert applied.decision.action == "ADD" and "not found" in applied.decision.reason
    assert applied.memory_id is not None
    assert home.owners()[applied.memory_id] == ALICE_OWNER
    assert home.alice().get(applied.memory_id).content == text
    assert foreign_state(home) == before


@pytest.mark.parametrize(
    "collection",
    [
        pytest.param("acme:bob", id="bobs-collection"),
        pytest.param("acme:carol", id="carols-collection"),
        pytest.param("{bob_fact}", id="bobs-memory-id-as-collection"),
    ],
)
def test_dreaming_another_users_collection_examines_only_alices(
    home: Home, collection: str
) -> None:
    name = collection.format(**home.ids)
    before = foreign_state(home)
    recorder = Recorder()
    report = home.alice().dream(name, consolidator=recorder, dry_run=True)
    owners = home.owners()
    for fact, similar in recorder.seen:
        assert {owners[i] for i in fact.source_fragment_ids} <= {ALICE_OWNER}
        assert {owners[s.memory_id] for s in similar} <= {ALICE_OWNER}
    assert report.examined == len(recorder.seen)
    assert foreign_state(home) == before


def test_dream_with_shared_writable_still_leaves_bob_alone(
    scratch: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = scratch
    monkeypatch.setenv(SHARED_WRITE_ENV, "rw")
    before = foreign_state(home, shared=False)
    recorder = Recorder()
    home.alice().dream(consolidator=recorder)
    owners = home.owners()
    for fact, similar in recorder.seen:
        assert {owners[i] for i in fact.source_fragment_ids} <= set(READABLE)
        assert {owners[s.memory_id] for s in similar} <= set(READABLE)
    assert foreign_state(home, shared=False) == before


def test_a_decision_aimed_at_shared_memory_is_denied_when_read_only(home: Home) -> None:
    before = foreign_state(home)
    with pytest.raises(MemoryAccessDenied):
        home.alice().remember(
            "The handbook says refunds within sixty days",
            consolidate=True,
            consolidator=Hostile("UPDATE", home.ids["shared_handbook"]),
        )
    assert foreign_state(home) == before


# -- family 6: operator and agent --------------------------------------------------------------


def test_an_agent_made_by_the_operator_is_still_scoped(home: Home) -> None:
    alice = home.mx.operator().agent(ALICE, name=ALICE_BOT)
    assert (alice.scope.readable, alice.scope.writable) == (READABLE, (ALICE_OWNER,))
    for ref in ("users/bob/secret.md", home.ids["bob_file"], "user/../users/bob/secret.md"):
        assert isinstance(attempt(alice, "get", ref), MemexError)
    assert_hits_confined(home, alice.search(BOB_CANARY, limit=50))
    assert_reveals_nothing(home, alice.list(include_deleted=True, limit=1000), own_content=True)
    assert isinstance(attempt(alice, "write", "users/bob/secret.md"), MemexError)


@pytest.mark.parametrize("method", OPERATOR_ONLY_METHODS)
@pytest.mark.parametrize("made_by", ["memex", "operator"])
def test_operator_only_methods_are_not_on_agents(home: Home, made_by: str, method: str) -> None:
    maker = home.mx if made_by == "memex" else home.mx.operator()
    alice = maker.agent(ALICE)
    assert not hasattr(alice, method)
    before = foreign_state(home)
    with pytest.raises(AttributeError):
        getattr(alice, method)(user_id="bob", confirm="bob")
    assert foreign_state(home) == before


@pytest.mark.parametrize("user_id", INVALID_USER_IDS)
def test_an_agent_cannot_be_bound_to_a_crafted_user_id(home: Home, user_id: str) -> None:
    with pytest.raises(InvalidUserId):
        home.mx.agent(user_id)
    with pytest.raises(InvalidUserId):
        home.mx.operator().agent(user_id)


@pytest.mark.parametrize("user_id", LOOKALIKE_USERS)
def test_a_user_whose_id_looks_like_bobs_sees_none_of_his_memory(home: Home, user_id: str) -> None:
    other = home.mx.agent(user_id, name="lookalike")
    bob_ids = {i for i, owner in home.owners().items() if owner == "users/bob"}
    for mode in SEARCH_MODES:
        hits = other.search(f"{BOB_CANARY} {BOB_HIDDEN} oolong", mode=mode, limit=50)
        assert not {h.memory_id for h in hits} & bob_ids
        assert all(BOB_HIDDEN not in h.text for h in hits)
    assert not {m.id for m in other.list(include_deleted=True, limit=1000)} & bob_ids
    for ref in ("user/secret.md", home.ids["bob_file"], home.ids["bob_fact"]):
        assert isinstance(attempt(other, "get", ref), MemoryNotFound)


def alice_scope() -> Scope:
    return Scope(Actor(AGENT, ALICE_BOT, ALICE), readable=READABLE, writable=(ALICE_OWNER,))


def bob_fragment_ids(home: Home) -> list[str]:
    return [
        str(r[0])
        for r in home.mx.query("SELECT id, owner FROM fragments")[1]
        if r[1] == "users/bob"
    ]


CATALOG_READS = {
    "memory": lambda c, h: c.memory(alice_scope(), h.ids["bob_file"]),
    "memory-deleted": lambda c, h: c.memory(alice_scope(), h.ids["bob_deleted_fact"]),
    "memory-at-path": lambda c, h: c.memory_at_path(alice_scope(), "users/bob/secret.md"),
    "memories-owner-bob": lambda c, h: c.memories(
        alice_scope(), owners=("users/bob",), statuses=("active", "deleted", "invalidated")
    ),
    "collections-owner-bob": lambda c, h: c.memory_collections(alice_scope(), ("users/bob",)),
    "memories-by-fragment": lambda c, h: c.memories_by_fragment(alice_scope(), bob_fragment_ids(h)),
    "revisions": lambda c, h: c.revisions(alice_scope(), h.ids["bob_fact"]),
    "outlinks": lambda c, h: c.memory_outlinks(alice_scope(), h.ids["bob_file"]),
    "backlinks": lambda c, h: c.memory_backlinks(alice_scope(), h.ids["bob_file"]),
    "empty-scope": lambda c, h: c.memory(
        Scope(Actor(AGENT, "x", "x"), readable=(), writable=()), h.ids["alice_fact"]
    ),
}


@pytest.mark.parametrize("call", list(CATALOG_READS))
def test_the_catalog_reads_nothing_outside_the_scope(home: Home, call: str) -> None:
    assert CATALOG_READS[call](home.mx.catalog, home) in (None, [], {})


def test_the_catalog_lists_no_collection_only_bob_uses(home: Home) -> None:
    names = home.mx.catalog.memory_collections(alice_scope())
    assert "acme:bob" not in names and "acme:carol" not in names
    assert "acme" in names


def forged_write(home: Home, **changes: Any) -> MemoryWrite:
    record = replace(home.mx.operator().get(home.ids["alice_fact"]), **changes)
    record = replace(record, revision=record.revision + 1, content="forged by alice")
    revision = Revision(
        record.id,
        record.revision,
        record.content,
        record.kind,
        record.status,
        "update",
        f"agent:{ALICE_BOT}",
        0.0,
    )
    return MemoryWrite(record, revision, "x")


CATALOG_WRITES = {
    "record-owned-by-bob": lambda h: forged_write(
        h, id="mem_forged00000000000a", owner="users/bob"
    ),
    "alice-owner-on-bobs-id": lambda h: forged_write(h, id=h.ids["bob_fact"]),
    "bobs-record-as-is": lambda h: forged_write(
        h, **{k: getattr(h.mx.operator().get(h.ids["bob_fact"]), k) for k in ("id", "owner")}
    ),
}


@pytest.mark.parametrize("call", list(CATALOG_WRITES))
def test_the_catalog_refuses_writes_outside_the_scope(home: Home, call: str) -> None:
    before = foreign_state(home)
    with pytest.raises(MemoryAccessDenied):
        home.mx.catalog.write_memory(alice_scope(), CATALOG_WRITES[call](home))
    with pytest.raises(MemoryAccessDenied):
        home.mx.catalog.purge_memories(alice_scope(), [home.ids["bob_fact"]])
    assert foreign_state(home) == before


def test_the_catalog_refuses_an_alice_record_stored_under_bobs_path(tiny: Home) -> None:
    home = tiny
    write = forged_write(home, id="mem_forged00000000000b", path="users/bob/planted.md")
    with pytest.raises(MemoryAccessDenied):
        home.mx.catalog.write_memory(alice_scope(), write)


# -- family 7: the access log ------------------------------------------------------------------


def test_every_refused_attempt_is_logged_once_with_its_outcome(home: Home) -> None:
    alice = home.mx.agent(ALICE, name="alice-audit")
    start = home.mx.catalog.access_log(limit=1)[0].id
    attempts: list[tuple[str, str, object]] = []
    for param in PATH_ATTACKS:
        path, inside = param.values
        if not inside:
            attempts.append(("read", str(path), attempt(alice, "get", path)))
    for name in FOREIGN_MEMORIES:
        ref = home.ids[name]
        attempts.append(("forget", ref, attempt(alice, "forget", ref, tool_call_id=f"call-{name}")))
    attempts.append(("write", "shared/x.md", attempt(alice, "write", "shared/x.md")))
    try:
        alice.remember("x", user_id="bob")
    except MemexError as exc:
        attempts.append(("remember", "", exc))
    entries = list(reversed(home.mx.catalog.access_log(limit=10_000)))
    mine = [e for e in entries if e.id > start]
    assert len(mine) == len(attempts)
    for entry, (action, target, result) in zip(mine, attempts, strict=True):
        assert isinstance(result, MemexError)
        assert (entry.actor, entry.user_id, entry.action) == ("alice-audit", ALICE, action)
        assert entry.outcome == expected_outcome(result) != "ok"
        assert entry.target == target
        assert BOB_HIDDEN not in json.dumps(entry.to_dict(), default=str)
        if action == "forget":
            assert entry.tool_call_id and entry.tool_call_id.startswith("call-")
    outcomes = {e.outcome for e in mine}
    assert outcomes == {"invalid", "not_found", "denied"}


def test_no_log_entry_of_alices_carries_bobs_content(home: Home) -> None:
    """Runs after the attacks above (same module home): everything alice's agents did."""
    entries = home.mx.catalog.access_log(limit=1_000_000)
    mine = [e for e in entries if e.actor.startswith("alice")]
    assert mine
    foreign = home.foreign_ids()
    for entry in mine:
        text = json.dumps(entry.to_dict(), default=str, ensure_ascii=False)
        assert BOB_HIDDEN not in text, entry
        assert entry.user_id == ALICE, entry
        for memory_id in foreign:
            if memory_id in text:  # only where alice typed it herself
                assert memory_id in entry.target or memory_id in json.dumps(
                    entry.detail.get("error", "")
                ), entry
