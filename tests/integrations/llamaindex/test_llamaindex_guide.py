"""The LlamaIndex guide's examples run as written, one after the other in one namespace.

``docs/integrations/llamaindex.md`` promises that its Python blocks run as they
stand from a checkout. This runs them from the repository root, with the
guide's ``Memex(...)`` opening a fast home (hashing embedder, in-memory vectors)
in a temporary folder instead of the real models, so the check stays quick.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

import memex_core
from tests.support.component_doubles import fast_memex

REPO = Path(__file__).resolve().parents[3]
GUIDE = REPO / "docs" / "integrations" / "llamaindex.md"


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, re.S | re.M)


def test_the_guides_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []

    def memex_for_the_guide(home: object = None, **options: Any) -> Any:
        memex = fast_memex(tmp_path / "home")
        opened.append(memex)
        return memex

    monkeypatch.setattr(memex_core, "Memex", memex_for_the_guide)
    monkeypatch.chdir(REPO)  # the guide ingests examples/exports
    blocks = python_blocks(GUIDE.read_text())
    assert len(blocks) >= 10

    namespace: dict[str, Any] = {"__name__": "llamaindex_guide"}
    for number, code in enumerate(blocks):
        exec(compile(code, f"{GUIDE.name} block {number}", "exec"), namespace)

    assert opened, "the guide never opened a Memex"
    assert "Miso" in namespace["alice_prompt"][0].content
    for memex in opened:
        memex.close()
