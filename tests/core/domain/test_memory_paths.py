"""Memory paths: agents' virtual paths, storage paths, and everything that must be refused."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memex_core.domain.memory.paths import (
    MAX_DEPTH,
    WINDOWS_DEVICES,
    InvalidMemoryPath,
    InvalidUserId,
    owner_of_storage_path,
    to_storage_path,
    to_virtual_path,
    validate_storage_path,
    validate_user_id,
)
from memex_core.errors import MemexError

USER = "alice"

# Each must be refused by to_storage_path for USER, whatever the reason.
ATTACKS = [
    ("empty", ""),
    ("bare-user", "user"),
    ("bare-user-slash", "user/"),
    ("bare-shared", "shared"),
    ("bare-shared-slash", "shared/"),
    ("absolute-posix", "/etc/passwd"),
    ("absolute-user", "/user/x.md"),
    ("absolute-windows-backslash", "C:\\x"),
    ("absolute-windows-slash", "C:/x"),
    ("unc", "//server/share/x"),
    ("unc-backslash", "\\\\server\\share"),
    ("dotdot-escape", "user/../users/bob/x.md"),
    ("dotdot-leading", "../x.md"),
    ("dotdot-trailing", "user/notes/.."),
    ("dot-segment", "user/./x.md"),
    ("double-slash", "user//x.md"),
    ("trailing-slash", "user/notes/"),
    ("backslash-separator", "user\\x.md"),
    ("backslash-in-name", "user/a\\..\\b.md"),
    ("percent-dotdot", "user/%2e%2e/x.md"),
    ("percent-slash", "user/a%2fb.md"),
    ("double-encoded", "user/%252e%252e/x.md"),
    ("percent-plain", "user/100%.md"),
    ("null-byte", "user/x.md\x00.txt"),
    ("newline", "user/x\n.md"),
    ("tab", "user/x\t.md"),
    ("escape-char", "user/\x1b[31mx.md"),
    ("del", "user/x\x7f.md"),
    ("c1-control", "user/x\x85.md"),
    ("fullwidth-solidus", "user/a\uff0fb.md"),
    ("division-slash", "user/a\u2215b.md"),
    ("fraction-slash", "user/a\u2044b.md"),
    ("one-dot-leader-dotdot", "user/\u2024\u2024/x.md"),
    ("fullwidth-dot", "user/\uff0e\uff0e/x.md"),
    ("zero-width-space", "user/a\u200bb.md"),
    ("zero-width-joiner", "user/a\u200db.md"),
    ("bidi-override", "user/x\u202egpj.md"),
    ("bidi-isolate", "user/x\u2066.md"),
    ("byte-order-mark", "\ufeffuser/x.md"),
    ("soft-hyphen", "user/pass\u00adword.md"),
    ("nbsp", "user/a\u00a0b.md"),
    ("decomposed-not-nfc", "user/cafe\u0301.md"),
    ("ligature-not-nfkc", "user/\ufb01le.md"),
    ("combining-solidus-overlay", "user/a\u0338b.md"),
    ("variation-selector", "user/a\ufe0fb.md"),
    ("hangul-filler", "user/\u3164.md"),
    ("canadian-slash-lookalike", "user/a\u141fb.md"),
    ("lisu-dot-lookalike", "user/a\ua4f8\ua4f8/x.md"),
    ("leading-dot-hidden", "user/.env"),
    ("trailing-dot", "user/notes./x.md"),
    ("leading-space", "user/ x.md"),
    ("trailing-space", "user/x.md "),
    ("windows-con", "user/CON"),
    ("windows-nul-ext", "user/nul.txt"),
    ("windows-com1", "user/notes/com1.md"),
    ("windows-lpt9", "user/LPT9"),
    ("colon-stream", "user/x.md:secret"),
    ("wildcard", "user/*.md"),
    ("question-mark", "user/x?.md"),
    ("angle-brackets", "user/<x>.md"),
    ("pipe", "user/a|b.md"),
    ("quote", 'user/"x".md'),
    ("segment-too-long", "user/" + "a" * 256),
    ("segment-too-long-bytes", "user/" + "é" * 128),
    ("path-too-long", "user/" + "/".join(["a" * 200] * 6)),
    ("too-deep", "user/" + "a/" * MAX_DEPTH + "x.md"),
    ("storage-path-from-agent", "users/alice/x.md"),
    ("other-user-storage-path", "users/bob/x.md"),
    ("unknown-folder", "home/x.md"),
    ("user-case", "User/x.md"),
    ("user-lookalike-cyrillic", "us\u0435r/x.md"),
    ("emoji", "user/\U0001f600.md"),
    ("lone-surrogate", "user/\ud800.md"),
    ("private-use", "user/\ue000.md"),
    ("unassigned", "user/\u0378.md"),
    ("line-separator", "user/a\u2028b.md"),
    ("leading-combining-mark", "user/\u0301x.md"),
]


@pytest.mark.parametrize("path", [p for _, p in ATTACKS], ids=[i for i, _ in ATTACKS])
def test_attack_is_refused(path: str) -> None:
    with pytest.raises(InvalidMemoryPath) as info:
        to_storage_path(path, USER)
    message = str(info.value)
    assert repr(path) in message  # names the path
    assert "Write 'user/" in message  # and the fix


def test_there_are_enough_attacks() -> None:
    assert len(ATTACKS) >= 45
    assert len({i for i, _ in ATTACKS}) == len(ATTACKS)


@pytest.mark.parametrize(
    ("virtual", "storage"),
    [
        ("user/x.md", "users/alice/x.md"),
        ("user/notes/2024/june/standup.md", "users/alice/notes/2024/june/standup.md"),
        ("shared/faq.md", "shared/faq.md"),
        ("shared/team/on-call (rota).txt", "shared/team/on-call (rota).txt"),
        ("user/café.md", "users/alice/café.md"),
        ("user/メモ/日本語.md", "users/alice/メモ/日本語.md"),
        ("user/Привет мир.md", "users/alice/Привет мир.md"),
        ("user/no-extension", "users/alice/no-extension"),
        ("user/archive.tar.gz", "users/alice/archive.tar.gz"),
        ("user/a_b-c,d+e&f@g~h'i.json", "users/alice/a_b-c,d+e&f@g~h'i.json"),
        ("user/console.md", "users/alice/console.md"),  # CON only as a whole stem
        (
            "user/" + "a/" * (MAX_DEPTH - 1) + "x.md",
            "users/alice/" + "a/" * (MAX_DEPTH - 1) + "x.md",
        ),
        ("user/" + "a" * 255, "users/alice/" + "a" * 255),
    ],
)
def test_good_paths_map_and_round_trip(virtual: str, storage: str) -> None:
    assert to_storage_path(virtual, USER) == storage
    assert to_virtual_path(storage, USER) == virtual
    assert validate_storage_path(storage) == storage


def test_owner_of_storage_path() -> None:
    assert owner_of_storage_path("users/alice/x.md") == "users/alice"
    assert owner_of_storage_path("users/a.b@c-d_e/x/y.md") == "users/a.b@c-d_e"
    assert owner_of_storage_path("shared/x.md") == "shared"
    with pytest.raises(InvalidMemoryPath):
        owner_of_storage_path("user/x.md")


def test_another_users_path_has_no_virtual_form() -> None:
    with pytest.raises(InvalidMemoryPath, match="another user"):
        to_virtual_path("users/bob/x.md", USER)
    # A user id that is a prefix of another's is not confused with it.
    with pytest.raises(InvalidMemoryPath, match="another user"):
        to_virtual_path("users/alice2/x.md", USER)


@pytest.mark.parametrize(
    "storage",
    [
        "user/x.md",
        "users/alice",
        "users/alice/",
        "users//x.md",
        "users/../x.md",
        "users/a..b/x.md",
        "users/-bob/x.md",
        "users/" + "a" * 129 + "/x.md",
        "users/alice/../bob/x.md",
        "users/alice/%2e%2e/x.md",
        "shared",
        "/shared/x.md",
        "other/x.md",
    ],
)
def test_invalid_storage_paths(storage: str) -> None:
    with pytest.raises(InvalidMemoryPath) as info:
        validate_storage_path(storage)
    assert "users/<user_id>/" in str(info.value)


@pytest.mark.parametrize("user_id", ["alice", "A", "bob.smith@example.com", "u_1-2", "0" * 128])
def test_valid_user_ids(user_id: str) -> None:
    assert validate_user_id(user_id) == user_id


@pytest.mark.parametrize(
    "user_id",
    ["", "a" * 129, "-bob", ".bob", "_bob", "a..b", "a/b", "a b", "ali\u0441e", "a\x00", "a%2f"],
)
def test_invalid_user_ids(user_id: str) -> None:
    with pytest.raises(InvalidUserId) as info:
        validate_user_id(user_id)
    assert isinstance(info.value, MemexError)
    with pytest.raises(InvalidUserId):
        to_storage_path("user/x.md", user_id)


def test_non_text_is_refused_not_crashed() -> None:
    with pytest.raises(InvalidMemoryPath, match="must be text"):
        to_storage_path(None, USER)  # type: ignore[arg-type]
    with pytest.raises(InvalidUserId):
        validate_user_id(42)  # type: ignore[arg-type]


# --- properties --------------------------------------------------------------

_SEGMENT_CHARS = st.characters(
    whitelist_categories=("Lu", "Ll", "Lo", "Nd"), max_codepoint=0x2FFF
).filter(
    lambda c: (
        unicodedata.is_normalized("NFKC", c)
        and c not in "\u141f\u1427\u02d0\u02d1\u115f\u1160\u17b4\u17b5"
    )
)
_SEGMENT = (
    st.text(_SEGMENT_CHARS | st.sampled_from("-_,()+&@~'"), min_size=1, max_size=20)
    .filter(lambda s: s.upper() not in WINDOWS_DEVICES)
    .map(lambda s: s + ".md")
)
_VALID_VIRTUAL = st.builds(
    lambda root, parts: "/".join([root, *parts]),
    st.sampled_from(["user", "shared"]),
    st.lists(_SEGMENT, min_size=1, max_size=5),
)
_USER_IDS = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_@-]{0,20}\Z")


@settings(max_examples=300)
@given(_VALID_VIRTUAL, _USER_IDS)
def test_round_trip_of_valid_paths(virtual: str, user_id: str) -> None:
    storage = to_storage_path(virtual, user_id)
    assert to_virtual_path(storage, user_id) == virtual
    assert validate_storage_path(storage) == storage


def _assert_safe(storage: str, user_id: str) -> None:
    own = f"users/{user_id}/"
    assert storage.startswith((own, "shared/"))
    below = storage[len(own) :] if storage.startswith(own) else storage[len("shared/") :]
    segments = below.split("/")
    assert all(s and s not in (".", "..") for s in segments)
    assert not any(c in storage for c in "\\%\x00")
    assert validate_storage_path(storage) == storage


_NASTY_PIECES = [
    *"user/shared.%2ef\\:C \x00\u2215\uff0f\u200b\u00e9",
    "..",
    "user/",
    "users/",
    "bob",
]
_NASTY = st.lists(
    st.sampled_from([*_NASTY_PIECES, "e\u0301"]),
    max_size=30,
).map("".join)


@settings(max_examples=500)
@given(
    st.one_of(
        st.text(max_size=60),
        st.text(st.characters(exclude_categories=()), max_size=20),  # surrogates too
        _NASTY,
        _VALID_VIRTUAL,
    ),
    _USER_IDS,
)
def test_any_text_is_refused_or_lands_inside_the_owner(virtual: str, user_id: str) -> None:
    try:
        storage = to_storage_path(virtual, user_id)
    except InvalidMemoryPath:
        return
    _assert_safe(storage, user_id)
