"""Every hook is documented, and every hook is exercised by a test somewhere in the suite."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from memex_core import hookspecs

HOOKS = sorted(
    name
    for name, value in vars(hookspecs).items()
    if name.startswith("register_") and inspect.isfunction(value)
)
TESTS = Path(__file__).parents[1]
REPO = TESTS.parent
#: Where plugins shipped in this repository live: built-ins, integrations, the tutorial's example.
SHIPPED = (REPO / "plugins", REPO / "integrations", REPO / "docs" / "examples")


def test_hooks_exist_for_every_plugin_kind() -> None:
    assert HOOKS == [
        "register_catalogs",
        "register_chat_models",
        "register_commands",
        "register_consolidators",
        "register_doctor_checks",
        "register_embedders",
        "register_extractors",
        "register_keyword_stores",
        "register_rankers",
        "register_redactors",
        "register_sources",
        "register_supersession_judges",
        "register_vector_stores",
    ]


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented(hook: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    assert len(doc.split()) >= 8, f"{hook} needs a docstring that explains it"


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_test(hook: str) -> None:
    users = [
        path.name
        for path in TESTS.rglob("test_*.py")
        if path.name != Path(__file__).name and hook in path.read_text()
    ]
    assert users, f"no test implements {hook}; add one that registers a component through it"


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_real_implementation_to_read(hook: str) -> None:
    """A plugin author can always find a working example of a hook in this repository."""
    implementations = [
        path
        for root in SHIPPED
        for path in root.rglob("*.py")
        if "tests" not in path.parts and f"def {hook}(" in path.read_text(encoding="utf-8")
    ]
    assert implementations, f"no plugin in {', '.join(p.name for p in SHIPPED)} implements {hook}"
