"""Where the capture plane keeps its files under a memex home (standard library only).

Both the hook process (started by the agent, ``python -S``, no third-party
imports) and the worker (the full memex stack) find every file through these
functions, so the two sides cannot disagree on a path::

    <home>/capture/spool/events.jsonl    pointer records appended by hooks
    <home>/capture/spool/*.work          a batch the worker has taken to drain
    <home>/capture/state.json            the worker's progress (sessions seen, ...)
    <home>/capture/fired.json            when each hook last fired (``memex hooks status``)
    <home>/capture/briefs/<key>.md       the session-start brief of one project (or of
                                         one folder inside it)
    <home>/run/capture-worker.lock       flock held by the one running worker
    <home>/logs/capture-hook.log         errors of hook processes
    <home>/logs/capture-worker.log       the worker's log

Paths are plain strings built with ``os.path``: importing ``pathlib`` (and the
``re``/``fnmatch`` it pulls in) would cost a hook a large share of its 50 ms.
Wrap them in ``Path`` where time does not matter.
"""

from __future__ import annotations

import os

#: Environment variable naming the home, the same one memex itself reads.
HOME_ENV = "MEMEX_HOME"

TYPE_CHECKING = False
if TYPE_CHECKING:
    StrPath = str | os.PathLike[str]


def resolve_home(explicit: StrPath | None = None) -> str:
    """The home a hook writes to: ``explicit`` (from the hook's command line), else
    ``MEMEX_HOME``, else ``~/.memex`` (as ``memex_core.config.default_home``)."""
    if explicit:
        return os.path.expanduser(os.fspath(explicit))
    env = os.environ.get(HOME_ENV)
    return os.path.expanduser(env) if env else os.path.join(os.path.expanduser("~"), ".memex")


def capture_dir(home: StrPath) -> str:
    return os.path.join(home, "capture")


def spool_dir(home: StrPath) -> str:
    return os.path.join(home, "capture", "spool")


def spool_file(home: StrPath) -> str:
    """The file hooks append to (one JSON object per line, see ``memex_capture.spool``)."""
    return os.path.join(home, "capture", "spool", "events.jsonl")


def state_file(home: StrPath) -> str:
    return os.path.join(home, "capture", "state.json")


def fired_file(home: StrPath) -> str:
    return os.path.join(home, "capture", "fired.json")


def briefs_dir(home: StrPath) -> str:
    return os.path.join(home, "capture", "briefs")


def logs_dir(home: StrPath) -> str:
    return os.path.join(home, "logs")


def hook_log(home: StrPath) -> str:
    return os.path.join(home, "logs", "capture-hook.log")


def worker_log(home: StrPath) -> str:
    return os.path.join(home, "logs", "capture-worker.log")


def worker_lock(home: StrPath) -> str:
    return os.path.join(home, "run", "capture-worker.lock")


def git_root(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` that holds ``.git`` (a directory, or a
    file for worktrees and submodules), else None.

    Walks the file system instead of running ``git``: a hook has no time for a
    subprocess.
    """
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def folder_and_root(cwd: StrPath) -> tuple[str, str]:
    """``cwd`` as a real path (symlinks resolved), and the project it belongs to: the git
    repository it lies in (:func:`git_root`), else the folder itself."""
    start = os.path.abspath(os.path.expanduser(os.fspath(cwd)))
    try:
        start = os.path.realpath(start)
    except OSError:
        return start, start
    return start, git_root(start) or start


def project_root(cwd: StrPath) -> str:
    """The project a session works in: the git repository ``cwd`` lies in, else ``cwd``
    (both with symlinks resolved)."""
    return folder_and_root(cwd)[1]


def project_key(root: StrPath) -> str:
    """A file-name-safe key for a project: its last folder name and a hash of the path."""
    import hashlib  # only the session-start hook and the worker need it

    text = os.fspath(root)
    digest = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    base = os.path.basename(text.rstrip(os.sep))
    name = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in base)[:40]
    return f"{name or 'root'}-{digest}"


def brief_file(home: StrPath, root: StrPath) -> str:
    """Where the worker leaves the session-start brief of the project at ``root`` (or of
    the folder ``root`` inside a project: its sessions come first there)."""
    return os.path.join(home, "capture", "briefs", f"{project_key(root)}.md")


def brief_files(home: StrPath, cwd: StrPath) -> list[str]:
    """The briefs a session starting in ``cwd`` may be given, the best first: the one
    written for that folder when it is not the project's root, then the project's."""
    folder, root = folder_and_root(cwd)
    if folder == root:
        return [brief_file(home, root)]
    return [brief_file(home, folder), brief_file(home, root)]


def fired_dir(home: StrPath) -> str:
    """Folder of the empty marker files whose modification time says when a hook last
    fired (one per agent and event; ``memex hooks status`` reads them). A hook touches
    its marker instead of rewriting ``fired.json``: a touch needs no read, no lock and
    cannot lose another hook's update."""
    return os.path.join(home, "capture", "fired")


def fired_marker(home: StrPath, agent: str, event: str) -> str:
    """The marker of ``agent``'s ``event`` under :func:`fired_dir`, ``<agent>.<event>``
    (characters other than letters, digits, ``-`` and ``_`` become ``_``: the names come
    from the hook's input)."""

    def safe(name: str) -> str:
        return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name[:60]) or "_"

    return os.path.join(home, "capture", "fired", f"{safe(agent)}.{safe(event)}")
