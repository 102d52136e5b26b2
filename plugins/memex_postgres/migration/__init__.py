"""``memex migrate --to postgresql://...``: move a home's catalog from SQLite to PostgreSQL.

- :mod:`.source`: the home's ``catalog.sqlite``, read-only, one consistent snapshot;
- :mod:`.target`: the PostgreSQL database, with the progress that makes a rerun resume;
- :mod:`.values`: values made comparable across the engines, and the per-table checksum;
- :mod:`.engine`: the steps (check, schema, copy, sequences, verify);
- :mod:`.command`: the click command, progress bars and what it prints;
- :mod:`.urls`: URLs shown without their password.

Nothing here imports psycopg until the command runs.
"""
