"""What LoCoMo says beyond the turns' text: each session's date, its speakers, shared photos.

``benchmarks.data`` reads turns and questions; the levers of issue 33 that need dates
(time phrases, dates in the keyword text) and photo captions read them here, from the
same file: ``session_N_date_time`` ("1:56 pm on 8 May, 2023"), ``speaker_a``/``speaker_b``
and a turn's ``blip_caption`` (the description of a photo it shared; the image is not
shipped).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from benchmarks.data import locomo_file

_DATE_KEY = re.compile(r"^session_(\d+)_date_time$")


@dataclass(frozen=True)
class Dated:
    """The dates and captions of the development conversations."""

    sessions: dict[tuple[str, int], datetime]  # (conversation, session) -> when it was held
    speakers: dict[str, tuple[str, str]]
    captions: dict[tuple[str, str], str]  # (conversation, dia_id) -> the photo's caption

    def anchor(self, conversation: str, held: set[tuple[str, int]]) -> datetime:
        """When a question about ``conversation`` is asked: the day of its last session
        with turns (``held``), at noon; the questions carry no date of their own."""
        last = max(d for key, d in self.sessions.items() if key[0] == conversation and key in held)
        return datetime(last.year, last.month, last.day, 12)

    def day(self, conversation: str, session: int) -> date:
        return self.sessions[(conversation, session)].date()


def parse_when(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as a naive local time."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


def load_dated(path: Path | None = None) -> Dated:
    samples = json.loads((path or locomo_file()).read_text(encoding="utf-8"))
    sessions, speakers, captions = {}, {}, {}
    for sample in samples:
        conv_id, conversation = sample["sample_id"], sample["conversation"]
        speakers[conv_id] = (conversation["speaker_a"], conversation["speaker_b"])
        for key, value in conversation.items():
            match = _DATE_KEY.match(key)
            if match:
                sessions[(conv_id, int(match.group(1)))] = parse_when(value)
            elif key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    if turn.get("blip_caption"):
                        captions[(conv_id, turn["dia_id"])] = turn["blip_caption"]
    return Dated(sessions, speakers, captions)


__all__ = ["Dated", "load_dated", "parse_when"]
