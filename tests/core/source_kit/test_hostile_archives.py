"""Hostile archives and huge exports: traversal names, symlinks, nested archives, zip bombs,
lying headers, invalid UTF-8, and an export of several hundred MB read in bounded memory.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memex_core.sources.json_stream as json_stream
from memex_chatgpt.source import ChatGPTSource
from memex_core.domain import SourceError
from memex_core.sources.conversations import iter_export
from memex_core.sources.export_files import open_export_member
from memex_core.sources.json_stream import load_json
from memex_core.sources.limits import RATIO_CHECK_FROM_BYTES, ExportLimits, ExportSettingError
from memex_core.sources.text import replace_lone_surrogates
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import chatgpt_conversation
from tests.support.hostile_builders import examples, json_values, tally, write_tallies

FIXTURE = Path(__file__).parents[2] / "fixtures" / "chatgpt" / "conversations.json"
FAMILY = "archives"

#: Names that try to leave the archive; none may ever be read.
TRAVERSAL_NAMES = [
    "../conversations.json",
    "../../conversations.json",
    "/conversations.json",
    "//server/share/conversations.json",
    "C:conversations.json",
    "C:/conversations.json",
    "c:\\conversations.json",
    "..\\conversations.json",
    "data/../../conversations.json",
    "./../conversations.json",
]

STREAM_EXAMPLES = 80


@pytest.fixture(autouse=True, scope="module")
def _write_tallies() -> Iterator[None]:
    yield
    write_tallies()


def make_zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return path


# -- names, links, nesting --------------------------------------------------------------


@pytest.mark.parametrize("name", TRAVERSAL_NAMES)
def test_traversal_names_are_never_read(tmp_path: Path, name: str) -> None:
    tally(FAMILY)
    archive = make_zip(tmp_path / "evil.zip", {name: FIXTURE.read_bytes()})
    with pytest.raises(SourceError, match=r"conversations\.json has an unsafe name") as caught:
        list(ChatGPTSource().ingest(archive))
    assert caught.value.path == str(archive)
    assert name in caught.value.reason
    assert not ChatGPTSource().can_handle(archive)


@pytest.mark.parametrize("name", TRAVERSAL_NAMES)
def test_traversal_names_beside_the_real_member_are_ignored(tmp_path: Path, name: str) -> None:
    tally(FAMILY)
    decoy = json.dumps([chatgpt_conversation("evil", "evil", [("user", "pwned", 1.0)])])
    archive = make_zip(
        tmp_path / "export.zip", {name: decoy.encode(), "conversations.json": FIXTURE.read_bytes()}
    )
    fragments = list(ChatGPTSource().ingest(archive))
    assert fragments and all(f.conversation_id != "evil" for f in fragments)


def test_ingesting_an_archive_writes_nothing_beside_it(tmp_path: Path) -> None:
    tally(FAMILY)
    inside = tmp_path / "inside"
    inside.mkdir()
    archive = make_zip(
        inside / "export.zip",
        {"../escaped.json": b"[]", "conversations.json": FIXTURE.read_bytes()},
    )
    before = sorted(p.name for p in tmp_path.rglob("*"))
    mx = fast_memex(tmp_path / "home")
    try:
        report = mx.ingest(archive, embed=False)
    finally:
        mx.close()
    assert [f.status for f in report.files] == ["new"]
    after = sorted(p.name for p in tmp_path.rglob("*") if "home" not in p.parts)
    assert after == before


def test_a_symlink_member_is_refused(tmp_path: Path) -> None:
    tally(FAMILY)
    archive = tmp_path / "links.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        info = zipfile.ZipInfo("conversations.json")
        info.external_attr = (0o120777 << 16) | 0x20  # S_IFLNK | rwx
        handle.writestr(info, "/etc/passwd")
    with pytest.raises(SourceError, match="symbolic link") as caught:
        list(ChatGPTSource().ingest(archive))
    assert caught.value.location == "conversations.json"


def test_a_nested_archive_is_refused_with_what_to_do(tmp_path: Path) -> None:
    tally(FAMILY)
    inner = make_zip(tmp_path / "inner.zip", {"conversations.json": FIXTURE.read_bytes()})
    outer = make_zip(tmp_path / "outer.zip", {"export/inner.zip": inner.read_bytes()})
    with pytest.raises(SourceError, match=r"archives inside archives.*extract it"):
        list(ChatGPTSource().ingest(outer))


def test_a_member_that_is_an_archive_is_invalid_json(tmp_path: Path) -> None:
    tally(FAMILY)
    inner = make_zip(tmp_path / "inner.zip", {"conversations.json": FIXTURE.read_bytes()})
    outer = make_zip(tmp_path / "outer.zip", {"conversations.json": inner.read_bytes()})
    with pytest.raises(SourceError, match=r"invalid JSON|not UTF-8"):
        list(ChatGPTSource().ingest(outer))


def test_an_encrypted_member_says_to_extract(tmp_path: Path) -> None:
    tally(FAMILY)
    archive = make_zip(tmp_path / "locked.zip", {"conversations.json": FIXTURE.read_bytes()})
    raw = bytearray(archive.read_bytes())
    # Set the "encrypted" flag in the local and the central header.
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = raw.index(signature)
        raw[at + flag_at] |= 0x01
    archive.write_bytes(bytes(raw))
    with pytest.raises(SourceError, match="extract the archive first"):
        list(ChatGPTSource().ingest(archive))


# -- zip bombs ------------------------------------------------------------------------


def bomb(path: Path, size: int = 16 * 1024**2) -> Path:
    """A member of ``size`` zero bytes: deflate shrinks it about a thousand times."""
    return make_zip(path, {"conversations.json": b"\0" * size})


def test_a_zip_bomb_is_refused_before_decompressing(tmp_path: Path) -> None:
    tally(FAMILY)
    archive = bomb(tmp_path / "bomb.zip")
    assert archive.stat().st_size < 100_000
    with pytest.raises(SourceError, match="zip bomb") as caught:
        list(ChatGPTSource().ingest(archive))
    assert "max_compression_ratio" in caught.value.reason
    assert caught.value.location == "conversations.json"


def test_the_size_limit_names_its_setting(tmp_path: Path) -> None:
    tally(FAMILY)
    archive = make_zip(tmp_path / "big.zip", {"conversations.json": FIXTURE.read_bytes()})
    source = ChatGPTSource(limits=ExportLimits(max_bytes=1000, table="source.chatgpt"))
    with pytest.raises(SourceError, match=r"over the 1000 bytes limit") as caught:
        list(source.ingest(archive))
    assert "max_export_bytes" in caught.value.reason and "[source.chatgpt]" in caught.value.reason


def compressible_export(count: int = 20_000) -> bytes:
    """A valid export that compresses more than 200:1 (one conversation, repeated)."""
    conversation = json.dumps(chatgpt_conversation("same", "t", [("user", "hello", 1e9)]))
    return ("[" + ",".join([conversation] * count) + "]").encode()


def test_a_raised_ratio_lets_a_trusted_archive_through(tmp_path: Path) -> None:
    tally(FAMILY)
    archive = make_zip(tmp_path / "dense.zip", {"conversations.json": compressible_export()})
    (info,) = zipfile.ZipFile(archive).infolist()
    assert info.file_size > 200 * info.compress_size and info.file_size > RATIO_CHECK_FROM_BYTES
    with pytest.raises(SourceError, match="zip bomb"):
        list(ChatGPTSource().ingest(archive))
    home = tmp_path / "home"
    mx = fast_memex(home, source={"chatgpt": {"max_compression_ratio": 100_000}})
    try:
        report = mx.ingest(archive, embed=False)
    finally:
        mx.close()
    assert [f.status for f in report.files] == ["new"]


@pytest.mark.parametrize(
    "settings",
    [
        {"max_compression_ratio": 0},
        {"max_compression_ratio": "lots"},
        {"max_compression_ratio": float("nan")},
        {"max_export_bytes": -1},
        {"max_export_bytes": 1.5},
        {"max_export_bytes": True},
    ],
)
def test_unusable_limits_in_config_say_which(settings: dict[str, Any]) -> None:
    tally(FAMILY)
    with pytest.raises(ExportSettingError, match=r"\[source.chatgpt\]"):
        ExportLimits.from_settings(settings, "source.chatgpt")


def _set_declared_size(archive: Path, size: int) -> None:
    """Make the archive lie: declare ``size`` uncompressed bytes in both headers."""
    raw = bytearray(archive.read_bytes())
    local = raw.index(b"PK\x03\x04")
    raw[local + 22 : local + 26] = size.to_bytes(4, "little")
    central = raw.index(b"PK\x01\x02")
    raw[central + 24 : central + 28] = size.to_bytes(4, "little")
    archive.write_bytes(bytes(raw))


def test_a_header_that_understates_the_size_cannot_smuggle_bytes(tmp_path: Path) -> None:
    tally(FAMILY)
    archive = bomb(tmp_path / "liar.zip")
    _set_declared_size(archive, 1000)  # 16 MiB of zeros claims to be 1000 bytes
    with pytest.raises(SourceError, match=r"corrupt|invalid JSON"):
        list(ChatGPTSource().ingest(archive))
    with pytest.raises(SourceError, match="corrupt"):
        open_export_member(archive)


def test_truncated_and_garbled_archives_are_source_errors(tmp_path: Path) -> None:
    data = make_zip(tmp_path / "ok.zip", {"conversations.json": FIXTURE.read_bytes()}).read_bytes()
    rng = random.Random(7)
    for n in range(60):
        tally(FAMILY)
        raw = bytearray(data)
        if n % 2:
            raw = raw[: rng.randrange(len(raw))]
        else:
            for _ in range(8):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        archive = tmp_path / f"garbled-{n}.zip"
        archive.write_bytes(bytes(raw))
        assert isinstance(ChatGPTSource().can_handle(archive), bool)
        try:
            fragments = list(ChatGPTSource().ingest(archive))
        except SourceError as exc:
            assert exc.path == str(archive)
        else:
            assert all(f.content for f in fragments)


# -- UTF-8 ----------------------------------------------------------------------------


def test_invalid_utf8_is_an_error_with_its_offset_in_a_zip_too(tmp_path: Path) -> None:
    tally(FAMILY)
    raw = FIXTURE.read_bytes()
    at = raw.index(b"SQLite")
    broken = raw[:at] + b"\xff" + raw[at:]
    archive = make_zip(tmp_path / "e.zip", {"conversations.json": broken})
    with pytest.raises(SourceError, match="not UTF-8") as caught:
        list(ChatGPTSource().ingest(archive))
    assert caught.value.location == f"conversations.json, byte {at}"


def test_a_lone_surrogate_escape_becomes_a_replacement_character(tmp_path: Path) -> None:
    tally(FAMILY)
    export = [chatgpt_conversation("c", "t", [("user", "half \ud800 pair \U0001f600", 1e9)])]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(export))  # ensure_ascii: "\\ud800" and a real pair
    (fragment,) = list(ChatGPTSource().ingest(path))
    assert fragment.content == "half \ufffd pair \U0001f600"


# -- streaming = parsing whole -------------------------------------------------------


@examples(STREAM_EXAMPLES)
@given(
    entries=st.lists(json_values, max_size=12),
    chunk=st.integers(min_value=1, max_value=64),
    indent=st.sampled_from([None, 0, 2]),
    bom=st.booleans(),
)
def test_streaming_reads_what_json_loads_reads(
    tmp_path_factory: pytest.TempPathFactory,
    entries: list[Any],
    chunk: int,
    indent: int | None,
    bom: bool,
) -> None:
    tally(FAMILY)
    path = tmp_path_factory.mktemp("stream") / "c.json"
    text = json.dumps(entries, indent=indent, allow_nan=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    expected = replace_lone_surrogates(json.loads(text))
    saved = json_stream.READ_CHUNK
    json_stream.READ_CHUNK = chunk  # tiny reads: every value straddles a boundary somewhere
    try:
        got = load_json(path)
    finally:
        json_stream.READ_CHUNK = saved
    assert json.dumps(got, allow_nan=True) == json.dumps(expected, allow_nan=True)


@examples(STREAM_EXAMPLES)
@given(entries=st.lists(json_values, min_size=1, max_size=6), data=st.data())
def test_streaming_errors_match_whole_parsing(
    tmp_path_factory: pytest.TempPathFactory, entries: list[Any], data: st.DataObject
) -> None:
    """A cut or damaged list fails in streaming exactly when ``json.loads`` fails."""
    tally(FAMILY)
    text = json.dumps(entries, indent=1, allow_nan=True)
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    broken = text[:cut] + data.draw(st.sampled_from(["", "}", ",", "x", "]", '"'])) + text[cut:]
    path = tmp_path_factory.mktemp("stream-errors") / "c.json"
    path.write_text(broken)
    try:
        json.loads(broken)
        whole_ok = True
    except (ValueError, RecursionError):
        whole_ok = False
    saved = json_stream.READ_CHUNK
    json_stream.READ_CHUNK = data.draw(st.integers(min_value=1, max_value=32))
    try:
        load_json(path)
        stream_ok = True
    except SourceError as exc:
        stream_ok = False
        assert exc.location and exc.location.startswith("line ")
    finally:
        json_stream.READ_CHUNK = saved
    assert stream_ok == whole_ok


def test_iter_export_keeps_wrong_files_apart(tmp_path: Path) -> None:
    tally(FAMILY)
    users = tmp_path / "users.json"
    users.write_text(json.dumps([{"uuid": "u", "full_name": "x"}] * 5))
    with pytest.raises(SourceError, match="no conversations found"):
        list(iter_export(users, "chat_messages"))
    empty = tmp_path / "empty.json"
    empty.write_text("[ ]")
    assert list(iter_export(empty, "chat_messages")) == []
    blank = tmp_path / "blank.json"
    blank.write_text("  \n")
    with pytest.raises(SourceError, match="empty"):
        list(iter_export(blank, "chat_messages"))
    trailing = tmp_path / "trailing.json"
    trailing.write_text('[{"chat_messages": []}] []')
    with pytest.raises(SourceError, match="extra data") as caught:
        list(iter_export(trailing, "chat_messages"))
    assert caught.value.location == "line 1, column 25"


# -- an export far larger than the memory it is read with --------------------------------

BIG_EXPORT_MB = int(os.environ.get("MEMEX_BIG_EXPORT_MB", "320"))
MB = 1024**2

_MEASURE = """
import re, sys, warnings
warnings.simplefilter("ignore")
from pathlib import Path
from memex_chatgpt.source import ChatGPTSource

