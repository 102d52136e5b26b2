"""Tell the prompts a person typed from the user-role messages Codex injects itself.

Codex sends the model several ``role: user`` messages nobody typed: the
AGENTS.md instructions, the ``<environment_context>`` block, skills, notes
about an aborted turn... Two signals separate them from real prompts:

* their text: Codex wraps each in fixed markers (``# AGENTS.md instructions
  for ...`` up to ``</INSTRUCTIONS>``, ``<environment_context>`` up to
  ``</environment_context>``...) and recognises them the same way;
* the event copy: for every prompt a person submits Codex also writes an
  ``event_msg`` of type ``user_message``, never for injected context. In a
  rollout that has such events, a user message counts only when an event
  claims it. This matters where the text cannot tell (redacted captures, or
  injections without markers, such as the desktop app's).

An event claims the pending user message with the same text, else the latest
pending one (Codex writes the message, then its event, before the model says
anything). Messages stop pending once the model answers: an event after that
has no message pending and stands for the prompt itself (its message may come
later, or never); a later message with its text is then the duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# (start, end) markers of injected context, as Codex matches them (case-insensitive).
CONTEXT_MARKERS: tuple[tuple[str, str], ...] = (
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<environment_context>", "</environment_context>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<plugins>", "</plugins>"),
    ("<subagents>", "</subagents>"),
    ("<subagent_notification>", "</subagent_notification>"),
)


def is_injected_context(text: str) -> bool:
    """Whether one text part is context Codex injected (it opens and closes with its markers)."""
    trimmed = text.strip().lower()
    return any(
        trimmed.startswith(start.lower()) and trimmed.endswith(end.lower())
        for start, end in CONTEXT_MARKERS
    )


@dataclass
class PromptMatcher:
    """Pairs user messages with their ``user_message`` events, in file order.

    ``mirrored`` says whether the rollout has such events at all; without them
    (older rollouts) every non-injected user message is a prompt.
    Keys are whatever the caller uses to identify a message (its position).
    """

    mirrored: bool
    accepted: set[int] = field(default_factory=set)
    _pending: list[tuple[int, str]] = field(default_factory=list)
    _event_texts: list[str] = field(default_factory=list)

    def message(self, key: int, text: str) -> None:
        """A user message (not injected) was read."""
        if not self.mirrored:
            self.accepted.add(key)
        elif _norm(text) in self._event_texts:
            self._event_texts.remove(_norm(text))  # its event came first and stood for it
        else:
            self._pending.append((key, text))

    def model_output(self) -> None:
        """The model wrote something: no earlier message can still be waiting for its event."""
        self._pending.clear()

    def event(self, text: str) -> bool:
        """A ``user_message`` event was read; True when it stands for a prompt itself."""
        if not self._pending:
            self._event_texts.append(_norm(text))
            return True
        same = [key for key, pending in self._pending if _norm(pending) == _norm(text)]
        self.accepted.add(same[-1] if same else self._pending[-1][0])
        self._pending.clear()  # anything older was context the event skipped over
        return False


def _norm(text: str) -> str:
    return " ".join(text.split())
