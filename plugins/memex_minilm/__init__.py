"""memex plugin minilm (under construction)."""
