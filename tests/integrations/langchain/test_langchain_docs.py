"""The LangChain guide's examples run as written.

docs/integrations/langchain.md promises that its ```python blocks run one after
the other in one session from a checkout; this runs them so (with the homes they
create moved under a temporary folder). ```py blocks are illustrations that
need packages memex does not install (``langgraph`` itself) and are not run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langgraph.store.base")

from tests.conftest import REPO

GUIDE = REPO / "docs" / "integrations" / "langchain.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_the_guide_links_only_to_pages_that_exist() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links
    for link in links:
        assert not re.match(r"[a-z]+://", link), f"{link}: the site links only to its own pages"
        assert (GUIDE.parent / link).resolve().is_file(), f"{link} does not exist"


@pytest.mark.slow
def test_the_guides_python_examples_run_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = PYTHON_BLOCK.findall(GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    monkeypatch.chdir(REPO)  # the guide ingests examples/exports from a checkout
    monkeypatch.setenv("MEMEX_HOME", str(tmp_path / "default-home"))
    namespace: dict[str, object] = {"__name__": "guide"}
    out = io.StringIO()
    for number, block in enumerate(blocks, 1):
        code = block.replace("/tmp/memex-langchain-", f"{tmp_path}{os.sep}memex-langchain-")
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(code, f"{GUIDE.name}, python block {number}", "exec"), namespace)
            except Exception as exc:  # pragma: no cover - the message names the block
                raise AssertionError(f"python block {number} failed: {exc!r}\n{code}") from exc
    printed = out.getvalue()
    assert "bound to user 'alice'" in printed  # the ScopeError example printed its message
    assert "Bob" not in printed.split("bound to user")[1].split("\n", 2)[1]
    for name in ("mx", "mx2"):
        memex = namespace[name]
        memex.close()  # type: ignore[attr-defined]
