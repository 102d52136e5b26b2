"""A deterministic summary of one agent session, from the fragments its transcript gave.

Input: a session's fragments as the ``claude_code`` and ``codex`` sources write
them (in conversation order). What they look like, and so what is read here:

- prompts: ``user`` fragments. Slash commands (``/compact``, ``/mcp``) carry
  ``metadata["command"]`` and are not requests; Claude Code's ``isMeta`` lines
  and Codex's injected context never become fragments at all.
- tool calls: ``assistant`` fragments with ``metadata["tool_call"]`` and
  ``tool_name``, whose text is ``[tool call: NAME]`` then the input as
  ``key: value`` lines (JSON when the input is nested, e.g. MultiEdit's ``edits``).
  Claude Code names files in ``file_path`` / ``notebook_path``; Bash and Codex's
  shell tools (``shell``, ``shell_command``, ``exec_command``, ``local_shell``)
  name the command in ``command`` or ``cmd``; Codex's ``apply_patch`` carries the
  patch itself (``*** Update File: path``).
- tool results: ``tool`` fragments with ``tool_result``; Claude Code marks a failed
  call ``is_error``, Codex records the command's ``exit_code``.
- the outcome: the last ``assistant`` prose (Codex marks it ``phase = final_answer``);
  reasoning, compaction summaries and earlier session summaries are skipped.
- sub-agents: Claude Code's sub-agent (sidechain) fragments carry
  ``metadata["agent_id"]`` and live in conversations of their own. Given here with
  the session's, their files, commands and errors join the session's lists marked
  ``(sub-agent)`` (after the session's own), and each sub-agent gets one line: its
  id, its task (its first prompt) and its tool calls. Their prompts are not the
  session's requests and their answers not its outcome. Compaction agents
  (``is_compaction_agent``) only rewrite the context: they are left out.

Long messages arrive as several chunks sharing ``message_id``; they are joined
back first. Same fragments in, same summary out: nothing here reads the clock
or the disk. Pure domain code: no storage, model or framework import.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from memex_core.domain.fragment import Fragment

#: Metadata flag of a stored session summary (the only fragments capture adds).
SUMMARY_FLAG = "is_session_summary"
#: ``message_id`` of the summary inside its session's conversation.
SUMMARY_MESSAGE_ID = "session-summary"

CHANGING_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"})
READING_TOOLS = frozenset({"Read", "NotebookRead"})
SHELL_TOOLS = frozenset(
    {"Bash", "shell", "shell_command", "exec_command", "local_shell", "container.exec"}
)
#: Shell programs whose file arguments are files being read (Codex reads files this way).
_READ_PROGRAMS = frozenset({"cat", "nl", "head", "tail", "less", "bat", "sed", "wc"})
#: Keys of a Bash call's input after ``command`` (its value may span lines until one).
_BASH_KEYS = re.compile(
    r"^(?:description|timeout|run_in_background|dangerouslyDisableSandbox|sandbox"
    r"|workdir|with_escalated_permissions|justification|yield_time_ms|max_output_tokens"
    r"|login|shell|tty):\s"
)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_EXIT_LINE = re.compile(r"^(?:exit code|process exited with code)\s*:?\s*(-?\d+)\s*$", re.I)
_CODEX_HEADER = re.compile(r"^(?:wall time|output|chunk id|original token count)\b.*$", re.I)
_TAGS = re.compile(r"</?[a-z_]+>")
_REJECTED = "The user doesn't want to proceed"

MAX_COMMANDS = 10
MAX_FILES = 12
MAX_ERRORS = 5
REQUEST_CHARS = 300
OUTCOME_CHARS = 400
COMMAND_CHARS = 100
ERROR_CHARS = 120


#: How a file, command or error that a sub-agent gave is marked in the session's lists.
SUBAGENT_MARK = " (sub-agent)"
MAX_SUBAGENTS = 5
TASK_CHARS = 100


@dataclass(frozen=True)
class ToolError:
    """A tool call that failed: which tool, and the first telling line of what it said."""

    tool: str
    line: str
    #: Whether a sub-agent's call failed (rendered ``Tool (sub-agent): line``).
    subagent: bool = False

    def render(self) -> str:
        return f"{self.tool}{SUBAGENT_MARK if self.subagent else ''}: {self.line}"


@dataclass(frozen=True)
class SubAgentWork:
    """One sub-agent of the session: its id, its task (first prompt) and its tool calls."""

    agent_id: str
    task: str
    tool_calls: int

    def render(self) -> str:
        task = f" {self.task}" if self.task else ""
        return f"{self.agent_id}:{task} ({_count(self.tool_calls, 'tool call')})"


@dataclass(frozen=True)
class SessionSummary:
    """What one session was about and what it did. ``render()`` gives the stored text."""

    session_id: str
    source_kind: str
    title: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    started: float | None = None
    ended: float | None = None
    request: str = ""
    prompts: int = 0
    tool_calls: int = 0
    files_changed: tuple[str, ...] = ()
    files_read: tuple[str, ...] = ()
    files_changed_total: int = 0
    files_read_total: int = 0
    commands: tuple[str, ...] = ()
    commands_total: int = 0
    errors: tuple[ToolError, ...] = ()
    errors_total: int = 0
    outcome: str = ""
    #: The session's sub-agents, in the order they first appear (their files, commands
    #: and errors are in the lists above, marked :data:`SUBAGENT_MARK`).
    subagents: tuple[SubAgentWork, ...] = ()
    #: Every user prompt in order, shortened (what an LLM summarizer reads besides this).
    prompt_texts: tuple[str, ...] = field(default=(), compare=False)

    @property
    def is_empty(self) -> bool:
        return not (self.request or self.tool_calls or self.outcome)

    def to_dict(self) -> dict[str, Any]:
        data = dict(vars(self))
        data["errors"] = [vars(e) for e in self.errors]
        data["subagents"] = [vars(a) for a in self.subagents]
        for key in ("files_changed", "files_read", "commands", "prompt_texts"):
            data[key] = list(data[key])
        return data

    def render(self) -> str:
        """The summary as compact text: a header line, then one line per part."""
        head = [f"Session summary ({self.source_kind}"]
        span = _span(self.started, self.ended)
        if span:
            head.append(span)
        if self.git_branch:
            head.append(f"branch {self.git_branch}")
        head.append(_count(self.prompts, "prompt"))
        head.append(_count(self.tool_calls, "tool call"))
        lines = [", ".join(head) + ")"]
        if self.cwd:
            lines.append(f"Folder: {self.cwd}")
        if self.request:
            lines.append(f"Request: {self.request}")
        if self.files_changed:
            lines.append(_listed("Files changed", self.files_changed, self.files_changed_total))
        if self.files_read:
            lines.append(_listed("Files read", self.files_read, self.files_read_total))
        if self.commands:
            shown = "; ".join(f"`{c}`" for c in self.commands)
            lines.append(f"Commands: {shown}{_more(len(self.commands), self.commands_total)}")
        if self.errors:
            shown = "; ".join(e.render() for e in self.errors)
            more = _more(len(self.errors), self.errors_total)
            lines.append(f"Errors ({self.errors_total}): {shown}{more}")
        if self.subagents:
            shown = "; ".join(a.render() for a in self.subagents[:MAX_SUBAGENTS])
            more = _more(min(len(self.subagents), MAX_SUBAGENTS), len(self.subagents))
            lines.append(f"Sub-agents ({len(self.subagents)}): {shown}{more}")
        if self.outcome:
            lines.append(f"Outcome: {self.outcome}")
        return "\n".join(lines)


def is_session_summary(fragment: Fragment) -> bool:
    return bool(fragment.metadata.get(SUMMARY_FLAG))


@dataclass
class _Message:
    role: str
    text: str
    metadata: dict[str, Any]
    timestamp: float | None


def _messages(fragments: Iterable[Fragment]) -> list[_Message]:
    """Fragments with chunks of one message joined back (chunks share ``message_id``)."""
    messages: list[_Message] = []
    last_key: tuple[str, str] | None = None
    for fragment in fragments:
        meta = fragment.metadata
        if is_session_summary(fragment):
            continue
        message_id = meta.get("message_id")
        key = (fragment.role, str(message_id)) if message_id is not None else None
        if key is not None and key == last_key and int(meta.get("chunk_index") or 0) > 0:
            messages[-1].text += "\n" + fragment.content
            continue
        messages.append(_Message(fragment.role, fragment.content, dict(meta), fragment.timestamp))
        last_key = key
    return messages


def summarize_session(
    fragments: Sequence[Fragment], *, session_id: str | None = None
) -> SessionSummary:
    """Summarize a session from its fragments (in conversation order), its sub-agents'
    after its own if given (see the module's docstring).

    ``session_id`` defaults to the fragments' ``session_id`` metadata (else their
    conversation id). Fragments that all come from one sub-agent are summarized as a
    session of their own.
    """
    own = [f for f in fragments if not f.metadata.get("agent_id")]
    helpers = [f for f in fragments if f.metadata.get("agent_id")] if own else []
    if not own:
        own = list(fragments)
    first = own[0] if own else None
    sid = session_id or _first_meta(own, "session_id") or (first.conversation_id if first else "")
    kind = first.source_kind if first else ""
    cwd = _first_meta(own, "cwd") or _first_meta(helpers, "cwd")
    times = [
        f.timestamp for f in fragments if f.timestamp is not None and not is_session_summary(f)
    ]
    request = ""
    prompts: list[str] = []
    work = _Work()
    outcome = ""
    final_answer = ""
    for message in _messages(own):
        meta = message.metadata
        if message.role == "user" and not meta.get("command"):
            text = _one_line(message.text)
            if text:
                prompts.append(shorten_line(text, REQUEST_CHARS))
                if not request:
                    request = shorten_line(text, REQUEST_CHARS)
        elif work.take(message, cwd, subagent=False):
            continue
        elif message.role == "assistant" and not _aside(meta):
            outcome = message.text
            if meta.get("phase") == "final_answer":
                final_answer = message.text
    if not request and prompts:
        request = prompts[0]
    subagents = _subagents(helpers)
    theirs = _Work()
    for message in _messages(f for f in helpers if not f.metadata.get("is_compaction_agent")):
        theirs.take(message, cwd, subagent=True)

    # The session's own first, then what only its sub-agents did, marked.
    own_commands = list(dict.fromkeys(work.commands))  # whole commands: totals count these
    their_commands = [c for c in dict.fromkeys(theirs.commands) if c not in own_commands]
    # Shown on one line each; two commands that differ only after it are shown once.
    shown_commands = list(
        dict.fromkeys(
            [shorten_line(_command_line(c), COMMAND_CHARS) for c in own_commands]
            + [
                shorten_line(_command_line(c), COMMAND_CHARS) + SUBAGENT_MARK
                for c in their_commands
            ]
        )
    )
    own_changed = list(dict.fromkeys(work.changed))
    their_changed = [p for p in dict.fromkeys(theirs.changed) if p not in own_changed]
    changed_set = {*own_changed, *their_changed}
    own_read = [p for p in dict.fromkeys(work.read) if p not in changed_set]
    their_read = [
        p for p in dict.fromkeys(theirs.read) if p not in changed_set and p not in own_read
    ]
    files_changed = own_changed + [p + SUBAGENT_MARK for p in their_changed]
    files_read = own_read + [p + SUBAGENT_MARK for p in their_read]
    errors = work.errors + theirs.errors
    return SessionSummary(
        session_id=sid,
        source_kind=kind,
        title=first.title if first else None,
        cwd=cwd,
        git_branch=_first_meta(own, "git_branch") or _first_meta(helpers, "git_branch"),
        started=min(times) if times else None,
        ended=max(times) if times else None,
        request=request,
        prompts=len(prompts),
        tool_calls=work.tool_calls,
        files_changed=tuple(files_changed[:MAX_FILES]),
        files_read=tuple(files_read[:MAX_FILES]),
        files_changed_total=len(files_changed),
        files_read_total=len(files_read),
        commands=tuple(shown_commands[:MAX_COMMANDS]),
        commands_total=len(own_commands) + len(their_commands),
        errors=tuple(list(dict.fromkeys(errors))[:MAX_ERRORS]),  # repeats shown once
        errors_total=len(errors),
        outcome=shorten_line(_flat(final_answer or outcome), OUTCOME_CHARS),
        subagents=subagents,
        prompt_texts=tuple(prompts),
    )


@dataclass
class _Work:
    """What tool calls did: commands run, files changed and read, calls that failed."""

    tool_calls: int = 0
    commands: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    errors: list[ToolError] = field(default_factory=list)

    def take(self, message: _Message, cwd: str | None, *, subagent: bool) -> bool:
        """Count ``message`` if it is a tool call or a tool result (True), else False."""
        meta = message.metadata
        if meta.get("tool_call"):
            self.tool_calls += 1
            tool = str(meta.get("tool_name") or "tool")
            _tool_call(tool, _body(message.text), cwd, self.commands, self.changed, self.read)
            return True
        if message.role == "tool" and meta.get("tool_result"):
            error = _tool_error(message.text, meta)
            if error is not None:
                self.errors.append(replace(error, subagent=subagent))
            return True
        return False


def _subagents(fragments: Sequence[Fragment]) -> tuple[SubAgentWork, ...]:
    """Each sub-agent among ``fragments`` (compaction agents left out): its task and calls."""
    tasks: dict[str, str] = {}
    calls: dict[str, int] = {}
    for message in _messages(fragments):
        meta = message.metadata
        if meta.get("is_compaction_agent"):
            continue
        agent = str(meta.get("agent_id"))
        tasks.setdefault(agent, "")
        calls.setdefault(agent, 0)
        if message.role == "user" and not meta.get("command") and not tasks[agent]:
            tasks[agent] = shorten_line(message.text, TASK_CHARS)
        elif meta.get("tool_call"):
            calls[agent] += 1
    return tuple(SubAgentWork(agent, tasks[agent], calls[agent]) for agent in tasks)


def _aside(meta: dict[str, Any]) -> bool:
    """Assistant text that is not an answer: reasoning, compaction summaries."""
    return bool(
        meta.get("reasoning")
        or meta.get("compaction_summary")
        or meta.get("is_compaction_summary")
        or meta.get("is_compaction_agent")
    )


def _first_meta(fragments: Sequence[Fragment], key: str) -> str | None:
    for fragment in fragments:
        value = fragment.metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _body(text: str) -> str:
    """A tool call's input: its text after the ``[tool call: NAME]`` line."""
    head, _, rest = text.partition("\n")
    return rest if head.startswith("[tool call") else text


