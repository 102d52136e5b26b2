"""Memory file paths: what an agent writes (virtual) and what the catalog stores.

An agent bound to a user sees two folders::

    user/notes/todo.md     its user's own memory  -> storage users/<user_id>/notes/todo.md
    shared/team/faq.md     memory every user sees -> storage shared/team/faq.md

Operators see storage paths directly. Everything here is a pure function of its
arguments; a path either comes back exactly as given (no normalisation, no
decoding) or is rejected with :class:`InvalidMemoryPath`, whose message says
what is wrong and how to fix it. Rejecting rather than repairing is the point:
a path that would need repairing is either a mistake or an attack, and both
should be seen.

What a path must look like (checked on the part below ``user/``,
``users/<user_id>/`` or ``shared/``, so a virtual path and its storage path pass
or fail together):

* ``/``-separated segments, at least one (a bare ``user/`` names no file), at
  most :data:`MAX_DEPTH`, the whole at most :data:`MAX_PATH_BYTES` UTF-8 bytes and
  each segment at most :data:`MAX_SEGMENT_BYTES`.
* Each segment is made of letters, marks and numbers (any script: ``café.md``,
  ``メモ.md``) and the punctuation in :data:`SAFE_PUNCTUATION`, does not start or
  end with a space or a dot (so no ``.``, ``..`` or hidden files) and is not a
  Windows device name (``CON``, ``nul.txt``, ``COM1``...).
* No backslash, percent sign (nothing is ever percent-decoded, so ``%2e%2e``
  cannot turn into ``..`` later), control character, or invisible character,
  and the text is unchanged by NFC and NFKC normalisation, which rules out
  fullwidth and other compatibility look-alikes of ``/`` and ``.``.
"""

from __future__ import annotations

import re
import unicodedata

from memex_core.domain.memory.records import SHARED_OWNER, USERS_PREFIX, user_owner
from memex_core.errors import RefusedValue

#: First segment of a virtual path to the agent's own user's memory.
USER_FOLDER = "user"
#: First segment of shared memory, in virtual and storage paths alike.
SHARED_FOLDER = SHARED_OWNER
#: First segment of a storage path to one user's memory.
USERS_FOLDER = USERS_PREFIX.rstrip("/")

MAX_USER_ID_CHARS = 128
MAX_PATH_BYTES = 1024
MAX_SEGMENT_BYTES = 255
MAX_DEPTH = 32

#: The only punctuation (and the only space) allowed in a segment.
SAFE_PUNCTUATION = frozenset("-_.,()+ '&@~")

_USER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]*")
_DRIVE = re.compile(r"[A-Za-z]:")
#: Names Windows reserves for devices, with or without an extension (``nul.txt``).
WINDOWS_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"COM{n}" for n in range(10)}
    | {f"LPT{n}" for n in range(10)}
)
_ALLOWED_CATEGORIES = ("L", "M", "N")

# Invisible code points that Unicode classes as letters or marks (so the category
# check alone lets them through): Default_Ignorable_Code_Point outside Cf.
_INVISIBLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0000, 0xE0FFF),  # tags and variation selectors supplement
)
# Letters and marks that draw as a slash, a dot or a colon: the few well-known
# spoofing characters that the category and normalisation checks cannot catch.
_LOOKALIKES = frozenset(
    {0x0334, 0x0335, 0x0336, 0x0337, 0x0338}  # combining overlays (0338 is a long solidus)
    | {0x20D2, 0x20D3, 0x20E5, 0x20EA, 0x20EB}  # combining vertical/solidus overlays
    | {0x141F, 0x1427}  # Canadian syllabics final acute (/) and middle dot
    | {0x02D0, 0x02D1}  # modifier letter triangular colons
    | set(range(0xA4F8, 0xA500))  # Lisu tone letters (. , : ; look-alikes)
)


class InvalidMemoryPath(RefusedValue):
    """A memory file path that memex refuses; the message names the path, why and the fix."""

    def __init__(self, path: object, reason: str, fix: str) -> None:
        self.path = path
        super().__init__("memory path", path, reason, fix)


#: What a user id may be, as an error about one says it.
USER_ID_RULE = (
    f"A user id is 1-{MAX_USER_ID_CHARS} characters: ASCII letters, digits and '_', '.', "
    "'@', '-', starting with a letter or digit, with no '..'."
)


class InvalidUserId(RefusedValue):
    """A user id that cannot name a memory owner."""

    def __init__(self, user_id: object, reason: str) -> None:
        self.user_id = user_id
        super().__init__("user id", user_id, reason, USER_ID_RULE)


