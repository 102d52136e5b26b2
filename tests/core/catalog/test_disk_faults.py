"""A full disk and a read-only MEMEX_HOME: a clear error, and nothing half-written.

Disk full is made four ways, from the most controlled to the most real:

- SQLite's own page limit (``PRAGMA max_page_count``): the catalog reports
  ``SQLITE_FULL`` in the middle of the run;
- ``ENOSPC`` raised by the keyword index's or the vector store's writes at a
  chosen call (the chroma case raises chroma's own wrapped error);
- ``RLIMIT_FSIZE`` in a subprocess: every file stops growing at N bytes;
- a small tmpfs mounted for the home (root only; skipped elsewhere).

After each, the error must say it is the disk, name the home and say what to do;
each source must be in the catalog whole or not at all; the doctor must find no
damage (at most lag); and once the space is back the same ``memex ingest`` must
give exactly the catalog of a run that never failed, with a clean doctor.

Read-only homes (chmod, with root's override dropped through ``capsh`` when the
tests run as root; a tmpfs remounted read-only; a home whose parent is
read-only) must give an error that names the home and the fix, and leave every
file as it was.

``DISK_FAULTS`` and ``READ_ONLY_FAULTS`` are the "disk faults" figure of
docs/reliability.md (count the passed cases of the two parametrized tests).
"""

from __future__ import annotations

import errno
import hashlib
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memex_bm25 import storage
from memex_core.catalog.faults import DiskFullError, NotWritableError, StorageError
from tests.conftest import REPO
from tests.support.crash_ingest import (
    DRIVER,
    SqliteVectorStore,
    catalog_state,
    crash_memex,
    fragments_by_source,
    generated_exports,
    generated_vault,
    ingest_args,
)


@dataclass
class Material:
    paths: list[Path]
    expected: dict[str, list[tuple[Any, ...]]]  # the catalog after a run that never failed
    catalog_pages: tuple[int, int]  # catalog pages: empty home, after the run
    home_bytes: int  # size of that home on disk


