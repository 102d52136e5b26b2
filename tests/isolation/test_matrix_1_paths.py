"""Isolation matrix, family 1: crafted paths, on every surface that takes a path.

Alice's agent (a handle in this process, her key over HTTP) gives bob's file every
spelling of a path (tables in ``tests/support/memory_attacks.py``) to every operation:
nothing of bob's comes back, the catalog is unchanged outside ``users/alice/``, and the
attempt is in the access log with its outcome. The surfaces: ``tests/isolation/surfaces.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from memex_core.domain.memory.paths import InvalidMemoryPath
from memex_core.domain.memory.records import MemoryRecord
from tests.isolation.surface_http import Http
from tests.isolation.surfaces import (
    ACCESS_LOG,
    OTHER_USERS,
    PATHS,
    PYTHON_REFS,
    RAW_HTTP,
    InProcess,
    Surface,
    across,
    on,
)
from tests.isolation.world import ALICE_OWNER
from tests.support.memory_attacks import BOB_CANARY, NON_TEXT_REFS, PATH_ATTACKS, PATH_OPERATIONS
from tests.support.server_fixtures import error_of

OUTSIDE_PATHS = [p for p in PATH_ATTACKS if not p.values[1]]


@on(PATHS, ACCESS_LOG)
@pytest.mark.parametrize("operation", list(PATH_OPERATIONS))
@pytest.mark.parametrize(("path", "inside"), PATH_ATTACKS)
def test_a_crafted_path_never_reaches_another_users_memory(
    surface: Surface, path: str, inside: bool, operation: str
) -> None:
    before = surface.foreign_state()
    call_id = f"path-{operation}-{abs(hash(path)) % 10**8}"
    result = surface.attempt(surface.alice(), operation, path, tool_call_id=call_id)
    if not inside:
        assert surface.is_refusal(result), f"{operation}({path!r}) gave {result!r}"
    elif isinstance(result, MemoryRecord):
        assert result.owner == ALICE_OWNER and result.path == path
    surface.assert_reveals_nothing(result, typed=[path])
    assert surface.foreign_state() == before
    surface.assert_confined()
    surface.assert_logged(PATH_OPERATIONS[operation], result, tool_call_id=call_id)


@on(OTHER_USERS)
def test_alices_user_path_is_her_own_even_where_bob_has_the_same_name(surface: InProcess) -> None:
    """``user/secret.md`` names users/alice/secret.md for alice: writing it leaves bob's alone."""
    alice, bob = surface.alice(), surface.bob()
    before = surface.foreign_state()
    written = alice.write("user/secret.md", "Alice's own secret file")
    assert (written.owner, written.path) == (ALICE_OWNER, "user/secret.md")
    assert surface.mx.operator().get("users/alice/secret.md").id == written.id
    assert BOB_CANARY in bob.get("user/secret.md").content
    assert alice.get("user/secret.md").content == "Alice's own secret file"
    assert surface.foreign_state() == before


@on(PYTHON_REFS)
@pytest.mark.parametrize("operation", list(PATH_OPERATIONS))
@pytest.mark.parametrize("ref", NON_TEXT_REFS)
def test_a_ref_that_is_not_text_is_refused_and_logged(
    surface: InProcess, ref: Any, operation: str
) -> None:
    before = surface.foreign_state()
    result = surface.attempt(surface.alice(), operation, ref)
    assert isinstance(result, InvalidMemoryPath), result
    assert surface.foreign_state() == before
    surface.assert_logged(PATH_OPERATIONS[operation], result)


@on(RAW_HTTP)
@pytest.mark.parametrize(
    "ref",
    [
        pytest.param(None, id="null"),
        pytest.param(7, id="number"),
        pytest.param(["users/bob/secret.md"], id="list"),
        pytest.param({"path": "users/bob/secret.md"}, id="object"),
        pytest.param(True, id="bool"),
    ],
)
@pytest.mark.parametrize("operation", ["get", "links", "forget", "undelete", "write"])
def test_a_ref_that_is_not_text_is_refused_by_the_schema(
    surface: Http, ref: Any, operation: str
) -> None:
    body = {"path": ref, "content": "x"} if operation == "write" else {"ref": ref}
    before = surface.foreign_state()
    status, code, message = error_of(surface.raw().post(f"/v1/memory/{operation}", body))
    assert (status, code) == (422, "invalid_request"), message
    assert "openapi" in message
    assert surface.foreign_state() == before


@across("note_routes", rows=OUTSIDE_PATHS, argnames=("path", "inside"))
def test_a_crafted_path_as_a_note_is_answered_like_an_unknown_note(
    surface: Surface, entry: str, path: str, inside: bool
) -> None:
    """/v1/explore and the MCP explore tool take a note's path, title or id: bob's memory
    files are no notes of alice's, whatever the spelling (the corpus has no note there)."""
    got = surface.note_request(entry, path)
    want = surface.note_request(entry, "no-such-note")
    if not surface.note_refused(got):  # (over HTTP a name may be refused as a name at all)
        assert surface.note_shape(got, path) == surface.note_shape(want, "no-such-note")
    surface.assert_reveals_nothing(got, typed=(path,))
