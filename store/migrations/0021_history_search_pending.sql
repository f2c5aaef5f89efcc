-- 0021: the writes of every call cost less (issue 20: a call as a UAS).
--
-- The search index (0003) is brought up to date in batches instead of at
-- each write. FTS5 writes a new segment at every commit that touched it, so
-- indexing each call's start on its own was half of the start's cost; a
-- batch of rows costs a fraction of that per row. A new or renamed entry is
-- only noted in history_search_pending (one row of one small table), and
-- the store indexes what is noted every few seconds and before every search
-- (store/history_search.go), so a search never misses an entry.
CREATE TABLE history_search_pending (row INTEGER PRIMARY KEY);

DROP TRIGGER history_search_insert;
CREATE TRIGGER history_search_insert AFTER INSERT ON history BEGIN
    INSERT OR IGNORE INTO history_search_pending (row) VALUES (new.rowid);
END;
-- An indexed entry whose number, name or uri changed leaves the index with
-- the values it was indexed with and waits to be indexed again; one still
-- waiting is indexed with what it has then.
DROP TRIGGER history_search_update;
CREATE TRIGGER history_search_update AFTER UPDATE OF number, name, uri ON history
WHEN (old.number IS NOT new.number OR old.name IS NOT new.name OR old.uri IS NOT new.uri)
    AND NOT EXISTS (SELECT 1 FROM history_search_pending WHERE row = old.rowid) BEGIN
    INSERT INTO history_search (history_search, rowid, number, name, uri)
        VALUES ('delete', old.rowid, old.number, old.name, old.uri);
    INSERT INTO history_search_pending (row) VALUES (new.rowid);
END;
DROP TRIGGER history_search_delete;
CREATE TRIGGER history_search_delete AFTER DELETE ON history BEGIN
    INSERT INTO history_search (history_search, rowid, number, name, uri)
        SELECT 'delete', old.rowid, old.number, old.name, old.uri
        WHERE NOT EXISTS (SELECT 1 FROM history_search_pending WHERE row = old.rowid);
    DELETE FROM history_search_pending WHERE row = old.rowid;
END;

-- rev (0012) stamps what a page of GET /history shows, and a page shows
-- closed entries only (calls in progress are in GET /calls). An update of
-- an entry that is open before and after (the answer, the heartbeat of live
-- calls) needs no new stamp: the end stamps the entry when it closes. Such
-- an update then rewrites no index: answered, answered_at, answered_by and
-- alive_at are in none.
DROP TRIGGER history_rev_update;
CREATE TRIGGER history_rev_update AFTER UPDATE ON history
WHEN new.rev = old.rev AND NOT (old.open = 1 AND new.open = 1) BEGIN
    UPDATE history SET rev = random() WHERE rowid = new.rowid;
END;
