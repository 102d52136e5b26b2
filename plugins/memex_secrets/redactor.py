"""The ``detect_secrets`` redactor: replace likely secrets with ``[REDACTED:<type>]``.

What runs, in order:

1. Whole PEM private-key blocks (``patterns.pem_blocks``) become one placeholder.
2. Each remaining line is scanned by
   * detect-secrets 1.5's format detectors: every default plugin that matches a
     known token format (AWS, GitHub, GitLab, Slack, Stripe, JWT, private-key
     headers, basic-auth URLs, OpenAI, npm, PyPI, SendGrid, Twilio, Azure, ...),
     through each plugin's ``analyze_string``;
   * memex's own token formats (``patterns.TOKENS``: ``sk-proj-...``,
     ``sk-ant-...``, ``github_pat_...``, Google, Hugging Face, npm);
   * keywords: memex's patterns for unquoted ``password: x`` / ``api_key=x``,
     ``--password x`` and ``Authorization:``/``Bearer`` headers, then
     detect-secrets' ``KeywordDetector`` (quoted values: ``password = "..."``);
   * high-entropy strings (``entropy = true``): runs of base64 characters of
     ``min_entropy_length`` (20) or more, quoted or not, with a letter and a
     digit, whose Shannon entropy as detect-secrets' ``Base64HighEntropyString``
     computes it is above ``entropy_limit`` (4.5, detect-secrets' default), less
     what detect-secrets' heuristic filters call sequences, UUIDs, templates and
     ``id=`` values, less UUID-shaped ids and AI API object ids (``msg_01...``,
     ``toolu_01...``). A run with ``/`` (a path, a URL) goes only if one of its
     parts is random by itself or it carries base64's ``+`` or ``=`` padding.

What is left out, and why:

* ``scan_line`` itself. Its ad hoc mode turns on "eager" high-entropy search,
  which reports every word of a line without the entropy limit, and it works
  through process-wide settings that ``transient_settings`` swaps in and out
  (not safe with threads). Calling the plugins directly needs neither.
* ``HexHighEntropyString``: notes are full of git SHAs, SHA-256 sums and UUIDs,
  which are hex and random; hex secrets next to a keyword are still caught.
  (Base64's limit of 4.5 bits cannot be reached by hex text, at most 4 bits.)
* ``IPPublicDetector``: an IP address is not a secret, and notes mention them.
* Verification: nothing is ever sent over the network.

Cost: a line is scanned only if it could hold a secret (``_CANDIDATE``), which
keeps prose cheap (2 KB of prose: well under a millisecond, a few for dense
code). Long lines are scanned in overlapping windows and detect-secrets'
keyword detector sees long words cut short, because several of its regexes
backtrack quadratically (see ``_windows``); adversarial 50 KB lines stay
under a second.

Found spans are widened to the whole token they sit in (a detector that reports
``ghp`` or a JWT without its signature must not leave the rest behind),
overlapping spans merge, and the first detector in the order above names the
result.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from memex_core.domain import Redaction
from memex_secrets import patterns
from memex_secrets.settings import SecretsSettingError, SecretsSettings

#: detect-secrets plugins memex does not run (see the module docstring).
SKIPPED_PLUGINS = frozenset({"HexHighEntropyString", "IPPublicDetector"})
#: Plugins memex runs its own way rather than as plain format detectors.
_SPECIAL = frozenset({"Base64HighEntropyString", "KeywordDetector"})

_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9_]+\]")
# A line without any of these cannot hold anything the detectors look for.
_CANDIDATE = re.compile(
    r"[A-Za-z0-9+/=_\-]{16,}|://|BEGIN|PuTTY|pass|secret|key|token|auth|bearer|pwd|contrase",
    re.IGNORECASE,
)
# Where detect-secrets' KeywordDetector can find something: a secret-sounding
# word, then within a few characters an assignment, comparison, call or quote.
_KEYWORD_NEAR_VALUE = re.compile(
    r"(?:key|pass|pwd|secret|contrase)\w{0,40}[\]'\"]{0,2}\s*(?:[:=!(\[]|\.assign)"
    r"|[\"'`]\s*[!=]=",
    re.IGNORECASE,
)
_LONG_WORD = re.compile(r"\w{41,}")
_WINDOW, _OVERLAP = 1024, 256
# Word characters, and dots that have one on either side (the same both ways).
_TOKEN_TAIL = re.compile(r"(?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*")
# Base64 characters, '=' only as padding (so NAME=value is two runs, not one).
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]+=*")


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str
    rank: int  # lower wins when spans overlap


_KIND_NAMES = {
    "Base64 High Entropy String": "high_entropy_string",
    "Hex High Entropy String": "high_entropy_string",
    "NPM tokens": "npm_token",
    "Public IP (ipv4)": "public_ip",
}


@functools.lru_cache(maxsize=256)  # asked per plugin per line: a tenth of a redaction's time
def secret_kind(secret_type: str) -> str:
    """A detect-secrets type as a placeholder label: 'AWS Access Key' -> 'aws_access_key'."""
    if secret_type in _KIND_NAMES:
        return _KIND_NAMES[secret_type]
    return re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


class DetectSecretsRedactor:
    """Replaces likely secrets in memory text; see the module docstring for what it finds."""

    #: Each line is judged by itself (PEM blocks apart, found where "PRIVATE KEY" is): so
    #: the scrubber may redact a text's parts on their own (services/scrubbing.py).
    line_local = True

    def __init__(self, settings: SecretsSettings | None = None) -> None:
        self.settings = settings or SecretsSettings()
        # detect-secrets imports requests and every plugin (~0.2 s): only when built.
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.filters import heuristic
        from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
        from detect_secrets.plugins.keyword import KeywordDetector

        self._heuristic = heuristic
        # Typed loosely: detect-secrets' own annotation (a TypeVar) makes mypy see type[Never].
        classes: dict[str, Any] = get_mapping_from_secret_type_to_class()
        known = {cls.__name__: cls for cls in classes.values()}
        unknown = sorted(set(self.settings.disable) - set(known))
        if unknown:
            raise SecretsSettingError(
                f"config.toml [redactor.detect_secrets] disable names unknown plugin(s) "
                f"{', '.join(unknown)}; known plugins are: {', '.join(sorted(known))}."
            )
        skip = SKIPPED_PLUGINS | _SPECIAL | set(self.settings.disable)
        self._formats: list[Any] = [
            cls() for name, cls in sorted(known.items()) if name not in skip
        ]
        self._keyword: Any = (
            None if "KeywordDetector" in self.settings.disable else KeywordDetector()
        )
        self._entropy: Any = None
        if self.settings.entropy and "Base64HighEntropyString" not in self.settings.disable:
            self._entropy = Base64HighEntropyString(limit=self.settings.entropy_limit)

    # -- the Redactor contract -------------------------------------------------------

    def redact(self, text: str) -> Redaction:
        found: set[str] = set()
        if "PRIVATE KEY" in text:
            blocks = patterns.pem_blocks(text)
            if blocks:
                found.add("private_key")
                text = _replace(text, [_Span(b, e, "private_key", 0) for b, e in blocks])
        out = []
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\r\n")
            if _CANDIDATE.search(body):
                spans = self._spans(body)
                if spans:
                    found.update(span.kind for span in spans)
                    line = _replace(body, spans) + line[len(body) :]
            out.append(line)
        return Redaction("".join(out), tuple(sorted(found)))

    def _spans(self, line: str) -> list[_Span]:
        # Placeholders are blanked out, so text redacted twice stays the same.
        if "[REDACTED:" in line:
            line = _PLACEHOLDER.sub(lambda m: " " * len(m.group()), line)
        spans = []
        reversed_line = line[::-1]
        for offset, window in _windows(line):
            for span in self._find(window):
                begin, end = _widen(line, offset + span.start, offset + span.end, reversed_line)
                spans.append(_Span(begin, end, span.kind, span.rank))
        return _merge(spans)

    # -- finding ---------------------------------------------------------------------

    def _find(self, line: str) -> Iterator[_Span]:
        for plugin in self._formats:
            kind = secret_kind(plugin.secret_type)
            for value in set(plugin.analyze_string(line)):
                yield from _locate(line, value, kind, rank=0)
        for rank, pattern in enumerate(patterns.TOKENS, start=1):
            for match in pattern.regex.finditer(line):
                if pattern.is_secret(match.group()):
                    yield _Span(match.start(), match.end(), pattern.kind, rank)
        yield from self._keywords(line)
        if self._entropy is not None:
            yield from self._high_entropy(line)

    def _keywords(self, line: str) -> Iterator[_Span]:
        rank = 20
        for regex in (patterns.ASSIGNMENT, patterns.CLI_FLAG):
            for match in regex.finditer(line):
                if patterns.keyword_value_is_secret(match["word"], match["secret"]):
                    yield _Span(match.start("secret"), match.end("secret"), "secret_keyword", rank)
        for match in patterns.AUTH_HEADER.finditer(line):
            if patterns.looks_generated(match["secret"]):
                yield _Span(match.start("secret"), match.end("secret"), "bearer_token", rank)
        if (
            self._keyword is not None
            and _KEYWORD_NEAR_VALUE.search(line)
            and not self._heuristic.is_indirect_reference(line)
        ):
            # detect-secrets' keyword regexes backtrack quadratically over long
            # runs of word characters ("password" * 250 takes a second): they see
            # the line with every run cut to 40 characters. A value cut short is
            # still found, as the start of its token, and _locate widens it back.
            bounded = _LONG_WORD.sub(lambda m: m.group()[:40], line)
            for value in set(self._keyword.analyze_string(bounded)):
                if self._generic_value_ok(value, line, self._keyword) and not (
                    patterns.is_placeholder(value)
                ):
                    yield from _locate(line, value, "secret_keyword", rank=rank + 1)

    def _high_entropy(self, line: str) -> Iterator[_Span]:
        for match in _BASE64_RUN.finditer(line):
            run, start = match.group(), match.start()
            if "/" not in run:
                if self._is_random(run, line, start):
                    yield _Span(start, match.end(), "high_entropy_string", rank=30)
                continue
            # Paths and URLs are words joined by '/' and often random as a whole
            # (car-specs/Volkswagen/118424/2021-...); base64 uses '/' too. The run
            # goes as a whole if a part of it is random by itself or it has
            # base64's '+' or '=' padding; a path with only wordy parts stays.
            # Keys with a '/' and no such mark are still found after a keyword.
            offset, random_part = start, False
            for part in run.split("/"):
                random_part = random_part or self._is_random(part, line, offset)
                offset += len(part) + 1
            base64_marks = "+" in run or run.endswith("=")
            if random_part or (base64_marks and self._is_random(run, line, start)):
                yield _Span(start, match.end(), "high_entropy_string", rank=30)

    def _is_random(self, run: str, line: str, start: int) -> bool:
        plugin = self._entropy
        value = run.strip("=-_")
        return (
            len(value) >= self.settings.min_entropy_length
            and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value)
            and plugin.calculate_shannon_entropy(value) > plugin.entropy_limit
            and not (start > 0 and line[start - 1] == "$")  # $VARIABLE
            and not patterns.is_public_id(run)
            and self._generic_value_ok(value, line, plugin)
        )

    def _generic_value_ok(self, value: str, line: str, plugin: Any) -> bool:
        """detect-secrets' heuristic filters, for the detectors that guess (keyword, entropy)."""
        h = self._heuristic
        return not (
            h.is_sequential_string(value)
            or h.is_potential_uuid(value)
            or h.is_templated_secret(value)
            or h.is_prefixed_with_dollar_sign(value)
            or h.is_not_alphanumeric_string(value)
            or h.is_likely_id_string(value, line, plugin)
        )


