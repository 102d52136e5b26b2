"""The catalog's schema, as an ordered list of migrations.

Each migration runs once, in a transaction, and bumps ``schema_version``.
Never edit a released migration: append a new one.
"""

from __future__ import annotations

# Statements written alike in both dialects: memex_postgres.schema runs them too.
#: Migration 2: number each conversation's fragments in order (the column itself is added in
#: the dialect's integer type), and index that order, the paths and the times.
POSITIONS = """
        UPDATE fragments SET position = ordered.n
        FROM (SELECT seq, ROW_NUMBER() OVER (PARTITION BY conversation_id ORDER BY seq) - 1 AS n
              FROM fragments) AS ordered
        WHERE ordered.seq = fragments.seq;
        CREATE INDEX fragments_position ON fragments(conversation_id, position);
        CREATE INDEX fragments_source_path ON fragments(source_path);
        CREATE INDEX fragments_timestamp ON fragments(timestamp);
"""
#: Migration 7: the ways a session's project is looked up.
SESSION_PROJECTS_INDEXES = """
        CREATE INDEX session_projects_cwd ON session_projects(cwd);
        CREATE INDEX session_projects_real_path ON session_projects(real_path);
        CREATE INDEX session_projects_repo_root ON session_projects(repo_root);
        CREATE INDEX session_projects_session ON session_projects(session_id);
"""

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

MIGRATIONS.append(
    (
        2,
        """
        -- What indexes see when it differs from content (compacted tool output, titled sections).
        ALTER TABLE fragments ADD COLUMN index_text TEXT;
        -- Order inside its conversation or note (timeline walks it).
        ALTER TABLE fragments ADD COLUMN position INTEGER;
        """
        + POSITIONS
        + """

        -- Lets a re-run skip unchanged files without hashing them.
        ALTER TABLE ingested_files ADD COLUMN mtime_ns INTEGER;

        -- Documents of folder sources (notes of a vault): synced, replaced, removed.
        CREATE TABLE documents (
            id           TEXT PRIMARY KEY,      -- = fragments.conversation_id
            source_kind  TEXT NOT NULL,
            root         TEXT NOT NULL,         -- the folder (vault) it belongs to
            path         TEXT NOT NULL,         -- relative to root, '/'-separated
            title        TEXT NOT NULL,
            aliases      TEXT NOT NULL DEFAULT '[]',   -- JSON list
            tags         TEXT NOT NULL DEFAULT '[]',   -- JSON list
            properties   TEXT NOT NULL DEFAULT '{}',   -- JSON (frontmatter)
            sha256       TEXT NOT NULL,
            size         INTEGER NOT NULL,
            mtime_ns     INTEGER,
            timestamp    REAL,
            updated_at   REAL NOT NULL,
            UNIQUE (root, path)
        );

        -- Links found at ingest, as written, and where they lead (NULL: unresolved).
        CREATE TABLE links (
            id               INTEGER PRIMARY KEY,
            source_document  TEXT NOT NULL,
            source_fragment  TEXT NOT NULL,
            target           TEXT NOT NULL,
            kind             TEXT NOT NULL,     -- link | embed
            heading          TEXT,
            block            TEXT,
            display          TEXT,
            target_path      TEXT,              -- resolved path inside the root, or NULL
            target_document  TEXT               -- resolved document id (NULL for attachments)
        );
        CREATE INDEX links_source ON links(source_document);
        CREATE INDEX links_target ON links(target_document);

        -- Fragments removed from the catalog whose vectors are still to be deleted.
        CREATE TABLE pending_vector_deletes (
            id  TEXT PRIMARY KEY
        );
        """,
    )
)

