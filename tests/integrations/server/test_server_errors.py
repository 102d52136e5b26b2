"""Errors of ``memex serve`` over raw HTTP: every refusal is JSON with a stable code.

``{"error": {"code": ..., "message": ...}}`` with 401 without (or with wrong)
credentials, 403 for the wrong kind of credential, 404 for unknown ids and routes, 405,
413 over ``--max-body``/``--max-upload``, 422 for bad input; never a 500, a traceback or
a path of the server's source (:func:`tests.support.server_fixtures.assert_clean_response` checks
every response here). One server (small limits) serves the module.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import (
    AuthenticationError,
    EmptyQueryClientError,
    InvalidRequestError,
    MemexClient,
    NotFoundError,
    PermissionDeniedError,
    RequestTooLargeError,
)
from memex_core.errors import EmptyQueryError, UnknownIdError
from memex_server.errors import CODES
from memex_server.routes import admin, health, memory, reading
from tests.support.error_server import (
    MAX_BODY,
    MAX_UPLOAD,
    UNKNOWN_FRAGMENT,
    UNKNOWN_MEMORY,
    Errors,
)
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    Raw,
    assert_clean_response,
    error_of,
)


def _routes() -> list[tuple[str, str]]:
    """(method, path) of every route the app serves, from its routers."""
    out = []
    for router in (
        health.router,
        reading.router,
        memory.agent_router,
        memory.operator_router,
        admin.router,
    ):
        for route in router.routes:
            for method in sorted(getattr(route, "methods", ())):
                out.append((method, route.path))  # type: ignore[attr-defined]
    return out


ROUTES = _routes()
V1_ROUTES = [pytest.param(m, p, id=f"{m}-{p}") for m, p in ROUTES if p.startswith("/v1")]


# -- open routes and the schema ----------------------------------------------------------------


def test_health_and_readiness_answer_without_credentials(errors: Errors) -> None:
    assert assert_clean_response(errors.anonymous.get("/healthz")) == {"status": "ok"}
    ready = errors.anonymous.get("/readyz")
    report = assert_clean_response(ready)
    assert ready.status_code == 200 and report["ready"] is True, report
    assert report["catalog"] == "ok" and report["keyword_lag"] == 0
    assert report["fragments"] >= 3


def test_openapi_is_valid_and_lists_every_route(errors: Errors) -> None:
    schema = assert_clean_response(errors.anonymous.get("/openapi.json"))
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "memex" and schema["info"]["version"]
    listed = {(m.upper(), p) for p, item in schema["paths"].items() for m in item}
    assert {r for r in ROUTES if r[0] in ("GET", "POST")} <= listed | {("GET", "/openapi.json")}
    assert {p for _, p in listed} >= {"/healthz", "/readyz", "/v1/search", "/v1/admin/keys"}
    schemes = schema["components"]["securitySchemes"]
    assert any(s.get("scheme", "").lower() == "bearer" for s in schemes.values()), schemes
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert operation.get("summary"), (method, path)
            if path.startswith("/v1"):
                assert operation.get("security"), (method, path)
    # The codes the description promises are the server's codes.
    for code in CODES:
        if code not in ("method_not_allowed", "not_ready"):
            assert code in schema["info"]["description"], code
    try:
        from openapi_spec_validator import validate
    except ImportError:
        return
    validate(schema)


# -- 401 ---------------------------------------------------------------------------------------


def _call(raw: Raw, method: str, path: str, **options: Any) -> Any:
    if method == "POST":
        options.setdefault("json", {})
    return raw.request(method, path, **options)


@pytest.mark.parametrize(("method", "path"), V1_ROUTES)
def test_every_v1_route_needs_credentials(errors: Errors, method: str, path: str) -> None:
    response = _call(errors.anonymous, method, path)
    status, code, message = error_of(response)
    assert (status, code) == (401, "missing_credentials")
    assert "Authorization: Bearer" in message and "memex keys create" in message
    assert response.headers["www-authenticate"] == "Bearer"


def _wrong_credentials(errors: Errors) -> dict[str, tuple[dict[str, str], str]]:
    key_id = errors.key.split("_")[1]
    return {
        "unknown-key": (
            {"Authorization": f"Bearer mxk_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"},
            "invalid_credentials",
        ),
        "right-id-wrong-secret": (
            {"Authorization": f"Bearer mxk_{key_id}_{secrets.token_urlsafe(32)}"},
            "invalid_credentials",
        ),
        "truncated-key": ({"Authorization": f"Bearer {errors.key[:-1]}"}, "invalid_credentials"),
        "malformed-key": ({"Authorization": "Bearer mxk_zz"}, "invalid_credentials"),
        "wrong-secret": (
            {"Authorization": f"Bearer {errors.service.admin_secret}x"},
            "invalid_credentials",
        ),
        "secret-prefix": (
            {"Authorization": f"Bearer {errors.service.admin_secret[:8]}"},
            "invalid_credentials",
        ),
        "basic-scheme": (
            {"Authorization": f"Basic {errors.service.admin_secret}"},
            "missing_credentials",
        ),
        "empty-bearer": ({"Authorization": "Bearer"}, "missing_credentials"),
        "key-in-other-header": ({"X-Api-Key": errors.key}, "missing_credentials"),
    }


CREDENTIALS = [
    "unknown-key",
    "right-id-wrong-secret",
    "truncated-key",
    "malformed-key",
    "wrong-secret",
    "secret-prefix",
    "basic-scheme",
    "empty-bearer",
    "key-in-other-header",
]


@pytest.mark.parametrize("wrong", CREDENTIALS)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/whoami"),
        ("POST", "/v1/search"),
        ("POST", "/v1/memory/remember"),
        ("POST", "/v1/admin/keys"),
        ("GET", "/v1/admin/stats"),
    ],
)
def test_wrong_credentials_get_401_with_a_fix(
    errors: Errors, wrong: str, method: str, path: str
) -> None:
    headers, want = _wrong_credentials(errors)[wrong]
    body = {"text": "planted"} if path.endswith("remember") else {"user": "x", "name": "x"}
    response = errors.anonymous.request(
        method, path, headers=headers, **({"json": body} if method == "POST" else {})
    )
    status, code, message = error_of(response)
    assert (status, code) == (401, want), message
    assert "memex keys create" in message or "operator secret" in message
    assert errors.service.admin_secret not in response.text


def test_the_client_raises_authentication_error(errors: Errors) -> None:
    bad = MemexClient(errors.service.url, api_key=f"mxk_{'0' * 12}_nope", timeout=CLIENT_TIMEOUT)
    with pytest.raises(AuthenticationError) as caught:
        bad.whoami()
    assert caught.value.status == 401 and caught.value.code == "invalid_credentials"
    with pytest.raises(AuthenticationError):
        MemexClient(
            errors.service.url, admin_secret="not-the-secret-at-all", timeout=CLIENT_TIMEOUT
        ).operator().list()


# -- 403 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", [p for m, p in ROUTES if p.startswith("/v1/memory/") and m == "POST"]
)
def test_the_operator_must_name_a_user_on_agent_routes(errors: Errors, path: str) -> None:
    status, code, message = error_of(errors.op.post(path, {"ref": "user/notes.md"}))
    assert (status, code) == (403, "agent_only")
    assert "Memex-User" in message and "/v1/admin" in message


def test_the_client_refuses_the_wrong_handle_before_asking(errors: Errors) -> None:
    agent = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT)
    with pytest.raises(PermissionDeniedError):
        agent.operator()
    with pytest.raises(PermissionDeniedError):
        agent.agent("bob")
    with pytest.raises(PermissionDeniedError) as caught:
        agent._t.get("/v1/admin/stats")
    assert (caught.value.status, caught.value.code) == (403, "operator_only")


# -- 404 and 405 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw_name", "path", "body"),
    [
        ("agent", "/v1/memory/get", {"ref": UNKNOWN_MEMORY}),
        ("agent", "/v1/memory/get", {"ref": "user/nothing-here.md"}),
        ("agent", "/v1/memory/forget", {"ref": UNKNOWN_MEMORY}),
        ("agent", "/v1/memory/undelete", {"ref": "user/nothing-here.md"}),
        ("agent", "/v1/memory/links", {"ref": UNKNOWN_MEMORY}),
        ("agent", "/v1/timeline", {"fragment_id": UNKNOWN_FRAGMENT}),
        ("agent", "/v1/explore", {"note": "No Such Note"}),
        ("op", "/v1/timeline", {"fragment_id": UNKNOWN_FRAGMENT}),
        ("op", "/v1/admin/memory/get", {"ref": UNKNOWN_MEMORY}),
        ("op", "/v1/admin/memory/history", {"ref": UNKNOWN_MEMORY}),
        ("op", "/v1/admin/memory/restore", {"ref": UNKNOWN_MEMORY, "revision": 1}),
        ("op", "/v1/admin/keys/revoke", {"key": "no-such-key"}),
    ],
)
def test_unknown_ids_are_404_with_where_to_find_them(
    errors: Errors, raw_name: str, path: str, body: dict[str, Any]
) -> None:
    raw = errors.agent if raw_name == "agent" else errors.op
    status, code, message = error_of(raw.post(path, body))
    assert (status, code) == (404, "not_found"), message
    assert any(w in message for w in ("search", "list", "memex keys list", "path")), message


def test_another_users_id_is_a_404_like_an_unknown_one(errors: Errors) -> None:
    bob = errors.op.post("/v1/admin/memory/list", {"user_id": "bob"}).json()[0]["id"]
    got = error_of(errors.agent.post("/v1/memory/get", {"ref": bob}))
    want = error_of(errors.agent.post("/v1/memory/get", {"ref": UNKNOWN_MEMORY}))
    assert got[:2] == want[:2] == (404, "not_found")
    assert got[2].replace(bob, "x") == want[2].replace(UNKNOWN_MEMORY, "x")


def test_the_client_raises_not_found_as_memex_does(errors: Errors) -> None:
    alice = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT).agent()
    with pytest.raises(NotFoundError) as caught:
        alice.get(UNKNOWN_MEMORY)
    assert isinstance(caught.value, UnknownIdError)
    assert caught.value.status == 404


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/nope"),
        ("POST", "/v1/nope"),
        ("GET", "/nope"),
        ("GET", "/v2/search"),
        ("GET", "/v1/memory"),
        ("GET", "/docs"),
        ("GET", "/redoc"),
        ("GET", "/v1/admin/keys/extra"),
        ("GET", "/%2e%2e/etc/passwd"),
    ],
)
def test_an_unknown_route_is_404_json(errors: Errors, method: str, path: str) -> None:
    for raw in (errors.anonymous, errors.agent):
        response = raw.request(method, path)
        status, code, message = error_of(response)
        if status == 401:  # a path that normalises onto a real /v1 route
            continue
        assert (status, code) == (404, "not_found"), (path, message)
        assert "openapi.json" in message


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/search"),
        ("PUT", "/v1/memory/get"),
        ("DELETE", "/v1/admin/keys"),
        ("PATCH", "/v1/admin/keys"),
        ("POST", "/healthz"),
        ("POST", "/v1/whoami"),
        ("DELETE", "/v1/memory/forget"),
    ],
)
def test_a_wrong_method_is_405_json(errors: Errors, method: str, path: str) -> None:
    status, code, message = error_of(errors.op.request(method, path))
    assert (status, code) == (405, "method_not_allowed"), message
    assert method in message and "openapi.json" in message


# -- 413 ---------------------------------------------------------------------------------------


def _too_large_checked(response: Any, option: str) -> None:
    status, code, message = error_of(response)
    assert (status, code) == (413, "body_too_large"), message
    assert option in message


@pytest.mark.parametrize("who", ["agent", "op", "anonymous"])
@pytest.mark.parametrize(
    "path", ["/v1/memory/remember", "/v1/search", "/v1/admin/memory/remember", "/v1/whoami"]
)
def test_an_oversized_body_is_413(errors: Errors, who: str, path: str) -> None:
    raw: Raw = getattr(errors, who)
    body = json.dumps({"text": "x" * (MAX_BODY + 10)})
    _too_large_checked(raw.post(path, content=body), "--max-body")


def test_a_streamed_body_without_a_length_is_cut_off_at_the_limit(errors: Errors) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(20):
            yield b"y" * 1024
        yield b'"}'

    response = errors.agent.http.post(
        "/v1/memory/remember",
        content=chunks(),
        headers={**errors.agent.headers(), "Content-Type": "application/json"},
    )
    _too_large_checked(response, "--max-body")
    listed = errors.agent.post("/v1/memory/list", {"limit": 1000}).json()
    assert not any(m["content"].startswith("yyyy") for m in listed)


def test_a_body_just_under_the_limit_is_taken(errors: Errors) -> None:
    text = "Alice's long note " + "z" * (MAX_BODY - 200)
    response = errors.agent.post("/v1/memory/write", {"path": "user/long.md", "content": text})
    assert assert_clean_response(response)["path"] == "user/long.md"


def test_an_upload_has_its_own_limit(errors: Errors) -> None:
    big = b"[" + b" " * (MAX_UPLOAD + 10) + b"]"
    response = errors.op.request(
        "POST",
        "/v1/admin/ingest",
        params={"filename": "conversations.json"},
        content=big,
        headers={"Content-Type": "application/octet-stream"},
    )
    _too_large_checked(response, "--max-upload")
    # over --max-body but under --max-upload: taken (and refused for its content, cleanly)
    middle = b"[" + b" " * (MAX_BODY + 10) + b"]"
    response = errors.op.request(
        "POST",
        "/v1/admin/ingest",
        params={"filename": "conversations.json"},
        content=middle,
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code != 413
    assert_clean_response(response)


def test_the_client_raises_request_too_large(errors: Errors) -> None:
    alice = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT).agent()
    with pytest.raises(RequestTooLargeError) as caught:
        alice.remember("w" * (MAX_BODY * 2))
    assert caught.value.status == 413 and "--max-body" in str(caught.value)


# -- 422 ---------------------------------------------------------------------------------------

#: (route, raw JSON body, the code, a word the message must hold)
BAD_INPUT = [
    ("/v1/search", '{"query": ""}', "empty_query", "query"),
    ("/v1/search", '{"query": "   "}', "empty_query", "query"),
    ("/v1/memory/search", '{"query": ""}', "empty_query", "query"),
    ("/v1/context", '{"query": "\\t"}', "empty_query", "query"),
    ("/v1/search", "{}", "invalid_request", "query"),
    ("/v1/search", '{"query": 5}', "invalid_request", "query"),
    ("/v1/search", '{"query": ["a"]}', "invalid_request", "query"),
    ("/v1/search", '{"query": null}', "invalid_request", "query"),
    ("/v1/search", '{"query": "x", "limit": 0}', "invalid_request", "limit"),
    ("/v1/search", '{"query": "x", "limit": 1000000}', "invalid_request", "limit"),
    ("/v1/search", '{"query": "x", "limit": "ten"}', "invalid_request", "limit"),
    ("/v1/search", '{"query": "x", "limit": 1e400}', "invalid_request", "limit"),
    ("/v1/search", '{"query": "x", "mode": "fuzzy"}', "invalid_request", "mode"),
    ("/v1/search", '{"query": "x", "colection": "acme"}', "invalid_request", "colection"),
    ("/v1/search", '{"query": "x", "since": "the day after never"}', "invalid_request", "never"),
    ("/v1/search", '{"query": "x", "corpus": "maybe"}', "invalid_request", "corpus"),
    ("/v1/search", "[]", "invalid_request", "body"),
    ("/v1/search", "null", "invalid_request", "body"),
    ("/v1/search", "not json", "invalid_request", "JSON"),
    ("/v1/search", '{"query": "x"', "invalid_request", "JSON"),
    ("/v1/search", "", "invalid_request", "body"),
    ("/v1/fragments", '{"ids": "abc"}', "invalid_request", "ids"),
    ("/v1/fragments", '{"ids": [1, 2]}', "invalid_request", "ids"),
    ("/v1/timeline", '{"fragment_id": "x", "before": -1}', "invalid_request", "before"),
    ("/v1/timeline", '{"fragment_id": "x", "after": 10000}', "invalid_request", "after"),
    ("/v1/context", '{"query": "x", "budget_chars": 10}', "invalid_request", "budget_chars"),
    ("/v1/explore", '{"note": "x", "similar": -5}', "invalid_request", "similar"),
    ("/v1/memory/remember", "{}", "invalid_request", "text"),
    ("/v1/memory/remember", '{"text": "x", "messages": []}', "invalid_request", "text"),
    ("/v1/memory/remember", '{"messages": [{"role": "user"}]}', "invalid_request", "content"),
    ("/v1/memory/remember", '{"text": "x", "private": "yes please"}', "invalid_request", "private"),
    ("/v1/memory/write", '{"path": "user/x.md"}', "invalid_request", "content"),
    ("/v1/memory/write", '{"path": "notes.md", "content": "x"}', "invalid_request", "user/"),
    ("/v1/memory/write", '{"path": "user/../x.md", "content": "x"}', "invalid_request", "user/"),
    ("/v1/memory/list", '{"limit": -1}', "invalid_request", "limit"),
    ("/v1/memory/list", '{"offset": -1}', "invalid_request", "offset"),
    ("/v1/memory/list", '{"collection": "a b"}', "invalid_request", "collection"),
    ("/v1/memory/get", "{}", "invalid_request", "ref"),
    ("/v1/memory/get", '{"ref": ""}', "invalid_request", "path"),
    ("/v1/context", '{"query": "\\ud800"}', "invalid_request", "surrogate"),
    ("/v1/memory/remember", '{"text": "tea \\udfff"}', "invalid_request", "surrogate"),
    ("/v1/memory/write", '{"path": "user/\\ud800.md", "content": "x"}', "invalid_request", "UTF-8"),
]


@pytest.mark.parametrize(
    ("path", "content", "code", "word"),
    [pytest.param(*row, id=f"{row[0]}:{row[1][:40]}") for row in BAD_INPUT],
)
def test_bad_input_is_422_with_what_to_change(
    errors: Errors, path: str, content: str, code: str, word: str
) -> None:
    status, got, message = error_of(errors.agent.post(path, content=content))
    assert (status, got) == (422, code), message
    assert word.lower() in message.lower(), message


OPERATOR_BAD_INPUT = [
    ("/v1/admin/memory/restore", {"ref": UNKNOWN_MEMORY, "revision": 0}, "revision"),
    ("/v1/admin/memory/purge", {"user_id": "bob"}, "confirm"),
    ("/v1/admin/memory/purge", {"user_id": "bob", "confirm": "alice"}, "confirm"),
    ("/v1/admin/access-log", {"actor_kind": "robot"}, "actor_kind"),
    ("/v1/admin/access-log", {"limit": 0}, "limit"),
    ("/v1/admin/keys", {"user": "alice"}, "name"),
    ("/v1/admin/keys", {"user": "alice", "name": ""}, "name"),
    ("/v1/admin/keys", {"user": "alice", "name": "bot", "collection": "a b"}, "collection"),
    ("/v1/admin/keys", {"user": "../bob", "name": "bot"}, "user"),
    ("/v1/admin/keys", {"user": "alice", "name": "alice-bot"}, "alice-bot"),
    ("/v1/admin/memory/list", {"user_id": "../bob"}, "user"),
]


@pytest.mark.parametrize(
    ("path", "body", "word"),
    [pytest.param(*row, id=f"{row[0]}:{json.dumps(row[1])[:40]}") for row in OPERATOR_BAD_INPUT],
)
def test_operator_bad_input_is_422_with_what_to_change(
    errors: Errors, path: str, body: dict[str, Any], word: str
) -> None:
    status, code, message = error_of(errors.op.post(path, body))
    assert (status, code) == (422, "invalid_request"), message
    assert word.lower() in message.lower(), message


def test_an_ingest_upload_needs_a_filename_and_a_body(errors: Errors) -> None:
    def upload(**params: str) -> Any:
        return errors.op.request(
            "POST",
            "/v1/admin/ingest",
            params=params,
            content=b"",
            headers={"Content-Type": "application/octet-stream"},
        )

    assert error_of(upload())[:2] == (422, "invalid_request")
    status, code, message = error_of(upload(filename="conversations.json"))
    assert (status, code) == (422, "invalid_request") and "empty" in message


def test_an_upload_name_too_long_to_store_is_422_and_leaves_no_file(errors: Errors) -> None:
    # 300 characters once made safe: stored as "<digest>-<name>", past the 255 bytes a file
    # name may have. It answered 500 (OSError: File name too long), a .part-* file left.
    uploads = errors.service.home / "uploads"
    before = set(uploads.iterdir()) if uploads.exists() else set()
    response = errors.op.request(
        "POST",
        "/v1/admin/ingest",
        params={"filename": "c" * 295 + ".json"},
        content=b"[]",
        headers={"Content-Type": "application/octet-stream"},
    )
    status, code, message = error_of(response)
    assert (status, code) == (422, "invalid_request")
    assert "filename is 300 characters long; send at most 200" in message
    after = set(uploads.iterdir()) if uploads.exists() else set()
    assert after == before, sorted(p.name for p in after - before)
    # The server goes on answering on a fresh request.
    assert errors.op.get("/v1/whoami").status_code == 200


def test_the_client_raises_the_memex_errors(errors: Errors) -> None:
    alice = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT).agent()
    view = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT).view()
    with pytest.raises(EmptyQueryError):
        view.search("  ")
    with pytest.raises(InvalidRequestError) as caught:
        alice.write("../escape.md", "x")
    assert caught.value.status == 422 and isinstance(caught.value, ValueError)
    raw = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT)._t
    with pytest.raises(EmptyQueryClientError):
        raw.post("/v1/search", {"query": ""})


def test_the_client_refuses_numbers_json_cannot_carry(errors: Errors) -> None:
    """NaN and infinities (which the local API takes as time bounds) are no JSON: the client
    says so as an InvalidRequestError (a ValueError) instead of failing inside httpx."""
    alice = MemexClient(errors.service.url, api_key=errors.key, timeout=CLIENT_TIMEOUT).agent()
    for bound in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(InvalidRequestError) as caught:
            alice.search("tea", since=bound)
        assert caught.value.code == "invalid_request" and "finite" in str(caught.value)
    assert [h.text for h in alice.search("green tea", since=0.0)] == ["Alice prefers green tea"]


# -- never a traceback -------------------------------------------------------------------------

JUNK_BODIES = [
    "{" * 5000 + "}" * 5000,
    "[" * 5000 + "]" * 5000,
    '{"query": ' * 3000 + '"x"' + "}" * 3000,
    '{"ids": ' + "[" * 3000 + "]" * 3000 + "}",
    '{"query": "\\ud800"}',
    '{"ref": "\\u0000", "query": "\\u0000", "text": "\\u0000", "ids": ["\\u0000"]}',
    '{"query": "x", "limit": 99999999999999999999999999999}',
    '{"query": "x", "since": -1e308, "until": 1e308}',
    '{"query": "x", "since": "9999-99-99"}',
    '{"ref": {"$ne": null}, "query": {"$gt": ""}}',
    '"just a string"',
    "true",
    "1e999",
    '{"ids": [' + ",".join(['"a"'] * 1200) + "]}",
    '{"messages": [{"role": "user", "content": "hi", "timestamp": "noon"}]}',
]


@pytest.mark.parametrize(
    "who", ["op", "agent"], ids=["operator", "agent"]
)  # the anonymous caller is covered by the 401 tests
@pytest.mark.parametrize("junk", range(len(JUNK_BODIES)))
def test_junk_on_every_post_route_never_breaks_the_server(
    errors: Errors, who: str, junk: int
) -> None:
    raw: Raw = getattr(errors, who)
    body = JUNK_BODIES[junk].encode("utf-8", "surrogatepass")
    for method, path in ROUTES:
        if method != "POST" or path in ("/v1/admin/ingest", "/v1/admin/memory/purge"):
            continue
        response = raw.post(path, content=body)
        assert_clean_response(response)
        assert response.status_code in (200, 403, 404, 413, 422), (path, response.text[:300])
    assert assert_clean_response(errors.anonymous.get("/healthz")) == {"status": "ok"}


def test_invalid_utf8_and_odd_content_types_are_clean(errors: Errors) -> None:
    for content, kind in (
        (b'{"query": "\xff\xfe"}', "application/json"),
        (b'{"query": "tea"}', "text/plain"),
        (b"query=tea", "application/x-www-form-urlencoded"),
        (b'{"query": "tea"}', "application/json; charset=latin-1"),
    ):
        response = errors.agent.http.post(
            "/v1/search", content=content, headers={**errors.agent.headers(), "Content-Type": kind}
        )
        assert_clean_response(response)
