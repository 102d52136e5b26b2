"""The listener a long-running memex process opens on ``<home>/run/memex.sock``.

It runs the read commands of fresh ``memex`` processes (:mod:`memex_core.warm.socket_client`)
through the same click code they would run themselves, on the Memex it already holds
(the caller passes that code in as ``run_command``, :func:`memex_core.cli.app.run_on`,
so this package never imports the CLI), and sends back what they printed and their exit
status. One request at a time, holding the Memex's ``call_lock``, so it is safe
beside a serve's or an MCP server's own calls.

Who may ask: the socket is made mode 0600 in a 0700 folder of the home, and every
connection's peer must be this process's user (``SO_PEERCRED``, where the system has
it). No secret is asked for: whoever can connect can read the home's files, and
with them the operator secret, anyway. Only :data:`~memex_core.warm.protocol.READ_COMMANDS`
run; anything that writes is refused.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memex_core.warm import capture, protocol

if TYPE_CHECKING:
    from memex_core.api import Memex

#: Runs one command line (``--home H`` first) on an open Memex and returns its exit
#: status; the bool says whether to add the plugins' commands first (once per process).
CommandRunner = Callable[["Memex", list[str], bool], int]

#: Longest a client may take to send its request.
READ_TIMEOUT = 5.0
_PEERCRED = getattr(socket, "SO_PEERCRED", None)


class WarmUnavailable(Exception):
    """Why this process does not listen (another one does, the path is too long, ...)."""


class WarmServer:
    """Answers warm requests for ``memex``'s home.

    ``run_command`` runs a request's command line (:data:`CommandRunner`).
    ``reopen``: a process that owns its Memex (``memex warm``) reopens it when
    config.toml changes; a serve or MCP server, whose app holds the Memex, declines
    instead and the client runs the command itself. ``allow_stop``: ``memex warm
    stop`` may end this process.
    """

    def __init__(
        self,
        memex: Memex,
        *,
        owner: str,
        run_command: CommandRunner,
        reopen: bool = False,
        allow_stop: bool = False,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        self.memex = memex
        self.owner = owner
        self.run_command = run_command
        self.home = str(memex.home)
        self.real_home = os.path.realpath(self.home)
        self.path = protocol.socket_path(self.home)
        self.config = protocol.config_digest(self.home)
        self.env = protocol.environment()
        self.reopen = reopen
        self.allow_stop = allow_stop
        self.on_stop = on_stop
        self.started = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        self._sock: socket.socket | None = None
        self._inode: int | None = None
        self._stop = threading.Event()  # the loop and wait() end
        self._cleaned = False
        self._commands = False  # plugin commands added to the click group (once)
        self._thread: threading.Thread | None = None

    # -- listening ------------------------------------------------------------------

    def start(self) -> None:
        """Bind the socket and answer in a daemon thread; raises :class:`WarmUnavailable`."""
        capture.install()
        self._sock = self._bind()
        self._thread = threading.Thread(target=self._loop, name="memex-warm", daemon=True)
        self._thread.start()

    def _bind(self) -> socket.socket:
        run = protocol.run_dir(self.home)
        if len(os.fsencode(self.path)) >= protocol.MAX_SOCKET_PATH:
            raise WarmUnavailable(f"the socket path {self.path} is too long for a Unix socket")
        os.makedirs(run, mode=0o700, exist_ok=True)
        info = os.stat(run)
        if info.st_uid != os.getuid():
            raise WarmUnavailable(f"{run} belongs to another user")
        os.chmod(run, 0o700)
        import fcntl  # POSIX only, like the socket itself

        # Two processes starting at once: one binds, the other finds it alive.
        with open(os.path.join(run, "warm.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if os.path.exists(self.path):
                if _alive(self.path):
                    raise WarmUnavailable(f"another memex process already listens on {self.path}")
                os.unlink(self.path)  # stale: its process died without cleaning up
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)
            try:
                sock.bind(self.path)
            except OSError as exc:
                sock.close()
                raise WarmUnavailable(f"cannot listen on {self.path}: {exc}") from exc
            finally:
                os.umask(old)
            os.chmod(self.path, 0o600)
            self._inode = os.stat(self.path).st_ino
            sock.listen(16)
        sock.settimeout(0.5)  # wake up to notice close()
        return sock

    def close(self) -> None:
        """Stop answering and remove the socket if it is still this process's."""
        if self._cleaned:
            return
        self._cleaned = True
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if self._sock is not None:
            self._sock.close()
        with contextlib.suppress(OSError):
            if self._inode is not None and os.stat(self.path).st_ino == self._inode:
                os.unlink(self.path)

    def wait(self, idle_seconds: float | None = None) -> None:
        """Block until :meth:`close` (or ``memex warm stop``), until no request came for
        ``idle_seconds``, or until the socket file is gone or another's (the home was
        deleted or moved: no client can reach this process any more)."""
        while not self._stop.wait(1.0):
            if idle_seconds is not None and time.monotonic() - self.last_request > idle_seconds:
                return
            if not self._still_reachable():
                return

    def _still_reachable(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self._inode
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell (e.g. a slow network file system): keep serving

    def _loop(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    return
                time.sleep(0.1)
                continue
            with conn:
                self._serve(conn)

    # -- one connection -----------------------------------------------------------

    def _serve(self, conn: socket.socket) -> None:
        if not _same_user(conn):
            return  # not even an answer for another user
        conn.settimeout(READ_TIMEOUT)
        try:
            message = protocol.decode(protocol.read_all(conn))
        except (OSError, ValueError):
            return
        answer = self.answer(message)
        with contextlib.suppress(OSError):  # the client gave up (timeout, killed)
            conn.sendall(protocol.encode({"v": protocol.VERSION, **answer}))

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("v") != protocol.VERSION:
            return _decline(
                f"protocol version {message.get('v')!r} (this one speaks {protocol.VERSION})"
            )
        op = message.get("op")
        if op == "ping":
            return {"status": "ok", **self.describe()}
        if op == "stop":
            if not self.allow_stop:
                return _decline(f"this socket belongs to {self.owner}: stop that process instead")
            self._stop.set()
            if self.on_stop is not None:
                self.on_stop()
            return {"status": "ok", "pid": os.getpid()}
        if op != "run":
            return _decline(f"unknown operation {op!r}")
        self.last_request = time.monotonic()
        return self._run(message)

    def describe(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "owner": self.owner,
            "home": self.home,
            "started": self.started,
            "requests": self.requests,
            "idle_seconds": round(time.monotonic() - self.last_request, 1),
        }

    def _run(self, message: dict[str, Any]) -> dict[str, Any]:
        argv = message.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            return _decline("argv must be a non-empty list of strings")
        if argv[0] not in protocol.READ_COMMANDS:
            return _decline(f"{argv[0]!r} is not a read command")
        # Error messages name the home as the client spells it: only the same spelling
        # prints the same.
        if message.get("home") != self.home or message.get("real_home") != self.real_home:
            return _decline(f"this process serves {self.home}")
        if message.get("env") != self.env:
            return _decline("the MEMEX_* environment differs from this process's")
        if message.get("config") != self.config:
            if not self.reopen or message.get("config") != protocol.config_digest(self.home):
                return _decline("config.toml changed since this process started")
            self._reopen()
        render = message.get("render")
        if not _valid_render(render):
            return _decline("render settings missing or malformed")
        try:
            with (
                self.memex.call_lock,
                capture.captured(render) as output,
                _as_cold_process(self.memex),
            ):
                status = self.run_command(
                    self.memex, ["--home", self.home, *argv], not self._commands
                )
                self._commands = True
        except Exception as exc:  # the client runs it itself and shows its own traceback
            return _decline(f"the command failed here ({type(exc).__name__}: {exc})")
        self.requests += 1
        return {"status": "ok", "output": output, "exit": status}

    def _reopen(self) -> None:
        from memex_core.api import Memex

        old = self.memex
        with old.call_lock:
            self.memex = Memex(home=self.home)
            self.config = protocol.config_digest(self.home)
            old.close()


def _as_cold_process(memex: Memex) -> contextlib.AbstractContextManager[Any]:
    """Queries embedded as a fresh process would: a long-lived owner (``memex serve``) may
    have moved its embedder to a faster engine whose vectors differ by float32 rounding,
    which a command's JSON scores would show (the embedder's optional ``cold_queries``)."""
    embedder = memex._embedder  # only one already built: a new one starts cold anyway
    cold = getattr(embedder, "cold_queries", None) if embedder is not None else None
    return cold() if cold is not None else contextlib.nullcontext()


def _valid_render(render: object) -> bool:
    if not isinstance(render, dict):
        return False
    size = (render.get("width"), render.get("height"))
    env = render.get("env")
    tty = render.get("tty")
    return (
        isinstance(tty, dict)
        and all(k in ("1", "2") and isinstance(v, bool) for k, v in tty.items())
        and all(isinstance(n, int) and not isinstance(n, bool) and 0 < n < 100_000 for n in size)
        and isinstance(env, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
    )


def _decline(reason: str) -> dict[str, Any]:
    return {"status": "decline", "reason": reason}


def _same_user(conn: socket.socket) -> bool:
    if _PEERCRED is None:  # no peer credentials here: the 0600 socket in a 0700 folder decides
        return True
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, _PEERCRED, struct.calcsize("3i"))
    except OSError:
        return False
    _, uid, _ = struct.unpack("3i", raw)
    return bool(uid == os.getuid())


def _alive(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def start_for(
    memex: Memex, owner: str, echo: Callable[[str], None], run_command: CommandRunner
) -> WarmServer | None:
    """Listen for ``memex``'s home on behalf of a serve or MCP server, unless
    ``MEMEX_NO_WARM`` is set or it cannot (then ``echo`` says why, and it carries on)."""
    if protocol.disabled() or not hasattr(socket, "AF_UNIX"):
        return None  # switched off, or no Unix sockets here (Windows)
    server = WarmServer(memex, owner=owner, run_command=run_command)
    try:
        server.start()
    except (WarmUnavailable, OSError) as exc:
        echo(f"  warm socket: not listening ({exc})")
        return None
    echo(f"  warm socket: {server.path} (read commands of memex on this home answer here)")
    _close_on_sigterm(server)
    return server


def _close_on_sigterm(server: WarmServer) -> None:
    """Remove the socket when SIGTERM ends the process, then die of it as before: uvicorn
    hands a SIGTERM it caught back to the previous handler once it has shut down, which
    would otherwise kill the process before any ``finally`` runs."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return  # someone else's handler: leave it (a stale socket is cleaned up anyway)

    def close_then_die(signum: int, frame: object) -> None:
        server.close()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, close_then_die)
