-- 0001: the first schema. Times are INTEGER Unix nanoseconds (UTC), 0 = unknown.
CREATE TABLE schema_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO schema_version (id, version) VALUES (1, 0);

CREATE TABLE contacts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL DEFAULT '',
    number     TEXT NOT NULL DEFAULT '',
    number_key TEXT NOT NULL DEFAULT '', -- number without spaces, dashes, dots, slashes, brackets
    account_id TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX contacts_number_key ON contacts (number_key);
CREATE INDEX contacts_name ON contacts (name COLLATE NOCASE);

CREATE TABLE taxonomy (
    code     TEXT PRIMARY KEY,
    kind     TEXT NOT NULL CHECK (kind IN ('category', 'tag', 'red_flag')),
    severity TEXT NOT NULL DEFAULT '',
    retired  INTEGER NOT NULL DEFAULT 0,
    triggers TEXT NOT NULL DEFAULT '[]', -- JSON array of phrases
    position INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE taxonomy_texts (
    code        TEXT NOT NULL REFERENCES taxonomy (code) ON DELETE CASCADE,
    lang        TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (code, lang)
);

CREATE TABLE history (
    id          TEXT PRIMARY KEY,
    call_id     TEXT NOT NULL UNIQUE,
    seance_id   TEXT NOT NULL DEFAULT '',
    account_id  TEXT NOT NULL DEFAULT '',
    account     TEXT NOT NULL DEFAULT '',
    direction   TEXT NOT NULL DEFAULT '',
    number      TEXT NOT NULL DEFAULT '',
    uri         TEXT NOT NULL DEFAULT '',
    name        TEXT NOT NULL DEFAULT '',
    dialed      TEXT NOT NULL DEFAULT '',
    outcome     TEXT NOT NULL DEFAULT '',
    answered    INTEGER NOT NULL DEFAULT 0,
    duration_s  REAL NOT NULL DEFAULT 0,
    reason      TEXT NOT NULL DEFAULT '',
    answered_by TEXT NOT NULL DEFAULT '',
    started_at  INTEGER NOT NULL DEFAULT 0,
    answered_at INTEGER NOT NULL DEFAULT 0,
    ended_at    INTEGER NOT NULL DEFAULT 0,
    open        INTEGER NOT NULL DEFAULT 0,
    declined    INTEGER NOT NULL DEFAULT 0,
    jitter      REAL NOT NULL DEFAULT 0,
    loss        REAL NOT NULL DEFAULT 0,
    note        TEXT NOT NULL DEFAULT '',
    recording   TEXT NOT NULL DEFAULT ''
);
-- Newest first, with the id as tie breaker, for every filter of ListHistory.
CREATE INDEX history_started ON history (started_at DESC, id DESC);
CREATE INDEX history_outcome_started ON history (outcome, started_at DESC, id DESC);
CREATE INDEX history_declined_started ON history (declined, started_at DESC, id DESC);
CREATE INDEX history_account_started ON history (account_id, started_at DESC, id DESC);
CREATE INDEX history_open ON history (open) WHERE open = 1;

CREATE TABLE history_tags (
    history_id TEXT NOT NULL REFERENCES history (id) ON DELETE CASCADE,
    code       TEXT NOT NULL REFERENCES taxonomy (code),
    PRIMARY KEY (history_id, code)
);

CREATE TABLE recordings (
    id         TEXT PRIMARY KEY,
    call_id    TEXT NOT NULL DEFAULT '',
    seance_id  TEXT NOT NULL DEFAULT '',
    started_at INTEGER NOT NULL DEFAULT 0,
    duration_s REAL NOT NULL DEFAULT 0,
    size_bytes INTEGER NOT NULL DEFAULT 0,
    codec      TEXT NOT NULL DEFAULT '',
    path       TEXT NOT NULL DEFAULT '',
    number     TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX recordings_started ON recordings (started_at DESC, id DESC);
CREATE INDEX recordings_call ON recordings (call_id);

CREATE TABLE transcripts (
    recording_id TEXT PRIMARY KEY REFERENCES recordings (id) ON DELETE CASCADE,
    status       TEXT NOT NULL DEFAULT 'pending',
    error        TEXT NOT NULL DEFAULT '',
    recogniser   TEXT NOT NULL DEFAULT '',
    segments     TEXT NOT NULL DEFAULT '[]', -- JSON array of TranscriptSegment
    updated_at   INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE outbox (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL,
    call_id     TEXT NOT NULL DEFAULT '',
    event       TEXT NOT NULL DEFAULT '',
    fields      TEXT NOT NULL DEFAULT '{}', -- JSON object, every value a string
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX outbox_call_seq ON outbox (call_id, seq);

CREATE TABLE deliveries (
    delivery_id TEXT PRIMARY KEY,
    call_id     TEXT NOT NULL DEFAULT '',
    event       TEXT NOT NULL DEFAULT '',
    status      INTEGER NOT NULL DEFAULT 0,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT NOT NULL DEFAULT '',
    delivered   INTEGER NOT NULL DEFAULT 0,
    at          INTEGER NOT NULL DEFAULT 0,
    fields      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX deliveries_at ON deliveries (at DESC);
