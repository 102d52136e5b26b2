"""Browser tests of the viewer: a real ``memex serve`` driven by headless Debian Chromium.

One browser for the whole session (starting Chromium costs a second or two), a fresh
context (cookies, storage) for every test, and a served home per kind of test:

* ``demo``: :func:`tests.browser.demo_home.build_demo_home` (sample exports, a vault with
  links, two users' agent memory, a key for each), keyword-only so the server starts in
  about a second without a model.
* ``xss_demo``: the XSS corpus stored as chat, note and memory text.

Outside CI the tests skip, naming the fix, when Playwright or ``/usr/bin/chromium`` is
missing; with ``CI`` or ``MEMEX_BROWSER_REQUIRED`` set (``.ci/run`` sets it) they fail
instead, so a CI machine without the browser never passes by skipping them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser import chromium
from tests.browser.demo_home import DemoHome, build_demo_home, build_xss_home
from tests.support.server_fixtures import served

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: Milliseconds a page load or a selector may take: generous for a loaded 2-core machine.
TIMEOUT_MS = 30_000

#: Set before any page script: a payload that runs sets ``window.__xss`` or opens a dialog.
TRAP_INIT_SCRIPT = "window.__xss = undefined;"


@dataclass
class Served:
    """A running ``memex serve`` over a built home."""

    url: str
    admin_secret: str
    home: DemoHome
    log: Path

    @property
    def keys(self) -> dict[str, str]:
        return self.home.keys

    def secrets(self) -> list[str]:
        """What no page may ever contain."""
        return [self.admin_secret, *self.home.keys.values()]


@dataclass
class Tab:
    """One page in a fresh browser context, with what it saw: dialogs, script errors."""

    page: Page
    server: Served
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def goto(self, path: str) -> Any:
        response = self.page.goto(self.server.url + path, wait_until="load")
        return response

    def sign_in(self, credential: str, next_path: str = "/") -> None:
        from urllib.parse import quote

        self.goto(f"/signin?next={quote(next_path)}")
        box = self.page.locator("input[name=credential]")
        box.fill(credential)
        with self.page.expect_navigation(wait_until="load"):
            box.press("Enter")
        assert "/signin" not in self.page.url, f"sign-in failed: {self.page.url}"

    def sign_in_operator(self, next_path: str = "/") -> None:
        self.sign_in(self.server.admin_secret, next_path)

    def sign_in_agent(self, user: str, next_path: str = "/") -> None:
        self.sign_in(self.server.keys[user], next_path)

    def script_ran(self) -> list[str]:
        """Evidence that stored text ran as script: dialogs, the trap global, and links or
        handlers a click would run. Empty when the page is clean."""
        found = [f"dialog: {d}" for d in self.dialogs]
        trapped = self.page.evaluate("() => window.__xss")
        if trapped is not None:
            found.append(f"window.__xss = {trapped!r}")
        found += self.page.evaluate(DANGEROUS_NODES_JS)
        return found

    def axe(self) -> list[str]:
        """axe-core's serious and critical violations on the page as it is now (every rule
        axe runs by default: WCAG 2.x A/AA and best practices)."""
        from axe_playwright_python.sync_playwright import Axe

        results = Axe().run(self.page)
        return [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + ", ".join(str(n["target"]) for n in v["nodes"][:5])
            for v in results.response["violations"]
            if v.get("impact") in ("serious", "critical")
        ]

    def text(self) -> str:
        return normalise(self.page.locator("body").inner_text())

    def html(self) -> str:
        return self.page.content()


#: Elements a payload would have made: handlers naming alert/__xss, javascript: URLs,
#: and elements no viewer page has (iframe, object, embed, base, meta refresh).
DANGEROUS_NODES_JS = r"""
() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/[\s\x00-\x1f]/g, '').toLowerCase();
      if (name.startsWith('on') && /alert|__xss|cookie/.test(value)) {
        found.push(`${el.tagName} ${name}=${attr.value}`);
      }
      if (['href', 'src', 'action', 'formaction', 'data', 'xlink:href', 'srcdoc'].includes(name)
          && (value.startsWith('javascript:') || value.startsWith('data:text/html')
              || name === 'srcdoc')) {
        found.push(`${el.tagName} ${name}=${attr.value}`);
      }
    }
    if (['IFRAME', 'OBJECT', 'EMBED', 'BASE', 'FRAME'].includes(el.tagName)) {
      found.push(`<${el.tagName.toLowerCase()}> element`);
    }
    const equiv = (el.getAttribute('http-equiv') || '').toLowerCase();
    if (el.tagName === 'META' && equiv === 'refresh') {
      found.push('<meta http-equiv=refresh>');
    }
  }
  return found;
}
"""


def normalise(text: str) -> str:
    """Whitespace collapsed: how a page lays text out is not what the tests compare."""
    return re.sub(r"\s+", " ", text).strip()


# -- fixtures ------------------------------------------------------------------------------------


# Package scope, not session: Playwright's sync API keeps an asyncio loop running in the
# main thread while it is open, and every later test that calls asyncio.run() (the MCP,
# LangChain and LlamaIndex suites) would fail with "cannot be called from a running event
# loop". The browser closes when the last test of tests/browser/ is done.
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    reason = chromium.unavailable_reason()
    if reason is not None:
        if chromium.required():
            pytest.fail(f"browser tests must run in CI, but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = chromium.launch(playwright)
        try:
            yield launched
        finally:
            launched.close()


#: The browser tests' server believes X-Forwarded-For from this machine, as from a reverse
#: proxy here, so a test can send wrong credentials as another address without locking out
#: the address every other test comes from (memex trusts no proxy unless told to).
PROXY_HERE = '[serve]\ntrusted_proxies = ["127.0.0.1", "::1"]\n'


def _serve(home: DemoHome) -> Iterator[Served]:
    with (home.path / "config.toml").open("a", encoding="utf-8") as config:
        config.write(PROXY_HERE)
    with served(home.path) as service:
        yield Served(service.url, service.admin_secret, home, service.log)


@pytest.fixture(scope="package")
def demo(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # Depends on ``browser`` so that a machine without one skips before building a home.
    home = build_demo_home(tmp_path_factory.mktemp("browser-demo") / "home")
    yield from _serve(home)


@pytest.fixture(scope="package")
def xss_demo(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = build_xss_home(tmp_path_factory.mktemp("browser-xss") / "home")
    yield from _serve(home)


def open_tab(browser: Browser, server: Served) -> Iterator[Tab]:
    context = browser.new_context(viewport=chromium.VIEWPORT)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(TRAP_INIT_SCRIPT)
    page = context.new_page()
    tab = Tab(page, server)

    def on_dialog(dialog: Any) -> None:
        tab.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: tab.errors.append(str(error)))
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def tab(browser: Browser, demo: Served) -> Iterator[Tab]:
    """A fresh context on the demo home, not signed in."""
    yield from open_tab(browser, demo)


@pytest.fixture
def xss_tab(browser: Browser, xss_demo: Served) -> Iterator[Tab]:
    yield from open_tab(browser, xss_demo)
