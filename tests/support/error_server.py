"""One ``memex serve`` for the errors module (tests/integrations/server/test_server_errors.py):
small body and upload limits, an agent key of alice's, a fact of hers and one of bob's, and
raw HTTP clients as the operator, the agent and no one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from memex_client import MemexClient
from tests.support.memex_service import Service
from tests.support.server_fixtures import CLIENT_TIMEOUT, Raw, keyword_only_home, served

MAX_BODY = 4096
MAX_UPLOAD = 16384
UNKNOWN_MEMORY = "mem_0123456789abcdef0123"
UNKNOWN_FRAGMENT = "f" * 32


@dataclass
class Errors:
    service: Service
    op: Raw
    agent: Raw
    anonymous: Raw
    key: str
    alice_fact: str


@pytest.fixture(scope="module")
def errors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Errors]:
    home = keyword_only_home(tmp_path_factory.mktemp("server-errors") / "home")
    # Dozens of wrong credentials from one address, on purpose: the limit on them would
    # answer 429 after five (it has its own tests in
    # tests/integrations/server/test_auth_throttle.py).
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("[serve]\nauth_failures = 0\n")
    args = ("--max-body", str(MAX_BODY), "--max-upload", str(MAX_UPLOAD))
    with served(home, extra_args=args) as service:
        client = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        key = client.create_key("alice", name="alice-bot")["key"]
        alice = MemexClient(service.url, api_key=key, timeout=CLIENT_TIMEOUT).agent()
        fact = alice.remember("Alice prefers green tea").memory_ids[0]
        alice.write("user/notes.md", "Alice's notes about [[shared/handbook]]")
        client.operator().agent("bob").remember("Bob prefers oolong")
        yield Errors(
            service,
            Raw(service.url, service.admin_secret),
            Raw(service.url, key),
            Raw(service.url),
            key,
            fact,
        )
