"""memex plugin chatgpt (under construction)."""
