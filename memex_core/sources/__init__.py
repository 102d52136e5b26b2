"""The helpers source plugins use to read exports, one module per job.

Third-party sources import them through :mod:`memex_core.source_kit`, which
re-exports the public names and documents the hostile-input rules; built-in
plugins and tests may import the modules here directly:

- :mod:`.limits`: how big an export may be (the zip-bomb guard's settings).
- :mod:`.skips`: reporting items skipped inside a readable file.
- :mod:`.text`: text hygiene (lone surrogates).
- :mod:`.timestamps`: export timestamps as epoch seconds.
- :mod:`.archives`: finding a member in a zip safely and refusing bombs.
- :mod:`.export_files`: an export file, or its member in a zip, as guarded bytes.
- :mod:`.json_stream`: JSON with located errors, whole or one value at a time.
- :mod:`.conversations`: the conversations of a chat export, streamed.
- :mod:`.chat_export`: a chat service's export as a source (what ChatGPT's and Claude.ai's share).
- :mod:`.transcripts`: a coding agent's session transcripts as a source (Claude Code, Codex).

This package re-exports nothing, so its modules can import each other without a circle.
"""
