"""Bad archives (issue 31 item 4): each refused with one clear line, the target home left
exactly as it was (a digest of its whole catalog before and after); then a seeded fuzz of
500 mutated archives (bytes flipped, files cut short, members truncated, duplicated or
renamed, the manifest edited) with the same guarantee and never a traceback.

The target holds other content than the archive (bob's memory only), so an archive that
got through would change it; the few mutations that leave an archive valid (a changed
``created_at``, a flipped byte the zip never reads) must import exactly what the clean
archive imports, and the home is then put back from a copy.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_core.services.archive_format import MANIFEST
from tests.support import component_doubles
from tests.support.archive_builders import catalog_digest, fill_home
from tests.support.doctor_home import doctor_memex, stored


@dataclass
class Setting:
    archive: bytes
    clean_counts: dict[str, dict[str, int]]
    spare: Path  # the target home as it was, to put back


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setting]:
    root = tmp_path_factory.mktemp("bad-archives")
    source = doctor_memex(root / "source")
    fill_home(source, root)
    archive = root / "home.zip"
    source.export_archive(archive, with_log=True, with_vectors=True)
    source.close()
    spare = root / "spare"
    mx = doctor_memex(spare)
    mx.agent("bob").remember("Bob keeps bees on the roof.")
    mx.close()
    trial = root / "trial"
    shutil.copytree(spare, trial)
    component_doubles._STORES[trial] = stored(spare).clone()
    mx = doctor_memex(trial, stored(trial))
    counts = mx.import_archive(archive).to_dict()["tables"]
    mx.close()
    yield Setting(archive.read_bytes(), counts, spare)


@pytest.fixture(scope="module")
def target(setting: Setting, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    home = tmp_path_factory.mktemp("target") / "home"
    shutil.copytree(setting.spare, home)
    holder = Target(home, setting.spare)
    yield holder
    holder.mx.close()


class Target:
    """The one target home the tests reuse, with its digest; put back after an import."""

    def __init__(self, home: Path, spare: Path) -> None:
        self.home, self.spare = home, spare
        self.mx = self._open()
        self.digest = catalog_digest(self.mx)

    def _open(self) -> Memex:
        component_doubles._STORES[self.home] = stored(self.spare).clone()
        return doctor_memex(self.home, stored(self.home))

    def put_back(self) -> None:
        self.mx.close()
        shutil.rmtree(self.home)
        shutil.copytree(self.spare, self.home)
        self.mx = self._open()
        assert catalog_digest(self.mx) == self.digest

    def refuses(self, archive: Path, match: str = "") -> str:
        with pytest.raises(MemexError) as caught:
            self.mx.import_archive(archive)
        message = str(caught.value)
        assert "\n" not in message and "Nothing was imported" in message, message
        assert match in message, message
        assert catalog_digest(self.mx) == self.digest
        return message


def zip_of(path: Path, entries: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            with pytest.warns(UserWarning) if _dup(zf, name) else _nothing():
                zf.writestr(name, data)
    return path


def _dup(zf: zipfile.ZipFile, name: str) -> bool:
    return name in zf.namelist()


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def entries_of(data: bytes, tmp: Path) -> list[tuple[str, bytes]]:
    path = tmp / "read.zip"
    path.write_bytes(data)
    with zipfile.ZipFile(path) as zf:
        return [(n, zf.read(n)) for n in zf.namelist()]


def edit_manifest(entries: list[tuple[str, bytes]], edit: Callable[[dict], None]) -> list:
    out = []
    for name, data in entries:
        if name == MANIFEST:
            manifest = json.loads(data)
            edit(manifest)
            data = json.dumps(manifest).encode()
        out.append((name, data))
    return out


# -- the named cases --------------------------------------------------------------------------


def test_a_truncated_archive(setting: Setting, target: Target, tmp_path: Path) -> None:
    cut = tmp_path / "cut.zip"
    cut.write_bytes(setting.archive[: len(setting.archive) // 2])
    target.refuses(cut, "not a readable memex archive")


def test_a_checksum_mismatch(setting: Setting, target: Target, tmp_path: Path) -> None:
    entries = entries_of(setting.archive, tmp_path)
    changed = [
        (n, d.replace(b"grinder", b"GRINDER") if n == "fragments.jsonl" else d) for n, d in entries
    ]
    assert changed != entries
    target.refuses(zip_of(tmp_path / "x.zip", changed), "does not match its checksum")


@pytest.mark.parametrize("name", ["../fragments.jsonl", "/etc/fragments.jsonl", "a/b.jsonl"])
def test_path_traversal_in_member_names(
    setting: Setting, target: Target, tmp_path: Path, name: str
) -> None:
    entries = [
        (name if n == "fragments.jsonl" else n, d) for n, d in entries_of(setting.archive, tmp_path)
    ]
    target.refuses(zip_of(tmp_path / "x.zip", entries), "unsafe name")


def test_a_newer_format_version(setting: Setting, target: Target, tmp_path: Path) -> None:
    entries = edit_manifest(
        entries_of(setting.archive, tmp_path), lambda m: m.update(format_version=2)
    )
    target.refuses(zip_of(tmp_path / "x.zip", entries), "upgrade memex")


def test_a_zip_bomb(setting: Setting, target: Target, tmp_path: Path) -> None:
    bomb = b"\n" * (8 * 1024**2)
    entries = [
        (n, bomb if n == "links.jsonl" else d) for n, d in entries_of(setting.archive, tmp_path)
    ]
    entries = edit_manifest(
        entries,
        lambda m: m["members"]["links.jsonl"].update(
            rows=len(bomb), bytes=len(bomb), sha256=hashlib.sha256(bomb).hexdigest()
        ),
    )
    target.refuses(zip_of(tmp_path / "x.zip", entries), "zip bomb")


def test_a_member_claiming_another_users_namespace(
    setting: Setting, target: Target, tmp_path: Path
) -> None:
    before = target.digest
    with pytest.raises(MemexError) as caught:
        target.mx.agent("alice").import_archive(_as_file(tmp_path, setting.archive))
    assert "\n" not in str(caught.value) and "Nothing was imported" in str(caught.value)
    # The handle logs the refused call (the access log is where refusals are seen); the
    # archive's rows are not there.
    log = target.mx.operator().access_log(limit=1)
    assert log[0].action == "import" and log[0].outcome == "invalid"
    target.put_back()
    assert target.digest == before


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (b'{"key":"keyword_context","value":NaN}\n', "not JSON"),
        (b'{"key":"keyword_context","value":[1]}\n', "not plain"),
        (b'{"key":"keyword_context"}\n', "columns"),
        (b'{"key":"catalog_id","value":"x"}\n', "does not import"),
    ],
)
def test_a_row_that_is_not_what_the_manifest_says(
    setting: Setting, target: Target, tmp_path: Path, line: bytes, said: str
) -> None:
    entries = [
        (n, line if n == "settings.jsonl" else d) for n, d in entries_of(setting.archive, tmp_path)
    ]
    entries = edit_manifest(
        entries,
        lambda m: m["members"]["settings.jsonl"].update(
            rows=1, bytes=len(line), sha256=hashlib.sha256(line).hexdigest()
        ),
    )
    target.refuses(zip_of(tmp_path / "x.zip", entries), said)


@pytest.mark.parametrize(
    ("vector", "said"),
    [
        ("[0.5]", "1 dimensions, manifest.json says 64"),
        ("[" + ",".join(["0.1"] * 63) + ',"x"]', "not a number"),
        ("[" + ",".join(["0.1"] * 63) + ",true]", "not a number"),
        ("[" + ",".join(["0.1"] * 63) + ",NaN]", "not a number"),
        ("[" + ",".join(["0.1"] * 63) + ",1e999]", "not a number"),
        ("[" + ",".join(["0.1"] * 63) + ",[1]]", "not a number"),
        ('"0.1"', "not an id and a vector"),
    ],
)
def test_a_bad_vector(
    setting: Setting, target: Target, tmp_path: Path, vector: str, said: str
) -> None:
    """The vectors are checked inside the import's transaction: one bad vector refuses the
    whole archive, rows and all (the first line keeps its id, its vector replaced)."""
    entries = entries_of(setting.archive, tmp_path)
    lines = dict(entries)["vectors.jsonl"].splitlines(keepends=True)
    first = json.loads(lines[0])
    lines[0] = ('{"id":' + json.dumps(first["id"]) + ',"vector":' + vector + "}\n").encode()
    data = b"".join(lines)
    entries = [(n, data if n == "vectors.jsonl" else d) for n, d in entries]
    entries = edit_manifest(
        entries,
        lambda m: m["members"]["vectors.jsonl"].update(
            bytes=len(data), sha256=hashlib.sha256(data).hexdigest()
        ),
    )
    target.refuses(zip_of(tmp_path / "x.zip", entries), said)
    assert stored(target.home).count() == stored(target.spare).count()


def test_vectors_without_their_embedder(setting: Setting, target: Target, tmp_path: Path) -> None:
    for edit, said in (
        (lambda m: m.pop("vectors"), "vectors incompletely"),
        (lambda m: m["vectors"].update(embedder="hashing"), "no vector dimension"),
        (lambda m: m["vectors"].update(embedder="hashing:0"), "no vector dimension"),
        (lambda m: m["members"]["vectors.jsonl"].update(columns=["id"]), "wrongly"),
    ):
        entries = edit_manifest(entries_of(setting.archive, tmp_path), edit)
        target.refuses(zip_of(tmp_path / "x.zip", entries), said)


def _as_file(tmp: Path, data: bytes) -> Path:
    path = tmp / "archive.zip"
    path.write_bytes(data)
    return path


# -- the fuzz ---------------------------------------------------------------------------------

MUTATIONS = (
    "flip",
    "cut",
    "truncate_member",
    "duplicate_member",
    "rename_member",
    "drop_member",
    "manifest",
)
NAMES = [
    "../x.jsonl",
    "fragments.jsonl",
    "FRAGMENTS.jsonl",
    "dir/links.jsonl",
    "extra.jsonl",
    MANIFEST,
]
MANIFEST_EDITS: list[Callable[[dict], None]] = [
    lambda m: m.update(format_version=2),
    lambda m: m.update(format_version="1"),
    lambda m: m.update(format=None),
    lambda m: m.pop("members"),
    lambda m: m["members"].pop("fragments.jsonl"),
    lambda m: m["members"]["memories.jsonl"].update(
        rows=m["members"]["memories.jsonl"]["rows"] + 1
    ),
    lambda m: m["members"]["links.jsonl"].update(sha256="0" * 64),
    lambda m: m["members"]["fragments.jsonl"].update(columns=["id"]),
    lambda m: m["members"]["settings.jsonl"].update(
        columns=[*m["members"]["settings.jsonl"]["columns"], "extra"]
    ),
    lambda m: m["members"].update({"../evil.jsonl": m["members"]["links.jsonl"]}),
    lambda m: m.update(created_at="2001-01-01T00:00:00+00:00"),  # still valid
    lambda m: m["vectors"].update(embedder="hashing:63"),
    lambda m: m["members"]["vectors.jsonl"].update(columns=["id"]),
    lambda m: m["vectors"].update(vector_context="other"),  # still valid: embedded afresh
]


def mutate(data: bytes, rng: random.Random, tmp: Path) -> bytes:
    kind = rng.choice(MUTATIONS)
    if kind == "flip":
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == "cut":
        return data[: rng.randrange(len(data))]
    entries = entries_of(data, tmp)
    index = rng.randrange(len(entries))
    name, content = entries[index]
    if kind == "truncate_member":
        entries[index] = (name, content[: rng.randrange(len(content) + 1)])
    elif kind == "duplicate_member":
        entries.insert(rng.randrange(len(entries) + 1), (name, content))
    elif kind == "rename_member":
        entries[index] = (rng.choice(NAMES), content)
    elif kind == "drop_member":
        del entries[index]
    else:
        entries = edit_manifest(entries, rng.choice(MANIFEST_EDITS))
    path = tmp / "mutated.zip"
    path.unlink(missing_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for entry_name, entry in entries:
            with pytest.warns(UserWarning) if _dup(zf, entry_name) else _nothing():
                zf.writestr(entry_name, entry)
    return path.read_bytes()


def test_five_hundred_mutated_archives_leave_the_home_as_it_was(
    setting: Setting, target: Target, tmp_path: Path
) -> None:
    rng = random.Random(31)
    refused = accepted = 0
    for _ in range(500):
        data = mutate(setting.archive, rng, tmp_path)
        path = tmp_path / "try.zip"
        path.write_bytes(data)
        try:
            report = target.mx.import_archive(path, embed=False)
        except MemexError as exc:
            assert "\n" not in str(exc), str(exc)
            assert catalog_digest(target.mx) == target.digest, str(exc)
            refused += 1
            continue
        # Still a valid archive: it imported exactly what the clean one does.
        assert report.to_dict()["tables"] == setting.clean_counts
        accepted += 1
        target.put_back()
    assert refused >= 450, (refused, accepted)
