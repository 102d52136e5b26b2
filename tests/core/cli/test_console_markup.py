"""No literal ``[word]`` in text rich prints, unless it is a style: rich reads ``[ingest]``
as a markup tag and drops it, which printed ``( redact_secrets in config.toml)`` for
``([ingest] redact_secrets in config.toml)`` (issue 32, item 4).

The scan reads every string literal of each module that uses rich (docstrings aside) and
flags a tag rich would take whose name is not a style (``[bold]``, ``[red]`` and ``[/]``
are markup meant as such). A literal that only ever reaches a sink that does not read
markup (click's echo, an exception, ``rich.text.Text``, click's help texts, JSON) is left
alone; escape the others as ``\\[ingest]`` (or print them as ``Text``).
"""

from __future__ import annotations

import ast
import io
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from rich.errors import StyleSyntaxError
from rich.style import Style

REPO = Path(__file__).resolve().parents[3]
ROOTS = ("memex_core", "plugins", "integrations")
#: What rich.markup takes for a tag (its RE_TAGS), with the backslashes that escape it.
TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")
#: Calls whose string arguments never pass through rich's markup parser.
PLAIN_SINKS = {
    "echo",
    "secho",
    "Text",
    "assemble",
    "dumps",
    "option",
    "argument",
    "command",
    "group",
    "ClickException",
    "UsageError",
    "BadParameter",
}
#: Literals that never reach rich although nothing in their own statement says so: (path,
#: tag) and why.
NOT_PRINTED_BY_RICH = {
    ("integrations/memex_server/command.py", "server"): "INSTALL_HINT goes into a MemexError",
    ("integrations/memex_server/command.py", "serve"): "serve's start-up lines use click.echo",
}


def _non_style_tags(text: str) -> Iterator[str]:
    for match in TAG.finditer(text):
        if len(match.group(1)) % 2:  # an odd number of backslashes escapes the bracket
            continue
        tag = match.group(2)
        if tag.startswith(("/", "link=", "link ")):
            continue
        try:
            Style.parse(tag)
        except StyleSyntaxError:
            yield tag


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _plain(name: str) -> bool:
    return name in PLAIN_SINKS or name.endswith(("Error", "Exception"))


def _format_field(text: str, start: int) -> bool:
    """``{task.fields[rate]}`` in a format string: an index, gone once formatted."""
    return text.rfind("{", 0, start) > text.rfind("}", 0, start)


def markup_slips(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node

    def in_plain_sink(node: ast.AST) -> bool:
        current: ast.AST | None = parents.get(id(node))
        while current is not None and not isinstance(current, ast.stmt):
            if isinstance(current, ast.Call) and _plain(_call_name(current)):
                return True
            current = parents.get(id(current))
        return False

    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in docstrings or in_plain_sink(node):
            continue
        for match in TAG.finditer(node.value):
            if _format_field(node.value, match.start()):
                continue
            for tag in _non_style_tags(match.group(0)):
                yield node.lineno, tag


def test_no_literal_bracket_is_eaten_as_markup() -> None:
    found = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "rich" not in text:
                continue
            relative = path.relative_to(REPO).as_posix()
            for line, tag in markup_slips(path):
                if (relative, tag) not in NOT_PRINTED_BY_RICH:
                    found.append(f"{relative}:{line}: [{tag}]")
    assert not found, (
        "rich would read these as markup tags and drop them; escape them as \\[...] or "
        "print them as rich.text.Text: " + "; ".join(found)
    )


def test_the_scan_catches_the_redaction_note(tmp_path: Path) -> None:
    """The shape of the bug that was there: a note built apart, then printed by rich."""
    module = tmp_path / "note.py"
    module.write_text(
        "def note():\n"
        "    return 'Not stored: 1 secret ([ingest] redact_secrets in config.toml).'\n"
        "ok = click.echo('[sync] paths')\n"
        "styled = '[bold]3[/] new, \\\\[ingest] escaped'\n"
        "columns = '{task.fields[rate]:>12}'\n",
        encoding="utf-8",
    )
    assert list(markup_slips(module)) == [(2, "ingest")]


def test_the_redaction_note_keeps_its_table_name() -> None:
    from rich.console import Console

    from memex_core.cli.writing import _privacy_line
    from memex_core.domain import IngestReport

    report = IngestReport(secrets_redacted=Counter(aws_key=1))
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(_privacy_line(report))
    assert "([ingest] redact_secrets in config.toml)" in console.export_text()
