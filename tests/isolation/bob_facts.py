"""Bob's facts that change over time, for the isolation matrix's family 9
(``test_matrix_9_validity``, ``test_matrix_9_reopen``): his chain (Trondheim, superseded by
Coimbra) made once per surface's home, the validity of every memory alice does not own, and
the checks that nothing of bob's shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.isolation.surfaces import Surface
from tests.isolation.world import UNKNOWN_ID
from tests.support.memory_attacks import BOB_CANARY, BOB_HIDDEN

OSLO = f"Bob lives in Trondheim ({BOB_CANARY})"
LISBON = f"Bob moved to Coimbra ({BOB_HIDDEN})"

_chains: dict[str, tuple[str, str]] = {}


def bob_chain(surface: Surface) -> tuple[str, str]:
    """Bob's Oslo and Lisbon facts in ``surface``'s home (Oslo superseded by Lisbon), made
    once per home by the operator acting for bob."""
    if surface.name == "viewer":  # the http surface's server and home
        return bob_chain(surface.http)  # type: ignore[attr-defined]
    key = surface.name  # each other surface has a home of its own
    if key not in _chains:
        if hasattr(surface, "op"):  # http: the operator's client, acting for bob
            bob: Any = surface.op.operator().agent("bob")  # type: ignore[attr-defined]
        else:
            local = getattr(surface, "local", surface)
            bob = local.bob()
        oslo = bob.remember(OSLO, at="2023-01-10").memory_ids[0]
        lisbon = bob.remember(LISBON, at="2023-06-01").memory_ids[0]
        closed = surface.rows(
            "SELECT valid_until, superseded_by FROM memories WHERE id = ?", (oslo,)
        )
        assert closed[0][1] == lisbon, closed  # the world this family needs
        _chains[key] = (oslo, lisbon)
    return _chains[key]


def validity(surface: Surface) -> list[tuple[Any, ...]]:
    """Every memory alice does not own, with its validity and revision."""
    return surface.rows(
        "SELECT id, owner, revision, valid_from, valid_until, superseded_by FROM memories "
        "WHERE owner != 'users/alice' ORDER BY id"
    )


def assert_no_bob(
    value: object,
    surface: Surface,
    ids: Sequence[str],
    *,
    corpus: bool = False,
    typed: Sequence[str] = (),
    own_content: bool = False,
) -> None:
    """Nothing of bob's in ``value`` (``corpus``: the operator's corpus may show; ``typed``:
    what alice typed, which an error may repeat; ``own_content``: the value holds alice's
    own texts, in which other families of the shared world wrote bob's storage paths)."""
    from tests.support.server_fixtures import exposed

    text = exposed(value)
    for own in typed:
        text = text.replace(own, "")
    for secret in (*ids, BOB_CANARY, BOB_HIDDEN):
        assert secret not in text, f"{secret} leaked: {text[:400]}"
    surface.assert_reveals_nothing(value, corpus=corpus, typed=typed, own_content=own_content)


def assert_route_refuses_bobs_facts(surface: Surface, route: str) -> None:
    """``route`` given each of bob's chain's ids, by every key of alice's: a 404, worded
    exactly as for an unknown id."""
    ids = bob_chain(surface)
    for key in surface.keys:  # type: ignore[attr-defined]
        raw = surface.raw(key)  # type: ignore[attr-defined]
        unknown = raw.post(route, {"ref": UNKNOWN_ID})
        for ref in ids:
            response = raw.post(route, {"ref": ref})
            assert response.status_code == 404, response.text[:300]
            assert response.text.replace(ref, "<ref>") == unknown.text.replace(UNKNOWN_ID, "<ref>")
            assert_no_bob(response, surface, ids, typed=(ref,))