def _field(body: str, *keys: str) -> str | None:
    """The value of the first of ``keys`` in a call's input (JSON or ``key: value`` lines)."""
    stripped = body.lstrip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, dict):
            for key in keys:
                if isinstance(value.get(key), str | list) and value[key]:
                    item = value[key]
                    return shlex.join(item) if isinstance(item, list) else str(item)
            return None
    lines = body.splitlines()
    for key in keys:
        prefix = f"{key}: "
        for index, line in enumerate(lines):
            if line.startswith(prefix):
                value_lines = [line[len(prefix) :]]
                # Only a command may run over several lines (a heredoc, a script).
                for more in lines[index + 1 :] if key in ("command", "cmd") else ():
                    if _BASH_KEYS.match(more):
                        break
                    value_lines.append(more)
                return "\n".join(value_lines).strip()
    return None


def _tool_call(
    tool: str,
    body: str,
    cwd: str | None,
    commands: list[str],
    changed: list[str],
    read: list[str],
) -> None:
    if tool in CHANGING_TOOLS or tool in READING_TOOLS:
        path = _field(body, "file_path", "notebook_path", "path")
        if path:
            (changed if tool in CHANGING_TOOLS else read).append(_relative(path, cwd))
    if tool == "apply_patch" or "*** Begin Patch" in body:
        changed.extend(_relative(p, cwd) for p in _patched_files(body))
        if tool == "apply_patch":
            return
    if tool in SHELL_TOOLS or tool.endswith(("shell", "exec_command")):
        command = _field(body, "command", "cmd")
        if command:
            command = _unwrap_shell(command)
            if "*** Begin Patch" in command:
                changed.extend(_relative(p, cwd) for p in _patched_files(command))
                commands.append("apply_patch")
                return
            read.extend(_relative(p, cwd) for p in _read_files(command))
            commands.append(command.strip())


