"""memex_codex: placeholder, being written."""
