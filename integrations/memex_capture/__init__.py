"""Capture: fill memory as people work, from Claude Code's and Codex's hooks.

The capture plane is a layer over memex's public Python API, split so the
agent never waits for the search stack:

- ``hook`` (the program the agents run): reads the hook's JSON, appends a
  *pointer* record to the spool, makes sure a worker runs, and at session start
  prints the brief prepared for the project. Standard library only, run with
  ``python -S``; it exits 0 whatever happens to it and logs to ``<home>/logs/``.
- ``worker`` (one per home, started by the hook): drains the spool, ingests the
  transcripts it points to through the same sources ``memex ingest`` uses (so
  both give the same fragments), writes session summaries and refreshes the
  per-project briefs.
- ``layout`` and ``spool``: the files both sides agree on.

This package's ``__init__`` must stay import-free: the hook imports
``memex_capture.layout`` and ``memex_capture.spool`` without site-packages.
"""
