"""The plugin registry: entry points, code-registered plugins, unavailable and broken ones."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

import click
import pytest
from click.testing import CliRunner

from memex_core import plugins as plugins_module
from memex_core.domain import ConsolidationDecision, MemoryFact, PluginContext
from memex_core.hookspecs import hookimpl
from memex_core.plugins import PluginUnavailable, load_registry

BUILT_INS = {"chatgpt", "claude_ai", "bm25", "chroma", "minilm", "rrf"}


class FirstSentenceExtractor:
    def extract(self, fragments: Any, fact_types: Any = ()) -> list[MemoryFact]:
        return [MemoryFact(f.content.split(".")[0]) for f in fragments]


class AlwaysAdd:
    def decide(self, fact: MemoryFact, similar: Any) -> ConsolidationDecision:
        return ConsolidationDecision("ADD", fact, reason="always")


class ExamplePlugin:
    @hookimpl
    def register_extractors(self, register: Any) -> None:
        register("first_sentence", lambda context: FirstSentenceExtractor())

    @hookimpl
    def register_consolidators(self, register: Any) -> None:
        register("always_add", lambda context: AlwaysAdd(), description="adds everything")

    @hookimpl
    def register_sources(self, register: Any) -> None:
        register(
            "needs_missing", lambda context: None, requires=("no_such_module_xyz",), extra="nothing"
        )

    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        @cli.command(name="hello-plugin")
        def hello() -> None:
            click.echo("hello from a plugin")


def test_built_in_plugins_load_through_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEX_LOAD_PLUGINS", raising=False)
    registry = load_registry()
    names = {registry.manager.get_name(p) for p in registry.manager.get_plugins()}
    assert names >= BUILT_INS
    assert not registry.broken


@pytest.mark.parametrize(
    ("hook", "kind", "names"),
    [
        ("register_sources", "source", {"chatgpt", "claude_ai"}),
        ("register_keyword_stores", "keyword_store", {"bm25"}),
        ("register_vector_stores", "vector_store", {"chroma"}),
        ("register_embedders", "embedder", {"minilm"}),
        ("register_rankers", "ranker", {"rrf"}),
    ],
)
def test_each_built_in_registers_through_its_hook(hook: str, kind: str, names: set[str]) -> None:
    registry = load_registry()
    assert names <= {r.name for r in registry.registrations(kind)}
    impls = getattr(registry.manager.hook, hook).get_hookimpls()
    assert {registry.manager.get_name(i.plugin) for i in impls} >= names


def test_load_plugins_env_limits_what_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "rrf, chatgpt")
    registry = load_registry()
    assert {r.name for r in registry.registrations()} == {"rrf", "convex", "chatgpt"}
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "")
    assert load_registry().registrations() == []


def test_extractor_and_consolidator_hooks(tmp_path: Any) -> None:
    registry = load_registry()
    registry.register_plugin(ExamplePlugin(), name="example")
    context = PluginContext(home=tmp_path)
    extractor = registry.build("extractor", "first_sentence", context)
    consolidator = registry.build("consolidator", "always_add", context)
    fact = MemoryFact("Alice prefers tea")
    assert consolidator.decide(fact, []).action == "ADD"
    assert extractor.extract([], ()) == []
    assert registry.get("consolidator", "always_add").description == "adds everything"


def test_component_with_missing_requirement_is_unavailable_with_hint(tmp_path: Any) -> None:
    registry = load_registry()
    registry.register_plugin(ExamplePlugin(), name="example")
    reg = registry.get("source", "needs_missing")
    assert not reg.available
    assert reg.missing == ("no_such_module_xyz",)
    assert reg.install_hint == "pip install 'memex[nothing]'"
    with pytest.raises(PluginUnavailable, match=r"pip install 'memex\[nothing\]'"):
        registry.build("source", "needs_missing", PluginContext(home=tmp_path))


def test_unknown_component_names_the_known_ones(tmp_path: Any) -> None:
    with pytest.raises(PluginUnavailable, match=r"known: .*rrf"):
        load_registry().build("ranker", "nope", PluginContext(home=tmp_path))


def test_broken_plugin_is_listed_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = EntryPoint(name="broken", value="memex_no_such_plugin_module", group="memex")
    original = plugins_module.entry_points

    def fake_entry_points(group: str) -> list[EntryPoint]:
        return [*original(group=group), broken]

    monkeypatch.setattr(plugins_module, "entry_points", fake_entry_points)
    registry = load_registry()
    assert [b.name for b in registry.broken] == ["broken"]
    assert "ModuleNotFoundError" in registry.broken[0].error


def test_register_commands_adds_cli_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    from memex_core import cli as cli_module

    original = cli_module.load_registry if hasattr(cli_module, "load_registry") else None
    assert original is None  # the CLI imports the registry lazily

    def registry_with_example() -> Any:
        registry = load_registry()
        registry.register_plugin(ExamplePlugin(), name="example")
        return registry

    monkeypatch.setattr(plugins_module, "load_registry", registry_with_example)
    cli_module._add_plugin_commands()
    try:
        result = CliRunner().invoke(cli_module.cli, ["hello-plugin"])
        assert result.output.strip() == "hello from a plugin"
    finally:
        cli_module.cli.commands.pop("hello-plugin", None)


def test_plugins_command_lists_unavailable_components_with_hint(
    memex_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from memex_core import cli as cli_module

    real_find_spec = plugins_module.importlib.util.find_spec

    def no_chromadb(name: str, *args: Any) -> Any:
        return None if name == "chromadb" else real_find_spec(name, *args)

    monkeypatch.setattr(plugins_module.importlib.util, "find_spec", no_chromadb)
    result = CliRunner().invoke(cli_module.cli, ["plugins", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)["components"]}
    assert rows["chroma"]["available"] is False
    assert rows["chroma"]["install_hint"] == "pip install 'memex[chroma]'"
    assert rows["rrf"]["available"] is True
