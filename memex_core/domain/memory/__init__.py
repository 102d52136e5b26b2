"""Agent memory's domain: scopes and records, virtual paths, collection names, privacy, facts.

Pure data and rules; the catalog stores these and the memory service applies them.
"""
