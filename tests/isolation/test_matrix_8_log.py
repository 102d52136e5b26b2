"""Isolation matrix, family 7: the access log. Every refused attempt is logged once with its
outcome, and no entry of alice's agents carries bob's content. This module runs last (the
matrix's modules are numbered): the final check reads everything alice's agents did on the
session's homes before it."""

from __future__ import annotations

import json

from memex_core.errors import MemexError
from tests.isolation.surfaces import (
    ACCESS_LOG,
    OTHER_USERS,
    InProcess,
    Surface,
    expected_outcome,
    on,
)
from tests.isolation.world import ALICE
from tests.support.memory_attacks import BOB_HIDDEN, FOREIGN_MEMORIES, PATH_ATTACKS


@on(OTHER_USERS)
def test_every_refused_attempt_is_logged_once_with_its_outcome(surface: InProcess) -> None:
    alice = surface.mx.agent(ALICE, name="alice-audit")
    start = surface.mx.catalog.access_log(limit=1)[0].id
    attempts: list[tuple[str, str, object]] = []
    for param in PATH_ATTACKS:
        path, inside = param.values
        if not inside:
            attempts.append(("read", str(path), surface.attempt(alice, "get", path)))
    for name in FOREIGN_MEMORIES:
        ref = surface.ids[name]
        attempts.append(
            ("forget", ref, surface.attempt(alice, "forget", ref, tool_call_id=f"call-{name}"))
        )
    attempts.append(("write", "shared/x.md", surface.attempt(alice, "write", "shared/x.md")))
    try:
        alice.remember("x", user_id="bob")
    except MemexError as exc:
        attempts.append(("remember", "", exc))
    entries = list(reversed(surface.mx.catalog.access_log(limit=10_000)))
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


@on(ACCESS_LOG)
def test_no_log_entry_of_alices_carries_bobs_content(surface: Surface) -> None:
    """Runs after the attacks of the matrix (same session's homes): everything alice's
    agents did. (The vocabulary probes, which type bob's hidden word, are not alice's.)"""
    entries = surface.log()
    mine = [e for e in entries if e["actor"].startswith("alice")]
    assert mine
    if surface.name == "http":
        assert len(mine) > 300
    for entry in mine:
        text = json.dumps(entry, default=str, ensure_ascii=False)
        assert BOB_HIDDEN not in text, entry  # (alice types the other canaries herself)
        assert entry["user_id"] == ALICE, entry
        for memory_id in surface.foreign_ids():
            if memory_id in text:  # only where alice typed it herself
                assert memory_id in entry["target"] or memory_id in json.dumps(
                    entry["detail"].get("error", "")
                ), entry
    # nothing in the log names bob as a user alice's agents acted for
    bob = surface.log(user_id="bob")
    assert not [e for e in bob if e["actor"].startswith("alice")]
