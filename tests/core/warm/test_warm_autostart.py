"""A read command that finds no warm process starts one, by default, and the next ones use it.

Real processes throughout: a home built with ``memex ingest``, ``memex`` commands run as
subprocesses whose environment carries no ``MEMEX_*`` variable but those a test sets (the
suite's own ``MEMEX_WARM_AUTOSTART=0`` is left out, so the default is what runs), and
``MEMEX_WARM_DEBUG=1``, under which a command says why it did or did not start one. Every
test that lets a process start stops it and waits for it to be gone.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.warm import protocol, socket_client
from tests.support.export_builders import write_chatgpt_export
from tests.support.warm_ping import ping

pytestmark = pytest.mark.skipif(
    not hasattr(socket, "AF_UNIX"), reason="the warm path needs Unix sockets"
)

HERE_NOT_WARM = "memex: running here, not in a warm process"
STARTED = "memex: started a warm process"
NOT_STARTED = "memex: no warm process started"
QUERY = ("keyword", "sourdough", "--format", "json")


def _env(**extra: str) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("MEMEX_") or name == "MEMEX_LOAD_PLUGINS"
    }
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MEMEX_WARM_DEBUG="1")
    env.update(extra)
    return env


def memex(
    home: Path, *args: str, wrapper: list[str] | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "memex_core", "--home", str(home), *args]
    if wrapper:  # capsh runs a shell command line
        command = [*wrapper, "--", "-c", " ".join(f"'{part}'" for part in command)]
    return subprocess.run(command, capture_output=True, text=True, env=_env(**env), timeout=300)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by init) counts as gone.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


def wait_until(condition: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what} within {seconds:g} s"
        time.sleep(0.1)


def lock_path(home: Path) -> Path:
    return Path(protocol.run_dir(str(home))) / socket_client.AUTOSTART_LOCK


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("autostart")
    export = write_chatgpt_export(root / "conversations.json")
    home = root / "home"
    done = memex(home, "ingest", str(export), MEMEX_NO_WARM="1", MEMEX_WARM_AUTOSTART="0")
    assert done.returncode == 0, done.stderr
    return home


@pytest.fixture
def home(built: Path, tmp_path: Path) -> Path:
    """A home of its own for each test (a short path: the socket must fit in sun_path)."""
    copy = tmp_path / "h"
    shutil.copytree(built, copy, ignore=shutil.ignore_patterns("run"))
    return copy


@pytest.fixture
def alone(built: Path) -> str:
    """What the query prints in its own process."""
    done = memex(built, *QUERY, MEMEX_NO_WARM="1")
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def started(home: Path) -> Iterator[list[int]]:
    """The pids of warm processes a test saw; each is ended after the test."""
    pids: list[int] = []
    yield pids
    memex(home, "warm", "stop", MEMEX_WARM_AUTOSTART="0")
    for pid in pids:
        if alive(pid) and is_warm(pid):
            os.kill(pid, signal.SIGKILL)


def is_warm(pid: int) -> bool:
    """Whether ``pid`` is still a memex warm process: once that has ended, its pid may be
    another's (pids wrap at 32,768), an xdist worker's say, which a SIGKILL must not reach."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"memex_core" in command and b"warm" in command