def run_memex(
    home: Path,
    *args: str,
    file_limit: int | None = None,
    wrapper: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_CRASH")}
    env.update(MEMEX_HOME=str(home), PYTHONPATH=str(REPO), MEMEX_LOCK_TIMEOUT="5")

    def limit_file_size() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    command = [sys.executable, "-c", DRIVER, *args]
    return subprocess.run(
        [*wrapper, "--", "-c", " ".join(map(_quote, command))] if wrapper else command,
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit_file_size if file_limit is not None else None,
    )


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def page_count(home: Path) -> int:
    mx = crash_memex(home)
    try:
        return int(mx.catalog._db.execute("PRAGMA page_count").fetchone()[0])
    finally:
        mx.close()


def home_bytes(home: Path) -> int:
    return sum(p.stat().st_size for p in home.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def material(tmp_path_factory: pytest.TempPathFactory) -> Material:
    root = tmp_path_factory.mktemp("disk")
    root.chmod(0o755)  # read by the read-only cases' subprocess too
    paths = [generated_exports(root / "exports"), generated_vault(root / "vault")]
    empty = root / "empty"
    empty.mkdir()  # a read command opens an existing folder, never makes one
    assert run_memex(empty, "corpus", "--format", "json").returncode == 0
    home = root / "clean"
    done = run_memex(home, *ingest_args(paths))
    assert done.returncode == 0, done.stderr
    return Material(
        paths, catalog_state(home), (page_count(empty), page_count(home)), home_bytes(home)
    )


def assert_says_disk_full(message: str, home: Path) -> None:
    assert "No space left to write" in message, message
    assert str(home) in message and "run the command again" in message, message
    assert "Traceback" not in message, message


def assert_consistent_then_rerun(home: Path, material: Material) -> None:
    """Whole sources only, no damage; then a rerun gives exactly the clean catalog."""
    mx = crash_memex(home)  # opening migrates a catalog the fault stopped before its tables
    report = mx.doctor()
    mx.close()
    clean = fragments_by_source(material.expected)
    for source, ids in fragments_by_source(catalog_state(home)).items():
        assert ids == clean.get(source), f"{source} is half-written"
    bad = [f.code for f in report.findings if f.severity == "damage"]
    bad += [f.code for f in report.findings if f.code.endswith((".damaged", ".unreadable"))]
    assert not bad, report.to_dict()

    rerun = run_memex(home, *ingest_args(material.paths))
    assert rerun.returncode == 0, rerun.stderr
    assert catalog_state(home) == material.expected
    mx = crash_memex(home)
    after = mx.doctor()
    mx.close()
    assert after.healthy and after.findings == [], after.to_dict()


# -- disk full, in the process, at chosen points ------------------------------------------------


def fail_on_call(target: Callable[..., Any], nth: int, error: BaseException) -> Callable[..., Any]:
    calls = {"n": 0}

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] >= nth:
            raise error
        return target(*args, **kwargs)

    return failing


def enospc() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def catalog_full(fraction: float) -> Callable[..., None]:
    def inject(mx: Any, material: Material, monkeypatch: pytest.MonkeyPatch) -> None:
        empty, full = material.catalog_pages
        limit = empty + max(1, int((full - empty) * fraction))
        mx.catalog._db.execute(f"PRAGMA max_page_count = {limit}")

    return inject


def keyword_full(nth: int, function: str = "save_array") -> Callable[..., None]:
    def inject(mx: Any, material: Material, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(
            storage, function, fail_on_call(getattr(storage, function), nth, enospc())
        )

    return inject


def vectors_full(nth: int, error: Callable[[], BaseException] = enospc) -> Callable[..., None]:
    def inject(mx: Any, material: Material, monkeypatch: pytest.MonkeyPatch) -> None:
        upsert = SqliteVectorStore.upsert
        monkeypatch.setattr(SqliteVectorStore, "upsert", fail_on_call(upsert, nth, error()))

    return inject


class ChromaInternalError(Exception):
    """What chroma raises when its SQLite runs out of space (chromadb.errors.InternalError)."""


def chroma_style_full() -> BaseException:
    return ChromaInternalError(
        "Query error: Database error: error returned from database: (code: 13) "
        "database or disk is full"
    )


#: In-process disk-full faults: (id, how to inject it).
IN_PROCESS = [
    ("catalog-full-at-10%", catalog_full(0.1)),
    ("catalog-full-at-50%", catalog_full(0.5)),
    ("catalog-full-at-90%", catalog_full(0.9)),
    ("keyword-array-write-1", keyword_full(1)),
    ("keyword-array-write-7", keyword_full(7)),
    ("keyword-vocabulary-write", keyword_full(2, "save_json")),
    ("keyword-manifest-write", keyword_full(1, "write_manifest")),
    ("vectors-write-1", vectors_full(1)),
    ("vectors-chroma-error", vectors_full(1, chroma_style_full)),
]
#: RLIMIT_FSIZE in a subprocess: every file stops at this many bytes.
FILE_LIMITS = [16_384, 131_072, 524_288]
#: A tmpfs of this share of a clean home's size holds the home (root only).
TMPFS_SHARES = [0.3, 0.7]

DISK_FAULTS = (
    [pytest.param("in-process", inject, id=name) for name, inject in IN_PROCESS]
    + [pytest.param("file-limit", limit, id=f"file-size-limit-{limit}") for limit in FILE_LIMITS]
    + [pytest.param("tmpfs", share, id=f"tmpfs-{int(share * 100)}%") for share in TMPFS_SHARES]
)


@contextmanager
def tmpfs(path: Path, size: int) -> Iterator[Path]:
    """A tmpfs of ``size`` bytes at ``path``; skips the test where mounting is not allowed."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root; the other disk-full cases still run")
    path.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def remount(path: Path, option: str) -> None:
    done = subprocess.run(["mount", "-o", f"remount,{option}", str(path)], capture_output=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("kind", "fault"), DISK_FAULTS)
def test_disk_full_says_so_and_leaves_nothing_half_written(
    material: Material,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    fault: Any,
) -> None:
    if kind == "in-process":
        home = tmp_path / "home"
        mx = crash_memex(home)
        fault(mx, material, monkeypatch)
        with pytest.raises(DiskFullError) as failure:
            mx.ingest(*material.paths)
        mx.close()
        monkeypatch.undo()
        assert isinstance(failure.value, StorageError)
        assert_says_disk_full(str(failure.value), home)
        assert_consistent_then_rerun(home, material)
    elif kind == "file-limit":
        home = tmp_path / "home"
        failed = run_memex(home, *ingest_args(material.paths), file_limit=fault)
        assert failed.returncode == 1, failed.stderr
        assert_says_disk_full(failed.stderr, home)
        assert_consistent_then_rerun(home, material)
    else:
        size = max(int(material.home_bytes * fault), 64 * 1024)
        with tmpfs(tmp_path / "mnt", size) as mount:
            home = mount / "home"
            failed = run_memex(home, *ingest_args(material.paths))
            assert failed.returncode == 1, failed.stderr
            assert_says_disk_full(failed.stderr, home)
            remount(mount, f"size={material.home_bytes * 4 + (16 << 20)}")
            assert_consistent_then_rerun(home, material)


# -- a read-only home ---------------------------------------------------------------------------


def snapshot(home: Path) -> dict[str, str]:
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


def populated_home(root: Path, material: Material) -> Path:
    home = root / "home"
    done = run_memex(home, *ingest_args(material.paths[:1]))
    assert done.returncode == 0, done.stderr
    return home


def without_root_override() -> list[str] | None:
    """Run as root without the capabilities that let root write anywhere, or as we are."""
    if os.geteuid() != 0:
        return None
    if shutil.which("capsh") is None:
        pytest.skip("running as root without capsh: chmod cannot make a folder read-only")
    return ["capsh", "--drop=cap_dac_override,cap_dac_read_search,cap_fowner"]


def assert_says_read_only(message: str, home: Path) -> None:
    assert "read-only" in message and str(home) in message, message
    assert "MEMEX_HOME" in message and "writable" in message, message
    assert "Traceback" not in message, message


@contextmanager
def read_only_by_chmod(root: Path, material: Material) -> Iterator[tuple[Path, list[str] | None]]:
    wrapper = without_root_override()
    root.chmod(0o755)
    home = populated_home(root, material)
    modes = {p: p.stat().st_mode for p in [home, *home.rglob("*")]}
    for path in modes:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        yield home, wrapper
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


@contextmanager
def read_only_by_mount(root: Path, material: Material) -> Iterator[tuple[Path, list[str] | None]]:
    with tmpfs(root / "mnt", 64 << 20) as mount:
        home = populated_home(mount, material)
        remount(mount, "ro")
        yield home, None


@contextmanager
def read_only_parent(root: Path, material: Material) -> Iterator[tuple[Path, list[str] | None]]:
    wrapper = without_root_override()
    parent = root / "parent"
    parent.mkdir(mode=0o555)
    root.chmod(0o755)
    try:
        yield parent / "home", wrapper
    finally:
        parent.chmod(0o755)


#: Ways a home ends up read-only.
READ_ONLY_FAULTS = [
    pytest.param(read_only_by_chmod, id="chmod"),
    pytest.param(read_only_by_mount, id="read-only-mount"),
    pytest.param(read_only_parent, id="read-only-parent"),
]


@pytest.mark.parametrize("make_read_only", READ_ONLY_FAULTS)
def test_a_read_only_home_is_named_with_the_fix_and_left_untouched(
    material: Material, tmp_path: Path, make_read_only: Callable[..., Any]
) -> None:
    with make_read_only(tmp_path, material) as (home, wrapper):
        before = snapshot(home) if home.exists() else {}
        ingest = run_memex(home, *ingest_args(material.paths), wrapper=wrapper)
        assert ingest.returncode == 1, ingest.stderr
        assert_says_read_only(ingest.stderr, home)
        search = run_memex(home, "keyword", "kubernetes", wrapper=wrapper)
        assert "Traceback" not in search.stderr
        if search.returncode != 0 and not home.exists():  # a read never makes a home
            assert f"No memex home at {home}" in search.stderr, search.stderr
        elif search.returncode != 0:
            assert_says_read_only(search.stderr, home)
        assert (snapshot(home) if home.exists() else {}) == before


def test_storage_errors_are_memex_errors_the_cli_prints_cleanly() -> None:
    from memex_core.errors import MemexError

    assert issubclass(DiskFullError, MemexError) and issubclass(NotWritableError, MemexError)