_VIRTUAL_FIX = "Write 'user/<folders>/<file>' for your user's memory or 'shared/<folders>/<file>'."
_STORAGE_FIX = "Write 'users/<user_id>/<folders>/<file>' or 'shared/<folders>/<file>'."


def validate_user_id(user_id: str) -> str:
    """Return ``user_id`` unchanged if it can name an owner; raise :class:`InvalidUserId`."""
    if not isinstance(user_id, str):
        raise InvalidUserId(user_id, f"must be text, not {type(user_id).__name__}")
    if not user_id:
        raise InvalidUserId(user_id, "is empty")
    if len(user_id) > MAX_USER_ID_CHARS:
        raise InvalidUserId(user_id, f"is {len(user_id)} characters long")
    if not _USER_ID.fullmatch(user_id):
        raise InvalidUserId(user_id, "has a character that is not allowed")
    if ".." in user_id:
        raise InvalidUserId(user_id, "contains '..'")
    return user_id


def to_storage_path(virtual: str, user_id: str) -> str:
    """Map an agent's path to the stored one: ``user/x`` -> ``users/<user_id>/x``.

    ``shared/x`` stays ``shared/x``. Anything else, including a storage path
    (``users/...``) given by an agent, raises :class:`InvalidMemoryPath`.
    """
    validate_user_id(user_id)
    folder, rest = _split_checked(virtual, _VIRTUAL_FIX)
    if folder == USER_FOLDER:
        return f"{user_owner(user_id)}/{rest}"
    if folder == SHARED_FOLDER:
        return f"{SHARED_FOLDER}/{rest}"
    if folder == USERS_FOLDER:
        reason = "agents address their user's memory as 'user/...', not 'users/<id>/...'"
    else:
        reason = f"starts with {folder!r}, which is not a memory folder"
    raise InvalidMemoryPath(virtual, reason, _VIRTUAL_FIX)


def to_virtual_path(storage: str, user_id: str) -> str:
    """Map a stored path back to what ``user_id``'s agent sees (inverse of :func:`to_storage_path`).

    Another user's path raises :class:`InvalidMemoryPath`: it has no virtual form.
    """
    validate_user_id(user_id)
    validate_storage_path(storage)
    own = f"{user_owner(user_id)}/"
    if storage.startswith(own):
        return f"{USER_FOLDER}/{storage[len(own) :]}"
    if storage.startswith(f"{SHARED_FOLDER}/"):
        return storage
    raise InvalidMemoryPath(
        storage,
        f"belongs to another user, not {user_id!r}",
        f"Only paths under '{own}' or '{SHARED_FOLDER}/' have a virtual form for this user.",
    )


def validate_storage_path(path: str) -> str:
    """Return ``path`` unchanged if it is a valid storage path (as operators write them)."""
    folder, rest = _split_checked(path, _STORAGE_FIX)
    if folder == SHARED_FOLDER:
        return path
    if folder != USERS_FOLDER:
        if folder == USER_FOLDER:
            reason = "'user/...' is an agent's virtual path; storage paths name the user"
        else:
            reason = f"starts with {folder!r}, which is not a memory folder"
        raise InvalidMemoryPath(path, reason, _STORAGE_FIX)
    user_id, _, below = rest.partition("/")
    try:
        validate_user_id(user_id)
    except InvalidUserId as exc:
        raise InvalidMemoryPath(
            path, f"names an invalid user ({exc.reason})", _STORAGE_FIX
        ) from None
    if not below:
        raise InvalidMemoryPath(path, "names a user's folder but no file", _STORAGE_FIX)
    _check_below(path, below, _STORAGE_FIX)
    return path


def owner_of_storage_path(path: str) -> str:
    """The owner value of a storage path: ``users/<user_id>`` or ``shared``."""
    validate_storage_path(path)
    if path.startswith(f"{SHARED_FOLDER}/"):
        return SHARED_OWNER
    return user_owner(path.split("/", 2)[1])


# --- the checks -------------------------------------------------------------


def _split_checked(path: object, fix: str) -> tuple[str, str]:
    """Check what applies to the whole path, return (first segment, the rest checked)."""
    if not isinstance(path, str):
        raise InvalidMemoryPath(path, f"must be text, not {type(path).__name__}", fix)
    if not path:
        raise InvalidMemoryPath(path, "is empty", fix)
    _check_characters(path, fix)
    if path.startswith("/"):
        raise InvalidMemoryPath(path, "is absolute (starts with '/')", fix)
    if _DRIVE.match(path):
        raise InvalidMemoryPath(path, "is an absolute Windows path (drive letter)", fix)
    for segment in path.split("/"):
        if segment in (".", ".."):
            raise InvalidMemoryPath(path, f"has a {segment!r} segment; paths cannot move up", fix)
    folder, slash, rest = path.partition("/")
    if not slash or not rest:
        raise InvalidMemoryPath(path, f"is the bare folder {folder!r}, with no file in it", fix)
    if folder == USERS_FOLDER:
        # The user id is checked by the caller; the rest by _check_below.
        return folder, rest
    _check_below(path, rest, fix)
    return folder, rest


