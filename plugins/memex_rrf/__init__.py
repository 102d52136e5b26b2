"""memex plugin rrf (under construction)."""
