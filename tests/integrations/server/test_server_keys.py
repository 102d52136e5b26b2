"""Agent keys and the operator secret of ``memex serve``.

``memex keys create/list/revoke`` (through click's runner on the real CLI, and once as a
separate process against a running server), what the catalog keeps (a salt and a salted
hash, never the key), the generated ``<home>/admin-secret`` (mode 0600), and the keys
routes of the running server.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import AuthenticationError, MemexClient
from memex_core.cli import cli
from memex_server.command import keys as keys_command
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    CatalogReader,
    Raw,
    assert_clean_response,
    error_of,
    served,
)
from tests.support.server_fixtures import keyword_only_home as make_home

if "keys" not in cli.commands:  # `memex` adds plugin commands in main(); the runner calls cli
    cli.add_command(keys_command)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return make_home(tmp_path / "home")


def keys(home: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, ["--home", str(home), "keys", *args])
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    return result


def create(home: Path, user: str = "alice", name: str = "bot", *extra: str) -> dict[str, Any]:
    out = keys(home, "create", "--user", user, "--name", name, *extra, "--format", "json")
    made: dict[str, Any] = json.loads(out.stdout)
    return made


def catalog_bytes(home: Path) -> bytes:
    """Every byte of the catalog on disk (the database and its write-ahead log)."""
    return b"".join(p.read_bytes() for p in sorted(home.glob("catalog.sqlite*")) if p.is_file())


# -- the command line --------------------------------------------------------------------------


def test_create_prints_the_key_once_as_json(home: Path) -> None:
    made = create(home, "alice", "support-bot")
    assert set(made) == {"key", "user", "name", "id"}
    assert (made["user"], made["name"]) == ("alice", "support-bot")
    assert made["key"].startswith(f"mxk_{made['id']}_") and len(made["key"]) > 40
    text = keys(home, "create", "--user", "bob", "--name", "other-bot")
    token = text.stdout.strip()
    assert token.startswith("mxk_") and "\n" not in token
    assert "shown only now" in text.stderr and "memex keys revoke other-bot" in text.stderr


def test_the_catalog_keeps_a_salted_hash_never_the_key(home: Path) -> None:
    made = [create(home, "alice", f"bot-{n}") for n in range(3)]
    raw = catalog_bytes(home)
    rows = {
        r[0]: r[1:]
        for r in CatalogReader(home).rows("SELECT id, salt, secret_hash FROM agent_keys")
    }
    for key in made:
        secret = key["key"].split("_", 2)[2]
        assert secret.encode() not in raw and key["key"].encode() not in raw
        salt, stored = rows[key["id"]]
        assert len(salt) >= 32 and salt not in secret
        assert stored == hmac.new(salt.encode(), secret.encode(), hashlib.sha256).hexdigest()
        assert stored != hashlib.sha256(secret.encode()).hexdigest()  # salted
    assert len({r[0] for r in rows.values()}) == 3  # one salt per key
    columns = [r[1] for r in CatalogReader(home).rows("PRAGMA table_info(agent_keys)")]
    assert not {"key", "token", "secret"} & set(columns), columns


def test_list_never_shows_a_secret(home: Path) -> None:
    made = create(home, "alice", "bot", "--collection", "acme", "--no-corpus")
    listed = json.loads(keys(home, "list", "--format", "json").stdout)
    [entry] = listed
    assert entry["id"] == made["id"] and entry["user_id"] == "alice"
    assert (entry["collection"], entry["corpus"], entry["active"]) == ("acme", False, True)
    assert not {"key", "salt", "secret_hash", "secret"} & set(entry)
    secret = made["key"].split("_", 2)[2]
    table = keys(home, "list").stdout
    assert secret not in table and made["key"] not in table
    assert "bot" in table and "acme" in table


def test_a_duplicate_live_name_is_refused_until_revoked(home: Path) -> None:
    first = create(home, "alice", "support-bot")
    again = keys(home, "create", "--user", "bob", "--name", "support-bot", code=1)
    assert "already named 'support-bot'" in again.output
    assert "memex keys revoke support-bot" in again.output
    assert len(json.loads(keys(home, "list", "--format", "json").stdout)) == 1
    keys(home, "revoke", "support-bot")
    second = create(home, "bob", "support-bot")
    assert second["id"] != first["id"]
    listed = json.loads(keys(home, "list", "--all", "--format", "json").stdout)
    assert sorted((k["name"], k["active"]) for k in listed) == [
        ("support-bot", False),
        ("support-bot", True),
    ]


@pytest.mark.parametrize("by", ["name", "id", "key-id-with-prefix"])
def test_revoke_by_name_or_id(home: Path, by: str) -> None:
    made = create(home, "alice", "bot")
    other = create(home, "alice", "other")
    ref = {"name": "bot", "id": made["id"], "key-id-with-prefix": f"mxk_{made['id']}"}[by]
    revoked = json.loads(keys(home, "revoke", ref, "--format", "json").stdout)
    assert revoked["id"] == made["id"] and revoked["active"] is False and revoked["revoked_at"]
    live = json.loads(keys(home, "list", "--format", "json").stdout)
    assert [k["id"] for k in live] == [other["id"]]
    text = keys(home, "revoke", "other").stdout
    assert other["id"] in text and "Revoked" in text


def test_revoking_an_unknown_key_names_the_live_ones(home: Path) -> None:
    create(home, "alice", "bot")
    refused = keys(home, "revoke", "no-such-bot", code=1)
    assert "No live key" in refused.output and "bot" in refused.output
    assert "memex keys list" in refused.output


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (("--user", "../bob", "--name", "x"), "user"),
        (("--user", "", "--name", "x"), "user"),
        (("--user", "alice", "--name", "   "), "name"),
        (("--user", "alice", "--name", "x" * 200), "name"),
        (("--user", "alice", "--name", "x", "--collection", "a b"), "collection"),
    ],
)
def test_create_refuses_bad_input_with_the_fix(
    home: Path, args: tuple[str, ...], word: str
) -> None:
    refused = keys(home, "create", *args, code=1)
    assert word in refused.output.lower()
    assert "Traceback" not in refused.output
    assert json.loads(keys(home, "list", "--format", "json").stdout) == []


def test_keys_list_on_an_empty_home_says_how_to_make_one(home: Path) -> None:
    assert "memex keys create" in keys(home, "list").stdout


# -- the operator secret -----------------------------------------------------------------------


def test_an_unset_admin_secret_is_generated_readable_by_the_owner_only(home: Path) -> None:
    path = home / "admin-secret"
    with served(home, env={"MEMEX_ADMIN_SECRET": ""}) as service:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        secret = path.read_text(encoding="utf-8").strip()
        assert len(secret) >= 32 and secret != service.admin_secret
        assert f"{path} (new, readable by you only)" in service.output()
        assert secret not in service.output()
        operator = MemexClient(service.url, admin_secret=secret, timeout=CLIENT_TIMEOUT)
        assert operator.whoami().kind == "operator"
        with pytest.raises(AuthenticationError):
            MemexClient(
                service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT
            ).whoami()
    path.chmod(0o644)  # a copy others can read is narrowed again on the next start
    with served(home, env={"MEMEX_ADMIN_SECRET": ""}) as service:
        assert path.read_text(encoding="utf-8").strip() == secret  # reused
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert (
            MemexClient(service.url, admin_secret=secret, timeout=CLIENT_TIMEOUT).whoami().kind
            == "operator"
        )


def test_a_short_admin_secret_stops_the_server_with_the_fix(home: Path) -> None:
    with pytest.raises(RuntimeError) as failed, served(home, env={"MEMEX_ADMIN_SECRET": "short"}):
        pass
    assert "too short" in str(failed.value) and "Traceback" not in str(failed.value)


# -- keys and a running server -----------------------------------------------------------------


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    home = make_home(tmp_path_factory.mktemp("server-keys") / "home")
    with served(home) as service:
        yield service


def test_a_key_made_on_the_command_line_works_at_once_on_the_running_server(running: Any) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memex_core",
            "--home",
            str(running.home),
            "keys",
            "create",
            "--user",
            "carol",
            "--name",
            "cli-made",
            "--collection",
            "acme",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    me = MemexClient(running.url, api_key=made["key"], timeout=CLIENT_TIMEOUT).whoami()
    assert (me.kind, me.user_id, me.name, me.collection, me.key_id) == (
        "agent",
        "carol",
        "cli-made",
        "acme",
        made["id"],
    )


def test_keys_over_http_create_list_revoke(running: Any) -> None:
    op = Raw(running.url, running.admin_secret)
    made = assert_clean_response(
        op.post("/v1/admin/keys", {"user": "dave", "name": "http-bot", "corpus": False})
    )
    assert {"key", "user", "name", "id", "user_id", "corpus", "active"} <= set(made)
    assert (made["user"], made["corpus"], made["active"]) == ("dave", False, True)
    agent = Raw(running.url, made["key"])
    assert assert_clean_response(agent.get("/v1/whoami"))["corpus"] is False
    listed = assert_clean_response(op.get("/v1/admin/keys"))
    assert made["id"] in {k["id"] for k in listed}
    secret = made["key"].split("_", 2)[2]
    assert secret not in json.dumps(listed)
    assert all(not {"key", "salt", "secret_hash"} & set(k) for k in listed)
    used = next(k for k in listed if k["id"] == made["id"])
    assert used["last_used_at"] is not None  # the whoami above
    assert used["active"] is True
    duplicate = op.post("/v1/admin/keys", {"user": "erin", "name": "http-bot"})
    assert error_of(duplicate)[:2] == (422, "invalid_request")
    revoked = assert_clean_response(op.post("/v1/admin/keys/revoke", {"key": "http-bot"}))
    assert revoked["revoked_at"] is not None and revoked["active"] is False
    assert error_of(agent.get("/v1/whoami"))[:2] == (401, "invalid_credentials")
    again = op.post("/v1/admin/keys/revoke", {"key": made["id"]})
    assert error_of(again)[:2] == (404, "not_found")
    everything = assert_clean_response(op.get("/v1/admin/keys", params={"include_revoked": True}))
    assert made["id"] in {k["id"] for k in everything if k["revoked_at"]}
    assert made["id"] not in {k["id"] for k in assert_clean_response(op.get("/v1/admin/keys"))}


def test_the_client_manages_keys(running: Any) -> None:
    op = MemexClient(running.url, admin_secret=running.admin_secret, timeout=CLIENT_TIMEOUT)
    made = op.create_key("frank", name="client-bot", collection="team")
    listed = {k.id: k for k in op.list_keys()}
    assert listed[made["id"]].collection == "team" and listed[made["id"]].active
    revoked = op.revoke_key(made["id"])
    assert not revoked.active
    assert made["id"] not in {k.id for k in op.list_keys()}
    assert made["id"] in {k.id for k in op.list_keys(include_revoked=True)}
