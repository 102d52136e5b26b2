"""No-results guidance: one builder (memex_core.services.guidance) for the CLI, the viewer's
search page and the API, given the caller's reach.

What must hold: for the same query and filters, ``memex keyword``/``memex dig`` print
exactly the lines the operator's search page shows; an agent key's page shows the lines of
its own view (``mx.view(user).explain_empty``), counted and probed within what the key may
read, so nothing in them (the home's size, its coverage, a filter that would let another
user's fact through) tells the agent about fragments it may not read. The counts come from
``count_matching``, checked on both catalog engines.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2", reason="the viewer needs memex[server]")
from click.testing import CliRunner
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_core.cli.app import cli
from memex_core.domain import Fragment, Provenance, SearchFilters
from tests.support.server_fixtures import keyword_only_home
from tests.support.viewer_fixtures import SECRET, client_for, sign_in

BOB_WORD = "zebrafinch"  # only in bob's memory
CHAT_WORD = "tramway"  # only in the corpus' user turns
LAST_WORD = "funicular"  # only in its last assistant turn (turns index earlier ones too)


def chat() -> list[Fragment]:
    turns = []
    for index in range(6):
        role = "user" if index % 2 == 0 else "assistant"
        text = f"{CHAT_WORD} timetable question {index}" if role == "user" else f"answer {index}"
        if index == 5:
            text = f"take the {LAST_WORD} up the hill"
        turns.append(
            Fragment(
                id=f"guid{index:04d}" + "0" * 24,
                conversation_id="chat-guidance",
                role=role,
                content=text,
                provenance=Provenance("api", "test:guidance", "chat", str(index), 1.7e9 + index),
                timestamp=1.7e9 + index,
                title="Guidance chat",
            )
        )
    return turns


class World:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.mx = Memex(home)
        self.mx.add_fragments(chat(), origin="test:guidance")
        self.mx.agent("bob").remember(f"Bob keeps a {BOB_WORD} called Pip")
        self.mx.agent("bob").remember(f"Bob feeds the {BOB_WORD} at noon", collection="pets")
        self.mx.agent("alice").remember("Alice takes the early train")
        self.mx.agent("alice").remember("Alice waters the fern", collection="pets")
        _, self.alice_key = self.mx.agent_keys().create("alice", name="alice-bot")
        self.operator = client_for(self.mx)
        sign_in(self.operator, SECRET)
        self.alice = client_for(self.mx)
        sign_in(self.alice, self.alice_key)

    def cli_lines(self, mode: str, query: str, *flags: str) -> list[str]:
        """What ``memex <mode> QUERY FLAGS`` prints on stderr after its notes."""
        result = CliRunner().invoke(
            cli, ["--home", str(self.home), mode, query, *flags], catch_exceptions=False
        )
        assert result.exit_code == 0, result.output
        assert result.stdout.strip() in ("", "No results."), result.stdout
        return [line for line in result.stderr.splitlines() if not line.startswith("Note:")]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with pytest.MonkeyPatch.context() as patch:
        for name in ("MEMEX_HOME", "MEMEX_URL", "MEMEX_API_KEY", "MEMEX_CATALOG_URL"):
            patch.delenv(name, raising=False)
        built = World(keyword_only_home(tmp_path_factory.mktemp("guidance") / "home"))
        yield built
        built.mx.close()


def page_lines(client: TestClient, **params: Any) -> list[str]:
    page = client.get("/", params=params)
    assert page.status_code == 200, page.text[-800:]
    section = page.text.split('id="no-results"', 1)
    assert len(section) == 2, "the search found something"
    items = re.findall(r"<li>(.*?)</li>", section[1].split("</section>", 1)[0], re.S)
    return [html.unescape(item) for item in items]


CASES = [
    # (CLI command, query, CLI flags, the page's parameters)
    ("keyword", "zyzzyva", (), {"mode": "keyword"}),
    ("dig", "zyzzyva", (), {"mode": "dig"}),
    ("keyword", LAST_WORD, ("--role", "user"), {"mode": "keyword", "role": "user"}),
    ("keyword", CHAT_WORD, ("--source", "chatgpt"), {"mode": "keyword", "source": "chatgpt"}),
    ("keyword", BOB_WORD, ("--role", "user"), {"mode": "keyword", "role": "user"}),
]


@pytest.mark.parametrize(("command", "query", "flags", "params"), CASES)
def test_the_cli_and_the_operators_page_say_the_same(
    world: World, command: str, query: str, flags: tuple[str, ...], params: dict[str, str]
) -> None:
    printed = world.cli_lines(command, query, *flags)
    shown = page_lines(world.operator, q=query, **params)
    assert printed == shown
    whole = world.mx.catalog.count_fragments()
    assert shown[0] == f"No results among {whole:,} fragments."
    if flags:  # every filtered case has a match without its filter, in the whole home
        assert f"The {flags[0]} filter removed every match; without it there are hits." in shown


@pytest.mark.parametrize(("command", "query", "flags", "params"), CASES)
def test_an_agents_page_says_what_its_view_says_within_its_reach(
    world: World, command: str, query: str, flags: tuple[str, ...], params: dict[str, str]
) -> None:
    mode = {"dig": "hybrid"}.get(command, command)
    options = {k: v for k, v in params.items() if k != "mode"}
    view = world.mx.view("alice", name="alice-bot")
    found = view.search(query, mode, 20, **options)
    assert not len(found)
    expected = view.explain_empty(query, mode, found, **options)
    shown = page_lines(world.alice, q=query, **params)
    assert shown == expected
    reach = world.mx.catalog.count_matching(
        SearchFilters(owners=("", "users/alice", "shared"), include_private=True)
    )[0]
    whole = world.mx.catalog.count_fragments()
    assert whole > reach
    assert shown[0] == (
        f"No results among {reach:,} fragments in user alice's memory and shared memory, "
        "and the ingested corpus."
    )
    assert not any(f"{whole:,}" in line for line in shown)


def test_an_agent_is_not_told_a_filter_hid_another_users_fact(world: World) -> None:
    """The operator's guidance says lifting --role finds bob's fact; alice's must not, or
    it would tell her that somebody's memory holds the word."""
    operator = page_lines(world.operator, q=BOB_WORD, mode="keyword", role="user")
    assert "The --role filter removed every match; without it there are hits." in operator
    alice = page_lines(world.alice, q=BOB_WORD, mode="keyword", role="user")
    assert not any("--role" in line for line in alice)
    for line in alice:
        assert BOB_WORD not in line