def status(field):
    # This process's own figures: getrusage's ru_maxrss can carry the parent's peak over exec.
    text = Path("/proc/self/status").read_text()
    return int(re.search(field + r":\\s+(\\d+) kB", text).group(1)) * 1024

source = ChatGPTSource()
start = status("VmRSS")
count = sum(1 for _ in source.ingest(Path(sys.argv[1])))
print(count, start, status("VmHWM"))
"""

_WORDS = [
    "sqlite",
    "wal",
    "lock",
    "busy",
    "timeout",
    "writer",
    "reader",
    "index",
    "vector",
    "embedding",
    "rust",
    "python",
    "async",
    "bread",
    "flour",
    "proof",
    "oven",
    "garden",
    "tomato",
    "compost",
    "travel",
    "train",
    "ticket",
    "museum",
    "paint",
    "canvas",
]


def _write_big_chatgpt_export(path: Path, megabytes: int) -> int:
    """Write conversations until the file holds ``megabytes`` MB; returns the message count."""
    rng = random.Random(3)
    pool = [" ".join(rng.choice(_WORDS) for _ in range(250)) for _ in range(400)]
    target = megabytes * 1024**2
    messages = 0
    with path.open("w") as handle:
        handle.write("[")
        n = 0
        while handle.tell() < target:
            turns = [
                ("user" if i % 2 == 0 else "assistant", f"{n}-{i} {rng.choice(pool)}", 1e9 + i)
                for i in range(20)
            ]
            if n:
                handle.write(",\n")
            handle.write(json.dumps(chatgpt_conversation(f"conv-{n}", f"title {n}", turns)))
            messages += len(turns)
            n += 1
        handle.write("]")
    return messages


@pytest.mark.slow
def test_a_huge_export_is_read_in_memory_far_below_its_size(tmp_path: Path) -> None:
    """Peak RSS of a process that reads a several-hundred-MB export stays a fraction of it.

    A memory bound, not a timing: ``json.load`` would need several times the file size.
    """
    tally(FAMILY)
    path = tmp_path / "conversations.json"
    messages = _write_big_chatgpt_export(path, BIG_EXPORT_MB)
    size = path.stat().st_size
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    count, start, peak = map(int, result.stdout.split())
    assert count == messages
    growth = peak - start
    note = f"peak RSS {peak / MB:.0f} MB (+{growth / MB:.0f} MB) for a {size / MB:.0f} MB file"
    assert peak < size / 3, note
    assert growth < size / 20, note


@pytest.mark.slow
def test_a_big_zipped_export_streams_from_the_archive(tmp_path: Path) -> None:
    tally(FAMILY)
    plain = tmp_path / "conversations.json"
    messages = _write_big_chatgpt_export(plain, max(BIG_EXPORT_MB // 4, 60))
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as handle:
        handle.write(plain, "data/conversations.json")
    size = plain.stat().st_size
    plain.unlink()
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(archive)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    count, start, peak = map(int, result.stdout.split())
    assert count == messages
    growth = peak - start
    note = f"peak RSS {peak / MB:.0f} MB (+{growth / MB:.0f} MB) for a {size / MB:.0f} MB member"
    assert growth < size / 10, note