MIGRATIONS.append(
    (
        3,
        """
        -- Agent memory: who a fragment belongs to. '' owner = the operator's own corpus.
        ALTER TABLE fragments ADD COLUMN owner TEXT NOT NULL DEFAULT '';
        ALTER TABLE fragments ADD COLUMN collection TEXT NOT NULL DEFAULT '';
        ALTER TABLE fragments ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX fragments_scope ON fragments(owner, collection);

        -- One row per memory (a fact, a remembered conversation or a memory file).
        -- Its searchable fragments are those with conversation_id = memories.id.
        CREATE TABLE memories (
            id           TEXT PRIMARY KEY,
            owner        TEXT NOT NULL,          -- users/<user_id> | shared
            collection   TEXT NOT NULL DEFAULT '',
            path         TEXT,                   -- storage path of a memory file; NULL for a fact
            kind         TEXT NOT NULL,          -- fact type, 'conversation' or 'file'
            status       TEXT NOT NULL,          -- active | deleted | invalidated
            revision     INTEGER NOT NULL,       -- current revision
            private      INTEGER NOT NULL DEFAULT 0,
            fingerprint  TEXT NOT NULL DEFAULT '',  -- hash of the normalised text (exact repeats)
            created_at   REAL NOT NULL,
            updated_at   REAL NOT NULL
        );
        CREATE UNIQUE INDEX memories_path ON memories(path) WHERE path IS NOT NULL;
        CREATE INDEX memories_scope ON memories(owner, collection, status);
        CREATE INDEX memories_fingerprint ON memories(owner, collection, fingerprint);

        -- Every state a memory has been in; nothing is overwritten.
        CREATE TABLE memory_revisions (
            memory_id     TEXT NOT NULL REFERENCES memories(id),
            revision      INTEGER NOT NULL,
            content       TEXT NOT NULL,         -- as stored: <private> removed, secrets redacted
            kind          TEXT NOT NULL,
            status        TEXT NOT NULL,         -- the memory's status after this revision
            action        TEXT NOT NULL,  -- create|update|restore|delete|undelete|invalidate
            actor         TEXT NOT NULL,         -- agent:<name> | operator:<name>
            reason        TEXT NOT NULL DEFAULT '',
            tool_call_id  TEXT,
            sources       TEXT NOT NULL DEFAULT '[]',  -- JSON: fragment or memory ids it came from
            redactions    INTEGER NOT NULL DEFAULT 0,
            created_at    REAL NOT NULL,
            PRIMARY KEY (memory_id, revision)
        );

        -- Every read and write through a memory handle.
        CREATE TABLE access_log (
            id            INTEGER PRIMARY KEY,
            at            REAL NOT NULL,
            actor_kind    TEXT NOT NULL,         -- agent | operator
            actor         TEXT NOT NULL,
            user_id       TEXT,                  -- whose memory (NULL: shared or several users)
            action        TEXT NOT NULL,
            target        TEXT NOT NULL DEFAULT '',
            tool_call_id  TEXT,
            outcome       TEXT NOT NULL DEFAULT 'ok',   -- ok | denied | not_found | invalid
            detail        TEXT NOT NULL DEFAULT '{}'    -- JSON
        );
        CREATE INDEX access_log_at ON access_log(at);
        CREATE INDEX access_log_user ON access_log(user_id, at);
        """,
    )
)

MIGRATIONS.append(
    (
        4,
        """
        -- Every fragment added to or removed from the catalog, in commit order. The keyword
        -- index replays what came after the point it was flushed at (settings
        -- 'keyword_synced_to'), so a writer that died between its catalog commit and its
        -- index flush leaves a gap that the next process closes exactly, even when as many
        -- fragments were removed as added. Rows up to that point are pruned after a flush.
        CREATE TABLE fragment_changes (
            seq  INTEGER PRIMARY KEY AUTOINCREMENT,
            id   TEXT NOT NULL
        );
        CREATE TRIGGER fragments_added AFTER INSERT ON fragments
        BEGIN
            INSERT INTO fragment_changes (id) VALUES (new.id);
        END;
        CREATE TRIGGER fragments_removed AFTER DELETE ON fragments
        BEGIN
            INSERT INTO fragment_changes (id) VALUES (old.id);
        END;
        """,
    )
)

