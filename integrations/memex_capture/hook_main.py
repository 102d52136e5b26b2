"""What the hook program does at each Claude Code / Codex event (standard library only).

``hook.py`` is the script the agents run; it only sets ``sys.path`` and calls
:func:`main` here, because Python caches the bytecode of an imported module but
compiles a script from source at every start (~10 ms for this file). Installed by
``memex hooks install`` as::

    /abs/venv/bin/python -S /abs/memex_capture/hook.py <claude-code|codex> --home HOME

It appends a *pointer* record to the spool (``memex_capture.spool``), touches the
event's "last fired" marker, makes sure a capture worker runs, and at SessionStart
prints the brief of the session's folder (else of its project, ``layout.brief_files``)
for the agent's context. It never prints anything else,
never holds what was said or what a tool printed, and exits 0 whatever happens to it:
its own errors go, one line each, to ``<home>/logs/capture-hook.log``.

Startup is the whole cost of a hook (the agent waits for it), so the normal path
imports only ``os``, ``sys``, ``json`` and the stdlib-only ``layout``/``spool``/
``launch``; ``time``, ``traceback`` and friends are imported on the error path.

What the agents send (checked against their sources and docs, 2026-11):

- Claude Code (code.claude.com/docs/en/hooks) writes one JSON object on stdin:
  ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
  ``hook_event_name`` and, per event, SessionStart ``source``
  (startup|resume|clear|compact), UserPromptSubmit ``prompt``, PostToolUse
  ``tool_name``, ``tool_input``, ``tool_response``, ``tool_use_id``, Stop
  ``stop_hook_active``, SessionEnd ``reason``; subagent events add ``agent_id`` and
  ``agent_type``. The common fields come first, so the pointer fields sit in the head
  of even a many-megabyte PostToolUse payload.
- Codex ``notify`` (openai/codex ``codex-rs/hooks/src/legacy_notify.rs``): the
  configured argv with ONE JSON argument appended, ``{"type": "agent-turn-complete",
  "thread-id", "turn-id", "cwd", "client"?, "input-messages", "last-assistant-message"}``;
  stdin, stdout and stderr are null and Codex does not wait for it.
- Codex lifecycle hooks (openai/codex ``codex-rs/hooks``: ``hooks.json`` next to
  ``config.toml``, events SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,
  Stop) send Claude-shaped JSON on stdin: ``session_id``, ``transcript_path`` (the
  rollout file, may be null), ``cwd``, ``hook_event_name``, ``model``,
  ``permission_mode``, ``turn_id``, and the tool fields for tool events.

SessionStart output: Claude Code adds a SessionStart hook's plain stdout to the
context, and documents the JSON form ``{"hookSpecificOutput": {"hookEventName":
"SessionStart", "additionalContext": "..."}}`` as the structured way (code.claude.com
/docs/en/hooks#sessionstart-decision-control). We print the JSON form: it is the one
both Claude Code and Codex (``session-start.command.output.schema.json``) define, and it
cannot be mistaken for a banner.
"""

import os
import sys

# ``import json`` would be half of this process's start-up: jsonlite gives the same
# values and text through json's own C code (see its docstring); spool uses it too.
from memex_capture import jsonlite as json
from memex_capture import launch, layout, spool

AGENTS = ("claude-code", "codex")
#: Most of stdin parsed as JSON; a bigger payload (a huge tool output) is drained
#: unread past this and its pointer fields are taken from the head.
MAX_STDIN_BYTES = 8 * 1024 * 1024
#: How much of an oversized payload's head is searched for the pointer fields.
HEAD_BYTES = 64 * 1024
#: Claude Code / Codex lifecycle fields kept in a record's ``detail``: small,
#: and none of them content.
DETAIL_KEYS = (
    "source",
    "reason",
    "tool_name",
    "tool_use_id",
    "stop_hook_active",
    "permission_mode",
    "agent_id",
    "agent_type",
    "turn_id",
    "model",
)
#: Longest string value kept in ``detail`` (ids and names are far shorter).
MAX_DETAIL_CHARS = 200
#: Everything after ``--then`` on the command line (up to Codex's JSON argument) is the
#: user's previous ``notify`` program, run after ours with the same argument.
THEN = "--then"


