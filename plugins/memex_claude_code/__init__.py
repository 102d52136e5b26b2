"""memex_claude_code: placeholder, being written."""
