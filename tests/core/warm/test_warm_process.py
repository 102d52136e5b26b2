"""The warm path: fresh ``memex`` processes answered by a process that holds the home open.

Everything here is real: a home built with ``memex ingest`` (MiniLM, chroma), a
warm process spawned as ``python -m memex_core.cli.warm_daemon``, and ``memex``
commands run as subprocesses, once through the socket and once with
``MEMEX_NO_WARM=1``; their stdout and stderr must be the same bytes.
``MEMEX_WARM_DEBUG=1`` makes a command that ran in its own process say why.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.cli.app import run_on
from memex_core.warm import protocol, socket_client
from memex_core.warm.socket_listener import WarmServer, WarmUnavailable
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export
from tests.support.warm_ping import ping

pytestmark = pytest.mark.skipif(
    not hasattr(socket, "AF_UNIX"), reason="the warm path needs Unix sockets"
)

HERE_NOT_WARM = "memex: running here, not in a warm process"
QUERY = "database is locked when two processes write"


def _env(**extra: str) -> dict[str, str]:
    # COLUMNS and LINES are left out: the terminal's size comes from the pty these tests open,
    # and a COLUMNS the test runner's process happens to carry would override it.
    env = {
        name: value
        for name, value in os.environ.items()
        if (not name.startswith("MEMEX_") or name == "MEMEX_LOAD_PLUGINS")
        and name not in ("COLUMNS", "LINES")
    }
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MEMEX_WARM_DEBUG="1")
    env.update(MEMEX_WARM_AUTOSTART="0")  # no process left behind unless a test asks for one
    env.update(extra)
    return env


def memex(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=300,
    )


def start_daemon(home: Path, *extra: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "memex_core.cli.warm_daemon", "--home", str(home), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"warm process exited: {process.stderr.read()!r}")  # type: ignore[union-attr]
        if ping(home) is not None:
            return process
        time.sleep(0.1)
    process.kill()
    raise AssertionError("warm process did not listen within 180 s")


def stop_daemon(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stderr is not None:
        process.stderr.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("warm")
    home = root / "home"
    export = write_chatgpt_export(root / "conversations.json")
    done = memex(home, "ingest", str(export))
    assert done.returncode == 0, done.stderr
    return home


@pytest.fixture(scope="module")
def warm(home: Path) -> Iterator[subprocess.Popen[bytes]]:
    process = start_daemon(home, "--idle-minutes", "30")
    yield process
    stop_daemon(process)


def assert_same(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command through the warm process and in its own process print the same."""
    through = memex(home, *args, **env)
    alone = memex(home, *args, **env, MEMEX_NO_WARM="1")
    assert HERE_NOT_WARM not in through.stderr, through.stderr
    assert (through.returncode, through.stdout) == (alone.returncode, alone.stdout)
    assert through.stderr == alone.stderr.replace(
        f"{HERE_NOT_WARM}: ${protocol.NO_WARM_ENV} is set\n", ""
    )
    return through


def test_read_commands_through_the_warm_process_print_what_they_print_alone(
    home: Path, warm: subprocess.Popen[bytes]
) -> None:
    before = ping(home)
    assert before is not None
    dig = assert_same(home, "dig", QUERY, "--format", "json")
    hits = json.loads(dig.stdout)
    assert hits and "WAL" in hits[0]["content"] + hits[1]["content"]
    assert_same(home, "keyword", "sourdough", "--format", "json", "--limit", "3")
    assert_same(home, "semantic", "baking bread at home", "--format=ids")
    assert_same(home, "dig", "sourdough", "--format", "json", "--concise", "--role", "user")
    assert_same(home, "get", hits[0]["id"], "--format", "json")
    assert_same(home, "timeline", hits[0]["id"], "--format", "json")
    # A failing command fails the same way: the message and exit status of a bad filter.
    bad = assert_same(home, "dig", QUERY, "--format", "json", "--since", "not a time")
    assert bad.returncode != 0 and "Error" in bad.stderr
    after = ping(home)
    assert after is not None and after["requests"] == before["requests"] + 7  # type: ignore[operator]


