"""Isolation matrix, family 4: writes. Shared memory is read-only for agents unless the
home says rw; remembering for another user is refused; a collection named like bob's is
still alice's; a link to bob's file neither resolves nor shows as his backlink."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memex_client import MemexClient
from memex_client.errors import NotFoundError, PermissionDeniedError
from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain.memory.memory_links import resolve_memory_link
from memex_core.domain.memory.paths import InvalidUserId
from memex_core.domain.memory.records import MemoryRecord
from memex_core.errors import MemexError
from memex_core.handles import SHARED_WRITE_ENV
from tests.isolation.surface_http import Http
from tests.isolation.surfaces import (
    ACCESS_LOG,
    HANDLE,
    RAW_HTTP,
    TOOLS,
    InProcess,
    Surface,
    on,
)
from tests.isolation.world import ALICE, ALICE_OWNER, READABLE
from tests.support.memory_attacks import (
    BOB_HIDDEN,
    LINK_ATTACKS,
    REMEMBER_FOR_OTHERS,
    SHARED_WRITE_MODES,
)
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    CatalogReader,
    error_of,
    keyword_only_home,
    served,
)


@pytest.mark.parametrize(("mode", "writable"), SHARED_WRITE_MODES)
def test_shared_memory_is_writable_only_with_rw(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    mode: str | None,
    writable: bool,
) -> None:
    # A successful shared write makes alice's agent an author of shared memory, which the
    # main surface's other checks (assert_alice_confined) rightly refuse: use the scratch surface.
    surface: InProcess = request.getfixturevalue("scratch" if writable else "inprocess_surface")
    if mode is not None:
        monkeypatch.setenv(SHARED_WRITE_ENV, mode)
    alice = surface.alice()
    private_state = surface.foreign_state(shared=False)
    shared_state = surface.foreign_state()
    target = f"shared/from-alice-{abs(hash(mode)) % 10_000}.md"
    results = [
        surface.attempt(alice, "write", target),
        surface.attempt(alice, "write", "shared/handbook.md"),
    ]
    if writable:
        assert all(isinstance(r, MemoryRecord) and r.owner == "shared" for r in results)
        assert surface.mx.operator().get(target).owner == "shared"
        surface.mx.operator().write(
            "shared/handbook.md", "Team handbook: refunds within thirty days."
        )
    else:
        assert all(isinstance(r, MemoryAccessDenied) for r in results), results
        surface.assert_logged("write", results[-1])
        for operation, ref in (("forget", "shared/handbook.md"), ("undelete", "shared/retired.md")):
            result = surface.attempt(alice, operation, ref)
            assert isinstance(result, MemoryAccessDenied), result
            surface.assert_logged(operation, result)
        assert surface.foreign_state() == shared_state
    assert surface.foreign_state(shared=False) == private_state
    surface.assert_confined(shared_writable=writable)


@on(RAW_HTTP)
def test_shared_memory_is_read_only_for_an_agent_key_by_default(surface: Http) -> None:
    before = surface.foreign_state()
    alice = surface.alice()
    for operation, ref in (
        ("write", "shared/from-alice.md"),
        ("write", "shared/handbook.md"),
        ("forget", "shared/handbook.md"),
        ("undelete", "shared/retired.md"),
    ):
        result = surface.attempt(alice, operation, ref)
        assert isinstance(result, PermissionDeniedError), result
        assert (result.status, result.code) == (403, "forbidden")
        surface.assert_logged(operation, result)
    assert surface.foreign_state() == before


@pytest.mark.parametrize(
    ("mode", "writable"),
    [
        pytest.param("RW ", True, id="RW-trailing-space"),
    ],
)
def test_shared_memory_is_writable_only_with_rw_where_the_server_runs(
    tmp_path: Path, mode: str | None, writable: bool
) -> None:
    """(Unset is the module's server: test_shared_memory_is_read_only_...)"""
    home = keyword_only_home(tmp_path / "home")
    env = {} if mode is None else {"MEMEX_SHARED_WRITE_MODE": mode}
    with served(home, env=env) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        operator = op.operator()
        operator.write("shared/handbook.md", "Team handbook: refunds within thirty days.")
        bob = operator.agent("bob").remember(f"Bob prefers oolong {BOB_HIDDEN}")
        bob_fact = bob.memory_ids[0]
        alice = MemexClient(
            service.url, api_key=op.create_key(ALICE, name="a")["key"], timeout=CLIENT_TIMEOUT
        ).agent()
        results = [
            attempt(alice, "write", "shared/from-alice.md"),
            attempt(alice, "write", "shared/handbook.md"),
        ]
        if writable:
            assert all(isinstance(r, MemoryRecord) and r.owner == "shared" for r in results)
        else:
            assert all(isinstance(r, PermissionDeniedError) for r in results), results
        assert isinstance(attempt(alice, "forget", bob_fact), NotFoundError)
        status = CatalogReader(home).rows("SELECT status FROM memories WHERE id = ?", (bob_fact,))
        assert status == [("active",)]


attempt = Surface.attempt


@on(HANDLE, ACCESS_LOG)
@pytest.mark.parametrize("user_id", REMEMBER_FOR_OTHERS)
def test_remember_for_another_user_is_refused(surface: Surface, user_id: str) -> None:
    before, count = surface.foreign_state(), len(surface.memory_rows())
    added = 0
    if isinstance(surface, InProcess):  # sanity: alice may remember for herself
        text = f"Alice likes liquorice, case {sum(map(ord, user_id))}-{len(user_id)}"
        result = surface.attempt(surface.alice(), "remember", text)
        assert not isinstance(result, MemexError)
        added = 1
    for call in (
        lambda a: a.remember("Bob now likes liquorice", user_id=user_id),
        lambda a: a.remember(messages=[{"role": "user", "content": "hi"}], user_id=user_id),
    ):
        with pytest.raises(MemexError) as caught:
            call(surface.alice())
        if isinstance(surface, Http):
            assert isinstance(caught.value, PermissionDeniedError), caught.value
        else:
            assert isinstance(caught.value, MemoryAccessDenied | InvalidUserId)
            surface.assert_logged("remember", caught.value)
    if isinstance(surface, Http):  # raw bodies: another user in every field the schema has
        raw = surface.raw()
        for body in (
            {"text": "Bob now likes liquorice", "user_id": user_id},
            {"messages": [{"role": "user", "content": "hi", "user_id": user_id}]},
            {"text": "Bob now likes liquorice", "owner": f"users/{user_id}"},
        ):
            assert error_of(raw.post("/v1/memory/remember", body))[:2] == (422, "invalid_request")
    assert len(surface.memory_rows()) == count + added
    assert surface.foreign_state() == before


@on(HANDLE)
def test_writing_into_bobs_collection_name_stays_alices(
    surface: Surface, request: pytest.FixtureRequest
) -> None:
    """Collections are labels, not owners: alice's memory in ``acme:bob`` is still hers. (In
    process on the scratch home, whose other checks do not look at acme:bob.)"""
    home: Surface = (
        request.getfixturevalue("scratch") if isinstance(surface, InProcess) else surface
    )
    alice = home.alice()
    bob_view = None
    if isinstance(home, InProcess):
        bob_view = [m.id for m in home.bob().list("acme:bob", include_deleted=True)]
    before = home.foreign_state()
    fact = alice.remember("Alice visited the acme office", collection="acme:bob").memory_ids[0]
    note = alice.write("user/acme-visit.md", "Acme office visit", collection="acme:bob")
    assert {home.owners()[fact], home.owners()[note.id]} == {ALICE_OWNER}
    if isinstance(home, InProcess):
        bob = home.bob()
        assert [m.id for m in bob.list("acme:bob", include_deleted=True)] == bob_view
        found = bob.search("acme office visit", collection="acme:bob")
        assert not {h.memory_id for h in found} & {fact, note.id}
    assert home.foreign_state() == before


@on(TOOLS)
def test_remember_into_bobs_collection_name_stays_alices(surface: Any) -> None:
    before = surface.foreign_state()
    stored = surface.call(
        "remember", {"text": "Alice reviews acme launches", "collection": "acme:bob"}
    )
    assert not stored.is_error, stored.text
    assert (stored.data["user_id"], stored.data["collection"]) == (ALICE, "acme:bob")
    owners = surface.owners()
    assert {owners[i] for i in stored.data["memory_ids"]} == {ALICE_OWNER}
    assert surface.foreign_state() == before


def bob_backlinks(surface: Surface) -> list[dict[str, Any]]:
    """Bob's file's backlinks, as bob (in process) or the operator (over HTTP) sees them."""
    if isinstance(surface, InProcess):
        return list(surface.bob().links("user/secret.md").backlinks)
    assert isinstance(surface, Http)
    return list(surface.op.operator().links("users/bob/secret.md").backlinks)


@on(HANDLE)
@pytest.mark.parametrize("target", LINK_ATTACKS)
def test_a_link_to_bobs_file_neither_resolves_nor_shows_as_his_backlink(
    surface: Surface, target: str
) -> None:
    alice = surface.alice()
    backlinks = bob_backlinks(surface)
    assert [b["memory_id"] for b in backlinks] == [surface.ids["bob_diary"]]
    before = surface.foreign_state()
    name = f"user/link-{abs(hash(target)) % 100_000}.md"
    control = target.replace("secret", "nothing-here")
    alice.write(name, f"See [[{target}]] and [[{control}]].")
    attack_row, control_row = alice.links(name).outlinks
    own = surface.owners()
    for row in (attack_row, control_row):
        assert row["memory_id"] is None or own[row["memory_id"]] in READABLE, row
        assert row["path"] is None or row["path"].startswith(("user/", "shared/")), row
    resolved = resolve_memory_link(target, f"{ALICE_OWNER}/x.md")
    if resolved is None or not resolved.startswith(f"{ALICE_OWNER}/"):
        # no oracle: an existing file of bob's looks exactly like a missing one
        assert (attack_row["path"], attack_row["memory_id"]) == (None, None)
        assert (control_row["path"], control_row["memory_id"]) == (None, None)
    surface.assert_reveals_nothing(alice.links(name), typed=[target, control, name])
    assert bob_backlinks(surface) == backlinks
    stored = surface.rows("SELECT source_document, target_path, target_document FROM links")
    note_id = alice.get(name).id
    for source, target_path, target_document in stored:
        if source == note_id:
            assert target_document is None or own.get(target_document) in READABLE
            assert target_path is None or target_path.startswith((f"{ALICE_OWNER}/", "shared/"))
    assert surface.foreign_state() == before


@on(HANDLE)
def test_bobs_links_to_shared_files_are_not_alices_backlinks(surface: Surface) -> None:
    alice = surface.alice()
    links = alice.links("shared/handbook.md")
    back = {b["memory_id"] for b in links.backlinks}
    assert back <= {i for i, owner in surface.owners().items() if owner in READABLE}
    assert not back & surface.foreign_ids()
    assert surface.ids["alice_file"] in back
    assert surface.ids["bob_file"] not in back
    surface.assert_reveals_nothing(links)
    if isinstance(surface, InProcess):
        bob_back = surface.bob().links("shared/handbook.md").backlinks
        assert surface.ids["alice_file"] not in {b["memory_id"] for b in bob_back}


def test_a_link_written_before_bobs_file_exists_never_resolves_to_it(tiny: InProcess) -> None:
    alice, bob = tiny.alice(), tiny.bob()
    targets = ["users/bob/later.md", "../bob/later.md", "user/../../users/bob/later", "later"]
    alice.write("user/early.md", " ".join(f"[[{t}]]" for t in targets))
    later = bob.write("user/later.md", f"Bob's later file {BOB_HIDDEN}")
    outlinks = alice.links("user/early.md").outlinks
    assert [o["target"] for o in outlinks] == targets
    assert later.id not in {o["memory_id"] for o in outlinks}
    assert all(o["path"] is None for o in outlinks)
    assert bob.links("user/later.md").backlinks == []
    tiny.assert_reveals_nothing(alice.links("user/early.md"), typed=targets)
