"""Tests for memex_core.source_kit: zip members, peeking, JSON errors, timestamps, records."""

from __future__ import annotations

import json
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memex_core.domain import SkippedItemWarning, SourceError
from memex_core.sources.conversations import iter_records
from memex_core.sources.export_files import open_export_member, peek_json_prefix
from memex_core.sources.json_stream import find_json_key, load_json
from memex_core.sources.timestamps import parse_timestamp

PAYLOAD = b'[{"title": "t", "mapping": {}}]'


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


# --- open_export_member -------------------------------------------------------------


def test_plain_file_is_its_own_member(tmp_path: Path) -> None:
    path = tmp_path / "whatever.json"
    path.write_bytes(PAYLOAD)
    assert open_export_member(path) == PAYLOAD


def test_member_at_zip_root(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "export.zip", {"users.json": b"[]", "conversations.json": PAYLOAD}
    )
    assert open_export_member(archive) == PAYLOAD


def test_member_in_one_subfolder(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "export.zip",
        {"data-2025-01-01/users.json": b"[]", "data-2025-01-01/conversations.json": PAYLOAD},
    )
    assert open_export_member(archive) == PAYLOAD


def test_root_member_wins_over_subfolder(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "export.zip", {"old/conversations.json": b"[]", "conversations.json": PAYLOAD}
    )
    assert open_export_member(archive) == PAYLOAD


def test_two_subfolder_candidates_are_ambiguous(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "export.zip", {"a/conversations.json": b"[]", "b/conversations.json": b"[]"}
    )
    with pytest.raises(SourceError, match=r"several conversations\.json.*a/conversations\.json"):
        open_export_member(archive)


def test_deeper_members_are_not_searched(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "export.zip", {"a/b/conversations.json": PAYLOAD})
    with pytest.raises(SourceError, match=r"no conversations\.json") as caught:
        open_export_member(archive)
    assert caught.value.path == str(archive)


@pytest.mark.parametrize("name", ["../conversations.json", "/conversations.json"])
def test_path_traversal_names_are_ignored_and_named(tmp_path: Path, name: str) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(zipfile.ZipInfo(name), PAYLOAD)
    with pytest.raises(SourceError, match=r"unsafe name \(" + re.escape(name)):
        open_export_member(archive)


def test_oversized_member_is_refused_before_reading(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "export.zip", {"conversations.json": b"x" * 5000})
    with pytest.raises(SourceError, match=r"uncompressed.*limit"):
        open_export_member(archive, max_bytes=1000)


def test_oversized_plain_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * 5000 + b"]")
    with pytest.raises(SourceError, match="limit"):
        open_export_member(path, max_bytes=1000)


def test_corrupt_zip_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(SourceError, match="not a readable zip"):
        open_export_member(bad)
    with pytest.raises(SourceError, match="not found"):
        open_export_member(tmp_path / "absent.json")


# --- peek_json_prefix / find_json_key -----------------------------------------------


def test_peek_reads_only_the_prefix_and_strips_bom(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"\xef\xbb\xbf" + PAYLOAD + b"\xff" * 10_000)
    assert peek_json_prefix(path, n=len(PAYLOAD) + 3) == PAYLOAD.decode()


def test_peek_drops_a_character_cut_in_half(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes('["é"]'.encode())
    assert peek_json_prefix(path, n=3) == '["'


def test_peek_inside_zip(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "e.zip", {"x/conversations.json": PAYLOAD + b" " * 10_000})
    assert peek_json_prefix(archive, n=10) == PAYLOAD[:10].decode()


def test_find_json_key_ignores_keys_quoted_inside_strings() -> None:
    assert find_json_key('{"a": 1, "mapping": {}}', "mapping") == 9
    assert find_json_key('{"text": "the \\"mapping\\": key"}', "mapping") == -1
    assert find_json_key('{"mappings": {}}', "mapping") == -1


# --- load_json ----------------------------------------------------------------------


def test_load_json_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text('[\n  {"title": "a",\n   "mapping": {,}\n]')
    with pytest.raises(SourceError) as caught:
        load_json(path)
    error = caught.value
    assert error.location == "line 3, column 16"
    assert str(path) in str(error) and "invalid JSON" in str(error)
    assert "download or extract the export again" in error.reason


def test_load_json_in_zip_names_the_member(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "e.zip", {"conversations.json": b'[{"a": }]'})
    with pytest.raises(SourceError) as caught:
        load_json(archive)
    assert caught.value.location == "conversations.json, line 1, column 8"


def test_load_json_rejects_non_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b'["caf\xe9"]')
    with pytest.raises(SourceError, match="not UTF-8") as caught:
        load_json(path)
    assert caught.value.location == "byte 5"


