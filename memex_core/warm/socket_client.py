"""The ``memex`` script's side of the warm path: offer a read command to the warm process
on the home and print its answer, or say that the command must run here.

Stdlib only (``socket``, ``json``, ``hashlib``): this runs before click or memex's
own modules are imported, and a miss must cost next to nothing (a ``stat`` when no
socket exists). Read commands are offered whatever they print to: the client sends
what rich and click would find here (:func:`render_settings`: the width and height,
whether stdout and stderr are terminals, the variables rich reads for colours), and
the warm process lays panels out and colours them with those, so a terminal gets
the same bytes as from a command run here. Only the variables that make rich treat
a pipe as a terminal (``FORCE_COLOR`` and its kin) keep a command here.
"""

from __future__ import annotations

import os
import socket
import sys
import time

from memex_core.warm import protocol

_GLOBAL_WITH_VALUE = ("--home",)
_MACHINE_FORMATS = ("json", "ids")
#: Held (flock) by a warm process started on demand for as long as it lives.
AUTOSTART_LOCK = "autostart.lock"
#: Seconds before a home whose last started process is not listening gets another one.
RETRY_SECONDS = 60.0
#: Variables rich reads to lay out and colour its output (rich.console.Console).
RENDER_ENV = ("TERM", "COLORTERM", "NO_COLOR", "COLUMNS", "LINES")
#: Variables under which rich would treat a pipe as a terminal: such commands run here.
_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS")


class Declined(Exception):
    """Why this command runs in this process (shown with ``MEMEX_WARM_DEBUG=1``)."""


def plan(
    argv: list[str], environ: dict[str, str] | os._Environ[str] = os.environ
) -> tuple[str, list[str]]:
    """(home as ``memex`` would spell it, the command's own arguments) when ``argv`` may go
    to a warm process; raises :class:`Declined` otherwise."""
    if protocol.disabled(environ):
        raise Declined(f"${protocol.NO_WARM_ENV} is set")
    home: str | None = None
    index = 0
    while index < len(argv) and argv[index].startswith("-"):
        option, equals, value = argv[index].partition("=")
        if option not in _GLOBAL_WITH_VALUE:
            raise Declined(f"global option {argv[index]!r}")
        if not equals:
            index += 1
            if index >= len(argv):
                raise Declined("--home without a value")
            value = argv[index]
        home = value
        index += 1
    if index >= len(argv) or argv[index] not in protocol.READ_COMMANDS:
        raise Declined("not a read command")
    rest = argv[index:]
    if "--help" in rest or "-h" in rest:
        raise Declined("help is laid out for the terminal")
    if not _machine_format(rest) and _forced_terminal(environ):
        raise Declined("rich's terminal variables ($FORCE_COLOR and kin) are set")
    if home is None:
        url = environ.get("MEMEX_URL", "").strip()
        if url and environ.get("MEMEX_API_KEY", "").strip():
            raise Declined("$MEMEX_URL is set: the command goes to that memex serve")
        home = environ.get("MEMEX_HOME") or os.path.join(os.path.expanduser("~"), ".memex")
    return os.path.expanduser(home), rest


def _machine_format(args: list[str]) -> bool:
    for position, arg in enumerate(args):
        if arg == "--":
            return False
        if arg.startswith("--format="):
            return arg.partition("=")[2] in _MACHINE_FORMATS
        if arg == "--format" and position + 1 < len(args):
            return args[position + 1] in _MACHINE_FORMATS
    return False


def _forced_terminal(environ: dict[str, str] | os._Environ[str]) -> bool:
    """Whether a variable tells rich to treat a pipe as a terminal (not sent over)."""
    return any(name in environ for name in _TERMINAL_ENV)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def render_settings(environ: dict[str, str] | os._Environ[str] = os.environ) -> dict[str, object]:
    """What rich and click in this process would lay panels out with: the size of the
    first standard stream that is a terminal (``rich.console.Console.size``),
    ``COLUMNS``/``LINES`` over it, else 80x25; whether stdout ("1") and stderr ("2") are
    terminals (rich colours and click keeps ANSI codes only there); and the variables
    rich reads."""
    width = height = None
    for fd in (0, 1, 2):
        try:
            width, height = os.get_terminal_size(fd)
        except (AttributeError, ValueError, OSError):
            continue
        break
    columns, lines = environ.get("COLUMNS"), environ.get("LINES")
    if columns is not None and columns.isdigit():
        width = int(columns)
    if lines is not None and lines.isdigit():
        height = int(lines)
    return {
        "width": width or 80,
        "height": height or 25,
        "env": {name: environ[name] for name in RENDER_ENV if name in environ},
        "tty": {"1": _isatty(sys.stdout), "2": _isatty(sys.stderr)},
    }