MIGRATIONS.append(
    (
        5,
        """
        -- Agent API keys of `memex serve`: each acts for one user, as mx.agent(user) does.
        -- Only a salted hash of the secret is kept; the key itself is shown once.
        CREATE TABLE agent_keys (
            id            TEXT PRIMARY KEY,       -- the public part of the key (mxk_<id>_...)
            name          TEXT NOT NULL,          -- shown in the access log as the actor
            user_id       TEXT NOT NULL,
            collection    TEXT NOT NULL DEFAULT '',  -- a bound: the key reaches this and below
            corpus        INTEGER NOT NULL DEFAULT 1,  -- may read the operator's corpus
            salt          TEXT NOT NULL,
            secret_hash   TEXT NOT NULL,          -- hex HMAC-SHA256(salt, secret)
            created_at    REAL NOT NULL,
            revoked_at    REAL,
            last_used_at  REAL
        );
        -- A name picks one live key (for `memex keys revoke NAME`); revoked ones may repeat.
        CREATE UNIQUE INDEX agent_keys_live_name ON agent_keys(name) WHERE revoked_at IS NULL;
        """,
    )
)

MIGRATIONS.append(
    (
        6,
        """
        -- Homes sharing one catalog (PostgreSQL: replicas on several hosts) each keep their
        -- own keyword index and their own place in fragment_changes; each says here how
        -- far its index on disk goes, and the journal is pruned only up to the lowest place
        -- among replicas heard from lately ([catalog] replica_timeout). A home whose
        -- catalog is its own keeps its place in settings and never writes here.
        CREATE TABLE replicas (
            name        TEXT PRIMARY KEY,   -- host:/path/of/home
            seen        INTEGER NOT NULL,   -- fragment_changes.seq its index reflects
            updated_at  REAL NOT NULL
        );
        """,
    )
)

MIGRATIONS.append(
    (
        7,
        """
        -- The working folder each session ran in (a conversation's metadata 'cwd', once per
        -- conversation and folder), so a project's sessions are found through an index
        -- instead of reading every fragment's metadata (memex_core/catalog/sessions.py).
        -- Kept at ingest; backfilled here from what is stored. What a folder is on disk
        -- (symlinks resolved, its git repository) is recorded by the host that can read
        -- it (the capture worker): NULL until then.
        CREATE TABLE session_projects (
            conversation_id  TEXT NOT NULL,
            cwd              TEXT NOT NULL,     -- as the transcript recorded it
            session_id       TEXT NOT NULL,     -- metadata session_id (a sub-agent's: its
                                                -- parent's), else the conversation id
            source_kind      TEXT NOT NULL,
            real_path        TEXT,              -- cwd with symlinks resolved, or NULL
            repo_root        TEXT,              -- the git repository it lies in, when known
            PRIMARY KEY (conversation_id, cwd)
        );
        """
        + SESSION_PROJECTS_INDEXES
        + """
        INSERT INTO session_projects (conversation_id, cwd, session_id, source_kind)
        SELECT conversation_id, json_extract(metadata, '$.cwd'),
               MIN(COALESCE(json_extract(metadata, '$.session_id'), conversation_id)),
               MIN(source_kind)
        FROM fragments
        WHERE owner = '' AND private = 0 AND json_type(metadata, '$.cwd') = 'text'
              AND json_extract(metadata, '$.cwd') != ''
        GROUP BY conversation_id, json_extract(metadata, '$.cwd');
        """,
    )
)

MIGRATIONS.append(
    (
        8,
        """
        -- Nothing changes here. PostgreSQL's schema 8 writes its change journal once per
        -- statement instead of once per row (memex_postgres/schema.py); both engines keep
        -- the same version numbers, which `memex migrate` compares.
        """,
    )
)

#: Migration 9, written alike in both dialects (memex_postgres.schema runs it too): facts
#: that change over time. A memory held from ``valid_from`` (when it became true: when it
#: was said, or the time its words name) until ``valid_until`` (NULL while it holds), when
#: ``superseded_by`` replaced it. Memories stored before read as valid from when they were
#: recorded. Closing a fact is a revision (action 'supersede'; 'reopen' undoes it).
VALIDITY = """
        UPDATE memories SET valid_from = created_at;
        CREATE INDEX memories_valid_until ON memories(valid_until);  -- "was any closed?"
        CREATE INDEX memories_superseded_by ON memories(superseded_by);
"""

MIGRATIONS.append(
    (
        9,
        """
        ALTER TABLE memories ADD COLUMN valid_from REAL;
        ALTER TABLE memories ADD COLUMN valid_until REAL;
        ALTER TABLE memories ADD COLUMN superseded_by TEXT;
        """
        + VALIDITY,
    )
)

LATEST_VERSION = MIGRATIONS[-1][0]