# -- spans -----------------------------------------------------------------------------


def _locate(line: str, value: str, kind: str, rank: int) -> Iterator[_Span]:
    """Where a reported secret value sits in the line (the caller widens each span).

    Occurrences that stand alone (not inside a longer word) are preferred; if
    there are none (detect-secrets reports ``ghp`` for a whole GitHub token),
    every occurrence is taken, to be widened to its token.
    """
    if not value:
        return
    hits = list(_occurrences(line, value))
    alone = [
        start
        for start in hits
        if not _joins(line, start - 1, value[0]) and not _joins(line, start + len(value), value[-1])
    ]
    for start in alone or hits:
        yield _Span(start, start + len(value), kind, rank)


def _occurrences(line: str, value: str) -> Iterator[int]:
    start = line.find(value)
    while start != -1:
        yield start
        start = line.find(value, start + 1)


def _joins(line: str, index: int, edge: str) -> bool:
    """Whether the character at ``index`` continues a word that ``edge`` is part of."""
    return 0 <= index < len(line) and line[index] in _WORD_CHARS and edge in _WORD_CHARS


def _windows(line: str) -> Iterator[tuple[int, str]]:
    """The line in overlapping windows, each seen by the detectors on its own.

    Several detect-secrets regexes backtrack quadratically on long lines of the
    wrong kind (60,000 characters of ``sk-sk-...`` took 12 s whole); windows
    keep the cost linear. Any secret of up to ``_OVERLAP`` characters lies whole
    in some window; a longer one is found in part and widened back.
    """
    if len(line) <= _WINDOW:
        yield 0, line
        return
    for start in range(0, len(line) - _OVERLAP, _WINDOW - _OVERLAP):
        yield start, line[start : start + _WINDOW]


