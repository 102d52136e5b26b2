"""memex plugin claude_ai (under construction)."""
