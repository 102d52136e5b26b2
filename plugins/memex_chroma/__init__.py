"""memex plugin chroma (under construction)."""