def test_panels_for_a_pipe_come_out_as_they_would_alone(
    home: Path, warm: subprocess.Popen[bytes]
) -> None:
    """An agent reading a pipe gets panels: laid out for the width rich would use in the
    client (80 on a pipe, or ``COLUMNS``), not the warm process's terminal."""
    hits = json.loads(memex(home, "keyword", "sqlite", "--format", "json").stdout)
    assert "╭" in assert_same(home, "dig", QUERY).stdout
    wide = assert_same(home, "dig", QUERY, COLUMNS="132")
    assert max(len(line) for line in wide.stdout.splitlines()) == 132
    assert_same(home, "keyword", "sourdough", "--concise")
    assert_same(home, "get", hits[0]["id"])
    assert_same(home, "timeline", hits[0]["id"])
    assert_same(home, "context", QUERY, "--budget", "600")
    assert_same(home, "context", QUERY, "--budget", "600", "--format", "json")


def on_terminal(home: Path, *args: str, **env: str) -> tuple[int, bytes, str]:
    """Run ``memex`` with stdout on a pseudo-terminal of 100x30 (TERM=xterm-256color):
    exit status, the bytes it wrote to the terminal, and its stderr."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    received: list[bytes] = []

    def drain() -> None:  # a pty holds a few KB: read while the command writes
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO once the command closed its end
                return
            if not chunk:
                return
            received.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memex_core", "--home", str(home), *args],
            stdout=follower,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(TERM="xterm-256color", **env),
            timeout=300,
        )
    finally:
        os.close(follower)
    reader.join(timeout=30)
    os.close(leader)
    return done.returncode, b"".join(received), done.stderr


def test_panels_on_a_terminal_come_out_as_they_would_alone(
    home: Path, warm: subprocess.Popen[bytes]
) -> None:
    """A person at a terminal gets the same bytes, colours and width included, whether the
    warm process or the command itself lays the panels out."""
    status, through, err = on_terminal(home, "dig", QUERY)
    assert status == 0 and HERE_NOT_WARM not in err, err
    alone_status, alone, _ = on_terminal(home, "dig", QUERY, MEMEX_NO_WARM="1")
    assert (status, through) == (alone_status, alone)
    assert b"\x1b[" in through  # coloured, as on a terminal
    visible = re.sub(r"\x1b\[[0-9;]*m", "", through.decode())
    assert max(len(line) for line in visible.splitlines()) == 100  # the terminal's width
    assert (
        on_terminal(home, "keyword", "sourdough", "--concise")[1]
        == on_terminal(home, "keyword", "sourdough", "--concise", MEMEX_NO_WARM="1")[1]
    )


def test_help_forced_terminals_and_write_commands_run_in_their_own_process(
    home: Path, warm: subprocess.Popen[bytes]
) -> None:
    forced = memex(home, "dig", QUERY, FORCE_COLOR="1")
    assert f"{HERE_NOT_WARM}: rich's terminal variables" in forced.stderr
    assert "help is laid out" in memex(home, "dig", "--help").stderr
    assert "not a read command" in memex(home, "corpus", "--format", "json").stderr
    # Asked directly, the warm process refuses anything that writes.
    answer = socket_client.exchange(
        protocol.socket_path(str(home)),
        {**socket_client.request(str(home), ["ingest", "/etc/passwd"]), "v": protocol.VERSION},
        10.0,
    )
    assert answer["status"] == "decline" and "not a read command" in str(answer["reason"])


def test_a_fragment_written_by_another_process_is_found(
    home: Path, warm: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    word = "quokkafest"
    assert json.loads(memex(home, "keyword", word, "--format", "json").stdout) == []
    export = write_chatgpt_export(
        tmp_path / "later.json",
        [
            chatgpt_conversation(
                "conv-later",
                "Later",
                [("user", f"The {word} picnic on Rottnest island was in March.", 1.72e9)],
            )
        ],
    )
    done = memex(home, "ingest", str(export), MEMEX_NO_WARM="1")
    assert done.returncode == 0, done.stderr
    for command in ("keyword", "dig", "semantic"):
        found = assert_same(home, command, word + " picnic", "--format", "json")
        assert word in json.loads(found.stdout)[0]["content"], command


def test_a_changed_config_is_not_ignored(home: Path, tmp_path: Path) -> None:
    """``memex warm`` reopens the home when config.toml changes; a process that cannot
    (a serve's) declines, and the command runs in its own process."""
    from memex_core.api import Memex

    config = home / "config.toml"
    mx = Memex(home=home)
    holder = WarmServer(mx, owner="test", run_command=run_on)
    request = socket_client.request(str(home), ["keyword", "sourdough", "--format", "json"])
    assert holder.answer(request)["status"] == "ok"
    try:
        config.write_text("[search]\nsemantic_weight = 0.25\n")
        changed = socket_client.request(str(home), ["keyword", "sourdough", "--format", "json"])
        answer = holder.answer(changed)
        assert answer["status"] == "decline" and "config.toml changed" in answer["reason"]
        reopening = WarmServer(mx, owner="test", run_command=run_on, reopen=True)
        reopening.config = None  # as if it started before the file was written
        answer = reopening.answer(changed)
        assert answer["status"] == "ok" and reopening.config == config.read_text()
        assert reopening.memex is not mx and reopening.memex.config.search_setting(
            "semantic_weight", None
        ) == pytest.approx(0.25)
        reopening.memex.close()
    finally:
        config.unlink()
        mx.close()


def test_a_different_environment_or_home_spelling_is_declined(
    home: Path, warm: subprocess.Popen[bytes]
) -> None:
    other = memex(home, "keyword", "sourdough", "--format", "json", MEMEX_SOMETHING="1")
    assert "MEMEX_* environment differs" in other.stderr
    assert other.returncode == 0 and json.loads(other.stdout)
    spelled = subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", "home", "keyword", "x", "--format", "json"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=home.parent,
    )
    assert spelled.returncode == 0 and "this process serves" in spelled.stderr


