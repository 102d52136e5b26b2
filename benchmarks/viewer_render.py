"""Benchmark 19: time to first render of the viewer's search results at 100,000 fragments.

A real ``memex serve`` (its defaults, 127.0.0.1) serves the home of the hybrid-latency
benchmark (:mod:`benchmarks.scale`, SciFact passages with MiniLM vectors from the cache);
headless Debian Chromium (Playwright, :mod:`tests.browser.chromium`) signs in with the
operator secret through the sign-in form, then opens ``/?q=<query>&mode=dig`` for each
timed SciFact query. The page's own clock measures it: a MutationObserver, installed
before the page's first byte, notes ``performance.now()`` (milliseconds since navigation
start) when the results list (``#hits`` with a hit, or ``#no-results``) is in the
document; first contentful paint comes from the Performance API. The peer, in the same
run and interleaved query by query (alternating which goes first), is the same search
through ``POST /v1/search`` (hybrid, the page's limit of 20) with httpx: request, JSON
decoded. The page's hit ids are checked equal to the JSON's, in order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from benchmarks import corpus, scale, service
from benchmarks.context import RunContext, log
from benchmarks.metrics import percentile
from benchmarks.report import Section, ms, table

if TYPE_CHECKING:
    from playwright.sync_api import Browser

TITLE = "19. Viewer: time to first render of search results"
QUERIES = 20
QUICK_QUERIES = 6
WARMUP = 3
LIMIT = 20  # the search page's default (memex_viewer.search.DEFAULT_LIMIT)
RESULTS = "#hits li.hit, #no-results"

#: Installed before any page script: when the results list appears, note the time.
OBSERVE_RESULTS = """
(() => {
  const selector = "__SELECTOR__";
  const seen = () => {
    if (window.__resultsAt === undefined && document.querySelector(selector)) {
      window.__resultsAt = performance.now();
      return true;
    }
    return false;
  };
  const observer = new MutationObserver(() => { if (seen()) observer.disconnect(); });
  observer.observe(document, {childList: true, subtree: true});
})();
""".replace("__SELECTOR__", RESULTS)

PAGE_TIMES = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  return {
    results: window.__resultsAt ?? null,
    response_start: nav ? nav.responseStart : null,
    response_end: nav ? nav.responseEnd : null,
    dom_content_loaded: nav ? nav.domContentLoadedEventEnd : null,
    fcp: paint ? paint.startTime : null,
    ids: [...document.querySelectorAll('#hits li.hit')].map(li => li.dataset.id),
  };
}
"""


@dataclass
class Timings:
    results: list[float] = field(default_factory=list)  # navigation start -> results in DOM
    first_byte: list[float] = field(default_factory=list)
    fcp: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)  # Python: goto -> selector found
    json: list[float] = field(default_factory=list)  # POST /v1/search, same query
    mismatched: list[str] = field(default_factory=list)


def unavailable() -> str | None:
    from tests.browser import chromium

    return service.unavailable() or chromium.unavailable_reason()


def run(ctx: RunContext) -> Section:
    section = Section("viewer", TITLE)
    reason = corpus.unavailable() or ctx.embedder_available() or unavailable()
    if reason:
        section.skipped = reason
        return section
    size = service.cached_size(ctx)
    point = scale.point(ctx, size, with_peers=False)
    timed, warmup = scale.queries()
    count = QUICK_QUERIES if ctx.quick else QUERIES
    queries = timed[:count]
    with service.running_server(point.home, ctx.tmp / f"viewer-{size}.log") as server:
        log(f"viewer {size:,}: {len(queries)} searches in Chromium and through /v1/search")
        found = measure(server.url, server.admin_secret, queries, warmup[:WARMUP])
    _fill(section, size, point, found)
    return section


def measure(url: str, secret: str, queries: list[str], warmup: list[str]) -> Timings:
    """Each query in the browser and through ``/v1/search``, in a Chromium of its own."""
    from playwright.sync_api import sync_playwright

    from tests.browser import chromium

    with sync_playwright() as playwright:
        browser = chromium.launch(playwright)
        try:
            return measure_in(browser, url, secret, queries, warmup)
        finally:
            browser.close()


