"""What ingest stores of a source's text: ``<private>`` spans dropped, secrets redacted.

Every fragment a source yields (files and folder documents alike) passes through
:class:`FragmentScrubber` before the catalog sees it, in the order memory writes
use: private spans first (never stored, never shown to the redactor), then the
configured redactor (``[redactor] use``, default ``detect_secrets``). The same
transform applies whether a transcript arrives through ``memex ingest`` or
through live capture, so both store the same text.

What is scrubbed: ``content``, ``index_text``, ``title`` and the free-text
metadata sources keep beside the text (``thinking``). Ids are the source's and
do not change: a fragment whose text was redacted keeps its place in its turn
and its chunk links. A fragment that was private in full keeps its place too,
its text replaced by :data:`PRIVATE_PLACEHOLDER`, so nothing of it is stored.

``[ingest] redact_secrets = false`` turns the redactor off for ingest (private
spans are dropped regardless: a person marked them as never to be stored).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from memex_core.domain import Fragment, Redactor
from memex_core.domain.memory.privacy import has_private_marker, strip_private

#: The text of a fragment whose whole text was marked private.
PRIVATE_PLACEHOLDER = "[private]"
#: Metadata keys whose string values are free text written by a person or a model.
FREE_TEXT_METADATA = ("thinking",)


@dataclass
class ScrubTally:
    """What scrubbing removed in one ingest: counts and kinds, never the values."""

    private_spans: int = 0
    secrets: Counter[str] = field(default_factory=Counter)

    @property
    def secrets_redacted(self) -> int:
        return sum(self.secrets.values())


class FragmentScrubber:
    """Drops private spans and redacts secrets in fragments (see the module docstring).

    ``redactor`` is ``None`` when redaction is off; private spans go either way.
    """

    def __init__(self, redactor: Redactor | None, *, skipped_reason: str | None = None) -> None:
        self.redactor = redactor
        #: Why secrets are not redacted though redaction is on (no redactor installed).
        self.skipped_reason = skipped_reason
        self.tally = ScrubTally()

    def text(self, text: str, *, count: bool = True) -> str:
        """``text`` as ingest stores it; ``count`` adds what was removed to the tally
        (off for a fragment's derived texts, which repeat its content)."""
        if has_private_marker(text):
            stripped = strip_private(text)
            if count:
                self.tally.private_spans += stripped.removed
            text = stripped.text
            if not text.strip():
                return PRIVATE_PLACEHOLDER
        if self.redactor is None or not text:
            return text
        redaction = self.redactor.redact(text)
        if count:
            self.tally.secrets.update(redaction.found)
        return redaction.text

    def fragment(self, fragment: Fragment) -> Fragment:
        """``fragment`` with its text and free-text metadata scrubbed (same id)."""
        content = self.text(fragment.content)
        # The index text and title repeat the content (and earlier turns): scrubbed, not counted.
        index_text = (
            None
            if fragment.index_text is None
            else self._derived(fragment.index_text, fragment.content, content)
        )
        title = None if fragment.title is None else self.text(fragment.title, count=False)
        metadata = self._metadata(fragment.metadata)
        if (
            content == fragment.content
            and index_text == fragment.index_text
            and title == fragment.title
            and metadata is fragment.metadata
        ):
            return fragment
        return replace(
            fragment, content=content, index_text=index_text, title=title, metadata=metadata
        )

    def _derived(self, text: str, content: str, scrubbed: str) -> str:
        """A derived ``text`` (the index text) scrubbed, not counted. Where it holds the
        content whole, on lines of its own, and the redactor judges each line by itself
        (``line_local``), only the rest is scanned and the content's scrubbed text is put
        back: the same result, and code's index text (title, content, identifier words) is
        not redacted twice (that second scan was a third of a first ``memex ask``)."""
        if (
            content
            and getattr(self.redactor, "line_local", False)
            and "PRIVATE KEY" not in text  # PEM blocks are found across lines
            and not has_private_marker(text)
        ):
            at = text.find(content)
            before, after = text[: max(at, 0)], text[at + len(content) :]
            if at >= 0 and before[-1:] in ("", "\n") and after[:1] in ("", "\n"):
                return self.text(before, count=False) + scrubbed + self.text(after, count=False)
        return self.text(text, count=False)

    def fragments(self, fragments: Iterable[Fragment]) -> list[Fragment]:
        return [self.fragment(f) for f in fragments]

    def _metadata(self, metadata: dict[str, Any]) -> dict[str, Any]:
        changed: dict[str, Any] = {}
        for key in FREE_TEXT_METADATA:
            value = metadata.get(key)
            if isinstance(value, str) and value:
                scrubbed = self.text(value)
                if scrubbed != value:
                    changed[key] = scrubbed
        return {**metadata, **changed} if changed else metadata
