"""Regenerate the parts of the docs that are derived from the code.

    python docs/generate.py           # rewrite every generated region in docs/
    python docs/generate.py --check   # exit 1, naming the stale files, if any is out of date

Like cog (which simonw/llm uses for its CLI reference), the generated text lives in
the committed Markdown between two markers, with hand-written prose around it::

    <!-- [[[generate cli]]] -->
    ...replaced on every run...
    <!-- [[[end]]] -->

Generators (in ``docs/generators/``): ``cli`` (every ``memex`` command's ``--help``,
plugin commands included), ``hooks`` (hook specs and the contracts they name) and
``components`` (what the built-in plugins register), ``api`` (the routes of
``memex serve``, from its OpenAPI schema). Only plugins shipped in the
``memex`` distribution are loaded, so a third-party plugin installed in your
environment never leaks into the reference.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Callable
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS))  # the generators package sits next to this script

from generators import builtin_only  # noqa: E402

REGION = re.compile(
    r"(?P<open><!-- \[\[\[generate (?P<name>[a-z_]+)\]\]\] -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- \[\[\[end\]\]\] -->)",
    re.DOTALL,
)
SKIP = ("examples",)  # folders of docs/ that hold no generated pages


def generators() -> dict[str, Callable[[], str]]:
    builtin_only()  # before anything loads plugins
    from generators import api_reference, cli_reference, components, hook_reference

    return {
        "api": api_reference.render,
        "cli": cli_reference.render,
        "hooks": hook_reference.render,
        "components": components.render,
    }


def pages() -> list[Path]:
    return sorted(
        path
        for path in DOCS.rglob("*.md")
        if not any(part in SKIP for part in path.relative_to(DOCS).parts)
    )


def regenerate(text: str, rendered: dict[str, str], path: Path) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in rendered:
            raise SystemExit(f"{path}: unknown generator {name!r} (known: {', '.join(rendered)})")
        return f"{match['open']}{rendered[name].rstrip()}\n{match['close']}"

    return REGION.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if any page is stale"
    )
    args = parser.parse_args(argv)
    rendered = {name: render() for name, render in generators().items()}
    stale: list[Path] = []
    for path in pages():
        text = path.read_text(encoding="utf-8")
        if not REGION.search(text):
            continue
        new = regenerate(text, rendered, path)
        if new == text:
            continue
        stale.append(path)
        if args.check:
            diff = difflib.unified_diff(
                text.splitlines(), new.splitlines(), str(path), "regenerated", lineterm="", n=1
            )
            print("\n".join(list(diff)[:40]))
        else:
            path.write_text(new, encoding="utf-8")
    names = ", ".join(str(p.relative_to(DOCS.parent)) for p in stale)
    if args.check and stale:
        print(f"\nStale: {names}. Run `python docs/generate.py` and commit the result.")
        return 1
    print(f"Rewrote {names}." if stale else "Generated docs are up to date.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