def test_load_json_accepts_bom(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"\xef\xbb\xbf" + PAYLOAD)
    assert load_json(path) == json.loads(PAYLOAD)


# --- parse_timestamp ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1704067200, 1704067200.0),
        (1686792382.104189, 1686792382.104189),
        ("1704067200.5", 1704067200.5),
        (1704067200123, 1704067200.123),  # milliseconds
        ("2026-01-17T14:23:33.472056Z", datetime(2026, 1, 17, 14, 23, 33, 472056, UTC).timestamp()),
        (
            "2025-06-27T10:46:02.691887+00:00",
            datetime(2025, 6, 27, 10, 46, 2, 691887, UTC).timestamp(),
        ),
        ("2025-06-27T12:46:02+02:00", datetime(2025, 6, 27, 10, 46, 2, tzinfo=UTC).timestamp()),
        ("2025-06-27T10:46:02", datetime(2025, 6, 27, 10, 46, 2, tzinfo=UTC).timestamp()),
    ],
)
def test_parse_timestamp_values(value: object, expected: float) -> None:
    assert parse_timestamp(value) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("value", [None, "", "yesterday", True, float("nan"), [1], {"t": 1}])
def test_parse_timestamp_gives_none_for_non_times(value: object) -> None:
    assert parse_timestamp(value) is None


# --- iter_records -------------------------------------------------------------------


def test_records_from_list_single_and_keyed_dict() -> None:
    conv: dict[str, Any] = {"mapping": {}}
    assert [r[:2] for r in iter_records([conv, conv], "mapping", "f")] == [
        ("conversation 1", None),
        ("conversation 2", None),
    ]
    assert [r[:2] for r in iter_records(conv, "mapping", "f")] == [("conversation 1", None)]
    keyed = list(iter_records({"linear": conv, "cycle": conv}, "mapping", "f"))
    assert [(r[0], r[1]) for r in keyed] == [
        ("conversation 'linear'", "linear"),
        ("conversation 'cycle'", "cycle"),
    ]


def test_odd_entries_are_skipped_with_a_warning() -> None:
    with pytest.warns(SkippedItemWarning) as caught:
        records = list(iter_records([{"mapping": {}}, 42, None], "mapping", "f.json"))
    assert len(records) == 1
    assert [str(w.message) for w in caught] == [
        "f.json (conversation 2): skipped, not a conversation (no 'mapping')",
        "f.json (conversation 3): skipped, not a conversation (no 'mapping')",
    ]


def test_empty_list_is_an_empty_export() -> None:
    assert list(iter_records([], "mapping", "f")) == []


@pytest.mark.parametrize("data", [[{"uuid": "u", "full_name": "x"}], {"foo": 1}, {}, 42, "text"])
def test_files_without_any_conversation_raise(data: object) -> None:
    with pytest.raises(SourceError, match="no conversations found") as caught:
        list(iter_records(data, "chat_messages", "users.json"))
    assert caught.value.location == "top level"


def test_source_kit_gathers_the_helpers_plugins_import() -> None:
    """Third-party sources import from memex_core.source_kit: the same objects, one import line."""
    import memex_core.source_kit as kit

    assert kit.iter_records is iter_records and kit.load_json is load_json
    assert kit.open_export_member is open_export_member and kit.find_json_key is find_json_key
    assert kit.peek_json_prefix is peek_json_prefix and kit.parse_timestamp is parse_timestamp
    assert all(hasattr(kit, name) for name in kit.__all__)
