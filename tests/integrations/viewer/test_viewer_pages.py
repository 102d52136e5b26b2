"""The viewer's reading pages over HTTP: search, timeline, notes, corpus, activity and the
live event stream.

A small keyword-only home: a vault of notes (links, an unresolved one, a backlink) whose
text, titles and aliases hold the stored-XSS corpus of ``tests/support/xss_payloads.py``, and chat
turns with those payloads. Every page must show stored text as text: escaped, never a
tag or an event handler of its own, and the highlight must not break the escaping.
The live stream runs against a real ``memex serve`` (uvicorn in a subprocess), with a
fragment added by another process while the browser listens.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from memex_core.api import Memex, make_filters
from memex_core.domain import Fragment, Provenance
from memex_viewer.highlight import mark
from tests.support.server_fixtures import keyword_only_home, served
from tests.support.viewer_fixtures import SECRET, client_for, csrf_of, post_signin, sign_in
from tests.support.xss_payloads import PAYLOADS

CHAT = "chat-xss"
BASE_TIME = 1_700_000_000.0
# What only our own markup may contain: one script element (viewer.js), no handlers.
OUR_SCRIPT = '<script src="/static/viewer.js" defer></script>'
HANDLER = re.compile(r"<[a-zA-Z][^>]*\son[a-z]+\s*=", re.IGNORECASE)


def chat_turns() -> list[Fragment]:
    turns = []
    for index, payload in enumerate(PAYLOADS):
        text = f"turn {index} pasted markup: {payload} end of turn {index}"
        turns.append(
            Fragment(
                id=f"xss{index:04d}" + "0" * 25,
                conversation_id=CHAT,
                role="user" if index % 2 == 0 else "assistant",
                content=text,
                provenance=Provenance("api", "test:xss", CHAT, str(index), BASE_TIME + index),
                timestamp=BASE_TIME + index,
                title="Pasted <b>markup</b> & friends",
            )
        )
    return turns


def write_vault(root: Path) -> Path:
    vault = root / "vault"
    vault.mkdir(parents=True)
    payloads = "\n\n".join(f"- {p}" for p in PAYLOADS)
    (vault / "Alpha.md").write_text(
        "---\naliases: [\"<img src=x onerror=alert('alias')>\"]\n---\n"
        "# Alpha\n\nAlpha links to [[Beta]] and to [[Missing note]] "
        "and [[<svg onload=alert(1)>]].\n\n"
        f"## Payloads\n\n{payloads}\n",
        encoding="utf-8",
    )
    (vault / "Beta.md").write_text(
        "# Beta\n\nBeta points back to [[Alpha]] <script>alert('backlink')</script>.\n",
        encoding="utf-8",
    )
    (vault / "<i onclick=alert(9)>Gamma.md").write_text(
        "# Gamma\n\nGamma mentions Alpha but does not link it.\n", encoding="utf-8"
    )
    return vault


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    root = tmp_path_factory.mktemp("viewer-pages")
    home = keyword_only_home(root / "home")
    memex = Memex(home)
    memex.ingest(write_vault(root))
    memex.add_fragments(chat_turns(), origin="test:xss")
    yield memex
    memex.close()


@pytest.fixture
def client(mx: Memex) -> TestClient:
    made = client_for(mx)
    sign_in(made, SECRET)
    return made


def assert_inert(body: str) -> None:
    """Nothing stored became markup: one script (ours), no event handler, no js: link, and
    no payload as written."""
    assert body.count("<script") == 1 and OUR_SCRIPT in body
    assert not HANDLER.search(body), HANDLER.search(body)
    assert 'href="javascript:' not in body.lower()
    for payload in PAYLOADS:
        if "<" in payload:
            assert payload not in body, payload
    assert SECRET not in body


def hits_of(body: str) -> list[str]:
    return re.findall(r'data-testid="hit" data-id="([^"]+)"', body)


# -- search ---------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["script alert", "onerror img", "markup", "svg onload", "amp"])
def test_search_shows_stored_markup_as_text(client: TestClient, query: str) -> None:
    response = client.get("/", params={"q": query, "mode": "keyword", "limit": 100})
    assert response.status_code == 200
    body = response.text
    assert_inert(body)
    if query != "amp":
        assert hits_of(body)
    # The conversation's title, escaped once (never twice, never raw).
    if CHAT in body:
        assert "Pasted &lt;b&gt;markup&lt;/b&gt; &amp; friends" in body


def test_highlight_marks_words_and_keeps_escaping() -> None:
    text = '<script>alert("x")</script> &amp; scripting <b>bold</b>'
    marked = str(mark(text, "script amp bold"))
    assert "<script" not in marked and "<b>" not in marked
    assert "&lt;<mark>script</mark>&gt;" in marked
    assert "<mark>scripting</mark>" in marked
    # "amp" marks the word the text holds, never the entity escaping made.
    assert "&amp;<mark>amp</mark>;" in marked  # the text's "&amp;": its & escaped, amp marked
    assert not re.search(r"&[a-z#0-9]*<mark>", marked.replace("&amp;<mark>amp</mark>;", ""))
    assert (
        str(mark("<mark>x</mark>", "mark"))
        == "&lt;<mark>mark</mark>&gt;x&lt;/<mark>mark</mark>&gt;"
    )
    assert str(mark("no terms here", "")) == "no terms here"


def test_search_hit_shows_why_it_ranked_and_links_its_timeline(client: TestClient) -> None:
    body = client.get("/", params={"q": "Beta points back", "mode": "keyword"}).text
    ids = hits_of(body)
    assert ids
    assert "<dt>Keyword rank</dt><dd>#1</dd>" in body
    assert "<dt>Score</dt>" in body and "keyword #1 on" in body
    assert f'href="/timeline/{ids[0]}?q=Beta%20points%20back"' in body
    assert "<mark>Beta</mark>" in body


def test_search_modes_and_filters(client: TestClient) -> None:
    everything = hits_of(
        client.get("/", params={"q": "turn", "mode": "keyword", "limit": 100}).text
    )
    assert len(everything) == len(PAYLOADS)
    users = client.get("/", params={"q": "turn", "mode": "keyword", "role": "user", "limit": 100})
    assert 0 < len(hits_of(users.text)) < len(everything)
    notes = client.get("/", params={"q": "Alpha", "mode": "keyword", "source": "obsidian"})
    assert hits_of(notes.text) and CHAT not in notes.text
    bad = client.get("/", params={"q": "turn", "since": "not a time"})
    assert bad.status_code == 422
    assert 'data-testid="search-error"' in bad.text
    # semantic in a keyword-only home: the page says why, as the CLI would
    semantic = client.get("/", params={"q": "turn", "mode": "semantic"})
    assert semantic.status_code in (200, 422)
    assert_inert(semantic.text)


def test_no_results_show_the_clis_guidance(client: TestClient, mx: Memex) -> None:
    query = "zyzzyva quuxbaz"
    body = client.get("/", params={"q": query, "mode": "keyword", "role": "user"}).text
    assert 'id="no-results"' in body
    found = mx.search(query, mode="keyword", filters=make_filters(role="user"))
    for line in mx.explain_empty(query, "keyword", make_filters(role="user"), found):
        assert str(escape(line)) in body


def test_time_phrase_shows_how_it_was_read(client: TestClient) -> None:
    body = client.get("/", params={"q": "turn in November 2023", "mode": "keyword"}).text
    assert 'id="search-notes"' in body
    assert "time filter:" in body and "Read time phrases" in body
    off = client.get(
        "/", params={"q": "turn in November 2023", "mode": "keyword", "searched": "1"}
    ).text  # the box unticked: no time reading
    assert "time filter:" not in off


# -- timeline -------------------------------------------------------------------------------


def test_timeline_shows_the_hit_in_place_as_text(client: TestClient) -> None:
    turns = chat_turns()
    middle = turns[len(turns) // 2]
    response = client.get(f"/timeline/{middle.id}", params={"q": "pasted"})
    assert response.status_code == 200
    body = response.text
    assert_inert(body)
    shown = re.findall(r'data-testid="turn" data-id="([^"]+)"', body)
    assert shown == [t.id for t in turns[len(turns) // 2 - 5 : len(turns) // 2 + 6]]
    current = re.findall(r'data-id="([^"]+)" data-current="true" aria-current="true"', body)
    assert current == [middle.id]
    for turn in turns[len(turns) // 2 - 5 : len(turns) // 2 + 6]:
        if turn.id != middle.id:
            assert str(escape(turn.content)) in body
    assert "<mark>pasted</mark>" in body
    # earlier and later widen the window around the same hit
    assert 'id="earlier" href="?before=15&amp;after=5' in body
    wider = client.get(f"/timeline/{middle.id}", params={"before": 15}).text
    assert len(re.findall(r'data-testid="turn"', wider)) == 21
    assert 'data-live-url="/events?after=' in body and f"conversation={CHAT}" in body
    assert 'id="live-pause" type="button" class="secondary" aria-pressed="false"' in body


def test_timeline_of_an_unknown_id_is_a_404_page(client: TestClient) -> None:
    response = client.get("/timeline/" + "f" * 32)
    assert response.status_code == 404
    assert "No such fragment" in response.text


# -- notes ----------------------------------------------------------------------------------


def note_id(client: TestClient, title: str) -> str:
    index = client.get("/notes").text
    found = re.search(
        r'<a class="note-link" href="/note/([^"]+)">' + re.escape(title) + "</a>", index
    )
    assert found, index[-2000:]
    return found.group(1)


def test_notes_index_lists_the_vault(client: TestClient) -> None:
    body = client.get("/notes").text
    assert_inert(body)
    assert body.count('class="note-link"') == 3
    assert "&lt;i onclick=alert(9)&gt;Gamma" in body
    by_name = client.get("/notes", params={"name": "Alpha"})
    assert by_name.status_code == 303 and by_name.headers["location"] == "/note/Alpha"
    assert client.get("/note/Alpha").status_code == 200


def test_note_links_backlinks_and_unresolved(client: TestClient) -> None:
    alpha = note_id(client, "Alpha")
    body = client.get(f"/note/{alpha}").text
    assert_inert(body)
    outlinks = re.findall(r'<li data-testid="outlink" data-resolved="(true|false)"', body)
    # Beta resolves; "Missing note" and the svg-named one do not (payloads may add more).
    assert outlinks.count("true") >= 1 and outlinks.count("false") >= 2
    assert "Missing note <span>(unresolved: no such note yet)</span>" in body
    assert "&lt;svg onload=alert(1)&gt;" in body
    backlinks = re.findall(r'data-testid="backlink"><a href="(/note/[^"]+)">Beta</a>', body)
    assert len(backlinks) == 1
    assert "&lt;script&gt;alert(&#39;backlink&#39;)&lt;/script&gt;" in body
    # every link on the page leads to a page that opens
    for href in set(re.findall(r'href="(/(?:note|timeline)/[^"]+)"', body)):
        assert client.get(href.replace("&amp;", "&")).status_code == 200, href
    beta = client.get(backlinks[0]).text
    assert re.search(
        r'data-testid="outlink" data-resolved="true"><a href="/note/[^"]+">Alpha</a>', beta
    )


def test_unknown_note_is_a_404_page(client: TestClient) -> None:
    response = client.get("/note/No such note <b>")
    assert response.status_code == 404
    assert "No note called" in response.text and "<b>" not in response.text.split("<main")[1]


# -- corpus and activity --------------------------------------------------------------------


def test_corpus_page_counts_and_runs_the_doctor_on_request(client: TestClient, mx: Memex) -> None:
    page = client.get("/corpus")
    assert page.status_code == 200
    stats = mx.stats()
    assert f"<td>api</td><td>{stats.by_source['api']:,}</td>" in page.text
    assert f"<td>obsidian</td><td>{stats.by_source['obsidian']:,}</td>" in page.text
    assert f"Embedding coverage: 0/{stats.fragments:,} (0%)" in page.text
    assert 'data-testid="doctor-time"' not in page.text  # only when asked
    ran = client.post("/corpus/doctor", data={"csrf_token": csrf_of(page.text)})
    assert re.search(r'data-testid="doctor-time">Checked in \d+\.\d\d s: healthy', ran.text)


def test_activity_lists_the_newest_first(client: TestClient) -> None:
    body = client.get("/activity").text
    assert_inert(body)
    ids = re.findall(r'data-testid="activity-item" data-id="([^"]+)"', body)
    assert ids[0] == chat_turns()[-1].id  # the last fragment stored
    assert 'data-live-prepend="1"' in body


def test_static_assets_are_served_and_nothing_else(client: TestClient) -> None:
    css = client.get("/static/viewer.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    js = client.get("/static/viewer.js")
    assert js.status_code == 200 and "textContent" in js.text and "innerHTML" not in js.text
    for name in ("../app.py", "..%2Fapp.py", "viewer.py", "nope.css"):
        assert client.get(f"/static/{name}").status_code == 404


def test_pages_carry_a_strict_content_security_policy(client: TestClient) -> None:
    policy = client.get("/").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy


# -- live updates through a real server -------------------------------------------------------


def read_events(
    response: httpx.Response, into: list[dict[str, object]], stop: threading.Event
) -> None:
    event = None
    try:
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "fragment":
                into.append(json.loads(line.split(":", 1)[1]))
            if stop.is_set():
                return
    except httpx.HTTPError:
        return


@pytest.mark.slow
def test_event_stream_sends_fragments_captured_after_it_opened(tmp_path: Path) -> None:
    home = keyword_only_home(tmp_path / "home")
    with Memex(home) as mx:
        mx.add_fragments(chat_turns()[:2], origin="test:xss")
        _, alice_key = mx.agent_keys().create("alice", name="alice-bot", corpus=False)
    with served(home) as service:
        operator = httpx.Client(base_url=service.url, timeout=30)
        alice = httpx.Client(base_url=service.url, timeout=30)
        assert post_signin(operator, service.admin_secret).status_code == 303
        assert post_signin(alice, alice_key).status_code == 303
        streams: list[httpx.Response] = []
        events: dict[str, list[dict[str, object]]] = {"operator": [], "alice": []}
        stop = threading.Event()
        threads = []
        for name, who in (("operator", operator), ("alice", alice)):
            response = who.send(who.build_request("GET", "/events"), stream=True)
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            streams.append(response)
            thread = threading.Thread(target=read_events, args=(response, events[name], stop))
            thread.start()
            threads.append(thread)
        # Both streams hold a cursor from before the write: /events takes it before it answers.
        # Another process writes: a corpus fragment (operator only) and a memory of bob's.
        with Memex(home) as writer:
            late = Fragment(
                id="late" + "0" * 28,
                conversation_id=CHAT,
                role="user",
                content="captured late <script>alert('live')</script>",
                provenance=Provenance("api", "test:late", CHAT, "late", BASE_TIME + 999),
                timestamp=BASE_TIME + 999,
            )
            writer.add_fragments([late], origin="test:late")
            writer.agent("bob", name="bob-bot").remember("Bob's live secret CANARY-LIVE-BOB")
            writer.agent("alice", name="alice-bot").remember("Alice's live note about kites")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            alice_texts = [str(e["text"]) for e in events["alice"]]
            if any("kites" in t for t in alice_texts) and len(events["operator"]) >= 3:
                break
            time.sleep(0.2)
        stop.set()
        for response in streams:
            response.close()
        for thread in threads:
            thread.join(timeout=10)
        operator_texts = [str(e["text"]) for e in events["operator"]]
        alice_texts = [str(e["text"]) for e in events["alice"]]
        assert any("captured late <script>" in t for t in operator_texts), operator_texts
        assert any("CANARY-LIVE-BOB" in t for t in operator_texts)
        assert any("kites" in t for t in alice_texts), alice_texts
        assert not any("CANARY-LIVE-BOB" in t or "captured late" in t for t in alice_texts)
        late_event = next(e for e in events["operator"] if e["id"] == late.id)
        assert late_event["href"] == f"/timeline/{late.id}"
        # Only the two fragments written before the streams opened are not sent.
        assert not any(e["id"] == chat_turns()[0].id for e in events["operator"])
    # Another user's new fragments never reached alice's reader: none of their ids (nor
    # the corpus fragment's) is in any entry of her access log.
    with Memex(home) as mx:
        _, rows = mx.query(
            "SELECT id FROM fragments WHERE owner != 'users/alice' AND owner != 'shared'"
        )
        foreign = {r[0] for r in rows}
        entries = mx.operator().access_log(user_id="alice", limit=1000)
    assert foreign and entries
    logged = json.dumps([getattr(e, "__dict__", str(e)) for e in entries], default=str)
    for fragment_id in foreign:
        assert fragment_id not in logged


def test_hand_edited_numbers_fall_back_to_defaults(client: TestClient) -> None:
    page = client.get("/", params={"q": "turn", "mode": "keyword", "limit": "lots"})
    assert page.status_code == 200 and len(hits_of(page.text)) == 20
    middle = chat_turns()[len(PAYLOADS) // 2]
    window = client.get(f"/timeline/{middle.id}", params={"before": "x", "after": "-3"})
    assert window.status_code == 200
    assert len(re.findall(r'data-testid="turn"', window.text)) == 6  # 5 before, none after


# -- memex view -----------------------------------------------------------------------------


def run_view(home: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "MEMEX_ADMIN_SECRET"}
    environment["MEMEX_NO_WARM"] = "1"
    command = [sys.executable, "-m", "memex_core", "--home", str(home), "view", "--no-browser"]
    return subprocess.run(
        [*command, "--port", "0"], capture_output=True, text=True, env=environment, timeout=90
    )


@pytest.mark.slow
def test_memex_view_starts_a_server_once_and_never_prints_the_secret(tmp_path: Path) -> None:
    home = keyword_only_home(tmp_path / "home")
    first = run_view(home)
    assert first.returncode == 0, first.stderr
    run_file = home / "run" / "serve.json"
    pid = json.loads(run_file.read_text())["pid"]
    try:
        url = first.stdout.strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
        secret = (home / "admin-secret").read_text().strip()
        assert str(home / "admin-secret") in first.stderr
        assert secret not in first.stdout + first.stderr
        assert f"stop it with: kill {pid}" in first.stderr
        signin = httpx.get(url + "signin", timeout=10)
        assert signin.status_code == 200 and 'id="credential"' in signin.text
        again = run_view(home)  # the same home: the running server, not a second one
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == url
        assert "already runs" in again.stderr and secret not in again.stdout + again.stderr
    finally:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and run_file.exists():
            time.sleep(0.1)
    assert not run_file.exists()  # a server that stops takes its run file with it


def test_unknown_page_is_html_for_a_browser_and_json_for_the_api(client: TestClient) -> None:
    page = client.get("/no/such/page", headers={"Accept": "text/html,*/*"})
    assert page.status_code == 404 and "No such page" in page.text
    assert page.headers["content-type"].startswith("text/html")
    assert client.get("/no/such/page").json()["error"]["code"] == "not_found"
    api = client.get("/v1/no-such-route", headers={"Accept": "text/html"})
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"


@pytest.mark.slow
def test_an_open_event_stream_does_not_hold_up_shutdown(tmp_path: Path) -> None:
    home = keyword_only_home(tmp_path / "home")
    with served(home) as service:
        browser = httpx.Client(base_url=service.url, timeout=30)
        assert post_signin(browser, service.admin_secret).status_code == 303
        stream = browser.send(browser.build_request("GET", "/events"), stream=True)
        assert stream.status_code == 200  # the stream is open: its response has begun
        started = time.monotonic()
        service.process.send_signal(signal.SIGTERM)
        # uvicorn waits for every open response; the stream ends by itself within a poll
        service.process.wait(timeout=10)
        assert time.monotonic() - started < 10
        stream.close()


def test_list_filters_take_several_values_with_commas(client: TestClient) -> None:
    def count(**params: str) -> int:
        page = client.get(
            "/", params={"q": "turn Alpha", "mode": "keyword", "limit": "100", **params}
        )
        return len(hits_of(page.text))

    chats, notes = count(source="api"), count(source="obsidian")
    assert chats and notes
    assert count(source="api, obsidian") == min(chats + notes, 100)  # 100: the page limit
    users, assistants = count(role="user"), count(role="assistant")
    assert count(role="user,assistant") == min(users + assistants, 100)


def test_activity_titles_facts_holding_the_xss_corpus_as_text(tmp_path: Path) -> None:
    """A fact's title is its first line: every payload, stored as a fact, titles its
    activity item escaped once and never becomes markup."""
    from memex_viewer.titles import title_of

    memex = Memex(keyword_only_home(tmp_path / "home"))
    try:
        alice = memex.agent("alice")
        for payload in PAYLOADS:
            alice.remember(f"{payload} stored as a fact")
        client = client_for(memex)
        sign_in(client, SECRET)
        body = client.get("/activity").text
        assert_inert(body)
        titles = re.findall(r'<h2><a href="/timeline/[^"]+">(.*?)</a></h2>', body, re.S)
        facts = memex.catalog.newest_fragments(None, 50)
        stored = memex.catalog.get_many([fid for fid, _ in facts])
        expected = [str(escape(title_of(stored[fid]))) for fid, _ in facts]
        assert titles == expected
        assert all(title and title not in ("misc", "fact") for title in titles)
    finally:
        memex.close()