def test_a_collection_is_counted_within_the_reach(world: World) -> None:
    """alice's 'pets' holds her fact only; the operator's holds bob's too."""
    alice = page_lines(world.alice, q="zyzzyva", mode="keyword", collection="pets")
    assert alice[0] == (
        "No results among 1 fragments in memory collection 'pets' and the ones below it, "
        "in user alice's memory and shared memory, and the ingested corpus."
    )
    assert alice[-1] == "Leave the collection out to search everything you may read."
    operator = page_lines(world.operator, q="zyzzyva", mode="keyword", collection="pets")
    assert operator[0] == (
        "No results among 2 fragments in memory collection 'pets' and the ones below it."
    )
    nowhere = page_lines(world.alice, q="zyzzyva", mode="keyword", collection="nope")
    assert nowhere == [
        "No memory collection 'nope' or below it in user alice's memory and shared memory, "
        "and the ingested corpus: nothing to search there."
    ]


def test_an_empty_reach_says_so_without_the_homes_path(world: World, tmp_path: Path) -> None:
    _, carol_key = world.mx.agent_keys().create("carol", name="carol-bot", corpus=False)
    carol = client_for(world.mx)
    sign_in(carol, carol_key)
    lines = page_lines(carol, q="anything", mode="keyword")
    assert lines == [
        "There is nothing in user carol's memory and shared memory yet, so no search can "
        "find anything there."
    ]
    assert str(world.home) not in " ".join(lines)
    empty = Memex(keyword_only_home(tmp_path / "empty"))
    try:
        assert empty.explain_empty("x", "keyword", SearchFilters()) == [
            f"The memex at {empty.home} is empty. Add something first: "
            "memex ingest path/to/conversations.json"
        ]
    finally:
        empty.close()


# -- the count, on both catalog engines ------------------------------------------------------


def test_count_matching_counts_within_owners_and_collections(engine_memex: Memex) -> None:
    mx = engine_memex
    mx.add_fragments(chat(), origin="test:guidance")
    mx.agent("bob").remember(f"Bob keeps a {BOB_WORD}")
    mx.agent("alice").remember("Alice waters the fern", collection="pets")
    mx.agent("alice").remember("Alice's private note", private=True)
    catalog = mx.catalog
    everything = SearchFilters(include_private=True)
    assert catalog.count_matching(everything) == (
        catalog.count_fragments(),
        catalog.count_embedded(),
    )
    assert catalog.count_matching(SearchFilters(owners=("",), include_private=True))[0] == 6
    alice = SearchFilters(owners=("users/alice",), include_private=True)
    assert catalog.count_matching(alice)[0] == 2
    assert catalog.count_matching(SearchFilters(owners=("users/alice",)))[0] == 1  # private out
    pets = SearchFilters(owners=("users/alice", "users/bob"), collections=("pets",))
    assert catalog.count_matching(pets)[0] == 1
    fragments, embedded = catalog.count_matching(SearchFilters(roles=("user",)))
    assert fragments == 3 and embedded == 3  # the hashing double embeds at ingest


# -- the CLI against a memex serve: the server's guidance for the credentials' reach -----------


def test_the_cli_on_a_server_prints_what_the_page_shows(world: World) -> None:
    from tests.support.server_fixtures import served

    with served(world.home) as service:
        for command, query, flags, params in CASES:
            for credential, page in (
                (world.alice_key, world.alice),
                (service.admin_secret, world.operator),
            ):
                result = CliRunner().invoke(
                    cli,
                    [command, query, *flags],
                    env={"MEMEX_URL": service.url, "MEMEX_API_KEY": credential},
                    catch_exceptions=False,
                )
                assert result.exit_code == 0, result.output
                printed = [
                    line
                    for line in result.stderr.splitlines()
                    if not line.startswith(("Note:", "memex: using"))
                ]
                assert printed == page_lines(page, q=query, **params), (command, query, flags)