def test_the_first_read_command_starts_a_warm_process_that_answers_the_next(
    home: Path, alone: str, started: list[int]
) -> None:
    first_process = subprocess.Popen(  # MEMEX_WARM_AUTOSTART unset: the default
        [sys.executable, "-m", "memex_core", "--home", str(home), *QUERY],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    out, err = first_process.communicate(timeout=300)
    first = subprocess.CompletedProcess(first_process.args, first_process.returncode, out, err)
    assert first.returncode == 0, first.stderr
    assert first.stdout == alone  # it answered itself, cold
    assert f"{HERE_NOT_WARM}: no warm process" in first.stderr
    assert STARTED in first.stderr, first.stderr
    # `memex warm start` now starts no second one: it waits for this one to listen.
    start = memex(home, "warm", "start")
    assert start.returncode == 0 and "Already running: memex warm" in start.stdout, start
    found = ping(home)
    assert found is not None and found["owner"] == "memex warm"
    pid = found["pid"]
    assert isinstance(pid, int) and f"(pid {pid})" in start.stdout
    started.append(pid)
    # It exits by itself after the documented idle period, and loaded the indexes only once
    # the command that started it had exited (it takes no CPU from that one).
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        args = cmdline.read_bytes().split(b"\0")
        assert args[args.index(b"--idle-minutes") + 1] == b"30"
        assert args[args.index(b"--after-pid") + 1] == str(first_process.pid).encode()

    second = memex(home, *QUERY)
    assert HERE_NOT_WARM not in second.stderr, second.stderr
    assert STARTED not in second.stderr
    assert second.stdout == alone
    after = ping(home)
    assert after is not None and after["pid"] == pid and after["requests"] == 1

    # Removing its socket (the home deleted, say) leaves nobody to answer: it exits.
    os.unlink(protocol.socket_path(str(home)))
    wait_until(lambda: not alive(pid), 30, "the warm process exits once its socket is gone")


def test_no_process_is_started_while_another_start_is_under_way(home: Path) -> None:
    run = Path(protocol.run_dir(str(home)))
    run.mkdir(mode=0o700)
    with open(lock_path(home), "w") as held:  # what a process still loading holds
        fcntl.flock(held, fcntl.LOCK_EX)
        old = time.time() - 3600
        os.utime(lock_path(home), (old, old))
        done = memex(home, *QUERY)
    assert done.returncode == 0, done.stderr
    assert f"{NOT_STARTED}: another one is being started" in done.stderr, done.stderr
    assert ping(home) is None
    # A start that left nothing listening a moment ago: no new one for a while.
    os.utime(lock_path(home))
    again = memex(home, *QUERY)
    assert f"{NOT_STARTED}: a warm process was started less than 60 s ago" in again.stderr
    assert ping(home) is None


@pytest.mark.parametrize("value", ["0", "off", "never"])
def test_memex_warm_autostart_0_turns_it_off(home: Path, alone: str, value: str) -> None:
    done = memex(home, *QUERY, MEMEX_WARM_AUTOSTART=value)
    assert done.returncode == 0 and done.stdout == alone
    assert f"{NOT_STARTED}: $MEMEX_WARM_AUTOSTART turns it off" in done.stderr, done.stderr
    assert not lock_path(home).exists() and ping(home) is None


def test_never_for_a_remote_home(home: Path) -> None:
    server = {"MEMEX_URL": "http://127.0.0.1:9", "MEMEX_API_KEY": "mxk_nobody"}
    # --home keeps the command on this home, but MEMEX_URL says the memex lives on a server.
    local = memex(home, *QUERY, **server, MEMEX_WARM_AUTOSTART="1")
    assert f"{NOT_STARTED}: $MEMEX_URL is set" in local.stderr, local.stderr
    # Without --home the command goes to that server: not even the socket is tried.
    remote = subprocess.run(
        [sys.executable, "-m", "memex_core", *QUERY],
        capture_output=True,
        text=True,
        env=_env(**server, MEMEX_HOME=str(home), MEMEX_WARM_AUTOSTART="1"),
        timeout=300,
    )
    assert "$MEMEX_URL is set: the command goes to that memex serve" in remote.stderr
    assert STARTED not in remote.stderr
    assert not lock_path(home).exists() and ping(home) is None


def test_never_for_a_read_only_home(home: Path, alone: str) -> None:
    wrapper = None
    if os.geteuid() == 0:  # root writes anywhere unless it drops the capability
        if shutil.which("capsh") is None:
            pytest.skip("running as root without capsh: chmod cannot make a folder read-only")
        wrapper = ["capsh", "--drop=cap_dac_override,cap_dac_read_search,cap_fowner"]
    home.chmod(0o555)
    try:
        done = memex(home, *QUERY, wrapper=wrapper, MEMEX_WARM_AUTOSTART="1")
    finally:
        home.chmod(0o755)
    assert f"{NOT_STARTED}: the home is read-only" in done.stderr, done.stderr
    assert not Path(protocol.run_dir(str(home))).exists() and ping(home) is None


def test_never_for_a_home_that_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    done = memex(missing, "keyword", "x", "--format", "json")
    assert f"{NOT_STARTED}: the home does not exist" in done.stderr, done.stderr
    assert not (missing / "run").exists()
