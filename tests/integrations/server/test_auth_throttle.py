"""The limit on wrong credentials (memex_server.throttle): per client address, across
addresses, bounded in memory, shared by the viewer's sign-in form and the API.

The limiter itself is driven with a fake clock. Over HTTP: the viewer and the API on one
app (Starlette's TestClient, whose ``client=`` sets the address a request comes from), and
a real ``memex serve`` to show which address counts behind a proxy: ``X-Forwarded-For``
applied from the proxies of ``[serve] trusted_proxies`` only (none by default).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_server.app import build_app
from memex_server.throttle import AuthLimits, FailedAuth, address_key
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    assert_clean_response,
    keyword_only_home,
    served,
)
from tests.support.viewer_fixtures import SECRET, post_signin


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limiter(**limits: Any) -> tuple[FailedAuth, Clock]:
    clock = Clock()
    return FailedAuth(AuthLimits(**limits), clock=clock), clock


# -- the limiter ---------------------------------------------------------------------------------


def test_an_address_is_refused_after_its_failures_until_the_oldest_ages_out() -> None:
    failed, clock = limiter(failures=5, window_s=300)
    for _ in range(4):
        failed.failed("198.51.100.7")
        clock.now += 10
    assert failed.wait("198.51.100.7") == 0  # four: still allowed
    failed.failed("198.51.100.7")  # the fifth, at 1040
    assert failed.wait("198.51.100.7") == 300 - 40  # until the first (1000) is 300 s old
    assert failed.wait("198.51.100.8") == 0  # another address is not touched
    clock.now = 1000 + 300 - 0.5
    assert failed.wait("198.51.100.7") == 1  # whole seconds, rounded up
    clock.now = 1000 + 300
    assert failed.wait("198.51.100.7") == 0  # one try back: the sustained rate is 5 per window
    failed.failed("198.51.100.7")
    assert failed.wait("198.51.100.7") == 10  # until the second (1010) ages out


def test_many_addresses_failing_leave_each_only_one_try() -> None:
    failed, clock = limiter(failures=5, window_s=300, global_failures=10)
    for n in range(9):
        failed.failed(f"203.0.113.{n}")
    assert failed.wait("203.0.113.0") == 0  # 9 failures in all: not yet
    failed.failed("203.0.113.9")
    # 10 in the window, from anywhere: one failure now refuses an address for the window.
    assert failed.wait("203.0.113.0") == 300
    assert failed.wait("203.0.113.9") == 300
    assert failed.wait("192.0.2.1") == 0  # never failed: people elsewhere still sign in
    clock.now += 301
    assert failed.wait("203.0.113.0") == 0  # the wave is over


def test_memory_stays_bounded() -> None:
    failed, _ = limiter(failures=5, global_failures=50, tracked_addresses=100)
    for n in range(5000):
        failed.failed(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}")
    assert failed.tracked == 100
    assert len(failed._everywhere) == 50
    assert failed.wait("10.0.19.135") == 300  # the latest ones are still remembered
    # An address's times never outgrow the limit (it is refused before it can add more).
    busy, _ = limiter(failures=3)
    for _ in range(20):
        busy.failed("10.9.9.9")
    assert len(busy._by_address["10.9.9.9"]) == 3


def test_old_addresses_are_forgotten() -> None:
    failed, clock = limiter(window_s=60)
    for n in range(50):
        failed.failed(f"10.0.0.{n}")
    clock.now += 61
    failed.failed("10.0.1.1")
    assert failed.tracked == 1


def test_ipv6_counts_per_64_network() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9")
    assert address_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7"
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("testclient") == "testclient"
    assert address_key(None) == "unknown"
    failed, _ = limiter(failures=2)
    failed.failed("2001:db8:1:2::1")
    failed.failed("2001:db8:1:2::ffff")  # the same /64: one guesser
    assert failed.wait("2001:db8:1:2:dead::beef") > 0


def test_zero_turns_the_limits_off() -> None:
    failed, _ = limiter(failures=0)
    for _ in range(50):
        failed.failed("198.51.100.7")
    assert failed.wait("198.51.100.7") == 0 and failed.tracked == 0
    alone, _ = limiter(failures=5, global_failures=0)
    for n in range(500):
        alone.failed(f"10.0.{n // 256}.{n % 256}")
    assert alone.wait("10.0.0.1") == 0  # one failure each, no limit across addresses


def test_settings_come_from_the_serve_table_and_bad_ones_name_the_file() -> None:
    limits = AuthLimits.from_table(
        {"auth_failures": 3, "auth_window_s": 60, "auth_global_failures": 0}, "/h/config.toml"
    )
    assert limits == AuthLimits(failures=3, window_s=60.0, global_failures=0)
    assert AuthLimits.from_table({}, "x") == AuthLimits()
    for key, value in (
        ("auth_failures", -1),
        ("auth_failures", 2.5),
        ("auth_failures", "5"),
        ("auth_window_s", 0),
        ("auth_tracked_addresses", 0),
        ("auth_global_failures", True),
    ):
        with pytest.raises(MemexError) as refused:
            AuthLimits.from_table({key: value}, "/h/config.toml")
        message = str(refused.value)
        assert f"[serve] {key} = {value!r} in /h/config.toml" in message
        assert "Default:" in message


# -- over HTTP: the viewer and the API share one count ---------------------------------------------


@pytest.fixture
def app_home(tmp_path: Path) -> Iterator[tuple[Memex, Any]]:
    mx = Memex(keyword_only_home(tmp_path / "home"))
    app = build_app(mx, admin_secret=SECRET, auth_limits=AuthLimits(failures=5, window_s=300))
    yield mx, app
    mx.close()


def from_address(app: Any, host: str) -> TestClient:
    return TestClient(app, client=(host, 40000), follow_redirects=False)


def test_wrong_signins_get_a_429_page_that_says_when(app_home: tuple[Memex, Any]) -> None:
    _, app = app_home
    guesser = from_address(app, "198.51.100.7")
    for n in range(5):
        assert post_signin(guesser, f"wrong-secret-{n}").status_code == 401
    refused = post_signin(guesser, SECRET)  # even the right one: it is not checked
    assert refused.status_code == 429
    assert 250 <= int(refused.headers["retry-after"]) <= 300
    assert 'data-testid="signin-throttled"' in refused.text
    assert re.search(
        r"Too many failed sign-ins from your address\. Try again in (5 min|4 min \d+ s) "
        r"\(at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)\.",
        refused.text,
    ), refused.text
    assert 'data-testid="signin-error"' not in refused.text
    assert "memex_session" not in refused.headers.get("set-cookie", "")
    assert SECRET not in refused.text
    # Someone else, at the same moment, signs in.
    other = from_address(app, "192.0.2.44")
    assert post_signin(other, SECRET).status_code == 303
    assert other.get("/").status_code == 200


def test_the_api_and_the_form_count_together(app_home: tuple[Memex, Any]) -> None:
    mx, app = app_home
    _, key = mx.agent_keys().create("alice", name="alice-bot")
    client = from_address(app, "198.51.100.9")
    for n in range(3):
        assert post_signin(client, f"wrong-{n}").status_code == 401
    for token in ("mxk_000000000000_" + "A" * 43, key[:-1]):  # an unknown key, a typo
        bad = client.get("/v1/whoami", headers={"Authorization": f"Bearer {token}"})
        assert bad.status_code == 401
    limited = client.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"})
    assert limited.status_code == 429
    body = limited.json()
    assert body["error"]["code"] == "too_many_failures"
    assert "try again in" in body["error"]["message"]
    assert "auth_failures" in body["error"]["message"]
    assert int(limited.headers["retry-after"]) > 0
    assert post_signin(client, SECRET).status_code == 429
    ok = from_address(app, "192.0.2.45").get(
        "/v1/whoami", headers={"Authorization": f"Bearer {key}"}
    )
    assert ok.status_code == 200


def test_what_is_not_a_guess_is_not_counted(app_home: tuple[Memex, Any]) -> None:
    mx, app = app_home
    _, old = mx.agent_keys().create("alice", name="rotated")
    mx.agent_keys().revoke("rotated")
    client = from_address(app, "198.51.100.10")
    for _ in range(10):
        # A revoked key sent as it was made, no credentials at all, an empty form.
        assert (
            client.get("/v1/whoami", headers={"Authorization": f"Bearer {old}"}).status_code == 401
        )
        assert client.get("/v1/whoami").status_code == 401
        assert post_signin(client, "").status_code == 401
    assert post_signin(client, SECRET).status_code == 303


def test_a_bad_setting_is_refused_at_start(tmp_path: Path) -> None:
    home = keyword_only_home(tmp_path / "home")
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write("[serve]\nauth_failures = -3\n")
    done = subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert f"[serve] auth_failures = -3 in {home / 'config.toml'}" in done.stderr
    assert "Traceback" not in done.stderr


# -- behind a proxy: the address uvicorn hands over ---------------------------------------------


def limited_home(root: Path, serve: str = "") -> Path:
    home = keyword_only_home(root)
    with (home / "config.toml").open("a", encoding="utf-8") as config:
        config.write(f"[serve]\nauth_failures = 2\n{serve}")
    return home


def whoami(http: httpx.Client, forwarded: str | None) -> httpx.Response:
    headers = {"Authorization": "Bearer wrong-credential-0123456789"}
    if forwarded:
        headers["X-Forwarded-For"] = forwarded
    return http.get("/v1/whoami", headers=headers)


def statuses(http: httpx.Client, *forwarded: str | None) -> list[int]:
    return [whoami(http, address).status_code for address in forwarded]


def test_a_local_client_cannot_pick_its_address_unless_proxies_are_configured(
    tmp_path: Path,
) -> None:
    # uvicorn's default trusts X-Forwarded-For from this machine: a local process sending a
    # new address with each guess was never limited. memex trusts no proxy unless
    # [serve] trusted_proxies names it, and ignores uvicorn's FORWARDED_ALLOW_IPS.
    with served(limited_home(tmp_path / "default"), env={"FORWARDED_ALLOW_IPS": "*"}) as service:
        http = httpx.Client(base_url=service.url, timeout=CLIENT_TIMEOUT)
        # Every request counted under 127.0.0.1, whatever it claims.
        assert statuses(http, "203.0.113.1", "203.0.113.2", "203.0.113.3") == [401, 401, 429]
        assert "FORWARDED_ALLOW_IPS is ignored: list your proxies in [serve] trusted_proxies" in (
            service.output()
        )
    # A proxy on this machine, configured: each client behind it counts apart.
    trusting = limited_home(tmp_path / "trusting", 'trusted_proxies = ["127.0.0.1", "::1"]\n')
    with served(trusting) as service:
        http = httpx.Client(base_url=service.url, timeout=CLIENT_TIMEOUT)
        assert statuses(http, "203.0.113.1", "203.0.113.1") == [401, 401]
        limited = whoami(http, "203.0.113.1")
        assert limited.status_code == 429 and limited.headers["retry-after"]
        assert assert_clean_response(limited)["error"]["code"] == "too_many_failures"
        assert statuses(http, "203.0.113.2", None) == [401, 401]  # others behind the proxy
        assert "forwarded client addresses: from 127.0.0.1, ::1 only" in service.output()
    # A proxy elsewhere: this machine's requests are not trusted, whatever they claim.
    elsewhere = limited_home(tmp_path / "elsewhere", 'trusted_proxies = ["10.9.8.0/24"]\n')
    with served(elsewhere) as service:
        http = httpx.Client(base_url=service.url, timeout=CLIENT_TIMEOUT)
        assert statuses(http, "203.0.113.1", "203.0.113.2", "203.0.113.3") == [401, 401, 429]


def test_fastapis_own_telemetry_is_off_even_when_its_environment_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FastAPI 0.165+ instruments itself with OpenTelemetry and, with this variable, adds
    # OTLP exporters on its own: memex sends nothing off the machine, so all of it is off.
    monkeypatch.setenv("FASTAPI_OTEL_AUTO_CONFIGURE", "true")
    mx = Memex(keyword_only_home(tmp_path / "home"))
    try:
        app = build_app(mx, admin_secret=SECRET)
        config = getattr(app, "_telemetry", None)
        if config is None:
            pytest.skip("this FastAPI has no OpenTelemetry instrumentation")
        assert not any(
            config[k] for k in ("tracing", "metrics", "logs", "operation_spans", "auto_configure")
        )
        assert not app._native_telemetry.enabled()
    finally:
        mx.close()
