-- 0012: GET /history reads a page as an index-only scan (issue 20). Each
-- entry carries rev, a stamp that changes whenever the entry or its tags
-- change; the API keeps every entry it has rendered with the stamp it had, so
-- a page is the index walk plus the rendering of only what changed.
-- rev is random rather than a counter: a rowid SQLite reuses after a delete
-- must not meet the stamp of the entry that had it before.
ALTER TABLE history ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER history_rev_insert AFTER INSERT ON history BEGIN
    UPDATE history SET rev = random() WHERE rowid = new.rowid;
END;
-- Any change but one to rev itself (the triggers' own writes, which
-- recursive_triggers being off would not run this for anyway).
CREATE TRIGGER history_rev_update AFTER UPDATE ON history WHEN new.rev = old.rev BEGIN
    UPDATE history SET rev = random() WHERE rowid = new.rowid;
END;
CREATE TRIGGER history_rev_tag_insert AFTER INSERT ON history_tags BEGIN
    UPDATE history SET rev = random() WHERE id = new.history_id;
END;
CREATE TRIGGER history_rev_tag_delete AFTER DELETE ON history_tags BEGIN
    UPDATE history SET rev = random() WHERE id = old.history_id;
END;

-- The page indexes hold what the page walk reads (open, rev, the rowid), so
-- it never touches the table. They replace the narrower ones of 0001, whose
-- every use they serve.
CREATE INDEX history_page ON history (started_at DESC, id DESC, open, rev);
CREATE INDEX history_page_outcome ON history (outcome, started_at DESC, id DESC, open, rev);
CREATE INDEX history_page_declined ON history (declined, started_at DESC, id DESC, open, rev);
DROP INDEX history_started;
DROP INDEX history_outcome_started;
DROP INDEX history_declined_started;
