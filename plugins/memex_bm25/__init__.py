"""memex plugin bm25 (under construction)."""
