-- 0016: the final SIP status of a call that was refused or failed (404, 486,
-- 603, ...; 0 when no answer came or none is known), so the history can say
-- in words why a call failed (issue 16: "no such number", "busy", ...).
-- Calls from before are taken as unknown.
ALTER TABLE history ADD COLUMN sip_status INTEGER NOT NULL DEFAULT 0;

-- The moment the person last looked at the history: missed calls after it
-- are counted on the navigation's badge (issue 16 item 5). One row.
CREATE TABLE history_seen (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at INTEGER NOT NULL DEFAULT 0
);
INSERT INTO history_seen (id, at) VALUES (1, 0);
