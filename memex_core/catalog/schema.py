"""The catalog's schema, as an ordered list of migrations.

Each migration runs once, in a transaction, and bumps ``schema_version``.
Never edit a released migration: append a new one.
"""

from __future__ import annotations

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE conversations (
            id           TEXT PRIMARY KEY,
            source_kind  TEXT NOT NULL,
            title        TEXT,
            first_at     REAL,
            last_at      REAL,
            source_path  TEXT
        );

        CREATE TABLE fragments (
            seq              INTEGER PRIMARY KEY,   -- insertion order; indexes sync by it
            id               TEXT NOT NULL UNIQUE,  -- stable id from source identity + content
            conversation_id  TEXT NOT NULL,
            role             TEXT NOT NULL,
            content          TEXT NOT NULL,
            title            TEXT,
            timestamp        REAL,
            source_kind      TEXT NOT NULL,
            source_path      TEXT NOT NULL,
            source_id        TEXT NOT NULL,
            locator          TEXT NOT NULL,
            metadata         TEXT NOT NULL DEFAULT '{}',  -- JSON
            ingest_run       INTEGER,
            embedded_by      TEXT                   -- embedder that built its vector, or NULL
        );
        CREATE INDEX fragments_conversation ON fragments(conversation_id, timestamp);
        CREATE INDEX fragments_embedded ON fragments(embedded_by);

        CREATE TABLE ingest_runs (
            id               INTEGER PRIMARY KEY,
            started_at       REAL NOT NULL,
            finished_at      REAL,
            status           TEXT NOT NULL,         -- running | finished | failed
            command          TEXT,
            files_new        INTEGER DEFAULT 0,
            files_unchanged  INTEGER DEFAULT 0,
            files_failed     INTEGER DEFAULT 0,
            fragments_added  INTEGER DEFAULT 0
        );

        CREATE TABLE ingested_files (
            path         TEXT NOT NULL,
            sha256       TEXT NOT NULL,
            size         INTEGER NOT NULL,
            source_kind  TEXT NOT NULL,
            fragments    INTEGER NOT NULL,
            run_id       INTEGER REFERENCES ingest_runs(id),
            ingested_at  REAL NOT NULL,
            PRIMARY KEY (path, sha256)
        );

        CREATE TABLE settings (
            key    TEXT PRIMARY KEY,
            value  TEXT NOT NULL
        );
        """,
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]