def _patched_files(patch: str) -> list[str]:
    files = [m.group(2) for m in _PATCH_FILE.finditer(patch)]
    files.extend(m.group(1) for m in _PATCH_MOVE.finditer(patch))
    return files


def _unwrap_shell(command: str) -> str:
    """``bash -lc 'ls -la'`` (Codex's command vectors) as the script it runs."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if (
        len(words) == 3
        and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
        and words[1]
        in (
            "-c",
            "-lc",
        )
    ):
        return words[2]
    return command


def _command_line(command: str) -> str:
    """A command on one line: its first line, ``…`` when more followed."""
    lines = [line.strip() for line in command.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 else "")


def _read_files(command: str) -> list[str]:
    """Files a simple read command (``cat f``, ``sed -n 1,80p f``, ``nl -ba f``) reads."""
    first = command.strip().splitlines()[0] if command.strip() else ""
    first = re.split(r"\s*(?:\||&&|;|>)\s*", first)[0]
    try:
        words = shlex.split(first)
    except ValueError:
        return []
    if not words or words[0] not in _READ_PROGRAMS:
        return []
    args = [w for w in words[1:] if not w.startswith("-")]
    if words[0] == "sed" and args:
        args = args[1:]  # the script, e.g. 1,120p
    return [a for a in args if re.search(r"[\w/]\.\w|/", a) and not re.fullmatch(r"[\d,]+p?", a)]


def _relative(path: str, cwd: str | None) -> str:
    """``path`` relative to the session's folder when it lies inside it (shorter to read)."""
    path = path.strip()
    if cwd:
        base = cwd.rstrip("/\\")
        for sep in ("/", "\\"):
            if path.startswith(base + sep):
                return path[len(base) + 1 :]
    return path


