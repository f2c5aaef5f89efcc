-- 0020: the triggers of history do their work only when it is needed
-- (issue 20: the writes of every call). A call's end rewrites number, name
-- and uri, mostly with what they were: the search index (0003) is touched
-- only when one of them changed. The phone's own writes stamp rev
-- themselves (rev = random() in the statement): the insert trigger of 0012
-- stamps only a row inserted without one, as the update trigger already
-- stamps only an update that left rev as it was; a second UPDATE of the
-- row (and of its three page indexes) per write is saved.
DROP TRIGGER history_search_update;
CREATE TRIGGER history_search_update AFTER UPDATE OF number, name, uri ON history
WHEN old.number IS NOT new.number OR old.name IS NOT new.name OR old.uri IS NOT new.uri BEGIN
    INSERT INTO history_search (history_search, rowid, number, name, uri)
        VALUES ('delete', old.rowid, old.number, old.name, old.uri);
    INSERT INTO history_search (rowid, number, name, uri) VALUES (new.rowid, new.number, new.name, new.uri);
END;
DROP TRIGGER history_rev_insert;
CREATE TRIGGER history_rev_insert AFTER INSERT ON history WHEN new.rev = 0 BEGIN
    UPDATE history SET rev = random() WHERE rowid = new.rowid;
END;