def test_the_socket_is_private(home: Path, warm: subprocess.Popen[bytes]) -> None:
    path = Path(protocol.socket_path(str(home)))
    assert stat.S_ISSOCK(path.stat().st_mode)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.stat().st_uid == os.getuid()


def test_no_process_a_stale_socket_and_a_killed_process_fall_back(
    tmp_path: Path, home: Path
) -> None:
    own = tmp_path / "own"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    assert memex(own, "ingest", str(export), MEMEX_NO_WARM="1").returncode == 0
    alone = memex(own, "dig", QUERY, "--format", "json", MEMEX_NO_WARM="1")
    assert alone.returncode == 0 and json.loads(alone.stdout)

    nothing = memex(own, "dig", QUERY, "--format", "json")
    assert "no warm process (no socket)" in nothing.stderr
    assert nothing.stdout == alone.stdout

    # A socket file nobody listens on (its process was killed): the command runs here.
    path = protocol.socket_path(str(own))
    Path(path).parent.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)
    dead.close()
    stale = memex(own, "dig", QUERY, "--format", "json")
    assert "stale socket" in stale.stderr and stale.stdout == alone.stdout

    # A warm process starting on it takes the stale socket over; killed, it leaves one again.
    process = start_daemon(own)
    try:
        through = memex(own, "dig", QUERY, "--format", "json")
        assert HERE_NOT_WARM not in through.stderr and through.stdout == alone.stdout
        process.kill()
        process.wait()
        assert Path(path).exists()
        after = memex(own, "dig", QUERY, "--format", "json")
        assert "stale socket" in after.stderr and after.stdout == alone.stdout
    finally:
        stop_daemon(process)