class _Args:
    __slots__ = ("agent", "home", "notify_json", "then")

    def __init__(self) -> None:
        self.agent = ""
        self.home: str | None = None
        self.notify_json: str | None = None
        self.then: list[str] = []


def _parse_args(argv: list[str]) -> _Args:
    """``<agent> [--home H] [--then PROG ARG...] [JSON]`` without argparse (~5 ms)."""
    args = _Args()
    rest = list(argv)
    if rest and not rest[0].startswith("-"):
        args.agent = rest.pop(0)
    # Codex's notify appends its JSON last; nothing else we are given starts with "{".
    if rest and rest[-1].lstrip().startswith("{"):
        args.notify_json = rest.pop()
    while rest:
        item = rest.pop(0)
        if item == "--home" and rest:
            args.home = rest.pop(0)
        elif item.startswith("--home="):
            args.home = item[len("--home=") :]
        elif item == THEN:
            args.then = rest
            rest = []
    return args


def _read_stdin() -> bytes:
    """stdin up to :data:`MAX_STDIN_BYTES` (+1, to tell an oversized payload), then the
    rest drained unkept so the agent's write never fails on a closed pipe."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""
    if os.isatty(fd):
        return b""  # run by hand: nothing will come
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_STDIN_BYTES:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    while os.read(fd, 1 << 20):
        pass
    return b"".join(chunks)


def _head_fields(data: bytes) -> dict:
    """The top-level string/bool fields found in the head of a payload too big to parse
    (a scan for ``"key":`` followed by a JSON scalar; nested objects come after them)."""
    text = data[:HEAD_BYTES].decode("utf-8", "replace")
    found: dict = {}
    for key in ("session_id", "transcript_path", "cwd", "hook_event_name", *DETAIL_KEYS):
        at = text.find(f'"{key}"')
        if at < 0:
            continue
        colon = text.find(":", at + len(key) + 2)
        if colon < 0:
            continue
        start = colon + 1
        while start < len(text) and text[start] in " \t\r\n":
            start += 1
        try:
            value, _ = json.raw_decode(text, start)
        except ValueError:
            continue
        if value is None or isinstance(value, str | bool | int | float):
            found[key] = value
    return found


def _load_payload(data: bytes) -> dict:
    if not data.strip():
        raise ValueError("empty input: expected the hook's JSON on stdin")
    if len(data) > MAX_STDIN_BYTES:
        payload = _head_fields(data)
        payload["_oversized"] = True
        return payload
    try:
        payload = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"input is not JSON ({str(error)[:120]})") from None
    if not isinstance(payload, dict):
        raise ValueError("input is not a JSON object")
    return payload


def _small(value: object) -> object:
    """``value`` if it is a small scalar, else ``None`` (so no content slips through)."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, str) and len(value) <= MAX_DETAIL_CHARS:
        return value
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _record_from_hook(agent: str, payload: dict) -> dict:
    """A pointer record from a Claude Code (or Codex lifecycle) hook payload."""
    detail = {}
    for key in DETAIL_KEYS:
        if key in payload:
            value = _small(payload[key])
            if value is not None:
                detail[key] = value
    if payload.get("_oversized"):
        detail["oversized_input"] = True
    event = _text(payload.get("hook_event_name")) or "unknown"
    return spool.make_record(
        agent,
        event,
        session_id=_text(payload.get("session_id")),
        transcript_path=_text(payload.get("transcript_path")),
        cwd=_text(payload.get("cwd")),
        detail=detail,
    )


def _record_from_notify(payload: dict) -> dict:
    """A pointer record from Codex's ``notify`` JSON: the thread id is the session."""
    detail = {}
    for wire, key in (
        ("type", "type"),
        ("thread-id", "thread_id"),
        ("turn-id", "turn_id"),
        ("client", "client"),
    ):
        value = _small(payload.get(wire))
        if value is not None:
            detail[key] = value
    # Codex runs notify with its own environment: where its rollouts live, for a worker
    # that a Claude Code hook (another CODEX_HOME, or none) may have started.
    codex_home = _small(os.environ.get("CODEX_HOME"))
    if codex_home is not None:
        detail["codex_home"] = codex_home
    return spool.make_record(
        "codex",
        _text(payload.get("type")) or "notify",
        session_id=_text(payload.get("thread-id")),
        transcript_path=_text(payload.get("transcript_path")),
        cwd=_text(payload.get("cwd")),
        detail=detail,
    )


