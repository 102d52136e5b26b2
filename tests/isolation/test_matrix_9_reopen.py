"""Isolation matrix, family 9 (continued): reopening a fact closed by mistake (issue 30).

Reopening is ``undelete`` of a superseded fact (a ``reopen`` revision): the handles'
``undelete``, ``POST /v1/memory/undelete`` and the viewer's Reopen button
(``/memory/{id}/reopen``: a confirmation page, then a POST with the session's CSRF token).
Alice's agent must never

* reopen one of bob's superseded facts (or his fact that closed it): it is not found,
  exactly as an unknown id, on the handle, every raw key and the viewer's page and form;
* reopen a superseded shared fact while shared memory is read-only for agents (the
  default): refused as a write to shared memory, nothing changed. With
  ``MEMEX_SHARED_WRITE_MODE=rw`` it may (the ``scratch`` home), as it may write shared files.

The MCP server has no tool that reopens (or forgets) anything: nothing to try there. Bob's
chain is :func:`tests.isolation.test_matrix_9_validity.bob_chain`; the shared chain (Leeds,
then York) is in every surface's home from the start (:func:`tests.isolation.world.shared_chain`).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.handles import SHARED_WRITE_ENV
from tests.isolation.bob_facts import (
    assert_no_bob,
    assert_route_refuses_bobs_facts,
    bob_chain,
    validity,
)
from tests.isolation.surface_http import ACME_BOT
from tests.isolation.surfaces import (
    ACCESS_LOG,
    HANDLE,
    RAW_HTTP,
    InProcess,
    Surface,
    entry_shape,
    on,
)
from tests.isolation.world import UNKNOWN_ID
from tests.support.viewer_fixtures import csrf_of


def _shape(result: object, ref: str) -> tuple[str, str]:
    return type(result).__name__, str(result).replace(ref, "<ref>")


def _shared_row(surface: Surface) -> list[tuple[Any, ...]]:
    return surface.rows(
        "SELECT id, revision, status, valid_until, superseded_by FROM memories WHERE id = ?",
        (surface.ids["shared_old_fact"],),
    )


# -- bob's facts: not found, like an unknown id -------------------------------------------------


@on(HANDLE, ACCESS_LOG)
def test_reopening_bobs_superseded_fact_is_not_found_like_an_unknown_id(surface: Surface) -> None:
    ids = bob_chain(surface)
    before, foreign = validity(surface), surface.foreign_state()
    unknown = surface.attempt(surface.alice(), "undelete", UNKNOWN_ID)
    unknown_entry = surface.last_entry()
    assert surface.is_not_found(unknown), unknown
    for ref in ids:  # Oslo (closed) and Lisbon (the fact that closed it)
        result = surface.attempt(surface.alice(), "undelete", ref)
        assert surface.is_not_found(result), result
        assert _shape(result, ref) == _shape(unknown, UNKNOWN_ID)
        entry = surface.assert_logged("undelete", result)
        assert entry_shape(entry, ref) == entry_shape(unknown_entry, UNKNOWN_ID)
        assert_no_bob(result, surface, ids, typed=(ref,))
    assert validity(surface) == before
    assert surface.foreign_state() == foreign


@on(RAW_HTTP)
def test_the_undelete_route_reopens_none_of_bobs_facts_for_any_key(surface: Surface) -> None:
    bob_chain(surface)
    before = validity(surface)
    assert_route_refuses_bobs_facts(surface, "/v1/memory/undelete")
    assert validity(surface) == before


def _reopen_form(surface: Any, ref: str, token: str) -> httpx.Response:
    """The Reopen button's POST, confirmed, as the browser sends it."""
    response = surface.browser.post(
        f"/memory/{ref}/reopen",
        data={"csrf_token": token, "confirm": "yes"},
        headers={"origin": surface.http.service.url},
        follow_redirects=False,
    )
    assert response.status_code < 500, response.text[:300]
    return response


def _alices_closed_fact(surface: Any) -> tuple[str, str]:
    """A fact of alice's closed by a later one of hers (a subject no other case writes)."""
    alice = surface.http.alice()
    old = alice.remember("Ottoline Brisk lives in Ghent", at="2022-02-01").memory_ids[0]
    new = alice.remember("Ottoline Brisk moved to Bruges", at="2022-08-01").memory_ids[0]
    return old, new


