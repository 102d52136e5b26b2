"""memex plugin ``llm``: memory extraction and consolidation with a chat model.

Any langchain-core chat model works (OpenAI, Anthropic, Ollama, ...). From
config.toml::

    [extractor]
    use = "llm"
    [extractor.llm]
    chat_model = "langchain_openai:ChatOpenAI"
    chat_model_args = { model = "gpt-4o-mini", temperature = 0 }

    [consolidator]
    use = "llm"
    [consolidator.llm]
    chat_model = "langchain_ollama:ChatOllama"
    chat_model_args = { model = "llama3.1" }

    [supersession]
    use = "llm"          # the rules decide what they can read, the model the rest
    [supersession.llm]
    chat_model = "langchain_openai:ChatOpenAI"
    chat_model_args = { model = "gpt-4o-mini", temperature = 0 }

or from Python, with a model object::

    from memex_llm import LLMConsolidator, LLMExtractor
    extractor = LLMExtractor(ChatOpenAI(model="gpt-4o-mini"))

langchain-core (and the pydantic it brings) is imported only when a component
is built or the classes are first used, so memex starts without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl
from memex_core.plugins import lazy_exports
from memex_llm.errors import LLMSettingError, ModelOutputError
from memex_llm.settings import LLMSettings, load_chat_model, parse_settings

if TYPE_CHECKING:
    from memex_llm.chat import AnsweringChatModel
    from memex_llm.consolidator import LLMConsolidator
    from memex_llm.extractor import LLMExtractor
    from memex_llm.supersession import LLMSupersessionJudge

__all__ = [
    "LLMConsolidator",
    "LLMExtractor",
    "LLMSettingError",
    "LLMSettings",
    "LLMSupersessionJudge",
    "ModelOutputError",
    "build_chat_model",
    "build_consolidator",
    "build_extractor",
    "build_supersession_judge",
    "load_chat_model",
    "parse_settings",
]

# The classes import langchain_core; they load on first use, not with the plugin.
__getattr__ = lazy_exports(
    __name__,
    {
        "LLMExtractor": "extractor",
        "LLMConsolidator": "consolidator",
        "LLMSupersessionJudge": "supersession",
    },
)


def build_extractor(context: PluginContext) -> LLMExtractor:
    from memex_llm.extractor import LLMExtractor

    settings = parse_settings(context.settings, role="extractor")
    model = load_chat_model(settings, role="extractor")
    return LLMExtractor(model, max_retries=settings.max_retries)


def build_consolidator(context: PluginContext) -> LLMConsolidator:
    from memex_llm.consolidator import LLMConsolidator

    settings = parse_settings(context.settings, role="consolidator")
    model = load_chat_model(settings, role="consolidator")
    return LLMConsolidator(model, max_retries=settings.max_retries)


def build_supersession_judge(context: PluginContext) -> LLMSupersessionJudge:
    """The rules judge (memex_rules, shipped with memex) backed by the ``[supersession.llm]``
    chat model for the facts the rules cannot read."""
    from memex_llm.supersession import LLMSupersessionJudge
    from memex_rules.question_slots import RulesJudge  # the rules judge that reads questions

    settings = parse_settings(context.settings, role="supersession")
    model = load_chat_model(settings, role="supersession")
    return LLMSupersessionJudge(model, RulesJudge(), max_retries=settings.max_retries)


def build_chat_model(context: PluginContext) -> AnsweringChatModel:
    """The chat model ``memex ask`` answers with, from the ``[ask]`` table's ``chat_model``,
    ``chat_model_args`` and ``max_retries``; a setting it cannot use is an
    :class:`LLMSettingError` naming ``[ask]`` (memex adds the example)."""
    from memex_llm.chat import AnsweringChatModel

    try:
        model = load_chat_model(parse_settings(context.settings, role="ask"), role="ask")
    except LLMSettingError as exc:
        problem = str(exc).split("\nFor example:")[0].replace("[ask.llm]", "[ask]")
        raise LLMSettingError(problem) from exc
    return AnsweringChatModel(model)


#: What every component of this plugin needs: langchain_core, which memex[langchain] installs.
_NEEDS_LANGCHAIN: dict[str, Any] = {"requires": ("langchain_core",), "extra": "langchain"}


@hookimpl
def register_chat_models(register: Any) -> None:
    register(
        "llm",
        build_chat_model,
        **_NEEDS_LANGCHAIN,
        description="A chat model answers `memex ask` with citations ([ask] chat_model = ...).",
    )


@hookimpl
def register_extractors(register: Any) -> None:
    register(
        "llm",
        build_extractor,
        **_NEEDS_LANGCHAIN,
        description="A chat model lists the facts ([extractor.llm] chat_model = ...).",
    )


@hookimpl
def register_consolidators(register: Any) -> None:
    register(
        "llm",
        build_consolidator,
        **_NEEDS_LANGCHAIN,
        description="A chat model decides ADD/UPDATE/DELETE/NONE ([consolidator.llm] ...).",
    )


@hookimpl
def register_supersession_judges(register: Any) -> None:
    register(
        "llm",
        build_supersession_judge,
        **_NEEDS_LANGCHAIN,
        description=(
            "The rules judge, and a chat model for the facts it cannot read "
            "([supersession.llm] chat_model = ...)."
        ),
    )