def request(
    home: str, args: list[str], environ: dict[str, str] | os._Environ[str] = os.environ
) -> dict[str, object]:
    return {
        "v": protocol.VERSION,
        "op": "run",
        "home": home,
        "real_home": os.path.realpath(home),
        "config": protocol.config_digest(home),
        "env": protocol.environment(environ),
        "argv": args,
        "render": render_settings(environ),
    }


def exchange(path: str, message: dict[str, object], timeout: float) -> dict[str, object]:
    """Send one request to the socket at ``path`` and return the answer; raises
    :class:`Declined` when nothing (or nothing sensible) answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except FileNotFoundError:
            raise Declined("no warm process (no socket)") from None
        except ConnectionRefusedError:
            raise Declined("stale socket: no process listens on it") from None
        except OSError as exc:
            raise Declined(f"cannot connect to {path}: {exc}") from None
        try:
            sock.sendall(protocol.encode(message))
            sock.shutdown(socket.SHUT_WR)
            data = protocol.read_all(sock)
        except TimeoutError:
            raise Declined(f"no answer within {timeout:g} s") from None
        except (OSError, ValueError) as exc:
            raise Declined(f"the warm process went away ({exc})") from None
    finally:
        sock.close()
    if not data:
        raise Declined("the warm process closed without answering")
    try:
        answer = protocol.decode(data)
    except ValueError as exc:
        raise Declined(f"unreadable answer ({exc})") from None
    if answer.get("v") != protocol.VERSION:
        raise Declined(
            f"protocol version {answer.get('v')!r}, this memex speaks {protocol.VERSION}"
        )
    return answer


def _timeout(environ: dict[str, str] | os._Environ[str]) -> float:
    try:
        return float(environ.get(protocol.TIMEOUT_ENV, "") or protocol.DEFAULT_TIMEOUT)
    except ValueError:
        return protocol.DEFAULT_TIMEOUT


def _well_formed(output: object) -> bool:
    """``[[fd, text], ...]`` with fd 1 or 2: checked whole before anything is printed."""
    return isinstance(output, list) and all(
        isinstance(piece, list)
        and len(piece) == 2
        and piece[0] in (1, 2)
        and isinstance(piece[1], str)
        for piece in output
    )


def _print(output: object) -> None:
    streams = {1: sys.stdout, 2: sys.stderr}
    for fd, text in output:  # type: ignore[attr-defined]
        stream = streams[fd]
        stream.write(text)
        stream.flush()


def answer_warm(argv: list[str]) -> int | None:
    """The exit status of ``argv`` answered by the warm process (its output printed), or
    None when the command must run in this process (nothing printed)."""
    environ = os.environ
    try:
        if not _utf8(sys.stdout) or not _utf8(sys.stderr):
            raise Declined("stdout or stderr does not take UTF-8")
        if not hasattr(socket, "AF_UNIX"):
            raise Declined("no Unix sockets on this system")
        home, args = plan(argv, environ)
        path = protocol.socket_path(home)
        if not os.path.exists(path):
            _autostart(home, environ)
            raise Declined("no warm process (no socket)")
        try:
            answer = exchange(path, request(home, args, environ), _timeout(environ))
        except Declined as why:
            if str(why).startswith("stale socket"):
                _autostart(home, environ)
            raise
        if answer.get("status") != "ok":
            raise Declined(f"declined: {answer.get('reason', answer.get('status'))}")
        output, status = answer.get("output"), answer.get("exit")
        if not isinstance(status, int) or not _well_formed(output):
            raise Declined("answer without well-formed output or exit status")
    except Declined as why:
        if environ.get(protocol.DEBUG_ENV):
            sys.stderr.write(f"memex: running here, not in a warm process: {why}\n")
        return None
    _print(output)
    return status


def autostart_minutes(environ: dict[str, str] | os._Environ[str] = os.environ) -> float | None:
    """Idle minutes after which a warm process started on demand exits, or None when
    ``MEMEX_WARM_AUTOSTART`` turns starting one off. Unset or empty: on, with
    :data:`~memex_core.warm.protocol.DEFAULT_IDLE_MINUTES`; ``1``/``yes``/``true``/``on``:
    the same; a positive number: that many minutes; ``0``, ``no``, ``false``, ``off`` or
    anything else: off."""
    raw = environ.get(protocol.AUTOSTART_ENV, "").strip().lower()
    if raw in ("", "1", "yes", "true", "on"):
        return protocol.DEFAULT_IDLE_MINUTES
    try:
        minutes = float(raw)
    except ValueError:
        return None
    return minutes if 0 < minutes < float("inf") else None


def autostart_refusal(home: str, environ: dict[str, str] | os._Environ[str]) -> str | None:
    """Why no warm process may be started for ``home`` now, or None when one may.

    Never for a home that does not exist (a read command must not create one) or that this
    user cannot write (a read-only home: the process needs its ``run/`` folder), never when
    ``MEMEX_URL`` names a ``memex serve`` (the home is remote), never when the socket path
    is too long to listen on; and not while another start is under way (the process holds
    ``run/autostart.lock`` while it lives) or within :data:`RETRY_SECONDS` of a start that
    left no process listening (so a home where it cannot start does not spawn one per
    command)."""
    if autostart_minutes(environ) is None:
        return f"${protocol.AUTOSTART_ENV} turns it off"
    if environ.get("MEMEX_URL", "").strip():
        return "$MEMEX_URL is set (the home is on a memex serve)"
    if not os.path.isdir(home):
        return "the home does not exist"
    run = protocol.run_dir(home)
    writable = os.access(run, os.W_OK) if os.path.isdir(run) else os.access(home, os.W_OK)
    if not writable:
        return "the home is read-only"
    if len(os.fsencode(protocol.socket_path(home))) >= protocol.MAX_SOCKET_PATH:
        return "the socket path is too long for a Unix socket"
    try:
        last = os.stat(os.path.join(run, AUTOSTART_LOCK)).st_mtime
    except OSError:
        return None
    if 0 <= time.time() - last < RETRY_SECONDS:
        return f"a warm process was started less than {RETRY_SECONDS:g} s ago"
    return None


def _autostart(home: str, environ: dict[str, str] | os._Environ[str]) -> None:
    """Start ``memex warm`` for ``home`` in the background, unless
    :func:`autostart_refusal` says not to, without waiting: this command runs here, the
    next ones find the socket. The child inherits an exclusive ``flock`` on
    ``run/autostart.lock``, so commands that find it held start no second process while
    the first is still loading; it lets go when the process exits. It loads the indexes
    only once this command has exited (``--after-pid``), so it takes no CPU from it. Its
    output goes to ``<home>/run/warm.log``."""
    why = autostart_refusal(home, environ)
    if why is not None:
        if environ.get(protocol.DEBUG_ENV):
            sys.stderr.write(f"memex: no warm process started: {why}\n")
        return
    minutes = autostart_minutes(environ)
    assert minutes is not None
    import fcntl
    import subprocess

    run = protocol.run_dir(home)
    try:
        os.makedirs(run, mode=0o700, exist_ok=True)
        lock = os.open(os.path.join(run, AUTOSTART_LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        if environ.get(protocol.DEBUG_ENV):
            sys.stderr.write(f"memex: could not start a warm process: {exc}\n")
        return
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a command started one that is still loading (or still runs)
            if environ.get(protocol.DEBUG_ENV):
                sys.stderr.write("memex: no warm process started: another one is being started\n")
            return
        os.utime(lock)  # when the last start was tried (autostart_refusal)
        with open(os.path.join(run, "warm.log"), "ab") as log:
            subprocess.Popen(
                [
                    *(sys.executable, "-m", "memex_core.cli.warm_daemon", "--home", home),
                    *("--idle-minutes", f"{minutes:g}", "--after-pid", str(os.getpid())),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # not killed with this command's terminal
                close_fds=True,
                pass_fds=(lock,),  # the flock goes with the child and ends with it
            )
        if environ.get(protocol.DEBUG_ENV):
            sys.stderr.write(f"memex: started a warm process for {home}\n")
    except OSError as exc:
        if environ.get(protocol.DEBUG_ENV):
            sys.stderr.write(f"memex: could not start a warm process: {exc}\n")
    finally:
        os.close(lock)


def _utf8(stream: object) -> bool:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return encoding == "utf8"