@pytest.mark.parametrize("surface", ["viewer"], indirect=True)
def test_the_viewers_reopen_button_never_reaches_bobs_facts(surface: Surface) -> None:
    ids = bob_chain(surface)
    before, foreign = validity(surface), surface.foreign_state()
    own, _ = _alices_closed_fact(surface)
    confirm = surface.refer("reopen", own)  # alice's own closed fact: the page and its token
    assert confirm.status_code == 200, confirm.text[:300]  # type: ignore[attr-defined]
    token = csrf_of(confirm.text)  # type: ignore[attr-defined]
    unknown_page = surface.refer("reopen", UNKNOWN_ID)
    unknown_post = _reopen_form(surface, UNKNOWN_ID, token)
    assert unknown_post.status_code == 404, unknown_post.text[:300]
    for ref in ids:
        page = surface.refer("reopen", ref)
        assert surface.answer_shape(page, ref) == surface.answer_shape(unknown_page, UNKNOWN_ID)
        posted = _reopen_form(surface, ref, token)
        assert surface.answer_shape(posted, ref) == surface.answer_shape(unknown_post, UNKNOWN_ID)
        assert_no_bob(page, surface, ids, typed=(ref,))
        assert_no_bob(posted, surface, ids, typed=(ref,))
    assert validity(surface) == before
    assert surface.foreign_state() == foreign
    # The control: the same form reopens alice's own fact.
    reopened = _reopen_form(surface, own, token)
    assert reopened.status_code == 303, reopened.text[:300]
    assert surface.rows("SELECT valid_until FROM memories WHERE id = ?", (own,)) == [(None,)]


# -- shared facts: refused while shared memory is read-only ------------------------------------


@on(HANDLE, ACCESS_LOG)
def test_an_agent_cannot_reopen_a_shared_fact_while_shared_memory_is_read_only(
    surface: Surface,
) -> None:
    before, foreign = _shared_row(surface), surface.foreign_state()
    assert before[0][3] is not None, before  # closed by York
    ref = surface.ids["shared_old_fact"]
    result = surface.attempt(surface.alice(), "undelete", ref)
    assert surface.is_refusal(result) and not surface.is_not_found(result), result
    assert surface.assert_logged("undelete", result)["outcome"] == "denied"
    assert _shared_row(surface) == before
    assert surface.foreign_state() == foreign


@on(RAW_HTTP)
def test_the_undelete_route_reopens_no_shared_fact_for_any_key(surface: Surface) -> None:
    before = _shared_row(surface)
    for key in surface.keys:  # type: ignore[attr-defined]
        response = surface.raw(key).post(  # type: ignore[attr-defined]
            "/v1/memory/undelete", {"ref": surface.ids["shared_old_fact"]}
        )
        # alice-acme is bound to collection acme: the fact (collection "") is outside it
        expected = 404 if key == ACME_BOT else 403
        assert response.status_code == expected, (key, response.text[:300])
    assert _shared_row(surface) == before


@pytest.mark.parametrize("surface", ["viewer"], indirect=True)
def test_the_viewers_reopen_button_refuses_a_shared_fact(surface: Surface) -> None:
    before, foreign = _shared_row(surface), surface.foreign_state()
    ref = surface.ids["shared_old_fact"]
    page = surface.refer("reopen", ref)  # readable and closed: the confirmation shows
    assert page.status_code == 200, page.text[:300]  # type: ignore[attr-defined]
    posted = _reopen_form(surface, ref, csrf_of(page.text))  # type: ignore[attr-defined]
    assert posted.status_code == 403, posted.text[:300]
    assert "read-only for agents" in posted.text
    assert surface.outcome_of(posted) == "denied"
    assert _shared_row(surface) == before
    assert surface.foreign_state() == foreign


def test_an_agent_reopens_a_shared_fact_when_shared_memory_is_writable(
    scratch: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = scratch.ids["shared_old_fact"]
    with pytest.raises(MemoryAccessDenied):
        scratch.alice().undelete(ref)
    monkeypatch.setenv(SHARED_WRITE_ENV, "rw")
    record = scratch.alice().undelete(ref)
    assert (record.valid_until, record.superseded_by) == (None, None)
    assert scratch.mx.operator().get(ref).is_current
