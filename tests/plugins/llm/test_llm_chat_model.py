"""The ``llm`` plugin's chat model for ``memex ask``, registered through ``register_chat_models``:
memex itself imports no chat library, it builds whatever chat model is registered as ``llm``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memex_core.api import Memex
from memex_core.domain import ChatModel, PluginContext
from memex_core.errors import MemexError
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from memex_core.services.ask_fusion import ANSWER_SYSTEM
from tests.support.export_builders import write_chatgpt_export

FAKE_MODEL = "langchain_core.language_models.fake_chat_models:FakeListChatModel"


def test_the_llm_plugin_registers_a_chat_model_for_ask(tmp_path: Path) -> None:
    registry = load_registry()
    registration = registry.get("chat_model", "llm")
    assert registration.plugin == "llm" and registration.extra == "langchain"
    settings = {"chat_model": FAKE_MODEL, "chat_model_args": {"responses": ["Paris [1]."]}}
    model = registry.build("chat_model", "llm", PluginContext(tmp_path, settings))
    assert isinstance(model, ChatModel)
    assert model.label == "FakeListChatModel"
    assert model.reply(ANSWER_SYSTEM, "Where? [1] Paris") == "Paris [1]."


def test_a_setting_the_chat_model_cannot_use_names_the_ask_table(tmp_path: Path) -> None:
    registry = load_registry()
    with pytest.raises(MemexError, match=r"config.toml \[ask\]: chat_model is not set"):
        registry.build("chat_model", "llm", PluginContext(tmp_path, {"max_retries": 1}))


class CannedModel:
    """A chat model of a third-party plugin: anything with ``label`` and ``reply``."""

    label = "canned"

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def reply(self, system: str, prompt: str) -> str:
        return f"From the pack [1] ({self.settings['chat_model']})."


class CannedChatPlugin:
    @hookimpl
    def register_chat_models(self, register: Any) -> None:
        register("llm", lambda context: CannedModel(context.settings))


def test_ask_answers_with_whichever_chat_model_is_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every built-in but the llm plugin: the chat model comes from the plugin below alone.
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "sqlite,bm25,rrf,chatgpt,code,rules,detect_secrets")
    registry = load_registry()
    registry.register_plugin(CannedChatPlugin(), name="canned")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[embedder]\nuse = "none"\n\n[ask]\nchat_model = "any.module:Canned"\n', encoding="utf-8"
    )
    export = write_chatgpt_export(tmp_path / "inputs" / "conversations.json")
    with Memex(home, registry=registry) as mx:
        mx.ingest(export)
        result = mx.ask("sqlite database busy timeout")
    assert result.model == "canned"
    assert result.answer == "From the pack [1] (any.module:Canned)."
    assert result.citations == [1]