def _tool_error(text: str, meta: dict[str, Any]) -> ToolError | None:
    tool = str(meta.get("tool_name") or "tool")
    exit_code = meta.get("exit_code")
    failed_exit = isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != 0
    if not meta.get("is_error") and not failed_exit:
        return None
    _, _, body = text.partition("\n") if text.startswith("[tool result") else ("", "", text)
    if _REJECTED in body:
        return ToolError(tool, "rejected by the user")
    code: int | None = exit_code if failed_exit else None
    telling = ""
    for raw in re.split(r"\n|\\n", body):
        line = _TAGS.sub("", raw).strip()
        if not line:
            continue
        match = _EXIT_LINE.match(line)
        if match:
            code = int(match.group(1))
            continue
        if _CODEX_HEADER.match(line):
            continue
        telling = f"{telling} {line}" if telling else line
        if not telling.endswith(":"):  # "Validation failed:" says more on the next line
            break
    line = shorten_line(telling, ERROR_CHARS) if telling else ""
    if code is not None:
        line = f"exit {code}" + (f": {line}" if line else "")
    return ToolError(tool, line or "failed")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _flat(text: str) -> str:
    """Prose on one line, markdown emphasis markers dropped."""
    return _one_line(text.replace("**", "").replace("__", ""))


def shorten_line(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word within ``limit`` characters and ended with ``…``."""
    text = _one_line(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:") + "…"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _more(shown: int, total: int) -> str:
    """`` (and N more)`` when a list was cut to ``shown`` of ``total`` items."""
    return f" (and {total - shown} more)" if total > shown else ""


def _listed(label: str, items: Sequence[str], total: int) -> str:
    return f"{label} ({total}): " + ", ".join(items) + _more(len(items), total)


def _when(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def _span(started: float | None, ended: float | None) -> str:
    if started is None:
        return ""
    start = _when(started)
    text = start.strftime("%Y-%m-%d %H:%M")
    if ended is not None and ended > started:
        end = _when(ended)
        same_day = end.date() == start.date()
        text += " to " + end.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M")
    return text + " UTC"