def _check_characters(path: str, fix: str) -> None:
    """Characters that are wrong anywhere in a path, reported before anything else."""
    for char in path:
        if char == "\x00":
            raise InvalidMemoryPath(path, "contains a null byte", fix)
        if char == "\\":
            raise InvalidMemoryPath(path, "contains a backslash; separate folders with '/'", fix)
        if char == "%":
            raise InvalidMemoryPath(
                path, "contains '%'; memory paths are never percent-decoded, write the name", fix
            )
        category = unicodedata.category(char)
        if category == "Cc":
            raise InvalidMemoryPath(path, f"contains the control character U+{ord(char):04X}", fix)
        if category == "Cs":
            raise InvalidMemoryPath(
                path, f"contains the lone surrogate U+{ord(char):04X} (not valid Unicode text)", fix
            )
        if category == "Cf":
            name = unicodedata.name(char, "unnamed")
            raise InvalidMemoryPath(
                path, f"contains the invisible formatting character U+{ord(char):04X} ({name})", fix
            )
    if not unicodedata.is_normalized("NFC", path) or not unicodedata.is_normalized("NFKC", path):
        raise InvalidMemoryPath(
            path,
            "changes under Unicode normalisation (NFC/NFKC): it has a composed/decomposed "
            "or compatibility character such as a fullwidth or look-alike form",
            fix + " Use the plain (NFKC-normalised) spelling of the name.",
        )


def _check_below(path: str, below: str, fix: str) -> None:
    """The part of a path below its owner folder: size, depth and every segment."""
    size = len(below.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        raise InvalidMemoryPath(path, f"is {size} bytes long (at most {MAX_PATH_BYTES})", fix)
    if below.endswith("/"):
        raise InvalidMemoryPath(path, "ends with '/'; name a file, not a folder", fix)
    segments = below.split("/")
    if len(segments) > MAX_DEPTH:
        raise InvalidMemoryPath(path, f"is {len(segments)} folders deep (at most {MAX_DEPTH})", fix)
    for segment in segments:
        _check_segment(path, segment, fix)


def _check_segment(path: str, segment: str, fix: str) -> None:
    if not segment:
        raise InvalidMemoryPath(path, "has an empty segment ('//')", fix)
    if segment in (".", ".."):
        raise InvalidMemoryPath(path, f"has a {segment!r} segment; paths cannot move up", fix)
    if segment[0] in " ." or segment[-1] in " .":
        raise InvalidMemoryPath(
            path, f"segment {segment!r} starts or ends with a space or a dot", fix
        )
    size = len(segment.encode("utf-8"))
    if size > MAX_SEGMENT_BYTES:
        raise InvalidMemoryPath(
            path, f"has a segment of {size} bytes (at most {MAX_SEGMENT_BYTES})", fix
        )
    stem = segment.split(".", 1)[0].rstrip(" ").upper()
    if stem in WINDOWS_DEVICES:
        raise InvalidMemoryPath(path, f"segment {segment!r} is a reserved Windows device name", fix)
    previous = ""
    for char in segment:
        _check_segment_char(path, segment, char, previous, fix)
        previous = char


def _check_segment_char(path: str, segment: str, char: str, previous: str, fix: str) -> None:
    code = ord(char)
    category = unicodedata.category(char)
    if char in SAFE_PUNCTUATION:
        return
    name = unicodedata.name(char, "unnamed")
    if code in _LOOKALIKES or any(lo <= code <= hi for lo, hi in _INVISIBLE_RANGES):
        raise InvalidMemoryPath(
            path, f"contains U+{code:04X} ({name}), an invisible or look-alike character", fix
        )
    if not category.startswith(_ALLOWED_CATEGORIES):
        allowed = "".join(sorted(SAFE_PUNCTUATION))
        raise InvalidMemoryPath(
            path,
            f"contains U+{code:04X} ({name}); names may use letters, digits, marks "
            f"and only these punctuation characters: {allowed!r}",
            fix,
        )
    if category.startswith("M") and not (
        previous and unicodedata.category(previous).startswith(_ALLOWED_CATEGORIES)
    ):
        raise InvalidMemoryPath(
            path,
            f"segment {segment!r} has the combining mark U+{code:04X} ({name}) "
            "with no letter or digit before it",
            fix,
        )
