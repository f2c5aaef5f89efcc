-- 0003: substring search of history (number, name, uri) through an FTS5
-- trigram index, so a text filter does not scan the whole table.
-- External content keyed by history's rowid: should anyone ever VACUUM the
-- database (which may renumber those rowids), rebuild the index afterwards
-- with INSERT INTO history_search(history_search) VALUES ('rebuild').
CREATE VIRTUAL TABLE history_search USING fts5 (
    number, name, uri,
    content = 'history', content_rowid = 'rowid', tokenize = 'trigram case_sensitive 0'
);
INSERT INTO history_search (history_search) VALUES ('rebuild');

CREATE TRIGGER history_search_insert AFTER INSERT ON history BEGIN
    INSERT INTO history_search (rowid, number, name, uri) VALUES (new.rowid, new.number, new.name, new.uri);
END;
CREATE TRIGGER history_search_delete AFTER DELETE ON history BEGIN
    INSERT INTO history_search (history_search, rowid, number, name, uri)
        VALUES ('delete', old.rowid, old.number, old.name, old.uri);
END;
CREATE TRIGGER history_search_update AFTER UPDATE OF number, name, uri ON history BEGIN
    INSERT INTO history_search (history_search, rowid, number, name, uri)
        VALUES ('delete', old.rowid, old.number, old.name, old.uri);
    INSERT INTO history_search (rowid, number, name, uri) VALUES (new.rowid, new.number, new.name, new.uri);
END;
