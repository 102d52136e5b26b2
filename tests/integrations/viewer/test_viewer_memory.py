"""The viewer's memory pages over HTTP: the collections tree and records, a record's history as
escaped diffs, forget/undelete/restore behind a confirmation and the CSRF token, the access
log with its filters, the dream plan shown before it is applied, and an agent key's session
confined to its user exactly as the API confines the key.

The app is the real ``memex serve`` app (``memex_server.app.build_app``) driven by
Starlette's TestClient; memory is written through the Python handles, and what the pages
did is checked through them too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_server.app import build_app
from memex_viewer import memory_dream
from memex_viewer.memory_views import collection_tree, diff_counts, diff_markup
from tests.support.component_doubles import fast_memex
from tests.support.viewer_fixtures import post_signin

SECRET = "operator-secret-for-viewer-tests"
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass
class Home:
    mx: Memex
    app: object
    alice_key: str
    bob_key: str
    alice_tea: str  # alice's fact in acme:support:alice
    alice_file: str  # users/alice/notes.md, three revisions
    bob_jazz: str  # bob's fact in acme:sales


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Home]:
    mx = fast_memex(tmp_path / "home")
    alice = mx.agent("alice", name="seed")
    tea = alice.remember("Alice prefers green tea", collection="acme:support:alice").memory_ids[0]
    operator = mx.operator()
    notes = operator.write("users/alice/notes.md", "Alice works on the billing service.")
    operator.write("users/alice/notes.md", "Alice works on the payments service now.")
    operator.write("users/alice/notes.md", "Alice leads the payments service team.")
    jazz = mx.agent("bob").remember("Bob likes jazz", collection="acme:sales").memory_ids[0]
    keys = mx.agent_keys()
    _, alice_key = keys.create("alice", name="support-bot")
    _, bob_key = keys.create("bob", name="bob-bot")
    app = build_app(mx, admin_secret=SECRET)
    yield Home(mx, app, alice_key, bob_key, tea, notes.id, jazz)
    mx.close()


def signed_in(home: Home, credential: str) -> TestClient:
    client = TestClient(home.app)  # type: ignore[arg-type]
    answer = post_signin(client, credential)
    assert answer.status_code == 303, answer.text[:300]
    return client


@pytest.fixture
def operator(home: Home) -> TestClient:
    return signed_in(home, SECRET)


@pytest.fixture
def alice(home: Home) -> TestClient:
    return signed_in(home, home.alice_key)


def csrf_of(client: TestClient, path: str = "/memory") -> str:
    page = client.get(path)
    assert page.status_code == 200, page.text[:300]
    found = CSRF.search(page.text)
    assert found, "no csrf_token field on " + path
    return found.group(1)


def record_ids(html: str) -> list[str]:
    return re.findall(r'data-testid="record" data-id="([^"]+)"', html)


# -- pure helpers ------------------------------------------------------------------------------


def test_collection_tree_nests_names_by_colon() -> None:
    tree = collection_tree(["company:engineering:alice", "company:sales", "travel", "company"])
    assert [n.name for n in tree] == ["company", "travel"]
    company = tree[0]
    assert company.exists and [c.name for c in company.children] == [
        "company:engineering",
        "company:sales",
    ]
    engineering = company.children[0]
    assert not engineering.exists
    assert [c.label for c in engineering.children] == ["alice"]
    assert company.contains("company:engineering:alice") and not company.contains("companyx")


def test_diff_escapes_stored_text_before_marking() -> None:
    html = str(diff_markup("keep <b>old</b> words", "keep <i>new</i> words"))
    assert "<b>" not in html and "<i>" not in html
    assert "&lt;b&gt;old&lt;/b&gt;" in html and "&lt;i&gt;new&lt;/i&gt;" in html
    assert html.startswith("keep ") and html.endswith(" words")
    assert "<del>&lt;b&gt;old&lt;/b&gt;</del><ins>&lt;i&gt;new&lt;/i&gt;</ins>" in html
    # a stored closing tag of the marks themselves cannot end a mark early
    assert str(diff_markup("a", "a </ins><script>")) == "a<ins> &lt;/ins&gt;&lt;script&gt;</ins>"
    assert diff_counts("one two three", "one 2 three four") == (2, 1)


def test_long_texts_are_diffed_by_line() -> None:
    old = "\n".join(f"line {i} of the file" for i in range(2000))
    new = old.replace("line 1000 of", "line one thousand of")
    html = str(diff_markup(old, new))
    assert "<del>line 1000 of the file\n</del><ins>line one thousand of the file\n</ins>" in html


# -- the tree and the records ------------------------------------------------------------------


def test_operator_sees_every_users_tree_and_records(home: Home, operator: TestClient) -> None:
    page = operator.get("/memory").text
    for name in ("acme", "acme:support", "acme:support:alice", "acme:sales"):
        assert f'data-collection="{name}"' in page
    assert '<details class="tree-node" data-collection="acme:support"' in page
    assert set(record_ids(page)) == {home.alice_tea, home.alice_file, home.bob_jazz}
    assert '<option value="alice"' in page and '<option value="bob"' in page
    row = page[page.index(f'data-id="{home.alice_file}"') :]
    assert '<td class="kind">file</td>' in row[:800]
    assert '<td class="revision">3</td>' in row[:800]
    assert '<span class="status-active">active</span>' in row[:800]

    only_bob = operator.get("/memory", params={"user": "bob"}).text
    assert record_ids(only_bob) == [home.bob_jazz]
    assert 'data-collection="acme:support"' not in only_bob

    chosen = operator.get("/memory", params={"collection": "acme:support"}).text
    assert record_ids(chosen) == [home.alice_tea]
    # the path to the chosen collection is open, the rest closed
    assert re.search(r'data-collection="acme:support"\s+open', chosen)
    assert re.search(r'data-collection="acme"\s+open', chosen)
    assert 'aria-current="true">acme:support' in chosen


def test_records_page_shows_forgotten_status_and_pages(home: Home, operator: TestClient) -> None:
    home.mx.operator().forget(home.bob_jazz)
    page = operator.get("/memory", params={"user": "bob"}).text
    assert '<span class="status-forgotten">forgotten</span>' in page
    bob = home.mx.agent("bob")
    for i in range(55):
        bob.remember(f"Bob fact number {i} about records", collection="many")
    first = operator.get("/memory", params={"collection": "many"}).text
    assert len(record_ids(first)) == 50 and 'id="records-next"' in first
    second = operator.get("/memory", params={"collection": "many", "offset": "50"}).text
    assert len(record_ids(second)) == 5 and 'id="records-previous"' in second
    assert not set(record_ids(first)) & set(record_ids(second))


def test_agent_session_sees_its_user_and_shared_memory(home: Home, alice: TestClient) -> None:
    handbook = home.mx.operator().write("shared/handbook.md", "Be kind.", collection="acme")
    page = alice.get("/memory").text
    assert set(record_ids(page)) == {home.alice_tea, home.alice_file, handbook.id}
    assert "shared/handbook.md" in page
    assert alice.get(f"/memory/{handbook.id}").status_code == 200
    # shared memory is read-only for agents (MEMEX_SHARED_WRITE_MODE unset), as on the API
    refused = alice.post(
        f"/memory/{handbook.id}/forget", data={"csrf_token": csrf_of(alice), "confirm": "yes"}
    )
    assert refused.status_code == 403 and "read-only" in refused.text
    assert home.mx.operator().get(handbook.id).status == "active"
    assert 'id="user-picker"' not in page and "acme:sales" not in page
    assert set(record_ids(alice.get("/memory", params={"user": "bob"}).text)) == {
        home.alice_tea,
        home.alice_file,
        handbook.id,
    }
    own = alice.get(f"/memory/{home.alice_file}").text
    assert "users/alice" not in own and "user/notes.md" in own  # the agent's virtual path
    assert 'id="history-agent"' in own and 'id="history"' not in own
    # another user's record answers exactly like one that does not exist
    theirs = alice.get(f"/memory/{home.bob_jazz}")
    missing = alice.get("/memory/mem_00000000000000000000")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.text.replace(home.bob_jazz, "X") == missing.text.replace(
        "mem_00000000000000000000", "X"
    )
    assert "jazz" not in theirs.text
    assert alice.get(f"/memory/{home.bob_jazz}/forget").status_code == 404
    token = csrf_of(alice)
    for action in ("forget", "undelete"):
        answer = alice.post(
            f"/memory/{home.bob_jazz}/{action}", data={"csrf_token": token, "confirm": "yes"}
        )
        assert answer.status_code == 404
    assert home.mx.operator().get(home.bob_jazz).status == "active"
    # operator-only pages and actions
    assert alice.get("/memory/log").status_code == 403
    restore = alice.get(f"/memory/{home.alice_file}/restore", params={"revision": "1"})
    assert restore.status_code == 403
    answer = alice.post(
        f"/memory/{home.alice_file}/restore",
        data={"csrf_token": token, "confirm": "yes", "revision": "1"},
    )
    assert answer.status_code == 403
    assert home.mx.operator().get(home.alice_file).revision == 3


def test_a_bound_key_sees_only_its_collection(home: Home) -> None:
    _, key = home.mx.agent_keys().create("alice", name="acme-bot", collection="acme")
    client = signed_in(home, key)
    page = client.get("/memory").text
    assert record_ids(page) == [home.alice_tea]
    assert client.get(f"/memory/{home.alice_file}").status_code == 404


# -- history and diffs -------------------------------------------------------------------------


def test_history_shows_each_revision_against_the_one_before(
    home: Home, operator: TestClient
) -> None:
    page = operator.get(f"/memory/{home.alice_file}").text
    revisions = re.findall(r'data-testid="revision" data-revision="(\d+)"', page)
    assert revisions == ["3", "2", "1"]
    three = page[page.index('data-revision="3"') : page.index('data-revision="2"')]
    assert "Alice <del>works on</del><ins>leads</ins> the payments service" in three
    assert "<del>now.</del><ins>team.</ins>" in three
    two = page[page.index('data-revision="2"') : page.index('data-revision="1"')]
    assert "<del>billing</del><ins>payments</ins>" in two
    one = page[page.index('data-revision="1"') :]
    assert '<pre class="whole memory-text">Alice works on the billing service.</pre>' in one
    # any two revisions
    compared = operator.get(f"/memory/{home.alice_file}", params={"a": "1", "b": "3"}).text
    assert re.findall(r'data-testid="revision" data-revision="(\d+)"', compared) == ["3"]
    assert "Against revision 1" in compared
    assert (
        "Alice <del>works on</del><ins>leads</ins> the <del>billing</del><ins>payments</ins> "
        "<del>service.</del><ins>service team.</ins>"
    ) in compared


# -- writes: confirmation, CSRF, the access log -------------------------------------------------


def test_forget_needs_the_token_and_a_confirmation(home: Home, operator: TestClient) -> None:
    url = f"/memory/{home.alice_tea}/forget"
    confirm = operator.get(url).text
    assert 'id="confirm-form"' in confirm and 'name="confirm" value="yes"' in confirm
    token = CSRF.search(confirm).group(1)  # type: ignore[union-attr]
    assert operator.post(url, data={"confirm": "yes"}).status_code == 403
    assert operator.post(url, data={"confirm": "yes", "csrf_token": "forged"}).status_code == 403
    asked = operator.post(url, data={"csrf_token": token})
    assert asked.status_code == 200 and 'data-testid="confirm-needed"' in asked.text
    assert home.mx.operator().get(home.alice_tea).status == "active"

    done = operator.post(
        url,
        data={"csrf_token": token, "confirm": "yes", "reason": "user asked"},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert done.headers["location"] == f"/memory/{home.alice_tea}?done=forgotten"
    page = operator.get(done.headers["location"]).text
    assert 'data-testid="flash"' in page and '<dd class="status">forgotten</dd>' in page
    assert 'id="undelete-link"' in page
    assert home.mx.operator().get(home.alice_tea).status == "deleted"
    assert home.mx.operator().history(home.alice_tea)[-1].reason == "user asked"
    entry = home.mx.operator().access_log(action="forget", limit=1)[0]
    assert (entry.actor, entry.actor_kind, entry.target) == ("operator", "operator", home.alice_tea)

    undone = operator.post(
        f"/memory/{home.alice_tea}/undelete", data={"csrf_token": token, "confirm": "yes"}
    )
    assert undone.status_code == 200 and "Brought back" in undone.text
    assert home.mx.operator().get(home.alice_tea).status == "active"


def test_restore_a_revision_through_the_pages(home: Home, operator: TestClient) -> None:
    url = f"/memory/{home.alice_file}/restore"
    confirm = operator.get(url, params={"revision": "1"})
    assert "Alice works on the billing service." in confirm.text
    assert 'name="revision" value="1"' in confirm.text
    token = CSRF.search(confirm.text).group(1)  # type: ignore[union-attr]
    assert operator.post(url, data={"revision": "1", "confirm": "yes"}).status_code == 403
    assert home.mx.operator().get(home.alice_file).revision == 3
    assert (
        operator.post(
            url, data={"csrf_token": token, "revision": "9", "confirm": "yes"}
        ).status_code
        == 404
    )
    page = operator.post(url, data={"csrf_token": token, "revision": "1", "confirm": "yes"}).text
    assert "Restored" in page
    record = home.mx.operator().get(home.alice_file)
    assert (record.revision, record.content) == (4, "Alice works on the billing service.")
    assert home.mx.operator().history(home.alice_file)[-1].reason == "restored revision 1"
    assert home.mx.operator().access_log(action="restore", limit=1)[0].detail["revision"] == 1


def test_agent_writes_are_logged_under_the_keys_name(home: Home, alice: TestClient) -> None:
    token = csrf_of(alice)
    answer = alice.post(
        f"/memory/{home.alice_tea}/forget", data={"csrf_token": token, "confirm": "yes"}
    )
    assert answer.status_code == 200
    assert home.mx.operator().get(home.alice_tea).status == "deleted"
    entry = home.mx.operator().access_log(action="forget", limit=1)[0]
    assert (entry.actor, entry.actor_kind, entry.user_id) == ("support-bot", "agent", "alice")
    assert home.mx.operator().history(home.alice_tea)[-1].actor == "agent:support-bot"


# -- the access log ----------------------------------------------------------------------------


def test_access_log_filters_and_pages(home: Home, operator: TestClient) -> None:
    bob = home.mx.agent("bob", name="bob-bot")
    for _ in range(60):
        bob.get(home.bob_jazz)
    bob.get(home.bob_jazz, tool_call_id="call-777")
    page = operator.get("/memory/log").text
    assert page.count('data-testid="log-entry"') == 50 and 'id="log-next"' in page
    older = re.search(r'id="log-next" href="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    second = operator.get(older.replace("&amp;", "&")).text
    assert 'data-testid="log-entry"' in second and 'id="log-previous"' in second

    by_call = operator.get("/memory/log", params={"tool_call_id": "call-777"}).text
    assert by_call.count('data-testid="log-entry"') == 1
    assert '<td class="actor">bob-bot' in by_call
    by_actor = operator.get("/memory/log", params={"actor": "bob-bot", "action": "read"}).text
    assert by_actor.count('data-testid="log-entry"') == 50  # the first page of 61
    by_user = operator.get("/memory/log", params={"user": "alice", "action": "write"}).text
    assert by_user.count('data-testid="log-entry"') == 3
    none = operator.get("/memory/log", params={"actor": "nobody"}).text
    assert 'id="no-entries"' in none
    future = operator.get("/memory/log", params={"since": "2999-01-01"}).text
    assert 'id="no-entries"' in future
    bad = operator.get("/memory/log", params={"since": "last tuesday-ish"}).text
    assert 'data-testid="log-error"' in bad and "7d" in bad


def test_the_log_shows_the_viewers_own_actions(home: Home, alice: TestClient) -> None:
    alice.get(f"/memory/{home.alice_tea}")
    operator = signed_in(home, SECRET)
    page = operator.get("/memory/log", params={"actor": "support-bot"}).text
    assert '<td class="action">read</td>' in page and home.alice_tea in page


# -- dream ---------------------------------------------------------------------------------------


def seats(home: Home) -> tuple[str, str]:
    alice = home.mx.agent("alice")
    first = alice.remember("Alice prefers window seats on long flights", collection="travel")
    second = alice.remember("Alice prefers a window seat on long flights", collection="travel")
    return first.memory_ids[0], second.memory_ids[0]


def test_dream_plan_is_shown_then_applied(home: Home, alice: TestClient) -> None:
    first, second = seats(home)
    page = alice.get("/memory/dream", params={"plan": "1", "collection": "travel"}).text
    assert '<tr data-testid="decision" data-action="NONE">' in page
    assert '<tr data-testid="decision" data-action="ADD">' in page
    assert "same fact as" in page  # the reason
    assert home.mx.operator().get(second).status == "active"  # nothing written yet
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    token = CSRF.search(page).group(1)  # type: ignore[union-attr]

    assert alice.post("/memory/dream/apply", data={"digest": digest}).status_code == 403
    assert home.mx.operator().get(second).status == "active"
    done = alice.post(
        "/memory/dream/apply",
        data={"csrf_token": token, "digest": digest, "collection": "travel"},
    )
    assert done.status_code == 200 and 'data-testid="flash"' in done.text
    assert 'id="dream-applied"' in done.text
    assert home.mx.operator().get(second).status == "invalidated"
    assert home.mx.operator().get(first).status == "active"
    entry = home.mx.operator().access_log(action="dream", limit=1)[0]
    assert (entry.actor, entry.detail.get("plan")) == ("support-bot", digest)


def test_dream_apply_refuses_when_memory_changed(home: Home, alice: TestClient) -> None:
    _, second = seats(home)
    page = alice.get("/memory/dream", params={"plan": "1", "collection": "travel"}).text
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    token = CSRF.search(page).group(1)  # type: ignore[union-attr]
    home.mx.agent("alice").remember("Alice flies to Lisbon in May", collection="travel")
    refused = alice.post(
        "/memory/dream/apply", data={"csrf_token": token, "digest": digest, "collection": "travel"}
    )
    assert refused.status_code == 409
    assert 'data-testid="dream-notice"' in refused.text and "Nothing was applied" in refused.text
    assert "Lisbon" in refused.text  # the new plan, to review
    assert home.mx.operator().get(second).status == "active"


def test_dream_plan_made_again_after_a_restart_applies_if_unchanged(
    home: Home, alice: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, second = seats(home)
    page = alice.get("/memory/dream", params={"plan": "1", "collection": "travel"}).text
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    token = CSRF.search(page).group(1)  # type: ignore[union-attr]
    monkeypatch.setattr(memory_dream, "shelf", memory_dream.PlanShelf())  # a restart
    done = alice.post(
        "/memory/dream/apply", data={"csrf_token": token, "digest": digest, "collection": "travel"}
    )
    assert done.status_code == 200 and 'data-testid="flash"' in done.text
    assert home.mx.operator().get(second).status == "invalidated"


def test_another_session_cannot_apply_a_plan_it_was_not_shown(
    home: Home, alice: TestClient
) -> None:
    _, second = seats(home)
    page = alice.get("/memory/dream", params={"plan": "1", "collection": "travel"}).text
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    bob = signed_in(home, home.bob_key)
    refused = bob.post(
        "/memory/dream/apply",
        data={"csrf_token": csrf_of(bob), "digest": digest, "collection": "travel"},
    )
    assert refused.status_code == 409  # bob's own plan of travel differs (he has none)
    assert home.mx.operator().get(second).status == "active"


# -- stored markup is text, secrets never shown --------------------------------------------------


def test_stored_html_and_script_are_text_on_every_memory_page(
    home: Home, operator: TestClient
) -> None:
    ops = home.mx.operator()
    hostile = ops.write("users/alice/xss.md", f"first {XSS} version")
    ops.write("users/alice/xss.md", f"second {XSS} version </ins></del>")
    fact = home.mx.agent("alice").remember(f"Alice said {XSS}", collection="travel").memory_ids[0]
    home.mx.agent("alice").remember(f"Alice said {XSS} again", collection="travel")
    home.mx.agent("alice").search(XSS)  # the query lands in the log's target
    pages = [
        operator.get("/memory").text,
        operator.get("/memory", params={"collection": "travel"}).text,
        operator.get(f"/memory/{hostile.id}").text,
        operator.get(f"/memory/{hostile.id}", params={"a": "1", "b": "2"}).text,
        operator.get(f"/memory/{hostile.id}/forget").text,
        operator.get(f"/memory/{hostile.id}/restore", params={"revision": "1"}).text,
        operator.get(f"/memory/{fact}").text,
        operator.get("/memory/log").text,
        operator.get("/memory/dream", params={"plan": "1", "collection": "travel"}).text,
    ]
    for page in pages:
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(" in page
    diff = pages[3]
    assert "&lt;/ins&gt;&lt;/del&gt;" in diff  # stored closing marks stay text
    assert diff.count("<ins>") == diff.count("</ins>")
    assert diff.count("<del>") == diff.count("</del>")


def test_no_secret_or_key_in_any_memory_page(home: Home, operator: TestClient) -> None:
    alice = signed_in(home, home.alice_key)
    for client in (operator, alice):
        for path in ("/memory", f"/memory/{home.alice_tea}", "/memory/dream?plan=1"):
            body = client.get(path).text
            assert SECRET not in body and home.alice_key not in body
            assert home.bob_key not in body
    log = operator.get("/memory/log").text
    assert SECRET not in log and home.alice_key not in log


def test_signed_out_memory_pages_send_to_sign_in(home: Home) -> None:
    client = TestClient(home.app)  # type: ignore[arg-type]
    for path in ("/memory", f"/memory/{home.alice_tea}", "/memory/log", "/memory/dream"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"].startswith("/signin")
    answer = client.post(f"/memory/{home.alice_tea}/forget", data={"confirm": "yes"})
    assert answer.status_code in (303, 200) and "memex_session" not in answer.text
    assert home.mx.operator().get(home.alice_tea).status == "active"


# -- facts on /activity and in search hits ------------------------------------------------------


def test_activity_titles_a_fact_by_its_text_escaped(home: Home, operator: TestClient) -> None:
    long = "Alice deploys the billing service " + "only on Friday afternoons " * 6
    home.mx.agent("alice").remember(long, collection="acme")
    home.mx.agent("alice").remember(f"{XSS} is what the pen test pasted", collection="acme")
    body = operator.get("/activity").text
    titles = re.findall(r'<h2><a href="/timeline/[^"]+">([^<]*)</a></h2>', body)
    assert titles[:2] == [
        # Escaped once by the template; the fact's first words, not its kind ("misc").
        "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; is"
        " what the pen test…",
        "Alice deploys the billing service only on Friday afternoons only on Friday…",
    ]
    assert "Alice prefers green tea" in titles
    assert "<script>alert" not in body and "onerror=alert(1)>" not in body
    # A memory file keeps its file name.
    assert "notes.md" in titles
    hits = operator.get("/", params={"q": "green tea", "mode": "keyword"}).text
    assert '">Alice prefers green tea</a></h3>' in hits


def test_a_fact_ended_by_its_own_words_shows_so(home: Home, operator: TestClient) -> None:
    told = home.mx.agent("alice").remember("Alice lived in Rome in 2019", at="2024-03-01")
    rome = told.memory_ids[0]
    page = operator.get(f"/memory/{rome}").text
    assert 'datetime="2020-01-01T00:00:00+00:00"' in page and "(by its own words)" in page
    assert page.count("held until 2020-01-01 (by its own words)") == 1  # the reason, once
    assert "superseded by" not in page and "None" not in page
    confirm = operator.get(f"/memory/{rome}/reopen").text
    assert "Its own words say it held until" in confirm and "A later fact" not in confirm


def test_the_timeline_shows_a_fact_ended_by_its_own_words(home: Home, operator: TestClient) -> None:
    alice = home.mx.agent("alice")
    paris = alice.remember("Alice lives in Paris", at="2018-01-01").memory_ids[0]
    rome = alice.remember("Alice lived in Rome in 2019", at="2024-03-01").memory_ids[0]
    page = operator.get(f"/memory/{rome}").text
    timeline = page[page.index('id="fact-timeline"') :]
    assert timeline.index(paris) < timeline.index(rome)  # Paris, superseded by Rome, then Rome
    assert f'class="superseded-by" href="/memory/{rome}"' in timeline
    assert '<span class="superseded-mark">ended</span> (by its own words)' in timeline


def test_a_fact_that_names_only_its_end_shows_its_start_unknown(
    home: Home, operator: TestClient
) -> None:
    alice = home.mx.agent("alice")
    said = "Until mid-2023 we were using PagerDuty for paging"
    paging = alice.remember(said, at="2024-03-02").memory_ids[0]
    page = operator.get(f"/memory/{paging}").text
    facts = page[page.index('id="record-facts"') : page.index("</dl>")]
    assert 'class="valid-from"><time datetime="1970-01-01T00:00:00+00:00">start unknown' in facts
    assert 'datetime="2023-07-01T00:00:00+00:00"' in facts and "1970-01-01 00:00" not in page
