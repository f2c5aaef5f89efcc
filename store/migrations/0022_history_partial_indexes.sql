-- 0022: a call's writes touch fewer pages (issue 20: a call as a UAS).
--
-- The page walks of the missed and of the declined calls (0012) read
-- indexes that held every entry, so every call's start added an entry to
-- both, and its end moved the one of the outcome index (its outcome is set
-- then) and rewrote the other: five of the fifteen pages a call's two
-- commits wrote. As partial indexes they hold only the missed and only
-- the declined entries: a call that is neither never touches them. The
-- walks' WHERE clauses (outcome = 'missed' AND open = 0, declined = 1 AND
-- open = 0) imply the indexes' own, so SQLite still walks them, covering
-- and in order (store/history_walk_test.go checks the plans); the count
-- of missed calls since History was seen (history_seen.go) reads the
-- missed one too.
DROP INDEX history_page_outcome;
CREATE INDEX history_page_missed ON history (started_at DESC, id DESC, open, rev) WHERE outcome = 'missed';
DROP INDEX history_page_declined;
CREATE INDEX history_page_declined ON history (started_at DESC, id DESC, open, rev) WHERE declined = 1;
