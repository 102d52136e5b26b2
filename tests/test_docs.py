"""The documentation site: generated references current, commands shown real, strict build clean.

The CLI, hook and HTTP API references are generated from the code (`python docs/generate.py`) and
committed; these tests fail when they are stale, when a page shows a command or option that
does not exist, when the tutorial stops showing a file of its example package, and (when
mkdocs is installed, as in CI) when `mkdocs build --strict` warns about anything.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from memex_core import hookspecs

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
EXAMPLE = DOCS / "examples" / "memex-plugin-example"
TUTORIAL = DOCS / "plugins" / "tutorial.md"
HOOKS = [
    name
    for name, value in vars(hookspecs).items()
    if name.startswith("register_") and inspect.isfunction(value)
]
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)
BASH_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)


def hand_written_pages() -> list[Path]:
    """Pages whose commands are typed by hand (the generated references are exempt)."""
    return [
        path
        for path in sorted(DOCS.rglob("*.md"))
        if "examples" not in path.relative_to(DOCS).parts
        and path.parent.name != "reference"
        and not path.name.startswith("benchmarks")
    ]


def test_generated_references_are_current() -> None:
    result = subprocess.run(
        [sys.executable, str(DOCS / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_in_the_hook_reference(hook: str) -> None:
    reference = (DOCS / "reference" / "hooks.md").read_text(encoding="utf-8")
    assert f"\n### {hook}\n" in reference
    first_line = (inspect.getdoc(getattr(hookspecs, hook)) or "").splitlines()[0]
    assert first_line.split("(")[0].replace("``", "`").strip() in reference


def _cli() -> click.Group:
    """The root command with every installed plugin's commands, as `memex` builds it (on a
    copy: the module's group stays as other tests expect it)."""
    from memex_core.cli import cli
    from memex_core.plugins import load_registry

    group = click.Group("memex", commands=dict(cli.commands), params=list(cli.params))
    load_registry().add_commands(group)
    return group


def test_every_command_is_in_the_cli_reference() -> None:
    reference = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    for name, command in _cli().commands.items():
        assert f"\n### memex {name}\n" in reference, f"memex {name} is missing: regenerate"
        for param in command.params:
            if getattr(param, "hidden", False):  # an old name kept working, never shown
                continue
            for flag in (*param.opts, *param.secondary_opts):
                if flag.startswith("-"):
                    assert flag in reference, f"memex {name} {flag} is missing: regenerate"


def test_every_route_and_error_code_is_in_the_api_reference(tmp_path: Path) -> None:
    """Each route a real `memex serve` app has, with the fields of its body, and every
    error code, are in docs/reference/api.md (`generate.py --check` says it is current)."""
    pytest.importorskip("fastapi")
    from memex_core.api import Memex
    from memex_server.app import build_app
    from memex_server.errors import CODES

    reference = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    with Memex(tmp_path / "home") as mx:
        spec = build_app(mx, admin_secret="s").openapi()
    schemas = spec["components"]["schemas"]
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            heading = f"\n### {method.upper()} {path} {{ #"
            assert heading in reference, f"{method.upper()} {path} is missing: regenerate"
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                name = body["schema"]["$ref"].rsplit("/", 1)[-1]
                section = reference.split(heading, 1)[1].split("\n### ", 1)[0]
                for field in schemas[name]["properties"]:
                    assert f"| `{field}` |" in section, f"{path}: field {field} is missing"
    for code, status in CODES.items():
        assert f"| {status} | `{code}` |" in reference, f"error code {code} is missing"
    assert "### GET /openapi.json" in reference
    # The schema itself describes memex's error body, not FastAPI's {"detail": [...]}.
    assert "HTTPValidationError" not in str(spec)
    error = {"$ref": "#/components/schemas/Error"}
    assert spec["paths"]["/v1/search"]["post"]["responses"]["422"]["content"] == {
        "application/json": {"schema": error}
    }
    assert set(schemas["Error"]["properties"]["error"]["properties"]["code"]["enum"]) == set(CODES)


def _shown_commands() -> list[tuple[Path, list[str]]]:
    """Every `memex ...` line of the bash blocks of hand-written pages, split like a shell."""
    shown = []
    for page in hand_written_pages():
        for block in BASH_BLOCK.findall(page.read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r"&&|\|", line.split(" #")[0]):
                    words = shlex.split(part.strip(), comments=True) if part.strip() else []
                    if words[:1] == ["memex"]:
                        shown.append((page, words[1:]))
    return shown


def test_pages_show_only_real_commands_and_options() -> None:
    cli = _cli()
    example_commands = {"journal-check"}  # the tutorial's plugin adds it once installed
    shown = _shown_commands()
    assert len(shown) > 20
    for page, words in shown:
        while words[:1] == ["--home"]:
            words = words[2:]
        name = words[0]
        where = f"{page.relative_to(REPO)}: memex {' '.join(words)}"
        if name in example_commands:
            continue
        assert name in cli.commands, f"{where}: no such command"
        command, rest = cli.commands[name], words[1:]
        while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
            assert rest[0] in command.commands, f"{where}: no such command {rest[0]}"
            command, rest = command.commands[rest[0]], rest[1:]  # memex keys create ...
        known = {flag for p in command.params for flag in (*p.opts, *p.secondary_opts)}
        known |= {"-h", "--help"}
        for word in rest:
            flag = word.split("=")[0]
            if flag.startswith("-") and flag != "-":
                assert flag in known, f"{where}: no option {flag}"


def test_the_tutorial_shows_every_file_of_its_package() -> None:
    included = set(SNIPPET.findall(TUTORIAL.read_text(encoding="utf-8")))
    for path in included:
        assert (REPO / path).is_file(), f"the tutorial includes {path}, which does not exist"
    package = {
        str(path.relative_to(REPO))
        for path in EXAMPLE.rglob("*")
        if path.is_file()
        and path.suffix in (".py", ".toml", ".journal")
        and "__pycache__" not in path.parts
    }
    assert package - included == set(), "show these files in docs/plugins/tutorial.md"


def test_the_site_fetches_nothing() -> None:
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "font: false" in config  # material would otherwise link Google Fonts
    assert "extra_javascript" not in config and "extra_css" not in config


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (pip install -e '.[docs]')",
)
def test_mkdocs_build_strict_is_clean(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,  # the tutorial's snippets are paths from the repository root
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r'<(script|img|iframe)[^>]+src="https?://', html), page
        for tag in re.findall(r"<link[^>]*>", html):
            fetched = any(rel in tag for rel in ("stylesheet", "preconnect", "preload"))
            assert not (fetched and 'href="http' in tag), f"{page}: {tag}"