def _widen(line: str, begin: int, end: int, reversed_line: str) -> tuple[int, int]:
    """Grow a span to the token it sits in (at most ``_WINDOW`` characters each way).

    A token is word characters and dots between them (JWT parts), not a full
    stop after it. The left side is matched on the reversed line, so both sides
    run as one regex match each.
    """
    size = len(line)
    right = _TOKEN_TAIL.match(line, end, min(size, end + _WINDOW))
    left = _TOKEN_TAIL.match(reversed_line, size - begin, min(size, size - begin + _WINDOW))
    grown_end = right.end() if right else end
    grown_begin = size - left.end() if left else begin
    return grown_begin, grown_end


def _merge(spans: Iterable[_Span]) -> list[_Span]:
    """Union overlapping spans; the best-ranked detector names the merged one."""
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    merged: list[_Span] = []
    for span in ordered:
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            best = last if last.rank <= span.rank else span
            merged[-1] = _Span(last.start, max(last.end, span.end), best.kind, best.rank)
        else:
            merged.append(span)
    return merged


def _replace(line: str, spans: list[_Span]) -> str:
    pieces = []
    position = 0
    for span in spans:
        pieces.append(line[position : span.start])
        pieces.append(f"[REDACTED:{span.kind}]")
        position = span.end
    pieces.append(line[position:])
    return "".join(pieces)
