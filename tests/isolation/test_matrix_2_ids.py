"""Isolation matrix, family 2: ids. Another user's memory or fragment id is answered exactly
like an unknown one (same answer, same log entry): no existence oracle, on every surface
that takes an id (the handle, HTTP routes, MCP tools, viewer pages)."""

from __future__ import annotations

from tests.isolation.surface_http import ACME_BOT, MEMORY_ONLY_BOT, Http
from tests.isolation.surfaces import ACCESS_LOG, RAW_HTTP, Surface, across, entry_shape, on
from tests.isolation.world import ALICE_BOT, UNKNOWN_FRAGMENT, UNKNOWN_ID
from tests.support.memory_attacks import FOREIGN_MEMORIES, FORGED_IDS
from tests.support.server_fixtures import assert_clean_response


@across("id_operations", ACCESS_LOG, rows=FOREIGN_MEMORIES, argnames=("name",))
def test_another_users_id_is_answered_like_an_unknown_id(
    surface: Surface, entry: str, name: str
) -> None:
    operation = entry
    memory_id = surface.ids[name]
    before = surface.foreign_state()
    foreign = surface.refer(operation, memory_id)
    logged = surface.assert_logged(surface.logged_action(operation), foreign)
    control = surface.refer(operation, UNKNOWN_ID)
    control_entry = surface.last_entry()
    assert surface.answer_shape(foreign, memory_id) == surface.answer_shape(control, UNKNOWN_ID)
    assert entry_shape(logged, memory_id) == entry_shape(control_entry, UNKNOWN_ID)
    surface.assert_reveals_nothing(foreign, typed=[memory_id])
    assert surface.foreign_state() == before


@across("forged_id_operations", ACCESS_LOG, rows=FORGED_IDS, argnames=("template",))
def test_a_forged_id_finds_nothing(surface: Surface, entry: str, template: str) -> None:
    operation = entry
    real = surface.ids["bob_fact"]
    ref = template.format(id=real, id_but_last=real[:-1], ID=real.upper())
    shown = surface.echo(ref)  # what the surface repeats of it (an MCP tool strips ids)
    before = surface.foreign_state()
    rows_before = len(surface.memory_rows())
    result = surface.refer(operation, ref)
    assert surface.is_refusal(result), result
    logged = None
    if surface.logs_every_miss:
        logged = surface.assert_logged(surface.logged_action(operation), result)
    # Every forged mem_ id is not found; over HTTP the schema may refuse it first (422).
    if ref.startswith("mem_") and (not surface.schema_first or surface.is_not_found(result)):
        control = surface.refer(operation, UNKNOWN_ID)
        assert surface.answer_shape(result, shown) == surface.answer_shape(control, UNKNOWN_ID)
        if logged is not None:
            assert entry_shape(logged, shown) == entry_shape(surface.last_entry(), UNKNOWN_ID)
    surface.assert_reveals_nothing(result, typed=[ref, shown])
    assert len(surface.memory_rows()) == rows_before
    assert surface.foreign_state() == before


@across("fragment_routes", rows=FOREIGN_MEMORIES, argnames=("name",))
def test_another_users_fragment_id_is_answered_like_an_unknown_one(
    surface: Surface, entry: str, name: str
) -> None:
    """Fragment ids of bob's memories, given to the reading routes: what an unknown id gets."""
    route = entry
    fragments = surface.fragments_of(name)
    if "deleted" in name:  # a forgotten memory's fragments leave the indexes: its id then
        assert fragments == []
        fragments = [surface.ids[name]]
    assert fragments, name
    control = surface.fragment_request(route, UNKNOWN_FRAGMENT)
    want = surface.fragment_shape(control, UNKNOWN_FRAGMENT)
    for fragment in fragments:
        response = surface.fragment_request(route, fragment)
        got = surface.fragment_shape(response, fragment)
        assert got == want, (got, want)
        if got[0] == 200:  # an HTTP route that lists what it found: nothing
            assert got[1] == []
        surface.assert_reveals_nothing(response, typed=(fragment,))


@on(RAW_HTTP)
def test_a_batch_of_every_foreign_fragment_id_returns_nothing(surface: Http) -> None:
    ids = sorted(surface.foreign_fragments())
    assert len(ids) >= 10
    for name in (ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT):
        response = surface.raw(name).post("/v1/fragments", {"ids": ids})
        assert assert_clean_response(response) == []