def measure_in(
    browser: Browser, url: str, secret: str, queries: list[str], warmup: list[str]
) -> Timings:
    import httpx

    from tests.browser import chromium

    found = Timings()
    headers = {"Authorization": f"Bearer {secret}"}
    context = browser.new_context(viewport=chromium.VIEWPORT)  # type: ignore[arg-type]
    with httpx.Client(base_url=url, headers=headers, timeout=120.0) as http:
        try:
            context.set_default_timeout(120_000)
            context.add_init_script(OBSERVE_RESULTS)
            page = context.new_page()
            page.goto(f"{url}/signin")
            page.fill("input[name=credential]", secret)
            with page.expect_navigation():
                page.press("input[name=credential]", "Enter")

            def in_browser(query: str) -> dict[str, Any]:
                target = f"{url}/?{urlencode({'q': query, 'mode': 'dig'})}"
                started = time.perf_counter()
                page.goto(target, wait_until="commit")
                page.wait_for_selector(RESULTS, state="attached")
                wall = time.perf_counter() - started
                page.wait_for_load_state("load")
                times: dict[str, Any] = page.evaluate(PAGE_TIMES)
                times["wall"] = wall
                return times

            def as_json(query: str) -> tuple[float, list[str]]:
                body = {"query": query, "mode": "hybrid", "limit": LIMIT}
                started = time.perf_counter()
                response = http.post("/v1/search", json=body)
                response.raise_for_status()
                results = response.json()["results"]
                return time.perf_counter() - started, [r["fragment"]["id"] for r in results]

            for query in warmup:
                in_browser(query)
                as_json(query)
            for n, query in enumerate(queries):
                if n % 2:
                    elapsed, ids = as_json(query)
                    times = in_browser(query)
                else:
                    times = in_browser(query)
                    elapsed, ids = as_json(query)
                found.json.append(elapsed)
                found.wall.append(times["wall"])
                if times["results"] is not None:
                    found.results.append(times["results"] / 1000)
                if times["response_start"] is not None:
                    found.first_byte.append(times["response_start"] / 1000)
                if times["fcp"] is not None:
                    found.fcp.append(times["fcp"] / 1000)
                if times["ids"] != ids:
                    found.mismatched.append(query[:60])
        finally:
            context.close()
    return found


def _row(name: str, values: list[float], baseline: float) -> list[object]:
    if not values:
        return [name, 0, "-", "-", "-"]
    p50 = percentile(values, 50)
    return [
        name,
        len(values),
        ms(p50),
        ms(percentile(values, 95)),
        f"{p50 / baseline:.1f}x" if baseline else "-",
    ]


def _fill(section: Section, size: int, point: scale.Point, found: Timings) -> None:
    from benchmarks.report import Check

    json50 = percentile(found.json, 50)
    results50 = percentile(found.results, 50) if found.results else float("nan")
    section.checks.append(
        Check(
            f"search results rendered @ {size:,} fragments (p50, navigation start to list)",
            f"{ms(results50)} (p95 {ms(percentile(found.results, 95))})"
            if found.results
            else "not measured",
            "-",
            f"/v1/search JSON p50 {ms(json50)} ({results50 / json50:.1f}x)",
        )
    )
    section.checks.append(
        Check(
            "page hits equal /v1/search results (ids, order)",
            f"{len(found.json) - len(found.mismatched)}/{len(found.json)} queries",
            "all",
            "; ".join(found.mismatched[:3]) or "-",
            not found.mismatched,
        )
    )
    section.add(
        f"Corpus: the first {corpus.describe(corpus.passages(size))}; the home of benchmark "
        f"10 at {size:,} fragments (bm25, chroma, rrf, MiniLM query embeddings), served by "
        "`memex serve` with its defaults on 127.0.0.1. Headless Debian Chromium (Playwright "
        "pointed at /usr/bin/chromium), signed in as the operator, opens "
        f"`/?q=...&mode=dig` (hybrid, {LIMIT} hits) for {len(found.json)} SciFact queries "
        f"after {WARMUP} warm-up ones; the same query through `POST /v1/search` with httpx "
        "is timed right before or after it (alternating). Times from the page's clock "
        "(Performance API, milliseconds since navigation start): first byte of the "
        "response, the results list in the document (a MutationObserver installed before "
        "the first byte), first contentful paint; 'wall' is Python's `goto` to "
        "`wait_for_selector` (includes Playwright's round trips). Ratios against the JSON "
        "p50.",
        table(
            ["measure", "queries", "p50", "p95", "vs JSON p50"],
            [
                _row("browser: first byte", found.first_byte, json50),
                _row("browser: results list in the document", found.results, json50),
                _row("browser: first contentful paint", found.fcp, json50),
                _row("browser: wall (Playwright)", found.wall, json50),
                _row("POST /v1/search (JSON, httpx)", found.json, json50),
            ],
        ),
    )
