"""``memex`` in real processes on one home, for the concurrency and outage tests: the fast
hashing embedder (held at a known point by a *gate* the test opens), how to spawn, run and
wait for ``memex`` subprocesses, the material they ingest and the checks that a home is
consistent afterwards (see ``tests/core/test_concurrency.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_core.api import Memex
from memex_core.config import default_home
from memex_core.domain import SearchFilters
from memex_core.hookspecs import hookimpl
from memex_core.plugins import PluginRegistry, load_registry
from tests.conftest import REPO
from tests.support.component_doubles import HashingEmbedder
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export

#: The longest any one wait in these tests may take before the test fails.
BOUND_S = 300.0
GATE_ENV = "MEMEX_TEST_GATE"
EVERYTHING = SearchFilters(include_private=True)


# -- memex as the subprocesses run it ------------------------------------------------------


class GatedHashingEmbedder(HashingEmbedder):
    """The hashing embedder; with ``MEMEX_TEST_GATE=<file>`` each batch waits for the test.

    Before its n-th ``embed_documents`` call it writes n to ``<file>.reached`` and waits
    until ``<file>`` holds a number >= n. An ingest embeds after its catalog and keyword
    writes, holding the write lock, so a gated ingest is a writer paused mid-run.
    """

    def __init__(self) -> None:
        gate = os.environ.get(GATE_ENV)
        self.gate = Gate(Path(gate)) if gate else None
        self.calls = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.gate is not None:
            self.calls += 1
            self.gate.arrive(self.calls)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return super().embed_documents([text])[0]  # queries are never gated


class WorkerComponents:
    @hookimpl
    def register_embedders(self, register: Any) -> None:
        register("hashing", lambda context: GatedHashingEmbedder())


def worker_registry() -> PluginRegistry:
    registry = load_registry()
    registry.register_plugin(WorkerComponents(), name="concurrency-components")
    return registry


def worker_memex(home: str | Path | None = None) -> Memex:
    """A Memex with the test embedder; config.toml in the home picks the rest."""
    return Memex(Path(home) if home else default_home(), registry=worker_registry())


def main(argv: list[str]) -> None:
    """``memex`` as the subprocesses run it (``python -c`` imports this and calls it)."""
    import memex_core.cli.opening as opening
    from memex_core.cli import main as memex_main

    opening.Memex = worker_memex  # type: ignore[assignment,misc]
    memex_main(argv)


DRIVER = "import sys; from tests.support.memex_processes import main; main(sys.argv[1:])"


def write_config(home: Path, chroma_url: str | None = None, **chroma: Any) -> None:
    """The hashing embedder, chroma in the home folder (or at ``chroma_url``)."""
    home.mkdir(parents=True, exist_ok=True)
    lines = ['[embedder]\nuse = "hashing"\n', "[vector.chroma]\n"]
    if chroma_url:
        lines.append(f'url = "{chroma_url}"\n')
    lines += [f"{key} = {json.dumps(value)}\n" for key, value in chroma.items()]
    (home / "config.toml").write_text("".join(lines))


class Process:
    """A ``memex`` subprocess with its output in files, readable while it runs."""

    def __init__(self, folder: Path, name: str, args: Sequence[str], env: dict[str, str]) -> None:
        self.out = folder / f"{name}.out"
        self.err = folder / f"{name}.err"
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.popen = subprocess.Popen(
                [sys.executable, "-c", DRIVER, *args],
                env=env,
                cwd=REPO,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
            )
        self.pid = self.popen.pid

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")

    def running(self) -> bool:
        return self.popen.poll() is None

    def finish(self) -> int:
        try:
            return self.popen.wait(timeout=BOUND_S)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
            raise AssertionError(
                f"{self.err.stem} did not finish: {self.stderr()[-2000:]}"
            ) from None

    def kill(self) -> None:
        if self.running():
            self.popen.kill()
            self.popen.wait()


def memex_env(home: Path, *, lock_timeout: str = "300", gate: Gate | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (GATE_ENV, "MEMEX_CHROMA_URL")}
    env.update(MEMEX_HOME=str(home), MEMEX_LOCK_TIMEOUT=lock_timeout, PYTHONPATH=str(REPO))
    if gate is not None:
        env[GATE_ENV] = str(gate.path)
    return env


def spawn(home: Path, name: str, *args: str, **env: Any) -> Process:
    return Process(home.parent, name, args, memex_env(home, **env))


def run(home: Path, *args: str, **env: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, *args],
        env=memex_env(home, **env),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )


def wait_until(condition: Callable[[], bool], what: str, *, alive: Process | None = None) -> None:
    """Poll ``condition`` (bounded); fail early if ``alive`` exits first."""
    deadline = time.monotonic() + BOUND_S
    while not condition():
        if alive is not None and not alive.running():
            raise AssertionError(f"{what}: the process exited first:\n{alive.stderr()[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.05)


class Gate:
    """A file through which the test lets a gated writer go one embedding batch at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reached_path = path.with_name(path.name + ".reached")

    @staticmethod
    def _read(path: Path) -> int:
        try:
            return int(path.read_text() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    # the writer's side
    def arrive(self, n: int) -> None:
        self.reached_path.write_text(str(n))
        deadline = time.monotonic() + BOUND_S
        while self._read(self.path) < n:
            if time.monotonic() > deadline:
                raise RuntimeError(f"gate {self.path} never opened for batch {n}")
            time.sleep(0.02)

    # the test's side
    @property
    def reached(self) -> int:
        return self._read(self.reached_path)

    def allow(self, n: int) -> None:
        self.path.write_text(str(n))

    def open(self) -> None:
        self.allow(10**9)


# -- material and checks -------------------------------------------------------------------

WORDS = [
    *("amber", "basil", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo"),
    *("juniper", "kelp", "lagoon", "meadow", "nectar", "onyx", "pebble", "quartz", "raven"),
    *("saffron", "tundra", "umber", "violet", "willow", "xenon", "yarrow", "zephyr"),
]


def write_material(folder: Path, name: str, conversations: int) -> Path:
    """A ChatGPT export of ``conversations`` four-turn conversations with distinct texts."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    convs = []
    for c in range(conversations):
        turns = []
        for t in range(4):
            words = " ".join(rng.choice(WORDS, size=6))
            text = f"{name} conversation {c} turn {t}: {words}"
            turns.append(("user" if t % 2 == 0 else "assistant", text, 1.7e9 + c * 10 + t))
        convs.append(chatgpt_conversation(f"{name}-{c}", f"{name} {c}", turns))
    return write_chatgpt_export(folder / name / "conversations.json", convs)


def expected_ids(tmp: Path, *sources: Path) -> set[str]:
    """What one ingest after another, in one process, leaves in a fresh home."""
    home = tmp / "expected-home"
    write_config(home)
    with worker_memex(home) as mx:
        for source in sources:
            assert not mx.ingest(source, embed=False).failed
        return mx.catalog.all_ids()


def assert_consistent(home: Path, expected: set[str]) -> None:
    """Exactly ``expected`` in the catalog, and both indexes agree with it (doctor)."""
    with worker_memex(home) as mx:
        assert mx.catalog.all_ids() == expected
        report = mx.doctor()
        assert report.healthy, [f.to_dict() for f in report.findings]
        assert mx.vector_store.count() == len(expected)


def best_ids(mx: Memex, text: str) -> set[str]:
    """Ids of the semantic hits that tie for the best score (hashing vectors can collide)."""
    found = mx.search(text, mode="semantic", limit=5, filters=EVERYTHING, time_phrases=False)
    assert found.fallback is None, found.notes
    top = found[0].score if len(found) else None
    return {r.id for r in found if top is not None and r.score >= top - 1e-6}
