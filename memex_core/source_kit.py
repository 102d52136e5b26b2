"""Small helpers for people writing memex sources.

Chat exports arrive either as a bare JSON file or as the ``.zip`` the service
lets you download, with the interesting file (``conversations.json``) at the
root or inside one folder. These helpers hide that difference, read JSON with
errors that say where the file is broken, and turn the timestamp styles seen in
exports into epoch seconds. Everything here is stdlib-only and cheap to import.

Hostile input, decided once:

- Archives are read, never extracted, so no member can write anywhere. Member
  names that could escape (``../x``, ``/x``, ``C:x``) are ignored; a member that
  is a symbolic link, or an archive inside the archive, is refused with a
  :class:`SourceError` saying what to extract.
- Zip bombs: a member larger than ``ExportLimits.max_bytes`` uncompressed, or
  (from 1 MiB up) more than ``ExportLimits.max_ratio`` times its compressed
  size, is refused before a byte is decompressed. Both limits are settings
  (``max_export_bytes``, ``max_compression_ratio`` under ``[source.<name>]``).
- Size: an export's list of conversations is parsed one conversation at a time
  (:func:`iter_export`), so memory follows the largest conversation, not the file.
- Text: exports must be UTF-8. A byte that is not is an error naming its offset
  (the file is damaged, and guessing would index garbage); a JSON escape for
  half a surrogate pair (``"\\ud800"``), which no UTF-8 text can hold, becomes
  U+FFFD so the fragment can be stored.
- Timestamps outside the years 1 to 9999, ``NaN`` and the like read as "no time".

The helpers live in :mod:`memex_core.sources`, one module per job; this module
gathers their public names so a plugin needs one import line and keeps working
when the modules behind it move.
"""

from memex_core.domain import SkippedItemWarning
from memex_core.sources.archives import is_zip_path
from memex_core.sources.conversations import (
    fragments_per_conversation,
    iter_export,
    iter_records,
)
from memex_core.sources.export_files import (
    READ_CHUNK,
    explain_unreadable_archive,
    json_export_opens_with,
    open_export_member,
    peek_json_prefix,
)
from memex_core.sources.json_stream import describe_json_error, find_json_key, load_json
from memex_core.sources.limits import (
    DEFAULT_LIMITS,
    DEFAULT_MEMBER,
    MAX_COMPRESSION_RATIO,
    MAX_MEMBER_BYTES,
    RATIO_CHECK_FROM_BYTES,
    ExportLimits,
    ExportSettingError,
)
from memex_core.sources.segments import Segment
from memex_core.sources.skips import MAX_SKIP_WARNINGS, warn_skipped
from memex_core.sources.text import SURROGATE_ESCAPE, replace_lone_surrogates
from memex_core.sources.timestamps import parse_timestamp

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MEMBER",
    "MAX_COMPRESSION_RATIO",
    "MAX_MEMBER_BYTES",
    "MAX_SKIP_WARNINGS",
    "RATIO_CHECK_FROM_BYTES",
    "READ_CHUNK",
    "ExportLimits",
    "ExportSettingError",
    "SURROGATE_ESCAPE",
    "Segment",
    "SkippedItemWarning",
    "describe_json_error",
    "explain_unreadable_archive",
    "find_json_key",
    "fragments_per_conversation",
    "is_zip_path",
    "iter_export",
    "iter_records",
    "json_export_opens_with",
    "load_json",
    "open_export_member",
    "parse_timestamp",
    "peek_json_prefix",
    "replace_lone_surrogates",
    "warn_skipped",
]
