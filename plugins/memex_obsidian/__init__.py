"""memex_obsidian: placeholder, being written."""
