"""A warm memex process answering the read commands of fresh ``memex`` processes.

A cold ``memex dig`` spends most of its second importing chromadb and opening the
indexes; a process that already holds them answers in milliseconds. A ``memex
serve``, a ``memex mcp`` on a local home or a ``memex warm`` process listens on
``<home>/run/memex.sock``; the ``memex`` script offers its read commands there
first and runs them itself when nothing answers, starting a ``memex warm`` process
in the background for the next ones (unless ``MEMEX_WARM_AUTOSTART=0``; see
:func:`~memex_core.warm.socket_client.autostart_refusal` for when it never does).

- :mod:`~memex_core.warm.protocol`: the wire format, paths and what must match
  (home, config.toml, ``MEMEX_*`` environment). Stdlib only.
- :mod:`~memex_core.warm.socket_client`: the ``memex`` script's side. Stdlib only, so
  trying the socket costs a few milliseconds.
- :mod:`~memex_core.warm.capture`: per-thread stdout/stderr, so a request's output
  is captured without touching what the rest of the process prints.
- :mod:`~memex_core.warm.socket_listener`: the listener any long-running process starts.
- :mod:`~memex_core.cli.warm_daemon` (beside the CLI, whose commands it hands the
  server): the socket-only process ``memex warm`` starts.
"""