def _fake_server(path: str, behaviour: str) -> tuple[socket.socket, threading.Thread]:
    """A socket that accepts one request and then dies without answering, or hangs."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        protocol.read_all(conn)
        if behaviour == "hang":
            time.sleep(3)
        elif behaviour == "garbage":
            conn.sendall(b'{"v": 99, "status": "ok"}')
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


@pytest.mark.parametrize(
    ("behaviour", "why"),
    [
        ("die", "closed without answering"),
        ("hang", "no answer within 1 s"),
        ("garbage", "protocol version 99"),
    ],
)
def test_a_process_that_dies_hangs_or_speaks_another_version_falls_back(
    home: Path, tmp_path: Path, behaviour: str, why: str
) -> None:
    fake_home = tmp_path / "fake"
    (fake_home / "run").mkdir(parents=True, mode=0o700)
    path = protocol.socket_path(str(fake_home))
    listener, thread = _fake_server(path, behaviour)
    try:
        done = memex(fake_home, "keyword", "x", "--format", "json", MEMEX_WARM_TIMEOUT="1")
        assert why in done.stderr
        assert done.returncode == 0 and json.loads(done.stdout) == []
    finally:
        thread.join(timeout=5)
        listener.close()


def test_a_second_warm_process_on_the_same_home_refuses(
    home: Path, warm: subprocess.Popen[bytes]
) -> None:
    from memex_core.api import Memex

    with Memex(home=home) as mx, pytest.raises(WarmUnavailable, match="already listens"):
        WarmServer(mx, owner="test", run_command=run_on).start()
    assert ping(home) is not None


def test_memex_warm_start_status_stop(tmp_path: Path) -> None:
    own = tmp_path / "own"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    assert memex(own, "ingest", str(export), MEMEX_NO_WARM="1").returncode == 0
    assert memex(own, "warm", "status").returncode == 1
    started = memex(own, "warm", "start", "--idle-minutes", "5")
    assert started.returncode == 0, started.stderr
    assert "listens on" in started.stdout
    try:
        status = memex(own, "warm", "status")
        assert status.returncode == 0 and "memex warm (pid" in status.stdout
        assert "Already running" in memex(own, "warm", "start").stdout
        through = memex(own, "keyword", "sourdough", "--format", "json")
        assert HERE_NOT_WARM not in through.stderr and json.loads(through.stdout)
    finally:
        stopped = memex(own, "warm", "stop")
    assert stopped.returncode == 0 and "Stopped" in stopped.stdout
    assert not Path(protocol.socket_path(str(own))).exists()
    assert memex(own, "warm", "status").returncode == 1


def test_the_idle_limit_ends_the_process(tmp_path: Path) -> None:
    own = tmp_path / "own"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    assert memex(own, "ingest", str(export), MEMEX_NO_WARM="1").returncode == 0
    process = start_daemon(own, "--idle-minutes", "0.02")  # 1.2 s
    try:
        assert process.wait(timeout=60) == 0
        assert not Path(protocol.socket_path(str(own))).exists()
    finally:
        stop_daemon(process)


def test_a_serve_on_the_home_answers_the_read_commands(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    from memex_server.launch import served

    own = tmp_path / "own"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    assert memex(own, "ingest", str(export), MEMEX_NO_WARM="1").returncode == 0
    with served(own, environ=_env()) as server:
        found = ping(own)
        assert found is not None and found["owner"] == "memex serve"
        # A server lives long: MiniLM embeds its queries through ONNX Runtime, and says so.
        if importlib.util.find_spec("onnxruntime") is not None:
            assert "query embeddings: onnx-fp32/cpu" in server.output()
        assert_same(own, "keyword", "sourdough", "--format", "json")
        assert_same(own, "dig", QUERY, "--format", "json")
    assert not Path(protocol.socket_path(str(own))).exists()


def test_a_stdio_mcp_server_on_the_home_answers_the_read_commands(tmp_path: Path) -> None:
    """Its stdout carries the MCP protocol: the warm requests' output must not leak into it."""
    pytest.importorskip("mcp")
    own = tmp_path / "own"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    assert memex(own, "ingest", str(export), MEMEX_NO_WARM="1").returncode == 0
    server = subprocess.Popen(
        [sys.executable, "-m", "memex_core", "--home", str(own), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    try:
        deadline = time.monotonic() + 120
        while ping(own) is None:
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        assert ping(own)["owner"] == "memex mcp"  # type: ignore[index]
        assert_same(own, "dig", QUERY, "--format", "json")
        assert_same(own, "keyword", "sourdough")
    finally:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.close()  # end of the MCP session: the server exits
        leaked = server.stdout.read()
        server.wait(timeout=30)
    assert leaked == b""
    assert not Path(protocol.socket_path(str(own))).exists()
