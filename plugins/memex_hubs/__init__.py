"""memex_hubs: placeholder, being written."""
