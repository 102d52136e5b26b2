"""Session summaries: one fragment per session saying what it asked, did and ended with.

``write_session_summary(mx, session_id)`` reads the session's fragments (and its
sub-agents': :func:`session_fragments`) through the public API
(``Memex.conversation``), builds the deterministic summary of
:mod:`memex_core.domain.session_summary` and stores it as ONE fragment of the
session's conversation:

- role ``system`` (it reads as a note about the session in ``memex timeline``, and
  stays out of the dialogue turns indexed as context of later turns);
- ``metadata["is_session_summary"] = True``, plus the session's ``session_id``,
  ``cwd`` and ``git_branch`` and which ``summarizer`` wrote it;
- stored with ``add_fragments(origin="capture:session-summary:<session id>",
  replace=True)``: the origin is derived from the session id, so a later Stop
  replaces the summary instead of adding a second one. Its fragment id, like every
  memex id, is derived from the session id and the text (the same summary twice is
  one write; a changed one is a new id that replaces the old).

With ``[capture] summarizer = "llm"`` (or ``"auto"`` and a chat model configured in
``[capture.llm]`` or ``[extractor.llm]``), the chat model rewrites the summary from
the deterministic one, the session's prompts and its final answer (bounded: see
``LLM_*``). Any model error (import, network, an empty reply) is logged and the
deterministic summary is stored instead: a summary never fails because of a model.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memex_capture.settings import CaptureSettings, settings_from_config
from memex_core.domain import Fragment
from memex_core.domain.chunking import message_fragments
from memex_core.domain.session_summary import (
    SUMMARY_FLAG,
    SUMMARY_MESSAGE_ID,
    SessionSummary,
    is_session_summary,
    summarize_session,
)

if TYPE_CHECKING:
    from memex_core.api import Memex

log = logging.getLogger(__name__)

#: How the summary batch is named in ``memex sources``; one origin per session.
ORIGIN_PREFIX = "capture:session-summary:"
#: Bounds on what the chat model reads (characters).
LLM_PROMPTS = 12
LLM_PROMPT_CHARS = 300
LLM_ANSWER_CHARS = 2000
#: Longest LLM summary kept (a model that rambles is cut, not trusted further).
LLM_SUMMARY_CHARS = 2000

_SYSTEM = (
    "You summarize one coding-agent session for the developer's future self. "
    "Write at most 8 short lines of plain text: what was asked, what was done (name the "
    "files and commands that mattered), what went wrong and how it was resolved, and "
    "where it ended (done, or what is left). Use only facts given below; never invent "
    "file names, commands or results. No preamble, no markdown headings."
)


def origin_of(session_id: str) -> str:
    return f"{ORIGIN_PREFIX}{session_id}"


def session_fragments(mx: Memex, session_id: str) -> list[Fragment]:
    """The session's fragments in order (its stored summary left out), then its
    sub-agents': Claude Code files each sub-agent as a conversation of its own whose
    fragments name the session (``session_id``) and carry ``agent_id``; the catalog
    finds them through the folders sessions recorded (``session_conversations``)."""
    own = [f for f in mx.conversation(session_id) if not is_session_summary(f)]
    if not own:
        return []
    helpers: list[Fragment] = []
    for conversation in mx.catalog.session_conversations(session_id):
        if conversation != session_id:
            helpers.extend(
                f
                for f in mx.conversation(conversation)
                if f.metadata.get("agent_id") and not is_session_summary(f)
            )
    return own + helpers


def build_summary(mx: Memex, session_id: str) -> SessionSummary | None:
    """The deterministic summary of a stored session, or ``None`` when memex has none of it."""
    fragments = session_fragments(mx, session_id)
    if not fragments:
        return None
    return summarize_session(fragments, session_id=session_id)


def write_session_summary(
    mx: Memex,
    session_id: str,
    *,
    settings: CaptureSettings | None = None,
    chat_model: Any | None = None,
    embed: bool = True,
) -> Fragment | None:
    """Build, store and return the session's summary fragment (``None``: no such session).

    ``chat_model`` (any object with ``invoke``) overrides the configured one and
    turns the LLM summarizer on, for tests and callers that hold a model already.
    """
    fragments = session_fragments(mx, session_id)
    if not fragments:
        return None
    summary = summarize_session(fragments, session_id=session_id)
    if summary.is_empty:
        return None
    settings = settings or settings_from_config(mx.config)
    text, how = summary.render(), "rules"
    model = chat_model
    if model is None and settings.use_llm:
        model = _load_model(settings)
    if model is not None:
        better = llm_summary(model, summary, fragments)
        if better is not None:
            text, how = better, "llm"
    fragment = summary_fragment(summary, fragments, text, summarizer=how)
    if mx.get([fragment.id]):
        return fragment  # this very summary is stored already: nothing to replace
    mx.add_fragments([fragment], origin=origin_of(session_id), embed=embed, replace=True)
    return fragment


def summary_fragment(
    summary: SessionSummary, fragments: Sequence[Fragment], text: str, *, summarizer: str
) -> Fragment:
    """The one fragment that stores ``text`` as the summary of the session of ``fragments``."""
    first = fragments[0]
    metadata: dict[str, Any] = {
        SUMMARY_FLAG: True,
        "session_id": summary.session_id,
        "summarizer": summarizer,
    }
    for key, value in (("cwd", summary.cwd), ("git_branch", summary.git_branch)):
        if value:
            metadata[key] = value
    (fragment,) = message_fragments(
        source_kind=first.source_kind,
        source_path=origin_of(summary.session_id),
        conversation_id=summary.session_id,
        message_id=SUMMARY_MESSAGE_ID,
        role="system",
        text=text,
        timestamp=summary.ended,
        title=first.title,
        metadata=metadata,
        max_chars=None,  # one fragment, whatever its length: a later one must replace it whole
        source_id=summary.session_id,
    )
    return fragment


def _load_model(settings: CaptureSettings) -> Any | None:
    """The configured chat model, or ``None`` (logged) when it cannot be built."""
    from memex_llm.settings import LLMSettings, load_chat_model

    role = settings.llm_table.split(".")[0] or "capture"
    try:
        return load_chat_model(
            LLMSettings(
                settings.llm["chat_model"],
                dict(settings.llm.get("chat_model_args") or {}),
                int(settings.llm.get("max_retries", 1)),
            ),
            role=role,
        )
    except Exception as exc:  # any failure means: summarize by rules
        log.warning("session summary by rules: the chat model of [%s] failed: %s", role, exc)
        return None


def llm_prompt(summary: SessionSummary, fragments: Sequence[Fragment]) -> str:
    """What the chat model reads: the deterministic summary, the prompts, the last answer."""
    prompts = [p[:LLM_PROMPT_CHARS] for p in summary.prompt_texts[:LLM_PROMPTS]]
    more = len(summary.prompt_texts) - len(prompts)
    answer = _final_answer(fragments)[:LLM_ANSWER_CHARS]
    parts = ["Facts gathered from the transcript:", summary.render(), "", "The user's prompts:"]
    parts.extend(f"{n}. {p}" for n, p in enumerate(prompts, start=1))
    if more > 0:
        parts.append(f"(and {more} more)")
    if answer:
        parts.extend(["", "The assistant's last answer:", answer])
    return "\n".join(parts)


def llm_summary(
    chat_model: Any, summary: SessionSummary, fragments: Sequence[Fragment]
) -> str | None:
    """The model's summary, headed like the deterministic one; ``None`` (logged) on failure."""
    try:
        from langchain_core.messages import HumanMessage, SystemMessage

        from memex_llm.chat import model_label, reply_text

        reply = chat_model.invoke(
            [SystemMessage(_SYSTEM), HumanMessage(llm_prompt(summary, fragments))]
        )
        text = reply_text(reply).strip()
    except Exception as exc:  # a model's failure must not lose the summary
        log.warning(
            "session %s: the chat model failed (%s: %s); the summary is built by rules",
            summary.session_id,
            type(exc).__name__,
            exc,
        )
        return None
    if not text:
        log.warning(
            "session %s: %s gave an empty summary; the summary is built by rules",
            summary.session_id,
            model_label(chat_model),
        )
        return None
    header = summary.render().splitlines()[0]
    return f"{header}\n{text[:LLM_SUMMARY_CHARS].rstrip()}"


def _final_answer(fragments: Sequence[Fragment]) -> str:
    """The last assistant prose of the session, whole (chunks joined)."""
    pieces: list[str] = []
    current: str | None = None
    for fragment in fragments:
        meta = fragment.metadata
        if fragment.role != "assistant" or meta.get("tool_call") or meta.get("reasoning"):
            continue
        if meta.get("agent_id"):
            continue  # a sub-agent's answer went to the session, not to the user
        if meta.get("compaction_summary"):
            continue
        message = str(meta.get("message_id") or fragment.id)
        if message != current:
            pieces, current = [], message
        pieces.append(fragment.content)
    return "\n".join(pieces).strip()
