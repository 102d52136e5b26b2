"""The viewer's credentials, sessions and CSRF, over HTTP (the FastAPI TestClient).

The home is the isolation home of ``tests/isolation/world.py`` (bob's and carol's
memories with their canaries, the operator's corpus fragment). What must hold: the viewer
takes exactly the API's credentials; the session cookie is HttpOnly, SameSite=Strict,
signed, and dies with a revoked key, a changed secret or a sign-out (on the server: a copy
of the cookie stops working too); every writing form needs this
session's token; an agent session reaches nothing of another user's and not the corpus
page; no page shows the secret, a key or the cookie.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_viewer import sessions
from tests.support.memory_attacks import BOB_CANARY, BOB_HIDDEN, CAROL_CANARY, FOREIGN_MARKERS
from tests.support.server_fixtures import build_isolation_home
from tests.support.viewer_fixtures import SECRET, client_for, csrf_of, post_signin, sign_in

ALICE_BOT = "alice-bot"
UNKNOWN_FRAGMENT = "0" * 32


class World:
    def __init__(self, home: Path, ids: dict[str, str]) -> None:
        self.home = home
        self.ids = ids
        self.mx = Memex(home)
        # corpus=False: the corpus canary must stay out of alice's pages too.
        _, self.alice_key = self.mx.agent_keys().create("alice", name=ALICE_BOT, corpus=False)
        self.bodies: list[str] = []  # every page body the tests saw, checked for secrets

    def client(self, **kwargs: Any) -> TestClient:
        return client_for(self.mx, **kwargs)

    def fragments_of(self, memory: str) -> list[str]:
        _, rows = self.mx.query(
            f"SELECT id FROM fragments WHERE conversation_id = '{self.ids[memory]}'"
        )
        return [r[0] for r in rows]

    def seen(self, text: str) -> str:
        self.bodies.append(text)
        return text


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    home, ids = build_isolation_home(tmp_path_factory.mktemp("viewer") / "home")
    built = World(home, ids)
    yield built
    # No page, whatever it showed, held the operator secret or an agent key.
    for body in built.bodies:
        assert SECRET not in body
        assert built.alice_key not in body
    built.mx.close()


def cookie_header(response: Any) -> str:
    cookies = [c for c in response.headers.get_list("set-cookie") if c.startswith("memex_session=")]
    assert len(cookies) == 1, response.headers
    return cookies[0]


def test_pages_need_a_session(world: World) -> None:
    client = world.client()
    for path in ("/", "/timeline/abc", "/notes", "/corpus", "/activity", "/events"):
        response = client.get(path)
        assert response.status_code == 303, path
        assert response.headers["location"].startswith("/signin?next=")
    page = client.get("/signin")
    assert page.status_code == 200
    assert 'id="credential"' in world.seen(page.text)


def test_operator_secret_signs_in_with_a_strict_cookie(world: World) -> None:
    client = world.client()
    response = post_signin(client, SECRET, next="/?q=tea")
    assert response.status_code == 303
    assert response.headers["location"] == "/?q=tea"
    header = cookie_header(response).lower()
    assert "httponly" in header
    assert "samesite=strict" in header
    assert "path=/" in header
    assert "secure" not in header  # plain http: a Secure cookie would never come back
    assert SECRET not in cookie_header(response)
    page = client.get("/")
    assert page.status_code == 200
    assert "Signed in as operator" in world.seen(page.text)


def test_cookie_is_secure_over_https(world: World) -> None:
    client = world.client(https=True)
    header = cookie_header(sign_in(client, SECRET)).lower()
    assert "; secure" in header


def test_agent_key_signs_in_as_its_user(world: World) -> None:
    client = world.client()
    response = sign_in(client, world.alice_key)
    assert world.alice_key not in cookie_header(response)
    page = world.seen(client.get("/").text)
    assert f"agent key {ALICE_BOT} (user alice)" in page
    assert 'data-testid="nav-corpus"' not in page  # not offered to an agent


@pytest.mark.parametrize(
    "credential",
    [
        "wrong",
        "not-the-operator-secret-at-all-0123",
        "mxk_000000000000_" + "A" * 43,  # a well-formed key that does not exist
        SECRET + "x",
        "",
    ],
)
def test_bad_credentials_are_refused_without_a_cookie(world: World, credential: str) -> None:
    client = world.client()
    response = post_signin(client, credential)
    assert response.status_code == 401
    # Only the fresh sign-in form's token cookie, never a session.
    assert "memex_session" not in response.headers.get("set-cookie", "")
    assert 'data-testid="signin-error"' in world.seen(response.text)
    assert client.get("/").status_code == 303


def test_a_revoked_key_signs_its_sessions_out(world: World) -> None:
    _, token = world.mx.agent_keys().create("alice", name="short-lived", corpus=False)
    client = world.client()
    sign_in(client, token)
    assert client.get("/").status_code == 200
    world.mx.agent_keys().revoke("short-lived")
    response = client.get("/")
    assert response.status_code == 303
    assert response.headers["location"].startswith("/signin")


def test_forged_tampered_and_expired_cookies_are_refused(world: World) -> None:
    key = sessions.signing_key(SECRET)
    operator = sessions.new_session(sessions.OPERATOR, None)
    good = sessions.encode(operator, key)
    payload, signature = good.split(".")
    agent_body = sessions.encode(sessions.new_session(sessions.AGENT, "abc"), key).split(".")[0]
    expired = sessions.encode(sessions.new_session(sessions.OPERATOR, None, now=0.0), key)
    other_secret = sessions.encode(operator, sessions.signing_key("another-secret-0123456789"))
    for value in (
        f"{agent_body}.{signature}",  # another payload under this signature
        f"{payload}.{signature[:-2]}AA",
        expired,
        other_secret,
        "garbage",
        f"{payload}.",
    ):
        client = world.client()
        client.cookies.set(sessions.COOKIE_NAME, value)
        assert client.get("/").status_code == 303, value
    client = world.client()
    client.cookies.set(sessions.COOKIE_NAME, good)
    assert client.get("/").status_code == 200


def test_sessions_survive_a_restart_with_the_same_secret_only(world: World) -> None:
    first = world.client()
    sign_in(first, SECRET)
    value = first.cookies[sessions.COOKIE_NAME]
    replica = world.client()  # another app (a replica, or a restart) with the same secret
    replica.cookies.set(sessions.COOKIE_NAME, value)
    assert replica.get("/").status_code == 200
    changed = world.client(secret="a-rotated-operator-secret-98765")
    changed.cookies.set(sessions.COOKIE_NAME, value)
    assert changed.get("/").status_code == 303


def test_signout_needs_this_sessions_csrf_token(world: World) -> None:
    client = world.client()
    sign_in(client, SECRET)
    token = csrf_of(world.seen(client.get("/").text))
    missing = client.post("/signout", data={})
    assert missing.status_code == 403
    assert "Form expired or forged" in world.seen(missing.text)
    other = world.client()
    sign_in(other, SECRET)
    other_token = csrf_of(other.get("/").text)
    assert other_token != token
    assert client.post("/signout", data={"csrf_token": other_token}).status_code == 403
    assert client.post("/signout", data={"csrf_token": token + "x"}).status_code == 403
    assert client.post("/signout", data={"csrf_token": "é"}).status_code == 403
    foreign = client.post(
        "/signout", data={"csrf_token": token}, headers={"Origin": "https://evil.example"}
    )
    assert foreign.status_code == 403
    assert client.get("/").status_code == 200  # still signed in after every refusal
    done = client.post("/signout", data={"csrf_token": token})
    assert done.status_code == 303
    assert done.headers["location"] == "/signin"
    assert 'memex_session=""' in cookie_header(done) or "max-age=0" in cookie_header(done).lower()
    assert client.get("/").status_code == 303


def sign_out(client: TestClient) -> None:
    token = csrf_of(client.get("/activity").text)
    assert client.post("/signout", data={"csrf_token": token}).status_code == 303


def with_cookie(client: TestClient, value: str) -> TestClient:
    client.cookies.set(sessions.COOKIE_NAME, value)
    return client


def test_signing_out_ends_the_session_on_the_server(world: World) -> None:
    # A saved copy of the cookie kept working after sign-out until it expired (12 h).
    browser = world.client()
    sign_in(browser, SECRET)
    saved = browser.cookies[sessions.COOKIE_NAME]
    laptop = world.client()  # the same credential in another browser
    sign_in(laptop, SECRET)
    alice = world.client()
    sign_in(alice, world.alice_key)
    assert with_cookie(world.client(), saved).get("/activity").status_code == 200
    sign_out(browser)
    for ended in (with_cookie(world.client(), saved), laptop):
        refused = ended.get("/activity")
        assert refused.status_code == 303
        assert refused.headers["location"].startswith("/signin")
        assert ended.get("/events").status_code == 303
    # Another server on the same catalog (a replica, a restart) refuses it too.
    replica_mx = Memex(world.home)
    try:
        replica = with_cookie(client_for(replica_mx), saved)
        assert replica.get("/activity").status_code == 303
    finally:
        replica_mx.close()
    # Another principal's session goes on; signing in again works.
    assert alice.get("/activity").status_code == 200
    again = world.client()
    sign_in(again, SECRET)
    assert again.get("/activity").status_code == 200


def test_an_agent_signing_out_ends_only_its_keys_sessions(world: World) -> None:
    operator, alice, alice_elsewhere = world.client(), world.client(), world.client()
    sign_in(operator, SECRET)
    sign_in(alice, world.alice_key)
    sign_in(alice_elsewhere, world.alice_key)
    saved = alice.cookies[sessions.COOKIE_NAME]
    sign_out(alice)
    assert with_cookie(world.client(), saved).get("/activity").status_code == 303
    assert alice_elsewhere.get("/activity").status_code == 303
    assert operator.get("/activity").status_code == 200
    # The key itself still works, on the API and to sign in again.
    whoami = world.client().get(
        "/v1/whoami", headers={"Authorization": f"Bearer {world.alice_key}"}
    )
    assert whoami.status_code == 200
    again = world.client()
    sign_in(again, world.alice_key)
    assert again.get("/activity").status_code == 200


def test_doctor_form_needs_the_token(world: World) -> None:
    client = world.client()
    sign_in(client, SECRET)
    page = world.seen(client.get("/corpus").text)
    assert client.post("/corpus/doctor", data={}).status_code == 403
    assert client.post("/corpus/doctor", data={"csrf_token": "nope"}).status_code == 403
    ran = client.post("/corpus/doctor", data={"csrf_token": csrf_of(page)})
    assert ran.status_code == 200
    assert 'data-testid="doctor-time"' in world.seen(ran.text)


def test_the_signin_form_needs_its_own_csrf_token(world: World) -> None:
    """Login CSRF: another site must not sign this browser in under its own credential."""
    client = world.client()
    bare = client.post("/signin", data={"credential": SECRET})
    assert bare.status_code == 403
    assert "memex_session" not in bare.headers.get("set-cookie", "")
    client.get("/signin")  # the form's cookie, but a token of someone else's form
    wrong = client.post("/signin", data={"credential": SECRET, "signin_token": "forged"})
    assert wrong.status_code == 403
    assert "memex_session" not in wrong.headers.get("set-cookie", "")
    assert client.get("/").status_code == 303  # still signed out
    other = world.client()
    token = re.search(r'name="signin_token" value="([^"]+)"', other.get("/signin").text)
    assert token
    stolen = world.client().post(
        "/signin", data={"credential": SECRET, "signin_token": token.group(1)}
    )
    assert stolen.status_code == 403  # a token without its cookie
    assert post_signin(client, SECRET).status_code == 303


def test_signin_goes_back_to_this_site_only(world: World) -> None:
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:x"):
        client = world.client()
        response = post_signin(client, SECRET, next=target)
        assert response.headers["location"] == "/", target


# -- an agent session sees what its key sees --------------------------------------------------


@pytest.fixture
def alice(world: World) -> TestClient:
    client = world.client()
    sign_in(client, world.alice_key)
    return client


def test_agent_session_cannot_open_the_corpus_page(world: World, alice: TestClient) -> None:
    for response in (alice.get("/corpus"), alice.post("/corpus/doctor", data={})):
        assert response.status_code == 403
        assert "For the operator only" in world.seen(response.text)


@pytest.mark.parametrize("memory", ["bob_fact", "bob_file", "bob_private_fact", "carol_fact"])
def test_another_users_timeline_is_not_found_like_an_unknown_id(
    world: World,
    alice,
    memory: str,
) -> None:
    unknown = alice.get(f"/timeline/{UNKNOWN_FRAGMENT}")
    assert unknown.status_code == 404
    fragments = world.fragments_of(memory)
    assert fragments
    for fragment_id in fragments:
        response = alice.get(f"/timeline/{fragment_id}")
        assert response.status_code == 404
        body = world.seen(response.text)
        assert body == unknown.text  # same page: nothing tells the two apart
        for marker in FOREIGN_MARKERS:
            assert marker not in body
    # The operator reads it.
    operator = world.client()
    sign_in(operator, SECRET)
    assert operator.get(f"/timeline/{fragments[0]}").status_code == 200


@pytest.mark.parametrize("mode", ["dig", "keyword", "semantic"])
@pytest.mark.parametrize(
    "query", [BOB_CANARY, BOB_HIDDEN, CAROL_CANARY, "tea", "secret plan launch codename"]
)
def test_agent_search_never_shows_another_users_memory(
    world: World,
    alice,
    mode: str,
    query: str,
) -> None:
    for params in (
        {"q": query, "mode": mode},
        {"q": query, "mode": mode, "collection": "acme"},
        {"q": query, "mode": mode, "conversation": world.ids["bob_fact"]},
    ):
        response = alice.get("/", params=params)
        assert response.status_code in (200, 422)
        body = world.seen(response.text)
        # The page repeats the query (title, box); the results below it must not hold it.
        results = body.split('id="results-heading"', 1)[-1]
        for marker in FOREIGN_MARKERS:
            assert marker not in (results if marker in query else body), (params, marker)
        # Nothing about the whole home either: any count is of alice's own reach.
        assert_counts_are_alices(world, body)


def test_agent_notes_index_and_activity_hold_nothing_foreign(
    world: World, alice: TestClient
) -> None:
    for path in ("/activity", "/notes", "/note/corpus-1"):
        body = world.seen(alice.get(path).text)
        for marker in FOREIGN_MARKERS:
            assert marker not in body, path


def test_operator_sees_everyone(world: World) -> None:
    client = world.client()
    sign_in(client, SECRET)
    body = world.seen(client.get("/", params={"q": BOB_CANARY, "mode": "keyword"}).text)
    assert BOB_CANARY in body
    assert world.seen(client.get("/corpus").text).count('id="by-source"') == 1


def test_session_cookie_is_not_in_any_page(world: World) -> None:
    client = world.client()
    sign_in(client, SECRET)
    value = client.cookies[sessions.COOKIE_NAME]
    for path in ("/", "/?q=tea", "/activity", "/notes", "/corpus"):
        assert value not in world.seen(client.get(path).text), path


def test_session_expiry_is_in_the_cookie() -> None:
    key = sessions.signing_key(SECRET)
    made = sessions.new_session(sessions.AGENT, "k1", now=1000.0)
    assert made.expires == 1000.0 + sessions.SESSION_SECONDS
    decoded = sessions.decode(sessions.encode(made, key), key, now=1001.0)
    assert decoded is not None and decoded.key_id == "k1" and not decoded.operator
    assert sessions.decode(sessions.encode(made, key), key, now=made.expires + 1) is None
    assert time.time() < sessions.new_session(sessions.OPERATOR, None).expires


ALICE_OWNERS = ("users/alice", "shared")  # alice's key was made with --no-corpus


def counted(world: World, **scope: Any) -> int:
    from memex_core.domain import SearchFilters

    return world.mx.catalog.count_matching(SearchFilters(include_private=True, **scope))[0]


def assert_counts_are_alices(world: World, body: str) -> None:
    """Every fragment count on an agent's page is of alice's reach, never the home's."""
    whole = world.mx.catalog.count_fragments()
    mine = counted(world, owners=ALICE_OWNERS)
    _, rows = world.mx.query(
        "SELECT DISTINCT collection FROM fragments WHERE owner IN ('users/alice', 'shared') "
        "AND (collection = 'acme' OR collection LIKE 'acme:%')"
    )
    acme = counted(world, owners=ALICE_OWNERS, collections=tuple(r[0] for r in rows))
    assert whole > mine > acme > 0  # the home holds bob's, carol's and the corpus too
    for number in re.findall(r"No results among ([\d,]+) fragments", body):
        assert int(number.replace(",", "")) in (mine, acme), body
    for number in re.findall(r"Embedding coverage: [\d,]+/([\d,]+)", body):
        assert int(number.replace(",", "")) in (mine, acme), body
    # The home's count, as a number of its own, nowhere in the guidance. (Not a substring
    # test over the page: a page without guidance shows times such as "13:19", which held
    # the home's 19 once.)
    if 'id="no-results"' in body:
        guidance = body.split('id="no-results"', 1)[1]
        alone = rf"(?<![\d,:./-]){re.escape(f'{whole:,}')}(?![\d,:./-])"
        assert not re.search(alone, guidance), guidance


def test_empty_results_name_the_scope(world: World, alice: TestClient) -> None:
    query = {"q": "zyzzyva quuxbaz", "mode": "keyword"}
    mine = world.seen(alice.get("/", params=query).text)
    count = counted(world, owners=ALICE_OWNERS)
    assert (
        f"No results among {count:,} fragments in user alice&#39;s memory and shared memory."
        in mine
    )
    assert_counts_are_alices(world, mine)
    operator = world.client()
    sign_in(operator, SECRET)
    everything = world.seen(operator.get("/", params=query).text)
    whole = world.mx.catalog.count_fragments()
    assert f"No results among {whole:,} fragments.</li>" in everything  # the CLI's words
    narrowed = world.seen(operator.get("/", params={**query, "collection": "acme"}).text)
    acme = counted(world, collections=("acme", "acme:bob", "acme:carol", "acme:support"))
    assert (
        f"No results among {acme:,} fragments in memory collection &#39;acme&#39; and the "
        "ones below it." in narrowed
    )
    assert "Leave the collection out" in narrowed
    assert "None" not in narrowed.split('id="no-results"')[1]