def _private_dirs(home: str) -> None:
    """Create the home's ``capture/spool`` and ``logs`` folders, 0700 each level we
    create (``os.makedirs`` would give intermediate folders the umask's mode)."""
    parent = os.path.dirname(os.path.abspath(home))
    if not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    for path in (home, layout.capture_dir(home), layout.spool_dir(home), layout.logs_dir(home)):
        try:  # noqa: SIM105 - contextlib is an import the hook does without
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass


def _touch(path: str) -> None:
    try:
        os.utime(path)
    except FileNotFoundError:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))


def _write_stdout(data: bytes) -> None:
    while data:
        written = os.write(1, data)
        data = data[written:]


def _print_brief(home: str, cwd: str | None) -> None:
    """At SessionStart: the brief of the session's folder (its sessions first), else of its
    project, as Claude Code's additional context."""
    if not cwd:
        return
    text = ""
    for path in layout.brief_files(home, cwd):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except FileNotFoundError:
            continue  # the worker has not written this one yet
        break
    if not text.strip():
        return
    output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    _write_stdout((json.dumps(output, ensure_ascii=False) + "\n").encode("utf-8", "replace"))


def _run_previous_notify(then: list[str], notify_json: str) -> None:
    """Start the user's previous Codex ``notify`` program with Codex's argument, detached
    and with null stdio, as Codex itself starts notify programs (it does not wait)."""
    argv = [*then, notify_json]
    devnull = os.devnull
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
    ]
    os.posix_spawnp(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)


def log_error(home: str | None, what: str, error: BaseException) -> None:
    """Append one line about ``error`` to the hook log; give up silently if even that fails."""
    try:
        import time
        import traceback

        frames = traceback.extract_tb(error.__traceback__)
        where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
        message = " ".join(str(error).split())[:300]
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
        line = f"{stamp} pid={os.getpid()} {what}: {type(error).__name__}: {message}{where}\n"
        target = home or layout.resolve_home()
        logs = layout.logs_dir(target)
        if not os.path.isdir(logs):
            os.makedirs(logs, mode=0o700, exist_ok=True)
        fd = os.open(layout.hook_log(target), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except BaseException:  # the hook must never fail the agent
        pass


def run(argv: list[str]) -> None:
    """One hook invocation; each step's failure is logged and the others still run."""
    args = _parse_args(argv)
    home = layout.resolve_home(args.home)
    agent = args.agent
    if agent not in AGENTS:
        log_error(home, "hook", ValueError(f"unknown agent {agent!r} (expected one of {AGENTS})"))
        agent = agent[:40] or "unknown"
    try:
        if args.notify_json is not None:
            payload = _load_payload(args.notify_json.encode("utf-8", "surrogateescape"))
            record = _record_from_notify(payload)
        else:
            payload = _load_payload(_read_stdin())
            record = _record_from_hook(agent, payload)
    except Exception as error:
        log_error(home, f"{agent} input", error)
        if args.then and args.notify_json is not None:
            _safely(
                home, "codex previous notify", _run_previous_notify, args.then, args.notify_json
            )
        return
    event = record["event"]
    what = f"{agent} {event}"

    if not os.path.isdir(layout.spool_dir(home)):
        _safely(home, f"{what} home", _private_dirs, home)
    _safely(home, f"{what} spool", spool.append, layout.spool_file(home), record)
    _safely(home, f"{what} fired", _touch, layout.fired_marker(home, agent, event))
    _safely(home, f"{what} worker", launch.ensure_worker, home)
    if event == "SessionStart" and args.notify_json is None:
        _safely(home, f"{what} brief", _print_brief, home, record["cwd"])
    if args.then and args.notify_json is not None:
        _safely(home, f"{what} previous notify", _run_previous_notify, args.then, args.notify_json)


def _safely(home: str, what: str, step: object, *arguments: object) -> None:
    try:
        step(*arguments)  # type: ignore[operator]
    except Exception as error:
        log_error(home, what, error)


def main(argv: list[str] | None = None) -> int:
    """Run the hook; always 0, so an agent never sees this program fail."""
    try:
        run(sys.argv[1:] if argv is None else argv)
    except BaseException as error:  # anything, even KeyboardInterrupt
        log_error(None, "hook", error)
    return 0
